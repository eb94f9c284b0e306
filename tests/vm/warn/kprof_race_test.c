// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init increments one plain int in a loop while an
 * hrtimer on the same CPU increments it too, a data race between a task
 * and an interrupt, so that the test bed can prove the kcsan kernel
 * catches one (KCSAN reports it; tests/vm/run must exit 125 with the
 * report).  kprof.ko must never spin with preemption off; this module
 * does, on purpose, for a second.
 *
 * Why a task and an interrupt on one CPU, not two CPUs: KCSAN stops one
 * access in thousands and waits up to kcsan.udelay_task (80 us) for
 * another access to the same memory.  The guest's vCPUs take turns on one
 * emulator thread, so the other vCPU runs inside that wait only when the
 * turn happens to pass there (a race of two CPUs was reported in about one
 * run in four).  With kcsan.interrupt_watcher=1, which tests/vm/run gives
 * the kcsan kernel, the wait keeps interrupts on, and a timer firing every
 * RACE_TICK_NS lands in nearly every wait: the first few hundred watched
 * increments of the second each give it the chance.  On a kernel without
 * KCSAN the race goes unnoticed: only tests/vm/selftest loads it, on the
 * kcsan kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/preempt.h>

#define RACE_MS		1000
#define RACE_TICK_NS	(10 * NSEC_PER_USEC)

static int kprof_race_var;
static struct hrtimer kprof_race_timer;

/* The interrupt's side: a plain increment, on purpose. */
static enum hrtimer_restart kprof_race_tick(struct hrtimer *t)
{
	kprof_race_var++;
	hrtimer_forward_now(t, ns_to_ktime(RACE_TICK_NS));
	return HRTIMER_RESTART;
}

static int __init kprof_race_test_init(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(RACE_MS);

	hrtimer_init(&kprof_race_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	kprof_race_timer.function = kprof_race_tick;
	/* The task stays on the CPU the pinned timer fires on. */
	preempt_disable();
	hrtimer_start(&kprof_race_timer, ns_to_ktime(RACE_TICK_NS),
		      HRTIMER_MODE_REL_PINNED_HARD);
	while (time_before(jiffies, end)) {
		kprof_race_var++;	/* the task's side, plain */
		cpu_relax();
	}
	preempt_enable();
	hrtimer_cancel(&kprof_race_timer);
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
