// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_throttle.c - the kernel side of kprof's throttle.
 *
 * common/kprof_throttle.h decides; this file detects the kernel's own
 * throttle of kprof's event, writes the throttle's records and stops the
 * event as kprof_throttle_way() says.  docs/throttle.md has the design and
 * what each kernel version does.  Called from the overflow handler
 * (hardirq or NMI): no locks, no allocation, no printk.
 *
 * Per-task sessions: the kernel counts its per-tick limit per event
 * (hw.interrupts in hw.interrupts_seq, this CPU's tick), and a per-task
 * session has one event per task of its target, several of which may take
 * turns on a CPU within a tick.  kprof's own limit counts per event too:
 * its count of an event is the kernel's, read from hw.interrupts, which
 * __perf_event_account_interrupt() has already counted this overflow in.
 * So a count carries across context switches within a tick, starts anew
 * at the CPU's next tick, on another CPU, and when event_sched_in() lifts
 * a throttle, exactly where the kernel's does, for any number of tasks;
 * a count of kprof's own, per CPU, could see neither that lifting nor a
 * move to another CPU and back within the tick.
 * What the kernel's count cannot say, where kprof or the kernel wrote it
 * (MAX_INTERRUPTS, kprof's arming), comes from a slot per event in the
 * producer (c->thr_task, preallocated with it, keyed by the event's
 * address): whether kprof throttled the event or armed the kernel's stop
 * in this tick.  Exact while at most KPROF_THROTTLE_EVENTS of a session's
 * events are throttled or armed on one CPU in one tick
 * (kprof_throttle_event_of()).  One more difference from the kernel: a
 * trip kprof could not arm ahead (a limit of 1, a knob lowered) arms at
 * the trip, and event_sched_in() lifts MAX_INTERRUPTS only, so such an
 * event's next overflow in the tick is dropped even after a switch that
 * would have lifted a throttle of the kernel's.  A throttle's record in
 * a CPU's ring ends at the next overflow let through, of whichever
 * event.  Clock events are not stopped, see kprof_throttle_stop().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/tick.h>

#include "kprof.h"

/* kernel/events/core.c: hw.interrupts of an event the kernel throttled */
#define KPROF_MAX_INTERRUPTS	KPROF_THROTTLE_MAX_INTERRUPTS
/*
 * hw.interrupts that makes __perf_event_account_interrupt()'s next
 * increment in the same tick reach MAX_INTERRUPTS, at or above any
 * max_samples_per_tick, so the kernel throttles that overflow itself.
 */
#define KPROF_ARM_INTERRUPTS	(KPROF_MAX_INTERRUPTS - 1)

/*
 * One that does not fit is counted and reported by type in the next LOST
 * record, so a reader can still pair THROTTLE with UNTHROTTLE.
 */
static void kprof_throttle_emit(struct kprof_cpu *c, const void *rec, u32 size,
				u64 time, enum kprof_lost_cause kind)
{
	if (kprof_buffer_output(c, rec, size, time))
		return;
	local64_inc(&c->count[KPROF_CNT_LOST_EVENTS]);
	kprof_pending_add(c, kind, 1);
}

static void kprof_throttle_record(struct kprof_cpu *c, u32 type, u16 misc,
				  u64 now, u64 tick, u64 interrupts,
				  enum kprof_lost_cause kind)
{
	struct kprof_throttle_event r = {
		.header.type = type,
		.header.misc = misc,
		.header.size = sizeof(r),
		.time = now,
		.seq = local64_read(&c->count[KPROF_CNT_OVERFLOWS]),
		.tick = tick,
		.interrupts = interrupts,
	};

	kprof_throttle_emit(c, &r, sizeof(r), now, kind);
}

/*
 * The throttled tick of this CPU ended at @now, in @tick: every limit
 * that held it has let go.  One UNTHROTTLE per THROTTLE.
 */
static void kprof_throttle_close(struct kprof_cpu *c, u64 now, u64 tick)
{
	c->thr_open = false;
	local64_inc(&c->count[KPROF_CNT_UNTHROTTLES]);
	kprof_throttle_record(c, KPROF_RECORD_UNTHROTTLE, 0, now, tick, 0,
			      KPROF_LOST_UNTHROTTLE_REC);
}

/*
 * A throttled tick begins at this overflow, @misc saying which limit(s)
 * tripped: one THROTTLE, each counter once.  A limit tripping while the
 * other already holds the tick starts no new throttled tick.
 */
static void kprof_throttle_open(struct kprof_cpu *c, u16 misc, u64 now)
{
	if (c->thr_open)
		return;
	c->thr_open = true;
	local64_inc(&c->count[KPROF_CNT_THROTTLES]);
	if (misc & KPROF_MISC_THROTTLE_OWN)
		local64_inc(&c->count[KPROF_CNT_OWN_THROTTLES]);
	if (misc & KPROF_MISC_THROTTLE_KERNEL)
		local64_inc(&c->count[KPROF_CNT_KERNEL_THROTTLES]);
	/* kprof's tick and count of the event, as it counted the overflow */
	kprof_throttle_record(c, KPROF_RECORD_THROTTLE, misc, now,
			      c->thr_cur->count.tick,
			      c->thr_cur->count.interrupts,
			      KPROF_LOST_THROTTLE_REC);
}

/*
 * The per-tick state of @event, overflowing in the kernel's tick @seq: a
 * CPU session's one event's, a per-task session's by the event, each of
 * whose events the kernel counts on its own (hw.interrupts).  A CPU
 * session's event is new only when its CPU came back online, its state
 * reset then (kprof_throttle_reset()); what kprof knew of an earlier
 * event's hw.interrupts is not this one's.
 */
static struct kprof_throttle_ev *
kprof_throttle_event(struct kprof_cpu *c, struct perf_event *event, u64 seq)
{
	struct kprof_throttle_ev *e = &c->thr;

	if (kprof_session_per_task(c->session))
		return kprof_throttle_event_of(&c->thr_task,
					       (unsigned long)event, seq);
	if (e->key != (unsigned long)event) {
		e->key = (unsigned long)event;
		e->kthrottled = 0;
		e->armed_tick = KPROF_THROTTLE_NO_TICK;
	}
	return e;
}

/*
 * How kprof's own limit stops the event, never starting or stopping a
 * counter behind the perf core (docs/throttle.md, "How kprof stops an
 * event", says why each way is sound on 6.1, 6.12 and 7.x).
 */
enum kprof_throttle_way {
	KPROF_THR_DEFERRED,	/* clock events: irq_work stops, hrtimer restarts */
	KPROF_THR_IN_OVERFLOW,	/* PMU, frequency mode: as the kernel, the tick restarts */
	KPROF_THR_CORE,		/* PMU, fixed period: the kernel's limit stops, the tick restarts */
};

/*
 * Clock events by their PMU's context: is_software_event() needs
 * PERF_EV_CAP_SOFTWARE, which perf_event_create_kernel_counter() never
 * sets.  Their stop cannot run inside their own hrtimer callback
 * (perf_swevent_cancel_hrtimer() would wait for itself).
 */
static enum kprof_throttle_way kprof_throttle_way(struct perf_event *event)
{
	if (event->pmu->task_ctx_nr == perf_sw_context)
		return KPROF_THR_DEFERRED;
	if (event->attr.freq && event->attr.sample_freq)
		return KPROF_THR_IN_OVERFLOW;
	return KPROF_THR_CORE;
}

/**
 * kprof_throttle_check_event() - refuse an event kprof cannot throttle soundly
 * @event: a new event of kprof's, created disabled, not yet enabled
 * @type: the type kprof asked for (perf_swevent_init() may rewrite
 *	event->attr.type to the clock PMU's dynamic type)
 *
 * Refused: AMD IBS in frequency mode, which a precise hardware event may
 * be forwarded to (docs/throttle.md, "Refused events"); the PMUs kprof
 * never samples are refused before any event exists
 * (kprof_config_validate()).
 *
 * Context: process context (START, or the cpuhp callback creating the event).
 * Return: 0, or -EOPNOTSUPP after logging which event and why.
 */
int kprof_throttle_check_event(struct perf_event *event, u32 type)
{
	const char *name = event->pmu->name ? event->pmu->name : "?";

	if (kprof_throttle_way(event) != KPROF_THR_IN_OVERFLOW ||
	    !str_has_prefix(name, "ibs_"))
		return 0;
	pr_warn_ratelimited("event type %u config %#llx on PMU '%s' refused: AMD IBS undoes kprof's in-overflow stop; use a fixed period (-c)\n",
			    type, event->attr.config, name);
	return -EOPNOTSUPP;
}

/* After the sample that tripped kprof's limit: stop as kprof_throttle_way says. */
static void kprof_throttle_stop(struct kprof_cpu *c, struct perf_event *event,
				bool ktripped)
{
	switch (kprof_throttle_way(event)) {
	case KPROF_THR_DEFERRED:
		/*
		 * A per-task session's clock event is not stopped: by the
		 * time the irq_work or the restart's hrtimer ran, its task
		 * may have been switched out or moved to another CPU, and
		 * its event with it, which must then not be stopped or
		 * started from here behind the perf core.  Its overflows go
		 * on arriving and are counted lost_throttled until its count
		 * starts anew (kprof_throttle_admit()): the same records and
		 * counts, only the handler's cost of those overflows is not
		 * spared.
		 */
		if (!kprof_session_per_task(c->session))
			irq_work_queue(&c->thr_stop);
		break;
	case KPROF_THR_IN_OVERFLOW:
		/*
		 * The kernel's limit tripped too: it stops the event.  A
		 * per-task event is stopped the same way: it is the one
		 * active on this CPU, in its own overflow, and the kernel
		 * restarts it at the tick or lifts the throttle when it is
		 * next scheduled in (event_sched_in()), as for its own.
		 */
		if (ktripped || READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE)
			break;
		/* What the kernel's throttle does, in its order. */
		event->hw.interrupts = KPROF_MAX_INTERRUPTS;
		event->pmu->stop(event, 0);
		tick_dep_set_cpu(smp_processor_id(), TICK_DEP_BIT_PERF_EVENTS);
		break;
	case KPROF_THR_CORE:
		/* Stopped by the kernel at this overflow or, armed, the next. */
		break;
	}
}

/* Arm the restart for @restart (local_clock() ns) in the timer's clock. */
static ktime_t kprof_throttle_expiry(ktime_t base, u64 restart, u64 now)
{
	return ktime_add_ns(base, restart > now ? restart - now : 0);
}

/*
 * irq_work, this CPU, irqs off, after the overflow handler returned, so
 * cancelling the clock's hrtimer does not wait for its own callback:
 * stop the event and arm the restart for the next tick.
 */
static void kprof_throttle_stop_work(struct irq_work *work)
{
	struct kprof_cpu *c = container_of(work, struct kprof_cpu, thr_stop);
	const struct kprof_throttle_limits *l = &kprof.limits;
	struct perf_event *event = READ_ONCE(c->event);
	u64 now;

	if (!event || !READ_ONCE(c->active) || !c->thr.count.throttled)
		return;
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) {
		event->pmu->stop(event, 0);
		c->thr_stopped = true;
	}
	/* The next tick of local_clock(), carried over to CLOCK_MONOTONIC. */
	now = local_clock();
	hrtimer_start(&c->thr_timer,
		      kprof_throttle_expiry(ktime_get(),
					    c->thr.count.tick_start_ns + l->tick_nsec,
					    now),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/* hrtimer, this CPU, hardirq: restart the event at the start of a tick. */
static enum hrtimer_restart kprof_throttle_timer_fn(struct hrtimer *t)
{
	struct kprof_cpu *c = container_of(t, struct kprof_cpu, thr_timer);
	struct perf_event *event = READ_ONCE(c->event);
	u64 now = local_clock(), restart;

	/* Not throttled: the handler already saw the throttle end. */
	if (!event || !READ_ONCE(c->active) || !c->thr.count.throttled)
		return HRTIMER_NORESTART;
	if (!kprof_throttle_unthrottle(&kprof.limits, &c->thr.count, now,
				       &restart)) {
		/*
		 * Still the throttled tick by local_clock() (the hrtimer's
		 * clock ran ahead, or a later tick throttled): expire at its
		 * end, at least 1 us on so that a skew cannot spin.
		 */
		restart = c->thr.count.tick_start_ns + kprof.limits.tick_nsec;
		hrtimer_set_expires(t, kprof_throttle_expiry(hrtimer_cb_get_time(t),
							     max(restart, now + NSEC_PER_USEC),
							     now));
		return HRTIMER_RESTART;
	}
	/*
	 * Restart only what kprof stopped and the kernel does not hold
	 * (hw.interrupts == MAX_INTERRUPTS until its tick restarts the
	 * event): a start before that would lift the kernel's throttle.
	 */
	if (c->thr_stopped && READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(event->hw.interrupts) != KPROF_MAX_INTERRUPTS)
		event->pmu->start(event, 0);
	c->thr_stopped = false;
	/* The kernel's limit may hold it still: its release closes then. */
	if (c->thr_open && !c->thr.kthrottled)
		kprof_throttle_close(c, now,
				     kprof_throttle_tick_of(&kprof.limits, now));
	local_inc(&c->publish_gen);
	kprof_counters_publish(c);
	return HRTIMER_NORESTART;
}

/**
 * kprof_throttle_admit() - apply both per-tick limits to one overflow
 * @c: this CPU's state
 * @event: the overflowing event
 * @now: the overflow's time
 * @v: out: kprof's verdict
 * @ktripped: out: this overflow tripped the kernel's limit
 *
 * Counts the overflow against kprof's limit for its event and ends the
 * ring's throttled tick (UNTHROTTLE, before this overflow's SAMPLE) when
 * the overflow is let through: no limit holds its event any more.
 *
 * Context: this CPU's overflow handler, in a buffer write section.
 * Return: false when the overflow arrived while kprof had the CPU
 * throttled (the caller counts it lost), true when it may be sampled.
 */
bool kprof_throttle_admit(struct kprof_cpu *c, struct perf_event *event,
			  u64 now, enum kprof_throttle_verdict *v,
			  bool *ktripped)
{
	/* As __perf_event_account_interrupt() left them for this overflow. */
	u64 seq = READ_ONCE(event->hw.interrupts_seq);
	u64 kcount = READ_ONCE(event->hw.interrupts);
	struct kprof_throttle_ev *e = kprof_throttle_event(c, event, seq);
	bool was_throttled = e->count.throttled;

	c->thr_cur = e;
	*ktripped = kprof_throttle_kernel_tripped(e, kcount, seq);
	/*
	 * A per-task session's events count as the kernel counts them: each
	 * its own overflows in the kernel's tick, from hw.interrupts, which
	 * restarts where the kernel's count does.  A CPU session's PMU
	 * event counts in the kernel's ticks, whose tick restarts it; its
	 * clock event in local_clock()'s, as kprof restarts it itself.
	 */
	if (kprof_session_per_task(c->session))
		*v = kprof_throttle_interrupt_counted(&kprof.limits, &e->count,
						      seq, now, kcount);
	else if (kprof_throttle_way(event) == KPROF_THR_DEFERRED)
		*v = kprof_throttle_interrupt(&kprof.limits, &e->count, now);
	else
		*v = kprof_throttle_interrupt_in(&kprof.limits, &e->count,
						 seq, now);
	if (*v == KPROF_THROTTLE_SUPPRESSED)
		return false;
	/* A later tick beat the deferred stop (a stall): nothing to undo. */
	if (was_throttled)
		c->thr_stopped = false;
	/*
	 * An overflow let through ends the throttled tick this ring is in:
	 * the kernel restarted what its limit stopped (a MAX_INTERRUPTS now
	 * is this overflow's, kprof_throttle_kernel_tripped()), kprof's own
	 * limit let go, or, in a per-task session, another of its events
	 * overflows here, which no limit holds.
	 */
	if (c->thr_open)
		kprof_throttle_close(c, now, e->count.tick);
	return true;
}

/**
 * kprof_throttle_feed() - feed one overflow's cost to the cost controller
 * @c: this CPU's state
 * @cost_ns: the handler's measured cost
 * @now: when it was measured, the time of a RATE_LOWERED record
 *
 * As perf_sample_event_took() is fed; a lowering is recorded in-band and
 * its message printed later from irq_work.
 *
 * Context: this CPU's overflow handler, at its end.
 */
void kprof_throttle_feed(struct kprof_cpu *c, u64 cost_ns, u64 now)
{
	struct kprof_throttle_lowering low;
	struct kprof_rate_lowered r;

	if (!kprof_throttle_sample_took(&kprof.limits, this_cpu_ptr(&kprof_cost),
					cost_ns, &low))
		return;

	r = (struct kprof_rate_lowered) {
		.header.type = KPROF_RECORD_RATE_LOWERED,
		.header.size = sizeof(r),
		/* When the new limits took effect. */
		.time = now,
		.avg_ns = low.avg_ns,
		.old_allowed_ns = low.old_allowed_ns,
		.max_samples_per_tick = low.max_samples_per_tick,
		.max_sample_rate = low.max_sample_rate,
	};
	local64_inc(&c->count[KPROF_CNT_LOWERINGS]);
	kprof_throttle_emit(c, &r, sizeof(r), now, KPROF_LOST_LOWERED_REC);
	/* The control pages get the new limits lazily, this one's below. */
	c->msg_avg = low.avg_ns;
	c->msg_allowed = low.old_allowed_ns;
	c->msg_rate = low.max_sample_rate;
	irq_work_queue(&c->thr_msg);
}

/**
 * kprof_throttle_after() - act on the verdicts once the sample is out
 * @c: this CPU's state
 * @event: the overflowing event
 * @v: kprof's verdict from kprof_throttle_admit()
 * @ktripped: the kernel's limit tripped at this overflow
 * @now: the overflow's time
 *
 * Context: this CPU's overflow handler, after the sample (or its loss).
 */
void kprof_throttle_after(struct kprof_cpu *c, struct perf_event *event,
			  enum kprof_throttle_verdict v, bool ktripped, u64 now)
{
	u16 misc = 0;

	/* The interrupt that trips a limit is delivered, then the stop. */
	if (v == KPROF_THROTTLE_STOP)
		misc |= KPROF_MISC_THROTTLE_OWN;
	if (ktripped)
		misc |= KPROF_MISC_THROTTLE_KERNEL;
	if (misc)
		kprof_throttle_open(c, misc, now);
	if (v == KPROF_THROTTLE_STOP) {
		kprof_throttle_stop(c, event, ktripped);
	} else if (v == KPROF_THROTTLE_WOULD_STOP) {
		/* Shadow: record where ge would have stopped, keep going. */
		local64_inc(&c->count[KPROF_CNT_WOULD_THROTTLES]);
		kprof_throttle_record(c, KPROF_RECORD_WOULD_THROTTLE, 0, now,
				      c->thr_cur->count.tick,
				      c->thr_cur->count.interrupts,
				      KPROF_LOST_WOULD_REC);
	}
}

/**
 * kprof_throttle_end() - have the kernel stop a fixed-period PMU event
 * @c: this CPU's state
 * @event: the overflowing event
 *
 * When kprof's limit stops the event at its next overflow in this tick
 * (kprof_throttle_stops_next()), set hw.interrupts so that
 * __perf_event_account_interrupt() throttles that overflow: the kernel
 * stops the counter through the PMU driver and restarts it at its tick.
 * A new tick resets hw.interrupts, so an arming never outlives its tick.
 * After the cost controller's feed, so that a lowering here counts.
 *
 * Context: this CPU's overflow handler, at its end.
 */
void kprof_throttle_end(struct kprof_cpu *c, struct perf_event *event)
{
	if (kprof_throttle_way(event) != KPROF_THR_CORE ||
	    !kprof_throttle_stops_next(&kprof.limits, &c->thr_cur->count) ||
	    READ_ONCE(event->hw.interrupts) == KPROF_MAX_INTERRUPTS)
		return;
	WRITE_ONCE(event->hw.interrupts, KPROF_ARM_INTERRUPTS);
	kprof_throttle_armed(c->thr_cur, READ_ONCE(event->hw.interrupts_seq));
}

static void kprof_throttle_msg_work(struct irq_work *work)
{
	struct kprof_cpu *c = container_of(work, struct kprof_cpu, thr_msg);

	if (c->buf)
		kprof_counters_publish(c);
	/* Not the kernel's wording: kernel.perf_event_max_sample_rate stays. */
	pr_info_ratelimited("handler took %llu ns on average, over the %llu ns allowed: lowering kprof's own max_sample_rate to %llu\n",
			    c->msg_avg, c->msg_allowed, c->msg_rate);
}

/**
 * kprof_throttle_init_cpus() - every CPU's cost average, from zero
 *
 * Context: module init, before any event exists.
 */
void kprof_throttle_init_cpus(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		kprof_throttle_reset_cost(cpu);
}

/**
 * kprof_throttle_reset_cost() - forget a CPU's cost average
 * @cpu: the CPU
 *
 * Context: kprof.lock held, no session running (no handler feeds it).
 */
void kprof_throttle_reset_cost(unsigned int cpu)
{
	kprof_throttle_cpu_init(per_cpu_ptr(&kprof_cost, cpu));
}

/**
 * kprof_throttle_init() - set up a producer's deferred throttle work
 * @c: a new session's producer of one CPU
 *
 * Context: process context, before the session has any event.
 */
void kprof_throttle_init(struct kprof_cpu *c)
{
	c->thr_stop = IRQ_WORK_INIT_HARD(kprof_throttle_stop_work);
	c->thr_msg = IRQ_WORK_INIT(kprof_throttle_msg_work);
	kprof_hrtimer_setup(&c->thr_timer, kprof_throttle_timer_fn,
			    CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	kprof_throttle_reset(c);
}

/**
 * kprof_throttle_reset() - forget the producer's events' throttle history
 * @c: the producer, without an event
 *
 * The CPU's cost average stays: other sessions' events on the CPU share
 * it (kprof_cost), and the kernel never resets running_sample_length.
 */
void kprof_throttle_reset(struct kprof_cpu *c)
{
	kprof_throttle_event_init(&c->thr, 0);
	kprof_throttle_events_init(&c->thr_task);
	c->thr_cur = &c->thr;
	c->thr_stopped = false;
	c->thr_open = false;
}

/**
 * kprof_throttle_quiesce() - wait for a CPU's deferred throttle work
 * @c: the CPU's state; its event is gone or no longer reachable
 *
 * Context: process context, never from the hrtimer or irq_work itself.
 */
void kprof_throttle_quiesce(struct kprof_cpu *c)
{
	irq_work_sync(&c->thr_stop);
	hrtimer_cancel(&c->thr_timer);
	irq_work_sync(&c->thr_msg);
}

