// SPDX-License-Identifier: GPL-2.0
/*
 * Self-NMI injection (KPROF_IOC_INJECT_NMI): while cpu-clock samples every
 * CPU, an injected NMI on each online CPU runs the capture in NMI context
 * and yields exactly one sample marked KPROF_MISC_NMI per injection (the
 * ioctl waits for it), counted in nmi_samples, with its kernel callchain;
 * bad CPU numbers, and any CPU while stopped, are refused with EINVAL.
 */
#include "kprof_test.h"

#include <limits.h>

#include "kselftest_harness.h"

#define INJECTIONS	5

struct nmi_tally {
	__u64 bad_chain;	/* kernel-mode NMI sample without its IP first */
	__u64 kernel_nmi;
};

static int on_sample(struct kp_buffers *b, struct kp_cpu *c,
		     const struct kprof_sample *s)
{
	struct nmi_tally *t = b->arg;

	(void)c;
	if (!(s->header.misc & KPROF_MISC_NMI) ||
	    (s->header.misc & KPROF_MISC_USER))
		return 0;
	t->kernel_nmi++;
	if (!s->nr_kernel || s->ips[0] != s->ip)
		t->bad_chain++;
	return 0;
}

FIXTURE(nmi) {
	int fd;
	struct kp_buffers b;
	struct nmi_tally t;
};

FIXTURE_SETUP(nmi)
{
	struct kprof_config cfg;

	KP_OPEN_OR_SKIP(self->fd);
	kp_cfg_init(&cfg, 100);
	cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
	cfg.kernel_stack = KPROF_MAX_STACK;
	cfg.user_stack = KPROF_MAX_STACK;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	self->b.on_sample = on_sample;
	self->b.arg = &self->t;
}

FIXTURE_TEARDOWN(nmi)
{
	kp_close(self->fd, &self->b);
}

TEST_F_TIMEOUT(nmi, every_cpu, 60)
{
	unsigned int cpu, nr = 0;
	struct kp_cpu *c;
	int i;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	kp_for_each_online(&self->b, cpu, c) {
		nr++;
		for (i = 0; i < INJECTIONS; i++) {
			/* Each call waits until its NMI has been handled. */
			ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_INJECT_NMI, &cpu))
				TH_LOG("INJECT_NMI CPU %u: %s", cpu,
				       strerror(errno));
		}
	}
	ASSERT_LT(0U, nr);
	kp_sleep_ms(50);
	ASSERT_EQ(0, kp_stop(self->fd)) TH_LOG("STOP: %s", strerror(errno));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1))
		TH_LOG("%s", self->b.err);

	kp_for_each_online(&self->b, cpu, c) {
		struct kprof_counters k;

		kp_page_counters(c, &k);
		TH_LOG("CPU %u: %llu NMI samples of %llu, nmi_samples %llu",
		       cpu, c->nmi_samples, c->samples, k.nmi_samples);
		EXPECT_EQ((__u64)INJECTIONS, c->nmi_samples) TH_LOG("CPU %u", cpu);
		/* cpu-clock keeps sampling in hardirq context too. */
		EXPECT_LT(c->nmi_samples, c->samples) TH_LOG("CPU %u", cpu);
	}
	EXPECT_EQ(0ULL, self->t.bad_chain)
		TH_LOG("%llu of %llu kernel NMI samples lack a chain starting at their IP",
		       self->t.bad_chain, self->t.kernel_nmi);
}

TEST_F(nmi, bad_cpu)
{
	__u32 cpu;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));

	cpu = self->b.nr_cpu_ids;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_INJECT_NMI, &cpu));
	EXPECT_EQ(EINVAL, errno);

	cpu = KPROF_MAX_CPUS;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_INJECT_NMI, &cpu));
	EXPECT_EQ(EINVAL, errno);

	cpu = UINT_MAX;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_INJECT_NMI, &cpu));
	EXPECT_EQ(EINVAL, errno);

	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_INJECT_NMI, NULL));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_EQ(0, kp_stop(self->fd));
	/* Stopped: no CPU has an event to sample for. */
	cpu = 0;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_INJECT_NMI, &cpu));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	/* Refused injections produced nothing. */
	for (cpu = 0; cpu < self->b.nr_cpu_ids; cpu++)
		EXPECT_EQ(0ULL, self->b.cpus[cpu].nmi_samples) TH_LOG("CPU %u", cpu);
}

TEST_HARNESS_MAIN
