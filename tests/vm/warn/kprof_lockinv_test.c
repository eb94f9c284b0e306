// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init takes two mutexes in one order, then in the
 * other (one thread, so it never deadlocks), a lock inversion that lockdep
 * reports as a possible circular locking dependency, so that the test bed
 * can prove the debug kernel catches one (tests/vm/run must exit 125 with
 * the report).  Only tests/vm/selftest loads it, on the debug kernel.
 * With filler_kb=N it then logs N KiB of lines (a test module may flood
 * the log; kprof never does), so that the report is followed by more log
 * than a pipe holds: the runner must still print it and exit 125.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(kprof_lockinv_a);
static DEFINE_MUTEX(kprof_lockinv_b);

static unsigned int filler_kb;
module_param(filler_kb, uint, 0444);
MODULE_PARM_DESC(filler_kb, "KiB of log lines to print after the inversion");

/* About eight lines a KiB: the timestamp, this prefix and 100 dots each. */
static void kprof_lockinv_fill_log(void)
{
	unsigned int i;

	for (i = 0; i < filler_kb * 8; i++)
		pr_info("filler %6u %.100s\n", i,
			"....................................................................................................");
}

static int __init kprof_lockinv_test_init(void)
{
	pr_info("taking two locks in both orders on purpose\n");
	mutex_lock(&kprof_lockinv_a);
	mutex_lock(&kprof_lockinv_b);
	mutex_unlock(&kprof_lockinv_b);
	mutex_unlock(&kprof_lockinv_a);

	mutex_lock(&kprof_lockinv_b);
	mutex_lock(&kprof_lockinv_a);
	mutex_unlock(&kprof_lockinv_a);
	mutex_unlock(&kprof_lockinv_b);

	kprof_lockinv_fill_log();
	return 0;
}

static void __exit kprof_lockinv_test_exit(void)
{
}

module_init(kprof_lockinv_test_init);
module_exit(kprof_lockinv_test_exit);
MODULE_DESCRIPTION("kprof test bed: a module whose init inverts a lock order");
MODULE_LICENSE("GPL");
