/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kp_ring.h - kprof's per-CPU regions for the in-guest tests.
 *
 * They map every CPU region of /dev/kprof, consume records exactly as
 * include/uapi/linux/kprof.h documents (acquire load of data_head, release
 * store of data_tail, two-piece copy of records that wrap), validate every
 * record's size against its type, and collect per-CPU tallies: samples,
 * NMI samples, LOST records by cause, throttle records, sequence order.
 *
 * They never assert: they return -1 and leave a message in b->err, so the
 * harness reports the failure in the test that called them.
 */
#ifndef KP_RING_H
#define KP_RING_H

#include <linux/kprof.h>

#include "kp_sys.h"

/* Per-CPU view of one mapped region and what was read from it. */
struct kp_cpu {
	unsigned int cpu;
	void *base;			/* NULL: region not mapped */
	struct kprof_mmap_page *pg;
	const unsigned char *data;
	__u64 data_size;

	/* Tallies of records consumed so far. */
	__u64 records;
	__u64 samples;
	__u64 nmi_samples;		/* samples with KPROF_MISC_NMI */
	__u64 user_samples;		/* samples with KPROF_MISC_USER */
	__u64 lost_recs;		/* LOST records */
	__u64 lost_full, lost_nested, lost_stopped, lost_throttled;
	__u64 throttle_recs, unthrottle_recs, lowered_recs;
	__u64 kthrottle_recs, own_recs;	/* THROTTLE with KERNEL / OWN */
	__u64 would_recs;
	/* Records other than SAMPLE the LOST records say did not fit. */
	__u64 lost_events;
	__u64 lost_throttle, lost_unthrottle, lost_lowered, lost_would;	/* by type */
	__u64 unknown_recs;
	/*
	 * Sequence numbers.  An NMI sample can be committed ahead of the
	 * interrupted handler's, whose number is lower, so order is checked
	 * among non-NMI samples only; uniqueness among all (bitmap).
	 */
	__u64 last_seq;			/* of non-NMI samples */
	__u64 max_seq;			/* of all samples */
	__u64 seq_disorder;		/* non-NMI seq <= previous non-NMI seq */
	__u64 seq_dups;			/* a seq seen twice */
	__u64 time_disorder;		/* non-NMI time < previous one */
	__u64 last_time;
	unsigned char *seen;		/* bit per seq */
	__u64 seen_bytes;
};

/* Return non-zero to stop with an error (message in b->err). */
struct kp_buffers;
typedef int (*kp_sample_fn)(struct kp_buffers *b, struct kp_cpu *c,
			    const struct kprof_sample *s);

struct kp_buffers {
	int fd;
	unsigned int nr_cpu_ids;
	__u64 stride;
	__u64 data_size;
	long page_size;
	struct kp_cpu *cpus;		/* nr_cpu_ids entries */
	unsigned char *scratch;		/* data_size bytes: wrapped records */
	kp_sample_fn on_sample;
	void *arg;
	char err[512];
};

int kp_fail(struct kp_buffers *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

__u32 kp_page_flags(const struct kp_cpu *c);
void kp_page_counters(const struct kp_cpu *c, struct kprof_counters *out);
__u64 kp_lost_total(const struct kprof_counters *k);

int kp_map(struct kp_buffers *b, int fd);
void kp_unmap(struct kp_buffers *b);
void kp_close(int fd, struct kp_buffers *b);

/* Each CPU whose region is mapped and which is online now. */
#define kp_for_each_online(b, cpu, c)					\
	for ((cpu) = 0;							\
	     (cpu) < (b)->nr_cpu_ids && ((c) = &(b)->cpus[cpu], 1);	\
	     (cpu)++)							\
		if (!(c)->base || !kp_cpu_online(cpu))			\
			continue;					\
		else

/* The KPROF_MISC_STACK_USER tail of a SAMPLE (kprof.h), read in place. */
struct kp_stack_user {
	__u64 abi;
	const __u64 *regs;		/* NULL with abi NONE */
	__u64 size;
	const unsigned char *data;	/* NULL when size is 0 */
	__u64 dyn_size;
};

/*
 * Split S's tail into T (all zero without KPROF_MISC_STACK_USER): 0, or
 * -1 when header.size is not what its chains and tail add up to.
 */
int kp_sample_tail(const struct kprof_sample *s, struct kp_stack_user *t);

int kp_account(struct kp_buffers *b, struct kp_cpu *c,
	       const struct kprof_record_header *h);
long kp_drain_cpu(struct kp_buffers *b, struct kp_cpu *c);
long kp_drain(struct kp_buffers *b);
void kp_reset_tally(struct kp_buffers *b);

int kp_check_counters(struct kp_buffers *b, struct kp_cpu *c,
		      struct kprof_counters *k);
int kp_check_conserved_all(struct kp_buffers *b, int exact_lost);

#endif /* KP_RING_H */
