// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_main.c - module init/exit, parameters and the /dev/kprof device.
 *
 * Locking: kprof.lock serializes the control path (ioctls, mmap, open,
 * release).  It nests inside mmap_lock (->mmap is called with it held), so
 * nothing that can fault on user memory runs under it: ioctls copy in
 * before taking it and copy out after dropping it, and read() only takes
 * a reference on the buffers under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "kprof.h"

struct kprof_state kprof = {
	.lock = __MUTEX_INITIALIZER(kprof.lock),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(kprof.wq),
};

struct kprof_cpu __percpu *kprof_pcpu;

/* Serializes read() consumers; taken without kprof.lock. */
static DEFINE_MUTEX(kprof_read_lock);

/* Privilege decided at open(). */
struct kprof_file {
	bool	kernel_ok;	/* may see kernel addresses */
	bool	admin;		/* CAP_SYS_ADMIN: debug ioctls */
};

/* ---- module parameters: the configuration at insmod ---- */

static char *event = "cpu-clock";
module_param(event, charp, 0444);
MODULE_PARM_DESC(event, "event: cpu-clock, task-clock, cycles, instructions, cache-misses, branch-misses, ref-cycles or rNNNN (hex)");

static ulong freq;
module_param(freq, ulong, 0444);
MODULE_PARM_DESC(freq, "sampling frequency in Hz (default 1000 unless period is given)");

static ulong period;
module_param(period, ulong, 0444);
MODULE_PARM_DESC(period, "sampling period in events (ns for clock events)");

static bool callchain = true;
module_param(callchain, bool, 0444);
MODULE_PARM_DESC(callchain, "record kernel and user callchains");

static uint kernel_stack = KPROF_MAX_STACK;
module_param(kernel_stack, uint, 0444);
MODULE_PARM_DESC(kernel_stack, "max kernel frames per sample (1..127)");

static uint user_stack = KPROF_MAX_STACK;
module_param(user_stack, uint, 0444);
MODULE_PARM_DESC(user_stack, "max user frames per sample (1..127)");

static char *cpus = "";
module_param(cpus, charp, 0444);
MODULE_PARM_DESC(cpus, "CPU list to sample, e.g. 0-1,3 (default: all)");

static bool exclude_user;
module_param(exclude_user, bool, 0444);
MODULE_PARM_DESC(exclude_user, "do not sample user mode");

static bool exclude_kernel;
module_param(exclude_kernel, bool, 0444);
MODULE_PARM_DESC(exclude_kernel, "do not sample kernel mode");

static uint precise_ip;
module_param(precise_ip, uint, 0444);
MODULE_PARM_DESC(precise_ip, "perf_event_attr.precise_ip (0..3)");

static uint buffer_pages = 64;
module_param(buffer_pages, uint, 0444);
MODULE_PARM_DESC(buffer_pages, "data pages per CPU buffer, a power of two");

static uint watermark;
module_param(watermark, uint, 0444);
MODULE_PARM_DESC(watermark, "wake readers every N bytes (default: half a buffer)");

static uint max_sample_rate = KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE;
module_param(max_sample_rate, uint, 0444);
MODULE_PARM_DESC(max_sample_rate, "like kernel.perf_event_max_sample_rate");

static uint cpu_time_max_percent = KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT;
module_param(cpu_time_max_percent, uint, 0444);
MODULE_PARM_DESC(cpu_time_max_percent, "like kernel.perf_cpu_time_max_percent");

static char *throttle_semantics = "ge";
module_param(throttle_semantics, charp, 0444);
MODULE_PARM_DESC(throttle_semantics, "per-tick limit: ge, gt or shadow");

static const char * const kprof_semantics_names[] = {
	[KPROF_THROTTLE_GE] = "ge",
	[KPROF_THROTTLE_GT] = "gt",
	[KPROF_THROTTLE_SHADOW] = "shadow",
};

static int __init kprof_params_throttle(void)
{
	int sem = match_string(kprof_semantics_names,
			       ARRAY_SIZE(kprof_semantics_names),
			       throttle_semantics);

	if (sem < 0) {
		pr_err("invalid throttle_semantics=%s (ge, gt or shadow)\n",
		       throttle_semantics);
		return -EINVAL;
	}
	kprof_throttle_limits_init(&kprof.limits, HZ, sem);
	if (kprof_throttle_set_cpu_time_max_percent(&kprof.limits,
						    cpu_time_max_percent)) {
		pr_err("invalid cpu_time_max_percent=%u (0..100)\n",
		       cpu_time_max_percent);
		return -EINVAL;
	}
	if (max_sample_rate != kprof.limits.max_sample_rate &&
	    kprof_throttle_set_max_sample_rate(&kprof.limits,
					       max_sample_rate)) {
		pr_err("invalid max_sample_rate=%u (>= 1, and cpu_time_max_percent not 0 or 100)\n",
		       max_sample_rate);
		return -EINVAL;
	}
	return 0;
}

static int __init kprof_params_cpus(struct kprof_config *cfg)
{
	cpumask_var_t mask;
	unsigned int cpu;
	int ret = 0;

	if (!*cpus)
		return 0;
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	if (cpulist_parse(cpus, mask) || cpumask_empty(mask) ||
	    !cpumask_subset(mask, cpu_possible_mask)) {
		pr_err("invalid cpus=%s (a list of possible CPUs)\n", cpus);
		ret = -EINVAL;
	} else {
		for_each_cpu(cpu, mask)
			cfg->cpumask[cpu / 64] |= 1ULL << (cpu % 64);
	}
	free_cpumask_var(mask);
	return ret;
}

/*
 * Apply one parameter to a valid configuration and validate the result,
 * so that an error names the parameter at fault.
 */
#define KPROF_PARAM_APPLY(cfg, stmt, name, fmt, val) ({			\
	int __ret;							\
									\
	stmt;								\
	__ret = kprof_config_validate(cfg);				\
	if (__ret)							\
		pr_err("invalid " name "=" fmt ": error %d\n", val, __ret);	\
	__ret;								\
})

/* Build the default configuration from the parameters. */
static int __init kprof_params_config(struct kprof_config *cfg)
{
	int ret;

	/* Valid to start with: cpu-clock at 1000 Hz, one page, no chains. */
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->type = PERF_TYPE_SOFTWARE;
	cfg->config = PERF_COUNT_SW_CPU_CLOCK;
	cfg->flags = KPROF_CFG_FREQ;
	cfg->sample = 1000;
	cfg->buffer_pages = 1;

	if (kprof_parse_event(event, &cfg->type, &cfg->config)) {
		pr_err("invalid event=%s\n", event);
		return -EINVAL;
	}
	if (freq && period) {
		pr_err("invalid period=%lu: freq=%lu is also given\n", period,
		       freq);
		return -EINVAL;
	}
	if (freq) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->sample = freq,
					"freq", "%lu", freq);
		if (ret)
			return ret;
	}
	if (period) {
		ret = KPROF_PARAM_APPLY(cfg, (cfg->flags = 0,
					      cfg->sample = period),
					"period", "%lu", period);
		if (ret)
			return ret;
	}
	ret = KPROF_PARAM_APPLY(cfg, cfg->kernel_stack = min(kernel_stack, 1U << 15),
				"kernel_stack", "%u", kernel_stack);
	if (ret)
		return ret;
	ret = KPROF_PARAM_APPLY(cfg, cfg->user_stack = min(user_stack, 1U << 15),
				"user_stack", "%u", user_stack);
	if (ret)
		return ret;
	if (callchain) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->flags |= KPROF_CFG_CALLCHAIN_KERNEL |
							  KPROF_CFG_CALLCHAIN_USER,
					"callchain", "%d", callchain);
		if (ret)
			return ret;
	}
	if (exclude_user) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->flags |= KPROF_CFG_EXCLUDE_USER,
					"exclude_user", "%d", exclude_user);
		if (ret)
			return ret;
	}
	if (exclude_kernel) {
		ret = KPROF_PARAM_APPLY(cfg, cfg->flags |= KPROF_CFG_EXCLUDE_KERNEL,
					"exclude_kernel", "%d", exclude_kernel);
		if (ret)
			return ret;
	}
	ret = KPROF_PARAM_APPLY(cfg, cfg->precise_ip = precise_ip,
				"precise_ip", "%u", precise_ip);
	if (ret)
		return ret;
	ret = KPROF_PARAM_APPLY(cfg, cfg->buffer_pages = buffer_pages,
				"buffer_pages", "%u", buffer_pages);
	if (ret)
		return ret;
	ret = KPROF_PARAM_APPLY(cfg, cfg->watermark = watermark,
				"watermark", "%u", watermark);
	if (ret)
		return ret;
	return kprof_params_cpus(cfg);
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

static void kprof_bufs_replace(struct kprof_bufs *bufs)
{
	struct kprof_bufs *old = kprof.bufs;
	unsigned int cpu;

	kprof.bufs = bufs;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(kprof_pcpu, cpu)->buf = &bufs->cpu[cpu];
	/* A read() in flight keeps the old set until it is done. */
	kprof_bufs_put(old);
}

/* ---- ioctls ---- */

static long kprof_ioc_get_info(struct kprof_file *f, void __user *uarg)
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
	if (f->kernel_ok)
		info.flags |= KPROF_INFO_KERNEL_OK;

	mutex_lock(&kprof.lock);
	info.mmap_stride = kprof.bufs->region_size;
	info.data_size = (u64)kprof.bufs->pages << PAGE_SHIFT;
	if (kprof.running)
		info.flags |= KPROF_INFO_RUNNING;
	/* Events come and go with hotplug, under the hotplug lock. */
	cpus_read_lock();
	for_each_possible_cpu(cpu)
		if (per_cpu_ptr(kprof_pcpu, cpu)->event)
			info.online_mask[cpu / 64] |= 1ULL << (cpu % 64);
	cpus_read_unlock();
	mutex_unlock(&kprof.lock);

	return kprof_copy_out(uarg, usize, &info, sizeof(info));
}

static long kprof_ioc_set_config(void __user *uarg)
{
	struct kprof_config cfg;
	struct kprof_bufs *bufs;
	int ret;

	ret = kprof_copy_in(&cfg, sizeof(cfg), uarg, KPROF_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	cfg.size = sizeof(cfg);

	mutex_lock(&kprof.lock);
	if (kprof.running) {
		ret = -EBUSY;
		goto unlock;
	}
	ret = kprof_config_validate(&cfg);
	if (ret)
		goto unlock;

	if (cfg.buffer_pages != kprof.bufs->pages) {
		/* Mapped pages cannot change under the reader. */
		if (atomic_read(&kprof.bufs->mapped)) {
			ret = -EBUSY;
			goto unlock;
		}
		bufs = kprof_bufs_alloc(cfg.buffer_pages, cfg.watermark);
		if (!bufs) {
			ret = -ENOMEM;
			goto unlock;
		}
		kprof_bufs_replace(bufs);
	} else {
		kprof_bufs_set_watermark(kprof.bufs, cfg.watermark);
	}
	kprof.config = cfg;
unlock:
	mutex_unlock(&kprof.lock);
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
	cfg = kprof.config;
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &cfg, sizeof(cfg));
}

static long kprof_ioc_start(void)
{
	int ret;

	mutex_lock(&kprof.lock);
	ret = kprof.running ? -EBUSY : kprof_events_start();
	mutex_unlock(&kprof.lock);
	return ret;
}

static long kprof_ioc_stop(void)
{
	mutex_lock(&kprof.lock);
	if (kprof.running)
		kprof_events_stop();
	mutex_unlock(&kprof.lock);
	return 0;
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
	kprof_counters_fill(&st.counters, per_cpu_ptr(kprof_pcpu, cpu));
	st.max_sample_rate = l->max_sample_rate;
	st.max_samples_per_tick = READ_ONCE(l->max_samples_per_tick);
	st.allowed_ns = READ_ONCE(l->allowed_ns);
	st.avg_ns = kprof_throttle_avg_ns(&per_cpu_ptr(kprof_pcpu, cpu)->thr);
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &st, sizeof(st));
}

/*
 * The sysctl handlers' rules, in this order: semantics, then
 * cpu_time_max_percent, then max_sample_rate (refused while the percent
 * is 0 or 100).  A field equal to the current value is not written.
 */
static long kprof_ioc_set_throttle(void __user *uarg)
{
	struct kprof_throttle_config t;
	struct kprof_throttle_limits l;
	unsigned int cpu;
	int ret;

	ret = kprof_copy_in(&t, sizeof(t), uarg,
			    KPROF_THROTTLE_CONFIG_SIZE_VER0);
	if (ret)
		return ret;
	if (t.__reserved0 || memchr_inv(t.__reserved, 0, sizeof(t.__reserved)))
		return -EINVAL;
	/* A busy-wait in an interrupt handler: keep it below a tick. */
	if (t.handler_delay_ns > TICK_NSEC / 2)
		return -EINVAL;

	mutex_lock(&kprof.lock);
	l = kprof.limits;
	ret = kprof_throttle_set_semantics(&l, t.semantics);
	if (!ret && t.cpu_time_max_percent != l.cpu_time_max_percent)
		ret = kprof_throttle_set_cpu_time_max_percent(&l,
							      t.cpu_time_max_percent);
	if (!ret && t.max_sample_rate != l.max_sample_rate)
		ret = kprof_throttle_set_max_sample_rate(&l, t.max_sample_rate);
	if (!ret) {
		kprof.limits = l;
		WRITE_ONCE(kprof.handler_delay_ns, t.handler_delay_ns);
		for_each_possible_cpu(cpu)
			kprof_limits_publish(&kprof.bufs->cpu[cpu]);
	}
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
	t.max_sample_rate = kprof.limits.max_sample_rate;
	t.cpu_time_max_percent = kprof.limits.cpu_time_max_percent;
	t.handler_delay_ns = kprof.handler_delay_ns;
	mutex_unlock(&kprof.lock);
	return kprof_copy_out(uarg, usize, &t, sizeof(t));
}

static long kprof_ioc_inject_nmi(struct kprof_file *f, void __user *uarg)
{
	u32 cpu;
	int ret;

	if (!f->admin)
		return -EPERM;
	if (get_user(cpu, (u32 __user *)uarg))
		return -EFAULT;
	mutex_lock(&kprof.lock);
	ret = kprof.running ? kprof_nmi_inject(cpu) : -EINVAL;
	mutex_unlock(&kprof.lock);
	return ret;
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
		return kprof_ioc_set_config(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_GET_CONFIG):
		return kprof_ioc_get_config(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_START):
		return kprof_ioc_start();
	case KPROF_IOC_CMD(KPROF_IOC_STOP):
		return kprof_ioc_stop();
	case KPROF_IOC_CMD(KPROF_IOC_GET_STATS):
		return kprof_ioc_get_stats(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_SET_THROTTLE):
		return kprof_ioc_set_throttle(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_GET_THROTTLE):
		return kprof_ioc_get_throttle(uarg);
	case KPROF_IOC_CMD(KPROF_IOC_INJECT_NMI):
		return kprof_ioc_inject_nmi(f, uarg);
	default:
		return -ENOTTY;
	}
}

/* ---- file operations ---- */

/*
 * kernel.perf_event_paranoid is not exported: read it the way user space
 * does, with the opener's credentials.
 */
static int kprof_read_paranoid(int *level)
{
	char buf[16] = {};
	struct file *filp;
	loff_t pos = 0;
	ssize_t n;

	filp = filp_open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY, 0);
	if (IS_ERR(filp))
		return PTR_ERR(filp);
	n = kernel_read(filp, buf, sizeof(buf) - 1, &pos);
	filp_close(filp, NULL);
	if (n < 0)
		return n;
	return kstrtoint(strim(buf), 10, level);
}

static int kprof_open(struct inode *inode, struct file *file)
{
	struct kprof_file *f;
	int paranoid = 2;
	int ret;

	/*
	 * perf_event_open(pid == -1, cpu): CPU-wide events need
	 * CAP_PERFMON or paranoid <= 0; kernel samples need paranoid <= 1.
	 */
	if (!perfmon_capable()) {
		ret = kprof_read_paranoid(&paranoid);
		if (ret) {
			pr_warn_ratelimited("cannot read perf_event_paranoid: error %d\n",
					    ret);
			return -EACCES;
		}
		if (paranoid > 0)
			return -EACCES;
	}

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->kernel_ok = perfmon_capable() || paranoid <= 1;
	f->admin = capable(CAP_SYS_ADMIN);

	ret = nonseekable_open(inode, file);
	if (ret) {
		kfree(f);
		return ret;
	}
	file->private_data = f;

	mutex_lock(&kprof.lock);
	kprof.open_count++;
	mutex_unlock(&kprof.lock);
	return 0;
}

/* Last close (mappings hold the file too): sampling stops with it. */
static int kprof_release(struct inode *inode, struct file *file)
{
	mutex_lock(&kprof.lock);
	if (!--kprof.open_count && kprof.running)
		kprof_events_stop();
	mutex_unlock(&kprof.lock);
	kfree(file->private_data);
	return 0;
}

static int kprof_mmap(struct file *file, struct vm_area_struct *vma)
{
	int ret;

	mutex_lock(&kprof.lock);
	ret = kprof_bufs_mmap(kprof.bufs, vma);
	mutex_unlock(&kprof.lock);
	return ret;
}

static __poll_t kprof_poll(struct file *file, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(file, &kprof.wq, wait);
	mutex_lock(&kprof.lock);
	/* Running: a buffer at its watermark; stopped: whatever is left. */
	if (kprof_bufs_readable(kprof.bufs, kprof.running))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Stopped and drained: nothing more will come, as for a dead event. */
	else if (!kprof.running)
		mask |= EPOLLHUP;
	mutex_unlock(&kprof.lock);
	return mask;
}

static ssize_t kprof_read(struct file *file, char __user *ubuf, size_t count,
			  loff_t *ppos)
{
	struct kprof_bufs *bufs;
	bool running;
	ssize_t ret;

	for (;;) {
		mutex_lock(&kprof.lock);
		bufs = kprof.bufs;
		if (atomic_read(&bufs->mapped)) {
			mutex_unlock(&kprof.lock);
			return -EBUSY;
		}
		kprof_bufs_get(bufs);
		running = kprof.running;
		mutex_unlock(&kprof.lock);

		ret = mutex_lock_interruptible(&kprof_read_lock);
		if (!ret) {
			ret = kprof_bufs_read(bufs, ubuf, count);
			mutex_unlock(&kprof_read_lock);
		}
		if (ret || !running)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			break;
		}
		if (wait_event_interruptible(kprof.wq,
					     !READ_ONCE(kprof.running) ||
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

static struct miscdevice kprof_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "kprof",
	.fops = &kprof_fops,
	/* Everyone may try: open() decides, as perf_event_open() does. */
	.mode = 0666,
};

/* ---- module init/exit ---- */

static int __init kprof_init(void)
{
	int ret;

	if (nr_cpu_ids > KPROF_MAX_CPUS) {
		pr_err("%u CPUs: the ABI describes at most %d\n", nr_cpu_ids,
		       KPROF_MAX_CPUS);
		return -EINVAL;
	}
	ret = kprof_params_throttle();
	if (ret)
		return ret;
	ret = kprof_params_config(&kprof.config);
	if (ret)
		return ret;

	kprof_pcpu = alloc_percpu(struct kprof_cpu);
	if (!kprof_pcpu)
		return -ENOMEM;
	kprof_throttle_init_cpus();
	if (!zalloc_cpumask_var(&kprof.cpus, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto free_pcpu;
	}
	kprof.bufs = kprof_bufs_alloc(kprof.config.buffer_pages,
				      kprof.config.watermark);
	if (!kprof.bufs) {
		ret = -ENOMEM;
		goto free_cpumask;
	}
	ret = kprof_events_init();
	if (ret)
		goto put_bufs;
	ret = kprof_nmi_init();
	if (ret)
		goto exit_events;
	ret = misc_register(&kprof_misc);
	if (ret)
		goto exit_nmi;
	return 0;

exit_nmi:
	kprof_nmi_exit();
exit_events:
	kprof_events_exit();
put_bufs:
	kprof_bufs_put(kprof.bufs);
free_cpumask:
	free_cpumask_var(kprof.cpus);
free_pcpu:
	free_percpu(kprof_pcpu);
	return ret;
}

/*
 * No file is open (fops.owner pins the module, and every mapping holds its
 * file), so the last release has stopped sampling: nothing runs.
 */
static void __exit kprof_exit(void)
{
	misc_deregister(&kprof_misc);
	kprof_nmi_exit();
	kprof_events_exit();
	kprof_bufs_put(kprof.bufs);
	free_cpumask_var(kprof.cpus);
	free_percpu(kprof_pcpu);
}

module_init(kprof_init);
module_exit(kprof_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("kprof developers");
MODULE_DESCRIPTION("Per-CPU sampling profiler with its own ring buffers");
MODULE_VERSION(KPROF_VERSION);
