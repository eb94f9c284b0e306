// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_test.c - common/kprof_throttle.h against the kernel.
 *
 * The "kernel" below is an independent transliteration of the throttle
 * code in kernel/events/core.c of linux 6.1.192 (the tree in
 * $KPROF_CACHE/linux-source-6.1): the same globals with the same types
 * (int sysctls, a u64 running_sample_length, perf_throttled_seq /
 * perf_throttled_count, hwc->interrupts / interrupts_seq and
 * MAX_INTERRUPTS), perf_proc_update_handler(), update_perf_cpu_limits(),
 * perf_cpu_time_max_percent_handler(), perf_sample_event_took(),
 * __perf_event_account_interrupt() in its current form (ge) and as it was
 * before f51972e6 (gt), and perf_event_task_tick() with the unthrottle of
 * perf_adjust_freq_unthr_context().  It is written from core.c, not from
 * the header, and shares no code with it.  Traces (cheap, expensive,
 * ramping, bursty, with sysctl writes in between) drive both side by side
 * for HZ 100/250/1000 x ge/gt/shadow x pct 0/25/100, and every decision
 * and derived value is compared after every interrupt.
 */
#include <limits.h>

#include "kselftest_harness.h"
#include "kprof_throttle.h"

/* ------------------------------------------------------------------ */
/* The kernel, transliterated                                          */
/* ------------------------------------------------------------------ */

typedef __u64 u64;
typedef __u32 u32;

static int kernel_hz;
#undef HZ
#define HZ				kernel_hz
#define NSEC_PER_SEC			1000000000L
#define TICK_NSEC			((NSEC_PER_SEC + HZ / 2) / HZ)
#define DIV_ROUND_UP(n, d)		(((n) + (d) - 1) / (d))
#define MAX_INTERRUPTS			(~0ULL)
#define NR_ACCUMULATED_SAMPLES		128
#define DEFAULT_MAX_SAMPLE_RATE		100000
#define DEFAULT_SAMPLE_PERIOD_NS	(NSEC_PER_SEC / DEFAULT_MAX_SAMPLE_RATE)
#define DEFAULT_CPU_TIME_MAX_PERCENT	25

static int sysctl_perf_event_sample_rate;
static int sysctl_perf_cpu_time_max_percent;
static int max_samples_per_tick;
static int perf_sample_period_ns;
static int perf_sample_allowed_ns;
static u64 running_sample_length;	/* DEFINE_PER_CPU; one CPU here */
static u64 perf_throttled_seq;		/* DEFINE_PER_CPU */
static int perf_throttled_count;	/* DEFINE_PER_CPU */
static struct {
	u64 interrupts;
	u64 interrupts_seq;
} hwc;
static u64 __report_avg, __report_allowed;

/* What the kernel did, for the comparison. */
static struct {
	int lowered;		/* perf_sample_event_took() lowered */
	int throttle_logs;	/* perf_log_throttle(event, 0) */
	int unthrottle_logs;	/* perf_log_throttle(event, 1) */
	u64 unthrottle_time;	/* when the last unthrottle ran */
	u64 now;		/* the clock, driven by the trace */
	u64 shadow_seq;		/* shadow: tick already reported */
} k;

/*
 * core.c's static initializers (sysctl_perf_event_sample_rate,
 * max_samples_per_tick, perf_sample_period_ns, perf_sample_allowed_ns,
 * sysctl_perf_cpu_time_max_percent), for HZ @hz.
 */
static void kernel_boot(int hz)
{
	kernel_hz = hz;
	sysctl_perf_event_sample_rate = DEFAULT_MAX_SAMPLE_RATE;
	sysctl_perf_cpu_time_max_percent = DEFAULT_CPU_TIME_MAX_PERCENT;
	max_samples_per_tick = DIV_ROUND_UP(DEFAULT_MAX_SAMPLE_RATE, HZ);
	perf_sample_period_ns = DEFAULT_SAMPLE_PERIOD_NS;
	perf_sample_allowed_ns =
		DEFAULT_SAMPLE_PERIOD_NS * DEFAULT_CPU_TIME_MAX_PERCENT / 100;
	running_sample_length = 0;
	perf_throttled_seq = 0;
	perf_throttled_count = 0;
	hwc.interrupts = 0;
	hwc.interrupts_seq = 0;
	memset(&k, 0, sizeof(k));
	k.shadow_seq = MAX_INTERRUPTS;
}

static void update_perf_cpu_limits(void)
{
	u64 tmp = perf_sample_period_ns;

	tmp *= sysctl_perf_cpu_time_max_percent;
	tmp = tmp / 100;
	if (!tmp)
		tmp = 1;

	perf_sample_allowed_ns = tmp;
}

/* perf_proc_update_handler(), a write of @val (kernel/sysctl.c: min 1) */
static int perf_proc_update_handler_write(long long val)
{
	int perf_cpu = sysctl_perf_cpu_time_max_percent;

	if (perf_cpu == 100 || perf_cpu == 0)
		return -EINVAL;

	/* proc_dointvec_minmax(), .extra1 = SYSCTL_ONE, int range */
	if (val < 1 || val > INT_MAX)
		return -EINVAL;
	sysctl_perf_event_sample_rate = val;

	/*
	 * DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ) in int; the kernel
	 * is built with -fno-strict-overflow, so near INT_MAX the sum wraps
	 * negative.  Spelled out with the wrap explicit, not as C UB.
	 */
	max_samples_per_tick =
		(int)((unsigned int)sysctl_perf_event_sample_rate + HZ - 1) / HZ;
	perf_sample_period_ns = NSEC_PER_SEC / sysctl_perf_event_sample_rate;
	update_perf_cpu_limits();

	return 0;
}

/* perf_cpu_time_max_percent_handler(), a write of @val (0..100) */
static int perf_cpu_time_max_percent_handler_write(long long val)
{
	if (val < 0 || val > 100)
		return -EINVAL;
	sysctl_perf_cpu_time_max_percent = val;

	if (sysctl_perf_cpu_time_max_percent == 100 ||
	    sysctl_perf_cpu_time_max_percent == 0) {
		/* printk(KERN_WARNING "perf: Dynamic interrupt ...") */
		perf_sample_allowed_ns = 0;
	} else {
		update_perf_cpu_limits();
	}

	return 0;
}

static void perf_sample_event_took(u64 sample_len_ns)
{
	u64 max_len = perf_sample_allowed_ns;
	u64 running_len;
	u64 avg_len;
	u32 max;

	k.lowered = 0;
	if (max_len == 0)
		return;

	running_len = running_sample_length;
	running_len -= running_len / NR_ACCUMULATED_SAMPLES;
	running_len += sample_len_ns;
	running_sample_length = running_len;

	avg_len = running_len / NR_ACCUMULATED_SAMPLES;
	if (avg_len <= max_len)
		return;

	__report_avg = avg_len;
	__report_allowed = max_len;

	avg_len += avg_len / 4;
	max = (TICK_NSEC / 100) * sysctl_perf_cpu_time_max_percent;
	if (avg_len < max)
		max /= (u32)avg_len;
	else
		max = 1;

	perf_sample_allowed_ns = avg_len;
	max_samples_per_tick = max;

	sysctl_perf_event_sample_rate = max * HZ;
	perf_sample_period_ns = NSEC_PER_SEC / sysctl_perf_event_sample_rate;

	k.lowered = 1;		/* irq_work_queue(&perf_duration_work) */
}

/* The throttle branch, common to both forms. */
static int kernel_throttle(void)
{
	perf_throttled_count++;
	/* tick_dep_set_cpu(smp_processor_id(), TICK_DEP_BIT_PERF_EVENTS); */
	hwc.interrupts = MAX_INTERRUPTS;
	k.throttle_logs++;	/* perf_log_throttle(event, 0); */
	return 1;
}

/* 6.1.192 (with f51972e6): every interrupt checked, >= */
static int __perf_event_account_interrupt_ge(int throttle)
{
	int ret = 0;
	u64 seq;

	seq = perf_throttled_seq;
	if (seq != hwc.interrupts_seq) {
		hwc.interrupts_seq = seq;
		hwc.interrupts = 1;
	} else {
		hwc.interrupts++;
	}

	if (throttle && hwc.interrupts >= (u64)max_samples_per_tick)
		ret = kernel_throttle();

	return ret;
}

/* Before f51972e6 (since e050e3f0a71b): first of a tick unchecked, > */
static int __perf_event_account_interrupt_gt(int throttle)
{
	int ret = 0;
	u64 seq;

	seq = perf_throttled_seq;
	if (seq != hwc.interrupts_seq) {
		hwc.interrupts_seq = seq;
		hwc.interrupts = 1;
	} else {
		hwc.interrupts++;
		if (throttle && hwc.interrupts > (u64)max_samples_per_tick)
			ret = kernel_throttle();
	}

	return ret;
}

/* kprof's shadow mode: the ge condition, reported once per tick. */
static int __perf_event_account_interrupt_shadow(void)
{
	u64 seq = perf_throttled_seq;

	if (seq != hwc.interrupts_seq) {
		hwc.interrupts_seq = seq;
		hwc.interrupts = 1;
	} else {
		hwc.interrupts++;
	}

	if (hwc.interrupts >= (u64)max_samples_per_tick &&
	    k.shadow_seq != seq) {
		k.shadow_seq = seq;
		return 1;
	}
	return 0;
}

/* perf_event_task_tick() + perf_adjust_freq_unthr_context() */
static void perf_event_task_tick(void)
{
	int throttled;

	perf_throttled_seq++;
	throttled = perf_throttled_count;
	perf_throttled_count = 0;

	if (!throttled)
		return;
	if (hwc.interrupts == MAX_INTERRUPTS) {
		hwc.interrupts = 0;
		k.unthrottle_logs++;	/* perf_log_throttle(event, 1); */
		k.unthrottle_time = k.now;
		/* event->pmu->start(event, 0); */
	}
}

/* Run the tick on the way to @ts; the first tick is at time 0. */
static void kernel_advance(u64 ts)
{
	u64 tick = ts / TICK_NSEC;

	while (perf_throttled_seq < tick) {
		k.now = (perf_throttled_seq + 1) * TICK_NSEC;
		perf_event_task_tick();
	}
	k.now = ts;
}

/* ------------------------------------------------------------------ */
/* Both side by side                                                   */
/* ------------------------------------------------------------------ */

struct pair {
	struct kprof_throttle_limits l;
	struct kprof_throttle_cpu c;
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
	int k_unthrottles = k.unthrottle_logs;
	bool h_unthrottle, lowered, stops_next, same_tick;
	int ret;

	p->step++;
	/* What the header predicts for an interrupt in the same tick. */
	stops_next = kprof_throttle_stops_next(&p->l, &p->c);
	same_tick = p->c.tick == ts / TICK_NSEC;
	kernel_advance(ts);

	/* The kernel unthrottles at the tick, the header when asked. */
	h_unthrottle = kprof_throttle_unthrottle(&p->l, &p->c, ts, &restart);
	ASSERT_EQ(k_unthrottles + (int)h_unthrottle, k.unthrottle_logs)
		TH_LOG("step %lu t=%llu: unthrottle mismatch", p->step,
		       (unsigned long long)ts);
	if (h_unthrottle) {
		ASSERT_EQ(k.unthrottle_time, restart)
			TH_LOG("step %lu", p->step);
		p->unthrottles++;
	}

	v = kprof_throttle_interrupt(&p->l, &p->c, ts);
	if (same_tick)
		ASSERT_EQ(stops_next, v == KPROF_THROTTLE_STOP ||
				      v == KPROF_THROTTLE_SUPPRESSED)
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
		count = p->c.interrupts;
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
	ASSERT_EQ(count, p->c.interrupts) TH_LOG("step %lu", p->step);
	ASSERT_EQ(perf_throttled_seq, p->c.tick) TH_LOG("step %lu", p->step);
	ASSERT_EQ(hwc.interrupts == MAX_INTERRUPTS, p->c.throttled != 0);

	/* The sample is taken (also the throttling one): feed its cost. */
	p->samples++;
	perf_sample_event_took(cost);
	lowered = kprof_throttle_sample_took(&p->l, &p->c, cost, &low);
	ASSERT_EQ(k.lowered, lowered) TH_LOG("step %lu t=%llu cost %llu",
					     p->step, (unsigned long long)ts,
					     (unsigned long long)cost);
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
	ASSERT_EQ(1, k.lowered);
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
	ASSERT_EQ(-EINVAL, kprof_throttle_set_max_sample_rate(&l,
							     (u64)INT_MAX + 1));
	ASSERT_EQ(0, memcmp(&before, &l, sizeof(l)));
}

/* Count the samples one tick of @n interrupts delivers. */
static int samples_in_first_tick(unsigned int semantics, int n,
				 int *stop_at)
{
	struct kprof_throttle_limits l;
	struct kprof_throttle_cpu c;
	int i, taken = 0;

	*stop_at = 0;
	kprof_throttle_limits_init(&l, 250, semantics);
	kprof_throttle_cpu_init(&c);
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
	struct kprof_throttle_cpu c;
	u64 restart = 0;
	int i;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	kprof_throttle_cpu_init(&c);
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
	struct kprof_throttle_cpu c;
	int i;

	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, KPROF_THROTTLE_GE));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, 1000));
	kprof_throttle_cpu_init(&c);
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
	struct kprof_throttle_cpu c;
	u64 ts, tick = ~0ULL, seen = 0, sampled = 0, most = 0;

	kernel_boot(250);
	ASSERT_EQ(0, kprof_throttle_limits_init(&l, 250, semantics));
	ASSERT_EQ(0, kprof_throttle_set_max_sample_rate(&l, rate));
	kprof_throttle_cpu_init(&c);
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
			seen = sampled = 0;
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

TEST_HARNESS_MAIN
