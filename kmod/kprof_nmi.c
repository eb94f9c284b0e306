// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_nmi.c - self-NMI injection, a debug interface.
 *
 * Without a PMU (QEMU TCG) no event overflows in NMI context, yet that is
 * where hardware events run the capture code.  KPROF_IOC_INJECT_NMI sends
 * an NMI IPI to one CPU; kprof's NMI_LOCAL handler claims it through a
 * per-CPU pending flag (so NMIs meant for others, e.g. the PMU's, pass
 * through untouched) and runs the same capture path as the overflow
 * handler.  The sample counts as an overflow of that CPU.
 *
 * The flag is set only while the injecting ioctl waits.  An NMI cannot
 * say who sent it, so one arriving in that window is taken for kprof's;
 * outside it none is.  A timed-out injection takes its flag back before
 * it returns: its NMI, should it still come, is nobody's (the kernel's
 * unknown-NMI path reports it), and the next unrelated NMI reaches the
 * SERR/IOCHK and unknown-NMI handlers as if kprof were not loaded.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <asm/apic.h>
#include <asm/nmi.h>

#include "kprof.h"

/* TCG guests are slow; a real NMI arrives in microseconds. */
#define KPROF_NMI_TIMEOUT	(HZ)

static int kprof_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	struct kprof_cpu *c = this_cpu_ptr(kprof_pcpu);

	if (!READ_ONCE(c->nmi_pending) || !xchg(&c->nmi_pending, 0))
		return NMI_DONE;
	/* Claimed only while the ioctl waits, holding kprof.lock: running. */
	kprof_sample_capture(c, regs, 0);
	return NMI_HANDLED;
}

/**
 * kprof_nmi_inject() - run one capture in NMI context on @cpu
 * @cpu: a CPU with a live event
 *
 * Waits until the NMI handler has run, so the sample (or its loss) is
 * accounted when this returns.
 *
 * Context: process context, kprof.lock held, running.
 * Return: 0, -EINVAL if @cpu has no event, -ETIMEDOUT if the NMI did not
 * arrive within a second; then nothing of it is left (see above).
 */
int kprof_nmi_inject(unsigned int cpu)
{
	unsigned long timeout = jiffies + KPROF_NMI_TIMEOUT;
	struct kprof_cpu *c;
	int ret = 0;

	lockdep_assert_held(&kprof.lock);

	/* Keep @cpu online, and its event alive, until the NMI is handled. */
	cpus_read_lock();
	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		ret = -EINVAL;
		goto unlock_cpus;
	}
	c = per_cpu_ptr(kprof_pcpu, cpu);
	if (!c->event) {
		ret = -EINVAL;
		goto unlock_cpus;
	}

	/* The flag must be visible before the NMI can arrive. */
	xchg(&c->nmi_pending, 1);
	apic->send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);

	while (READ_ONCE(c->nmi_pending)) {
		if (time_after(jiffies, timeout)) {
			/* Unless the handler took it in the meantime. */
			if (xchg(&c->nmi_pending, 0))
				ret = -ETIMEDOUT;
			break;
		}
		usleep_range(20, 100);
	}

unlock_cpus:
	cpus_read_unlock();
	return ret;
}

/**
 * kprof_nmi_init() - register the NMI_LOCAL handler
 *
 * Return: 0 or -errno.
 */
int kprof_nmi_init(void)
{
	return register_nmi_handler(NMI_LOCAL, kprof_nmi_handler, 0, "kprof");
}

/**
 * kprof_nmi_exit() - unregister it (waits for running handlers)
 */
void kprof_nmi_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "kprof");
}
