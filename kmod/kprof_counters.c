// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_counters.c - a CPU's counters: zeroing, snapshots, and their
 * publication in the CPU's control page under the page's sequence count.
 *
 * The counters themselves are local64_t in struct kprof_cpu (one per
 * session and CPU), bumped only by that session's overflow handler on
 * that CPU (kprof_sample.c, kprof_throttle.c).  This
 * file is the bottom layer of kprof.ko: it calls no other file of it.
 *
 * Single writer per control page.  pg->lock, pg->counters and pg->avg_ns
 * of CPU X's page are written only
 *  - on X with interrupts disabled: X's reader wakeup and throttle message
 *    irq_work, X's throttle restart hrtimer, X's cpuhp teardown callback
 *    (which runs on X) and the GET_STATS IPI to X.  Disabling interrupts
 *    makes these exclusive on X; the only context that can still nest is
 *    X's overflow handler in NMI, which bumps the counters but never
 *    writes the page;
 *  - or, from any CPU, while X has no producer and none of its deferred
 *    work can run: START before the events exist, STOP and a failed
 *    START after kprof_events_quiesce() has waited for handlers
 *    (synchronize_rcu()), irq_work and hrtimers, and kprof_bufs_reset()
 *    while stopped.  All of those hold kprof.lock, as GET_STATS does
 *    while its IPI runs, so they exclude each other; cpus_read_lock()
 *    excludes GET_STATS from X's cpuhp callbacks.
 * With one writer at a time, the sequence count needs no atomic
 * operation: the writer keeps it in kprof_buf.lock_seq (the page may be
 * mapped writable and is never read back) and stores it twice.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/smp.h>

#include "kprof.h"

/**
 * kprof_counters_fill() - copy a CPU's counters, one field at a time
 * @dst: where to write, possibly the user-visible control page
 * @c: the CPU's state
 *
 * Not a snapshot by itself: see kprof_counters_read().
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
	WRITE_ONCE(dst->own_throttles,
		   local64_read(&n[KPROF_CNT_OWN_THROTTLES]));
	WRITE_ONCE(dst->lost_events, local64_read(&n[KPROF_CNT_LOST_EVENTS]));
}

/*
 * Copy @c's counters as they stood between two of its handlers.  A
 * handler that nests in the copy (an NMI: the callers run on the
 * counters' CPU with interrupts off, or with the producer quiesced)
 * bumps publish_gen on its way out and the copy is redone, so the copy
 * never mixes fields from before and after one overflow: the invariant
 * overflows == samples + lost_* holds in it.
 */
static void kprof_counters_read(struct kprof_cpu *c, struct kprof_counters *dst,
				u64 *avg_ns)
{
	long gen;

	do {
		gen = local_read(&c->publish_gen);
		barrier();
		kprof_counters_fill(dst, c);
		WRITE_ONCE(*avg_ns,
			   kprof_throttle_avg_ns(per_cpu_ptr(&kprof_cost, c->cpu)));
		barrier();
	} while (gen != local_read(&c->publish_gen));
}

/* A sequence count write section over @b's counters, see the top. */
static void kprof_counters_write_begin(struct kprof_buf *b)
{
	WRITE_ONCE(b->page->lock, ++b->lock_seq);	/* odd */
	/* The odd count before any field: pairs with the reader's rmb. */
	smp_wmb();
}

static void kprof_counters_write_end(struct kprof_buf *b)
{
	/* Every field before the even count. */
	smp_wmb();
	WRITE_ONCE(b->page->lock, ++b->lock_seq);
}

/**
 * kprof_counters_publish() - copy a CPU's counters to its control page
 * @c: the CPU's state, with a buffer
 *
 * A consistent snapshot (kprof_counters_read()) inside a write section
 * of the page's sequence count, so a reader that follows the loop of
 * include/uapi/linux/kprof.h sees the invariant hold.  With the counters
 * go the throttle limits, which a lowering on any CPU may have changed;
 * they are outside the section, since SET_THROTTLE also writes them.
 * Not per sample (the page's lines are shared with the reader): called
 * from this CPU's reader wakeup, throttle restart and lowering message
 * (irq_work after the handler), GET_STATS, and by the control path once
 * the producer is quiesced (START, STOP, CPU offline).  Between
 * publications the page lags; STOP makes it final.
 *
 * Context: on @c's CPU, or with @c's producer quiesced (see the top).
 */
void kprof_counters_publish(struct kprof_cpu *c)
{
	struct kprof_buf *b = c->buf;
	struct kprof_mmap_page *pg = b->page;
	unsigned long flags;

	/* Excludes the other writers on this CPU, see the top. */
	local_irq_save(flags);
	kprof_counters_write_begin(b);
	kprof_counters_read(c, &pg->counters, &pg->avg_ns);
	kprof_counters_write_end(b);
	kprof_limits_publish(b);
	local_irq_restore(flags);
}

/* GET_STATS, on the CPU of the counters: publish, then copy them out. */
struct kprof_stats_req {
	struct kprof_cpu	*c;
	struct kprof_cpu_stats	*st;
};

static void kprof_counters_stats_ipi(void *arg)
{
	struct kprof_stats_req *req = arg;
	struct kprof_cpu_stats *st = req->st;
	struct kprof_cpu *c = req->c;

	/* No buffer before the first START: nothing to publish to. */
	if (c->buf)
		kprof_counters_publish(c);
	kprof_counters_read(c, &st->counters, &st->avg_ns);
}

/**
 * kprof_counters_stats() - a consistent snapshot of a CPU's counters
 * @s: the session whose counters
 * @cpu: a possible CPU
 * @st: where the counters and avg_ns go
 *
 * On @cpu itself when it is online, in an IPI, which also publishes its
 * control page; an offline CPU has no handler, its counters hold still.
 *
 * Context: process context, kprof.lock held (a writer of the page, see
 * the top).
 */
void kprof_counters_stats(struct kprof_session *s, unsigned int cpu,
			  struct kprof_cpu_stats *st)
{
	struct kprof_stats_req req = {
		.c = per_cpu_ptr(s->pcpu, cpu),
		.st = st,
	};

	lockdep_assert_held(&kprof.lock);
	/* @cpu stays online or offline, and its cpuhp callbacks wait. */
	cpus_read_lock();
	if (smp_call_function_single(cpu, kprof_counters_stats_ipi, &req, 1))
		kprof_counters_read(req.c, &st->counters, &st->avg_ns);
	cpus_read_unlock();
}

/**
 * kprof_counters_clear_page() - zero the counters of a control page
 * @b: the buffer, its CPU's producer quiesced
 *
 * In a write section: the file about to own the buffers may be reading
 * the page through its mapping.
 *
 * Context: process context, kprof.lock held.
 */
void kprof_counters_clear_page(struct kprof_buf *b)
{
	struct kprof_mmap_page *pg = b->page;

	kprof_counters_write_begin(b);
	memset(&pg->counters, 0, sizeof(pg->counters));
	WRITE_ONCE(pg->avg_ns, 0);
	kprof_counters_write_end(b);
}

/**
 * kprof_counters_reset() - zero a CPU's counters for START
 * @c: the CPU's state, producer quiesced
 * @fresh: the buffers were emptied for a new owner
 *
 * Losses the last STOP could not report (its LOST record did not fit and
 * nothing was read since) belong to the buffers' owner.  For a new owner
 * (@fresh) they went with the emptied buffers.  For the same owner they
 * stay pending and become the new run's first overflows, counted lost by
 * cause, so its counters and its first LOST record agree.
 */
void kprof_counters_reset(struct kprof_cpu *c, bool fresh)
{
	u64 carried = 0, events = 0;
	int i;

	for (i = 0; i < KPROF_NR_COUNTERS; i++)
		local64_set(&c->count[i], 0);
	if (fresh) {
		for (i = 0; i < KPROF_NR_LOST; i++)
			local64_set(&c->pending[i], 0);
		local_set(&c->pending_any, 0);
		return;
	}
	for (i = 0; i < KPROF_NR_LOST_OVERFLOWS; i++) {
		u64 n = local64_read(&c->pending[i]);

		local64_set(&c->count[KPROF_CNT_LOST_FULL + i], n);
		carried += n;
	}
	for (i = KPROF_NR_LOST_OVERFLOWS; i < KPROF_NR_LOST; i++)
		events += local64_read(&c->pending[i]);
	local64_set(&c->count[KPROF_CNT_OVERFLOWS], carried);
	local64_set(&c->count[KPROF_CNT_LOST_EVENTS], events);
}

/**
 * kprof_limits_publish() - copy the throttle limits to a control page
 * @b: the buffer
 *
 * Each limit is one __u64 stored whole; they are not under the sequence
 * count, as the control path (SET_THROTTLE, the knobs) writes them too.
 *
 * Context: control path, or the buffer's CPU outside its handler.
 */
void kprof_limits_publish(struct kprof_buf *b)
{
	const struct kprof_throttle_limits *l = &kprof.limits;
	struct kprof_mmap_page *pg = b->page;

	WRITE_ONCE(pg->max_sample_rate, READ_ONCE(l->max_sample_rate));
	WRITE_ONCE(pg->max_samples_per_tick, READ_ONCE(l->max_samples_per_tick));
	WRITE_ONCE(pg->allowed_ns, READ_ONCE(l->allowed_ns));
}
