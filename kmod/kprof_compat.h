/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_compat.h - the kernel API differences between the kernels kprof
 * supports (Debian's 6.1, 6.1-rt, 6.12 and the newest 7.x), in one place.
 *
 * Each shim is chosen by what the kernel being built against has, never by
 * its version number: kmod/Kbuild greps the kernel's own headers and
 * defines a KPROF_HAVE_<feature> macro per API it finds, and the wrappers
 * below pick the call that kernel offers.  Callers use only the wrappers.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/device.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/user_namespace.h>
#ifdef KPROF_HAVE_TASK_EXEC_STATE
#include <linux/sched/exec_state.h>
#endif

/* 6.2+: device_type.devnode() takes a const struct device. */
#ifdef KPROF_HAVE_CONST_DEVNODE
#define KPROF_DEVNODE_CONST	const
#else
#define KPROF_DEVNODE_CONST
#endif

/**
 * kprof_hrtimer_setup() - initialise an hrtimer and set its callback
 * @timer: the timer
 * @fn: its callback
 * @clock: the clock it runs on
 * @mode: its mode
 *
 * hrtimer_setup() arrived in 6.13 and hrtimer_init() was removed in 6.15,
 * when hrtimer::function became __private (sparse flags any direct store
 * to it): on kernels without hrtimer_setup() the callback is stored by
 * hand, as hrtimer_setup() itself does.
 */
static inline void kprof_hrtimer_setup(struct hrtimer *timer,
				       enum hrtimer_restart (*fn)(struct hrtimer *),
				       clockid_t clock, enum hrtimer_mode mode)
{
#ifdef KPROF_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/**
 * kprof_vm_flags_mod() - set and clear flags of a VMA being mapped
 * @vma: the VMA, in its ->mmap() (mmap_lock held for writing)
 * @set: flags to set
 * @clear: flags to clear
 *
 * Since 6.3 vm_flags is read-only and changes go through vm_flags_mod().
 */
static inline void kprof_vm_flags_mod(struct vm_area_struct *vma,
				      vm_flags_t set, vm_flags_t clear)
{
#ifdef KPROF_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

/*
 * Tasks without a user context to sample: kernel threads and, since 6.4,
 * every PF_USER_WORKER (io_uring's workers, vhost); before it, io_uring's
 * workers were PF_IO_WORKER alone.  As get_perf_callchain() tests them.
 */
#ifdef PF_USER_WORKER
#define KPROF_NO_USER_CONTEXT	(PF_KTHREAD | PF_USER_WORKER)
#else
#define KPROF_NO_USER_CONTEXT	(PF_KTHREAD | PF_IO_WORKER)
#endif

/**
 * kprof_task_dumpable() - the dumpable state ptrace's rule reads
 * @task: the task; its task_lock() and rcu_read_lock() held
 * @ns: out: the user namespace in which CAP_SYS_PTRACE overrides a
 *	task that is not dumpable
 *
 * What __ptrace_may_access()'s task_still_dumpable() reads: up to 7.2
 * the mm's dumpable mode and user namespace (for a task without an mm,
 * task->user_dumpable and the initial namespace); from 7.3 on, the
 * task's exec_state, which holds both for every task.
 *
 * Return: whether the task is dumpable by its owner (SUID_DUMP_USER,
 * TASK_DUMPABLE_OWNER).
 */
static inline bool kprof_task_dumpable(struct task_struct *task,
				       struct user_namespace **ns)
{
#ifdef KPROF_HAVE_TASK_EXEC_STATE
	const struct task_exec_state *es = rcu_dereference(task->exec_state);

	*ns = es->user_ns;
	return es->dumpable == TASK_DUMPABLE_OWNER;
#else
	struct mm_struct *mm = task->mm;

	if (!mm) {
		*ns = &init_user_ns;
		return task->user_dumpable;
	}
	*ns = mm->user_ns;
	return get_dumpable(mm) == SUID_DUMP_USER;
#endif
}

#endif /* _KPROF_COMPAT_H */
