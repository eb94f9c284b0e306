// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_throttle.c - the kernel side of kprof's throttle.
 *
 * common/kprof_throttle.h decides (a pure model of perf's two limits);
 * this file does what the decisions require on this kernel: detect the
 * kernel's own per-tick throttle of our event, write the THROTTLE,
 * UNTHROTTLE, KERNEL_THROTTLED, WOULD_THROTTLE and RATE_LOWERED records,
 * stop the event from irq_work and restart it from an hrtimer at the next
 * tick.  The overflow handler (kprof_sample.c) calls in from hardirq or
 * NMI context: same rules as there, no locks, no allocation, no printk.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/printk.h>
#include <linux/sched/clock.h>

#include "kprof.h"

/* kernel/events/core.c: hw.interrupts of an event the kernel throttled */
#define KPROF_MAX_INTERRUPTS	(~0ULL)

static void kprof_throttle_record(struct kprof_cpu *c, u32 type, u64 now,
				  u64 tick, u64 interrupts)
{
	struct kprof_throttle_event r = {
		.header.type = type,
		.header.size = sizeof(r),
		.time = now,
		.seq = local64_read(&c->count[KPROF_CNT_OVERFLOWS]),
		.tick = tick,
		.interrupts = interrupts,
	};

	kprof_buffer_output(c, &r, sizeof(r));
}

/* The throttle of this CPU ended at @now: count and record it. */
static void kprof_throttle_unthrottled(struct kprof_cpu *c, u64 now)
{
	local64_inc(&c->count[KPROF_CNT_UNTHROTTLES]);
	kprof_throttle_record(c, KPROF_RECORD_UNTHROTTLE, now,
			      kprof_throttle_tick_of(&kprof.limits, now), 0);
}

/*
 * Did the kernel's own per-tick limit stop our event at this overflow?
 * __perf_event_overflow() calls __perf_event_account_interrupt() first,
 * which sets hw.interrupts to MAX_INTERRUPTS when the limit is reached
 * (on 6.1 and 6.12 alike; later kernels do it in
 * perf_event_throttle_group()), and only then this handler; the hrtimer
 * is not re-armed.  perf_event_task_tick() - perf_adjust_freq_unthr_context()
 * zeroes it and restarts the event at the kernel's next tick, without
 * telling kprof: the first overflow that finds it cleared after a kernel
 * throttle records the UNTHROTTLE, so every KERNEL_THROTTLED is paired
 * like a THROTTLE.  Returns true when this overflow is the one that
 * tripped the limit; its KERNEL_THROTTLED follows its sample.
 */
static bool kprof_kernel_throttle_check(struct kprof_cpu *c,
					struct perf_event *event, u64 now)
{
	if (READ_ONCE(event->hw.interrupts) != KPROF_MAX_INTERRUPTS) {
		if (c->kthrottled) {
			c->kthrottled = false;
			kprof_throttle_unthrottled(c, now);
		}
		return false;
	}
	if (c->kthrottled)
		return false;
	c->kthrottled = true;
	return true;
}

/* After the sample that tripped the kernel's limit: count, record. */
static void kprof_kernel_throttled(struct kprof_cpu *c, u64 now)
{
	local64_inc(&c->count[KPROF_CNT_KERNEL_THROTTLES]);
	/* kprof's tick and count (local_clock()), not the kernel's jiffy */
	kprof_throttle_record(c, KPROF_RECORD_KERNEL_THROTTLED, now,
			      c->thr.tick, c->thr.interrupts);
}

/* Copy the limits a lowering changed to every control page. */
static void kprof_throttle_publish_limits(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_buf *b = per_cpu_ptr(kprof_pcpu, cpu)->buf;

		if (b)
			kprof_limits_publish(b);
	}
}

/* After the STOP sample: record it, then stop the event from irq_work. */
static void kprof_throttle_stop(struct kprof_cpu *c, u64 now)
{
	local64_inc(&c->count[KPROF_CNT_THROTTLES]);
	kprof_throttle_record(c, KPROF_RECORD_THROTTLE, now, c->thr.tick,
			      c->thr.interrupts);
	irq_work_queue(&c->thr_stop);
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
	u64 restart, now;
	s64 delta;

	if (!event || !READ_ONCE(c->active) || !c->thr.throttled)
		return;
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) {
		event->pmu->stop(event, 0);
		c->thr_stopped = true;
	}
	restart = (c->thr.tick + 1) * l->tick_nsec;
	now = local_clock();
	delta = restart > now ? restart - now : 0;
	hrtimer_start(&c->thr_timer, ns_to_ktime(delta),
		      HRTIMER_MODE_REL_PINNED_HARD);
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
		 * tick.  Wait for the end of that tick.
		 */
		restart = (c->thr.tick + 1) * kprof.limits.tick_nsec;
		hrtimer_forward_now(t, ns_to_ktime(max_t(u64, restart - now,
							 NSEC_PER_USEC)));
		return HRTIMER_RESTART;
	}
	if (c->thr_stopped && READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE)
		event->pmu->start(event, 0);
	c->thr_stopped = false;
	kprof_throttle_unthrottled(c, now);
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
 * @kthrottled: out: this overflow tripped the kernel's limit
 *
 * Context: this CPU's overflow handler.
 * Return: false when the overflow arrived while kprof had the CPU
 * throttled (the caller counts it lost), true when it may be sampled.
 */
bool kprof_throttle_admit(struct kprof_cpu *c, struct perf_event *event,
			  u64 now, enum kprof_throttle_verdict *v,
			  bool *kthrottled)
{
	bool was_throttled;

	*kthrottled = kprof_kernel_throttle_check(c, event, now);
	was_throttled = c->thr.throttled;
	*v = kprof_throttle_interrupt(&kprof.limits, &c->thr, now);
	if (*v == KPROF_THROTTLE_SUPPRESSED)
		return false;
	/*
	 * Throttled, yet here in a later tick: the stop had not taken effect
	 * (the hrtimer interrupt ran the event's timer again after a stall,
	 * before the irq_work) or something restarted the event.  The
	 * throttle ended now; the deferred stop and restart find nothing to
	 * do.
	 */
	if (was_throttled) {
		c->thr_stopped = false;
		kprof_throttle_unthrottled(c, now);
	}
	return true;
}

/**
 * kprof_throttle_feed() - feed one sample's cost to the cost controller
 * @c: this CPU's state
 * @cost_ns: the recorded cost
 *
 * As perf_sample_event_took() is fed; a lowering is recorded in-band and
 * its message printed later from irq_work.
 *
 * Context: this CPU's overflow handler, after the sample's commit.
 */
void kprof_throttle_feed(struct kprof_cpu *c, u64 cost_ns)
{
	struct kprof_throttle_lowering low;

	if (kprof_throttle_sample_took(&kprof.limits, &c->thr, cost_ns,
				       &low)) {
		struct kprof_rate_lowered r = {
			.header.type = KPROF_RECORD_RATE_LOWERED,
			.header.size = sizeof(r),
			/* When the new limits took effect. */
			.time = local_clock(),
			.avg_ns = low.avg_ns,
			.old_allowed_ns = low.old_allowed_ns,
			.max_samples_per_tick = low.max_samples_per_tick,
			.max_sample_rate = low.max_sample_rate,
		};

		local64_inc(&c->count[KPROF_CNT_LOWERINGS]);
		kprof_buffer_output(c, &r, sizeof(r));
		kprof_throttle_publish_limits();
		c->msg_avg = low.avg_ns;
		c->msg_allowed = low.old_allowed_ns;
		c->msg_rate = low.max_sample_rate;
		/* No printk here: the message goes out after the handler. */
		irq_work_queue(&c->thr_msg);
	}
}

/**
 * kprof_throttle_after() - act on the verdicts once the sample is out
 * @c: this CPU's state
 * @v: kprof's verdict from kprof_throttle_admit()
 * @kthrottled: the kernel's limit tripped at this overflow
 * @now: the overflow's time
 *
 * Context: this CPU's overflow handler, after the sample (or its loss).
 */
void kprof_throttle_after(struct kprof_cpu *c, enum kprof_throttle_verdict v,
			  bool kthrottled, u64 now)
{
	/* The interrupt that trips the limit is delivered, then the stop. */
	if (v == KPROF_THROTTLE_STOP) {
		kprof_throttle_stop(c, now);
	} else if (v == KPROF_THROTTLE_WOULD_STOP) {
		/* Shadow: record where ge would have stopped, keep going. */
		local64_inc(&c->count[KPROF_CNT_WOULD_THROTTLES]);
		kprof_throttle_record(c, KPROF_RECORD_WOULD_THROTTLE, now,
				      c->thr.tick, c->thr.interrupts);
	}
	if (kthrottled)
		kprof_kernel_throttled(c, now);
}

static void kprof_throttle_msg_work(struct irq_work *work)
{
	struct kprof_cpu *c = container_of(work, struct kprof_cpu, thr_msg);

	pr_info_ratelimited("perf: interrupt took too long (%llu > %llu), lowering max_sample_rate to %llu\n",
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
		hrtimer_init(&c->thr_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		c->thr_timer.function = kprof_throttle_timer_fn;
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
	if (c->buf)
		WRITE_ONCE(c->buf->page->avg_ns, 0);
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

