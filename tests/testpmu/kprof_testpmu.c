// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_testpmu: a sampling PMU stand-in for the QEMU TCG test bed, which
 * has no PMU.  TEST-ONLY code: never linked into kprof.ko, and it does
 * what kprof.ko must not (calls unexported perf-core functions whose
 * addresses it looks up at load, busy-waits in NMI context on request).
 *
 * Towards the perf core it behaves like an x86 PMU driver
 * (arch/x86/events/core.c):
 *
 *  - Config 0 counts nanoseconds while the event runs on its CPU.  Each of
 *    TESTPMU_COUNTERS emulated counters is programmed, like a PMC, with
 *    -left and overflows when it reaches 0, so `-c N` is one overflow per
 *    N ns and `-F` works through the kernel's own period adjustment.
 *  - An overflow is delivered as a real NMI on the counter's CPU: a pinned
 *    hard hrtimer fires at the earliest overflow deadline, sends an NMI to
 *    its own CPU (apic->send_IPI_mask, which has an NMI delivery mode in
 *    every APIC mode; x2APIC's SELF_IPI register has none) and waits until
 *    the NMI handler has run.  The handler does what perf_event_nmi_handler()
 *    and x86_pmu_handle_irq() do: it times itself with sched_clock(), calls
 *    perf_event_overflow() for each overflowed counter and stops the event
 *    when that returns non-zero (throttle), then feeds the duration to
 *    perf_sample_event_took(), so the kernel's per-tick limit, its cost
 *    controller and its unthrottle in the tick all run for real.
 *  - add/del/start/stop/read keep x86's state machine (PERF_HES_STOPPED,
 *    PERF_HES_UPTODATE, PERF_EF_RELOAD/UPDATE) with the same WARN_ON_ONCE
 *    checks as x86_pmu_start()/x86_pmu_stop().
 *  - nmi_cost_ns (0 ... TICK_NSEC/2, writable): a busy-wait inside the
 *    timed part of the NMI handler, so that every client pays the same
 *    extra cost per NMI and the kernel's controller sees it.
 *
 *  - precise_ip (1-3) stands for PEBS as its clients see it: the sampled
 *    IP differs from the interrupt's (TESTPMU_PRECISE_SKID bytes before
 *    it) and PERF_SAMPLE_CALLCHAIN gets the chain of the interrupt
 *    registers, one record per NMI (testpmu_overflow_precise()).
 *
 *  - It registers as PERF_TYPE_RAW, the type of x86's core PMU (free
 *    in the emulator), and init_euid/init_caps show the credentials its
 *    event_init ran with, where a driver's privilege checks look.
 *
 * What it cannot model: the x86 driver itself (counter scheduling,
 * constraints, LBR, the PEBS buffer and large PEBS), real skid, and
 * overflows in irq-off code.  The
 * hrtimer cannot fire where interrupts are disabled (a real PMI does), so
 * samples of irq-off code land where interrupts come back on, as they do
 * with cpu-clock.  The sampled registers are those the hrtimer interrupt
 * interrupted (get_irq_regs()), not the NMI's own, which point into the
 * hrtimer callback.
 *
 * The calls into perf_event_overflow() and perf_sample_event_took() are
 * indirect calls to functions the kernel does not export; on a CPU that
 * enforces IBT they would fault (the kernel seals unused ENDBRs), so the
 * stand-in refuses to load there.  It is for the emulator.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/irq_regs.h>
#include <asm/nmi.h>

/* kprof's shim header (hrtimer_setup): the same kernel differences. */
#include "kprof_compat.h"

#define TESTPMU_NAME		"kprof_testpmu"
#define TESTPMU_COUNTERS	4
/*
 * A counter is 48 bits wide, as Intel's; the period is at most half its
 * range (x86_pmu.max_period).
 */
#define TESTPMU_MAX_PERIOD	((1ULL << 47) - 1)
/*
 * Frequency mode starts with a period of 1: clamp, as cpu-clock clamps
 * its period to 10 us (perf_swevent_set_period() callers), so the first
 * overflows of an -F event cannot storm the CPU with NMIs.
 */
#define TESTPMU_MIN_PERIOD	10000ULL
/* A self-NMI arrives within microseconds even under TCG; 1 s is broken. */
#define TESTPMU_NMI_TIMEOUT_NS	NSEC_PER_SEC
/* A precise event's sampled IP: this many bytes before the interrupt's. */
#define TESTPMU_PRECISE_SKID	1

/* One emulated counter: a value that advances with time while enabled. */
struct testpmu_counter {
	u64 value;		/* as of @stamp */
	u64 stamp;		/* clock when @value was set or enabled */
	bool enabled;
};

struct testpmu_cpu {
	struct hrtimer timer;
	/* Events added (x86's event_list), and those running (events[]). */
	struct perf_event *owner[TESTPMU_COUNTERS];
	struct perf_event *events[TESTPMU_COUNTERS];
	unsigned long active_mask;
	struct testpmu_counter counter[TESTPMU_COUNTERS];
	/*
	 * Set while the timer callback runs: start/stop called from the NMI
	 * (throttle, the freq adjustment) only change state and the callback
	 * re-arms afterwards; no hrtimer call may happen in the NMI.
	 */
	bool in_timer;
	int nmi_pending;
	struct pt_regs *regs;	/* the hrtimer interrupt's, for the NMI */
	/* NMI statistics: written by this CPU's NMI, read by sysfs. */
	u64 nmis;		/* NMIs handled */
	u64 nmi_ns;		/* their total duration, nmi_cost_ns included */
	u64 cost_ns;		/* of which the nmi_cost_ns busy-wait */
	u64 overflows;		/* perf_event_overflow() calls */
	u64 lost_nmis;		/* NMIs that never arrived (a broken APIC) */
};

static DEFINE_PER_CPU(struct testpmu_cpu, testpmu_pcpu);

static int (*testpmu_event_overflow)(struct perf_event *event,
				     struct perf_sample_data *data,
				     struct pt_regs *regs);
static void (*testpmu_sample_event_took)(u64 sample_len_ns);
/* NULL where the kernel has none: precise_ip is then refused. */
static struct perf_callchain_entry *(*testpmu_callchain)(struct perf_event *event,
							 struct pt_regs *regs);

/* ---- nmi_cost_ns ------------------------------------------------------ */

static unsigned int nmi_cost_ns;

static int nmi_cost_set(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	/* Half a tick: the CPU keeps time for the tick and its unthrottle. */
	if (v > TICK_NSEC / 2) {
		pr_warn("nmi_cost_ns=%u: above TICK_NSEC/2 (%lu)\n", v, TICK_NSEC / 2);
		return -EINVAL;
	}
	WRITE_ONCE(nmi_cost_ns, v);
	return 0;
}

static const struct kernel_param_ops nmi_cost_ops = {
	.set = nmi_cost_set,
	.get = param_get_uint,
};
module_param_cb(nmi_cost_ns, &nmi_cost_ops, &nmi_cost_ns, 0644);
MODULE_PARM_DESC(nmi_cost_ns, "extra busy-wait per NMI, in ns (0 ... TICK_NSEC/2)");

/*
 * Who the last event_init ran as: what a PMU driver's own checks
 * (perfmon_capable(), perf_allow_kernel(), perf_allow_cpu() for Intel's
 * AnyThread bit) and the LSM hooks around it judge.  Root may write -1 to
 * start afresh.  init_caps: bit 0 CAP_PERFMON, bit 1 CAP_SYS_ADMIN, as
 * effective capabilities in the credentials' own user namespace.
 */
static int init_euid = -1;
module_param(init_euid, int, 0644);
MODULE_PARM_DESC(init_euid, "euid the last event_init saw (-1: none since reset)");
static int init_caps = -1;
module_param(init_caps, int, 0644);
MODULE_PARM_DESC(init_caps, "effective CAP_PERFMON (1) and CAP_SYS_ADMIN (2) the last event_init saw");

static void testpmu_note_cred(void)
{
	const struct cred *cred = current_cred();

	WRITE_ONCE(init_caps, (cap_raised(cred->cap_effective, CAP_PERFMON) ? 1 : 0) |
			      (cap_raised(cred->cap_effective, CAP_SYS_ADMIN) ? 2 : 0));
	WRITE_ONCE(init_euid, (int)from_kuid(&init_user_ns, cred->euid));
}

/* ---- emulated counters ----------------------------------------------- */

/* The counters' clock: NMI-safe, and the hrtimer's CLOCK_MONOTONIC. */
static u64 testpmu_clock(void)
{
	return ktime_get_mono_fast_ns();
}

static u64 counter_read(const struct testpmu_counter *c, u64 now)
{
	return c->enabled ? c->value + (now - c->stamp) : c->value;
}

static void counter_write(struct testpmu_counter *c, u64 value)
{
	c->value = value;
	c->stamp = testpmu_clock();
}

static void counter_enable(struct testpmu_counter *c)
{
	c->stamp = testpmu_clock();
	c->enabled = true;
}

static void counter_disable(struct testpmu_counter *c)
{
	c->value = counter_read(c, testpmu_clock());
	c->enabled = false;
}

/* When the running counter @c reaches 0 (it counts up from -left). */
static u64 counter_deadline(const struct testpmu_counter *c)
{
	s64 left = -(s64)c->value;

	return left > 0 ? c->stamp + left : c->stamp;
}

/* Earliest overflow deadline of the running counters, U64_MAX if none. */
static u64 testpmu_next_deadline(struct testpmu_cpu *cpuc)
{
	u64 next = U64_MAX;
	int idx;

	for_each_set_bit(idx, &cpuc->active_mask, TESTPMU_COUNTERS)
		next = min(next, counter_deadline(&cpuc->counter[idx]));
	return next;
}

/*
 * Program the timer for the earliest deadline.  Context: irqs off on the
 * counters' CPU, not in the NMI (the timer callback re-arms after it).
 */
static void testpmu_arm(struct testpmu_cpu *cpuc)
{
	u64 next;

	if (cpuc->in_timer)
		return;
	next = testpmu_next_deadline(cpuc);
	if (next == U64_MAX)
		return;
	if (hrtimer_is_queued(&cpuc->timer) &&
	    ktime_to_ns(hrtimer_get_expires(&cpuc->timer)) <= next)
		return;
	hrtimer_start(&cpuc->timer, ns_to_ktime(next), HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * No counter runs: cancel the timer, so that none stays queued on a CPU
 * going down (the perf core dels its events first) or at unload.  On the
 * timer's own CPU with irqs off its callback cannot be running.
 */
static void testpmu_disarm_if_idle(struct testpmu_cpu *cpuc)
{
	if (!cpuc->in_timer && !cpuc->active_mask)
		hrtimer_try_to_cancel(&cpuc->timer);
}

/* ---- the x86-shaped driver ------------------------------------------- */

/* x86_perf_event_update(): fold the counter's advance into the event. */
static u64 testpmu_update(struct perf_event *event)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	u64 prev, now;
	s64 delta;

	prev = local64_read(&hwc->prev_count);
	now = counter_read(&cpuc->counter[hwc->idx], testpmu_clock());
	local64_set(&hwc->prev_count, now);
	delta = now - prev;
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
	return now;
}

/*
 * x86_perf_event_set_period(): program the counter with -left.  Returns
 * 1 when a new period began (the overflow is a sample).
 */
static int testpmu_set_period(struct perf_event *event)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;
	int ret = 0;

	if (unlikely(left <= -period)) {
		left = period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		ret = 1;
	}
	if (unlikely(left <= 0)) {
		left += period;
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
		ret = 1;
	}
	left = clamp_t(s64, left, TESTPMU_MIN_PERIOD, TESTPMU_MAX_PERIOD);

	local64_set(&hwc->prev_count, (u64)-left);
	counter_write(&cpuc->counter[hwc->idx], (u64)-left);
	perf_event_update_userpage(event);
	return ret;
}

/* x86_pmu_start(), with its checks. */
static void testpmu_start(struct perf_event *event, int flags)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	int idx = hwc->idx;

	if (WARN_ON_ONCE(!(hwc->state & PERF_HES_STOPPED)))
		return;
	if (WARN_ON_ONCE(idx == -1))
		return;
	if (flags & PERF_EF_RELOAD) {
		WARN_ON_ONCE(!(hwc->state & PERF_HES_UPTODATE));
		testpmu_set_period(event);
	}
	hwc->state = 0;

	cpuc->events[idx] = event;
	__set_bit(idx, &cpuc->active_mask);
	counter_enable(&cpuc->counter[idx]);
	testpmu_arm(cpuc);
	perf_event_update_userpage(event);
}

/* x86_pmu_stop(), with its checks. */
static void testpmu_stop(struct perf_event *event, int flags)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	int idx = hwc->idx;

	if (idx >= 0 && test_bit(idx, &cpuc->active_mask)) {
		counter_disable(&cpuc->counter[idx]);
		__clear_bit(idx, &cpuc->active_mask);
		cpuc->events[idx] = NULL;
		WARN_ON_ONCE(hwc->state & PERF_HES_STOPPED);
		hwc->state |= PERF_HES_STOPPED;
		testpmu_disarm_if_idle(cpuc);
	}

	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		/* Drain what the stopped counter counted. */
		testpmu_update(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

/* x86_pmu_add(): take a counter; start it when asked to. */
static int testpmu_add(struct perf_event *event, int flags)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	struct hw_perf_event *hwc = &event->hw;
	int idx;

	for (idx = 0; idx < TESTPMU_COUNTERS; idx++)
		if (!cpuc->owner[idx])
			break;
	if (idx == TESTPMU_COUNTERS)
		return -EAGAIN;		/* the core multiplexes */

	cpuc->owner[idx] = event;
	hwc->idx = idx;
	hwc->state = PERF_HES_UPTODATE | PERF_HES_STOPPED;
	if (flags & PERF_EF_START)
		testpmu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

/* x86_pmu_del(): stop (draining the count) and give the counter back. */
static void testpmu_del(struct perf_event *event, int flags)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	struct hw_perf_event *hwc = &event->hw;

	testpmu_stop(event, PERF_EF_UPDATE);
	/* called ->del() without ->add() ? */
	if (WARN_ON_ONCE(hwc->idx < 0 || cpuc->owner[hwc->idx] != event))
		return;
	cpuc->owner[hwc->idx] = NULL;
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

static void testpmu_read(struct perf_event *event)
{
	testpmu_update(event);
}

static int testpmu_event_init(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	testpmu_note_cred();
	if (event->attr.config)
		return -EINVAL;		/* config 0 (ns) is the only event */
	/* No LBR: what an x86 counter without it refuses. */
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	/* precise_ip: see testpmu_overflow_precise(); x86 allows up to 3. */
	if (event->attr.precise_ip > 3 ||
	    (event->attr.precise_ip && !testpmu_callchain))
		return -EOPNOTSUPP;

	hwc->idx = -1;
	if (!is_sampling_event(event)) {
		/* x86_setup_perfctr(): counting events wrap at max_period. */
		hwc->sample_period = TESTPMU_MAX_PERIOD;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}
	return 0;
}

/* ---- overflow delivery ----------------------------------------------- */

/* Whether the overflow's sample is excluded by the interrupted mode. */
static bool testpmu_excluded(struct perf_event *event, struct pt_regs *regs)
{
	if (user_mode(regs))
		return event->attr.exclude_user;
	return event->attr.exclude_kernel;
}

/*
 * A precise event's overflow as intel_pmu_drain_pebs_*() delivers one (one
 * record per PMI: no large PEBS is modelled): the sample's registers are
 * the interrupt's with the IP moved to the "eventing" instruction, here
 * one byte before the interrupted IP (the stand-in's stand-in for the
 * skid PEBS removes, so a test can tell the two IPs apart), and with
 * PERF_SAMPLE_CALLCHAIN the chain is taken from the interrupt registers,
 * as setup_pebs_*_sample_data() does ("we must however always use iregs
 * for the unwinder to stay sane").
 */
static int testpmu_overflow_precise(struct perf_event *event,
				    struct perf_sample_data *data,
				    struct pt_regs *iregs)
{
	struct pt_regs regs = *iregs;

	regs.ip = iregs->ip - TESTPMU_PRECISE_SKID;
	if (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
		data->callchain = testpmu_callchain(event, iregs);
		data->sample_flags |= PERF_SAMPLE_CALLCHAIN;
	}
	return testpmu_event_overflow(event, data, &regs);
}

/* x86_pmu_handle_irq(): returns the number of counters that overflowed. */
static int testpmu_handle_irq(struct testpmu_cpu *cpuc, struct pt_regs *regs)
{
	struct perf_sample_data data;
	struct perf_event *event;
	int idx, handled = 0;
	u64 val;

	for_each_set_bit(idx, &cpuc->active_mask, TESTPMU_COUNTERS) {
		event = cpuc->events[idx];

		val = testpmu_update(event);
		if ((s64)val < 0)
			continue;	/* not at 0 yet */

		handled++;
		if (!testpmu_set_period(event))
			continue;
		/* A PMC would not have counted in the excluded mode. */
		if (testpmu_excluded(event, regs))
			continue;

		perf_sample_data_init(&data, 0, event->hw.last_period);
		cpuc->overflows++;
		if (event->attr.precise_ip ?
		    testpmu_overflow_precise(event, &data, regs) :
		    testpmu_event_overflow(event, &data, regs))
			testpmu_stop(event, 0);
	}
	return handled;
}

/* perf_event_nmi_handler(): timed, cost included, fed to the controller. */
static int testpmu_nmi_handler(unsigned int cmd, struct pt_regs *nmi_regs)
{
	struct testpmu_cpu *cpuc = this_cpu_ptr(&testpmu_pcpu);
	u64 start_clock, finish_clock, cost;

	if (!READ_ONCE(cpuc->nmi_pending))
		return NMI_DONE;

	start_clock = sched_clock();
	testpmu_handle_irq(cpuc, cpuc->regs ?: nmi_regs);
	cost = READ_ONCE(nmi_cost_ns);
	if (cost) {
		u64 t0 = sched_clock();

		while (sched_clock() - t0 < cost)
			cpu_relax();
	}
	finish_clock = sched_clock();

	testpmu_sample_event_took(finish_clock - start_clock);

	WRITE_ONCE(cpuc->nmis, cpuc->nmis + 1);
	WRITE_ONCE(cpuc->nmi_ns, cpuc->nmi_ns + (finish_clock - start_clock));
	WRITE_ONCE(cpuc->cost_ns, cpuc->cost_ns + cost);
	/* The callback, interrupted on this CPU, resumes after this store. */
	barrier();
	WRITE_ONCE(cpuc->nmi_pending, 0);
	return NMI_HANDLED;
}

/* Send the NMI to this CPU and wait until its handler has run. */
static void testpmu_deliver_nmi(struct testpmu_cpu *cpuc)
{
	u64 t0;

	cpuc->in_timer = true;
	cpuc->regs = get_irq_regs();
	WRITE_ONCE(cpuc->nmi_pending, 1);
	barrier();
	apic->send_IPI_mask(cpumask_of(smp_processor_id()), NMI_VECTOR);
	t0 = sched_clock();
	while (READ_ONCE(cpuc->nmi_pending)) {
		if (sched_clock() - t0 > TESTPMU_NMI_TIMEOUT_NS) {
			/* Only this CPU's NMI clears the flag: no race. */
			WRITE_ONCE(cpuc->nmi_pending, 0);
			cpuc->lost_nmis++;
			WARN_ONCE(1, "self-NMI did not arrive within 1 s\n");
			break;
		}
		cpu_relax();
	}
	cpuc->regs = NULL;
	cpuc->in_timer = false;
}

static enum hrtimer_restart testpmu_timer_fn(struct hrtimer *timer)
{
	struct testpmu_cpu *cpuc = container_of(timer, struct testpmu_cpu, timer);
	u64 next;

	/* Migrated off a CPU that went down: its counters are gone. */
	if (cpuc != this_cpu_ptr(&testpmu_pcpu))
		return HRTIMER_NORESTART;

	if (testpmu_next_deadline(cpuc) <= testpmu_clock())
		testpmu_deliver_nmi(cpuc);

	next = testpmu_next_deadline(cpuc);
	if (next == U64_MAX)
		return HRTIMER_NORESTART;
	hrtimer_set_expires(timer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/* ---- sysfs: format and NMI statistics -------------------------------- */

PMU_FORMAT_ATTR(event, "config:0-63");

static struct attribute *testpmu_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group testpmu_format_group = {
	.name = "format",
	.attrs = testpmu_format_attrs,
};

/*
 * nmi_stats: sums over all CPUs, one "name value" per line.  Cost per
 * sample of the clients' handlers = (nmi_ns - cost_ns) / overflows.
 */
static ssize_t nmi_stats_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	u64 nmis = 0, nmi_ns = 0, cost_ns = 0, overflows = 0, lost = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct testpmu_cpu *cpuc = per_cpu_ptr(&testpmu_pcpu, cpu);

		nmis += READ_ONCE(cpuc->nmis);
		nmi_ns += READ_ONCE(cpuc->nmi_ns);
		cost_ns += READ_ONCE(cpuc->cost_ns);
		overflows += READ_ONCE(cpuc->overflows);
		lost += READ_ONCE(cpuc->lost_nmis);
	}
	return sysfs_emit(buf,
			  "nmis %llu\nnmi_ns %llu\ncost_ns %llu\noverflows %llu\nlost_nmis %llu\n",
			  nmis, nmi_ns, cost_ns, overflows, lost);
}
static DEVICE_ATTR_RO(nmi_stats);

static struct attribute *testpmu_attrs[] = {
	&dev_attr_nmi_stats.attr,
	NULL,
};

static const struct attribute_group testpmu_attr_group = {
	.attrs = testpmu_attrs,
};

static const struct attribute_group *testpmu_attr_groups[] = {
	&testpmu_format_group,
	&testpmu_attr_group,
	NULL,
};

static struct pmu testpmu = {
	.module		= THIS_MODULE,
	/* Free in the guest (no x86 PMU), and it allows per-task events. */
	.task_ctx_nr	= perf_hw_context,
#ifdef PERF_PMU_CAP_HETEROGENEOUS_CPUS
	/* 6.1: without it a second registration (a reload) WARNs. */
	.capabilities	= PERF_PMU_CAP_HETEROGENEOUS_CPUS,
#endif
	.attr_groups	= testpmu_attr_groups,
	.event_init	= testpmu_event_init,
	.add		= testpmu_add,
	.del		= testpmu_del,
	.start		= testpmu_start,
	.stop		= testpmu_stop,
	.read		= testpmu_read,
};

/* ---- load ------------------------------------------------------------ */

/*
 * Look up what the kernel does not export: a kprobe on
 * kallsyms_lookup_name yields its address (past the ENDBR on IBT
 * kernels, still a valid entry where IBT is not enforced), and that
 * function the others'.
 */
static int testpmu_resolve(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long (*lookup)(const char *name);
	int ret;

	if (cpu_feature_enabled(X86_FEATURE_IBT)) {
		pr_err("this CPU enforces IBT: indirect calls into unexported kernel functions would fault; the stand-in is for emulators without IBT\n");
		return -EOPNOTSUPP;
	}
	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find kallsyms_lookup_name through a kprobe (%d): needs CONFIG_KPROBES and CONFIG_KALLSYMS\n",
		       ret);
		return ret;
	}
	lookup = (void *)kp.addr;
	unregister_kprobe(&kp);

	testpmu_event_overflow = (void *)lookup("perf_event_overflow");
	testpmu_sample_event_took = (void *)lookup("perf_sample_event_took");
	testpmu_callchain = (void *)lookup("perf_callchain");
	if (!testpmu_callchain)
		pr_info("kallsyms has no perf_callchain: precise_ip refused\n");
	if (!testpmu_event_overflow || !testpmu_sample_event_took) {
		pr_err("kallsyms has no %s: cannot deliver overflows like a PMU driver\n",
		       testpmu_event_overflow ? "perf_sample_event_took" : "perf_event_overflow");
		return -ENOENT;
	}
	return 0;
}

static void testpmu_cancel_timers(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu_ptr(&testpmu_pcpu, cpu)->timer);
}

/*
 * The stand-in takes the core PMU's type, PERF_TYPE_RAW (x86 registers its
 * core PMU there), so that it reaches kprof by the path a real PMU does:
 * kprof samples only the types it can tell are the core PMU's and refuses
 * dynamic ones.  perf_pmu_register() with a type already taken WARNs and
 * takes another, so first ask the perf core: with no PMU of that type,
 * perf_init_event() finds none that accepts a raw event (-ENOENT).
 */
static int testpmu_check_raw_free(void)
{
	struct perf_event_attr attr = {
		.type		= PERF_TYPE_RAW,
		.size		= sizeof(attr),
		.disabled	= 1,
	};
	struct perf_event *event;

	event = perf_event_create_kernel_counter(&attr, 0, NULL, NULL, NULL);
	if (PTR_ERR_OR_ZERO(event) == -ENOENT)
		return 0;
	if (!IS_ERR(event))
		perf_event_release_kernel(event);
	pr_err("a PMU has type PERF_TYPE_RAW (%d): this machine has a core PMU; the stand-in is for emulators without one\n",
	       PTR_ERR_OR_ZERO(event));
	return -EBUSY;
}

static int __init testpmu_init(void)
{
	int cpu, ret;

	ret = testpmu_resolve();
	if (ret)
		return ret;

	for_each_possible_cpu(cpu) {
		struct testpmu_cpu *cpuc = per_cpu_ptr(&testpmu_pcpu, cpu);

		kprof_hrtimer_setup(&cpuc->timer, testpmu_timer_fn, CLOCK_MONOTONIC,
				    HRTIMER_MODE_ABS_PINNED_HARD);
	}

	ret = register_nmi_handler(NMI_LOCAL, testpmu_nmi_handler, 0, TESTPMU_NAME);
	if (ret) {
		pr_err("cannot register the NMI handler (%d)\n", ret);
		return ret;
	}
	ret = testpmu_check_raw_free();
	if (ret)
		goto unregister_nmi;
	ret = perf_pmu_register(&testpmu, TESTPMU_NAME, PERF_TYPE_RAW);
	if (ret) {
		pr_err("cannot register PMU %s (%d)\n", TESTPMU_NAME, ret);
		goto unregister_nmi;
	}
	pr_info("PMU %s registered as type %d (config 0: nanoseconds)\n",
		TESTPMU_NAME, testpmu.type);
	return 0;

unregister_nmi:
	unregister_nmi_handler(NMI_LOCAL, TESTPMU_NAME);
	return ret;
}

static void __exit testpmu_exit(void)
{
	/* Events hold a module reference: none is left at this point. */
	perf_pmu_unregister(&testpmu);
	unregister_nmi_handler(NMI_LOCAL, TESTPMU_NAME);
	testpmu_cancel_timers();
}

module_init(testpmu_init);
module_exit(testpmu_exit);
MODULE_DESCRIPTION("kprof test bed: a sampling PMU stand-in with NMI-delivered overflows");
MODULE_LICENSE("GPL");
