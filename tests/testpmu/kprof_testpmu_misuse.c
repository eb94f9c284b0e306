// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_testpmu_misuse: TEST-ONLY, a deliberately wrong client of the PMU
 * stand-in.  Its init creates a pinned counter on kprof_testpmu (type=N,
 * from /sys/bus/event_source/devices/kprof_testpmu/type) on CPU 0, waits
 * until the perf core has it running, and then starts it again through
 * the PMU's own ops, behind the core's back: the stand-in's copy of
 * x86_pmu_start()'s WARN_ON_ONCE(!(state & PERF_HES_STOPPED)) must fire,
 * as on hardware.  The test bed boots with panic_on_warn=1, so the guest
 * dies there; tests/vm/testpmu-selftest expects tests/vm/run's 125 and
 * the WARNING.  If the check did not bite, init fails with -EPROTO and a
 * message saying so.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/smp.h>

static int type = -1;
module_param(type, int, 0444);
MODULE_PARM_DESC(type, "perf type of kprof_testpmu (its sysfs 'type' file)");

/* On the event's CPU, irqs off (IPI): what no client may ever do. */
static void misuse_start_running(void *info)
{
	struct perf_event *event = info;

	event->pmu->start(event, 0);
}

static int __init misuse_init(void)
{
	struct perf_event_attr attr = {
		.type		= type,
		.size		= sizeof(attr),
		.config		= 0,
		.sample_period	= 10 * NSEC_PER_MSEC,
		.pinned		= 1,
	};
	struct perf_event *event;
	int ret = -EPROTO;

	if (type < 0) {
		pr_err("type=N missing: pass kprof_testpmu's perf type\n");
		return -EINVAL;
	}
	event = perf_event_create_kernel_counter(&attr, 0, NULL, NULL, NULL);
	if (IS_ERR(event)) {
		pr_err("cannot create a counter of type %d on CPU 0 (%ld)\n",
		       type, PTR_ERR(event));
		return PTR_ERR(event);
	}
	if (event->state != PERF_EVENT_STATE_ACTIVE) {
		pr_err("the counter is not running (state %d): nothing to misuse\n",
		       event->state);
		ret = -EAGAIN;
		goto release;
	}
	pr_info("starting a running counter through the PMU's ops: this must WARN\n");
	smp_call_function_single(0, misuse_start_running, event, 1);
	pr_err("starting a running counter did not WARN: the state-machine checks do not bite\n");
release:
	perf_event_release_kernel(event);
	return ret;
}

module_init(misuse_init);
MODULE_DESCRIPTION("kprof test bed: a client that misuses the PMU stand-in's ops");
MODULE_LICENSE("GPL");
