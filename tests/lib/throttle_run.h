/* SPDX-License-Identifier: GPL-2.0 */
/*
 * throttle_run.h - a run of the in-guest throttle tests: one spinner per
 * sampled CPU, every record of the run kept per CPU in stream order (the
 * samples, the throttle records and the LOST records that count those
 * that did not fit: tt_cpus), kprof's knobs and the
 * kernel's perf sysctls around it, and what the records must agree with.
 */
#ifndef KPROF_THROTTLE_RUN_H
#define KPROF_THROTTLE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/kprof.h>

#include "kp_ring.h"

#define TT_HZ		250	/* every test-bed kernel */
#define TT_PERIOD_NS	100000
#define TT_MAX_CPUS	64
#define TT_PCT		"/proc/sys/kernel/perf_cpu_time_max_percent"
#define TT_RATE		"/proc/sys/kernel/perf_event_max_sample_rate"

/* One record as read, in stream order. */
struct tt_rec {
	__u32 type;
	__u64 time, seq, tick, interrupts;
	__u64 cost, period;			/* SAMPLE */
	__u16 misc;
	struct kprof_rate_lowered low;		/* RATE_LOWERED */
	__u32 lost_throttle, lost_unthrottle;	/* LOST: records that did not fit */
};

struct tt_cpu {
	struct tt_rec *r;
	size_t n, cap;
};

/* What tt_drain() kept, per CPU; a test's setup zeroes it, its teardown frees. */
extern struct tt_cpu tt_cpus[TT_MAX_CPUS];

long tt_drain(struct kp_buffers *b);

int tt_sysctl_read(const char *path, long *v);
int tt_sysctl_write(const char *path, long v);
int tt_kernel_rate_write(long rate, long pct);
int tt_set_throttle_flags(int fd, __u32 sem, __u32 rate, __u32 pct,
			  __u32 flags);
int tt_set_throttle_sem(int fd, __u32 sem, __u32 rate, __u32 pct);
int tt_set_throttle(int fd, __u32 rate, __u32 pct);
int tt_set_rate_no_cost(int fd, __u32 sem, __u32 rate);
int tt_config_clock(int fd, struct kp_buffers *b, __u32 pages);

/*
 * What a run must have recorded before it may end, judged on the records
 * drained so far (tt_cpus), or NULL.  A run's length in wall time says
 * nothing of how much an emulated CPU ran: on a loaded host one vCPU got
 * 11 overflows in a second at 10 kHz.  So runs last at least @ms and then
 * until @enough holds, KP_PROGRESS_MS later at most (a hang detector).
 */
typedef bool (*tt_enough_fn)(const struct kp_buffers *b, int only);

int tt_run_on(int fd, struct kp_buffers *b, pid_t *spin, unsigned int *nr_spin,
	      int only, int ms, tt_enough_fn enough);
int tt_run_filled(int fd, struct kp_buffers *b, pid_t *spin,
		  unsigned int *nr_spin, int ms, tt_enough_fn enough);
void tt_release(int fd, struct kp_buffers *b, const pid_t *spin,
		unsigned int nr_spin);

bool tt_each_cpu_has(const struct kp_buffers *b, int only, __u32 type);
bool tt_each_unthrottled(const struct kp_buffers *b, int only);
__u64 tt_tick_of(const struct tt_rec *r, __u64 tick_nsec);
__u64 tt_max_per_tick(const struct tt_cpu *t, __u64 tick_nsec, __u64 from,
		      __u64 *nr);
unsigned int tt_one_cpu(const struct kp_buffers *b);
void tt_log_records(unsigned int cpu, size_t at, size_t before);
bool tt_pair_lost(unsigned int cpu, size_t i, const struct tt_rec *r,
		  unsigned int *open);

#define TT_WOULD_FMT "CPU %u: %llu WOULD_THROTTLE records, %llu lost"
#define TT_COUNTERS_FMT "CPU %u: overflows %llu samples %llu lost_throttled %llu lost_full %llu lost_stopped %llu lost_events %llu throttles %llu unthrottles %llu kernel_throttles %llu lowerings %llu"

/*
 * The throttle counters of CPU @c (a struct kp_cpu *) agree with the
 * records read; a kselftest helper (uses _metadata's EXPECTs).  One
 * THROTTLE per throttled tick, naming at least one limit; what did not
 * fit is reported by the LOST records, by type but not by limit, so
 * which limit a lost THROTTLE named is between the bounds.  With a slow
 * reader (the debug kernel's, a vCPU the host starves) the buffer fills
 * and these records are lost like any record, counted in the LOST
 * records that follow; shadow mode, which never stops the event, fills
 * it fastest.
 */
#define tt_check_counters(c)						\
	do {								\
		struct kp_cpu *c_ = (c);				\
		struct kprof_counters k_;				\
									\
		kp_page_counters(c_, &k_);				\
		EXPECT_EQ(k_.throttles,					\
			  c_->throttle_recs + c_->lost_throttle)	\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_EQ(k_.unthrottles,				\
			  c_->unthrottle_recs + c_->lost_unthrottle)	\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(c_->kthrottle_recs, k_.kernel_throttles)	\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(k_.kernel_throttles,				\
			  c_->kthrottle_recs + c_->lost_throttle)	\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(c_->own_recs, k_.own_throttles)		\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(k_.own_throttles,				\
			  c_->own_recs + c_->lost_throttle)		\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(k_.throttles,					\
			  k_.own_throttles + k_.kernel_throttles)	\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(k_.own_throttles, k_.throttles)		\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(k_.kernel_throttles, k_.throttles)		\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_LE(k_.unthrottles, k_.throttles)			\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_EQ(k_.lost_events, c_->lost_events)		\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_EQ(k_.lowerings,					\
			  c_->lowered_recs + c_->lost_lowered)		\
			TH_LOG("CPU %u", c_->cpu);			\
		EXPECT_EQ(k_.would_throttles,				\
			  c_->would_recs + c_->lost_would)		\
			TH_LOG(TT_WOULD_FMT, c_->cpu, c_->would_recs,	\
			       c_->lost_would);				\
		TH_LOG(TT_COUNTERS_FMT, c_->cpu, k_.overflows,		\
		       k_.samples, k_.lost_throttled, k_.lost_full,	\
		       k_.lost_stopped, k_.lost_events, k_.throttles,	\
		       k_.unthrottles, k_.kernel_throttles,		\
		       k_.lowerings);					\
	} while (0)

#endif /* KPROF_THROTTLE_RUN_H */
