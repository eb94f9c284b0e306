// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_cdev.c - the /dev/kprof character device: open, release, mmap,
 * poll, read and the ioctl dispatch.  Each open file acts on its own
 * session only (kprof_session.c).
 *
 * Locking: kprof.lock serializes the control path (ioctls, release).
 * Nothing that can fault on user memory runs under it: ioctls copy in
 * before taking it and copy out after dropping it, and read() only takes
 * a reference on the buffers under it.  ->mmap, called with mmap_lock
 * held, takes kprof.map_lock instead (kprof_session.c says why).  poll()
 * takes no lock: STOP holds kprof.lock across synchronize_rcu() and CPU
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

/* The group granted access by the group= parameter, or INVALID_GID. */
static kgid_t kprof_group;

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

/* ---- ioctls ---- */

static long kprof_ioc_get_info(struct kprof_file *f, void __user *uarg)
{
	struct kprof_info info = {};
	struct kprof_session *s;
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
	s = f->session;
	if (!s) {
		/* The layout the first START's session will have. */
		info.data_size = (u64)kprof.defconfig.buffer_pages << PAGE_SHIFT;
		info.mmap_stride = PAGE_SIZE + info.data_size;
		goto unlock;
	}
	info.mmap_stride = s->bufs->region_size;
	info.data_size = (u64)s->bufs->pages << PAGE_SHIFT;
	if (s->running)
		info.flags |= KPROF_INFO_RUNNING;
	/*
	 * Events come and go with hotplug, under the hotplug lock; a
	 * per-task session's may overflow on every CPU while it runs.
	 */
	cpus_read_lock();
	for_each_possible_cpu(cpu)
		if (per_cpu_ptr(s->pcpu, cpu)->event || s->task_events)
			info.online_mask[cpu / 64] |= 1ULL << (cpu % 64);
	cpus_read_unlock();
unlock:
	mutex_unlock(&kprof.lock);

	return kprof_copy_out(uarg, usize, &info, sizeof(info));
}

static long kprof_ioc_set_config(struct kprof_file *f, void __user *uarg)
{
	struct kprof_config cfg;
	int ret;

	ret = kprof_copy_in(&cfg, sizeof(cfg), uarg, KPROF_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	cfg.size = sizeof(cfg);
	return kprof_session_configure(f, &cfg);
}

/* The caller's session's, or what its first START would use. */
static long kprof_ioc_get_config(struct kprof_file *f, void __user *uarg)
{
	struct kprof_config cfg;
	u32 usize;
	int ret;

	ret = kprof_get_usize(uarg, KPROF_CONFIG_SIZE_VER0, &usize);
	if (ret)
		return ret;
	mutex_lock(&kprof.lock);
	cfg = f->session ? f->session->config : kprof.defconfig;
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &cfg, sizeof(cfg));
}

/*
 * The counters of the caller's session; a file without one gets zeroes,
 * and the limits in force.
 */
static long kprof_ioc_get_stats(struct kprof_file *f, void __user *uarg)
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
	if (f->session)
		kprof_counters_stats(f->session, cpu, &st);
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
 * the cost controller made alone, and changes nothing anyone could be
 * refused.  Applied to every session at once, running or not, as a
 * write of the perf sysctls reaches every event.
 */
static long kprof_ioc_set_throttle(struct kprof_file *f, void __user *uarg)
{
	struct kprof_throttle_config t;
	const struct kprof_throttle_limits *l = &kprof.limits;
	u32 fields = 0;
	int ret;

	ret = kprof_copy_in(&t, sizeof(t), uarg,
			    KPROF_THROTTLE_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if ((t.flags & ~KPROF_THROTTLE_F_ALL) || t.__reserved0 ||
	    memchr_inv(t.__reserved, 0, sizeof(t.__reserved)))
		return -EINVAL;

	mutex_lock(&kprof.lock);
	if (t.semantics != l->semantics)
		fields |= KPROF_KNOB_SEMANTICS;
	if (t.cpu_time_max_percent != l->cpu_time_max_percent)
		fields |= KPROF_KNOB_PERCENT;
	/* The cost controller lowers it without kprof.lock. */
	if (t.max_sample_rate != READ_ONCE(l->max_sample_rate))
		fields |= KPROF_KNOB_RATE;
	if (t.flags != kprof.throttle_flags)
		fields |= KPROF_KNOB_FLAGS;
	ret = fields ? kprof_knobs_set(&t, fields, f) : 0;
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
		return kprof_ioc_get_info(f, uarg);
	case KPROF_IOC_CMD(KPROF_IOC_SET_CONFIG):
		return kprof_ioc_set_config(f, uarg);
	case KPROF_IOC_CMD(KPROF_IOC_GET_CONFIG):
		return kprof_ioc_get_config(f, uarg);
	case KPROF_IOC_CMD(KPROF_IOC_START):
		return kprof_session_start(f);
	case KPROF_IOC_CMD(KPROF_IOC_STOP):
		kprof_session_stop(f);
		return 0;
	case KPROF_IOC_CMD(KPROF_IOC_GET_STATS):
		return kprof_ioc_get_stats(f, uarg);
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
 * Last reference to a file (its mappings hold it too): its session stops
 * and goes with it.
 */
static int kprof_release(struct inode *inode, struct file *file)
{
	struct kprof_file *f = file->private_data;

	kprof_session_release(f);
	put_pid_ns(f->pid_ns);
	put_cred(f->cred);
	kfree(f);
	return 0;
}

/* The caller's own session's regions only; nothing before it has one. */
static int kprof_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct kprof_file *f = file->private_data;
	int ret = -ENODEV;

	mutex_lock(&kprof.map_lock);
	if (f->session)
		ret = kprof_bufs_mmap(f->session->bufs, vma);
	mutex_unlock(&kprof.map_lock);
	return ret;
}

/*
 * Without kprof.lock, which STOP holds across synchronize_rcu() and CPU
 * hotplug.  What it reads, of the file's own session (set once, for the
 * file's life; none yet: nothing will come, EPOLLHUP):
 *  - s->running, cleared with release by kprof_events_quiesce() only
 *    after the last LOST records are published, so a poller that sees it
 *    false and the buffers drained has seen every record (EPOLLHUP).  A
 *    poller that still sees it true waits for the watermark, and STOP's
 *    wake_up_all() comes after the clearing.
 *  - s->bufs, under rcu_read_lock(): SET_CONFIG drops a replaced set
 *    only after synchronize_rcu() (kprof_session_configure()).  The file
 *    being polled is open, so its session and its last set stay.
 * The wait queue is added to before these loads, and the wakeups (a
 * watermark crossing, STOP) come after the stores they announce, so none
 * falls between.  START and SET_CONFIG change them while stopped, when
 * poll() returns at once (EPOLLIN or EPOLLHUP): nobody sleeps on them.
 */
static __poll_t kprof_poll(struct file *file, poll_table *wait)
{
	struct kprof_file *f = file->private_data;
	/* Pairs with the release in kprof_session_create(). */
	struct kprof_session *s = smp_load_acquire(&f->session);
	struct kprof_bufs *bufs;
	__poll_t mask = 0;
	bool running;

	if (!s)
		return EPOLLHUP;
	poll_wait(file, &s->wq, wait);
	/* Pairs with the release in kprof_events_quiesce(). */
	running = smp_load_acquire(&s->running);
	rcu_read_lock();
	/* Pairs with the release in kprof_session_set_bufs(). */
	bufs = READ_ONCE(s->bufs);
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
 * The caller's own session's records; none before it has a session
 * (EOF), EBUSY while it maps any of them.  The copies are serialized
 * with each other and with START's emptying of the buffers by the
 * session's read_lock.
 */
static ssize_t kprof_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct kprof_file *f = file->private_data;
	struct kprof_session *s;
	struct kprof_bufs *bufs;
	bool running;
	ssize_t ret;

	for (;;) {
		mutex_lock(&kprof.lock);
		s = f->session;
		if (!s) {
			mutex_unlock(&kprof.lock);
			return 0;
		}
		bufs = s->bufs;
		if (atomic_read(&bufs->mapped)) {
			mutex_unlock(&kprof.lock);
			return -EBUSY;
		}
		kprof_bufs_get(bufs);
		running = s->running;
		mutex_unlock(&kprof.lock);

		/* @s lives while @file does, and a read() holds it. */
		ret = mutex_lock_interruptible(&s->read_lock);
		if (!ret) {
			ret = kprof_bufs_read(bufs, ubuf, count);
			mutex_unlock(&s->read_lock);
		}
		if (ret || !running)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (wait_event_interruptible(s->wq,
					     !READ_ONCE(s->running) ||
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
