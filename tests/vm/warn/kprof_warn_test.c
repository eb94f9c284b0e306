// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module: its init triggers a kernel WARNING so that the test bed
 * can prove it notices one (tests/vm/run must exit 125, the guest runs with
 * panic_on_warn=1).  Never loaded outside tests/vm/selftest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/module.h>

static int __init kprof_warn_test_init(void)
{
	pr_info("triggering a WARNING on purpose\n");
	WARN_ON(1);
	return 0;
}

static void __exit kprof_warn_test_exit(void)
{
}

module_init(kprof_warn_test_init);
module_exit(kprof_warn_test_exit);
MODULE_DESCRIPTION("kprof test bed: a module whose init WARNs");
MODULE_LICENSE("GPL");
