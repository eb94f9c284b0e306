// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_main.c - module init/exit and the parameters of the default
 * configuration (the throttle's runtime knobs are in kprof_knobs.c).  The
 * device is in kprof_cdev.c, whose comment describes the control path's
 * locking.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "kprof.h"

/* ---- module parameters: the configuration at insmod ---- */

static char *event = "cpu-clock";
module_param(event, charp, 0444);
MODULE_PARM_DESC(event, "event: cpu-clock, task-clock, cycles, instructions, cache-misses, branch-misses, ref-cycles or rNNNN (hex)");

static ulong freq;
module_param(freq, ulong, 0444);
MODULE_PARM_DESC(freq, "sampling frequency in Hz (default 1000 unless period is given)");

static ulong period;
module_param(period, ulong, 0444);
MODULE_PARM_DESC(period, "sampling period in events (ns for clock events)");

static bool callchain = true;
module_param(callchain, bool, 0444);
MODULE_PARM_DESC(callchain, "record kernel and user callchains");

static uint kernel_stack = KPROF_MAX_STACK;
module_param(kernel_stack, uint, 0444);
MODULE_PARM_DESC(kernel_stack, "max kernel frames per sample (1..127)");

static uint user_stack = KPROF_MAX_STACK;
module_param(user_stack, uint, 0444);
MODULE_PARM_DESC(user_stack, "max user frames per sample (1..127)");

static char *cpus = "";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPU list to sample, e.g. 0-1,3 (default: all)");

static bool exclude_user;
module_param(exclude_user, bool, 0444);
MODULE_PARM_DESC(exclude_user, "do not sample user mode");

static bool exclude_kernel;
module_param(exclude_kernel, bool, 0444);
MODULE_PARM_DESC(exclude_kernel, "do not sample kernel mode");

static uint precise_ip;
module_param(precise_ip, uint, 0444);
MODULE_PARM_DESC(precise_ip, "perf_event_attr.precise_ip (0..3)");

static uint buffer_pages = 64;
module_param(buffer_pages, uint, 0444);
MODULE_PARM_DESC(buffer_pages, "data pages per CPU buffer, a power of two");

static uint watermark;
module_param(watermark, uint, 0444);
MODULE_PARM_DESC(watermark, "wake readers every N bytes (default: half a buffer)");

static int group = -1;
module_param(group, int, 0444);
MODULE_PARM_DESC(group, "gid whose members may open /dev/kprof without CAP_PERFMON; the node becomes root:GID 0660 (default -1: none, root 0600)");

static int __init kprof_params_cpus(struct kprof_config *cfg)
{
	cpumask_var_t mask;
	unsigned int cpu;
	int ret = 0;

	if (!*cpus)
		return 0;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	if (cpulist_parse(cpus, mask) || cpumask_empty(mask) ||
	    !cpumask_subset(mask, cpu_possible_mask)) {
		pr_err("invalid cpus=%s (a list of possible CPUs)\n", cpus);
		ret = -EINVAL;
	} else {
		for_each_cpu(cpu, mask)
			cfg->cpumask[cpu / 64] |= 1ULL << (cpu % 64);
	}
	free_cpumask_var(mask);
	return ret;
}

/*
 * Apply one parameter to a valid configuration and validate the result,
 * so that an error names the parameter at fault.
 */
#define KPROF_PARAM_APPLY(cfg, stmt, name, fmt, val) ({			\
	int __ret;							\
									\
	stmt;								\
	__ret = kprof_config_validate(cfg);				\
	if (__ret)							\
		pr_err("invalid " name "=" fmt ": error %d\n", val, __ret);	\
	__ret;								\
})

/* Build the default configuration from the parameters. */
static int __init kprof_params_config(struct kprof_config *cfg)
{
	int ret;

	/* Valid to start with: cpu-clock at 1000 Hz, one page, no chains. */
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->type = PERF_TYPE_SOFTWARE;
	cfg->config = PERF_COUNT_SW_CPU_CLOCK;
	cfg->flags = KPROF_CFG_FREQ;
	cfg->sample = 1000;
	cfg->buffer_pages = 1;

	if (kprof_parse_event(event, &cfg->type, &cfg->config)) {
		pr_err("invalid event=%s\n", event);
		return -EINVAL;
	}
	if (freq && period) {
		pr_err("invalid period=%lu: freq=%lu is also given\n", period,
		       freq);
		return -EINVAL;
	}
	if (freq) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->sample = freq,
					"freq", "%lu", freq);
		if (ret)
			return ret;
	}
	if (period) {
		ret = KPROF_PARAM_APPLY(cfg, (cfg->flags = 0,
					      cfg->sample = period),
					"period", "%lu", period);
		if (ret)
			return ret;
	}
	ret = KPROF_PARAM_APPLY(cfg, cfg->kernel_stack = min(kernel_stack, 1U << 15),
				"kernel_stack", "%u", kernel_stack);
	if (ret)
		return ret;
	ret = KPROF_PARAM_APPLY(cfg, cfg->user_stack = min(user_stack, 1U << 15),
				"user_stack", "%u", user_stack);
	if (ret)
		return ret;
	if (callchain) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->flags |= KPROF_CFG_CALLCHAIN_KERNEL |
							  KPROF_CFG_CALLCHAIN_USER,
					"callchain", "%d", callchain);
		if (ret)
			return ret;
	}
	if (exclude_user) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->flags |= KPROF_CFG_EXCLUDE_USER,
					"exclude_user", "%d", exclude_user);
		if (ret)
			return ret;
	}
	if (exclude_kernel) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->flags |= KPROF_CFG_EXCLUDE_KERNEL,
					"exclude_kernel", "%d", exclude_kernel);
		if (ret)
			return ret;
	}
	ret = KPROF_PARAM_APPLY(cfg, cfg->precise_ip = precise_ip,
				"precise_ip", "%u", precise_ip);
	if (ret)
		return ret;
	ret = KPROF_PARAM_APPLY(cfg, cfg->buffer_pages = buffer_pages,
				"buffer_pages", "%u", buffer_pages);
	if (ret)
		return ret;
	ret = KPROF_PARAM_APPLY(cfg, cfg->watermark = watermark,
				"watermark", "%u", watermark);
	if (ret)
		return ret;
	return kprof_params_cpus(cfg);
}

/* ---- module init/exit ---- */

static int __init kprof_init(void)
{
	kgid_t kgid = INVALID_GID;
	int ret;

	if (nr_cpu_ids > KPROF_MAX_CPUS) {
		pr_err("%u CPUs: the ABI describes at most %d\n", nr_cpu_ids,
		       KPROF_MAX_CPUS);
		return -EINVAL;
	}
	/* A gid of the initial namespace: insmod runs there. */
	if (group != -1) {
		kgid = make_kgid(&init_user_ns, group);
		if (!gid_valid(kgid)) {
			pr_err("invalid group=%d (a gid, or -1 for none)\n", group);
			return -EINVAL;
		}
	}
	ret = kprof_knobs_init();
	if (ret)
		return ret;
	/* Under kprof.lock: SET_THROTTLE's validation may read it. */
	mutex_lock(&kprof.lock);
	ret = kprof_params_config(&kprof.defconfig);
	mutex_unlock(&kprof.lock);
	if (ret)
		goto exit_knobs;

	kprof_throttle_init_cpus();
	ret = kprof_events_init();
	if (ret)
		goto exit_knobs;
	ret = kprof_cdev_init(kgid);
	if (ret)
		goto exit_events;
	return 0;

exit_events:
	kprof_events_exit();
exit_knobs:
	kprof_knobs_exit();
	return ret;
}

/*
 * No file is open (fops.owner pins the module, and every mapping holds its
 * file), so the last release has freed the last session: nothing runs.
 */
static void __exit kprof_exit(void)
{
	kprof_knobs_exit();
	kprof_cdev_exit();
	kprof_events_exit();
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kprof developers");
MODULE_DESCRIPTION("Per-CPU sampling profiler with its own ring buffers");
MODULE_VERSION(KPROF_VERSION);
