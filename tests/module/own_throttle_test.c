// SPDX-License-Identifier: GPL-2.0
/*
 * kprof's own throttle in the module, with cpu-clock at 10 kHz
 * (period 100000 ns) on every CPU while one spinner per CPU burns it.
 *
 * per_tick_limit: max_sample_rate 1000 (4 per tick at HZ 250).  THROTTLE
 *	and UNTHROTTLE alternate, no sample between them, the UNTHROTTLE is
 *	in a later tick than its THROTTLE, no tick has more than 4 samples,
 *	and so no span more than 4 per tick it covers.  Those that did not
 *	fit (a reader the host starved) count in the LOST records, which
 *	keep the alternation; per_tick_limit_lost_records makes sure there
 *	are some, with a small ring the reader leaves full.  kprof's cost
 *	controller is off here (and in shadow_never_stops): its lowerings
 *	would move the limit.
 * cost_lowering: one CPU sampled, max_sample_rate 10000000 (an allowed
 *	cost of 25 ns per sample, below any handler's).  RATE_LOWERED
 *	records appear; `kprofcat throttle-sim` (the CLI) fed
 *	the recorded (time, cost) pairs prints the same lowerings, field by
 *	field and in order, and the same THROTTLE records; after the last
 *	lowering no tick has more samples than it announces.
 * All: overflows are conserved and the throttle counters match the
 *	records.
 *
 * The kernel's own cost controller is switched off here
 * (kernel.perf_cpu_time_max_percent = 0), so it does not throttle kprof's
 * event as well; the setting is restored afterwards.  The kernel's own
 * limit on kprof's event: kernel_throttle_test; both on the PMU stand-in:
 * pmu_throttle_test.
 */
#include "kprof_test.h"

#include "kprof_throttle.h"
#include "kselftest_harness.h"
#include "testpmu.h"
#include "throttle_replay.h"
#include "throttle_run.h"

/*
 * cost_lowering's max_sample_rate: at 25% the kernel's formula allows
 * NSEC_PER_SEC / rate * 25 / 100 = 25 ns per sample, less than any
 * handler that reads the clock twice and copies a record takes, so the
 * first fed cost already lowers; no busy-wait is needed to get there.
 */
#define TT_LOWER_RATE	10000000

FIXTURE(throttle) {
	int fd;
	struct kp_buffers b;
	long kernel_pct;
	pid_t spin[TT_MAX_CPUS];
	unsigned int nr_spin;
};

FIXTURE_SETUP(throttle)
{
	memset(tt_cpus, 0, sizeof(tt_cpus));
	self->nr_spin = 0;
	self->kernel_pct = -1;
	self->fd = kp_open();
	if (self->fd < 0)
		SKIP(return, "%s: %s (kprof.ko not loaded?)", KP_DEV,
		     strerror(errno));
	kp_stop(self->fd);
	if (!tt_sysctl_read(TT_PCT, &self->kernel_pct))
		ASSERT_EQ(0, tt_sysctl_write(TT_PCT, 0));
	ASSERT_EQ(0, tt_config_clock(self->fd, &self->b, 256))
		TH_LOG("%s", self->b.err);
}

FIXTURE_TEARDOWN(throttle)
{
	unsigned int i;

	tt_release(self->fd, &self->b, self->spin, self->nr_spin);
	if (self->kernel_pct >= 0)
		tt_sysctl_write(TT_PCT, self->kernel_pct);
	for (i = 0; i < TT_MAX_CPUS; i++)
		free(tt_cpus[i].r);
}

/* The fixture's data, for the helpers below. */
typedef FIXTURE_DATA(throttle) throttle_data;

static int tt_run(throttle_data *self, int ms, tt_enough_fn enough)
{
	return tt_run_on(self->fd, &self->b, self->spin, &self->nr_spin, -1,
			 ms, enough);
}

/* per_tick_limit's pairing of THROTTLE and UNTHROTTLE records, so far. */
struct tt_pairing {
	const struct tt_rec *thr;	/* kprof's THROTTLE not ended */
	unsigned int open;		/* THROTTLEs not ended: 0 or 1 */
	__u64 pairs, first, last;
};

/* Pair CPU @cpu's record @i, @r, on to @p. */
static void tt_pair_record(struct __test_metadata *_metadata, unsigned int cpu,
			   size_t i, const struct tt_rec *r, struct tt_pairing *p)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ);

	switch (r->type) {
	case KPROF_RECORD_SAMPLE:
		if (!p->first)
			p->first = r->time;
		p->last = r->time;
		if (r->misc & KPROF_MISC_NMI)
			break;
		/* Stopped: nothing between the pair. */
		EXPECT_EQ(0U, p->open)
			TH_LOG("CPU %u: sample seq %llu at %llu inside a throttle",
			       cpu, r->seq, r->time);
		break;
	case KPROF_RECORD_LOST:
		/*
		 * Throttle records that did not fit (a reader the host
		 * starved): a throttle still open is of a limit not told.
		 */
		ASSERT_TRUE(tt_pair_lost(cpu, i, r, &p->open))
			TH_LOG("CPU %u: a LOST record of %u THROTTLE and %u UNTHROTTLE that cannot alternate from here",
			       cpu, r->lost_throttle, r->lost_unthrottle);
		if (r->lost_throttle || r->lost_unthrottle)
			p->thr = NULL;
		break;
	case KPROF_RECORD_THROTTLE:
		if (p->open)
			tt_log_records(cpu, i, 12);
		ASSERT_EQ(0U, p->open)
			TH_LOG("CPU %u: two THROTTLEs", cpu);
		if (!(r->misc & KPROF_MISC_THROTTLE_OWN)) {
			p->open++;	/* the kernel's alone */
			break;
		}
		EXPECT_EQ(4ULL, r->interrupts)
			TH_LOG("CPU %u", cpu);
		EXPECT_EQ(r->time / tick_nsec, r->tick);
		p->thr = r;
		p->open++;
		break;
	case KPROF_RECORD_UNTHROTTLE:
		if (!p->open)
			tt_log_records(cpu, i, 12);
		ASSERT_LT(0U, p->open)
			TH_LOG("CPU %u: UNTHROTTLE without THROTTLE", cpu);
		p->open--;
		if (!p->thr)	/* a kernel's, or one whose THROTTLE was lost */
			break;
		/* Restarted in a later tick: a real gap. */
		EXPECT_LT(p->thr->tick, r->tick)
			TH_LOG("CPU %u", cpu);
		EXPECT_LE((p->thr->tick + 1) * tick_nsec, r->time)
			TH_LOG("CPU %u", cpu);
		EXPECT_LE(p->thr->seq, r->seq);
		p->pairs++;
		p->thr = NULL;
		break;
	}
}

/*
 * per_tick_limit's checks of what @b read (tt_cpus), every online CPU's.
 * @lost: records may have been lost to a full ring, told by LOST records.
 */
static void tt_check_per_tick(struct __test_metadata *_metadata,
			      struct kp_buffers *b, bool lost)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ);
	unsigned int cpu, checked = 0;

	for (cpu = 0; cpu < b->nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kp_cpu *c = &b->cpus[cpu];
		const struct tt_cpu *t = &tt_cpus[cpu];
		struct tt_pairing p = { 0 };
		__u64 most, nr;
		double secs;
		size_t i;

		if (!c->base || !kp_cpu_online(cpu))
			continue;
		checked++;
		tt_check_counters(c);
		if (lost)
			EXPECT_LT(0ULL, c->lost_throttle + c->lost_unthrottle)
				TH_LOG("CPU %u: no LOST record told of a throttle record", cpu);
		for (i = 0; i < t->n; i++)
			tt_pair_record(_metadata, cpu, i, &t->r[i], &p);
		EXPECT_LT(0ULL, p.pairs) TH_LOG("CPU %u never throttled", cpu);
		/*
		 * cpu-clock is stopped, not dropped (kprof_throttle_way()):
		 * the stop's irq_work IPI is raised inside the overflow's
		 * hrtimer interrupt and its vector outranks the local
		 * timer's, so it runs before the event's next expiry; at
		 * most the one overflow of a stall can slip in per throttle.
		 */
		{
			struct kprof_counters k;

			kp_page_counters(c, &k);
			EXPECT_GE(k.throttles, k.lost_throttled)
				TH_LOG("CPU %u: %llu overflows dropped while throttled",
				       cpu, k.lost_throttled);
		}
		most = tt_max_per_tick(t, tick_nsec, 0, &nr);
		EXPECT_GE(4ULL, most) TH_LOG("CPU %u: %llu samples in a tick",
					     cpu, most);
		secs = p.last > p.first ? (p.last - p.first) / 1e9 : 0;
		TH_LOG("CPU %u: %llu pairs, %llu samples in %.2f s: %.0f/s, at most %llu per tick",
		       cpu, p.pairs, nr, secs, secs ? nr / secs : 0.0, most);
		/*
		 * At most 4 per tick of local_clock() (checked above), so over
		 * the samples' span, partial ticks at both ends included: at
		 * most 4 * (span / TICK_NSEC + 2), exactly, whatever the rate
		 * the emulator achieved.
		 */
		if (nr)
			EXPECT_GE(4 * ((p.last - p.first) / tick_nsec + 2), nr)
				TH_LOG("CPU %u", cpu);
	}
	ASSERT_LT(0U, checked);
}

TEST_F_TIMEOUT(throttle, per_tick_limit, 60)
{
	KP_RETURN_IF_SKIPPED();
	/*
	 * The cost controller off (percent 0): the limits are global, and a
	 * vCPU stalled inside one handler (a 20 ms "cost" under a loaded
	 * host) lowers the limit below 4 for every CPU, which is the cost
	 * test's business, not this one's.
	 */
	ASSERT_EQ(0, tt_set_rate_no_cost(self->fd, KPROF_THROTTLE_GE, 1000))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run(self, 2000, tt_each_unthrottled))
		TH_LOG("%s", self->b.err);
	tt_check_per_tick(_metadata, &self->b, false);
}

/*
 * per_tick_limit with a ring of 4 pages that the reader leaves alone
 * until each CPU lost a throttle record to it: what did not fit is
 * counted in LOST records, so the THROTTLE and UNTHROTTLE records still
 * pair up through them, and the counters still match.
 */
TEST_F_TIMEOUT(throttle, per_tick_limit_lost_records, 90)
{
	KP_RETURN_IF_SKIPPED();
	kp_unmap(&self->b);
	ASSERT_EQ(0, tt_config_clock(self->fd, &self->b, 4))
		TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, tt_set_rate_no_cost(self->fd, KPROF_THROTTLE_GE, 1000))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run_filled(self->fd, &self->b, self->spin,
				   &self->nr_spin, 1000, tt_each_unthrottled))
		TH_LOG("%s", self->b.err);
	tt_check_per_tick(_metadata, &self->b, true);
}

/* Each CPU would have been stopped, and went on past 4 in a tick. */
static bool tt_each_went_past(const struct kp_buffers *b, int only)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ), nr;
	unsigned int cpu;

	if (!tt_each_cpu_has(b, only, KPROF_RECORD_WOULD_THROTTLE))
		return false;
	for (cpu = 0; cpu < b->nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++)
		if (b->cpus[cpu].base && kp_cpu_online(cpu) &&
		    tt_max_per_tick(&tt_cpus[cpu], tick_nsec, 0, &nr) <= 4)
			return false;
	return true;
}

/*
 * Shadow semantics: the same per-tick limit never stops the event, and
 * each tick where ge would have stopped it carries one WOULD_THROTTLE.
 */
TEST_F_TIMEOUT(throttle, shadow_never_stops, 60)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ);
	unsigned int cpu, checked = 0;

	KP_RETURN_IF_SKIPPED();
	/* The cost controller off, as in per_tick_limit. */
	ASSERT_EQ(0, tt_set_rate_no_cost(self->fd, KPROF_THROTTLE_SHADOW, 1000))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run(self, 1000, tt_each_went_past))
		TH_LOG("%s", self->b.err);

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];
		const struct tt_cpu *t = &tt_cpus[cpu];
		__u64 would = 0, last_tick = ~0ULL, most, nr;
		size_t i;

		if (!c->base || !kp_cpu_online(cpu))
			continue;
		checked++;
		tt_check_counters(c);
		EXPECT_EQ(0ULL, c->throttle_recs) TH_LOG("CPU %u", cpu);
		EXPECT_EQ(0ULL, c->unthrottle_recs) TH_LOG("CPU %u", cpu);
		for (i = 0; i < t->n; i++) {
			const struct tt_rec *r = &t->r[i];

			if (r->type != KPROF_RECORD_WOULD_THROTTLE)
				continue;
			EXPECT_EQ(4ULL, r->interrupts) TH_LOG("CPU %u", cpu);
			EXPECT_NE(last_tick, r->tick)
				TH_LOG("CPU %u: two in tick %llu", cpu, r->tick);
			last_tick = r->tick;
			would++;
		}
		EXPECT_LT(0ULL, would) TH_LOG("CPU %u never would-throttled", cpu);
		most = tt_max_per_tick(t, tick_nsec, 0, &nr);
		TH_LOG("CPU %u: %llu WOULD_THROTTLE, %llu samples, at most %llu per tick",
		       cpu, would, nr, most);
		/* Not stopped: some tick went past the limit of 4. */
		EXPECT_LT(4ULL, most) TH_LOG("CPU %u", cpu);
	}
	ASSERT_LT(0U, checked);
}

/*
 * What the model guarantees about the last lowering, from the recorded
 * costs (never from an assumed handler speed: the emulator adds its own
 * time on top of the busy-wait, so the settled limit moves between runs).
 *
 * perf_sample_event_took() lowers while running_len / 128 > allowed and
 * then sets allowed = avg + avg / 4 and max = (TICK_NSEC / 100 * pct) /
 * allowed.  So, replaying the running average over the SAMPLE costs
 * (the same pairs throttle-sim was fed):
 *  - the record's new allowed is its avg plus the 25% margin, and its
 *    max follows from that allowed exactly;
 *  - no sample after it has a running average above that allowed (or it
 *    would have lowered again), so allowed lies in [avg_end, 1.25 * avg]
 *    and max <= budget / avg_end per tick.
 */
static void tt_check_last_lowering(struct __test_metadata *_metadata,
				   const struct tt_cpu *t,
				   const struct tt_rec *last_low,
				   __u64 tick_nsec)
{
	__u64 budget = tick_nsec / 100 *
		       KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT;
	__u64 allowed = last_low->low.avg_ns + last_low->low.avg_ns / 4;
	__u64 running = 0, avg = 0, worst = 0;
	bool after = false;
	size_t i;

	for (i = 0; i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];

		if (r == last_low)
			after = true;
		if (r->type != KPROF_RECORD_SAMPLE)
			continue;
		running -= running / 128;
		running += r->cost;
		avg = running / 128;
		if (after && avg > worst)
			worst = avg;
	}
	TH_LOG("last lowering: avg %llu ns, allowed %llu ns, %llu per tick; running average afterwards at most %llu ns, at the end %llu ns",
	       last_low->low.avg_ns, allowed, last_low->low.max_samples_per_tick,
	       worst, avg);
	EXPECT_EQ(allowed < budget ? budget / allowed : 1,
		  last_low->low.max_samples_per_tick);
	EXPECT_GE(allowed, worst) TH_LOG("a lowering was due after the last one");
	ASSERT_LT(0ULL, avg);
	EXPECT_GE(budget / avg, last_low->low.max_samples_per_tick);
}

/*
 * The first tick (see tt_tick_of()) after the one @time_ns falls in: for
 * the module's ticks, after that of the last SAMPLE at or before it.
 */
static __u64 tt_tick_after(const struct tt_cpu *t, __u64 time_ns,
			   __u64 tick_nsec)
{
	__u64 tick = 0;
	size_t i;

	if (tick_nsec)
		return time_ns / tick_nsec + 1;
	for (i = 0; i < t->n && t->r[i].time <= time_ns; i++)
		if (t->r[i].type == KPROF_RECORD_SAMPLE)
			tick = t->r[i].tick;
	return tick + 1;
}

/*
 * The tick unit tt_cost_lowering() judges in (see tt_tick_of()), for
 * tt_lowered_and_after(), whose signature cannot carry it.
 */
static __u64 tt_lowering_kt;

/*
 * A lowering with more than 10 samples in the ticks after its own, the
 * samples tt_cost_lowering() checks its limit on.  Records are only ever
 * added, so once true this stays true however many lowerings follow
 * before the run stops.
 */
static bool tt_lowered_and_after(const struct kp_buffers *b, int only)
{
	const struct tt_cpu *t = &tt_cpus[only];
	__u64 nr;
	size_t i;

	(void)b;
	for (i = 0; i < t->n; i++) {
		if (t->r[i].type != KPROF_RECORD_RATE_LOWERED)
			continue;
		tt_max_per_tick(t, tt_lowering_kt,
				tt_tick_after(t, t->r[i].time, tt_lowering_kt),
				&nr);
		if (nr > 10)
			return true;
	}
	return false;
}

/*
 * From the tick after lowering @low on (see tt_tick_of()), ge allows
 * max_samples_per_tick per tick the module counts in, so over whole
 * ticks the rate is at most max_samples_per_tick * HZ = the announced
 * max_sample_rate, with no tolerance.  Samples over their own span
 * (first to last, partial ticks at both ends) may exceed it by up to 2
 * ticks' worth, so that rate is only logged.  Returns whether more than
 * 10 samples were checked.
 */
static bool tt_check_lowering_limit(struct __test_metadata *_metadata,
				    const struct tt_cpu *t,
				    const struct tt_rec *low, __u64 kt,
				    __u64 tick_nsec)
{
	__u64 from = tt_tick_after(t, low->time, kt);
	__u64 nr, most = tt_max_per_tick(t, kt, from, &nr);
	__u64 first = ~0ULL, last = 0, ticks;
	size_t i;

	for (i = 0; i < t->n; i++)
		if (t->r[i].type == KPROF_RECORD_SAMPLE &&
		    tt_tick_of(&t->r[i], kt) >= from) {
			if (first == ~0ULL)
				first = tt_tick_of(&t->r[i], kt);
			last = tt_tick_of(&t->r[i], kt);
		}
	if (!nr)
		return false;
	ticks = last - first + 1;
	TH_LOG("lowering at %llu to %llu per tick: after it %llu samples in %llu ticks (%.0f/s), at most %llu per tick",
	       low->time, low->low.max_samples_per_tick, nr, ticks,
	       nr * 1e9 / (ticks * tick_nsec), most);
	EXPECT_GE(low->low.max_samples_per_tick, most)
		TH_LOG("lowering at %llu", low->time);
	EXPECT_GE(low->low.max_sample_rate * ticks * tick_nsec,
		  nr * 1000000000ULL) TH_LOG("lowering at %llu", low->time);
	return nr > 10;
}

/*
 * A 20 us busy-wait in the handler, cpu-clock at 10 kHz, ONE CPU sampled:
 * throttle-sim models one CPU, while kprof's limits are global (a lowering
 * on another CPU would change this CPU's allowed).
 *
 * Lowerings depend only on the sequence of costs fed to
 * perf_sample_event_took(), not on ticks.  With KPROF_THROTTLE_F_FEED_CLOCK
 * (cpu-clock is not fed by default, as in the kernel) the module feeds the
 * cost of every overflow of the event that it does not suppress as
 * throttled: every committed SAMPLE, whose cost_ns is exactly what was fed
 * (its whole handler, taken just before publishing), also the one that
 * trips the per-tick limit, and the overflows lost to a full buffer or to
 * nesting, which have no record (asserted 0 below).  throttle-sim feeds
 * every line it does not count as throttled, also the one that
 * throttles.  Run with --semantics shadow, the sim counts no line as
 * throttled, so it feeds exactly the
 * recorded costs and must print the module's RATE_LOWERED records, in
 * order, field by field, whatever the per-tick limit did.  That holds
 * while the module runs ge and really throttles: its own limit is what
 * makes "the delivered rate falls to what they announce" observable.
 *
 * Ticks agree too: on cpu-clock the module counts per-tick interrupts in
 * local_clock() / TICK_NSEC, the time its SAMPLE records carry, which is
 * what the sim divides; on the stand-in in the kernel's ticks, which each
 * SAMPLE carries and the sim is given.  So with no overflow lost to a full buffer or to
 * nesting (counted by the module's per-tick limit, absent from the
 * records: asserted 0), --semantics ge must also print the module's
 * THROTTLE records exactly (time, tick, interrupts) and its lowerings.
 */

static void tt_cost_lowering(struct __test_metadata *_metadata,
			     throttle_data *self, int pmu_type)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ);
	/* The ticks the module counts in: the kernel's on the stand-in. */
	__u64 kt = pmu_type >= 0 ? 0 : tick_nsec;
	const struct tt_rec *last_low = NULL, *prev_sample = NULL;
	const struct tt_rec *judged = NULL;
	struct tt_sim shadow = { 0 }, ge = { 0 };
	size_t i, nl = 0, nt = 0, nu = 0;
	struct kprof_config cfg;
	struct kprof_cpu_stats st;
	struct kprof_counters k;
	const struct tt_cpu *t;
	unsigned int one, cpu;
	struct kp_cpu *c;
	char err[8400];

	one = tt_one_cpu(&self->b);
	kp_cfg_init(&cfg, TT_PERIOD_NS);
	if (pmu_type >= 0) {
		/* The stand-in counts ns: the same 10 kHz, in NMIs. */
		cfg.type = (__u32)pmu_type;
		cfg.config = 0;
	}
	cfg.flags = 0;
	cfg.buffer_pages = 256;
	cfg.watermark = 4096;
	kp_cfg_add_cpu(&cfg, one);
	tt_lowering_kt = kt;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	/*
	 * cpu-clock: the kernel would not feed its cost, the knob does; PMU
	 * NMIs feed by default.
	 */
	ASSERT_EQ(0, tt_set_throttle_flags(self->fd, KPROF_THROTTLE_GE,
					   TT_LOWER_RATE, 25,
					   pmu_type >= 0 ? 0 :
					   KPROF_THROTTLE_F_FEED_CLOCK))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run_on(self->fd, &self->b, self->spin, &self->nr_spin,
			       (int)one, 3000, tt_lowered_and_after))
		TH_LOG("%s", self->b.err);

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++)
		if (cpu != one)
			EXPECT_EQ(0UL, tt_cpus[cpu].n) TH_LOG("CPU %u sampled", cpu);
	c = &self->b.cpus[one];
	t = &tt_cpus[one];
	ASSERT_NE(NULL, c->base);
	tt_check_counters(c);
	kp_page_counters(c, &k);
	ASSERT_EQ(0ULL, k.lost_full) TH_LOG("buffer too small for the test");
	ASSERT_EQ(0ULL, k.lost_nested);
	/* Every stand-in overflow is an NMI, no cpu-clock one is. */
	ASSERT_EQ(pmu_type >= 0 ? k.samples : 0ULL, k.nmi_samples);

	ASSERT_EQ(0, tt_throttle_sim(t, "shadow",
				     TT_LOWER_RATE, !kt, &shadow, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, tt_throttle_sim(t, "ge",
				     TT_LOWER_RATE, !kt, &ge, err, sizeof(err)))
		TH_LOG("%s", err);

	for (i = 0; i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];
		const struct tt_sim_line *x, *y;

		switch (r->type) {
		case KPROF_RECORD_SAMPLE:
			prev_sample = r;
			break;
		case KPROF_RECORD_RATE_LOWERED:
			x = tt_sim_nth(&shadow, 'l', nl);
			y = tt_sim_nth(&ge, 'l', nl);
			ASSERT_NE(NULL, x)
				TH_LOG("RATE_LOWERED %zu at %llu (avg %llu): throttle-sim predicts only %zu",
				       nl, r->time, r->low.avg_ns, nl);
			ASSERT_NE(NULL, prev_sample);
			/* Written right after the sample whose cost lowered. */
			EXPECT_EQ(prev_sample->time, x->t) TH_LOG("lowering %zu", nl);
			EXPECT_EQ(r->low.avg_ns, x->avg) TH_LOG("lowering %zu", nl);
			EXPECT_EQ(r->low.old_allowed_ns, x->allowed)
				TH_LOG("lowering %zu", nl);
			EXPECT_EQ(r->low.max_samples_per_tick, x->max)
				TH_LOG("lowering %zu", nl);
			EXPECT_EQ(r->low.max_sample_rate, x->rate)
				TH_LOG("lowering %zu", nl);
			ASSERT_NE(NULL, y) TH_LOG("ge: no lowering %zu", nl);
			EXPECT_TRUE(x->t == y->t && x->avg == y->avg &&
				    x->allowed == y->allowed && x->max == y->max &&
				    x->rate == y->rate)
				TH_LOG("lowering %zu differs between shadow and ge", nl);
			last_low = r;
			nl++;
			break;
		case KPROF_RECORD_THROTTLE:
			x = tt_sim_nth(&ge, 't', nt);
			ASSERT_NE(NULL, x)
				TH_LOG("THROTTLE %zu at %llu: throttle-sim predicts only %zu",
				       nt, r->time, nt);
			EXPECT_EQ(r->time, x->t) TH_LOG("throttle %zu", nt);
			EXPECT_EQ(r->tick, x->tick) TH_LOG("throttle %zu", nt);
			EXPECT_EQ(r->interrupts, x->interrupts)
				TH_LOG("throttle %zu", nt);
			nt++;
			break;
		case KPROF_RECORD_UNTHROTTLE:
			/* The sim restarts at the tick; the module then or later. */
			x = tt_sim_nth(&ge, 'u', nu);
			if (x)
				EXPECT_LE(x->t, r->time) TH_LOG("unthrottle %zu", nu);
			nu++;
			break;
		}
	}
	EXPECT_EQ(tt_sim_count(&shadow, 'l'), nl);
	EXPECT_EQ(tt_sim_count(&ge, 't'), nt);
	/* The module also restarts after a last throttle with no sample after. */
	EXPECT_TRUE(nu == tt_sim_count(&ge, 'u') || nu == tt_sim_count(&ge, 'u') + 1)
		TH_LOG("%zu UNTHROTTLE, sim %zu", nu, tt_sim_count(&ge, 'u'));
	free(shadow.l);
	free(ge.l);
	ASSERT_LT(0UL, nl) TH_LOG("no RATE_LOWERED record");

	/* One CPU lowers, nobody races it: its last record is in effect. */
	ASSERT_EQ(0, kp_get_stats(self->fd, one, &st));
	EXPECT_EQ(last_low->low.max_samples_per_tick, st.max_samples_per_tick);
	EXPECT_EQ(last_low->low.max_sample_rate, st.max_sample_rate);
	EXPECT_EQ(last_low->low.max_samples_per_tick * TT_HZ,
		  last_low->low.max_sample_rate);
	tt_check_last_lowering(_metadata, t, last_low, tick_nsec);

	/*
	 * The delivered rate falls to what each lowering announced, checked
	 * on the samples of the ticks after it: the run lasted until one
	 * lowering had more than 10 there (tt_lowered_and_after()), and later
	 * lowerings only lower the limit further (allowed only grows).
	 */
	for (i = 0; i < t->n; i++)
		if (t->r[i].type == KPROF_RECORD_RATE_LOWERED &&
		    tt_check_lowering_limit(_metadata, t, &t->r[i], kt, tick_nsec))
			judged = &t->r[i];
	TH_LOG("CPU %u: %zu lowerings matched throttle-sim (last %llu per tick, %llu/s), %zu throttles matched, %zu unthrottles",
	       one, nl, last_low->low.max_samples_per_tick,
	       last_low->low.max_sample_rate, nt, nu);
	/*
	 * On the stand-in, emulated NMIs cost so much and so unevenly that
	 * the controller may still be lowering (at 1 per tick) at the end of
	 * the run; the replay above is its check there.  Not on the icount
	 * clock, where every NMI costs its instructions and the average
	 * settles within the run.
	 */
	if (pmu_type >= 0 && !judged && !kp_icount())
		return;
	ASSERT_NE(NULL, judged) TH_LOG("no lowering has over 10 samples after it");
}

/*
 * Also the log: kprof's lowering lines never pass for the kernel's
 * "perf: interrupt took too long" (kernel.perf_event_max_sample_rate is
 * not changed), which the log's readers (tests/experiments/throttle-vs-perf,
 * testpmu_test) count as the kernel's.
 */
TEST_F_TIMEOUT(throttle, cost_lowering, 90)
{
	static const char mark[] = "own_throttle_test: cost_lowering\n";
	char *log, *line, *save;
	unsigned int ours = 0;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, tp_log_mark(mark));
	tt_cost_lowering(_metadata, self, -1);
	log = malloc(1 << 20);
	ASSERT_NE(NULL, log);
	ASSERT_EQ(0, tp_log_since("own_throttle_test: cost_lowering", log, 1 << 20));
	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "kprof: "))
			continue;
		EXPECT_EQ(NULL, strstr(line, "interrupt took too long"))
			TH_LOG("%s", line);
		ours += !!strstr(line, "lowering kprof's own max_sample_rate");
	}
	/* Ratelimited, so possibly none: logged, not asserted. */
	TH_LOG("%u kprof lowering lines", ours);
	free(log);
}

/*
 * The same on the PMU stand-in (tests/vm/run --testpmu) in period mode:
 * NMI overflows feed by default, and the kernel's limit, armed by kprof,
 * stops the counter (kprof_throttle_end()); an overflow kprof still
 * drops is one the replay sees as not happening.
 */
TEST_F_TIMEOUT(throttle, cost_lowering_testpmu, 90)
{
	int type;

	KP_RETURN_IF_SKIPPED();
	type = tp_type();
	if (type < 0)
		SKIP(return, "no PMU stand-in (tests/vm/run --testpmu)");
	tt_cost_lowering(_metadata, self, type);
}

TEST_HARNESS_MAIN
