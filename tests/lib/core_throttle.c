// SPDX-License-Identifier: GPL-2.0
/*
 * core_throttle.c - the kernel's throttle, transliterated (core_throttle.h).
 *
 * An independent transliteration of the throttle code in
 * kernel/events/core.c of linux 6.1.192 (the tree in
 * $KPROF_CACHE/linux-source-6.1): the same globals with the same types
 * (int sysctls, a u64 running_sample_length, perf_throttled_seq /
 * perf_throttled_count, hwc->interrupts / interrupts_seq and
 * MAX_INTERRUPTS), perf_proc_update_handler(), update_perf_cpu_limits(),
 * perf_cpu_time_max_percent_handler(), perf_sample_event_took(),
 * __perf_event_account_interrupt() in its current form (ge) and as it was
 * before f51972e6 (gt), and perf_event_task_tick() with the unthrottle of
 * perf_adjust_freq_unthr_context().  It is written from core.c, not from
 * common/kprof_throttle.h, and shares no code with it: the host tests
 * compare the two.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "core_throttle.h"

int kernel_hz;
int sysctl_perf_event_sample_rate;
int sysctl_perf_cpu_time_max_percent;
int max_samples_per_tick;
int perf_sample_period_ns;
int perf_sample_allowed_ns;
u64 running_sample_length;	/* DEFINE_PER_CPU; one CPU here */
u64 perf_throttled_seq;		/* DEFINE_PER_CPU */
static int perf_throttled_count;	/* DEFINE_PER_CPU */
struct core_hwc hwc;
u64 __report_avg, __report_allowed;
struct core_did kernel_did;

/*
 * core.c's static initializers (sysctl_perf_event_sample_rate,
 * max_samples_per_tick, perf_sample_period_ns, perf_sample_allowed_ns,
 * sysctl_perf_cpu_time_max_percent), for HZ @hz.
 */
void kernel_boot(int hz)
{
	kernel_hz = hz;
	sysctl_perf_event_sample_rate = DEFAULT_MAX_SAMPLE_RATE;
	sysctl_perf_cpu_time_max_percent = DEFAULT_CPU_TIME_MAX_PERCENT;
	max_samples_per_tick = DIV_ROUND_UP(DEFAULT_MAX_SAMPLE_RATE, HZ);
	perf_sample_period_ns = DEFAULT_SAMPLE_PERIOD_NS;
	perf_sample_allowed_ns =
		DEFAULT_SAMPLE_PERIOD_NS * DEFAULT_CPU_TIME_MAX_PERCENT / 100;
	running_sample_length = 0;
	perf_throttled_seq = 0;
	perf_throttled_count = 0;
	hwc.interrupts = 0;
	hwc.interrupts_seq = 0;
	memset(&kernel_did, 0, sizeof(kernel_did));
	kernel_did.shadow_seq = MAX_INTERRUPTS;
}

static void update_perf_cpu_limits(void)
{
	u64 tmp = perf_sample_period_ns;

	tmp *= sysctl_perf_cpu_time_max_percent;
	tmp = tmp / 100;
	if (!tmp)
		tmp = 1;

	perf_sample_allowed_ns = tmp;
}

/* perf_proc_update_handler(), a write of @val (kernel/sysctl.c: min 1) */
int perf_proc_update_handler_write(long long val)
{
	int perf_cpu = sysctl_perf_cpu_time_max_percent;

	if (perf_cpu == 100 || perf_cpu == 0)
		return -EINVAL;

	/* proc_dointvec_minmax(), .extra1 = SYSCTL_ONE, int range */
	if (val < 1 || val > INT_MAX)
		return -EINVAL;
	sysctl_perf_event_sample_rate = val;

	/*
	 * DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ) in int; the kernel
	 * is built with -fno-strict-overflow, so near INT_MAX the sum wraps
	 * negative.  Spelled out with the wrap explicit, not as C UB.
	 */
	max_samples_per_tick =
		(int)((unsigned int)sysctl_perf_event_sample_rate + HZ - 1) / HZ;
	perf_sample_period_ns = NSEC_PER_SEC / sysctl_perf_event_sample_rate;
	update_perf_cpu_limits();

	return 0;
}

/* perf_cpu_time_max_percent_handler(), a write of @val (0..100) */
int perf_cpu_time_max_percent_handler_write(long long val)
{
	if (val < 0 || val > 100)
		return -EINVAL;
	sysctl_perf_cpu_time_max_percent = val;

	if (sysctl_perf_cpu_time_max_percent == 100 ||
	    sysctl_perf_cpu_time_max_percent == 0) {
		/* printk(KERN_WARNING "perf: Dynamic interrupt ...") */
		perf_sample_allowed_ns = 0;
	} else {
		update_perf_cpu_limits();
	}

	return 0;
}

void perf_sample_event_took(u64 sample_len_ns)
{
	u64 max_len = perf_sample_allowed_ns;
	u64 running_len;
	u64 avg_len;
	u32 max;

	kernel_did.lowered = 0;
	if (max_len == 0)
		return;

	running_len = running_sample_length;
	running_len -= running_len / NR_ACCUMULATED_SAMPLES;
	running_len += sample_len_ns;
	running_sample_length = running_len;

	avg_len = running_len / NR_ACCUMULATED_SAMPLES;
	if (avg_len <= max_len)
		return;

	__report_avg = avg_len;
	__report_allowed = max_len;

	avg_len += avg_len / 4;
	max = (TICK_NSEC / 100) * sysctl_perf_cpu_time_max_percent;
	if (avg_len < max)
		max /= (u32)avg_len;
	else
		max = 1;

	perf_sample_allowed_ns = avg_len;
	max_samples_per_tick = max;

	sysctl_perf_event_sample_rate = max * HZ;
	perf_sample_period_ns = NSEC_PER_SEC / sysctl_perf_event_sample_rate;

	kernel_did.lowered = 1;		/* irq_work_queue(&perf_duration_work) */
}

/* The throttle branch, common to both forms. */
static int kernel_throttle(void)
{
	perf_throttled_count++;
	/* tick_dep_set_cpu(smp_processor_id(), TICK_DEP_BIT_PERF_EVENTS); */
	hwc.interrupts = MAX_INTERRUPTS;
	kernel_did.throttle_logs++;	/* perf_log_throttle(event, 0); */
	return 1;
}

/* 6.1.192 (with f51972e6): every interrupt checked, >= */
int __perf_event_account_interrupt_ge(int throttle)
{
	int ret = 0;
	u64 seq;

	seq = perf_throttled_seq;
	if (seq != hwc.interrupts_seq) {
		hwc.interrupts_seq = seq;
		hwc.interrupts = 1;
	} else {
		hwc.interrupts++;
	}

	if (throttle && hwc.interrupts >= (u64)max_samples_per_tick)
		ret = kernel_throttle();

	return ret;
}

/* Before f51972e6 (since e050e3f0a71b): first of a tick unchecked, > */
int __perf_event_account_interrupt_gt(int throttle)
{
	int ret = 0;
	u64 seq;

	seq = perf_throttled_seq;
	if (seq != hwc.interrupts_seq) {
		hwc.interrupts_seq = seq;
		hwc.interrupts = 1;
	} else {
		hwc.interrupts++;
		if (throttle && hwc.interrupts > (u64)max_samples_per_tick)
			ret = kernel_throttle();
	}

	return ret;
}

/* kprof's shadow mode: the ge condition, reported once per tick. */
int __perf_event_account_interrupt_shadow(void)
{
	u64 seq = perf_throttled_seq;

	if (seq != hwc.interrupts_seq) {
		hwc.interrupts_seq = seq;
		hwc.interrupts = 1;
	} else {
		hwc.interrupts++;
	}

	if (hwc.interrupts >= (u64)max_samples_per_tick &&
	    kernel_did.shadow_seq != seq) {
		kernel_did.shadow_seq = seq;
		return 1;
	}
	return 0;
}

/* perf_event_task_tick() + perf_adjust_freq_unthr_context() */
static void perf_event_task_tick(void)
{
	int throttled;

	perf_throttled_seq++;
	throttled = perf_throttled_count;
	perf_throttled_count = 0;

	if (!throttled)
		return;
	if (hwc.interrupts == MAX_INTERRUPTS) {
		hwc.interrupts = 0;
		kernel_did.unthrottle_logs++;	/* perf_log_throttle(event, 1); */
		kernel_did.unthrottle_time = kernel_did.now;
		/* event->pmu->start(event, 0); */
	}
}

/* Run the tick on the way to @ts; the first tick is at time 0. */
void kernel_advance(u64 ts)
{
	u64 tick = ts / TICK_NSEC;

	while (perf_throttled_seq < tick) {
		kernel_did.now = (perf_throttled_seq + 1) * TICK_NSEC;
		perf_event_task_tick();
	}
	kernel_did.now = ts;
}
