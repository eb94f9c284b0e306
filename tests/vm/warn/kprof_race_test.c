// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init has two CPUs increment one plain int at once,
 * a data race, so that the test bed can prove the kcsan kernel catches one
 * (KCSAN reports it; tests/vm/run must exit 125 with the report).  Each
 * side goes on until KCSAN has had time to watch it: a few seconds, far
 * above the delay with which a watchpoint waits for the other CPU
 * (kcsan.udelay_task, 80 us).  On a kernel without KCSAN the race goes
 * unnoticed: only tests/vm/selftest loads it, on the kcsan kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/smp.h>

#define RACE_MS	3000

static int kprof_race_var;

/* Plain increments, on purpose, until @end. */
static void kprof_race_spin(unsigned long end)
{
	while (time_before(jiffies, end)) {
		kprof_race_var++;
		cpu_relax();
	}
}

static int kprof_race_thread(void *arg)
{
	kprof_race_spin((unsigned long)arg);
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int __init kprof_race_test_init(void)
{
	unsigned long end = jiffies + msecs_to_jiffies(RACE_MS);
	struct task_struct *t;
	unsigned int other;

	other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	if (other >= nr_cpu_ids)
		return -ENODEV;
	t = kthread_create(kprof_race_thread, (void *)end, "kprof_race");
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, other);
	wake_up_process(t);
	kprof_race_spin(end);
	kthread_stop(t);
	pr_info("raced on purpose: %d\n", kprof_race_var);
	return 0;
}

static void __exit kprof_race_test_exit(void)
{
}

module_init(kprof_race_test_init);
module_exit(kprof_race_test_exit);
MODULE_DESCRIPTION("kprof test bed: a module whose init races two CPUs on one variable");
MODULE_LICENSE("GPL");
