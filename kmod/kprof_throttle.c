// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_throttle.c - the kernel side of kprof's throttle.
 *
 * common/kprof_throttle.h decides (a pure model of perf's two limits);
 * this file does what the decisions require on this kernel: detect the
 * kernel's own per-tick throttle of our event, write the THROTTLE,
 * UNTHROTTLE, WOULD_THROTTLE and RATE_LOWERED records, and stop the event
 * the way kprof_throttle_way() says (for clock events from irq_work, with
 * the restart from an hrtimer at the next tick).  The overflow handler
 * (kprof_sample.c) calls in from hardirq or NMI context: same rules as
 * there, no locks, no allocation, no printk.
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
#define KPROF_MAX_INTERRUPTS	(~0ULL)

/*
 * Write a record of the throttle's; one that does not fit is counted
 * (lost_events) and reported by type in the next LOST record, so a
 * reader can still pair THROTTLE with UNTHROTTLE.
 */
static void kprof_throttle_emit(struct kprof_cpu *c, const void *rec, u32 size,
				u64 time, enum kprof_lost_cause kind)
{
	if (kprof_buffer_output(c, rec, size, time))
		return;
	local64_inc(&c->count[KPROF_CNT_LOST_EVENTS]);
	local64_inc(&c->pending[kind]);
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
 * other already holds the tick (possible only when PMU overflows keep
 * arriving, see kprof_throttle_way()) starts no new throttled tick.
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
	/* kprof's tick and count (local_clock()), not the kernel's jiffy */
	kprof_throttle_record(c, KPROF_RECORD_THROTTLE, misc, now, c->thr.tick,
			      c->thr.interrupts, KPROF_LOST_THROTTLE_REC);
}

/*
 * Did the kernel's own per-tick limit stop our event?
 * __perf_event_overflow() calls __perf_event_account_interrupt() first,
 * which sets hw.interrupts to MAX_INTERRUPTS when the limit is reached
 * (on 6.1 and 6.12 alike; later kernels do it in
 * perf_event_throttle_group()), and only then this handler; the hrtimer
 * is not re-armed.  perf_event_task_tick() - perf_adjust_freq_unthr_context()
 * zeroes it and restarts the event at the kernel's next tick, without
 * telling kprof: the first overflow that finds it cleared learns that
 * the kernel let go.  Sets *@tripped when this overflow is the one that
 * tripped the limit; returns whether the kernel held the event already
 * before this overflow and still does.
 */
static bool kprof_kernel_throttle_check(struct kprof_cpu *c,
					struct perf_event *event,
					bool *tripped)
{
	bool held = c->kthrottled;

	c->kthrottled = READ_ONCE(event->hw.interrupts) == KPROF_MAX_INTERRUPTS;
	*tripped = c->kthrottled && !held;
	return c->kthrottled && held;
}

/*
 * How kprof's own limit stops the event, without ever starting or
 * stopping a counter behind the perf core (x86_pmu_start() WARNs on a
 * counter that is not PERF_HES_STOPPED, and a restart outside
 * perf_pmu_disable()/enable() leaves PEBS off):
 *
 * Clock events (cpu-clock, task-clock: software hrtimers, in hardirq):
 *	the handler runs inside the event's own hrtimer callback, which
 *	cannot cancel itself, so the stop is deferred to irq_work and the
 *	restart to kprof's hrtimer at the next tick of local_clock().  The
 *	kernel's tick never restarts them (their hw.interrupts stays below
 *	MAX_INTERRUPTS), so nothing races that restart.  When the kernel's
 *	own limit stopped the event too, the restart is the kernel's: if
 *	its tick comes first, kprof's start of the running hrtimer event
 *	is a re-arm; if kprof's timer comes first, it finds hw.interrupts
 *	still MAX_INTERRUPTS and leaves the event to the kernel's tick.
 *
 * PMU events in frequency mode: throttled inside the overflow exactly as
 *	the kernel throttles them, so that the kernel's tick unthrottles.
 *	6.1 and 6.12: __perf_event_account_interrupt() sets hw.interrupts
 *	to MAX_INTERRUPTS and the PMI handler calls pmu->stop(event, 0)
 *	after the overflow returns 1 (x86_pmu_handle_irq());
 *	perf_event_task_tick() -> perf_adjust_freq_unthr_context() then
 *	visits every event of a context with ctx->nr_freq (6.1) or
 *	pmu_ctx->nr_freq (6.12) > 0 at each tick, zeroes hw.interrupts ==
 *	MAX_INTERRUPTS and restarts it under perf_pmu_disable() (6.1:
 *	pmu->start(event, 0), then the freq path's stop(UPDATE) and
 *	start(RELOAD); 6.12: the freq path only).  7.x does the same from
 *	perf_event_throttle() inside the overflow: hw.interrupts =
 *	MAX_INTERRUPTS, then pmu->stop(event, 0), and
 *	perf_event_unthrottle_group() at the tick.  kprof does those two
 *	steps from its handler, inside the PMI, on an event the perf core
 *	still sees ACTIVE: the state the kernel's own throttle leaves, so
 *	one restart by the kernel's tick, none by kprof.  When the kernel's
 *	limit tripped at the same overflow, hw.interrupts is MAX_INTERRUPTS
 *	already and the kernel stops the event (7.x before the handler,
 *	6.x right after it): kprof does nothing more, so nothing is
 *	stopped or started twice.  A freq event counts in nr_freq, so the
 *	tick always comes by; kprof also keeps a nohz_full CPU's tick, as
 *	__perf_event_account_interrupt() does.
 *
 * PMU events with a fixed period: the tick visits them only when the
 *	kernel throttled something on this CPU (perf_throttled_count, which
 *	a module cannot bump), so a stop kprof made could last forever.
 *	The counter keeps running and kprof drops its overflows until the
 *	kernel's next tick (lost_throttled), as the model says the stopped
 *	counter would not have delivered them.
 *
 * Ticks: for PMU events kprof counts in the kernel's own ticks, the
 * per-CPU perf_throttled_seq that __perf_event_account_interrupt() copies
 * to hw.interrupts_seq before every overflow reaches kprof's handler (6.1,
 * 6.12, 7.x alike), so its limit trips and lets go in the tick the
 * kernel's would, in phase with the tick's restart of the counter: a
 * stalled vCPU's late tick is late for both.  For clock events, which
 * kprof restarts from its hrtimer at a time it must compute, the tick is
 * local_clock() / TICK_NSEC; a counter the kernel restarts earlier
 * delivers overflows kprof still drops, one it restarts later simply
 * delivers none.  Either way kprof never disagrees with the perf core
 * about the counter.
 */
enum kprof_throttle_way {
	KPROF_THR_DEFERRED,		/* clock events: irq_work, hrtimer */
	KPROF_THR_IN_OVERFLOW,		/* PMU, frequency mode */
	KPROF_THR_DROP,			/* PMU, fixed period */
};

/*
 * Clock events by their PMU's context, not is_software_event():
 * PERF_EV_CAP_SOFTWARE is set by perf_event_open() only, never for a
 * perf_event_create_kernel_counter() event.  An in-overflow stop of a
 * clock event would cancel the hrtimer from its own callback
 * (perf_swevent_cancel_hrtimer(): hrtimer_cancel() waits for itself).
 */
static enum kprof_throttle_way kprof_throttle_way(struct perf_event *event)
{
	if (event->pmu->task_ctx_nr == perf_sw_context)
		return KPROF_THR_DEFERRED;
	if (event->attr.freq && event->attr.sample_freq)
		return KPROF_THR_IN_OVERFLOW;
	return KPROF_THR_DROP;
}

/**
 * kprof_throttle_check_event() - refuse an event kprof cannot throttle soundly
 * @event: a new event of kprof's, created disabled, not yet enabled
 * @type: the type kprof asked for; not event->attr.type, which
 *	perf_swevent_init() rewrites to the cpu_clock or task_clock PMU's
 *	dynamic type on kernels that give them their own PMUs (6.12)
 *
 * kprof_throttle_way() is sound for cpu-clock and task-clock (their own
 * software PMU), and for PMU drivers that leave a counter the overflow
 * handler stopped alone once perf_event_overflow() returned 0, as x86's
 * core PMU (x86_pmu_handle_irq()) and the arm_pmu do.  Refused:
 *  - other PMUs of the software context (kprobe, uprobe: a dynamic type,
 *    so kprof_config_validate() lets their event_init decide): they
 *    overflow in the context of whatever hit the probe, and their
 *    pmu->stop()/start() from kprof's irq_work and hrtimer would fight
 *    the probe's own;
 *  - AMD IBS (ibs_op, ibs_fetch) in frequency mode: perf_ibs_handle_irq()
 *    re-enables the hardware after an overflow that returned 0, undoing
 *    kprof's in-overflow stop while the perf core thinks it stopped.  A
 *    fixed period (-c) is fine: kprof then never stops the counter.
 *
 * Context: process context (START, or the cpuhp callback creating the event).
 * Return: 0, or -EOPNOTSUPP after logging which event and why.
 */
int kprof_throttle_check_event(struct perf_event *event, u32 type)
{
	const char *name = event->pmu->name ? event->pmu->name : "?";
	const char *why = NULL;

	if (event->pmu->task_ctx_nr == perf_sw_context &&
	    type != PERF_TYPE_SOFTWARE)
		why = "a software-context PMU (kprobe, uprobe): kprof cannot throttle it";
	else if (kprof_throttle_way(event) == KPROF_THR_IN_OVERFLOW &&
		 str_has_prefix(name, "ibs_"))
		why = "AMD IBS undoes kprof's in-overflow stop; use a fixed period (-c)";
	if (!why)
		return 0;
	pr_warn("event type %u config %#llx on PMU '%s' refused: %s\n",
		type, event->attr.config, name, why);
	return -EOPNOTSUPP;
}

/* After the sample that tripped kprof's limit: stop as kprof_throttle_way says. */
static void kprof_throttle_stop(struct kprof_cpu *c, struct perf_event *event,
				bool ktripped)
{
	switch (kprof_throttle_way(event)) {
	case KPROF_THR_DEFERRED:
		irq_work_queue(&c->thr_stop);
		break;
	case KPROF_THR_IN_OVERFLOW:
		/* The kernel's limit tripped too: it stops the event. */
		if (ktripped || READ_ONCE(event->state) != PERF_EVENT_STATE_ACTIVE)
			break;
		/* perf_event_throttle() (7.x), in this order */
		event->hw.interrupts = KPROF_MAX_INTERRUPTS;
		event->pmu->stop(event, 0);
		tick_dep_set_cpu(smp_processor_id(), TICK_DEP_BIT_PERF_EVENTS);
		break;
	case KPROF_THR_DROP:
		break;
	}
}

/* Arm the restart for @restart (local_clock() ns) in the timer's clock. */
static ktime_t kprof_throttle_expiry(ktime_t base, u64 restart, u64 now)
{
	return ktime_add_ns(base, restart > now ? restart - now : 0);
}

/*
 * irq_work, this CPU, irqs off, after the overflow handler has returned
 * (so cancelling the cpu-clock hrtimer does not wait for its own
 * callback): stop the event and arm the restart for the next tick.
 */
static void kprof_throttle_stop_work(struct irq_work *work)
{
	struct kprof_cpu *c = container_of(work, struct kprof_cpu, thr_stop);
	const struct kprof_throttle_limits *l = &kprof.limits;
	struct perf_event *event = READ_ONCE(c->event);
	u64 now;

	if (!event || !READ_ONCE(c->active) || !c->thr.throttled)
		return;
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) {
		event->pmu->stop(event, 0);
		c->thr_stopped = true;
	}
	/*
	 * An absolute expiry: the start of the next tick of local_clock(),
	 * carried over to CLOCK_MONOTONIC by the distance from now.
	 */
	now = local_clock();
	hrtimer_start(&c->thr_timer,
		      kprof_throttle_expiry(ktime_get(),
					    c->thr.tick_start_ns + l->tick_nsec,
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
	if (!event || !READ_ONCE(c->active) || !c->thr.throttled)
		return HRTIMER_NORESTART;
	if (!kprof_throttle_unthrottle(&kprof.limits, &c->thr, now,
				       &restart)) {
		/*
		 * Still the throttled tick by local_clock(): the hrtimer
		 * clock ran ahead, or the CPU throttled again in a later
		 * tick.  Expire again at the end of that tick (at least
		 * 1 us on, so a clock skew cannot make it spin).
		 */
		restart = c->thr.tick_start_ns + kprof.limits.tick_nsec;
		hrtimer_set_expires(t, kprof_throttle_expiry(hrtimer_cb_get_time(t),
							     max(restart, now + NSEC_PER_USEC),
							     now));
		return HRTIMER_RESTART;
	}
	/*
	 * Restart only what kprof stopped and the kernel does not hold: with
	 * both limits tripped at one overflow, hw.interrupts is
	 * MAX_INTERRUPTS until the kernel's tick unthrottles (its restart,
	 * perf_adjust_freq_unthr_context()).  A start by kprof before that
	 * would run the event the kernel throttled, and its next overflow
	 * would take hw.interrupts from MAX_INTERRUPTS to 0 (6.1's ++ in the
	 * same seq), lifting the kernel's throttle early.
	 */
	if (c->thr_stopped && READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	    READ_ONCE(event->hw.interrupts) != KPROF_MAX_INTERRUPTS)
		event->pmu->start(event, 0);
	c->thr_stopped = false;
	/* The kernel's limit may hold it still: its release closes then. */
	if (c->thr_open && !c->kthrottled)
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
 * Ends the throttled tick (UNTHROTTLE, before this overflow's SAMPLE)
 * when neither limit holds the CPU any more.
 *
 * Context: this CPU's overflow handler, in a buffer write section.
 * Return: false when the overflow arrived while kprof had the CPU
 * throttled (the caller counts it lost), true when it may be sampled.
 */
bool kprof_throttle_admit(struct kprof_cpu *c, struct perf_event *event,
			  u64 now, enum kprof_throttle_verdict *v,
			  bool *ktripped)
{
	bool kheld, was_throttled;

	kheld = kprof_kernel_throttle_check(c, event, ktripped);
	was_throttled = c->thr.throttled;
	/*
	 * Which tick: see kprof_throttle_interrupt_in().  The kernel's tick
	 * restarts PMU events and kprof restarts clock events itself.
	 */
	if (kprof_throttle_way(event) == KPROF_THR_DEFERRED)
		*v = kprof_throttle_interrupt(&kprof.limits, &c->thr, now);
	else
		*v = kprof_throttle_interrupt_in(&kprof.limits, &c->thr,
						 READ_ONCE(event->hw.interrupts_seq),
						 now);
	if (*v == KPROF_THROTTLE_SUPPRESSED)
		return false;
	/*
	 * Throttled, yet here in a later tick: the stop had not taken effect
	 * (the hrtimer interrupt ran the event's timer again after a stall,
	 * before the irq_work) or something restarted the event.  kprof's
	 * throttle ended now; the deferred stop and restart find nothing to
	 * do.
	 */
	if (was_throttled)
		c->thr_stopped = false;
	if (c->thr_open && !kheld)
		kprof_throttle_close(c, now, c->thr.tick);
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

	if (!kprof_throttle_sample_took(&kprof.limits, &c->thr, cost_ns, &low))
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
	/*
	 * The control pages get the new limits lazily, each with its own
	 * CPU's counters (kprof_counters_publish()), this CPU's from the
	 * irq_work below: no stores to other CPUs' pages from NMI.
	 */
	c->msg_avg = low.avg_ns;
	c->msg_allowed = low.old_allowed_ns;
	c->msg_rate = low.max_sample_rate;
	/* No printk here: the message goes out after the handler. */
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
				      c->thr.tick, c->thr.interrupts,
				      KPROF_LOST_WOULD_REC);
	}
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
 * kprof_throttle_init_cpus() - set up every CPU's deferred throttle work
 *
 * Context: module init, before any event exists.
 */
void kprof_throttle_init_cpus(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_cpu *c = per_cpu_ptr(kprof_pcpu, cpu);

		c->thr_stop = IRQ_WORK_INIT_HARD(kprof_throttle_stop_work);
		c->thr_msg = IRQ_WORK_INIT(kprof_throttle_msg_work);
		kprof_hrtimer_setup(&c->thr_timer, kprof_throttle_timer_fn,
				    CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
		kprof_throttle_cpu_init(&c->thr);
	}
}

/**
 * kprof_throttle_reset() - forget a CPU's throttle history
 * @c: the CPU's state, without an event
 */
void kprof_throttle_reset(struct kprof_cpu *c)
{
	kprof_throttle_cpu_init(&c->thr);
	c->thr_stopped = false;
	c->kthrottled = false;
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

