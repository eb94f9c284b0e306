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

/*
 * Before capture: may this overflow be sampled?  Injected NMIs (no
 * @event) are not overflows of the event and bypass the throttle.
 */
static bool kprof_sample_admit(struct kprof_cpu *c, struct perf_event *event,
			       u64 now, enum kprof_throttle_verdict *v,
			       bool *kthrottled)
{
	*v = KPROF_THROTTLE_SAMPLE;
	*kthrottled = false;
	if (unlikely(!READ_ONCE(c->active))) {
		kprof_count_lost(c, KPROF_LOST_STOPPED);
		return false;
	}
	if (!event)
		return true;
	if (!kprof_throttle_admit(c, event, now, v, kthrottled)) {
		/* Arrived before the deferred stop took effect. */
		kprof_count_lost(c, KPROF_LOST_THROTTLED);
		return false;
	}
	return true;
}

/*
 * After commit: account the sample and feed its measured cost to the
 * cost controller, as perf_sample_event_took() is fed.
 */
static void kprof_sample_account(struct kprof_cpu *c, bool feed,
				 u64 cost_ns, u16 misc)
{
	local64_inc(&c->count[KPROF_CNT_SAMPLES]);
	local64_add(cost_ns, &c->count[KPROF_CNT_HANDLER_NS]);
	if (misc & KPROF_MISC_NMI)
		local64_inc(&c->count[KPROF_CNT_NMI_SAMPLES]);
	if (!feed)		/* injected NMIs are not the event's */
		return;

	kprof_throttle_feed(c, cost_ns);
	WRITE_ONCE(c->buf->page->avg_ns, kprof_throttle_avg_ns(&c->thr));
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
		goto throttle;
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
	kprof_throttle_after(c, v, kthrottled, t0);
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
