// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_hold: holds one task where kprof is between two steps a test
 * wants something to happen between, and lets it go on when the test says
 * so.  TEST-ONLY code: never linked into kprof.ko, and it does what
 * kprof.ko must not (a kprobe, a busy-wait with preemption or interrupts
 * off, in NMI context too).
 *
 * A kprobe on `symbol` (given at load; capable() by default) acts only
 * for the task whose pid was written to `pid` (in interrupt context: the
 * task interrupted), only when the probed call's first argument is `arg0`
 * (-1: any), only when a kprof frame is on the stack, and once per write
 * to `pid`: it names that frame in `caller`, sets `entered` and spins
 * until `release` is written or `timeout_ms` passes (`timed_out`).  The
 * test keeps everything it needs meanwhile off the held CPU.  Its users:
 *
 *  - knob_race_test, symbol=capable arg0=CAP_SYS_ADMIN: a write of
 *    cpu_time_max_percent=0 asks capable(CAP_SYS_ADMIN) in
 *    kprof_knobs_set(), after checking the write on a copy of the limits
 *    and before storing it;
 *  - stats_snapshot_test, symbol=kprof_throttle_admit: the overflow
 *    handler calls it after counting the overflow and before counting
 *    its outcome;
 *  - session_race_test, symbol=kprof_bufs_read: a read() at its copy,
 *    its session's read_lock held and its buffer set referenced.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <asm/processor.h>

#define HOLD_FRAMES	24

static char *symbol = "capable";
static int hold_pid;
static long arg0 = -1;
static int entered;
static int release;
static int timed_out;
static unsigned int timeout_ms = 10000;
static char caller[KSYM_SYMBOL_LEN];

static int hold_pid_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_int(val, kp);

	if (ret)
		return ret;
	WRITE_ONCE(entered, 0);
	WRITE_ONCE(release, 0);
	WRITE_ONCE(timed_out, 0);
	return 0;
}

static const struct kernel_param_ops hold_pid_ops = {
	.set = hold_pid_set,
	.get = param_get_int,
};
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to hold callers of (at load)");
module_param_cb(pid, &hold_pid_ops, &hold_pid, 0644);
MODULE_PARM_DESC(pid, "the task to hold (0: none); a write arms the hold once");
module_param(arg0, long, 0644);
MODULE_PARM_DESC(arg0, "hold only calls whose first argument is this (-1: any)");
module_param(entered, int, 0444);
MODULE_PARM_DESC(entered, "1 once the task is held");
module_param(release, int, 0644);
MODULE_PARM_DESC(release, "write 1 to let the held task go on");
module_param(timed_out, int, 0444);
MODULE_PARM_DESC(timed_out, "1 if the hold ended by timeout_ms, not by release");
module_param(timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "longest hold (ms)");
module_param_string(caller, caller, sizeof(caller), 0444);
MODULE_PARM_DESC(caller, "the kprof frame the held call came from");

/* The innermost frame of kprof.ko on this task's stack, into caller[]. */
static bool hold_from_kprof(void)
{
	unsigned long entries[HOLD_FRAMES];
	char sym[KSYM_SYMBOL_LEN];
	unsigned int i, n;

	n = stack_trace_save(entries, HOLD_FRAMES, 0);
	for (i = 0; i < n; i++) {
		sprint_symbol(sym, entries[i]);
		if (strstr(sym, " [kprof]")) {
			strscpy(caller, sym, sizeof(caller));
			return true;
		}
	}
	return false;
}

static int hold_pre(struct kprobe *p, struct pt_regs *regs)
{
	u64 start, limit;

	if (!READ_ONCE(hold_pid) || task_pid_nr(current) != READ_ONCE(hold_pid) ||
	    (READ_ONCE(arg0) != -1 && regs->di != (unsigned long)READ_ONCE(arg0)) ||
	    READ_ONCE(entered) ||
	    !hold_from_kprof())
		return 0;
	WRITE_ONCE(entered, 1);
	start = ktime_get_mono_fast_ns();
	limit = (u64)READ_ONCE(timeout_ms) * NSEC_PER_MSEC;
	while (!READ_ONCE(release)) {
		if (ktime_get_mono_fast_ns() - start > limit) {
			WRITE_ONCE(timed_out, 1);
			break;
		}
		cpu_relax();
	}
	WRITE_ONCE(hold_pid, 0);
	return 0;
}

static struct kprobe hold_kp = {
	.pre_handler = hold_pre,
};

static int __init hold_init(void)
{
	int ret;

	hold_kp.symbol_name = symbol;
	ret = register_kprobe(&hold_kp);
	if (ret)
		pr_err("cannot probe %s() (%d): needs CONFIG_KPROBES, and the function in kallsyms\n",
		       symbol, ret);
	return ret;
}

static void __exit hold_exit(void)
{
	unregister_kprobe(&hold_kp);
}

module_init(hold_init);
module_exit(hold_exit);
MODULE_DESCRIPTION("kprof test bed: hold a task between two steps of kprof");
MODULE_LICENSE("GPL");
