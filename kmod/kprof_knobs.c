// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_knobs.c - the throttle's runtime knobs: the one place that sets
 * them, for both of their interfaces, KPROF_IOC_SET_THROTTLE
 * (kprof_cdev.c) and the writable module parameters in
 * /sys/module/kprof/parameters/ below, with the rules of the perf sysctls
 * they mirror (kernel/events/core.c, 6.1):
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
 * writes its globals).  Writes take kprof.lock and apply to every
 * session at once, running ones too, as the sysctls apply to every
 * event.  So they are the administrator's: the files are root's (0644),
 * and SET_THROTTLE changes them only for a file opened with
 * CAP_SYS_ADMIN.  Switching the cost controller off is a debug setting,
 * which needs CAP_SYS_ADMIN through a file here too.
 *
 * At insmod the set handlers run before kprof_init(): they only check and
 * store the value, and kprof_knobs_init() applies them in the sysctl
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
static bool kprof_knobs_live;

static uint max_sample_rate = KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE;
static uint cpu_time_max_percent = KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT;
static uint throttle_semantics = KPROF_THROTTLE_GE;

static const char * const kprof_semantics_names[] = {
	[KPROF_THROTTLE_GE] = "ge",
	[KPROF_THROTTLE_GT] = "gt",
	[KPROF_THROTTLE_SHADOW] = "shadow",
};

/*
 * The fields @fields names, set in @l by the sysctls' setters in their
 * order: semantics, then cpu_time_max_percent, then max_sample_rate
 * (refused while the percent is 0 or 100).
 */
static int kprof_knobs_store(struct kprof_throttle_limits *l,
			     const struct kprof_throttle_config *t, u32 fields)
{
	int ret = 0;

	if (fields & KPROF_KNOB_SEMANTICS)
		ret = kprof_throttle_set_semantics(l, t->semantics);
	if (!ret && (fields & KPROF_KNOB_PERCENT))
		ret = kprof_throttle_set_cpu_time_max_percent(l,
							      t->cpu_time_max_percent);
	if (!ret && (fields & KPROF_KNOB_RATE))
		ret = kprof_throttle_set_max_sample_rate(l, t->max_sample_rate);
	return ret;
}

/* CAP_SYS_ADMIN: the opener's, decided at open(), or the writer's now. */
static bool kprof_knobs_admin(const struct kprof_file *f)
{
	return f ? f->admin : capable(CAP_SYS_ADMIN);
}

/**
 * kprof_knobs_set() - set throttle knobs, as the sysctls set theirs
 * @t: the values
 * @fields: which of them to write (KPROF_KNOB_*)
 * @f: the file asking through SET_THROTTLE, or NULL for a write of a
 *     parameter file by the current task (root's file)
 *
 * Checked on a copy of the live limits, then applied to them by the same
 * setters, only for the fields named, never by copying the whole struct
 * back: a lowering by a handler on another CPU between the two (the live
 * limits take no lock, as core.c's) keeps every field this write leaves
 * alone.  A field both write ends with either value, as between the
 * handler of kernel.perf_event_max_sample_rate and
 * perf_sample_event_took(); each value is one a writer derived, and the
 * next lowering rewrites them all from the average.  On the live limits
 * the setters cannot fail where they passed on the copy: only a write
 * under kprof.lock changes the percent they check.  A file's change
 * needs its opener's CAP_SYS_ADMIN; switching the cost controller off (a
 * percent of 0 or 100) needs the writer's too, and logs the kernel's
 * warning.  Every session's control pages get the result, running or not.
 *
 * Context: kprof.lock held.
 * Return: 0, -EINVAL for a value a sysctl refuses, -EPERM.
 */
int kprof_knobs_set(const struct kprof_throttle_config *t, u32 fields,
		    const struct kprof_file *f)
{
	struct kprof_throttle_limits l;
	struct kprof_session *s;
	bool was_on;
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&kprof.lock);
	kprof_throttle_limits_copy(&l, &kprof.limits);
	was_on = kprof_throttle_cost_control_enabled(&l);
	ret = kprof_knobs_store(&l, t, fields);
	if (ret)
		return ret;
	/*
	 * Every session runs under the knobs at once: a file changes them
	 * for other users' running sessions too, so only with its opener's
	 * CAP_SYS_ADMIN, as the parameter files and the perf sysctls are
	 * root's.
	 */
	if (f && !kprof_knobs_admin(f))
		return -EPERM;
	if (was_on && !kprof_throttle_cost_control_enabled(&l)) {
		if (!kprof_knobs_admin(f))
			return -EPERM;
		pr_warn("cpu_time_max_percent=%u: dynamic interrupt throttling disabled, can hang your system!\n",
			t->cpu_time_max_percent);
	}
	kprof_knobs_store(&kprof.limits, t, fields);
	if (fields & KPROF_KNOB_FLAGS)
		WRITE_ONCE(kprof.throttle_flags, t->flags);
	/* Every session's control pages; a new one's START publishes them. */
	list_for_each_entry(s, &kprof.sessions, node)
		for_each_possible_cpu(cpu)
			kprof_limits_publish(&s->bufs->cpu[cpu]);
	return 0;
}

/* A write of one parameter file: stored at insmod, set from then on. */
static int kprof_knob_write(const struct kprof_throttle_config *t, u32 field,
			    uint val, uint *store)
{
	int ret = 0;

	mutex_lock(&kprof.lock);
	if (kprof_knobs_live)
		ret = kprof_knobs_set(t, field, NULL);
	if (!ret)
		*store = val;	/* at insmod, kprof_knobs_init() applies it */
	mutex_unlock(&kprof.lock);
	return ret;
}

static int kprof_param_set_uint(const char *val, const struct kernel_param *kp)
{
	struct kprof_throttle_config t = {};
	bool rate = kp->arg == &max_sample_rate;
	uint v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	/* Checked at insmod too: the sysctl's range, before anything else. */
	if (rate && (v < 1 || v > INT_MAX))
		return -EINVAL;
	if (!rate && v > 100)
		return -EINVAL;
	t.max_sample_rate = v;
	t.cpu_time_max_percent = v;
	return kprof_knob_write(&t, rate ? KPROF_KNOB_RATE : KPROF_KNOB_PERCENT,
				v, kp->arg);
}

/* What is in force: the cost controller may have lowered the rate. */
static int kprof_param_get_uint(char *buf, const struct kernel_param *kp)
{
	uint v = *(uint *)kp->arg;

	if (kprof_knobs_live)
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
	struct kprof_throttle_config t = {};
	char name[8];
	int sem;

	strscpy(name, val, sizeof(name));
	sem = match_string(kprof_semantics_names,
			   ARRAY_SIZE(kprof_semantics_names), strim(name));
	if (sem < 0)
		return -EINVAL;
	t.semantics = sem;
	return kprof_knob_write(&t, KPROF_KNOB_SEMANTICS, sem, kp->arg);
}

static int kprof_param_get_semantics(char *buf, const struct kernel_param *kp)
{
	uint sem = kprof_knobs_live ? READ_ONCE(kprof.limits.semantics) :
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
 * kprof_knobs_init() - set kprof.limits from the insmod parameters
 *
 * In the sysctl order (semantics, percent, rate); from then on the
 * parameters' writes set kprof.limits.
 *
 * Context: module init, before anything reads kprof.limits.
 * Return: 0, or -EINVAL after a message naming the parameter.
 */
int __init kprof_knobs_init(void)
{
	int ret;

	mutex_lock(&kprof.lock);
	/* The per-tick limit divides by the tick length: HZ must fit it. */
	ret = kprof_throttle_limits_init(&kprof.limits, HZ, throttle_semantics);
	if (ret) {
		pr_err("HZ=%u or throttle_semantics=%u outside the throttle model's range\n",
		       HZ, throttle_semantics);
		goto unlock;
	}
	ret = kprof_throttle_set_cpu_time_max_percent(&kprof.limits,
						      cpu_time_max_percent);
	if (ret) {
		pr_err("invalid cpu_time_max_percent=%u (0..100)\n",
		       cpu_time_max_percent);
		goto unlock;
	}
	if (max_sample_rate != kprof.limits.max_sample_rate) {
		ret = kprof_throttle_set_max_sample_rate(&kprof.limits,
							 max_sample_rate);
		if (ret) {
			pr_err("invalid max_sample_rate=%u (>= 1, and cpu_time_max_percent not 0 or 100)\n",
			       max_sample_rate);
			goto unlock;
		}
	}
	kprof_knobs_live = true;
unlock:
	mutex_unlock(&kprof.lock);
	return ret;
}

/**
 * kprof_knobs_exit() - make the knobs' writes store only again
 *
 * The parameter files outlive kprof_exit() (they go with the module), so
 * a write after it must not reach the buffers it freed.
 *
 * Context: module exit, or init failing after kprof_knobs_init().
 */
void kprof_knobs_exit(void)
{
	mutex_lock(&kprof.lock);
	kprof_knobs_live = false;
	mutex_unlock(&kprof.lock);
}
