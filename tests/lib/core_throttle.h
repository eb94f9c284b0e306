/* SPDX-License-Identifier: GPL-2.0 */
/*
 * core_throttle.h - the throttle of kernel/events/core.c (6.1.192),
 * transliterated for the host tests that hold common/kprof_throttle.h
 * against it: the kernel's globals, its sysctl handlers, its per-interrupt
 * accounting (ge, gt and kprof's shadow), and its tick.  One CPU, one
 * event; kernel_did records what the kernel did, for the comparison.
 */
#ifndef KPROF_CORE_THROTTLE_H
#define KPROF_CORE_THROTTLE_H

#include <linux/types.h>

typedef __u64 u64;
typedef __u32 u32;

extern int kernel_hz;
#undef HZ
#define HZ				kernel_hz
#define NSEC_PER_SEC			1000000000L
#define TICK_NSEC			((NSEC_PER_SEC + HZ / 2) / HZ)
#define DIV_ROUND_UP(n, d)		(((n) + (d) - 1) / (d))
#define MAX_INTERRUPTS			(~0ULL)
#define NR_ACCUMULATED_SAMPLES		128
#define DEFAULT_MAX_SAMPLE_RATE		100000
#define DEFAULT_SAMPLE_PERIOD_NS	(NSEC_PER_SEC / DEFAULT_MAX_SAMPLE_RATE)
#define DEFAULT_CPU_TIME_MAX_PERCENT	25

extern int sysctl_perf_event_sample_rate;
extern int sysctl_perf_cpu_time_max_percent;
extern int max_samples_per_tick;
extern int perf_sample_period_ns;
extern int perf_sample_allowed_ns;
extern u64 running_sample_length;
extern u64 perf_throttled_seq;

/* The event's struct hw_perf_event, what of it the throttle uses. */
struct core_hwc {
	u64 interrupts;
	u64 interrupts_seq;
};

extern struct core_hwc hwc;

/* The average and allowed cost perf_sample_event_took() reported. */
extern u64 __report_avg, __report_allowed;

/* What the kernel did, for the comparison. */
struct core_did {
	int lowered;		/* perf_sample_event_took() lowered */
	int throttle_logs;	/* perf_log_throttle(event, 0) */
	int unthrottle_logs;	/* perf_log_throttle(event, 1) */
	u64 unthrottle_time;	/* when the last unthrottle ran */
	u64 now;		/* the clock, driven by the trace */
	u64 shadow_seq;		/* shadow: tick already reported */
};

extern struct core_did kernel_did;

void kernel_boot(int hz);
int perf_proc_update_handler_write(long long val);
int perf_cpu_time_max_percent_handler_write(long long val);
void perf_sample_event_took(u64 sample_len_ns);
int __perf_event_account_interrupt_ge(int throttle);
int __perf_event_account_interrupt_gt(int throttle);
int __perf_event_account_interrupt_shadow(void);
void kernel_advance(u64 ts);

#endif /* KPROF_CORE_THROTTLE_H */
