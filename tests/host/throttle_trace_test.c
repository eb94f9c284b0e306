// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_trace_test.c - common/kprof_throttle.h against the kernel's
 * throttle, interrupt by interrupt.
 *
 * Traces (cheap, expensive, ramping, bursty, with sysctl writes in
 * between) drive the header and the transliteration of
 * kernel/events/core.c (tests/lib/core_throttle.c, written from core.c
 * and sharing no code with the header) side by side for HZ 100/250/1000
 * x ge/gt/shadow x pct 0/25/100, and every decision and derived value is
 * compared after every interrupt.  The worked examples and the rules with
 * exact numbers: throttle_rules_test.c.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "kprof_throttle.h"
#include "core_throttle.h"

/* ------------------------------------------------------------------ */
/* Both side by side                                                   */
/* ------------------------------------------------------------------ */

struct pair {
	struct kprof_throttle_limits l;
	struct kprof_throttle_cpu c;
	struct kprof_throttle_count e;
	unsigned int semantics;
	unsigned long step;
	unsigned long samples, suppressed, stops, would_stops, lowered;
	unsigned long unthrottles;
};

static u64 rng_state;

static u64 rnd(void)
{
	/* xorshift64: deterministic traces */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static u64 rnd_range(u64 lo, u64 hi)
{
	return lo + rnd() % (hi - lo + 1);
}

static void compare_limits(struct __test_metadata *_metadata,
			   const struct pair *p)
{
	ASSERT_EQ(sysctl_perf_event_sample_rate, p->l.max_sample_rate)
		TH_LOG("step %lu", p->step);
	ASSERT_EQ(sysctl_perf_cpu_time_max_percent, p->l.cpu_time_max_percent)
		TH_LOG("step %lu", p->step);
	ASSERT_EQ(max_samples_per_tick, p->l.max_samples_per_tick)
		TH_LOG("step %lu", p->step);
	ASSERT_EQ(perf_sample_period_ns, p->l.sample_period_ns)
		TH_LOG("step %lu", p->step);
	ASSERT_EQ(perf_sample_allowed_ns, p->l.allowed_ns)
		TH_LOG("step %lu", p->step);
	ASSERT_EQ((u64)TICK_NSEC, p->l.tick_nsec);
	ASSERT_EQ((u64)HZ, p->l.hz);
	ASSERT_EQ(running_sample_length, p->c.running_len)
		TH_LOG("step %lu", p->step);
	ASSERT_EQ(perf_sample_allowed_ns != 0,
		  kprof_throttle_cost_control_enabled(&p->l));
}

static void pair_init(struct __test_metadata *_metadata, struct pair *p,
		      int hz, unsigned int semantics, int pct)
{
	memset(p, 0, sizeof(*p));
	kernel_boot(hz);
	ASSERT_EQ(0, kprof_throttle_limits_init(&p->l, hz, semantics));
	kprof_throttle_cpu_init(&p->c);
	kprof_throttle_count_init(&p->e);
	p->semantics = semantics;
	compare_limits(_metadata, p);

	ASSERT_EQ(perf_cpu_time_max_percent_handler_write(pct),
		  kprof_throttle_set_cpu_time_max_percent(&p->l, pct));
	compare_limits(_metadata, p);
}

/* One interrupt at @ts costing @cost on both sides. */
static void pair_interrupt(struct __test_metadata *_metadata, struct pair *p,
			   u64 ts, u64 cost)
{
	struct kprof_throttle_lowering low = { 0 };
	int v;
	u64 restart = 0, count;
	int k_unthrottles = kernel_did.unthrottle_logs;
	bool h_unthrottle, lowered, stops_next, same_tick;
	int ret;

	p->step++;
	/* What the header predicts for an interrupt in the same tick. */
	stops_next = kprof_throttle_stops_next(&p->l, &p->e);
	same_tick = p->e.tick == ts / TICK_NSEC;
	kernel_advance(ts);

	/* The kernel unthrottles at the tick, the header when asked. */
	h_unthrottle = kprof_throttle_unthrottle(&p->l, &p->e, ts, &restart);
	ASSERT_EQ(k_unthrottles + (int)h_unthrottle, kernel_did.unthrottle_logs)
		TH_LOG("step %lu t=%llu: unthrottle mismatch", p->step,
		       (unsigned long long)ts);
	if (h_unthrottle) {
		ASSERT_EQ(kernel_did.unthrottle_time, restart)
			TH_LOG("step %lu", p->step);
		p->unthrottles++;
	}

	v = kprof_throttle_interrupt(&p->l, &p->e, ts);
	if (same_tick)
		ASSERT_EQ(stops_next,
			  v == KPROF_THROTTLE_STOP || v == KPROF_THROTTLE_SUPPRESSED)
			TH_LOG("step %lu t=%llu: kprof_throttle_stops_next() said %d",
			       p->step, (unsigned long long)ts, stops_next);
	if (hwc.interrupts == MAX_INTERRUPTS) {
		/* pmu->stop()ped: the interrupt does not happen */
		ASSERT_EQ(KPROF_THROTTLE_SUPPRESSED, v)
			TH_LOG("step %lu t=%llu", p->step,
			       (unsigned long long)ts);
		p->suppressed++;
		compare_limits(_metadata, p);
		return;
	}

	switch (p->semantics) {
	case KPROF_THROTTLE_GE:
		ret = __perf_event_account_interrupt_ge(1);
		break;
	case KPROF_THROTTLE_GT:
		ret = __perf_event_account_interrupt_gt(1);
		break;
	default:
		ret = __perf_event_account_interrupt_shadow();
		break;
	}
	count = hwc.interrupts;
	if (ret && p->semantics != KPROF_THROTTLE_SHADOW) {
		/* the count that tripped, before MAX_INTERRUPTS */
		count = p->e.interrupts;
		ASSERT_EQ(KPROF_THROTTLE_STOP, v)
			TH_LOG("step %lu t=%llu", p->step,
			       (unsigned long long)ts);
		ASSERT_TRUE(p->semantics == KPROF_THROTTLE_GE ?
			    count >= (u64)max_samples_per_tick :
			    count > (u64)max_samples_per_tick);
		p->stops++;
	} else if (ret) {
		ASSERT_EQ(KPROF_THROTTLE_WOULD_STOP, v)
			TH_LOG("step %lu t=%llu", p->step,
			       (unsigned long long)ts);
		p->would_stops++;
	} else {
		ASSERT_EQ(KPROF_THROTTLE_SAMPLE, v)
			TH_LOG("step %lu t=%llu count %llu max %d", p->step,
			       (unsigned long long)ts,
			       (unsigned long long)hwc.interrupts,
			       max_samples_per_tick);
	}
	ASSERT_EQ(count, p->e.interrupts) TH_LOG("step %lu", p->step);
	ASSERT_EQ(perf_throttled_seq, p->e.tick) TH_LOG("step %lu", p->step);
	ASSERT_EQ(hwc.interrupts == MAX_INTERRUPTS, p->e.throttled != 0);

	/* The sample is taken (also the throttling one): feed its cost. */
	p->samples++;
	perf_sample_event_took(cost);
	lowered = kprof_throttle_sample_took(&p->l, &p->c, cost, &low);
	ASSERT_EQ(kernel_did.lowered, lowered)
		TH_LOG("step %lu t=%llu cost %llu", p->step,
		       (unsigned long long)ts, (unsigned long long)cost);
	if (lowered) {
		ASSERT_EQ(__report_avg, low.avg_ns);
		ASSERT_EQ(__report_allowed, low.old_allowed_ns);
		ASSERT_EQ((u64)max_samples_per_tick, low.max_samples_per_tick);
		ASSERT_EQ((u64)sysctl_perf_event_sample_rate,
			  low.max_sample_rate);
		p->lowered++;
	}
	compare_limits(_metadata, p);
}

/* A sysctl write on both sides: same verdict, same values after. */
static void pair_write(struct __test_metadata *_metadata, struct pair *p,
		       bool rate, long long val)
{
	int kret, hret;

	if (rate) {
		kret = perf_proc_update_handler_write(val);
		hret = kprof_throttle_set_max_sample_rate(&p->l, (u64)val);
	} else {
		kret = perf_cpu_time_max_percent_handler_write(val);
		hret = kprof_throttle_set_cpu_time_max_percent(&p->l, (u64)val);
	}
	ASSERT_EQ(kret, hret) TH_LOG("%s write %lld at step %lu",
				     rate ? "rate" : "pct", val, p->step);
	compare_limits(_metadata, p);
}

/* ------------------------------------------------------------------ */
/* Generated traces over HZ x semantics x pct                          */
/* ------------------------------------------------------------------ */

FIXTURE(throttle) {
	struct pair p;
};

FIXTURE_VARIANT(throttle) {
	int hz;
	unsigned int semantics;
	int pct;
};

#define THROTTLE_VARIANT(hz_, sem_, SEM_, pct_)				\
	FIXTURE_VARIANT_ADD(throttle, hz##hz_##_##sem_##_pct##pct_) {	\
		.hz = hz_,						\
		.semantics = KPROF_THROTTLE_##SEM_,			\
		.pct = pct_,						\
	}

#define THROTTLE_VARIANTS_HZ(hz_)				\
	THROTTLE_VARIANT(hz_, ge, GE, 0);			\
	THROTTLE_VARIANT(hz_, ge, GE, 25);			\
	THROTTLE_VARIANT(hz_, ge, GE, 100);			\
	THROTTLE_VARIANT(hz_, gt, GT, 0);			\
	THROTTLE_VARIANT(hz_, gt, GT, 25);			\
	THROTTLE_VARIANT(hz_, gt, GT, 100);			\
	THROTTLE_VARIANT(hz_, shadow, SHADOW, 0);		\
	THROTTLE_VARIANT(hz_, shadow, SHADOW, 25);		\
	THROTTLE_VARIANT(hz_, shadow, SHADOW, 100)

THROTTLE_VARIANTS_HZ(100);
THROTTLE_VARIANTS_HZ(250);
THROTTLE_VARIANTS_HZ(1000);

FIXTURE_SETUP(throttle)
{
	rng_state = 0x9e3779b97f4a7c15ULL ^ (u64)variant->hz * 7919 ^
		    (u64)variant->semantics * 104729 ^ (u64)variant->pct;
	pair_init(_metadata, &self->p, variant->hz, variant->semantics,
		  variant->pct);
}

FIXTURE_TEARDOWN(throttle)
{
}

/* The per-tick limit must have fired: the trace outruns max per tick. */
static void expect_tick_limit_hit(struct __test_metadata *_metadata,
				  const struct pair *p)
{
	if (p->semantics == KPROF_THROTTLE_SHADOW) {
		ASSERT_GT(p->would_stops, 0U);
		ASSERT_EQ(0U, p->stops);
		ASSERT_EQ(0U, p->suppressed);
	} else {
		ASSERT_GT(p->stops, 0U);
		ASSERT_GT(p->suppressed, 0U);
		ASSERT_GT(p->unthrottles, 0U);
		ASSERT_EQ(0U, p->would_stops);
	}
}

static void expect_lowerings(struct __test_metadata *_metadata,
			     const struct pair *p, int pct)
{
	if (pct == 0 || pct == 100) {
		ASSERT_EQ(0U, p->lowered);
		ASSERT_EQ(0U, p->c.running_len);
	} else {
		ASSERT_GT(p->lowered, 0U);
	}
}

/* ~105 kHz of 0.2-1.2 us interrupts: only the per-tick limit acts. */
TEST_F(throttle, cheap)
{
	u64 ts = 0;
	int i;

	for (i = 0; i < 200000; i++) {
		ts += rnd_range(8000, 11000);
		pair_interrupt(_metadata, &self->p, ts, rnd_range(200, 1200));
	}
	expect_tick_limit_hit(_metadata, &self->p);
	ASSERT_EQ(0U, self->p.lowered);
}

/* 12.5 kHz of 15-25 us interrupts: the cost controller lowers the rate. */
TEST_F(throttle, expensive)
{
	u64 ts = 0;
	int i;

	for (i = 0; i < 100000; i++) {
		ts += rnd_range(70000, 90000);
		pair_interrupt(_metadata, &self->p, ts, rnd_range(15000, 25000));
	}
	expect_lowerings(_metadata, &self->p, variant->pct);
	if (variant->pct == 25)
		expect_tick_limit_hit(_metadata, &self->p);
}

/* 200 kHz with a cost ramping from 100 ns to 40 us. */
TEST_F(throttle, ramp)
{
	const int n = 300000;
	u64 ts = 0;
	int i;

	for (i = 0; i < n; i++) {
		ts += rnd_range(4000, 6000);
		pair_interrupt(_metadata, &self->p, ts,
			       100 + (u64)i * 39900 / n);
	}
	expect_tick_limit_hit(_metadata, &self->p);
	expect_lowerings(_metadata, &self->p, variant->pct);
}

/* Bursts of 1 us interrupts separated by idle gaps of up to 30 ms. */
TEST_F(throttle, bursts)
{
	u64 ts = 0;
	int b, i;

	for (b = 0; b < 150; b++) {
		int len = rnd_range(1, 3000);

		ts += rnd_range(0, 30000000);
		for (i = 0; i < len; i++) {
			ts += rnd_range(500, 1500);
			pair_interrupt(_metadata, &self->p, ts,
				       rnd_range(100, 8000));
		}
	}
	expect_tick_limit_hit(_metadata, &self->p);
	expect_lowerings(_metadata, &self->p, variant->pct);
}

/*
 * Random interrupts with sysctl writes in between: refused writes (pct
 * 0/100, rate out of range), max_samples_per_tick == 1 (the case
 * f51972e6 fixed), the cost controller switched on and off.
 */
TEST_F(throttle, sysctl_writes)
{
	u64 ts = 0;
	int i;

	for (i = 0; i < 300000; i++) {
		if (i % 4000 == 0) {
			static const long long rates[] = {
				0, 1, 2, -1, 999, 100000, 63250,
				(long long)INT_MAX, (long long)INT_MAX + 1,
				1000000001LL,
			};
			long long val;
			bool rate = rnd() & 1;

			if (rate) {
				switch (rnd() % 4) {
				case 0:
					val = HZ;
					break;
				case 1:
					val = HZ + 1;
					break;
				case 2:
					val = rates[rnd() % 10];
					break;
				default:
					val = rnd_range(1, 300000);
					break;
				}
				if (val < 0)
					continue;	/* u64 in the header */
			} else {
				val = rnd_range(0, 101);
			}
			pair_write(_metadata, &self->p, rate, val);
		}
		ts += rnd() % 4 ? rnd_range(100, 20000) :
				  rnd_range(0, 3 * TICK_NSEC);
		pair_interrupt(_metadata, &self->p, ts, rnd_range(0, 30000));
	}
	ASSERT_GT(self->p.samples, 0U);
	ASSERT_GT(self->p.stops + self->p.would_stops, 0U);
}

TEST_HARNESS_MAIN
