// SPDX-License-Identifier: GPL-2.0
/*
 * kprof's own throttle and the kernel's on the PMU stand-in
 * (tests/vm/run --testpmu), where both act on kprof's counter for real:
 * frequency mode (freq_throttles) and a fixed period (fixed_period_stops),
 * each with kprof's limit alone and with the kernel's at the same rate.
 * The kernel's sysctls and kprof's knobs are restored afterwards.
 */
#include "kprof_test.h"

#include "kprof_throttle.h"
#include "kselftest_harness.h"
#include "testpmu.h"
#include "throttle_replay.h"
#include "throttle_run.h"

/*
 * Frequency mode on the PMU stand-in, where the kernel's own throttle and
 * its tick's period adjustment act on kprof's event for real: -F 1500
 * under kprof's max_sample_rate 2000 (8 per tick at HZ 250).  Each START
 * creates the events afresh, so frequency mode starts at the smallest
 * period again (the stand-in clamps it to 10 us: 400 overflows per tick)
 * and bursts until the tick has adjusted it: kprof's limit trips, kprof
 * throttles inside the overflow (kprof_throttle_way()) and the kernel's
 * tick restarts the counter.  Variant both_limits sets
 * kernel.perf_event_max_sample_rate to 2000 as well, so the kernel's
 * limit trips too, at the same overflow as kprof's: kprof counts PMU
 * events in the kernel's ticks, the same overflows in the same tick.
 * Variant kprof_limit sets it to 1000000: 4000 per tick, where the
 * stand-in's smallest period (10 us) allows at most TICK_NSEC / 10 us =
 * 400 overflows per tick, so the kernel's limit cannot trip.  The kernel's
 * cost controller is off (percent 0), so its limit stays what the variant
 * sets.
 *
 * Ten runs in a row, each asserting: no WARN (the test bed fails the
 * whole run on one: x86's start/stop checks are the stand-in's),
 * overflows conserved exactly, LOST records covering every loss, the
 * throttle counters equal to the records, and no tick with more than 8
 * samples on a CPU (the kernel's ticks, which kprof counts in for PMU
 * events: each SAMPLE's tick).  Whether a run throttles depends on
 * where in a tick START falls (the burst's first 8 overflows take about
 * 1.5 ms of the 4 ms tick, then the period grows fast), so throttles are
 * asserted over the ten runs, not in each; so is the kernel's limit,
 * seen tripping with both_limits and never with kprof_limit.  While
 * kprof's limits stay as set (no RATE_LOWERED on any CPU in the run),
 * `kprofcat throttle-sim` fed a CPU's SAMPLE times must print exactly
 * that CPU's THROTTLE records that name kprof's limit (time, tick,
 * interrupts): the overflows the kernel throttled or kprof dropped are
 * in neither.
 */
#define TT_PMU_RUNS	10
#define TT_PMU_RATE	2000
#define TT_PMU_FREQ	1500
#define TT_PMU_NO_KLIMIT 1000000	/* 4000 per tick: see above */

FIXTURE(pmu) {
	int fd;
	struct kp_buffers b;
	long old_rate, old_pct;
	int type;
};

FIXTURE_VARIANT(pmu) {
	int kernel_limit;
};

FIXTURE_VARIANT_ADD(pmu, kprof_limit) { .kernel_limit = 0 };
FIXTURE_VARIANT_ADD(pmu, both_limits) { .kernel_limit = 1 };

FIXTURE_SETUP(pmu)
{
	memset(tt_cpus, 0, sizeof(tt_cpus));
	self->old_rate = -1;
	self->fd = -1;
	self->type = tp_type();
	if (self->type < 0)
		SKIP(return, "no PMU stand-in (tests/vm/run --testpmu)");
	self->fd = kp_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s (kprof.ko not loaded?)", KP_DEV,
		     strerror(errno));
	kp_stop(self->fd);
	ASSERT_EQ(0, tt_sysctl_read(TT_RATE, &self->old_rate));
	ASSERT_EQ(0, tt_sysctl_read(TT_PCT, &self->old_pct));
	ASSERT_EQ(0, tt_kernel_rate_write(variant->kernel_limit ? TT_PMU_RATE :
					  TT_PMU_NO_KLIMIT, 0));
	/* kprof: 8 per tick; its 25% of 500 us allows 125 us per sample. */
	ASSERT_EQ(0, tt_set_throttle(self->fd, TT_PMU_RATE, 25));
}

FIXTURE_TEARDOWN(pmu)
{
	unsigned int i;

	if (self->fd >= 0) {
		kp_stop(self->fd);
		tt_set_throttle(self->fd, KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE,
				KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT);
		kp_close(self->fd, &self->b);
	}
	if (self->old_rate >= 0 &&
	    tt_kernel_rate_write(self->old_rate, self->old_pct))
		TH_LOG("could not restore %s to %ld", TT_RATE, self->old_rate);
	for (i = 0; i < TT_MAX_CPUS; i++)
		free(tt_cpus[i].r);
}

/* CPU @t's THROTTLE records naming kprof's limit == throttle-sim's. */
static void tt_pmu_replay(struct __test_metadata *_metadata,
			  const struct tt_cpu *t, unsigned int cpu)
{
	struct tt_sim ge = { 0 };
	size_t i, nt = 0;
	char err[8400];

	ASSERT_EQ(0, tt_throttle_sim(t, "ge", TT_PMU_RATE, true, &ge, err,
				     sizeof(err)))
		TH_LOG("%s", err);
	for (i = 0; i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];
		const struct tt_sim_line *x;

		if (r->type != KPROF_RECORD_THROTTLE ||
		    !(r->misc & KPROF_MISC_THROTTLE_OWN))
			continue;
		x = tt_sim_nth(&ge, 't', nt);
		/* The first one past the sim's is told; the count says the rest. */
		if (!x && nt == tt_sim_count(&ge, 't'))
			EXPECT_NE(NULL, x)
				TH_LOG("CPU %u: THROTTLE %zu at %llu: throttle-sim predicts only %zu",
				       cpu, nt, r->time, nt);
		if (x)
			EXPECT_TRUE(r->time == x->t && r->tick == x->tick &&
				    r->interrupts == x->interrupts)
				TH_LOG("CPU %u: THROTTLE %zu at %llu tick %llu interrupts %llu, sim %llu %llu %llu",
				       cpu, nt, r->time, r->tick, r->interrupts,
				       x->t, x->tick, x->interrupts);
		nt++;
	}
	EXPECT_EQ(tt_sim_count(&ge, 't'), nt) TH_LOG("CPU %u", cpu);
	free(ge.l);
}

TEST_F_TIMEOUT(pmu, freq_throttles, 120)
{
	__u64 kernel = 0, replayed = 0, all_throttles = 0;
	struct kprof_config cfg;
	unsigned int run, cpu;

	KP_RETURN_IF_SKIPPED();
	kp_cfg_init(&cfg, TT_PMU_FREQ);
	cfg.type = (__u32)self->type;
	cfg.config = 0;
	cfg.buffer_pages = 256;
	cfg.watermark = 4096;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));

	for (run = 0; run < TT_PMU_RUNS; run++) {
		__u64 throttles = 0, lowered = 0, samples = 0, full = 0;
		double end;

		for (cpu = 0; cpu < TT_MAX_CPUS; cpu++) {
			free(tt_cpus[cpu].r);
			memset(&tt_cpus[cpu], 0, sizeof(tt_cpus[cpu]));
		}
		/*
		 * A lowering in an earlier run outlives it (the max rate is
		 * global): each run starts at the rate the replay assumes.
		 */
		ASSERT_EQ(0, tt_set_throttle(self->fd, TT_PMU_RATE, 25));
		ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
		ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
		end = kp_now() + 0.5;
		while (kp_now() < end) {
			kp_sleep_ms(50);
			ASSERT_EQ(0, tt_drain(&self->b)) TH_LOG("%s", self->b.err);
		}
		ASSERT_EQ(0, kp_stop(self->fd));
		ASSERT_EQ(0, tt_drain(&self->b)) TH_LOG("%s", self->b.err);
		ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1))
			TH_LOG("run %u: %s", run, self->b.err);

		for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
			struct kp_cpu *c = &self->b.cpus[cpu];
			struct kprof_counters k;
			__u64 nr, most;

			if (!c->base || !kp_cpu_online(cpu))
				continue;
			tt_check_counters(c);
			kp_page_counters(c, &k);
			EXPECT_EQ(k.samples, k.nmi_samples) TH_LOG("CPU %u", cpu);
			/* Lowerings only lower it. */
			most = tt_max_per_tick(&tt_cpus[cpu], 0, 0, &nr);
			EXPECT_GE((__u64)(TT_PMU_RATE / TT_HZ), most)
				TH_LOG("run %u CPU %u: %llu samples in a tick",
				       run, cpu, most);
			throttles += k.throttles;
			kernel += k.kernel_throttles;
			lowered += k.lowerings;
			samples += k.samples;
			full += k.lost_full;
		}
		TH_LOG("run %u: %llu samples, %llu throttled ticks, %llu lowerings, %llu lost to a full ring",
		       run, samples, throttles, lowered, full);
		all_throttles += throttles;
		/*
		 * Per-CPU replay needs limits no CPU lowered meanwhile, and
		 * every sample: a reader the host stopped for seconds lets
		 * rings fill (one vCPU on the icount clock never does).
		 */
		if (!lowered && !full) {
			for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++)
				if (self->b.cpus[cpu].base && kp_cpu_online(cpu))
					tt_pmu_replay(_metadata, &tt_cpus[cpu], cpu);
			replayed++;
		}
		kp_unmap(&self->b);
	}
	TH_LOG("%llu of %u runs replayed through throttle-sim; the kernel's limit tripped in %llu throttled ticks",
	       replayed, TT_PMU_RUNS, kernel);
	EXPECT_LT(0ULL, replayed) TH_LOG("every run lowered or lost samples: nothing replayed");
	/*
	 * A lowering needs an average over the 125 us per sample kprof's 25%
	 * allows here: only a stalled host makes a handler look that long,
	 * never its instructions; a full ring needs a reader stopped while
	 * another CPU samples.
	 */
	if (kp_icount())
		EXPECT_EQ(TT_PMU_RUNS, replayed) TH_LOG("a run lowered on the icount clock");
	EXPECT_LT(0ULL, all_throttles) TH_LOG("no run throttled");
	if (variant->kernel_limit) {
		EXPECT_LT(0ULL, kernel) TH_LOG("the kernel's limit never tripped");
	} else {
		EXPECT_EQ(0ULL, kernel) TH_LOG("the kernel's limit tripped");
	}
}

/*
 * The overflows of CPU @t that reached the handler in each tick with a
 * SAMPLE (the kernel's ticks): from the seq of its first SAMPLE to the
 * seq of the next tick's first, which numbers every overflow, lost ones
 * included.  Returns the most in one tick, the last tick excluded.
 */
static __u64 tt_max_overflows_per_tick(const struct tt_cpu *t)
{
	__u64 tick = 0, first = 0, most = 0;
	bool any = false;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];

		if (r->type != KPROF_RECORD_SAMPLE || (any && r->tick == tick))
			continue;
		if (any && r->seq - first > most)
			most = r->seq - first;
		any = true;
		tick = r->tick;
		first = r->seq;
	}
	return most;
}

/*
 * A fixed period (-c 100000: 40 overflows per tick) on the stand-in,
 * under kprof's limit of 8 per tick: the kernel's own per-tick limit
 * stops the counter at the overflow where kprof's trips
 * (kprof_throttle_end()), so at most the limit plus one overflows reach
 * the handler in a tick and at most one per throttled tick is dropped
 * (lost_throttled); a counter left running would deliver the other 32.
 * Also: no tick with more than 8 samples, the counters equal the records,
 * and, without lowerings, throttle-sim replays kprof's THROTTLE records
 * exactly.  With both_limits the kernel's limit trips at the same
 * overflow; the two are not told apart and count as kprof's.
 */
TEST_F_TIMEOUT(pmu, fixed_period_stops, 90)
{
	const __u64 limit = TT_PMU_RATE / TT_HZ;
	struct kprof_config cfg;
	unsigned int cpu, checked = 0;
	__u64 lowered = 0;
	double end;

	KP_RETURN_IF_SKIPPED();
	kp_cfg_init(&cfg, TT_PERIOD_NS);
	cfg.flags = 0;
	cfg.type = (__u32)self->type;
	cfg.config = 0;
	cfg.buffer_pages = 256;
	cfg.watermark = 4096;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	end = kp_now() + 1.0;
	while (kp_now() < end || !tt_each_unthrottled(&self->b, -1)) {
		kp_sleep_ms(50);
		ASSERT_EQ(0, tt_drain(&self->b)) TH_LOG("%s", self->b.err);
		ASSERT_GT(end + KP_PROGRESS_MS / 1000.0, kp_now())
			TH_LOG("no UNTHROTTLE on some CPU");
	}
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_EQ(0, tt_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);

	/*
	 * The limits are global: a lowering on one CPU (a slow handler, the
	 * debug kernel's) moves every CPU's per-tick limit, which a replay
	 * of one CPU's records cannot know.  Replay only runs without any.
	 */
	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kprof_counters k;

		if (!self->b.cpus[cpu].base || !kp_cpu_online(cpu))
			continue;
		kp_page_counters(&self->b.cpus[cpu], &k);
		lowered += k.lowerings;
	}
	if (lowered)
		TH_LOG("%llu lowerings: no replay through throttle-sim", lowered);
	/* As in freq_throttles: on the icount clock nothing lowers. */
	if (kp_icount())
		EXPECT_EQ(0ULL, lowered);

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];
		struct kprof_counters k;
		__u64 nr, most, most_ovf;

		if (!c->base || !kp_cpu_online(cpu))
			continue;
		checked++;
		tt_check_counters(c);
		kp_page_counters(c, &k);
		most = tt_max_per_tick(&tt_cpus[cpu], 0, 0, &nr);
		most_ovf = tt_max_overflows_per_tick(&tt_cpus[cpu]);
		TH_LOG("CPU %u: %llu throttled ticks, %llu dropped while throttled, at most %llu samples and %llu overflows in a tick",
		       cpu, k.throttles, k.lost_throttled, most, most_ovf);
		EXPECT_LT(0ULL, k.own_throttles) TH_LOG("CPU %u", cpu);
		EXPECT_EQ(0ULL, k.kernel_throttles) TH_LOG("CPU %u", cpu);
		EXPECT_GE(limit, most) TH_LOG("CPU %u", cpu);
		EXPECT_GE(limit + 1, most_ovf) TH_LOG("CPU %u", cpu);
		EXPECT_GE(k.throttles, k.lost_throttled) TH_LOG("CPU %u", cpu);
		if (!lowered)
			tt_pmu_replay(_metadata, &tt_cpus[cpu], cpu);
	}
	ASSERT_LT(0U, checked);
}

TEST_HARNESS_MAIN
