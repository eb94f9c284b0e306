// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_sample.c - the overflow handler: capture one sample.
 *
 * Runs in hardirq context (cpu-clock/task-clock hrtimers) or NMI context
 * (hardware PMU overflows, kprof's self-NMI), possibly nested: an NMI can
 * hit while the hrtimer handler of the same CPU is half way through.  So:
 * no locks, no allocation, no printk, no sleeping; per-CPU state only,
 * with local_t/local64_t operations that are atomic against nesting on the
 * same CPU, and one scratch record per nesting level.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hardirq.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/unwind.h>

#include "kprof.h"

static void kprof_count_lost(struct kprof_cpu *c, enum kprof_lost_cause cause)
{
	BUILD_BUG_ON(KPROF_CNT_LOST_THROTTLED - KPROF_CNT_LOST_FULL !=
		     KPROF_LOST_THROTTLED - KPROF_LOST_FULL);

	local64_inc(&c->count[KPROF_CNT_LOST_FULL + cause]);
	/* Reported in-band by the next record that fits, or by STOP. */
	local64_inc(&c->pending[cause]);
}

/*
 * Kernel chain, leaf first, through the ORC unwinder: the interrupted IP,
 * then the return addresses above it, as perf_callchain_kernel() does.
 * Nothing when the interrupted context was user mode.
 */
static unsigned int kprof_kernel_chain(struct pt_regs *regs, u64 *ips,
				       unsigned int max, u16 *misc)
{
	struct unwind_state state;
	unsigned int nr = 0;
	unsigned long addr;

	if (user_mode(regs) || !max)
		return 0;

	ips[nr++] = regs->ip;
	for (unwind_start(&state, current, regs, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (nr == max) {
			*misc |= KPROF_MISC_KERNEL_TRUNC;
			break;
		}
		ips[nr++] = addr;
	}
	return nr;
}

/*
 * User chain, leaf first: the user-mode IP, then a frame-pointer walk.
 * Kernel threads have no user context.  Frames must be 8-byte aligned and
 * move up the stack, so a corrupt chain ends instead of looping; a fault
 * (copy_from_user_nmi() never sleeps, it fails) ends it with a flag.
 */
static unsigned int kprof_user_chain(struct pt_regs *regs, u64 *ips,
				     unsigned int max, u16 *misc)
{
	const unsigned long __user *fp;
	unsigned int nr = 0;

	if (!max || !current->mm || (current->flags & PF_KTHREAD))
		return 0;
	if (!user_mode(regs))
		regs = task_pt_regs(current);

	ips[nr++] = regs->ip;
	/* 32-bit frames have another layout: IP only. */
	if (!user_64bit_mode(regs))
		return nr;

	fp = (const unsigned long __user *)regs->bp;
	while (fp && !((unsigned long)fp & (sizeof(*fp) - 1))) {
		unsigned long frame[2];	/* saved frame pointer, return address */

		if (nr == max) {
			*misc |= KPROF_MISC_USER_TRUNC;
			break;
		}
		if (copy_from_user_nmi(frame, fp, sizeof(frame))) {
			*misc |= KPROF_MISC_USER_FAULT;
			break;
		}
		ips[nr++] = frame[1];
		if (frame[0] <= (unsigned long)fp)
			break;
		fp = (const unsigned long __user *)frame[0];
	}
	return nr;
}

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

/*
 * Before capture: may this overflow be sampled?  Injected NMIs (no
 * @event) are not overflows of the event and bypass the throttle.
 */
static bool kprof_sample_admit(struct kprof_cpu *c, struct perf_event *event,
			       u64 now, enum kprof_throttle_verdict *v,
			       bool *kthrottled)
{
	bool was_throttled;

	*v = KPROF_THROTTLE_SAMPLE;
	*kthrottled = false;
	if (unlikely(!READ_ONCE(c->active))) {
		kprof_count_lost(c, KPROF_LOST_STOPPED);
		return false;
	}
	if (!event)
		return true;
	*kthrottled = kprof_kernel_throttle_check(c, event, now);
	was_throttled = c->thr.throttled;
	*v = kprof_throttle_interrupt(&kprof.limits, &c->thr, now);
	if (*v == KPROF_THROTTLE_SUPPRESSED) {
		/* Arrived before the deferred stop took effect. */
		kprof_count_lost(c, KPROF_LOST_THROTTLED);
		return false;
	}
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

/*
 * After commit: account the sample and feed its measured cost to the
 * cost controller, as perf_sample_event_took() is fed.
 */
static void kprof_sample_account(struct kprof_cpu *c, bool feed,
				 u64 cost_ns, u16 misc)
{
	struct kprof_throttle_lowering low;

	local64_inc(&c->count[KPROF_CNT_SAMPLES]);
	local64_add(cost_ns, &c->count[KPROF_CNT_HANDLER_NS]);
	if (misc & KPROF_MISC_NMI)
		local64_inc(&c->count[KPROF_CNT_NMI_SAMPLES]);
	if (!feed)		/* injected NMIs are not the event's */
		return;

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
	WRITE_ONCE(c->buf->page->avg_ns, kprof_throttle_avg_ns(&c->thr));
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
		kprof_hrtimer_setup(&c->thr_timer, kprof_throttle_timer_fn,
				    CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
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

/* Debug knob: make samples expensive, for the throttle tests. */
static void kprof_sample_delay(u64 t0)
{
	u32 delay = READ_ONCE(kprof.handler_delay_ns);

	while (local_clock() - t0 < delay)
		cpu_relax();
}

/*
 * Every call counts one overflow, which ends up either as a committed
 * SAMPLE or in exactly one of the lost counters.
 */
static void __kprof_sample_capture(struct kprof_cpu *c,
				   struct perf_event *event,
				   struct pt_regs *regs, u64 period)
{
	u64 t0 = local_clock();
	const struct kprof_config *cfg = &kprof.config;
	unsigned int nr_kernel = 0, nr_user = 0;
	struct kprof_sample *s;
	enum kprof_throttle_verdict v;
	bool kthrottled;
	u16 misc = 0;
	long level;
	u64 cost;
	u64 seq;
	u32 size;

	level = local_inc_return(&c->nest);
	seq = local64_inc_return(&c->count[KPROF_CNT_OVERFLOWS]);

	if (!kprof_sample_admit(c, event, t0, &v, &kthrottled))
		goto kernel_throttle;
	if (unlikely(level > KPROF_NEST_LEVELS)) {
		kprof_count_lost(c, KPROF_LOST_NESTED);
		goto throttle;
	}

	s = (struct kprof_sample *)c->scratch[level - 1];
	if (user_mode(regs))
		misc |= KPROF_MISC_USER;
	if (in_nmi())
		misc |= KPROF_MISC_NMI;
	if (cfg->flags & KPROF_CFG_CALLCHAIN_KERNEL)
		nr_kernel = kprof_kernel_chain(regs, s->ips, cfg->kernel_stack,
					       &misc);
	if (cfg->flags & KPROF_CFG_CALLCHAIN_USER)
		nr_user = kprof_user_chain(regs, s->ips + nr_kernel,
					   cfg->user_stack, &misc);
	size = struct_size(s, ips, nr_kernel + nr_user);

	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = misc;
	s->header.size = size;
	s->seq = seq;
	s->time = t0;
	s->cpu = smp_processor_id();
	s->pid = task_tgid_nr(current);
	s->tid = task_pid_nr(current);
	/* Not get_task_comm(): it locks.  A racing rename may tear it. */
	memcpy(s->comm, current->comm, sizeof(s->comm));
	s->comm[sizeof(s->comm) - 1] = '\0';
	s->ip = instruction_pointer(regs);
	s->period = period;
	s->nr_kernel = nr_kernel;
	s->nr_user = nr_user;
	s->__reserved = 0;

	kprof_sample_delay(t0);
	cost = local_clock() - t0;
	s->cost_ns = min_t(u64, cost, U32_MAX);

	if (!kprof_buffer_output(c, s, size)) {
		kprof_count_lost(c, KPROF_LOST_FULL);
		goto throttle;
	}
	/* The recorded cost, so that a replay of the records agrees. */
	kprof_sample_account(c, !!event, s->cost_ns, misc);
throttle:
	/* The interrupt that trips the limit is delivered, then the stop. */
	if (v == KPROF_THROTTLE_STOP) {
		kprof_throttle_stop(c, t0);
	} else if (v == KPROF_THROTTLE_WOULD_STOP) {
		/* Shadow: record where ge would have stopped, keep going. */
		local64_inc(&c->count[KPROF_CNT_WOULD_THROTTLES]);
		kprof_throttle_record(c, KPROF_RECORD_WOULD_THROTTLE, t0,
				      c->thr.tick, c->thr.interrupts);
	}
kernel_throttle:
	if (kthrottled)
		kprof_kernel_throttled(c, t0);
	local_inc(&c->publish_gen);
	if (level == 1)
		kprof_counters_publish(c);
	local_dec(&c->nest);
}

/**
 * kprof_overflow() - perf overflow handler of kprof's per-CPU events
 * @event: this CPU's event
 * @data: perf's sample data; only the period is used
 * @regs: the interrupted context
 *
 * Context: hardirq (software clock events) or NMI (hardware events).
 */
void kprof_overflow(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	__kprof_sample_capture(this_cpu_ptr(kprof_pcpu), event, regs,
			       data->period);
}

/**
 * kprof_sample_capture() - account one injected NMI and try to record it
 * @c: this CPU's state
 * @regs: the interrupted context
 * @period: 0 for injected NMIs
 *
 * Context: NMI on the CPU @c belongs to.
 */
void kprof_sample_capture(struct kprof_cpu *c, struct pt_regs *regs,
			  u64 period)
{
	__kprof_sample_capture(c, NULL, regs, period);
}

/**
 * kprof_counters_fill() - snapshot a CPU's counters
 * @dst: where to write, possibly the user-visible control page
 * @c: the CPU's state
 */
void kprof_counters_fill(struct kprof_counters *dst, struct kprof_cpu *c)
{
	const local64_t *n = c->count;

	WRITE_ONCE(dst->overflows, local64_read(&n[KPROF_CNT_OVERFLOWS]));
	WRITE_ONCE(dst->samples, local64_read(&n[KPROF_CNT_SAMPLES]));
	WRITE_ONCE(dst->lost_full, local64_read(&n[KPROF_CNT_LOST_FULL]));
	WRITE_ONCE(dst->lost_nested, local64_read(&n[KPROF_CNT_LOST_NESTED]));
	WRITE_ONCE(dst->lost_stopped, local64_read(&n[KPROF_CNT_LOST_STOPPED]));
	WRITE_ONCE(dst->lost_throttled,
		   local64_read(&n[KPROF_CNT_LOST_THROTTLED]));
	WRITE_ONCE(dst->lost_records, local64_read(&n[KPROF_CNT_LOST_RECORDS]));
	WRITE_ONCE(dst->throttles, local64_read(&n[KPROF_CNT_THROTTLES]));
	WRITE_ONCE(dst->kernel_throttles,
		   local64_read(&n[KPROF_CNT_KERNEL_THROTTLES]));
	WRITE_ONCE(dst->unthrottles, local64_read(&n[KPROF_CNT_UNTHROTTLES]));
	WRITE_ONCE(dst->lowerings, local64_read(&n[KPROF_CNT_LOWERINGS]));
	WRITE_ONCE(dst->handler_ns, local64_read(&n[KPROF_CNT_HANDLER_NS]));
	WRITE_ONCE(dst->nmi_samples, local64_read(&n[KPROF_CNT_NMI_SAMPLES]));
	WRITE_ONCE(dst->would_throttles,
		   local64_read(&n[KPROF_CNT_WOULD_THROTTLES]));
}

/**
 * kprof_counters_publish() - copy a CPU's counters to its control page
 * @c: the CPU's state, with a buffer
 *
 * Called by the outermost handler on its way out, and by the control path
 * once the producer is quiesced.  A handler nesting inside the copy bumps
 * publish_gen, and the copy is redone, so the page never keeps a value
 * older than one the nested handler produced.  A handler nesting after the
 * copy leaves the page behind until the next sample; STOP makes it final.
 */
void kprof_counters_publish(struct kprof_cpu *c)
{
	struct kprof_counters *pc = &c->buf->page->counters;
	long gen;

	do {
		gen = local_read(&c->publish_gen);
		barrier();
		kprof_counters_fill(pc, c);
		barrier();
	} while (gen != local_read(&c->publish_gen));
}

/**
 * kprof_counters_reset() - zero a CPU's counters and pending losses
 * @c: the CPU's state, producer quiesced
 */
void kprof_counters_reset(struct kprof_cpu *c)
{
	int i;

	for (i = 0; i < KPROF_NR_COUNTERS; i++)
		local64_set(&c->count[i], 0);
	for (i = 0; i < KPROF_NR_LOST; i++)
		local64_set(&c->pending[i], 0);
}

/**
 * kprof_limits_publish() - copy the throttle limits to a control page
 * @b: the buffer
 *
 * Context: control path.
 */
void kprof_limits_publish(struct kprof_buf *b)
{
	const struct kprof_throttle_limits *l = &kprof.limits;
	struct kprof_mmap_page *pg = b->page;

	WRITE_ONCE(pg->max_sample_rate, l->max_sample_rate);
	WRITE_ONCE(pg->max_samples_per_tick, READ_ONCE(l->max_samples_per_tick));
	WRITE_ONCE(pg->allowed_ns, READ_ONCE(l->allowed_ns));
}
