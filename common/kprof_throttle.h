/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof's sample throttle, shared by kprof.ko and kprofcat: a pure model
 * of the two limits perf applies to sampling interrupts, the cost
 * controller (perf_sample_event_took()) and the per-tick limit
 * (__perf_event_account_interrupt(), restarted at the tick by
 * perf_adjust_freq_unthr_context()).  docs/throttle.md describes both and
 * what each kernel version does at a throttle; none of that changes the
 * model for kprof's events (each its own group leader), so it takes no
 * kernel version.
 *
 * Like the kernel, the limits are global (struct kprof_throttle_limits,
 * written without a lock, READ_ONCE/WRITE_ONCE in the kernel), the cost
 * average per CPU, shared by every event on it (struct kprof_throttle_cpu,
 * running_sample_length), and the per-tick count per event (struct
 * kprof_throttle_count, hw.interrupts and hw.interrupts_seq).  Time, cost
 * and the tick are passed in; nothing here locks, prints, allocates or
 * reads a clock, so it runs in NMI context and in userspace alike.  The
 * kernel's int globals are __s32 here, with the kernel's conversions, so
 * the model agrees with it even where the kernel's arithmetic wraps.  Not
 * modelled: the kernel's "throttle" argument (software events skip the
 * check for all but the last of several overflows folded into one call).
 */
#ifndef _KPROF_THROTTLE_H
#define _KPROF_THROTTLE_H

#ifdef __KERNEL__
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/types.h>
#define KPROF_THROTTLE_READ(x)		READ_ONCE(x)
#define KPROF_THROTTLE_WRITE(x, v)	WRITE_ONCE(x, v)
#else
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <linux/types.h>
#define KPROF_THROTTLE_READ(x)		(x)
#define KPROF_THROTTLE_WRITE(x, v)	((x) = (v))
#endif

#include <linux/kprof.h>

#define KPROF_THROTTLE_NSEC_PER_SEC		1000000000ULL
/* core.c's DEFAULT_MAX_SAMPLE_RATE, DEFAULT_CPU_TIME_MAX_PERCENT */
#define KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE	100000
#define KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT 25
/* core.c's NR_ACCUMULATED_SAMPLES */
#define KPROF_THROTTLE_NR_ACCUMULATED_SAMPLES	128
/* Largest HZ accepted; TICK_NSEC stays >= 1000 ns. */
#define KPROF_THROTTLE_MAX_HZ			1000000
/* kprof_throttle_cpu.tick before the first interrupt */
#define KPROF_THROTTLE_NO_TICK			(~0ULL)
/* core.c's MAX_INTERRUPTS: hw.interrupts of an event the kernel throttled */
#define KPROF_THROTTLE_MAX_INTERRUPTS		(~0ULL)
/*
 * Events of one per-task session whose per-tick state one CPU keeps at
 * once (struct kprof_throttle_evs).
 */
#define KPROF_THROTTLE_EVENTS			8

/* What one overflow interrupt may do, from kprof_throttle_interrupt(). */
enum kprof_throttle_verdict {
	KPROF_THROTTLE_SAMPLE,		/* take the sample */
	KPROF_THROTTLE_STOP,		/* take it, then stop until next tick */
	KPROF_THROTTLE_WOULD_STOP,	/* shadow: take it; ge would stop */
	KPROF_THROTTLE_SUPPRESSED,	/* stopped in this tick: no interrupt */
};

/*
 * Global knobs and what the kernel derives from them.  The names in
 * comments are core.c's globals (sysctl_perf_event_sample_rate and
 * the ones beside it, sysctl_perf_cpu_time_max_percent); they are int there
 * and __s32 here, so that the kernel's conversions happen here too: an
 * int limit compared with the u64 hwc->interrupts, a u64 average stored
 * into the int perf_sample_allowed_ns and read back sign-extended.
 *
 * Every CPU's handler reads them and may lower them (the rate, the
 * per-tick limit, the period, allowed_ns), without a lock, while the
 * knobs' writers set them: every access to a field that changes after
 * kprof_throttle_limits_init() is marked (KPROF_THROTTLE_READ/WRITE), each
 * field a word read or written whole; hz and tick_nsec never change.
 */
struct kprof_throttle_limits {
	__u32	hz;			/* HZ */
	__u32	semantics;		/* enum kprof_throttle_semantics */
	__u64	tick_nsec;		/* TICK_NSEC = (1e9 + HZ / 2) / HZ */
	__s32	max_sample_rate;	/* sysctl_perf_event_sample_rate */
	__s32	cpu_time_max_percent;	/* sysctl_perf_cpu_time_max_percent */
	__s32	max_samples_per_tick;	/* max_samples_per_tick */
	__s32	sample_period_ns;	/* perf_sample_period_ns */
	__s32	allowed_ns;		/* perf_sample_allowed_ns; 0: off */
};

/* One CPU's cost state, every event's on it (the kernel's per-CPU one). */
struct kprof_throttle_cpu {
	__u64	running_len;		/* running_sample_length */
};

/* One event's per-tick state on a CPU (the kernel's hw fields). */
struct kprof_throttle_count {
	__u64	tick;			/* tick of the last counted interrupt */
	__u64	tick_start_ns;		/* its start: tick * tick_nsec */
	__u64	interrupts;		/* hwc->interrupts in that tick */
	__u32	throttled;		/* hwc->interrupts == MAX_INTERRUPTS */
	__u32	would_throttle;		/* shadow: reported in this tick */
};

/*
 * One event's state on a CPU as kprof.ko sees it at its overflows: its
 * per-tick count, and what kprof knows of the kernel's hw.interrupts,
 * which kprof.ko may write (kprof_throttle_end() arms the kernel's own
 * stop of a fixed-period PMU event).
 */
struct kprof_throttle_ev {
	__u64	key;			/* the event (its address); 0: free */
	struct kprof_throttle_count count;
	__u64	armed_tick;		/* hw.interrupts armed in this tick */
	__u32	kthrottled;		/* the kernel's limit tripped at its last */
};

/*
 * A per-task session's events on one CPU: the kernel counts per event,
 * and a per-task session has one event per task of its target, several
 * of which may take turns on a CPU within a tick.  kprof_throttle_event_of()
 * finds an event's slot.
 */
struct kprof_throttle_evs {
	struct kprof_throttle_ev ev[KPROF_THROTTLE_EVENTS];
	__u32	next;			/* the slot taken last when all are busy */
};

/* What perf_sample_event_took() reports when it lowers the rate. */
struct kprof_throttle_lowering {
	__u64	avg_ns;			/* average before the 25% margin */
	__u64	old_allowed_ns;		/* perf_sample_allowed_ns before */
	__u64	max_samples_per_tick;	/* new */
	__u64	max_sample_rate;	/* new */
};

/* 64-bit division that is safe in 32-bit kernels (no __udivdi3). */
static inline __u64 kprof_throttle_div(__u64 dividend, __u64 divisor)
{
#ifdef __KERNEL__
	return div64_u64(dividend, divisor);
#else
	return dividend / divisor;
#endif
}

/* TICK_NSEC of a kernel built with this HZ (include/vdso/jiffies.h). */
static inline __u64 kprof_throttle_tick_nsec(__u32 hz)
{
	return kprof_throttle_div(KPROF_THROTTLE_NSEC_PER_SEC + hz / 2, hz);
}

/* The tick an interrupt at @now_ns falls in. */
static inline __u64
kprof_throttle_tick_of(const struct kprof_throttle_limits *l, __u64 now_ns)
{
	return kprof_throttle_div(now_ns, l->tick_nsec);
}

/*
 * The tick of an interrupt at @now_ns of event @c, without a division while
 * @now_ns lies in the tick of the CPU's last counted interrupt (the
 * common case: the overflow handler runs this for every overflow).
 */
static inline __u64
kprof_throttle_count_tick(const struct kprof_throttle_limits *l,
			  const struct kprof_throttle_count *c, __u64 now_ns)
{
	if (c->tick != KPROF_THROTTLE_NO_TICK && now_ns >= c->tick_start_ns &&
	    now_ns - c->tick_start_ns < l->tick_nsec)
		return c->tick;
	return kprof_throttle_tick_of(l, now_ns);
}

/* False while pct is 0 or 100: perf_sample_event_took() does nothing. */
static inline bool
kprof_throttle_cost_control_enabled(const struct kprof_throttle_limits *l)
{
	return KPROF_THROTTLE_READ(l->allowed_ns) != 0;
}

/* update_perf_cpu_limits(): allowed = period * pct / 100, >= 1 */
static inline void
kprof_throttle_update_cpu_limits(struct kprof_throttle_limits *l)
{
	__u64 tmp = (__u64)KPROF_THROTTLE_READ(l->sample_period_ns);

	tmp *= (__u64)KPROF_THROTTLE_READ(l->cpu_time_max_percent);
	tmp = kprof_throttle_div(tmp, 100);
	if (!tmp)
		tmp = 1;

	KPROF_THROTTLE_WRITE(l->allowed_ns, (__s32)tmp);
}

/*
 * The kernel's boot-time values (core.c's static initializers) for a kernel built with
 * @hz: rate 100000, pct 25, DIV_ROUND_UP(100000, HZ) per tick, period
 * 10000 ns, allowed 2500 ns.  -EINVAL for an unusable HZ or semantics.
 */
static inline int kprof_throttle_limits_init(struct kprof_throttle_limits *l,
					     __u32 hz, __u32 semantics)
{
	if (hz == 0 || hz > KPROF_THROTTLE_MAX_HZ ||
	    semantics > KPROF_THROTTLE_SHADOW)
		return -EINVAL;

	l->hz = hz;
	l->semantics = semantics;
	l->tick_nsec = kprof_throttle_tick_nsec(hz);
	l->max_sample_rate = KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE;
	l->cpu_time_max_percent = KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT;
	l->max_samples_per_tick =
		(__s32)kprof_throttle_div(KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE +
					  hz - 1, hz);
	l->sample_period_ns =
		(__s32)kprof_throttle_div(KPROF_THROTTLE_NSEC_PER_SEC,
					  KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE);
	/* A static initializer in the kernel, without the ">= 1" rule. */
	l->allowed_ns = (__s32)kprof_throttle_div((__u64)l->sample_period_ns *
						  KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT,
						  100);
	return 0;
}

/*
 * Write of kernel.perf_event_max_sample_rate: perf_proc_update_handler()
 * (perf_event_max_sample_rate_handler() in later kernels).
 * Refused with -EINVAL while pct is 0 or 100 ("throttling is disabled"),
 * before the value is even parsed; then proc_dointvec_minmax() with
 * extra1 = SYSCTL_ONE (kernel/sysctl.c's kern_table entry) refuses values outside
 * [1, INT_MAX].  On success the per-tick limit, the period and allowed_ns
 * are recomputed; the running averages are left alone.
 *
 * DIV_ROUND_UP(rate, HZ) is computed in int: for rate > INT_MAX - HZ + 1
 * the sum wraps (the kernel builds with -fno-strict-overflow) and the
 * limit comes out negative, which the u64 comparison in
 * __perf_event_account_interrupt() turns into ~2^64: no per-tick limit.
 * Mirrored here, not fixed.
 */
static inline int
kprof_throttle_set_max_sample_rate(struct kprof_throttle_limits *l, __u64 rate)
{
	if (l->cpu_time_max_percent == 100 || l->cpu_time_max_percent == 0)
		return -EINVAL;
	if (rate < 1 || rate > INT_MAX)
		return -EINVAL;

	KPROF_THROTTLE_WRITE(l->max_sample_rate, (__s32)rate);
	KPROF_THROTTLE_WRITE(l->max_samples_per_tick,
			     (__s32)((__u32)rate + l->hz - 1) / (__s32)l->hz);
	KPROF_THROTTLE_WRITE(l->sample_period_ns,
			     (__s32)kprof_throttle_div(KPROF_THROTTLE_NSEC_PER_SEC,
						       rate));
	kprof_throttle_update_cpu_limits(l);
	return 0;
}

/*
 * Write of kernel.perf_cpu_time_max_percent:
 * perf_cpu_time_max_percent_handler(), range [0, 100] (SYSCTL_ZERO,
 * SYSCTL_ONE_HUNDRED in kernel/sysctl.c's kern_table).  0 and 100 set
 * allowed_ns to 0, which switches the cost controller off (the kernel
 * warns "Dynamic interrupt throttling disabled, can hang your system!";
 * callers print that themselves, see
 * kprof_throttle_cost_control_enabled()); the per-tick limit stays.  Any
 * other value recomputes allowed_ns from the current period.
 */
static inline int
kprof_throttle_set_cpu_time_max_percent(struct kprof_throttle_limits *l,
					__u64 pct)
{
	if (pct > 100)
		return -EINVAL;

	KPROF_THROTTLE_WRITE(l->cpu_time_max_percent, (__s32)pct);
	if (pct == 100 || pct == 0)
		KPROF_THROTTLE_WRITE(l->allowed_ns, 0);
	else
		kprof_throttle_update_cpu_limits(l);
	return 0;
}

/* kprof's own knob; the kernel has only the ge behaviour today. */
static inline int kprof_throttle_set_semantics(struct kprof_throttle_limits *l,
					       __u32 semantics)
{
	if (semantics > KPROF_THROTTLE_SHADOW)
		return -EINVAL;
	KPROF_THROTTLE_WRITE(l->semantics, semantics);
	return 0;
}

/* A copy of @src, each field read once (see struct kprof_throttle_limits). */
static inline void kprof_throttle_limits_copy(struct kprof_throttle_limits *dst,
					      const struct kprof_throttle_limits *src)
{
	dst->hz = src->hz;
	dst->semantics = KPROF_THROTTLE_READ(src->semantics);
	dst->tick_nsec = src->tick_nsec;
	dst->max_sample_rate = KPROF_THROTTLE_READ(src->max_sample_rate);
	dst->cpu_time_max_percent = KPROF_THROTTLE_READ(src->cpu_time_max_percent);
	dst->max_samples_per_tick = KPROF_THROTTLE_READ(src->max_samples_per_tick);
	dst->sample_period_ns = KPROF_THROTTLE_READ(src->sample_period_ns);
	dst->allowed_ns = KPROF_THROTTLE_READ(src->allowed_ns);
}

/* A CPU before its first interrupt: running_sample_length is 0. */
static inline void kprof_throttle_cpu_init(struct kprof_throttle_cpu *c)
{
	c->running_len = 0;
}

/* An event before its first interrupt. */
static inline void kprof_throttle_count_init(struct kprof_throttle_count *c)
{
	c->tick = KPROF_THROTTLE_NO_TICK;
	c->tick_start_ns = 0;
	c->interrupts = 0;
	c->throttled = 0;
	c->would_throttle = 0;
}

/* An event's slot before its first interrupt, and nothing armed. */
static inline void kprof_throttle_event_init(struct kprof_throttle_ev *e,
					     __u64 key)
{
	e->key = key;
	kprof_throttle_count_init(&e->count);
	e->armed_tick = KPROF_THROTTLE_NO_TICK;
	e->kthrottled = 0;
}

/* A CPU's table of a per-task session's events, all slots free. */
static inline void kprof_throttle_events_init(struct kprof_throttle_evs *t)
{
	__u32 i;

	for (i = 0; i < KPROF_THROTTLE_EVENTS; i++)
		kprof_throttle_event_init(&t->ev[i], 0);
	t->next = 0;
}

/*
 * How much slot @e, of another event than the one interrupting in @tick,
 * still holds: nothing when it is free or of an earlier tick (a count and
 * an arming never outlive their tick on this CPU, whose ticks only move
 * on); a count in @tick that the kernel's count of its event stands in
 * for at its next interrupt (kprof_throttle_interrupt_counted()); or a
 * throttle, an arming or a shadow report of @tick, which only the slot
 * knows.
 */
enum kprof_throttle_holds {
	KPROF_THROTTLE_HOLDS_NOTHING,
	KPROF_THROTTLE_HOLDS_COUNT,
	KPROF_THROTTLE_HOLDS_STATE,
};

static inline enum kprof_throttle_holds
kprof_throttle_event_holds(const struct kprof_throttle_ev *e, __u64 tick)
{
	if (!e->key || e->count.tick != tick)
		return KPROF_THROTTLE_HOLDS_NOTHING;
	if (e->count.throttled || e->count.would_throttle ||
	    e->armed_tick == tick)
		return KPROF_THROTTLE_HOLDS_STATE;
	return KPROF_THROTTLE_HOLDS_COUNT;
}

/*
 * The slot of event @key (non-zero), at its interrupt in @tick: its own;
 * or a new one, in a slot that holds nothing, else one that holds only a
 * count, else, when every slot holds a throttled or armed event of this
 * tick, the next in turn.  Exact while at most KPROF_THROTTLE_EVENTS
 * events of a session are throttled or armed on one CPU in one tick: an
 * event whose slot was taken counts on from the kernel's count, but its
 * throttle or arming is forgotten (a throttle is tripped again, an armed
 * stop is taken for the kernel's own).
 */
static inline struct kprof_throttle_ev *
kprof_throttle_event_of(struct kprof_throttle_evs *t, __u64 key, __u64 tick)
{
	struct kprof_throttle_ev *best = NULL;
	enum kprof_throttle_holds least = KPROF_THROTTLE_HOLDS_STATE, h;
	__u32 i;

	for (i = 0; i < KPROF_THROTTLE_EVENTS; i++) {
		if (t->ev[i].key == key)
			return &t->ev[i];
		h = kprof_throttle_event_holds(&t->ev[i], tick);
		if (h < least) {
			least = h;
			best = &t->ev[i];
		}
	}
	if (!best) {
		best = &t->ev[t->next];
		t->next = (t->next + 1) % KPROF_THROTTLE_EVENTS;
	}
	kprof_throttle_event_init(best, key);
	return best;
}

/*
 * The kernel's own per-tick limit at one interrupt of event @e:
 * @kcount and @tick are the event's hw.interrupts and hw.interrupts_seq
 * after __perf_event_account_interrupt() counted this interrupt.  Returns
 * whether this interrupt tripped the kernel's limit: kcount is
 * MAX_INTERRUPTS and not because kprof.ko armed it in this tick
 * (kprof_throttle_armed()), as MAX_INTERRUPTS - 1 + 1.
 *
 * A MAX_INTERRUPTS seen at an interrupt is always this interrupt's: the
 * kernel stops the event where its limit trips, and only its restart (the
 * tick's, in a later hw.interrupts_seq, or event_sched_in()'s) lets it
 * overflow again, which clears MAX_INTERRUPTS first; an interrupt of an
 * event left running in the same tick would wrap the count to 0.  So
 * with the kernel's limit at one per tick, every tick's first interrupt
 * trips it anew, and is a throttle of its own, as perf logs one per tick.
 */
static inline bool kprof_throttle_kernel_tripped(struct kprof_throttle_ev *e,
						 __u64 kcount, __u64 tick)
{
	bool armed = e->armed_tick == tick;

	e->armed_tick = KPROF_THROTTLE_NO_TICK;
	e->kthrottled = kcount == KPROF_THROTTLE_MAX_INTERRUPTS;
	return e->kthrottled && !armed;
}

/*
 * kprof.ko armed the kernel's stop of event @e at its next interrupt in
 * @tick, writing hw.interrupts = MAX_INTERRUPTS - 1.
 */
static inline void kprof_throttle_armed(struct kprof_throttle_ev *e,
					__u64 tick)
{
	e->armed_tick = tick;
}

/* The average perf_sample_event_took() compares: running_len / 128. */
static inline __u64 kprof_throttle_avg_ns(const struct kprof_throttle_cpu *c)
{
	return kprof_throttle_div(c->running_len,
				  KPROF_THROTTLE_NR_ACCUMULATED_SAMPLES);
}

/*
 * The tick after a throttle restarts the event (perf_event_task_tick()).
 * If @c is throttled and @now_ns lies in a later tick, clear the throttle,
 * store the start of the tick after the throttling one in @restart_ns and
 * return true.  kprof_throttle_interrupt() does the same implicitly;
 * callers that report unthrottles call this first.
 */
static inline bool kprof_throttle_unthrottle(const struct kprof_throttle_limits *l,
					     struct kprof_throttle_count *c,
					     __u64 now_ns, __u64 *restart_ns)
{
	if (!c->throttled || kprof_throttle_count_tick(l, c, now_ns) == c->tick)
		return false;

	c->throttled = 0;
	*restart_ns = (c->tick + 1) * l->tick_nsec;
	return true;
}

/*
 * One overflow interrupt at @now_ns: the per-tick limit, as
 * __perf_event_account_interrupt() applies it.  While the CPU is throttled
 * in the same tick the interrupt cannot happen (the kernel has stopped the
 * PMU): KPROF_THROTTLE_SUPPRESSED, nothing counted.  Otherwise the count of
 * this tick is bumped - a new tick starts again at 1, as when
 * perf_throttled_seq != hwc->interrupts_seq - and compared:
 *
 * ge (__perf_event_account_interrupt() since f51972e6 "perf/core: Fix
 *    broken throttling when max_samples_per_tick=1", also in the stable
 *    trees):
 *    every interrupt is checked, count >= max stops.  At most max
 *    interrupts per tick are delivered; the max-th is the one that stops.
 *
 * gt (before f51972e6, from e050e3f0a71b): the check sat in the "same
 *    tick" branch, so the first interrupt of a tick was never checked, and
 *    it was count > max.  max + 1 interrupts per tick are delivered, the
 *    (max + 1)-th stops; with max == 1 that is 2 per tick.  (As max >= 1,
 *    "1 > max" never holds, so skipping the first check changes nothing
 *    by itself; it is kept to read like the kernel before f51972e6.)
 *
 * shadow: the ge condition is evaluated but never stops; the first
 *    interrupt of each tick that meets it gets KPROF_THROTTLE_WOULD_STOP.
 *
 * KPROF_THROTTLE_STOP means the sample is still taken (__perf_event_overflow()
 * calls the overflow handler for the interrupt that throttles) and the
 * event must be stopped until kprof_throttle_unthrottle().
 * c->tick and c->interrupts describe this interrupt afterwards.
 *
 * The tick is the caller's: @tick, starting at @tick_start_ns.  For an
 * event the kernel's tick restarts (kprof's PMU events) it is the
 * kernel's own per-CPU tick count, perf_throttled_seq, which
 * __perf_event_account_interrupt() has just copied to the event's
 * hw.interrupts_seq: the same tick as the kernel's limit, in phase with
 * the restart (the time of its first interrupt stands in for its start).
 * kprof_throttle_interrupt() below counts in ticks of local_clock(), for
 * events kprof restarts itself at a time it computes (clock events) and
 * for replays without the kernel's ticks.
 */
static inline enum kprof_throttle_verdict
kprof_throttle_interrupt_in(const struct kprof_throttle_limits *l,
			    struct kprof_throttle_count *c, __u64 tick,
			    __u64 tick_start_ns)
{
	/* int limit vs u64 count: converted as the kernel's compare does */
	__u64 max = (__u64)(__s64)KPROF_THROTTLE_READ(l->max_samples_per_tick);
	bool first = false;

	if (c->throttled) {
		if (tick == c->tick)
			return KPROF_THROTTLE_SUPPRESSED;
		c->throttled = 0;
	}

	if (tick != c->tick) {
		c->tick = tick;
		c->tick_start_ns = tick_start_ns;
		c->interrupts = 1;
		c->would_throttle = 0;
		first = true;
	} else {
		c->interrupts++;
	}

	switch (KPROF_THROTTLE_READ(l->semantics)) {
	case KPROF_THROTTLE_GT:
		if (!first && c->interrupts > max) {
			c->throttled = 1;
			return KPROF_THROTTLE_STOP;
		}
		break;
	case KPROF_THROTTLE_SHADOW:
		if (!c->would_throttle && c->interrupts >= max) {
			c->would_throttle = 1;
			return KPROF_THROTTLE_WOULD_STOP;
		}
		break;
	default:	/* KPROF_THROTTLE_GE */
		if (c->interrupts >= max) {
			c->throttled = 1;
			return KPROF_THROTTLE_STOP;
		}
		break;
	}
	return KPROF_THROTTLE_SAMPLE;
}

/*
 * Must the next interrupt of event @c's current tick be the last one that
 * reaches the handler?  True when kprof_throttle_interrupt_in() would
 * answer KPROF_THROTTLE_STOP or KPROF_THROTTLE_SUPPRESSED for it, false
 * when KPROF_THROTTLE_SAMPLE or KPROF_THROTTLE_WOULD_STOP; an interrupt in
 * a later tick starts a new count and is not predicted.  kprof.ko uses it
 * to have the kernel's own per-tick limit stop a fixed-period PMU event at
 * the interrupt where kprof's limit trips (kmod/kprof_throttle.c).
 */
static inline bool
kprof_throttle_stops_next(const struct kprof_throttle_limits *l,
			  const struct kprof_throttle_count *c)
{
	__u64 max = (__u64)(__s64)KPROF_THROTTLE_READ(l->max_samples_per_tick);

	if (c->tick == KPROF_THROTTLE_NO_TICK)
		return false;
	if (c->throttled)
		return true;
	switch (KPROF_THROTTLE_READ(l->semantics)) {
	case KPROF_THROTTLE_GT:
		return c->interrupts + 1 > max;
	case KPROF_THROTTLE_SHADOW:
		return false;
	default:	/* KPROF_THROTTLE_GE */
		return c->interrupts + 1 >= max;
	}
}

/*
 * One interrupt of an event whose per-tick count the kernel keeps too
 * (the events of a per-task session): as kprof_throttle_interrupt_in(),
 * but counted as the kernel counts it.  @kcount is the event's
 * hw.interrupts after __perf_event_account_interrupt() counted this
 * interrupt in @tick: the kernel's own count of this event in its tick,
 * started anew (1) at the CPU's next tick, on another CPU (whose tick
 * count the event's is compared with), and after a throttle the kernel
 * lifted when the event was scheduled in again.  The count follows it, so
 * the event's limit trips where the kernel's would at the same limit.
 * @kcount is no count when it is 0 or at MAX_INTERRUPTS - 1 or above: the
 * kernel's or kprof.ko's throttle wrote it; the count then goes on from
 * @c's, which knows whether kprof throttled the event or armed the
 * kernel's stop for this interrupt.
 */
static inline enum kprof_throttle_verdict
kprof_throttle_interrupt_counted(const struct kprof_throttle_limits *l,
				 struct kprof_throttle_count *c, __u64 tick,
				 __u64 tick_start_ns, __u64 kcount)
{
	if (kcount && kcount < KPROF_THROTTLE_MAX_INTERRUPTS - 1) {
		if (kcount == 1 || tick != c->tick) {
			/* A new count: a new tick, or restarted within one. */
			kprof_throttle_count_init(c);
			if (kcount > 1) {
				/* Counted before @c was this event's. */
				c->tick = tick;
				c->tick_start_ns = tick_start_ns;
			}
		} else if (c->throttled) {
			/* Throttled by kprof and left running (clock events). */
			c->interrupts = kcount;
			return KPROF_THROTTLE_SUPPRESSED;
		}
		c->interrupts = kcount - 1;
	}
	return kprof_throttle_interrupt_in(l, c, tick, tick_start_ns);
}

/* The same, in ticks of @now_ns: local_clock() / TICK_NSEC. */
static inline enum kprof_throttle_verdict
kprof_throttle_interrupt(const struct kprof_throttle_limits *l,
			 struct kprof_throttle_count *c, __u64 now_ns)
{
	__u64 tick = kprof_throttle_count_tick(l, c, now_ns);

	return kprof_throttle_interrupt_in(l, c, tick, tick * l->tick_nsec);
}

/*
 * perf_sample_event_took(@sample_len_ns) on CPU @c.
 * Returns false when nothing changed (cost controller off: the average is
 * not even updated; or average <= allowed).  Otherwise lowers the shared
 * limits exactly as the kernel does and fills @low:
 *
 *	avg     = running_len / 128		(reported as avg_ns)
 *	avg    += avg / 4			(the 25% margin)
 *	max     = (TICK_NSEC / 100) * pct;  max = avg < max ? max / avg : 1
 *	allowed = avg (margined);  max_samples_per_tick = max
 *	rate    = max * HZ;  period = NSEC_PER_SEC / rate
 *
 * allowed_ns is not recomputed from the period here (no
 * update_perf_cpu_limits() call), as in the kernel.
 */
static inline bool kprof_throttle_sample_took(struct kprof_throttle_limits *l,
					      struct kprof_throttle_cpu *c,
					      __u64 sample_len_ns,
					      struct kprof_throttle_lowering *low)
{
	/* int, sign-extended as in the kernel's READ_ONCE() into a u64 */
	__u64 max_len = (__u64)(__s64)KPROF_THROTTLE_READ(l->allowed_ns);
	__u64 running_len;
	__u64 avg_len;
	__s32 rate;
	__u32 max;

	if (max_len == 0)
		return false;

	/* Decay the sum by one average sample, add this one. */
	running_len = c->running_len;
	running_len -= kprof_throttle_div(running_len,
					  KPROF_THROTTLE_NR_ACCUMULATED_SAMPLES);
	running_len += sample_len_ns;
	c->running_len = running_len;

	avg_len = kprof_throttle_div(running_len,
				     KPROF_THROTTLE_NR_ACCUMULATED_SAMPLES);
	if (avg_len <= max_len)
		return false;

	low->avg_ns = avg_len;
	low->old_allowed_ns = max_len;

	avg_len += kprof_throttle_div(avg_len, 4);
	/* <= 1e9 / 100 * 99: fits, as the kernel's u32 does. */
	max = (__u32)(kprof_throttle_div(l->tick_nsec, 100) *
		      (__u64)KPROF_THROTTLE_READ(l->cpu_time_max_percent));
	if (avg_len < max)
		max /= (__u32)avg_len;
	else
		max = 1;

	/* Truncated to int as in the kernel (matters from 2^31 ns on). */
	KPROF_THROTTLE_WRITE(l->allowed_ns, (__s32)avg_len);
	KPROF_THROTTLE_WRITE(l->max_samples_per_tick, (__s32)max);
	rate = (__s32)(max * l->hz);
	KPROF_THROTTLE_WRITE(l->max_sample_rate, rate);
	KPROF_THROTTLE_WRITE(l->sample_period_ns,
			     (__s32)kprof_throttle_div(KPROF_THROTTLE_NSEC_PER_SEC,
						       (__u64)rate));

	low->max_samples_per_tick = max;
	low->max_sample_rate = (__u64)rate;
	return true;
}

#endif /* _KPROF_THROTTLE_H */
