// SPDX-License-Identifier: GPL-2.0
/*
 * Conservation of overflows, per CPU: every overflow is a delivered sample
 * or counted lost by cause; the LOST records in the stream add up to the
 * lost counters; the control page and KPROF_IOC_GET_STATS agree after STOP.
 *
 * one_page:  a one-page buffer and a reader that sleeps between drains, so
 *            the buffer fills (lost_full > 0 on every CPU).
 * large:     a 1 MiB buffer, a reader woken by poll(): nothing lost.
 *
 * The *_testpmu variants sample the PMU stand-in (tests/vm/run --testpmu)
 * instead of cpu-clock, the kernel's cost controller off (see
 * tp_controller_off()): every overflow is an NMI, and every sample says so.
 */
#include "kprof_test.h"
#include "testpmu.h"

#include <poll.h>

#include "kselftest_harness.h"

FIXTURE(conservation) {
	int fd;
	struct kp_buffers b;
};

FIXTURE_VARIANT(conservation) {
	__u32 buffer_pages;
	__u32 watermark;
	__u64 freq;
	int callchains;
	int sleep_ms;		/* reader's nap between drains; 0: poll() */
	int run_ms;
	int expect_full;	/* lost_full > 0 on every CPU, or none lost */
	int testpmu;		/* on the PMU stand-in, not cpu-clock */
};

FIXTURE_VARIANT_ADD(conservation, one_page) {
	.buffer_pages = 1,
	.freq = 500,
	.sleep_ms = 400,
	.run_ms = 1200,
	.expect_full = 1,
};

FIXTURE_VARIANT_ADD(conservation, one_page_callchains) {
	.buffer_pages = 1,
	.freq = 500,
	.callchains = 1,
	.sleep_ms = 300,
	.run_ms = 900,
	.expect_full = 1,
};

FIXTURE_VARIANT_ADD(conservation, large) {
	.buffer_pages = 256,
	.watermark = 4096,
	.freq = 1000,
	.callchains = 1,
	.sleep_ms = 0,
	.run_ms = 1500,
	.expect_full = 0,
};

FIXTURE_VARIANT_ADD(conservation, one_page_testpmu) {
	.buffer_pages = 1,
	.freq = 500,
	.callchains = 1,
	.sleep_ms = 300,
	.run_ms = 900,
	.expect_full = 1,
	.testpmu = 1,
};

FIXTURE_VARIANT_ADD(conservation, large_testpmu) {
	.buffer_pages = 256,
	.watermark = 4096,
	.freq = 1000,
	.callchains = 1,
	.sleep_ms = 0,
	.run_ms = 1500,
	.expect_full = 0,
	.testpmu = 1,
};

FIXTURE_SETUP(conservation)
{
	struct kprof_config cfg;

	KP_OPEN_OR_SKIP(self->fd);
	if (!variant->testpmu)
		kp_cfg_init(&cfg, variant->freq);
	else if (tp_cfg_init(&cfg, variant->freq))
		SKIP(return, "no %s (load it: tests/vm/run --testpmu)", TP_SYSFS);
	else
		ASSERT_EQ(0, tp_controller_off());
	/*
	 * On the stand-in kprof's cost controller is off too: kprof counts a
	 * PMU event in the kernel's ticks, which stop on an idle CPU, so a
	 * limit lowered by one slow emulated NMI would hold an idle CPU
	 * throttled until it ticks again, as the kernel's limit would.
	 */
	if (variant->testpmu) {
		struct kprof_throttle_config t = {
			.size = sizeof(t),
			.semantics = KPROF_THROTTLE_GE,
			.max_sample_rate = 100000,
			.cpu_time_max_percent = 0,
		};

		ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &t))
			TH_LOG("SET_THROTTLE percent 0: %s", strerror(errno));
	}
	cfg.buffer_pages = variant->buffer_pages;
	cfg.watermark = variant->watermark;
	if (variant->callchains) {
		cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
		cfg.kernel_stack = 32;
		cfg.user_stack = 32;
	}
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(variant->buffer_pages * (__u64)self->b.page_size,
		  self->b.data_size);
}

FIXTURE_TEARDOWN(conservation)
{
	if (variant->testpmu)
		tp_reset_sysctls();
	kp_close(self->fd, &self->b);
}

TEST_F_TIMEOUT(conservation, per_cpu, 60)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	unsigned int cpu, nr_online = 0, woken = 0;
	unsigned long long stop_ns;
	struct kp_cpu *c;
	double end;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	end = kp_now() + variant->run_ms / 1000.0;
	while (kp_now() < end) {
		if (variant->sleep_ms) {
			kp_sleep_ms(variant->sleep_ms);
		} else {
			int n = poll(&pfd, 1, 100);

			ASSERT_LE(0, n) TH_LOG("poll: %s", strerror(errno));
			if (n > 0) {
				ASSERT_EQ(POLLIN, pfd.revents & (POLLIN | POLLERR));
				woken++;
			}
		}
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	}
	/* Drained just now: STOP's own LOST record has room. */
	stop_ns = kp_now_ns();
	ASSERT_EQ(0, kp_stop(self->fd)) TH_LOG("STOP: %s", strerror(errno));
	stop_ns = kp_now_ns() - stop_ns;
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1))
		TH_LOG("%s", self->b.err);

	kp_for_each_online(&self->b, cpu, c) {
		struct kprof_counters k;

		nr_online++;
		kp_page_counters(c, &k);
		TH_LOG("CPU %u: overflows %llu samples %llu lost full %llu nested %llu stopped %llu throttled %llu, %llu LOST records",
		       cpu, k.overflows, k.samples, k.lost_full, k.lost_nested,
		       k.lost_stopped, k.lost_throttled, c->lost_recs);
		EXPECT_LT(0ULL, k.samples) TH_LOG("CPU %u delivered nothing", cpu);
		if (variant->testpmu)
			EXPECT_EQ(k.samples, k.nmi_samples) TH_LOG("CPU %u", cpu);
		if (variant->expect_full) {
			EXPECT_LT(0ULL, k.lost_full)
				TH_LOG("CPU %u: one page never filled", cpu);
			EXPECT_LT(0ULL, c->lost_recs);
		} else {
			EXPECT_EQ(0ULL, k.lost_full) TH_LOG("CPU %u", cpu);
			EXPECT_EQ(0ULL, k.lost_nested) TH_LOG("CPU %u", cpu);
			EXPECT_EQ(0ULL, k.lost_throttled) TH_LOG("CPU %u", cpu);
			/*
			 * STOP raises the stop flag before it releases the
			 * events one CPU at a time, so timers firing in that
			 * window are lost_stopped by design.  The window lies
			 * inside the STOP ioctl, which took stop_ns.  cpu-clock
			 * in frequency mode runs a fixed period P = 1e9 / freq
			 * ns (perf_swevent_init_hrtimer()), and each firing
			 * forwards its hrtimer past now, so the expiries of
			 * the 2nd..nth overflow in a window of D ns are
			 * distinct multiples of P after its start: at most
			 * D / P + 2 overflows.
			 */
			EXPECT_GE(stop_ns / (1000000000ULL / variant->freq) + 2,
				  k.lost_stopped)
				TH_LOG("CPU %u: STOP took %llu ns", cpu, stop_ns);
		}
	}
	ASSERT_LT(0U, nr_online);
	if (!variant->sleep_ms)
		EXPECT_LT(0U, woken) TH_LOG("poll() never reported POLLIN");
}

TEST_HARNESS_MAIN
