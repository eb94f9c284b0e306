// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_counters.c - a CPU's counters: zeroing at START, snapshots, and
 * their publication in the CPU's control page.
 *
 * The counters themselves are local64_t in struct kprof_cpu, bumped only
 * by that CPU's overflow handler (kprof_sample.c, kprof_throttle.c).  This
 * file is the bottom layer of kprof.ko: it calls no other file of it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "kprof.h"

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
	WRITE_ONCE(dst->own_throttles,
		   local64_read(&n[KPROF_CNT_OWN_THROTTLES]));
	WRITE_ONCE(dst->lost_events, local64_read(&n[KPROF_CNT_LOST_EVENTS]));
}

/**
 * kprof_counters_publish() - copy a CPU's counters to its control page
 * @c: the CPU's state, with a buffer
 *
 * With the counters go the throttle limits, which a lowering on any CPU
 * may have changed.  Not per sample (the page's lines are shared with the
 * reader): called from this CPU's reader wakeup, throttle restart and
 * lowering message (irq_work after the handler), and by the control
 * path once the producer is quiesced (STOP, CPU offline).  A handler
 * nesting inside the copy bumps publish_gen, and the copy is redone, so
 * the page never keeps a value older than one the nested handler
 * produced.  Between publications the page lags; STOP makes it final.
 */
void kprof_counters_publish(struct kprof_cpu *c)
{
	struct kprof_mmap_page *pg = c->buf->page;
	long gen;

	do {
		gen = local_read(&c->publish_gen);
		barrier();
		kprof_counters_fill(&pg->counters, c);
		WRITE_ONCE(pg->avg_ns, kprof_throttle_avg_ns(&c->thr));
		kprof_limits_publish(c->buf);
		barrier();
	} while (gen != local_read(&c->publish_gen));
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
 * Context: control path, or the buffer's CPU outside its handler.
 */
void kprof_limits_publish(struct kprof_buf *b)
{
	const struct kprof_throttle_limits *l = &kprof.limits;
	struct kprof_mmap_page *pg = b->page;

	WRITE_ONCE(pg->max_sample_rate, l->max_sample_rate);
	WRITE_ONCE(pg->max_samples_per_tick, READ_ONCE(l->max_samples_per_tick));
	WRITE_ONCE(pg->allowed_ns, READ_ONCE(l->allowed_ns));
}
