// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for tests/module/nmi_timeout_test: NMIs that are not
 * kprof's, sent and watched from /sys/kernel/debug/kprof_nmi_test/ctl.
 * It does what kprof.ko must not (a busy-wait of seconds in an NMI
 * handler, an NMI_UNKNOWN handler that claims every unknown NMI) and is
 * loaded only by that test.
 *
 *   echo "block CPU MS" >ctl	NMI CPU; its handler spins MS ms, so the
 *				NMIs sent meanwhile wait in the CPU's one
 *				NMI latch (later ones are merged into it)
 *   echo "foreign CPU" >ctl	NMI CPU; this module sees it and does not
 *				claim it, as an NMI of no handler's (SERR)
 *   cat ctl			"unknown U foreign F blocks B blocking K":
 *				NMIs nobody claimed (they reached this
 *				module's NMI_UNKNOWN handler), foreign NMIs
 *				seen, blocks ended, blocks in progress
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/timekeeping.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#define NT_MAX_CPUS	64

static unsigned long nt_block_ms[NT_MAX_CPUS];
static unsigned long nt_foreign_req[NT_MAX_CPUS];
static atomic_t nt_unknown, nt_foreign, nt_blocks, nt_blocking;
static struct dentry *nt_dir;

static int nt_local(unsigned int cmd, struct pt_regs *regs)
{
	unsigned int cpu = smp_processor_id();
	unsigned long ms;

	if (cpu >= NT_MAX_CPUS)
		return NMI_DONE;
	ms = xchg(&nt_block_ms[cpu], 0);
	if (ms) {
		/* By the clock, not by delay loops: TCG runs them at any speed. */
		u64 end = ktime_get_mono_fast_ns() + ms * NSEC_PER_MSEC;

		atomic_inc(&nt_blocking);
		while (ktime_get_mono_fast_ns() < end)
			cpu_relax();
		atomic_dec(&nt_blocking);
		atomic_inc(&nt_blocks);
		return NMI_HANDLED;
	}
	if (xchg(&nt_foreign_req[cpu], 0))
		atomic_inc(&nt_foreign);	/* seen, and left unclaimed */
	return NMI_DONE;
}

static int nt_unknown_nmi(unsigned int cmd, struct pt_regs *regs)
{
	atomic_inc(&nt_unknown);
	return NMI_HANDLED;
}

static int nt_send(unsigned int cpu)
{
	int ret = 0;

	cpus_read_lock();
	if (!cpu_online(cpu))
		ret = -EINVAL;
	else
		apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
	cpus_read_unlock();
	return ret;
}

static ssize_t nt_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	unsigned long timeout = jiffies + HZ;
	unsigned int cpu, ms;
	char buf[64];
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	if (sscanf(buf, "block %u %u", &cpu, &ms) == 2) {
		int before = atomic_read(&nt_blocks);

		if (cpu >= NT_MAX_CPUS || !ms || ms > 5000)
			return -EINVAL;
		WRITE_ONCE(nt_block_ms[cpu], ms);
		ret = nt_send(cpu);
		if (ret)
			return ret;
		/* Return once the handler spins (or already spun). */
		while (!atomic_read(&nt_blocking) &&
		       atomic_read(&nt_blocks) == before) {
			if (time_after(jiffies, timeout))
				return -ETIMEDOUT;
			usleep_range(50, 200);
		}
		return count;
	}
	if (sscanf(buf, "foreign %u", &cpu) == 1) {
		if (cpu >= NT_MAX_CPUS)
			return -EINVAL;
		WRITE_ONCE(nt_foreign_req[cpu], 1);
		ret = nt_send(cpu);
		return ret ? ret : count;
	}
	return -EINVAL;
}

static ssize_t nt_read(struct file *file, char __user *ubuf, size_t count,
		       loff_t *ppos)
{
	char buf[128];
	int n;

	n = scnprintf(buf, sizeof(buf), "unknown %d foreign %d blocks %d blocking %d\n",
		      atomic_read(&nt_unknown), atomic_read(&nt_foreign),
		      atomic_read(&nt_blocks), atomic_read(&nt_blocking));
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations nt_fops = {
	.owner = THIS_MODULE,
	.read = nt_read,
	.write = nt_write,
	.llseek = default_llseek,
};

static int __init nt_init(void)
{
	int ret;

	ret = register_nmi_handler(NMI_LOCAL, nt_local, 0, "kprof_nmi_test");
	if (ret)
		return ret;
	ret = register_nmi_handler(NMI_UNKNOWN, nt_unknown_nmi, 0,
				   "kprof_nmi_test");
	if (ret)
		goto unregister_local;
	nt_dir = debugfs_create_dir("kprof_nmi_test", NULL);
	debugfs_create_file("ctl", 0600, nt_dir, NULL, &nt_fops);
	return 0;

unregister_local:
	unregister_nmi_handler(NMI_LOCAL, "kprof_nmi_test");
	return ret;
}

static void __exit nt_exit(void)
{
	debugfs_remove(nt_dir);
	unregister_nmi_handler(NMI_UNKNOWN, "kprof_nmi_test");
	unregister_nmi_handler(NMI_LOCAL, "kprof_nmi_test");
}

module_init(nt_init);
module_exit(nt_exit);
MODULE_DESCRIPTION("kprof tests: NMIs that are not kprof's");
MODULE_LICENSE("GPL");
