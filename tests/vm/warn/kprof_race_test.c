// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init increments one plain int in a loop while a
 * timer interrupt on the same CPU increments it too, a data race between a task
 * and an interrupt, so that the test bed can prove the kcsan kernel
 * catches one (KCSAN reports it; tests/vm/run must exit 125 with the
 * report).
 *
 * Why a task and an interrupt on one CPU, not two CPUs: KCSAN stops one
 * access in thousands and waits up to kcsan.udelay_task (80 us) for
 * another access to the same memory.  The guest's vCPUs take turns on one
 * emulator thread, so the other vCPU runs inside that wait only when the
 * turn happens to pass there (a race of two CPUs was reported in about one
 * run in four).  With kcsan.interrupt_watcher=1, which tests/vm/run gives
 * the kcsan kernel, the wait keeps interrupts on, and a timer firing every
 * RACE_TICK_NS lands in most waits, and the loop's second makes
 * hundreds of them.  On a kernel without
 * KCSAN the race goes unnoticed: only tests/vm/selftest loads it, on the
 * kcsan kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/smp.h>

#define RACE_MS		1000
#define RACE_TICK_NS	20000

static int kprof_race_var;

/*
 * The interrupt's side, a plain increment on purpose: the overflow of a
 * cpu-clock counter, an hrtimer in hard interrupt context (a counter, not
 * a bare hrtimer: its API is the same on every kernel of the test bed).
 */
static void kprof_race_tick(struct perf_event *event,
			    struct perf_sample_data *data, struct pt_regs *regs)
{
	kprof_race_var++;
}

static int __init kprof_race_test_init(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = RACE_TICK_NS,
		.pinned = 1,
	};
	unsigned long end = jiffies + msecs_to_jiffies(RACE_MS);
	struct perf_event *event;

	/* The task stays on the CPU its counter's timer fires on. */
	migrate_disable();
	event = perf_event_create_kernel_counter(&attr, smp_processor_id(),
						 NULL, kprof_race_tick, NULL);
	if (IS_ERR(event)) {
		migrate_enable();
		return PTR_ERR(event);
	}
	while (time_before(jiffies, end)) {
		kprof_race_var++;	/* the task's side, plain */
		cpu_relax();
	}
	perf_event_release_kernel(event);
	migrate_enable();
	pr_info("raced on purpose: %d\n", kprof_race_var);
	return 0;
}

static void __exit kprof_race_test_exit(void)
{
}

module_init(kprof_race_test_init);
module_exit(kprof_race_test_exit);
MODULE_DESCRIPTION("kprof test bed: a module whose init races a task and an interrupt on one variable");
MODULE_LICENSE("GPL");
