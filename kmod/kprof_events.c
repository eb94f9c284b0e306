// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_events.c - configuration and kprof's perf events.
 *
 * A per-task session (KPROF_TARGET_TASK) has one event on its target,
 * inherited by the tasks it creates (kprof_target.c), and no CPU hotplug
 * state: its events follow their tasks, and every possible CPU has a
 * producer and a ring for wherever they run.  The rest of this comment is
 * about CPU sessions.
 *
 * One pinned kernel counter per selected online CPU, created through a
 * cpuhp multi-instance state: adding the instance at START creates the
 * events on every online CPU (rolling back on the first failure),
 * removing it at STOP releases them, and CPUs that come and go while
 * sampling get and lose theirs.  Like kernel/watchdog_perf.c, the callback
 * runs on the CPU concerned, in its hotplug thread, under the session
 * owner's credentials.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/align.h>
#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/kstrtox.h>
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "kprof.h"
#include "kprof_attr.h"

static enum cpuhp_state kprof_hp_state;

static const struct {
	const char	*name;
	u32		type;
	u64		config;
} kprof_event_names[] = {
	{ "cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "ref-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

/**
 * kprof_parse_event() - an event name as perf spells it
 * @name: one of the names above, or rNNNN (raw code in hex, as perf)
 * @type: PERF_TYPE_* out
 * @config: event code out
 *
 * Return: 0, or -EINVAL for an unknown name.
 */
int kprof_parse_event(const char *name, u32 *type, u64 *config)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kprof_event_names); i++) {
		if (!strcmp(name, kprof_event_names[i].name)) {
			*type = kprof_event_names[i].type;
			*config = kprof_event_names[i].config;
			return 0;
		}
	}
	if (name[0] == 'r' && name[1] && !kstrtou64(name + 1, 16, config)) {
		*type = PERF_TYPE_RAW;
		return 0;
	}
	return -EINVAL;
}

static bool kprof_config_has_cpu(const struct kprof_config *cfg,
				 unsigned int cpu)
{
	return cfg->cpumask[cpu / 64] & (1ULL << (cpu % 64));
}

/*
 * A PMU kprof does not sample: -EOPNOTSUPP, what perf_event_open() gives
 * for a sampling event on a PMU that cannot interrupt
 * (PERF_PMU_CAP_NO_INTERRUPT, "sampling not supported").  Decided from the
 * request alone, before any event exists: creating one can already act
 * (a kprobe PMU registers its probe in event_init).  Any user may ask,
 * so the log line is ratelimited.
 */
static int kprof_config_refuse(const struct kprof_config *cfg,
			       const char *pmu, const char *why)
{
	pr_warn_ratelimited("event type %u config %#llx on PMU '%s' refused: %s\n",
			    cfg->type, cfg->config, pmu, why);
	return -EOPNOTSUPP;
}

/* PERF_TYPE_HW_CACHE config: 0x00RRQQCC, as x86's set_ext_hw_attr() reads it. */
static int kprof_config_validate_cache(u64 config)
{
	/*
	 * Bits 32 and up name a PMU type (PERF_PMU_TYPE_SHIFT), which would
	 * let a dynamic PMU judge the event: refused as for HARDWARE below.
	 */
	if (config >> 24)
		return -EINVAL;
	if ((config & 0xff) >= PERF_COUNT_HW_CACHE_MAX ||
	    ((config >> 8) & 0xff) >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    ((config >> 16) & 0xff) >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	return 0;
}

/*
 * An allow-list of the PMUs kprof samples soundly, with the errnos
 * perf_event_open() gives for the same type and config.  The CPU's core
 * PMU (HARDWARE, HW_CACHE and RAW all reach it: perf_init_event() maps the
 * first two to PERF_TYPE_RAW, x86's fixed type) overflows in NMI context
 * and leaves a counter the overflow handler stopped alone; cpu-clock and
 * task-clock are hrtimers kprof stops and restarts itself.  Everything
 * else is refused here: tracepoints, breakpoints and the other software
 * events overflow in the context of whatever hit them, and a dynamic type
 * (kprobe, uprobe, uncore, AMD IBS, ...) cannot be told apart from the
 * request: the kernel exports no lookup of a PMU by type, and creating
 * the event to look at its PMU is what must not happen first.
 */
static int kprof_config_validate_event(const struct kprof_config *cfg)
{
	switch (cfg->type) {
	case PERF_TYPE_HARDWARE:
		/* x86_setup_perfctr(): unknown generic event; and no extended type */
		if (cfg->config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		return 0;
	case PERF_TYPE_HW_CACHE:
		return kprof_config_validate_cache(cfg->config);
	case PERF_TYPE_RAW:
		/* The PMU driver checks the code when the event is created. */
		return 0;
	case PERF_TYPE_SOFTWARE:
		/* perf_swevent_init() / cpu_clock_event_init() */
		if (cfg->config >= PERF_COUNT_SW_MAX)
			return -ENOENT;
		if (cfg->config != PERF_COUNT_SW_CPU_CLOCK &&
		    cfg->config != PERF_COUNT_SW_TASK_CLOCK)
			return kprof_config_refuse(cfg, "software",
						   "only cpu-clock and task-clock overflow where kprof can throttle them; other software events overflow in the task that hit them");
		return 0;
	case PERF_TYPE_TRACEPOINT:
		return kprof_config_refuse(cfg, "tracepoint",
					   "a tracepoint overflows in the task that hit it: use perf");
	case PERF_TYPE_BREAKPOINT:
		return kprof_config_refuse(cfg, "breakpoint",
					   "a breakpoint overflows in the task that hit it: use perf");
	default:
		return kprof_config_refuse(cfg, "(dynamic type)",
					   "kprof samples the CPU's core PMU (hardware, cache and raw events) and cpu-clock/task-clock only, not a PMU of a dynamic type (kprobe, uprobe, uncore, ibs_*, ...)");
	}
}

/**
 * kprof_config_validate() - check a configuration as perf_event_open() would
 * @cfg: the configuration, copied in whole
 *
 * Context: kprof.lock held (reads the max_sample_rate knob).
 * Return: 0, or the errno for the first problem found.
 */
int kprof_config_validate(const struct kprof_config *cfg)
{
	unsigned long data_size;
	unsigned int cpu;
	int ret;

	if (cfg->flags & ~KPROF_CFG_ALL)
		return -EINVAL;
	if (cfg->__reserved0 ||
	    memchr_inv(cfg->__reserved, 0, sizeof(cfg->__reserved)))
		return -EINVAL;
	if ((cfg->flags & KPROF_CFG_EXCLUDE_USER) &&
	    (cfg->flags & KPROF_CFG_EXCLUDE_KERNEL))
		return -EINVAL;
	/*
	 * perf_event_open() refuses pid -1 with cpu -1 and a pid below -1;
	 * kprof's target is a pid > 0 (the caller itself has no shorthand:
	 * the file may be used by another process than its opener), and a
	 * per-task session has a ring on every CPU (its tasks run anywhere).
	 */
	if (cfg->target_flags & ~KPROF_TARGET_ALL)
		return -EINVAL;
	if (cfg->target_flags & KPROF_TARGET_TASK) {
		if (cfg->target_pid <= 0 ||
		    memchr_inv(cfg->cpumask, 0, sizeof(cfg->cpumask)))
			return -EINVAL;
	} else if (cfg->target_pid || cfg->target_flags) {
		return -EINVAL;
	}

	ret = kprof_config_validate_event(cfg);
	if (ret)
		return ret;

	if (!cfg->sample)
		return -EINVAL;
	if (cfg->flags & KPROF_CFG_FREQ) {
		if (cfg->sample > READ_ONCE(kprof.limits.max_sample_rate))
			return -EINVAL;
	} else if (cfg->sample & (1ULL << 63)) {
		return -EINVAL;
	}
	if (cfg->precise_ip > 3)
		return -EINVAL;

	if (cfg->kernel_stack > KPROF_MAX_STACK ||
	    cfg->user_stack > KPROF_MAX_STACK)
		return -EINVAL;
	if (((cfg->flags & KPROF_CFG_CALLCHAIN_KERNEL) && !cfg->kernel_stack) ||
	    ((cfg->flags & KPROF_CFG_CALLCHAIN_USER) && !cfg->user_stack))
		return -EINVAL;
	/* perf_copy_attr()'s rules for sample_stack_user. */
	if (cfg->flags & KPROF_CFG_CALLCHAIN_DWARF) {
		if (!cfg->user_stack_size || !IS_ALIGNED(cfg->user_stack_size, 8) ||
		    cfg->user_stack_size > KPROF_MAX_USER_STACK_SIZE)
			return -EINVAL;
	} else if (cfg->user_stack_size) {
		return -EINVAL;
	}

	if (!cfg->buffer_pages || !is_power_of_2(cfg->buffer_pages) ||
	    cfg->buffer_pages > KPROF_MAX_BUFFER_PAGES)
		return -EINVAL;
	data_size = (unsigned long)cfg->buffer_pages << PAGE_SHIFT;
	if (cfg->watermark > data_size)
		return -EINVAL;

	for (cpu = 0; cpu < KPROF_MAX_CPUS; cpu++)
		if (kprof_config_has_cpu(cfg, cpu) &&
		    (cpu >= nr_cpu_ids || !cpu_possible(cpu)))
			return -EINVAL;
	return 0;
}

/**
 * kprof_config_cpus() - the CPUs a configuration samples
 * @cfg: a validated configuration
 * @mask: out: its cpumask, or all possible CPUs when that is empty
 */
void kprof_config_cpus(const struct kprof_config *cfg, struct cpumask *mask)
{
	unsigned int cpu;

	cpumask_clear(mask);
	for_each_possible_cpu(cpu)
		if (cpu < KPROF_MAX_CPUS && kprof_config_has_cpu(cfg, cpu))
			cpumask_set_cpu(cpu, mask);
	if (cpumask_empty(mask))
		cpumask_copy(mask, cpu_possible_mask);
}

static void kprof_build_attr(struct perf_event_attr *attr,
			     const struct kprof_config *cfg)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = cfg->type;
	attr->size = sizeof(*attr);
	attr->config = cfg->config;
	attr->config1 = cfg->config1;
	attr->config2 = cfg->config2;
	attr->pinned = 1;
	/* Enabled once kprof_throttle_check_event() accepts its PMU. */
	attr->disabled = 1;
	if (cfg->flags & KPROF_CFG_FREQ) {
		attr->freq = 1;
		attr->sample_freq = cfg->sample;
	} else {
		attr->sample_period = cfg->sample;
	}
	attr->exclude_user = !!(cfg->flags & KPROF_CFG_EXCLUDE_USER);
	attr->exclude_kernel = !!(cfg->flags & KPROF_CFG_EXCLUDE_KERNEL);
	/* No large PEBS, chains from the interrupt regs: kprof_attr.h */
	kprof_attr_precise(attr, cfg);
}

/*
 * @cpu's event, created under the owner's credentials (kprof_opener_cred()
 * in kprof_cdev.c): the callers run on kernel threads, whose own would
 * pass every check the PMU and the LSMs make.  Open to fail_function
 * (CONFIG_FAIL_FUNCTION): its callers run on the hotplug threads and a
 * kworker, where no task's fail-nth reaches, and the fault test fails
 * each of them in turn.
 */
static noinline struct perf_event *
kprof_event_create(struct kprof_session *s, unsigned int cpu)
{
	const struct cred *old = override_creds(s->cred);
	struct perf_event *event;

	/* The handler's context: the producer it writes through. */
	event = perf_event_create_kernel_counter(&s->attr, cpu, NULL,
						 kprof_overflow,
						 per_cpu_ptr(s->pcpu, cpu));
	revert_creds(old);
	return event;
}

ALLOW_ERROR_INJECTION(kprof_event_create, ERRNO);

/* cpuhp startup, on @cpu: create its event if it is sampled. */
static int kprof_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct kprof_session *s = hlist_entry(node, struct kprof_session,
					      hp_node);
	struct kprof_cpu *c = per_cpu_ptr(s->pcpu, cpu);
	struct perf_event *event;
	int ret;

	if (!cpumask_test_cpu(cpu, s->cpus))
		return 0;

	/* No event yet: nothing else touches the throttle state. */
	kprof_throttle_reset(c);
	event = kprof_event_create(s, cpu);
	if (IS_ERR(event)) {
		ret = PTR_ERR(event);
		goto fail;
	}
	/* Disabled so far: no overflow of a PMU kprof refuses reaches it. */
	ret = kprof_throttle_check_event(event, s->attr.type);
	if (ret)
		goto release;
	perf_event_enable(event);
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_ERROR) {
		/* A pinned event that could not get a counter. */
		ret = -EBUSY;
		goto release;
	}
	c->event = event;
	kprof_buffer_set_flags(c->buf, KPROF_PAGE_ONLINE, 0);
	return 0;

release:
	perf_event_release_kernel(event);
fail:
	/* START fails as a whole; a CPU coming online must not. */
	if (READ_ONCE(s->starting))
		return ret;
	pr_warn_ratelimited("cpu%u online without an event: error %d\n", cpu, ret);
	return 0;
}

/* cpuhp teardown, on @cpu while still online: release its event. */
static int kprof_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct kprof_session *s = hlist_entry(node, struct kprof_session,
					      hp_node);
	struct kprof_cpu *c = per_cpu_ptr(s->pcpu, cpu);
	struct perf_event *event = c->event;

	if (!event)
		return 0;
	/*
	 * The throttle's irq_work and hrtimer find no event from here on;
	 * wait for those in flight before the event goes, and again after,
	 * for those a last overflow queued.
	 */
	WRITE_ONCE(c->event, NULL);
	kprof_throttle_quiesce(c);
	/* Waits for the hrtimer; no more overflows on this CPU after it. */
	perf_event_release_kernel(event);
	kprof_throttle_quiesce(c);
	kprof_buffer_set_flags(c->buf, 0, KPROF_PAGE_ONLINE);
	kprof_counters_publish(c);
	return 0;
}

/*
 * After the events are gone: wait for handlers still running (irq and NMI
 * handlers are RCU read-side sections) and for their wakeups, then report
 * the last losses and publish final counters, and only then tell poll()
 * the session is over.
 */
static void kprof_events_quiesce(struct kprof_session *s)
{
	unsigned int cpu;

	synchronize_rcu();
	for_each_possible_cpu(cpu) {
		kprof_throttle_quiesce(per_cpu_ptr(s->pcpu, cpu));
		irq_work_sync(&per_cpu_ptr(s->pcpu, cpu)->buf->wakeup);
	}

	for_each_possible_cpu(cpu) {
		struct kprof_cpu *c = per_cpu_ptr(s->pcpu, cpu);

		kprof_buffer_flush_lost(c);
		kprof_counters_publish(c);
		kprof_buffer_set_flags(c->buf, 0,
				       KPROF_PAGE_RUNNING | KPROF_PAGE_ONLINE);
	}
	/*
	 * kprof_poll() reads this without kprof.lock and answers EPOLLHUP
	 * once it is false and the buffers look drained: the release orders
	 * the last LOST records' data_head before it, so a poller that sees
	 * it false sees them too.  Before the wakeup, so a woken poller
	 * sees it.
	 */
	smp_store_release(&s->running, false);
	wake_up_all(&s->wq);
}

/*
 * Before any CPU's event: one disabled event on an online CPU, created in
 * process context, so that what the PMU refuses (its event_init, a
 * privilege check, kprof_throttle_check_event()) is refused once, before
 * the cpuhp callbacks start creating and rolling back.  Its events are
 * released only after the session's events exist (kprof_events_preflight_put()):
 * on some kernels (6.1-rt) releasing an event waits for an RCU grace
 * period, and one CPU that does not pass one (a long preempt-disabled
 * section) would keep every CPU's sampling from starting until it does.
 */
/*
 * perf_event_open() refuses a frequency above the kernel's
 * perf_event_max_sample_rate (EINVAL), a sysctl modules cannot read.
 * perf_event_period() applies the same test to a frequency event, but
 * the clocks turn their frequency into a period at event_init (attr.freq
 * cleared), so it asks a disabled dummy software event, which keeps it:
 * EINVAL exactly where perf_event_open() would say it, at the rate in
 * force now.  The dummy never counts; kprof_events_preflight_put() releases
 * it with the other trial event.
 */
static int kprof_events_check_freq(struct kprof_session *s, unsigned int cpu,
				   struct perf_event **dummyp)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.freq = 1,
		.sample_freq = s->attr.sample_freq,
		.disabled = 1,
	};
	const struct cred *old = override_creds(s->cred);
	struct perf_event *dummy;

	dummy = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	revert_creds(old);
	if (IS_ERR(dummy))
		return PTR_ERR(dummy);
	*dummyp = dummy;
	return perf_event_period(dummy, attr.sample_freq);
}

static long kprof_events_preflight_fn(void *arg)
{
	struct kprof_session *s = arg;
	struct perf_event *event;
	int ret;

	/*
	 * Disabled, never enabled: no overflow reaches the producer this
	 * names, which another event of the session may not have yet.
	 */
	event = kprof_event_create(s, raw_smp_processor_id());
	if (IS_ERR(event))
		return PTR_ERR(event);
	s->preflight[0] = event;
	ret = kprof_throttle_check_event(event, s->attr.type);
	if (!ret && s->attr.freq)
		ret = kprof_events_check_freq(s, raw_smp_processor_id(),
					      &s->preflight[1]);
	return ret;
}

static void kprof_events_preflight_put(struct kprof_session *s)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(s->preflight); i++) {
		if (s->preflight[i])
			perf_event_release_kernel(s->preflight[i]);
		s->preflight[i] = NULL;
	}
}

/* On a kworker, like the cpuhp callbacks on their kthread. */
static int kprof_events_preflight(struct kprof_session *s)
{
	int ret = work_on_cpu(cpumask_first(cpu_online_mask),
			      kprof_events_preflight_fn, s);

	if (ret)
		kprof_events_preflight_put(s);
	return ret;
}

/* The owner's credentials and pid namespace, until the events are gone. */
static void kprof_events_hold(struct kprof_session *s, const struct cred *cred,
			      struct pid_namespace *pid_ns)
{
	s->cred = get_cred(cred);
	s->pid_ns = get_pid_ns(pid_ns);
}

static void kprof_events_unhold(struct kprof_session *s)
{
	put_pid_ns(s->pid_ns);
	s->pid_ns = NULL;
	put_cred(s->cred);
	s->cred = NULL;
}

/*
 * A per-task session's events (kprof_target.c); every CPU's page says
 * online, since the target's tasks may overflow on any.  No cpuhp
 * instance: an event on a task is not a CPU's, and a CPU going away only
 * moves the task.  Its producers are all active before the events exist.
 */
static int kprof_events_start_task(struct kprof_session *s)
{
	unsigned int cpu;
	int ret;

	ret = kprof_target_start(s);
	if (ret)
		return ret;
	for_each_possible_cpu(cpu)
		kprof_buffer_set_flags(per_cpu_ptr(s->pcpu, cpu)->buf,
				       KPROF_PAGE_ONLINE, 0);
	return 0;
}

/**
 * kprof_events_start() - start sampling with a session's configuration
 * @s: the session, stopped, with buffers
 * @fresh: the buffers were emptied for a new owner (kprof_counters_reset())
 * @cred: the owner's credentials: every event of the session is created
 *	under them, for a CPU that comes online later too
 * @pid_ns: the owner's pid namespace: SAMPLE pids are translated to it
 *
 * Creates the event of every selected online CPU.  If any fails, those
 * already created are released and its errno is returned (-ENOENT or
 * -EOPNOTSUPP for a hardware event without a PMU, for example).  A
 * per-task session gets its target's events instead (-ESRCH, -EACCES:
 * kprof_target_start()).
 *
 * Context: kprof.lock held, not running, buffers allocated.
 * Return: 0 or -errno.
 */
int kprof_events_start(struct kprof_session *s, bool fresh,
		       const struct cred *cred, struct pid_namespace *pid_ns)
{
	unsigned int cpu;
	int ret;

	lockdep_assert_held(&kprof.lock);

	kprof_config_cpus(&s->config, s->cpus);
	kprof_build_attr(&s->attr, &s->config);
	kprof_events_hold(s, cred, pid_ns);
	ret = kprof_events_preflight(s);
	if (ret)
		goto unhold;

	for_each_possible_cpu(cpu) {
		struct kprof_cpu *c = per_cpu_ptr(s->pcpu, cpu);

		/*
		 * The CPU's cost average is every session's: it starts over
		 * only when no session runs, as it did with one session.
		 */
		if (!kprof_sessions_running())
			kprof_throttle_reset_cost(cpu);
		kprof_counters_reset(c, fresh);
		kprof_throttle_reset(c);
		kprof_counters_publish(c);
		kprof_limits_publish(c->buf);
		kprof_buffer_set_flags(c->buf, KPROF_PAGE_RUNNING, 0);
		/* Before the events exist: their first overflow counts. */
		WRITE_ONCE(c->active, cpumask_test_cpu(cpu, s->cpus));
	}

	if (kprof_session_per_task(s)) {
		ret = kprof_events_start_task(s);
	} else {
		/* Holds cpus_read_lock(): no hotplug callback sees 'starting'. */
		WRITE_ONCE(s->starting, true);
		ret = cpuhp_state_add_instance(kprof_hp_state, &s->hp_node);
		WRITE_ONCE(s->starting, false);
	}
	kprof_events_preflight_put(s);
	if (ret) {
		/* The rollback released the events created before the failure. */
		for_each_possible_cpu(cpu)
			WRITE_ONCE(per_cpu_ptr(s->pcpu, cpu)->active, false);
		kprof_events_quiesce(s);
		goto unhold;
	}
	/* Read by kprof_poll() without kprof.lock. */
	WRITE_ONCE(s->running, true);
	kprof.nr_running++;
	return 0;

unhold:
	kprof_events_unhold(s);
	return ret;
}

/**
 * kprof_events_stop() - stop sampling; counters are final on return
 * @s: the session, running
 *
 * Order: stop flag (overflows still arriving count as lost_stopped),
 * release the events, wait for running handlers and their irq_work, then,
 * with the producers quiesced, write each CPU's pending LOST record, and
 * last clear s->running.
 *
 * Context: kprof.lock held, running.
 */
void kprof_events_stop(struct kprof_session *s)
{
	unsigned int cpu;

	lockdep_assert_held(&kprof.lock);

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(s->pcpu, cpu)->active, false);
	if (s->task_events)
		kprof_target_stop(s);
	else
		cpuhp_state_remove_instance(kprof_hp_state, &s->hp_node);
	/* Clears s->running once the last records are in. */
	kprof_events_quiesce(s);
	kprof.nr_running--;
	/* No event, no handler left: nothing reads them any more. */
	kprof_events_unhold(s);
}

/**
 * kprof_events_init() - register kprof's cpuhp multi-instance state
 *
 * Return: 0 or -errno.
 */
int kprof_events_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "kprof:online",
				      kprof_cpu_online, kprof_cpu_offline);
	if (ret < 0)
		return ret;
	kprof_hp_state = ret;
	return 0;
}

/**
 * kprof_events_exit() - unregister the cpuhp state; sampling is stopped
 */
void kprof_events_exit(void)
{
	cpuhp_remove_multi_state(kprof_hp_state);
}
