// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_cdev.c - the /dev/kprof character device: open, release, mmap,
 * poll, read and the ioctl dispatch.
 *
 * Locking: kprof.lock serializes the control path (ioctls, open,
 * release).  Nothing that can fault on user memory runs under it: ioctls
 * copy in before taking it and copy out after dropping it, and read() only
 * takes a reference on the buffers under it.  ->mmap, called with
 * mmap_lock held, takes kprof_map_lock instead (see there).  poll() takes
 * no lock: STOP holds kprof.lock across synchronize_rcu() and CPU
 * hotplug, and a poller must not wait for that (see kprof_poll()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cdev.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kprof.h"
#include "kprof_compat.h"

/*
 * Serializes read()'s copies with each other and with START's emptying of
 * the buffers for a new owner (taken inside kprof.lock there, without it
 * in read(), which may fault on user memory under it).
 */
static DEFINE_MUTEX(kprof_read_lock);

/* The group granted access by the group= parameter, or INVALID_GID. */
static kgid_t kprof_group;

/*
 * kprof_map_lock: what ->mmap needs (the owner, the buffer set, the
 * mapping counts START and SET_CONFIG check).  ->mmap runs under
 * mmap_lock, and kprof.lock is held while START, STOP and GET_INFO take
 * cpu_hotplug_lock, which perf core orders before mmap_lock
 * (cpu_hotplug_lock -> pmus_lock -> cpuctx_mutex, and perf's ioctls copy
 * to user under cpuctx_mutex).  Taking kprof.lock in ->mmap closed that
 * circle (lockdep on the debug kernel: mmap_lock -> kprof.lock ->
 * cpu_hotplug_lock -> pmus_lock -> cpuctx_mutex -> mmap_lock).  This one
 * is a leaf: taken inside kprof.lock or mmap_lock, nothing taken under it.
 * kprof_owner and kprof.session->bufs change under both locks; either one is
 * enough to read them.
 */
static DEFINE_MUTEX(kprof_map_lock);

/*
 * The file that started the running session, NULL while stopped (set just
 * before the events start, so no other file maps the buffers meanwhile).
 * Only it may stop, reconfigure or drain the session.
 */
static struct kprof_file *kprof_owner;

/*
 * The file whose session the buffers hold, from its START until it is
 * released (so it may drain them after STOP), NULL when they hold none.
 * Only it may map or read() them: an earlier session's records are its
 * owner's, whoever opens the device next.  Changes under both locks.
 */
static struct kprof_file *kprof_data_owner;

/* -EBUSY if a session runs (or starts) that @f did not start. */
static int kprof_check_owner(struct kprof_file *f)
{
	lockdep_assert(lockdep_is_held(&kprof.lock) ||
		       lockdep_is_held(&kprof_map_lock));
	return kprof_owner && kprof_owner != f ? -EBUSY : 0;
}

/* -EBUSY if the buffers hold a session of a file other than @f. */
static int kprof_check_reader(struct kprof_file *f)
{
	lockdep_assert(lockdep_is_held(&kprof.lock) ||
		       lockdep_is_held(&kprof_map_lock));
	return kprof_data_owner && kprof_data_owner != f ? -EBUSY : 0;
}

static void kprof_set_owner(struct kprof_file *f)
{
	lockdep_assert_held(&kprof.lock);
	mutex_lock(&kprof_map_lock);
	kprof_owner = f;
	mutex_unlock(&kprof_map_lock);
}

/* ---- ioctl helpers ---- */

/* The size the caller's struct says it has, for output structs. */
static int kprof_get_usize(void __user *uarg, u32 ver0, u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize < ver0)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return 0;
}

/* Copy a struct in with the size rules of the UAPI header. */
static int kprof_copy_in(void *dst, size_t ksize, void __user *uarg, u32 ver0)
{
	u32 usize;
	int ret;

	ret = kprof_get_usize(uarg, ver0, &usize);
	if (ret)
		return ret;
	return copy_struct_from_user(dst, ksize, uarg, usize);
}

/* Copy out min(usize, ksize) bytes, zeroing the rest of a larger struct. */
static int kprof_copy_out(void __user *uarg, u32 usize, const void *src,
			  size_t ksize)
{
	if (copy_to_user(uarg, src, min_t(size_t, usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static struct kprof_bufs *kprof_bufs_replace(struct kprof_bufs *bufs)
{
	lockdep_assert_held(&kprof.lock);
	lockdep_assert_held(&kprof_map_lock);
	return kprof_session_set_bufs(kprof.session, bufs);
}

/* ---- ioctls ---- */

static long kprof_ioc_get_info(void __user *uarg)
{
	struct kprof_info info = {};
	unsigned int cpu;
	u32 usize;
	int ret;

	ret = kprof_get_usize(uarg, KPROF_INFO_SIZE_VER0, &usize);
	if (ret)
		return ret;

	info.size = sizeof(info);
	info.version = KPROF_ABI_VERSION;
	info.nr_cpu_ids = nr_cpu_ids;
	info.page_size = PAGE_SIZE;
	info.hz = HZ;
	info.tick_nsec = TICK_NSEC;

	mutex_lock(&kprof.lock);
	info.mmap_stride = kprof.session->bufs->region_size;
	info.data_size = (u64)kprof.session->bufs->pages << PAGE_SHIFT;
	if (kprof.session->running)
		info.flags |= KPROF_INFO_RUNNING;
	/* Events come and go with hotplug, under the hotplug lock. */
	cpus_read_lock();
	for_each_possible_cpu(cpu)
		if (per_cpu_ptr(kprof.session->pcpu, cpu)->event)
			info.online_mask[cpu / 64] |= 1ULL << (cpu % 64);
	cpus_read_unlock();
	mutex_unlock(&kprof.lock);

	return kprof_copy_out(uarg, usize, &info, sizeof(info));
}

static long kprof_ioc_set_config(struct kprof_file *f, void __user *uarg)
{
	struct kprof_bufs *bufs, *old = NULL;
	struct kprof_config cfg;
	cpumask_var_t cpus;
	bool mapped;
	int ret;

	ret = kprof_copy_in(&cfg, sizeof(cfg), uarg, KPROF_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	cfg.size = sizeof(cfg);
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;

	mutex_lock(&kprof.lock);
	/*
	 * A stopped session's buffers stay its file's until that file is
	 * released or STARTs again: it may still be draining them with
	 * read(), which would find new, empty buffers in their place.
	 */
	if (kprof.session->running || kprof_check_reader(f)) {
		ret = -EBUSY;
		goto unlock;
	}
	ret = kprof_config_validate(&cfg);
	if (ret)
		goto unlock;

	/*
	 * New buffers for other sizes or more CPUs; for fewer, unless they
	 * are mapped: mapped pages cannot change under the reader, and the
	 * CPUs dropped keep a buffer nothing writes.
	 */
	kprof_config_cpus(&cfg, cpus);
	/* No mmap of the set being replaced, between the check and the swap. */
	mutex_lock(&kprof_map_lock);
	mapped = atomic_read(&kprof.session->bufs->mapped);
	if (cfg.buffer_pages != kprof.session->bufs->pages ||
	    !cpumask_subset(cpus, &kprof.session->bufs->cpus) ||
	    (!mapped && !cpumask_equal(cpus, &kprof.session->bufs->cpus))) {
		if (mapped) {
			ret = -EBUSY;
			goto unlock_map;
		}
		bufs = kprof_bufs_alloc(cfg.buffer_pages, cfg.watermark, cpus);
		if (IS_ERR(bufs)) {
			ret = PTR_ERR(bufs);
			goto unlock_map;
		}
		old = kprof_bufs_replace(bufs);
	} else {
		kprof_bufs_set_watermark(kprof.session->bufs, cfg.watermark);
	}
	kprof.session->config = cfg;
unlock_map:
	mutex_unlock(&kprof_map_lock);
unlock:
	mutex_unlock(&kprof.lock);
	free_cpumask_var(cpus);
	if (old) {
		/* kprof_poll() reads kprof.session->bufs in an RCU read-side section. */
		synchronize_rcu();
		kprof_bufs_put(old);
	}
	return ret;
}

static long kprof_ioc_get_config(void __user *uarg)
{
	struct kprof_config cfg;
	u32 usize;
	int ret;

	ret = kprof_get_usize(uarg, KPROF_CONFIG_SIZE_VER0, &usize);
	if (ret)
		return ret;
	mutex_lock(&kprof.lock);
	cfg = kprof.session->config;
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &cfg, sizeof(cfg));
}

/*
 * A START that failed leaves no session: the buffers it emptied for a new
 * owner are nobody's, as after a release, so the next file may configure
 * them; those of a same-file START stay that file's to drain.
 */
static void kprof_start_failed(bool fresh)
{
	lockdep_assert_held(&kprof.lock);
	mutex_lock(&kprof_map_lock);
	kprof_owner = NULL;
	if (fresh)
		kprof_data_owner = NULL;
	mutex_unlock(&kprof_map_lock);
}

/*
 * The starting file owns the session.  Buffers another file maps would
 * let it drain the session: refused, as a running session refuses such
 * mappings (kprof_mmap()).
 */
static long kprof_ioc_start(struct kprof_file *f)
{
	int ret = -EBUSY;
	bool fresh;

	mutex_lock(&kprof.lock);
	mutex_lock(&kprof_map_lock);
	if (kprof.session->running ||
	    atomic_read(&kprof.session->bufs->mapped) != atomic_read(&f->mapped)) {
		mutex_unlock(&kprof_map_lock);
		goto unlock;
	}
	/* From here other files' mmap() and read() are refused. */
	kprof_owner = f;
	fresh = kprof_data_owner != f;
	kprof_data_owner = f;
	mutex_unlock(&kprof_map_lock);
	/*
	 * A new owner gets empty buffers.  The same owner's buffers carry on
	 * (data_head continues): its own reader may be draining them right
	 * now through its mapping, and an earlier owner's data was emptied at
	 * that owner's release or is emptied here, while no other file maps
	 * them (checked above) and no read() copies out (kprof_read_lock).
	 */
	if (fresh) {
		mutex_lock(&kprof_read_lock);
		kprof_bufs_reset(kprof.session->bufs);
		mutex_unlock(&kprof_read_lock);
	}
	/* Takes cpu_hotplug_lock: not under kprof_map_lock. */
	ret = kprof_events_start(kprof.session, fresh, f->cred, f->pid_ns);
	if (ret)
		kprof_start_failed(fresh);
unlock:
	mutex_unlock(&kprof.lock);
	return ret;
}

static void kprof_session_stop(void)
{
	lockdep_assert_held(&kprof.lock);
	if (kprof.session->running)
		kprof_events_stop(kprof.session);
	kprof_set_owner(NULL);
}

static long kprof_ioc_stop(struct kprof_file *f)
{
	int ret;

	mutex_lock(&kprof.lock);
	ret = kprof_check_owner(f);
	if (!ret)
		kprof_session_stop();
	mutex_unlock(&kprof.lock);
	return ret;
}

static long kprof_ioc_get_stats(void __user *uarg)
{
	struct kprof_cpu_stats st = {};
	const struct kprof_throttle_limits *l = &kprof.limits;
	u32 usize, cpu;
	int ret;

	ret = kprof_get_usize(uarg, KPROF_CPU_STATS_SIZE_VER0, &usize);
	if (ret)
		return ret;
	if (get_user(cpu, &((struct kprof_cpu_stats __user *)uarg)->cpu))
		return -EFAULT;
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;

	st.size = sizeof(st);
	st.cpu = cpu;
	mutex_lock(&kprof.lock);
	kprof_counters_stats(kprof.session, cpu, &st);
	st.max_sample_rate = READ_ONCE(l->max_sample_rate);
	st.max_samples_per_tick = READ_ONCE(l->max_samples_per_tick);
	st.allowed_ns = READ_ONCE(l->allowed_ns);
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &st, sizeof(st));
}

/*
 * Written by kprof_knobs_set(), the sysfs knobs' setter too, for the
 * fields that differ from those in force: an unchanged field is not
 * written, so a request that repeats the current values leaves a lowering
 * the cost controller made alone.
 */
static long kprof_ioc_set_throttle(struct kprof_file *f, void __user *uarg)
{
	struct kprof_throttle_config t;
	const struct kprof_throttle_limits *l = &kprof.limits;
	u32 fields = KPROF_KNOB_SEMANTICS | KPROF_KNOB_FLAGS;
	int ret;

	ret = kprof_copy_in(&t, sizeof(t), uarg,
			    KPROF_THROTTLE_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if ((t.flags & ~KPROF_THROTTLE_F_ALL) || t.__reserved0 ||
	    memchr_inv(t.__reserved, 0, sizeof(t.__reserved)))
		return -EINVAL;

	mutex_lock(&kprof.lock);
	ret = kprof_check_owner(f);
	if (ret)
		goto unlock;
	if (t.cpu_time_max_percent != l->cpu_time_max_percent)
		fields |= KPROF_KNOB_PERCENT;
	/* The cost controller lowers it without kprof.lock. */
	if (t.max_sample_rate != READ_ONCE(l->max_sample_rate))
		fields |= KPROF_KNOB_RATE;
	ret = kprof_knobs_set(&t, fields, f);
unlock:
	mutex_unlock(&kprof.lock);
	return ret;
}

static long kprof_ioc_get_throttle(void __user *uarg)
{
	struct kprof_throttle_config t = {};
	u32 usize;
	int ret;

	ret = kprof_get_usize(uarg, KPROF_THROTTLE_CONFIG_SIZE_VER0, &usize);
	if (ret)
		return ret;
	t.size = sizeof(t);
	mutex_lock(&kprof.lock);
	t.semantics = kprof.limits.semantics;
	/* The cost controller lowers it without kprof.lock. */
	t.max_sample_rate = READ_ONCE(kprof.limits.max_sample_rate);
	t.cpu_time_max_percent = kprof.limits.cpu_time_max_percent;
	t.flags = kprof.throttle_flags;
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &t, sizeof(t));
}

/*
 * Commands are matched without their size bits: the size of a struct is
 * the one in its 'size' field, so a newer, larger struct still reaches
 * its handler.
 */
#define KPROF_IOC_CMD(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long kprof_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct kprof_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (KPROF_IOC_CMD(cmd)) {
	case KPROF_IOC_CMD(KPROF_IOC_ABI_VERSION):
		return put_user(KPROF_ABI_VERSION, (u32 __user *)uarg);
	case KPROF_IOC_CMD(KPROF_IOC_GET_INFO):
		return kprof_ioc_get_info(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_SET_CONFIG):
		return kprof_ioc_set_config(f, uarg);
	case KPROF_IOC_CMD(KPROF_IOC_GET_CONFIG):
		return kprof_ioc_get_config(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_START):
		return kprof_ioc_start(f);
	case KPROF_IOC_CMD(KPROF_IOC_STOP):
		return kprof_ioc_stop(f);
	case KPROF_IOC_CMD(KPROF_IOC_GET_STATS):
		return kprof_ioc_get_stats(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_SET_THROTTLE):
		return kprof_ioc_set_throttle(f, uarg);
	case KPROF_IOC_CMD(KPROF_IOC_GET_THROTTLE):
		return kprof_ioc_get_throttle(uarg);
	default:
		return -ENOTTY;
	}
}

/* ---- file operations ---- */

/*
 * CPU-wide sampling of every task and of the kernel: what
 * perf_event_open(pid == -1, cpu) allows only with CAP_PERFMON (or
 * CAP_SYS_ADMIN) at perf_event_paranoid 0 and above, decided from the
 * opener's credentials, which it cannot forge.  Never from
 * perf_event_paranoid read by path: that path is looked up in the
 * opener's mount namespace, where it may be anything.  The one other way
 * in is membership of the group the administrator named with group=,
 * as a group may be given a CAP_PERFMON perf binary (perf-security.rst);
 * in_group_p() looks at kernel group ids, which no user namespace can
 * hand out.
 */
static bool kprof_may_open(void)
{
	if (perfmon_capable())
		return true;
	return gid_valid(kprof_group) && in_group_p(kprof_group);
}

/*
 * The credentials the session's events are created under, in the cpuhp
 * thread and START's worker (kprof_events.c): the opener's, so that the
 * PMU's own event_init checks and the LSM hooks the perf core calls
 * (security_perf_event_alloc(), and security_perf_event_open() in
 * find_get_context()'s perf_allow_cpu()) judge the opener, not a kernel
 * thread.  A group member admitted without perfmon_capable() gets
 * CAP_PERFMON raised in this copy: the group is the administrator's grant
 * of CPU-wide profiling, which perf gives a perf_users group as a
 * CAP_PERFMON perf binary (perf-security.rst), and without it
 * perf_allow_cpu() refuses every CPU-wide event at perf_event_paranoid > 0.
 * Nothing else is raised.  Built at open() from current, the opener: the
 * credentials kprof_may_open() judged, wherever the file is passed on.
 */
static const struct cred *kprof_opener_cred(void)
{
	struct cred *cred = prepare_creds();

	if (cred && !perfmon_capable())
		cap_raise(cred->cap_effective, CAP_PERFMON);
	return cred;
}

static int kprof_open(struct inode *inode, struct file *file)
{
	struct kprof_file *f;
	int ret;

	if (!kprof_may_open())
		return -EACCES;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->admin = capable(CAP_SYS_ADMIN);

	ret = nonseekable_open(inode, file);
	if (ret)
		goto free;
	f->cred = kprof_opener_cred();
	if (!f->cred) {
		ret = -ENOMEM;
		goto free;
	}
	/* perf_event_alloc() keeps its creator's, for perf_event_pid(). */
	f->pid_ns = get_pid_ns(task_active_pid_ns(current));
	file->private_data = f;
	return 0;

free:
	kfree(f);
	return ret;
}

/*
 * Last reference to a file (its mappings hold it too): if it owns the
 * session, sampling stops with it.
 */
static int kprof_release(struct inode *inode, struct file *file)
{
	struct kprof_file *f = file->private_data;

	mutex_lock(&kprof.lock);
	if (kprof_owner == f)
		kprof_session_stop();
	/*
	 * Its session's records go with it, emptied while @f still owns
	 * them: until the owner is cleared below, every other file's mmap()
	 * and read() is refused, so none sees a byte of them.  Nothing maps
	 * or reads them meanwhile: only @f could, and its mappings held this
	 * file.
	 */
	if (kprof_data_owner == f) {
		kprof_bufs_reset(kprof.session->bufs);
		mutex_lock(&kprof_map_lock);
		kprof_data_owner = NULL;
		mutex_unlock(&kprof_map_lock);
	}
	mutex_unlock(&kprof.lock);
	put_pid_ns(f->pid_ns);
	put_cred(f->cred);
	kfree(f);
	return 0;
}

static int kprof_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	mutex_lock(&kprof_map_lock);
	ret = kprof_check_reader(file->private_data);
	if (!ret)
		ret = kprof_bufs_mmap(kprof.session->bufs, vma);
	mutex_unlock(&kprof_map_lock);
	return ret;
}

/*
 * Without kprof.lock, which STOP holds across synchronize_rcu() and CPU
 * hotplug.  What it reads:
 *  - kprof.session->running, cleared with release by kprof_events_quiesce() only
 *    after the last LOST records are published, so a poller that sees it
 *    false and the buffers drained has seen every record (EPOLLHUP).  A
 *    poller that still sees it true waits for the watermark, and STOP's
 *    wake_up_all() comes after the clearing.
 *  - kprof.session->bufs, under rcu_read_lock(): SET_CONFIG drops a replaced set
 *    only after synchronize_rcu() (kprof_bufs_replace()).  The file being
 *    polled is open, so the module and its last set stay.
 * The wait queue is added to before these loads, and the wakeups (a
 * watermark crossing, STOP) come after the stores they announce, so none
 * falls between.  START and SET_CONFIG change them while stopped, when
 * poll() returns at once (EPOLLIN or EPOLLHUP): nobody sleeps on them.
 */
static __poll_t kprof_poll(struct file *file, poll_table *wait)
{
	struct kprof_bufs *bufs;
	__poll_t mask = 0;
	bool running;

	poll_wait(file, &kprof.session->wq, wait);
	/* Pairs with the release in kprof_events_quiesce(). */
	running = smp_load_acquire(&kprof.session->running);
	rcu_read_lock();
	/* Pairs with the release in kprof_bufs_replace(). */
	bufs = READ_ONCE(kprof.session->bufs);
	/* Running: a buffer at its watermark; stopped: whatever is left. */
	if (kprof_bufs_readable(bufs, running))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Stopped and drained: nothing more will come, as for a dead event. */
	else if (!running)
		mask |= EPOLLHUP;
	rcu_read_unlock();
	return mask;
}

/*
 * The copy, under kprof_read_lock with the owner checked again under it:
 * the check kprof_read() made under kprof.lock may be stale by now,
 * since another file's START may have taken the buffers in between.
 * START changes the owner first and empties the buffers under
 * kprof_read_lock after, so a reader that still finds @f the owner here
 * copies only @f's records and moves only its own session's data_tail;
 * one that does not gets EBUSY, as it would have at the first check.
 */
static ssize_t kprof_read_owned(struct kprof_file *f, struct kprof_bufs *bufs,
				char __user *ubuf, size_t count)
{
	ssize_t ret;

	ret = mutex_lock_interruptible(&kprof_read_lock);
	if (ret)
		return ret;
	mutex_lock(&kprof_map_lock);
	ret = kprof_check_reader(f);
	mutex_unlock(&kprof_map_lock);
	if (!ret)
		ret = kprof_bufs_read(bufs, ubuf, count);
	mutex_unlock(&kprof_read_lock);
	return ret;
}

static ssize_t kprof_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct kprof_bufs *bufs;
	bool running;
	ssize_t ret;

	for (;;) {
		mutex_lock(&kprof.lock);
		bufs = kprof.session->bufs;
		if (atomic_read(&bufs->mapped) ||
		    kprof_check_reader(file->private_data)) {
			mutex_unlock(&kprof.lock);
			return -EBUSY;
		}
		kprof_bufs_get(bufs);
		running = kprof.session->running;
		mutex_unlock(&kprof.lock);

		ret = kprof_read_owned(file->private_data, bufs, ubuf, count);
		if (ret || !running)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (wait_event_interruptible(kprof.session->wq,
					     !READ_ONCE(kprof.session->running) ||
					     kprof_bufs_readable(bufs, false))) {
			ret = -ERESTARTSYS;
			break;
		}
		kprof_bufs_put(bufs);
	}
	kprof_bufs_put(bufs);
	return ret;
}

static const struct file_operations kprof_fops = {
	.owner = THIS_MODULE,
	.open = kprof_open,
	.release = kprof_release,
	.unlocked_ioctl = kprof_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = kprof_mmap,
	.poll = kprof_poll,
	.read = kprof_read,
};

/* ---- the device node ---- */

/*
 * /dev/kprof is root's, 0600, like /dev/cpu/N/msr; with group= it is
 * root:GID 0660.  devtmpfs creates it with what this returns; udev keeps
 * it unless a rule says otherwise.
 */
static char *kprof_devnode(KPROF_DEVNODE_CONST struct device *dev,
			   umode_t *mode, kuid_t *uid, kgid_t *gid)
{
	/* NULL when the node is being removed. */
	if (!mode)
		return NULL;
	*mode = 0600;
	if (gid_valid(kprof_group)) {
		*mode = 0660;
		*gid = kprof_group;
	}
	return NULL;
}

static const struct device_type kprof_dev_type = {
	.name = "kprof",
	.devnode = kprof_devnode,
};

static struct class kprof_class = {
	.name = "kprof",
};

/* The device and its cdev share a lifetime: the last reference frees both. */
struct kprof_chardev {
	struct device	dev;
	struct cdev	cdev;
};

static struct kprof_chardev *kprof_chardev;

static void kprof_chardev_release(struct device *dev)
{
	kfree(container_of(dev, struct kprof_chardev, dev));
}

/**
 * kprof_cdev_init() - create /dev/kprof
 * @group: the group whose members may open it without CAP_PERFMON, or
 *	   INVALID_GID
 *
 * Return: 0 or -errno.
 */
int kprof_cdev_init(kgid_t group)
{
	struct kprof_chardev *cd;
	dev_t devt;
	int ret;

	kprof_group = group;
	ret = alloc_chrdev_region(&devt, 0, 1, "kprof");
	if (ret)
		return ret;
	ret = class_register(&kprof_class);
	if (ret)
		goto unregister_region;

	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd) {
		ret = -ENOMEM;
		goto unregister_class;
	}
	device_initialize(&cd->dev);
	cd->dev.devt = devt;
	cd->dev.class = &kprof_class;
	cd->dev.type = &kprof_dev_type;
	cd->dev.release = kprof_chardev_release;
	cdev_init(&cd->cdev, &kprof_fops);
	cd->cdev.owner = THIS_MODULE;
	ret = dev_set_name(&cd->dev, "kprof");
	if (ret)
		goto put_device;
	ret = cdev_device_add(&cd->cdev, &cd->dev);
	if (ret)
		goto put_device;
	kprof_chardev = cd;
	return 0;

put_device:
	put_device(&cd->dev);
unregister_class:
	class_unregister(&kprof_class);
unregister_region:
	unregister_chrdev_region(devt, 1);
	return ret;
}

/**
 * kprof_cdev_exit() - remove /dev/kprof; no file is open
 */
void kprof_cdev_exit(void)
{
	dev_t devt = kprof_chardev->dev.devt;

	cdev_device_del(&kprof_chardev->cdev, &kprof_chardev->dev);
	put_device(&kprof_chardev->dev);
	class_unregister(&kprof_class);
	unregister_chrdev_region(devt, 1);
}
