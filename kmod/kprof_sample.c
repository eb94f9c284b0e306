// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_sample.c - the overflow handler: capture one sample.
 *
 * Runs in hardirq context (cpu-clock/task-clock hrtimers) or NMI context
 * (hardware PMU overflows).  At most one event of a session is active on
 * a CPU (one per CPU; or, per task, the events of the task running
 * there), so its handler never runs inside itself on a CPU: an NMI does
 * not nest in another, the clocks' hrtimer runs with interrupts off, and
 * a context switch, which alone changes the active task's events, runs
 * with interrupts off and never inside a handler.  What can interrupt it is
 * other kprof code of the same CPU: the session's own throttle hrtimer
 * writing an UNTHROTTLE record into the same ring (kprof_buffer.c's
 * nesting), or another session's handler (a PMU NMI inside a cpu-clock
 * hrtimer), which writes only its own session's producer, ring and
 * scratch, and the CPU's shared cost average (kprof_cost).  So: no
 * locks, no allocation, no printk, no sleeping; per-CPU state only, with
 * local_t/local64_t operations that are atomic against that interruption,
 * and one scratch record per CPU and session.
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
	kprof_pending_add(c, cause, 1);
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
 * Kernel threads and user workers (io_uring's io-wq and sqpoll threads,
 * which share a process's mm but never run in user mode: their user
 * registers are zeroes from copy_thread()) have no user context, as
 * get_perf_callchain() says (KPROF_NO_USER_CONTEXT, kprof_compat.h).
 * Frames must be 8-byte aligned and
 * move up the stack, so a corrupt chain ends instead of looping; a fault
 * (copy_from_user_nmi() never sleeps, it fails) ends it with a flag.
 */
static unsigned int kprof_user_chain(struct pt_regs *regs, u64 *ips,
				     unsigned int max, u16 *misc)
{
	const unsigned long __user *fp;
	unsigned int nr = 0;

	if (!max || !current->mm || (current->flags & KPROF_NO_USER_CONTEXT))
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
 * Both chains from the one the PMU driver computed from the interrupt
 * registers (a precise event, see kprof_attr.h), in kprof's layout: kernel
 * frames, then user frames, each leaf first, at most the configured
 * depths.  Context markers (PERF_CONTEXT_*) say which part an entry is in.
 */
static void kprof_perf_chain(const struct kprof_config *cfg,
			     const struct perf_callchain_entry *e, u64 *ips,
			     unsigned int *nr_kernel, unsigned int *nr_user,
			     u16 *misc)
{
	unsigned int nk = 0, nu = 0;
	u64 ctx = 0, i;

	for (i = 0; i < e->nr; i++) {
		u64 ip = e->ip[i];

		if (ip >= PERF_CONTEXT_MAX) {
			ctx = ip;
		} else if (ctx == PERF_CONTEXT_KERNEL && !nu &&
			   (cfg->flags & KPROF_CFG_CALLCHAIN_KERNEL)) {
			if (nk < cfg->kernel_stack)
				ips[nk++] = ip;
			else
				*misc |= KPROF_MISC_KERNEL_TRUNC;
		} else if (ctx == PERF_CONTEXT_USER &&
			   (cfg->flags & KPROF_CFG_CALLCHAIN_USER)) {
			if (nu < cfg->user_stack)
				ips[nk + nu++] = ip;
			else
				*misc |= KPROF_MISC_USER_TRUNC;
		}
	}
	*nr_kernel = nk;
	*nr_user = nu;
}

/*
 * Should this overflow's cost feed the cost controller?  The kernel feeds
 * perf_sample_event_took() from its PMI handler (NMI) only, never for an
 * hrtimer clock event; kprof does the same unless the FEED_CLOCK knob is
 * set.  An overflow arriving while kprof holds the CPU throttled is one
 * the kernel's model says cannot happen (the kernel stops the counter at
 * the throttling overflow), so it does not feed, as throttle-sim does not.
 */
static bool kprof_sample_feeds(enum kprof_throttle_verdict v)
{
	if (v == KPROF_THROTTLE_SUPPRESSED)
		return false;
	return in_nmi() ||
	       (READ_ONCE(kprof.throttle_flags) & KPROF_THROTTLE_F_FEED_CLOCK);
}

/*
 * The chains of this overflow into @ips, kernel frames then user frames;
 * their counts in *@nr_kernel and *@nr_user.  @pchain: the chain the PMU
 * driver took from the interrupt registers, or NULL to unwind from @regs.
 */
static void kprof_sample_chains(const struct kprof_config *cfg, u64 *ips,
				struct pt_regs *regs,
				const struct perf_callchain_entry *pchain,
				unsigned int *nr_kernel, unsigned int *nr_user,
				u16 *misc)
{
	*nr_kernel = 0;
	*nr_user = 0;
	if (pchain) {
		kprof_perf_chain(cfg, pchain, ips, nr_kernel, nr_user, misc);
		return;
	}
	if (cfg->flags & KPROF_CFG_CALLCHAIN_KERNEL)
		*nr_kernel = kprof_kernel_chain(regs, ips, cfg->kernel_stack,
						misc);
	if (cfg->flags & KPROF_CFG_CALLCHAIN_USER)
		*nr_user = kprof_user_chain(regs, ips + *nr_kernel,
					    cfg->user_stack, misc);
}

/*
 * The SAMPLE's fields but its frames into @s, in the ring or in scratch
 * (kprof_sample_capture()); cost_ns is patched in before publishing.
 */
static void kprof_sample_head(struct kprof_sample *s, struct pid_namespace *ns,
			      struct pt_regs *regs, u16 misc, u32 size, unsigned int nr_kernel,
			      unsigned int nr_user, u64 seq, u64 t0,
			      u64 period, u64 tick)
{
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = misc;
	s->header.size = size;
	s->seq = seq;
	s->time = t0;
	s->cpu = smp_processor_id();
	/* As perf_event_pid()/perf_event_tid(): 0 outside the owner's namespace. */
	s->pid = task_tgid_nr_ns(current, ns);
	s->tid = task_pid_nr_ns(current, ns);
	s->cost_ns = 0;
	/* Not get_task_comm(): it locks.  A racing rename may tear it. */
	memcpy(s->comm, current->comm, sizeof(s->comm));
	s->comm[sizeof(s->comm) - 1] = '\0';
	s->ip = instruction_pointer(regs);
	s->period = period;
	s->nr_kernel = nr_kernel;
	s->nr_user = nr_user;
	s->tick = (u32)tick;
}

/*
 * The SAMPLE of this overflow, written where kprof_buffer_reserve_rec()
 * reserved it: the chains (and, for DWARF, the user registers) are put
 * in @scratch first (their length is the record's), the rest goes
 * straight into the ring, and the chains follow in one copy, then the
 * user stack, copied from user memory into the ring.  Only a record
 * whose part before the stack wraps the end of the ring is built whole
 * in @scratch and copied in two pieces.  Returns whether it found room;
 * *@pos is its byte counter then.
 */
static bool kprof_sample_put(struct kprof_cpu *c, struct kprof_sample *scratch,
			     struct pt_regs *regs,
			     const struct perf_callchain_entry *pchain,
			     u64 seq, u64 t0, u64 period, u64 tick,
			     unsigned long *pos)
{
	const struct kprof_config *cfg = &c->session->config;
	struct kprof_ustack us = { .size = 0 };
	unsigned int nr_kernel, nr_user, nr;
	struct kprof_sample *s;
	u32 size, built;
	u16 misc = 0;

	if (user_mode(regs))
		misc |= KPROF_MISC_USER;
	if (in_nmi())
		misc |= KPROF_MISC_NMI;
	kprof_sample_chains(cfg, scratch->ips, regs, pchain, &nr_kernel,
			    &nr_user, &misc);
	nr = nr_kernel + nr_user;
	/*
	 * DWARF: abi, regs[] and size join the chains in scratch; the stack
	 * bytes and dyn_size go straight into the ring after them.
	 */
	if (cfg->flags & KPROF_CFG_CALLCHAIN_DWARF) {
		misc |= KPROF_MISC_STACK_USER;
		nr += kprof_ustack_regs(regs, scratch->ips + nr, &us);
	}
	built = struct_size(scratch, ips, nr);
	size = built;
	if (misc & KPROF_MISC_STACK_USER) {
		size += kprof_ustack_size(&us, built,
					  kprof_buffer_room(c->buf),
					  cfg->user_stack_size);
		scratch->ips[nr - 1] = us.size;
	}
	if (!kprof_buffer_reserve_rec(c, size, t0, pos))
		return false;
	s = kprof_buffer_at(c->buf, *pos, built);
	kprof_sample_head(s ?: scratch, c->session->pid_ns, regs, misc, size,
			  nr_kernel, nr_user, seq, t0, period, tick);
	if (!s)
		kprof_buffer_copy_at(c->buf, *pos, scratch, built);
	else if (nr)
		memcpy(s->ips, scratch->ips, nr * sizeof(s->ips[0]));
	kprof_ustack_put(c->buf, *pos, *pos + built, &us);
	return true;
}

/*
 * Every call counts one overflow, which ends up either as a committed
 * SAMPLE or in exactly one of the lost counters.
 *
 * Per overflow: two local_clock() reads (entry, end), one local cmpxchg
 * to reserve ring space, the record written in place (its chains copied
 * once, from where they were unwound; a DWARF sample's user stack copied
 * once, from user memory into the ring, between the two clock reads, so
 * its cost is what the throttle sees, as in perf), local (never LOCKed) increments of
 * this CPU's counters, no division; the counters reach the control page
 * lazily (see kprof_counters_publish()).  The end time is taken after the commit,
 * the throttle's records and the wakeup, just before data_head is
 * published, so the SAMPLE carries the cost the cost controller is fed.
 */
static void kprof_sample_capture(struct kprof_cpu *c,
				 struct perf_event *event,
				 struct pt_regs *regs,
				 const struct perf_callchain_entry *pchain,
				 u64 period)
{
	enum kprof_throttle_verdict v = KPROF_THROTTLE_SAMPLE;
	bool kthrottled = false, committed = false, nested;
	unsigned long pos = 0;
	u64 t0, seq, cost, t_end;

	/*
	 * The handler is never entered inside itself (see the top of this
	 * file); were a PMU driver ever to do so, that overflow is counted
	 * lost_nested, touching neither the scratch record, the throttle's
	 * state nor the ring the one it interrupted is in the middle of.
	 */
	nested = local_inc_return(&c->nest) > 1;
	t0 = local_clock();
	seq = local64_inc_return(&c->count[KPROF_CNT_OVERFLOWS]);

	if (unlikely(!READ_ONCE(c->active))) {
		kprof_count_lost(c, KPROF_LOST_STOPPED);
		goto out;
	}
	if (unlikely(nested)) {
		kprof_count_lost(c, KPROF_LOST_NESTED);
		goto out;
	}
	kprof_buffer_begin(c->buf);
	if (!kprof_throttle_admit(c, event, t0, &v, &kthrottled)) {
		kprof_count_lost(c, KPROF_LOST_THROTTLED);
		goto throttle;
	}
	/* With the tick the throttle counted it in. */
	committed = kprof_sample_put(c, (struct kprof_sample *)c->scratch,
				     regs, pchain, seq, t0, period,
				     c->thr_cur->count.tick, &pos);
	if (!committed)
		kprof_count_lost(c, KPROF_LOST_FULL);
throttle:
	kprof_throttle_after(c, event, v, kthrottled, t0);
	kprof_buffer_wakeup(c->buf);
	t_end = local_clock();
	cost = t_end - t0;
	if (committed) {
		cost = min_t(u64, cost, U32_MAX);
		kprof_buffer_patch_u32(c->buf, pos +
				       offsetof(struct kprof_sample, cost_ns),
				       cost);
		local64_inc(&c->count[KPROF_CNT_SAMPLES]);
		local64_add(cost, &c->count[KPROF_CNT_HANDLER_NS]);
		if (in_nmi())
			local64_inc(&c->count[KPROF_CNT_NMI_SAMPLES]);
	}
	/* Every overflow of the event that cost time, lost ones too. */
	if (kprof_sample_feeds(v))
		kprof_throttle_feed(c, cost, t_end);
	kprof_throttle_end(c, event);
	kprof_buffer_end(c->buf);
out:
	local_inc(&c->publish_gen);
	local_dec(&c->nest);
}

/**
 * kprof_overflow() - perf overflow handler of kprof's per-CPU events
 * @event: one session's event on this CPU; its overflow_handler_context
 *	   is that session's producer of this CPU (kprof_event_create())
 * @data: perf's sample data; only the period is used
 * @regs: the interrupted context
 *
 * Context: hardirq (software clock events) or NMI (hardware events).
 */
void kprof_overflow(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	const struct perf_callchain_entry *pchain = NULL;

	if (data->sample_flags & PERF_SAMPLE_CALLCHAIN)
		pchain = data->callchain;	/* PEBS: from the interrupt regs */
	kprof_sample_capture(event->overflow_handler_context, event, regs,
			     pchain, data->period);
}

/**
 * kprof_overflow_task() - perf overflow handler of per-task sessions' events
 * @event: the event of a per-task session's target, or one a descendant
 *	   inherited from it (inherit_event() copies overflow_handler and
 *	   its context): overflow_handler_context is the session
 * @data: perf's sample data; only the period is used
 * @regs: the interrupted context
 *
 * Such events run on whichever CPU their task runs on: the sample goes to
 * the producer, and so the ring, of the CPU this handler runs on, which
 * cannot change under it (hardirq or NMI, no preemption).  That producer
 * is written by no other handler of the session meanwhile: the event of
 * the task running on this CPU is the session's only one active here
 * (see the top of this file), and the session's handler on another CPU
 * writes that CPU's producer.  Each of the session's CPUs thus counts
 * every overflow of the session's events on it once, in its own
 * counters and in-band in its own ring, as a CPU session's does.
 *
 * Context: hardirq (software clock events) or NMI (hardware events).
 */
void kprof_overflow_task(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs)
{
	struct kprof_session *s = event->overflow_handler_context;
	const struct perf_callchain_entry *pchain = NULL;

	if (data->sample_flags & PERF_SAMPLE_CALLCHAIN)
		pchain = data->callchain;
	kprof_sample_capture(this_cpu_ptr(s->pcpu), event, regs, pchain,
			     data->period);
}
