// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_target.c - the events of a per-task session (KPROF_TARGET_TASK):
 * one kernel counter on the target task with attr.inherit, as
 * perf_event_open(pid, cpu -1) makes one for perf record -- CMD, and with
 * KPROF_TARGET_THREADS one on each other thread of its process, as perf
 * record -p makes them.
 *
 * What the kernel does with it (kernel/events/core.c, 6.1 and later):
 *  - At every fork and clone of a task that has it, perf_event_init_task()
 *    gives the child an event of its own (inherit_event()), whose parent
 *    is this event and whose overflow_handler and
 *    overflow_handler_context are copied from it: every descendant's
 *    overflows reach kprof_overflow_task() with the session.
 *  - Each such event has its own hw (period, hw.interrupts): the kernel's
 *    per-tick limit counts per event; kprof's own counts per CPU and
 *    session (kprof_throttle.c says how).
 *  - An inherited event goes when its task exits (perf_event_exit_task(),
 *    which folds its count into the parent).  The target's own event
 *    stays, in state EXIT, until kprof releases it; releasing it
 *    (perf_event_release_kernel()) marks it DEAD under its child_mutex,
 *    so that inherit_event() adds no child any more, and removes every
 *    remaining child from its task's context before freeing it: once it
 *    returns, no event of the session is left to overflow.
 *  - exec() of a setuid program (a mm that is not SUID_DUMP_USER) drops
 *    the task's events (perf_event_exit_task() from begin_new_exec()):
 *    what becomes privileged stops being sampled.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

#include "kprof.h"

/*
 * The task @nr names in @ns, the opener's pid namespace, referenced; NULL
 * if none.  As perf_event_open()'s find_lively_task_by_vpid(), in the
 * namespace of whoever opened the file rather than of the caller.
 */
static struct task_struct *kprof_target_find(pid_t nr, struct pid_namespace *ns)
{
	struct task_struct *task;

	rcu_read_lock();
	task = get_pid_task(find_pid_ns(nr, ns), PIDTYPE_PID);
	rcu_read_unlock();
	return task;
}

/*
 * May the current credentials (the opener's, overridden) read @task as
 * ptrace_may_access(@task, PTRACE_MODE_READ_REALCREDS) would let them?
 * perf_event_open() asks that of a per-task event; kprof asks it of
 * every opener, also of one perfmon_capable() (kprof gives a group
 * member CAP_PERFMON, and that grant must not reach other users' tasks).
 *
 * The kernel does not export ptrace_may_access() to modules, so this is
 * its 6.1-7.x logic for that mode from exported pieces: the DAC rule of
 * __ptrace_may_access() (same real uid and gid as all of the target's,
 * or CAP_SYS_PTRACE over its user namespace), commoncap's rule
 * (cap_ptrace_access_check(): the target's permitted capabilities within
 * the caller's, or CAP_SYS_PTRACE) and the dumpable rule.  Not consulted:
 * the other LSMs' ptrace_access_check hooks (SELinux, AppArmor, Smack;
 * Yama restricts only PTRACE_MODE_ATTACH), and the exemption of the
 * caller's own thread group (the ioctl's caller need not be the opener
 * whose credentials are judged, so it is not given).  The LSMs'
 * perf_event hooks still judge the event as it is created.
 *
 * Context: process context, @task's exec_update_lock held for reading
 * (its credentials do not change under exec meanwhile).
 */
static bool kprof_target_may_read(struct task_struct *task)
{
	const struct cred *cred = current_cred(), *tcred;
	struct user_namespace *ns;
	bool ok;

	rcu_read_lock();
	tcred = __task_cred(task);
	/* REALCREDS: the caller's real ids, as PTRACE_MODE_READ_REALCREDS. */
	ok = uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	     uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	     gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid);
	/* REALCREDS: the permitted set, as cap_ptrace_access_check(). */
	ok = ok && cred->user_ns == tcred->user_ns &&
	     cap_issubset(tcred->cap_permitted, cred->cap_permitted);
	if (!ok)
		ok = ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return false;

	/*
	 * The dumpable state after the credentials, as __ptrace_may_access()
	 * reads it (pairs with commit_creds()'s write barrier): a task that
	 * drops privileges and becomes non-dumpable is not read as dumpable
	 * with its old credentials.  Where the kernel keeps it differs:
	 * kprof_task_dumpable().
	 */
	smp_rmb();
	task_lock(task);
	rcu_read_lock();
	ok = kprof_task_dumpable(task, &ns) || ns_capable(ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	task_unlock(task);
	return ok;
}

/*
 * Every thread of @task's process but @task, referenced, into @out (room
 * for @max).  Returns how many there are, which may be more than @max.
 * Context: @task's exec_update_lock held: no exec() changes the group.
 */
static unsigned int kprof_target_threads(struct task_struct *task,
					 struct task_struct **out,
					 unsigned int max)
{
	struct task_struct *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_thread(task, t) {
		if (t == task)
			continue;
		if (n < max)
			out[n] = get_task_struct(t);
		n++;
	}
	rcu_read_unlock();
	return n;
}

static void kprof_target_put_threads(struct task_struct **threads,
				     unsigned int n)
{
	while (n--)
		put_task_struct(threads[n]);
	kfree(threads);
}

/*
 * The other threads of @task's process, referenced, in *@threads (NULL
 * and 0 without KPROF_TARGET_THREADS).  A thread created during the walk
 * may be missed, as perf record -p misses one created while it reads
 * /proc/PID/task; one created from then on by a thread with an event
 * inherits it.  Returns how many, or -ENOMEM.
 */
static int kprof_target_snapshot(struct kprof_session *s,
				 struct task_struct *task,
				 struct task_struct ***threads)
{
	unsigned int n, max = 0;

	*threads = NULL;
	if (!(s->config.target_flags & KPROF_TARGET_THREADS))
		return 0;
	for (;;) {
		n = kprof_target_threads(task, *threads, max);
		if (n <= max)
			return n;
		/* More than counted: again, with room for some more. */
		kprof_target_put_threads(*threads, max);
		max = n + 16;
		*threads = kcalloc(max, sizeof(**threads), GFP_KERNEL);
		if (!*threads)
			return -ENOMEM;
	}
}

/*
 * @task's event, inherited by what it creates, if the current (the
 * opener's) credentials may read @task.  The session is the handler's
 * context: the events inherited from it run on any CPU, and
 * kprof_overflow_task() picks the producer of the one it runs on.
 */
static struct perf_event *kprof_target_create(struct kprof_session *s,
					      struct perf_event_attr *attr,
					      struct task_struct *task)
{
	if (!kprof_target_may_read(task))
		return ERR_PTR(-EACCES);
	return perf_event_create_kernel_counter(attr, -1, task,
						kprof_overflow_task, s);
}

/**
 * kprof_target_start() - create a per-task session's events
 * @s: the session, starting: config (KPROF_TARGET_TASK), attr, cred and
 *	pid_ns set, every producer ready (an overflow may come at once)
 *
 * As perf_event_open() does for a per-task event: the pid is resolved in
 * the opener's pid namespace, and the ptrace check and the creation both
 * happen under the target's exec_update_lock, so an exec() changing its
 * credentials (and dropping its events) comes before both or after both;
 * the lock is the process's, so it covers every thread
 * KPROF_TARGET_THREADS adds, each checked on its own credentials (threads
 * may differ) and given its own event, as perf record -p opens one per
 * thread.  A thread that exits meanwhile is skipped (-ESRCH).
 * The events are created enabled, unpinned and inherited, as perf
 * record's per-task events: a task the target forks between creation and
 * an enable would inherit its event disabled, never to be enabled, and a
 * pinned task event that finds no counter at a context switch goes to the
 * error state for good, where an unpinned one waits for its turn.  The
 * PMU was judged by the preflight (kprof_events.c) on a disabled CPU
 * event.
 *
 * Context: process context, kprof.lock held.
 * Return: 0 with s->task_events set, or -ESRCH if no such task or it
 * exits, -EACCES without read access to it or one of its threads, -EINTR
 * if a signal interrupted the wait for exec_update_lock, -ENOMEM, or the
 * errno of creating an event; none is left then.
 */
int kprof_target_start(struct kprof_session *s)
{
	struct perf_event_attr attr = s->attr;
	struct task_struct *task, **threads;
	struct perf_event **events, *event;
	unsigned int nr = 0, i;
	const struct cred *old;
	int n, ret;

	attr.inherit = 1;
	attr.pinned = 0;
	attr.disabled = 0;

	task = kprof_target_find(s->config.target_pid, s->pid_ns);
	if (!task)
		return -ESRCH;
	ret = down_read_interruptible(&task->signal->exec_update_lock);
	if (ret)
		goto put_task;
	n = kprof_target_snapshot(s, task, &threads);
	if (n < 0) {
		ret = n;
		goto unlock;
	}
	events = kcalloc(n + 1, sizeof(*events), GFP_KERNEL);
	if (!events) {
		ret = -ENOMEM;
		goto put_threads;
	}

	/*
	 * The named task first, then the other threads.  A thread that has
	 * exited since the walk is skipped (-ESRCH); so is the named one if
	 * it has and others live (a process whose main thread exited, as
	 * perf record -p goes on with the threads it finds), but START fails
	 * with -ESRCH when no thread is left.
	 */
	old = override_creds(s->cred);
	for (i = 0, ret = 0; !ret && i <= n; i++) {
		event = kprof_target_create(s, &attr, i ? threads[i - 1] : task);
		ret = PTR_ERR_OR_ZERO(event);
		if (!ret)
			events[nr++] = event;
		else if (ret == -ESRCH)
			ret = 0;
	}
	revert_creds(old);
	if (!ret && !nr)
		ret = -ESRCH;
	if (ret)
		goto release_events;
	s->task_events = events;
	s->nr_task_events = nr;
	goto put_threads;

release_events:
	while (nr--)
		perf_event_release_kernel(events[nr]);
	kfree(events);
put_threads:
	kprof_target_put_threads(threads, n);
unlock:
	up_read(&task->signal->exec_update_lock);
put_task:
	put_task_struct(task);
	return ret;
}

/**
 * kprof_target_stop() - release a per-task session's events
 * @s: the session, stopping (no producer active)
 *
 * Releasing an event also releases every event its target's descendants
 * inherited and still have: perf_event_release_kernel() removes each from
 * its task's context before returning, and none can be inherited once it
 * began (kprof_target.c's top).  A handler still running on another CPU
 * is waited for by kprof_events_quiesce()'s synchronize_rcu().
 *
 * Context: process context, kprof.lock held.
 */
void kprof_target_stop(struct kprof_session *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_task_events; i++)
		perf_event_release_kernel(s->task_events[i]);
	kfree(s->task_events);
	s->task_events = NULL;
	s->nr_task_events = 0;
}
