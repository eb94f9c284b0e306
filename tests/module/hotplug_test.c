// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug while sampling (run with tests/vm/run --cpus 4): CPUs 2 and
 * 3 go offline and online twenty times.  An offlined CPU's region stays
 * mapped and readable, its ONLINE flag and GET_INFO's online_mask follow
 * the CPU, nothing more is written to it while it is offline, samples
 * resume when it comes back, and the counters add up at the end.  On
 * cpu-clock, and on the PMU stand-in (tests/vm/run --testpmu, the kernel's
 * cost controller off: see tp_controller_off()), whose per-CPU hrtimers
 * and NMIs must follow the CPUs too.
 */
#include "kprof_test.h"
#include "testpmu.h"

#include "kselftest_harness.h"

#define CYCLES		20
#define FIRST_HP_CPU	2
#define NR_HP_CPUS	2

static int info_online(int fd, unsigned int cpu)
{
	struct kprof_info info;

	if (kp_get_info(fd, &info))
		return -1;
	return !!(info.online_mask[cpu / 64] & (1ULL << (cpu % 64)));
}

FIXTURE(hotplug) {
	int fd;
	struct kp_buffers b;
};

FIXTURE_VARIANT(hotplug) {
	int testpmu;
};

FIXTURE_VARIANT_ADD(hotplug, cpu_clock) {
	.testpmu = 0,
};

FIXTURE_VARIANT_ADD(hotplug, testpmu) {
	.testpmu = 1,
};

FIXTURE_SETUP(hotplug)
{
	struct kprof_config cfg;
	unsigned int cpu;
	char path[64];

	KP_OPEN_OR_SKIP(self->fd);
	for (cpu = FIRST_HP_CPU; cpu < FIRST_HP_CPU + NR_HP_CPUS; cpu++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/online", cpu);
		if (!kp_cpu_online(cpu) || access(path, W_OK))
			SKIP(return, "needs 4 online CPUs with CPUs 2 and 3 hotpluggable (tests/vm/run --cpus 4); %ld online",
			     sysconf(_SC_NPROCESSORS_ONLN));
	}
	kp_stop(self->fd);
	if (!variant->testpmu)
		kp_cfg_init(&cfg, 250);
	else if (tp_cfg_init(&cfg, 250))
		SKIP(return, "no %s (load it: tests/vm/run --testpmu)", TP_SYSFS);
	else
		ASSERT_EQ(0, tp_controller_off());
	cfg.buffer_pages = 64;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	ASSERT_LE(FIRST_HP_CPU + NR_HP_CPUS, self->b.nr_cpu_ids);
}

FIXTURE_TEARDOWN(hotplug)
{
	unsigned int cpu;

	if (self->fd < 0)
		return;
	for (cpu = FIRST_HP_CPU; cpu < FIRST_HP_CPU + NR_HP_CPUS; cpu++)
		if (!kp_cpu_online(cpu))
			kp_cpu_set_online(cpu, 1);
	kp_stop(self->fd);
	kp_unmap(&self->b);
	close(self->fd);
	if (variant->testpmu)
		tp_reset_sysctls();
}

TEST_F_TIMEOUT(hotplug, offline_online, 240)
{
	__u64 frozen_head[NR_HP_CPUS], samples_at_online[NR_HP_CPUS];
	unsigned int i, cpu;
	double t0 = kp_now();
	int n;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	for (cpu = 0; cpu < self->b.nr_cpu_ids; cpu++)
		if (kp_cpu_online(cpu))
			ASSERT_EQ(KPROF_PAGE_ONLINE,
				  kp_page_flags(&self->b.cpus[cpu]) & KPROF_PAGE_ONLINE)
				TH_LOG("CPU %u", cpu);

	for (n = 0; n < CYCLES; n++) {
		kp_sleep_ms(20);
		for (i = 0; i < NR_HP_CPUS; i++)
			ASSERT_EQ(0, kp_cpu_set_online(FIRST_HP_CPU + i, 0))
				TH_LOG("cycle %d: offline CPU %u: %s", n,
				       FIRST_HP_CPU + i, strerror(errno));
		/* Offline regions stay readable: drain them like the rest. */
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
		for (i = 0; i < NR_HP_CPUS; i++) {
			struct kp_cpu *c = &self->b.cpus[FIRST_HP_CPU + i];

			ASSERT_FALSE(kp_cpu_online(c->cpu));
			ASSERT_EQ(0U, kp_page_flags(c) & KPROF_PAGE_ONLINE)
				TH_LOG("cycle %d: offline CPU %u still ONLINE",
				       n, c->cpu);
			ASSERT_EQ(0, info_online(self->fd, c->cpu));
			ASSERT_EQ(KPROF_ABI_VERSION, c->pg->version);
			frozen_head[i] = __atomic_load_n(&c->pg->data_head,
							 __ATOMIC_ACQUIRE);
		}
		kp_sleep_ms(20);
		for (i = 0; i < NR_HP_CPUS; i++) {
			struct kp_cpu *c = &self->b.cpus[FIRST_HP_CPU + i];

			/* Nothing is written for a CPU that is gone. */
			ASSERT_EQ(frozen_head[i],
				  __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE))
				TH_LOG("cycle %d: offline CPU %u got records",
				       n, c->cpu);
			ASSERT_EQ(0, kp_cpu_set_online(c->cpu, 1))
				TH_LOG("cycle %d: online CPU %u: %s", n, c->cpu,
				       strerror(errno));
			ASSERT_EQ(KPROF_PAGE_ONLINE, kp_page_flags(c) & KPROF_PAGE_ONLINE)
				TH_LOG("cycle %d: CPU %u back but not ONLINE",
				       n, c->cpu);
			ASSERT_EQ(1, info_online(self->fd, c->cpu));
		}
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	}
	TH_LOG("%d offline/online cycles of CPUs %d-%d: %.1f s", CYCLES,
	       FIRST_HP_CPU, FIRST_HP_CPU + NR_HP_CPUS - 1, kp_now() - t0);

	/*
	 * Samples resume on the CPUs that came back.  Progress, not a rate:
	 * drain until each has delivered again (KP_PROGRESS_MS: a hang
	 * detector).
	 */
	for (i = 0; i < NR_HP_CPUS; i++)
		samples_at_online[i] = self->b.cpus[FIRST_HP_CPU + i].samples;
	for (n = 0; n < KP_PROGRESS_MS / 20; n++) {
		int waiting = 0;

		kp_sleep_ms(20);
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
		for (i = 0; i < NR_HP_CPUS; i++)
			waiting += samples_at_online[i] ==
				   self->b.cpus[FIRST_HP_CPU + i].samples;
		if (!waiting)
			break;
	}
	for (i = 0; i < NR_HP_CPUS; i++)
		EXPECT_LT(samples_at_online[i],
			  self->b.cpus[FIRST_HP_CPU + i].samples)
			TH_LOG("no samples on CPU %u after it came back",
			       FIRST_HP_CPU + i);

	ASSERT_EQ(0, kp_stop(self->fd)) TH_LOG("STOP: %s", strerror(errno));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	for (cpu = 0; cpu < self->b.nr_cpu_ids; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];
		struct kprof_counters k;

		if (!c->base)
			continue;
		kp_page_counters(c, &k);
		TH_LOG("CPU %u: overflows %llu samples %llu lost %llu (stopped %llu)",
		       cpu, k.overflows, k.samples, kp_lost_total(&k),
		       k.lost_stopped);
	}
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1))
		TH_LOG("%s", self->b.err);
}

TEST_HARNESS_MAIN
