// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init takes two mutexes in one order, then in the
 * other (one thread, so it never deadlocks), a lock inversion that lockdep
 * reports as a possible circular locking dependency, so that the test bed
 * can prove the debug kernel catches one (tests/vm/run must exit 125 with
 * the report).  Only tests/vm/selftest loads it, on the debug kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/mutex.h>

static DEFINE_MUTEX(kprof_lockinv_a);
static DEFINE_MUTEX(kprof_lockinv_b);

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
	return 0;
}

static void __exit kprof_lockinv_test_exit(void)
{
}

module_init(kprof_lockinv_test_init);
module_exit(kprof_lockinv_test_exit);
MODULE_DESCRIPTION("kprof test bed: a module whose init inverts a lock order");
MODULE_LICENSE("GPL");
