// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_params.c - the throttle's runtime knobs, as writable module
 * parameters in /sys/module/kprof/parameters/, with the rules of the perf
 * sysctls they mirror (kernel/events/core.c, 6.1):
 *
 *  max_sample_rate	  kernel.perf_event_max_sample_rate:
 *			  perf_proc_update_handler() refuses a write with
 *			  EINVAL while the percent is 0 or 100, then takes
 *			  [1, INT_MAX]; the per-tick limit, the period and
 *			  the allowed cost are recomputed.
 *  cpu_time_max_percent  kernel.perf_cpu_time_max_percent:
 *			  perf_cpu_time_max_percent_handler(), [0, 100];
 *			  0 and 100 switch the cost controller off (with the
 *			  kernel's warning), any other value recomputes the
 *			  allowed cost.
 *  throttle_semantics	  kprof's own: ge, gt or shadow.
 *
 * Reads show what is in force, the cost controller's lowerings included
 * (the overflow handler writes kprof.limits without a lock, as core.c
 * writes its globals).  Writes take kprof.lock, like KPROF_IOC_SET_THROTTLE,
 * and apply to a running session too, as the sysctls do.  The files are
 * root's (0644); switching the cost controller off is a debug setting and
 * also needs CAP_SYS_ADMIN, as it does through SET_THROTTLE.
 *
 * At insmod the set handlers run before kprof_init(): they only check and
 * store the value, and kprof_params_throttle() applies them in the sysctl
 * order (semantics, percent, rate), so a rate given with a percent of 0 is
 * refused as a write of both would be.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/string.h>

#include "kprof.h"

/*
 * Under kprof.lock: set while kprof.limits holds the knobs and the buffers
 * their control pages; before and after (insmod, rmmod), writes only store.
 */
static bool kprof_params_live;

static uint max_sample_rate = KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE;
static uint cpu_time_max_percent = KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT;
static uint throttle_semantics = KPROF_THROTTLE_GE;

static const char * const kprof_semantics_names[] = {
	[KPROF_THROTTLE_GE] = "ge",
	[KPROF_THROTTLE_GT] = "gt",
	[KPROF_THROTTLE_SHADOW] = "shadow",
};

enum kprof_knob { KPROF_KNOB_RATE, KPROF_KNOB_PERCENT, KPROF_KNOB_SEMANTICS };

/* Copy the limits to every control page, as SET_THROTTLE does. */
static void kprof_params_publish(void)
{
	unsigned int cpu;

	lockdep_assert_held(&kprof.lock);
	if (IS_ERR_OR_NULL(kprof.bufs))
		return;		/* kprof_init() has not allocated them yet */
	for_each_possible_cpu(cpu)
		kprof_limits_publish(&kprof.bufs->cpu[cpu]);
}

/* Set one knob in @l, and what derives from it, with the sysctl's rule. */
static int kprof_knob_store(struct kprof_throttle_limits *l,
			    enum kprof_knob knob, uint val)
{
	switch (knob) {
	case KPROF_KNOB_RATE:
		return kprof_throttle_set_max_sample_rate(l, val);
	case KPROF_KNOB_PERCENT:
		return kprof_throttle_set_cpu_time_max_percent(l, val);
	case KPROF_KNOB_SEMANTICS:
		return kprof_throttle_set_semantics(l, val);
	}
	return -EINVAL;
}

/* Check one knob's write on @l, a copy; -EINVAL or -EPERM. */
static int kprof_knob_apply(struct kprof_throttle_limits *l,
			    enum kprof_knob knob, uint val)
{
	bool was_on = kprof_throttle_cost_control_enabled(l);
	int ret;

	ret = kprof_knob_store(l, knob, val);
	if (ret || knob != KPROF_KNOB_PERCENT)
		return ret;
	if (was_on && !kprof_throttle_cost_control_enabled(l)) {
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		pr_warn("cpu_time_max_percent=%u: dynamic interrupt throttling disabled, can hang your system!\n",
			val);
	}
	return 0;
}

static int kprof_knob_set(enum kprof_knob knob, uint val, uint *store)
{
	struct kprof_throttle_limits l;
	int ret;

	mutex_lock(&kprof.lock);
	if (!kprof_params_live) {
		*store = val;	/* insmod: kprof_params_throttle() applies it */
		mutex_unlock(&kprof.lock);
		return 0;
	}
	/*
	 * Checked on a copy, then set on the live limits by the same setter,
	 * never by copying the copy back: a lowering by a handler on another
	 * CPU in between (the live limits take no lock, as core.c's) keeps
	 * the fields this knob does not set, as SET_THROTTLE does.
	 */
	l = kprof.limits;
	ret = kprof_knob_apply(&l, knob, val);
	if (!ret) {
		kprof_knob_store(&kprof.limits, knob, val);
		*store = val;
		kprof_params_publish();
	}
	mutex_unlock(&kprof.lock);
	return ret;
}

static int kprof_param_set_uint(const char *val, const struct kernel_param *kp)
{
	enum kprof_knob knob = kp->arg == &max_sample_rate ? KPROF_KNOB_RATE :
			       KPROF_KNOB_PERCENT;
	uint v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	/* Checked at insmod too: the sysctl's range, before anything else. */
	if (knob == KPROF_KNOB_RATE && (v < 1 || v > INT_MAX))
		return -EINVAL;
	if (knob == KPROF_KNOB_PERCENT && v > 100)
		return -EINVAL;
	return kprof_knob_set(knob, v, kp->arg);
}

/* What is in force: the cost controller may have lowered the rate. */
static int kprof_param_get_uint(char *buf, const struct kernel_param *kp)
{
	uint v = *(uint *)kp->arg;

	if (kprof_params_live)
		v = kp->arg == &max_sample_rate ?
		    READ_ONCE(kprof.limits.max_sample_rate) :
		    READ_ONCE(kprof.limits.cpu_time_max_percent);
	return sysfs_emit(buf, "%u\n", v);
}

static const struct kernel_param_ops kprof_param_uint_ops = {
	.set = kprof_param_set_uint,
	.get = kprof_param_get_uint,
};

static int kprof_param_set_semantics(const char *val,
				     const struct kernel_param *kp)
{
	char name[8];
	int sem;

	strscpy(name, val, sizeof(name));
	sem = match_string(kprof_semantics_names,
			   ARRAY_SIZE(kprof_semantics_names), strim(name));
	if (sem < 0)
		return -EINVAL;
	return kprof_knob_set(KPROF_KNOB_SEMANTICS, sem, kp->arg);
}

static int kprof_param_get_semantics(char *buf, const struct kernel_param *kp)
{
	uint sem = kprof_params_live ? READ_ONCE(kprof.limits.semantics) :
				       *(uint *)kp->arg;

	if (sem >= ARRAY_SIZE(kprof_semantics_names))
		return sysfs_emit(buf, "%u\n", sem);
	return sysfs_emit(buf, "%s\n", kprof_semantics_names[sem]);
}

static const struct kernel_param_ops kprof_param_semantics_ops = {
	.set = kprof_param_set_semantics,
	.get = kprof_param_get_semantics,
};

module_param_cb(max_sample_rate, &kprof_param_uint_ops, &max_sample_rate, 0644);
MODULE_PARM_DESC(max_sample_rate, "like kernel.perf_event_max_sample_rate (1..INT_MAX; EINVAL while cpu_time_max_percent is 0 or 100); reads show the rate in force");

module_param_cb(cpu_time_max_percent, &kprof_param_uint_ops, &cpu_time_max_percent, 0644);
MODULE_PARM_DESC(cpu_time_max_percent, "like kernel.perf_cpu_time_max_percent (0..100; 0 and 100 switch the cost controller off)");

module_param_cb(throttle_semantics, &kprof_param_semantics_ops, &throttle_semantics, 0644);
MODULE_PARM_DESC(throttle_semantics, "per-tick limit: ge, gt or shadow");

/**
 * kprof_params_throttle() - set kprof.limits from the insmod parameters
 *
 * In the sysctl order (semantics, percent, rate); from then on the
 * parameters' writes apply to kprof.limits.
 *
 * Context: module init, before anything reads kprof.limits.
 * Return: 0, or -EINVAL after a message naming the parameter.
 */
int __init kprof_params_throttle(void)
{
	int ret = -EINVAL;

	mutex_lock(&kprof.lock);
	kprof_throttle_limits_init(&kprof.limits, HZ, throttle_semantics);
	if (kprof_throttle_set_cpu_time_max_percent(&kprof.limits,
						    cpu_time_max_percent)) {
		pr_err("invalid cpu_time_max_percent=%u (0..100)\n",
		       cpu_time_max_percent);
		goto unlock;
	}
	if (max_sample_rate != kprof.limits.max_sample_rate &&
	    kprof_throttle_set_max_sample_rate(&kprof.limits,
					       max_sample_rate)) {
		pr_err("invalid max_sample_rate=%u (>= 1, and cpu_time_max_percent not 0 or 100)\n",
		       max_sample_rate);
		goto unlock;
	}
	kprof_params_live = true;
	ret = 0;
unlock:
	mutex_unlock(&kprof.lock);
	return ret;
}

/**
 * kprof_params_exit() - make the knobs' writes store only again
 *
 * The parameter files outlive kprof_exit() (they go with the module), so
 * a write after it must not reach the buffers it freed.
 *
 * Context: module exit, or init failing after kprof_params_throttle().
 */
void kprof_params_exit(void)
{
	mutex_lock(&kprof.lock);
	kprof_params_live = false;
	mutex_unlock(&kprof.lock);
}
