// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init reads a kmalloc()ed object after kfree(), a
 * use-after-free, so that the test bed can prove the debug kernel catches
 * one (KASAN, or KFENCE if it sampled the object, reports it; tests/vm/run
 * must exit 125 with the report).  On a kernel without KASAN the read goes
 * unnoticed: only tests/vm/selftest loads it, on the debug kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/slab.h>

static int __init kprof_uaf_test_init(void)
{
	int *p = kmalloc(sizeof(*p) * 16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	p[0] = 1;
	kfree(p);
	/* The compiler must not see (and warn about, or drop) the bad read. */
	OPTIMIZER_HIDE_VAR(p);
	pr_info("reading freed memory on purpose: %d\n", READ_ONCE(p[0]));
	return 0;
}

static void __exit kprof_uaf_test_exit(void)
{
}

module_init(kprof_uaf_test_init);
module_exit(kprof_uaf_test_exit);
MODULE_DESCRIPTION("kprof test bed: a module whose init uses freed memory");
MODULE_LICENSE("GPL");
