// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_rules_test.c - common/kprof_throttle.h's worked examples and
 * rules, with exact numbers: the kernel's defaults, the seed's lowerings
 * and sysctl writes, the sysctls' rules, f51972e6's one-per-tick case, the
 * unthrottle at the next tick, the caller's ticks, and kprof.ko's arming
 * of the kernel's own throttle.  Where the kernel's numbers are checked
 * too, against the transliteration of kernel/events/core.c
 * (tests/lib/core_throttle.c).  The header and the kernel interrupt by
 * interrupt over generated traces: throttle_trace_test.c.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "kprof_throttle.h"
#include "core_throttle.h"

/* ------------------------------------------------------------------ */
/* The seed's worked examples and the rules, with exact numbers        */
/* ------------------------------------------------------------------ */

/* Boot values: rate 100000, per tick DIV_ROUND_UP(100000, HZ). */
TEST(defaults)
{
	static const struct {
		unsigned int hz;
		u64 tick_nsec;
		int per_tick;
	} d[] = {
		{ 100, 10000000, 1000 },
		{ 250, 4000000, 400 },
		{ 300, 3333333, 334 },
		{ 1000, 1000000, 100 },
	};
	struct kprof_throttle_limits l;
	unsigned int i;

	for (i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		ASSERT_EQ(0, kprof_throttle_limits_init(&l, d[i].hz,
							KPROF_THROTTLE_GE));
		ASSERT_EQ(d[i].tick_nsec, l.tick_nsec);
		ASSERT_EQ(100000, l.max_sample_rate);
		ASSERT_EQ(25, l.cpu_time_max_percent);
		ASSERT_EQ(d[i].per_tick, l.max_samples_per_tick);
		ASSERT_EQ(10000, l.sample_period_ns);
		ASSERT_EQ(2500, l.allowed_ns);
	}
	ASSERT_EQ(-EINVAL, kprof_throttle_limits_init(&l, 0, KPROF_THROTTLE_GE));
	ASSERT_EQ(-EINVAL, kprof_throttle_limits_init(&l, 250, 3));
	ASSERT_EQ(-EINVAL, kprof_throttle_set_semantics(&l, 3));
}

/*
 * Seed 000, section 12: a 5 us average at HZ 250 and 25%: margin 6250 ns,
 * 25% of a 4 ms tick is 1000000 ns, 1000000 / 6250 = 160 per tick, 160 x
 * 250 = 40000/s; allowed becomes the margined 6250 ns, period 25000 ns.
 */
TEST(seed_5us_average_hz250)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_cpu c;
	struct kprof_throttle_lowering low;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	kprof_throttle_cpu_init(&c);
	/* steady state of 5000 ns samples: 128 x 5000 */
	c.running_len = 128 * 5000;
	ASSERT_TRUE(kprof_throttle_sample_took(&l, &c, 5000, &low));
	ASSERT_EQ(5000U, low.avg_ns);
	ASSERT_EQ(2500U, low.old_allowed_ns);
	ASSERT_EQ(160U, low.max_samples_per_tick);
	ASSERT_EQ(40000U, low.max_sample_rate);
	ASSERT_EQ(160, l.max_samples_per_tick);
	ASSERT_EQ(40000, l.max_sample_rate);
	ASSERT_EQ(6250, l.allowed_ns);
	ASSERT_EQ(25000, l.sample_period_ns);
	ASSERT_EQ(5000U, kprof_throttle_avg_ns(&c));

	/* the transliteration agrees */
	kernel_boot(250);
	running_sample_length = 128 * 5000;
	perf_sample_event_took(5000);
	ASSERT_EQ(1, kernel_did.lowered);
	ASSERT_EQ(5000U, __report_avg);
	ASSERT_EQ(160, max_samples_per_tick);
	ASSERT_EQ(40000, sysctl_perf_event_sample_rate);
	ASSERT_EQ(6250, perf_sample_allowed_ns);
}

/*
 * Seed 000, sections 9-10: sysctl -w kernel.perf_event_max_sample_rate=
 * 63250 at HZ 250: DIV_ROUND_UP(63250, 250) = 253 per tick, period
 * 1e9 / 63250 = 15810 ns, allowed 15810 x 25 / 100 = 3952 ns.
 */
TEST(seed_rate_63250_hz250)
{
	struct kprof_throttle_limits l;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 63250));
	ASSERT_EQ(63250, l.max_sample_rate);
	ASSERT_EQ(253, l.max_samples_per_tick);
	ASSERT_EQ(15810, l.sample_period_ns);
	ASSERT_EQ(3952, l.allowed_ns);

	kernel_boot(250);
	ASSERT_EQ(0, perf_proc_update_handler_write(63250));
	ASSERT_EQ(253, max_samples_per_tick);
	ASSERT_EQ(15810, perf_sample_period_ns);
	ASSERT_EQ(3952, perf_sample_allowed_ns);
}

/* The margined average above 25% of a tick: max becomes 1, rate HZ. */
TEST(lower_to_one_per_tick)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_cpu c;
	struct kprof_throttle_lowering low;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 1000, KPROF_THROTTLE_GE));
	kprof_throttle_cpu_init(&c);
	/* one 64 ms sample: avg 500000, margin 625000 >= 250000 */
	ASSERT_TRUE(kprof_throttle_sample_took(&l, &c, 64000000, &low));
	ASSERT_EQ(500000U, low.avg_ns);
	ASSERT_EQ(1, l.max_samples_per_tick);
	ASSERT_EQ(1000, l.max_sample_rate);
	ASSERT_EQ(1000000, l.sample_period_ns);
	ASSERT_EQ(625000, l.allowed_ns);
}

/* update_perf_cpu_limits() never leaves allowed at 0 for pct 1..99. */
TEST(allowed_at_least_one)
{
	struct kprof_throttle_limits l;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_cpu_time_max_percent(&l, 1));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, INT_MAX));
	ASSERT_EQ(0, l.sample_period_ns);
	ASSERT_EQ(1, l.allowed_ns);
	ASSERT_TRUE(kprof_throttle_cost_control_enabled(&l));
}

/*
 * pct 0 and 100 switch the cost controller off (allowed 0, the average is
 * not even kept) and make every rate write fail with EINVAL; the per-tick
 * limit stays.  Out-of-range writes fail and change nothing.
 */
TEST(sysctl_write_rules)
{
	struct kprof_throttle_limits l, before;
	struct kprof_throttle_cpu c;
	struct kprof_throttle_lowering low;
	unsigned int pct;

	for (pct = 0; pct <= 100; pct += 100) {
		ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250,
							KPROF_THROTTLE_GE));
		kprof_throttle_cpu_init(&c);
		ASSERT_EQ(0, kprof_throttle_set_cpu_time_max_percent(&l, pct));
		ASSERT_EQ(0, l.allowed_ns);
		ASSERT_FALSE(kprof_throttle_cost_control_enabled(&l));
		ASSERT_EQ(400, l.max_samples_per_tick);
		before = l;
		ASSERT_EQ(-EINVAL, kprof_throttle_set_max_sample_rate(&l, 1000));
		ASSERT_EQ(-EINVAL, kprof_throttle_set_max_sample_rate(&l, 100000));
		ASSERT_EQ(0, memcmp(&before, &l, sizeof(l)));
		ASSERT_FALSE(kprof_throttle_sample_took(&l, &c, 1000000000, &low));
		ASSERT_EQ(0U, c.running_len);
		/* back on: allowed from the current period */
		ASSERT_EQ(0, kprof_throttle_set_cpu_time_max_percent(&l, 50));
		ASSERT_EQ(5000, l.allowed_ns);
		ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));
		ASSERT_EQ(4, l.max_samples_per_tick);
	}

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	before = l;
	ASSERT_EQ(-EINVAL, kprof_throttle_set_cpu_time_max_percent(&l, 101));
	ASSERT_EQ(-EINVAL, kprof_throttle_set_max_sample_rate(&l, 0));
	ASSERT_EQ(-EINVAL,
		  kprof_throttle_set_max_sample_rate(&l, (u64)INT_MAX + 1));
	ASSERT_EQ(0, memcmp(&before, &l, sizeof(l)));
}

/* Count the samples one tick of @n interrupts delivers. */
static int samples_in_first_tick(unsigned int semantics, int n,
				 int *stop_at)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_count c;
	int i, taken = 0;

	*stop_at = 0;
	kprof_throttle_limits_init(&l, 250, semantics);
	kprof_throttle_count_init(&c);
	kprof_throttle_set_max_sample_rate(&l, 250);	/* 1 per tick */
	for (i = 1; i <= n; i++) {
		int v = kprof_throttle_interrupt(&l, &c, 1000 * i);

		if (v == KPROF_THROTTLE_SUPPRESSED)
			continue;
		taken++;
		if (v != KPROF_THROTTLE_SAMPLE && !*stop_at)
			*stop_at = i;
	}
	return taken;
}

/*
 * f51972e6: with max_samples_per_tick == 1, ge stops at the first
 * interrupt of a tick (one sample per tick, the stopping one is still
 * taken); gt left the first unchecked and stopped at the second (two per
 * tick); shadow takes all and marks the first.
 */
TEST(max_one_per_tick_f51972e6)
{
	int stop_at;

	ASSERT_EQ(1, samples_in_first_tick(KPROF_THROTTLE_GE, 10, &stop_at));
	ASSERT_EQ(1, stop_at);
	ASSERT_EQ(2, samples_in_first_tick(KPROF_THROTTLE_GT, 10, &stop_at));
	ASSERT_EQ(2, stop_at);
	ASSERT_EQ(10, samples_in_first_tick(KPROF_THROTTLE_SHADOW, 10,
					    &stop_at));
	ASSERT_EQ(1, stop_at);
}

/* Unthrottle at the start of the tick after the throttling one. */
TEST(unthrottle_next_tick)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_count c;
	u64 restart = 0;
	int i;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	kprof_throttle_count_init(&c);
	for (i = 0; i < 399; i++)
		ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
			  (int)kprof_throttle_interrupt(&l, &c, 4000000 + i));
	ASSERT_EQ(KPROF_THROTTLE_STOP, (int)kprof_throttle_interrupt(&l, &c, 4000500));
	ASSERT_EQ(400U, c.interrupts);
	ASSERT_EQ(1U, c.tick);
	ASSERT_EQ(KPROF_THROTTLE_SUPPRESSED,
		  (int)kprof_throttle_interrupt(&l, &c, 7999999));
	ASSERT_FALSE(kprof_throttle_unthrottle(&l, &c, 7999999, &restart));
	/* two ticks later: restart still at the start of tick 2 */
	ASSERT_TRUE(kprof_throttle_unthrottle(&l, &c, 12000001, &restart));
	ASSERT_EQ(8000000U, restart);
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt(&l, &c, 12000001));
	ASSERT_EQ(1U, c.interrupts);
	ASSERT_EQ(3U, c.tick);
}

/*
 * In the caller's ticks (the kernel's tick count for PMU events): the
 * limit counts per given tick whatever the time, a throttle holds while
 * the tick is the same, however long, and the next tick lets go even a
 * microsecond later.
 */
TEST(caller_ticks)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_count c;
	int i;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));
	kprof_throttle_count_init(&c);
	/* 4 per tick; tick 7 spans two ticks of time here */
	for (i = 0; i < 3; i++)
		ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
			  (int)kprof_throttle_interrupt_in(&l, &c, 7,
							   3999000 + 1000 * i));
	ASSERT_EQ(KPROF_THROTTLE_STOP,
		  (int)kprof_throttle_interrupt_in(&l, &c, 7, 4002000));
	ASSERT_EQ(7U, c.tick);
	ASSERT_EQ(4U, c.interrupts);
	ASSERT_EQ(3999000U, c.tick_start_ns);
	ASSERT_EQ(KPROF_THROTTLE_SUPPRESSED,
		  (int)kprof_throttle_interrupt_in(&l, &c, 7, 9000000));
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_in(&l, &c, 8, 9001000));
	ASSERT_EQ(0U, c.throttled);
	ASSERT_EQ(1U, c.interrupts);
	ASSERT_EQ(9001000U, c.tick_start_ns);
}

/*
 * kprof.ko's stop of a fixed-period PMU event (kprof_throttle_end()):
 * when the model says the next interrupt of the tick stops, the handler
 * sets hw.interrupts to MAX_INTERRUPTS - 1, and the kernel's own
 * __perf_event_account_interrupt() (6.1.192's, above) throttles that
 * interrupt.  The kernel's limit stays at its default (400 per tick at HZ
 * 250), kprof's is @rate.  Returns the most interrupts the handler saw in
 * one tick; *@most_samples the most it sampled; *@dropped those it saw
 * while its limit held.
 */
static u64 armed_run(struct __test_metadata *_metadata, unsigned int semantics,
		     u64 rate, u64 *most_samples, u64 *dropped)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_count c;
	u64 ts, tick = ~0ULL, seen = 0, sampled = 0, most = 0;

	kernel_boot(250);
	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, semantics));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, rate));
	kprof_throttle_count_init(&c);
	*most_samples = *dropped = 0;
	/* 10 kHz for 50 ticks, off the tick's phase */
	for (ts = 1234; ts < 50 * (u64)TICK_NSEC; ts += 100000) {
		int ret, v;

		kernel_advance(ts);
		if (hwc.interrupts == MAX_INTERRUPTS)
			continue;	/* stopped: no interrupt */
		ret = __perf_event_account_interrupt_ge(1);
		if (perf_throttled_seq != tick) {
			tick = perf_throttled_seq;
			seen = 0;
			sampled = 0;
		}
		seen++;
		v = kprof_throttle_interrupt_in(&l, &c, perf_throttled_seq, ts);
		if (v == KPROF_THROTTLE_SUPPRESSED) {
			/* kprof's fallback: the kernel stops this one */
			EXPECT_EQ(1, ret) TH_LOG("t=%llu", (unsigned long long)ts);
			(*dropped)++;
		} else {
			/*
			 * The kernel stops only where kprof's limit trips,
			 * and misses it only at a tick's first interrupt.
			 */
			if (ret)
				EXPECT_EQ(KPROF_THROTTLE_STOP, v)
					TH_LOG("t=%llu", (unsigned long long)ts);
			if (v == KPROF_THROTTLE_STOP && !ret)
				EXPECT_EQ(1ULL, seen)
					TH_LOG("t=%llu", (unsigned long long)ts);
			sampled++;
		}
		if (seen > most)
			most = seen;
		if (sampled > *most_samples)
			*most_samples = sampled;
		/* kprof_throttle_end() */
		if (kprof_throttle_stops_next(&l, &c) &&
		    hwc.interrupts != MAX_INTERRUPTS)
			hwc.interrupts = MAX_INTERRUPTS - 1;
	}
	return most;
}

TEST(armed_kernel_throttle)
{
	u64 samples, dropped;

	/* ge, 4 per tick: the 4th interrupt is the last, nothing dropped */
	EXPECT_EQ(4ULL, armed_run(_metadata, KPROF_THROTTLE_GE, 1000, &samples,
				  &dropped));
	EXPECT_EQ(4ULL, samples);
	EXPECT_EQ(0ULL, dropped);
	/* gt: one more per tick, as before f51972e6 */
	EXPECT_EQ(5ULL, armed_run(_metadata, KPROF_THROTTLE_GT, 1000, &samples,
				  &dropped));
	EXPECT_EQ(5ULL, samples);
	EXPECT_EQ(0ULL, dropped);
	/*
	 * ge, 1 per tick: the first interrupt of a tick trips kprof's limit,
	 * and no arming can reach it; the kernel stops the second, which
	 * kprof drops: the limit plus one reach the handler.
	 */
	EXPECT_EQ(2ULL, armed_run(_metadata, KPROF_THROTTLE_GE, 250, &samples,
				  &dropped));
	EXPECT_EQ(1ULL, samples);
	EXPECT_LT(0ULL, dropped);
}

/*
 * Two events on one CPU (two sessions' counters, as two perf events): each
 * counts its own interrupts in a tick (hw.interrupts), so the limit stops
 * each at its own 4th; both feed the CPU's one cost average
 * (running_sample_length).  One count for both would stop at the 4th
 * interrupt of the two together.
 */
TEST(two_events_share_the_average_not_the_count)
{
	struct kprof_throttle_lowering low;
	struct kprof_throttle_limits l;
	struct kprof_throttle_count a, b;
	struct kprof_throttle_cpu cpu;
	int i;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));	/* 4 a tick */
	kprof_throttle_count_init(&a);
	kprof_throttle_count_init(&b);
	kprof_throttle_cpu_init(&cpu);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
			  (int)kprof_throttle_interrupt(&l, &a, 4000000 + i * 1000));
		ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
			  (int)kprof_throttle_interrupt(&l, &b, 4000500 + i * 1000));
	}
	ASSERT_EQ(KPROF_THROTTLE_STOP, (int)kprof_throttle_interrupt(&l, &a, 4003000));
	ASSERT_EQ(KPROF_THROTTLE_SUPPRESSED, (int)kprof_throttle_interrupt(&l, &a, 4003100));
	ASSERT_EQ(KPROF_THROTTLE_STOP, (int)kprof_throttle_interrupt(&l, &b, 4003500));
	ASSERT_EQ(4U, a.interrupts);
	ASSERT_EQ(4U, b.interrupts);

	/* 5000 ns from one, 7000 from the other: one sum, decayed by 1/128 */
	ASSERT_FALSE(kprof_throttle_sample_took(&l, &cpu, 5000, &low));
	ASSERT_FALSE(kprof_throttle_sample_took(&l, &cpu, 7000, &low));
	ASSERT_EQ(5000U - 5000 / 128 + 7000, cpu.running_len);
}

/*
 * A per-task session's events on one CPU (its target's and a child's,
 * taking turns within ticks): each counts its own interrupts in the tick,
 * as hw.interrupts does, so each gets the limit.  One count for both, as
 * a CPU session's, would stop at the 4th interrupt of the two together.
 */
TEST(two_task_events_alternating_each_get_the_limit)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_evs t;
	struct kprof_throttle_ev *a, *b;
	enum kprof_throttle_verdict v;
	int i;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));	/* 4 a tick */
	kprof_throttle_events_init(&t);
	for (i = 1; i <= 4; i++) {
		int want = i < 4 ? KPROF_THROTTLE_SAMPLE : KPROF_THROTTLE_STOP;

		a = kprof_throttle_event_of(&t, 0xa000, 7);
		v = kprof_throttle_interrupt_counted(&l, &a->count, 7, 4000000, i);
		ASSERT_EQ(want, (int)v);
		b = kprof_throttle_event_of(&t, 0xb000, 7);
		v = kprof_throttle_interrupt_counted(&l, &b->count, 7, 4000500, i);
		ASSERT_EQ(want, (int)v);
	}
	ASSERT_NE(a, b);
	ASSERT_EQ(4U, a->count.interrupts);
	ASSERT_EQ(4U, b->count.interrupts);
	/* Without the kernel's count (it wrote MAX_INTERRUPTS): the same. */
	kprof_throttle_events_init(&t);
	for (i = 1; i <= 4; i++) {
		int want = i < 4 ? KPROF_THROTTLE_SAMPLE : KPROF_THROTTLE_STOP;

		a = kprof_throttle_event_of(&t, 0xa000, 7);
		v = kprof_throttle_interrupt_counted(&l, &a->count, 7, 4000000, 0);
		ASSERT_EQ(want, (int)v);
		b = kprof_throttle_event_of(&t, 0xb000, 7);
		v = kprof_throttle_interrupt_counted(&l, &b->count, 7, 4000500, 0);
		ASSERT_EQ(want, (int)v);
	}
	/* Each throttled until the tick, the other's turn notwithstanding. */
	a = kprof_throttle_event_of(&t, 0xa000, 7);
	ASSERT_EQ(KPROF_THROTTLE_SUPPRESSED,
		  (int)kprof_throttle_interrupt_counted(&l, &a->count, 7, 4001000, 0));
	a = kprof_throttle_event_of(&t, 0xa000, 8);
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_counted(&l, &a->count, 8, 8000000, 1));
}

/* Two per-task events of core.c's, one CPU: what a context switch does. */
struct task_ev {
	struct core_hwc hwc;
	u64 key;
};

/* event_sched_in(): a throttled event is unthrottled, its count from 0 */
static void sched_in(struct task_ev *ev)
{
	hwc = ev->hwc;
	if (hwc.interrupts == MAX_INTERRUPTS) {
		hwc.interrupts = 0;
		kernel_did.unthrottle_logs++;
	}
}

/*
 * The kernel's per-event count against kprof's over two tasks' events
 * taking turns on a CPU every few interrupts (the experiment's
 * task-per-tick), both limits at 4 per tick: kprof stops exactly the
 * interrupts where the kernel throttles, including after a throttled
 * event is scheduled in again within the tick (its count starts anew) and
 * when a count carries across a switch, and sees none while the kernel
 * holds an event stopped.  So it takes as many samples as the kernel
 * lets through, more than 4 in a tick on the CPU.
 */
TEST(task_events_count_as_the_kernel)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_evs t;
	struct task_ev ev[2] = { { .key = 0xa000 }, { .key = 0xb000 } };
	u64 ts, stops = 0, kernel_stops = 0, sampled = 0, tick = ~0ULL;
	u64 in_tick = 0, most_in_tick = 0;
	unsigned int cur = 0, n = 0, x = 12345;

	kernel_boot(250);
	ASSERT_EQ(0, perf_proc_update_handler_write(1000));
	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));
	kprof_throttle_events_init(&t);
	ev[0].hwc = hwc;
	ev[1].hwc = hwc;
	sched_in(&ev[cur]);
	/* 10 kHz for 100 ticks, a switch after 1 to 8 interrupts */
	for (ts = 1234; ts < 100 * (u64)TICK_NSEC; ts += 100000) {
		struct kprof_throttle_ev *e;
		int ret, v;

		kernel_advance(ts);	/* the tick of the running task's context */
		if (perf_throttled_seq != tick) {
			tick = perf_throttled_seq;
			in_tick = 0;
		}
		if (hwc.interrupts != MAX_INTERRUPTS) {
			ret = __perf_event_account_interrupt_ge(1);
			kernel_stops += ret;
			e = kprof_throttle_event_of(&t, ev[cur].key,
						    hwc.interrupts_seq);
			v = kprof_throttle_interrupt_counted(&l, &e->count,
							     hwc.interrupts_seq,
							     ts, hwc.interrupts);
			ASSERT_NE(KPROF_THROTTLE_SUPPRESSED, v)
				TH_LOG("t=%llu", (unsigned long long)ts);
			ASSERT_EQ(ret, v == KPROF_THROTTLE_STOP)
				TH_LOG("t=%llu event %u", (unsigned long long)ts, cur);
			stops += v == KPROF_THROTTLE_STOP;
			sampled++;
			if (++in_tick > most_in_tick)
				most_in_tick = in_tick;
		}
		x = x * 1103515245 + 12345;
		if (++n > 1 + (x >> 16) % 8) {
			ev[cur].hwc = hwc;	/* switched out */
			cur = !cur;
			sched_in(&ev[cur]);
			n = 0;
		}
	}
	TH_LOG("%llu samples, %llu throttles (kernel %llu), at most %llu in a tick",
	       (unsigned long long)sampled, (unsigned long long)stops,
	       (unsigned long long)kernel_stops,
	       (unsigned long long)most_in_tick);
	ASSERT_EQ(kernel_stops, stops);
	ASSERT_LT(100ULL, stops);
	ASSERT_LT(4ULL, most_in_tick);
}

/*
 * The kernel's own limit at 1 per tick: every tick's first interrupt
 * trips it, sets hw.interrupts to MAX_INTERRUPTS and is the tick's only
 * one; each is a throttle of its own (perf logs one per tick), not one
 * throttle held across ticks.  An interrupt kprof armed is kprof's.
 */
TEST(kernel_limit_one_trips_every_tick)
{
	struct kprof_throttle_ev e;
	u64 ts, tripped = 0, interrupts = 0;

	kernel_boot(250);
	ASSERT_EQ(0, perf_proc_update_handler_write(250));	/* 1 a tick */
	kprof_throttle_event_init(&e, 0xa000);
	for (ts = 1234; ts < 50 * (u64)TICK_NSEC; ts += 100000) {
		kernel_advance(ts);
		if (hwc.interrupts == MAX_INTERRUPTS)
			continue;	/* stopped: no interrupt */
		ASSERT_EQ(1, __perf_event_account_interrupt_ge(1));
		interrupts++;
		ASSERT_TRUE(kprof_throttle_kernel_tripped(&e, hwc.interrupts,
							  hwc.interrupts_seq))
			TH_LOG("t=%llu", (unsigned long long)ts);
		tripped++;
	}
	ASSERT_EQ(50ULL, interrupts);
	ASSERT_EQ((u64)kernel_did.throttle_logs, tripped);

	/* Armed by kprof in this tick: its own limit's stop, not the kernel's. */
	kprof_throttle_armed(&e, 60);
	ASSERT_FALSE(kprof_throttle_kernel_tripped(&e, MAX_INTERRUPTS, 60));
	ASSERT_TRUE(e.kthrottled);
	/* An arming of an earlier tick is gone: the kernel's own trip. */
	kprof_throttle_armed(&e, 60);
	ASSERT_TRUE(kprof_throttle_kernel_tripped(&e, MAX_INTERRUPTS, 61));
	ASSERT_FALSE(kprof_throttle_kernel_tripped(&e, 1, 62));
}

/*
 * More of a session's events on a CPU in a tick than slots: one that is
 * neither throttled nor armed gives its slot up first (its count is the
 * kernel's, taken up again at its next interrupt), one of an earlier tick
 * too, and when every slot holds a throttled event of the tick they are
 * taken in turn.
 */
TEST(task_event_slots)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_evs t;
	struct kprof_throttle_ev *e;
	u64 key;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));	/* 4 a tick */
	kprof_throttle_events_init(&t);
	/* Each at its 4th interrupt of tick 3 when first seen: throttled. */
	for (key = 1; key <= KPROF_THROTTLE_EVENTS; key++) {
		e = kprof_throttle_event_of(&t, key, 3);
		ASSERT_EQ(key, e->key);
		ASSERT_EQ(KPROF_THROTTLE_STOP,
			  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 4));
	}
	/* All throttled: the first slot in turn. */
	e = kprof_throttle_event_of(&t, 9, 3);
	ASSERT_EQ(&t.ev[0], e);
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 1));
	/* Event 9 is not throttled: its slot goes first, then comes back. */
	e = kprof_throttle_event_of(&t, 10, 3);
	ASSERT_EQ(&t.ev[0], e);
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 1));
	e = kprof_throttle_event_of(&t, 9, 3);
	ASSERT_EQ(&t.ev[0], e);
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 2));
	ASSERT_EQ(2U, e->count.interrupts);
	/* Event 2 kept its slot and its throttle, the kernel counting on. */
	e = kprof_throttle_event_of(&t, 2, 3);
	ASSERT_EQ(&t.ev[1], e);
	ASSERT_EQ(KPROF_THROTTLE_SUPPRESSED,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 5));
	/* Event 9 throttled too: now the second slot's turn. */
	e = kprof_throttle_event_of(&t, 9, 3);
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 3));
	ASSERT_EQ(KPROF_THROTTLE_STOP,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 4));
	e = kprof_throttle_event_of(&t, 11, 3);
	ASSERT_EQ(&t.ev[1], e);
	/* In tick 4 every slot of tick 3 is spare. */
	ASSERT_EQ(KPROF_THROTTLE_SAMPLE,
		  (int)kprof_throttle_interrupt_counted(&l, &e->count, 3, 0, 1));
	e = kprof_throttle_event_of(&t, 12, 4);
	ASSERT_EQ(&t.ev[0], e);
}

TEST_HARNESS_MAIN
