// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_run.c - a run of the in-guest throttle tests (throttle_run.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "kp_dev.h"
#include "kp_sys.h"
#include "kprof_throttle.h"
#include "throttle_run.h"

struct tt_cpu tt_cpus[TT_MAX_CPUS];

static int tt_keep(struct kp_cpu *c, const struct kprof_record_header *h)
{
	struct tt_cpu *t = &tt_cpus[c->cpu];
	struct tt_rec *r;

	if (h->type != KPROF_RECORD_SAMPLE &&
	    h->type != KPROF_RECORD_LOST &&
	    h->type != KPROF_RECORD_THROTTLE &&
	    h->type != KPROF_RECORD_UNTHROTTLE &&
	    h->type != KPROF_RECORD_WOULD_THROTTLE &&
	    h->type != KPROF_RECORD_RATE_LOWERED)
		return 0;
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 4096;
		struct tt_rec *p = realloc(t->r, cap * sizeof(*p));

		if (!p)
			return -1;
		t->r = p;
		t->cap = cap;
	}
	r = &t->r[t->n++];
	memset(r, 0, sizeof(*r));
	r->type = h->type;
	r->misc = h->misc;
	if (h->type == KPROF_RECORD_SAMPLE) {
		const struct kprof_sample *s = (const void *)h;

		r->time = s->time;
		r->seq = s->seq;
		r->cost = s->cost_ns;
		r->period = s->period;
		r->tick = s->tick;
	} else if (h->type == KPROF_RECORD_LOST) {
		const struct kprof_lost *l = (const void *)h;

		r->time = l->time;
		r->lost_throttle = l->throttle;
		r->lost_unthrottle = l->unthrottle;
	} else if (h->type == KPROF_RECORD_RATE_LOWERED) {
		memcpy(&r->low, h, sizeof(r->low));
		r->time = r->low.time;
	} else {
		const struct kprof_throttle_event *e = (const void *)h;

		r->time = e->time;
		r->seq = e->seq;
		r->tick = e->tick;
		r->interrupts = e->interrupts;
	}
	return 0;
}

/* kp_drain_cpu(), also keeping every record for the checks. */
static long tt_drain_cpu(struct kp_buffers *b, struct kp_cpu *c)
{
	__u64 head, tail, mask = c->data_size - 1;
	long n = 0;

	if (!c->base || c->cpu >= TT_MAX_CPUS)
		return 0;
	head = __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE);
	tail = c->pg->data_tail;
	if (head - tail > c->data_size)
		return kp_fail(b, "CPU %u: overrun", c->cpu);
	while (tail != head) {
		struct kprof_record_header h;
		__u64 off = tail & mask, left = head - tail;
		const void *rec;

		if (left < sizeof(h))
			return kp_fail(b, "CPU %u: stray bytes", c->cpu);
		memcpy(&h, c->data + off, sizeof(h));
		if (h.size < 8 || h.size % 8 || h.size > left)
			return kp_fail(b, "CPU %u: record size %u", c->cpu,
				       h.size);
		if (off + h.size <= c->data_size) {
			rec = c->data + off;
		} else {
			__u64 first = c->data_size - off;

			memcpy(b->scratch, c->data + off, first);
			memcpy(b->scratch + first, c->data, h.size - first);
			rec = b->scratch;
		}
		if (kp_account(b, c, rec))
			return -1;
		if (tt_keep(c, rec))
			return kp_fail(b, "out of memory");
		tail += h.size;
		n++;
	}
	__atomic_store_n(&c->pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

long tt_drain(struct kp_buffers *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_cpu_ids; i++)
		if (tt_drain_cpu(b, &b->cpus[i]) < 0)
			return -1;
	return 0;
}

int tt_sysctl_read(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int tt_sysctl_write(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

/*
 * kernel.perf_event_max_sample_rate := @rate.  The kernel refuses the
 * write while perf_cpu_time_max_percent is 0 or 100, so then go through
 * 25 and back to @pct.
 */
int tt_kernel_rate_write(long rate, long pct)
{
	int ret;

	if (pct != 0 && pct != 100)
		return tt_sysctl_write(TT_RATE, rate);
	if (tt_sysctl_write(TT_PCT, 25))
		return -1;
	ret = tt_sysctl_write(TT_RATE, rate);
	if (tt_sysctl_write(TT_PCT, pct))
		return -1;
	return ret;
}

int tt_set_throttle_flags(int fd, __u32 sem, __u32 rate, __u32 pct,
			  __u32 flags)
{
	struct kprof_throttle_config t = {
		.size = sizeof(t),
		.semantics = sem,
		.max_sample_rate = rate,
		.cpu_time_max_percent = pct,
		.flags = flags,
	};

	return ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
}

int tt_set_throttle_sem(int fd, __u32 sem, __u32 rate, __u32 pct)
{
	return tt_set_throttle_flags(fd, sem, rate, pct, 0);
}

int tt_set_throttle(int fd, __u32 rate, __u32 pct)
{
	return tt_set_throttle_sem(fd, KPROF_THROTTLE_GE, rate, pct);
}

/*
 * A max rate with the cost controller off.  The sysctl rule kprof follows
 * refuses a new rate while the percent is 0, so the rate goes first.
 */
int tt_set_rate_no_cost(int fd, __u32 sem, __u32 rate)
{
	return tt_set_throttle_sem(fd, sem, rate,
				   KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT) ?:
	       tt_set_throttle_sem(fd, sem, rate, 0);
}

/*
 * A run's teardown: reap the spinners, stop, restore kprof's default
 * limits (lowerings persist, as the sysctl's do), unmap, close.
 */
void tt_release(int fd, struct kp_buffers *b, const pid_t *spin,
		unsigned int nr_spin)
{
	unsigned int i;

	for (i = 0; i < nr_spin; i++) {
		kill(spin[i], SIGKILL);
		waitpid(spin[i], NULL, 0);
	}
	if (fd < 0)
		return;
	kp_stop(fd);
	tt_set_throttle(fd, KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE,
			KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT);
	kp_close(fd, b);
}

/*
 * Configure @fd for cpu-clock at a period of TT_PERIOD_NS on every CPU,
 * @pages data pages per ring, and map the rings into @b (unmapped, or
 * never mapped).
 */
int tt_config_clock(int fd, struct kp_buffers *b, __u32 pages)
{
	struct kprof_config cfg;

	kp_cfg_init(&cfg, TT_PERIOD_NS);
	cfg.flags = 0;			/* a period, in ns of cpu-clock */
	cfg.buffer_pages = pages;
	cfg.watermark = 4096;
	if (kp_set_config(fd, &cfg))
		return kp_fail(b, "SET_CONFIG: %s", strerror(errno));
	return kp_map(b, fd);
}

/* One spinner per online CPU (only on @only when it is >= 0), then start. */
static int tt_spin_and_start(int fd, struct kp_buffers *b, pid_t *spin,
			     unsigned int *nr_spin, int only)
{
	unsigned int cpu;

	for (cpu = 0; cpu < b->nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		pid_t pid;

		if (!kp_cpu_online(cpu) || (only >= 0 && cpu != (unsigned int)only))
			continue;
		pid = fork();
		if (pid < 0)
			return kp_fail(b, "fork: %s", strerror(errno));
		if (pid == 0) {
			kp_pin_self(cpu);
			for (;;)
				;
		}
		spin[(*nr_spin)++] = pid;
	}
	if (kp_start(fd))
		return kp_fail(b, "START: %s", strerror(errno));
	return 0;
}

/*
 * Drain for @ms and until @enough (KP_PROGRESS_MS later at most), stop,
 * drain; then the counters must add up.
 */
static int tt_drain_run(int fd, struct kp_buffers *b, int only, int ms,
			tt_enough_fn enough)
{
	double end = kp_now() + ms / 1000.0;
	double limit = end + KP_PROGRESS_MS / 1000.0;

	do {
		kp_sleep_ms(50);
		if (tt_drain(b))
			return -1;
	} while (kp_now() < end ||
		 (enough && !enough(b, only) && kp_now() < limit));
	if (kp_stop(fd) || tt_drain(b))
		return -1;
	if (kp_check_conserved_all(b, 1))
		return -1;
	return 0;
}

/*
 * One spinner per online CPU (only on @only when it is >= 0), start, drain
 * for @ms and until @enough, stop, drain; then the counters must add up.
 */
int tt_run_on(int fd, struct kp_buffers *b, pid_t *spin, unsigned int *nr_spin,
	      int only, int ms, tt_enough_fn enough)
{
	/*
	 * One CPU sampled: the reader runs there too, so a host that stops
	 * its vCPU stops the producer with it, and the guest's scheduler
	 * runs it at each wakeup beside the spinner: the host's load alone
	 * cannot fill the ring (tests that replay every sample need them
	 * all).  With every CPU sampled, a reader the host starves
	 * while the others run fills rings: what is lost is in-band.
	 */
	if (only >= 0 && kp_pin_self((unsigned int)only))
		return kp_fail(b, "pinning the reader to CPU %d: %s", only,
			       strerror(errno));
	if (tt_spin_and_start(fd, b, spin, nr_spin, only))
		return -1;
	return tt_drain_run(fd, b, only, ms, enough);
}

/* Has every sampled CPU lost a record other than a SAMPLE (GET_STATS)? */
static int tt_each_lost_event(struct kp_buffers *b, bool *all)
{
	unsigned int cpu;

	*all = true;
	for (cpu = 0; cpu < b->nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kprof_cpu_stats st;

		if (!b->cpus[cpu].base || !kp_cpu_online(cpu))
			continue;
		if (kp_get_stats(b->fd, cpu, &st))
			return kp_fail(b, "CPU %u: GET_STATS: %s", cpu,
				       strerror(errno));
		if (!st.counters.lost_events)
			*all = false;
	}
	return 0;
}

/*
 * tt_run_on() with a reader that first reads nothing: every sampled
 * CPU's ring fills until one of its throttle records did not fit (its
 * lost_events counter), however fast the CPUs run, KP_PROGRESS_MS at
 * most; then as tt_run_on() from there.
 */
int tt_run_filled(int fd, struct kp_buffers *b, pid_t *spin,
		  unsigned int *nr_spin, int ms, tt_enough_fn enough)
{
	double limit;
	bool all;

	if (tt_spin_and_start(fd, b, spin, nr_spin, -1))
		return -1;
	limit = kp_now() + KP_PROGRESS_MS / 1000.0;
	do {
		kp_sleep_ms(50);
		if (tt_each_lost_event(b, &all))
			return -1;
	} while (!all && kp_now() < limit);
	if (!all)
		return kp_fail(b, "a CPU lost no throttle record in %d ms without a reader",
			       KP_PROGRESS_MS);
	return tt_drain_run(fd, b, -1, ms, enough);
}

/* Does every CPU the run samples have at least one record of @type? */
bool tt_each_cpu_has(const struct kp_buffers *b, int only, __u32 type)
{
	unsigned int cpu;
	size_t i;

	for (cpu = 0; cpu < b->nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		const struct tt_cpu *t = &tt_cpus[cpu];

		if (!b->cpus[cpu].base || !kp_cpu_online(cpu) ||
		    (only >= 0 && cpu != (unsigned int)only))
			continue;
		for (i = 0; i < t->n && t->r[i].type != type; i++)
			;
		if (i == t->n)
			return false;
	}
	return true;
}

/* Each sampled CPU was throttled and restarted at least once. */
bool tt_each_unthrottled(const struct kp_buffers *b, int only)
{
	return tt_each_cpu_has(b, only, KPROF_RECORD_UNTHROTTLE);
}

/*
 * The tick of SAMPLE @r: of local_clock(), time / @tick_nsec, for clock
 * events; with @tick_nsec 0 the one the module recorded, the kernel's tick
 * count (hw.interrupts_seq, not visible from here) for PMU events.
 */
__u64 tt_tick_of(const struct tt_rec *r, __u64 tick_nsec)
{
	return tick_nsec ? r->time / tick_nsec : r->tick;
}

/* Most samples of a CPU in one tick (see tt_tick_of()), from @from on. */
__u64 tt_max_per_tick(const struct tt_cpu *t, __u64 tick_nsec, __u64 from,
		      __u64 *nr)
{
	__u64 cur = ~0ULL, in = 0, most = 0;
	size_t i;

	*nr = 0;
	for (i = 0; i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];

		if (r->type != KPROF_RECORD_SAMPLE ||
		    tt_tick_of(r, tick_nsec) < from)
			continue;
		(*nr)++;
		if (tt_tick_of(r, tick_nsec) != cur) {
			cur = tt_tick_of(r, tick_nsec);
			in = 0;
		}
		if (++in > most)
			most = in;
	}
	return most;
}

/* The highest online CPU: sampled alone where one CPU is wanted. */
unsigned int tt_one_cpu(const struct kp_buffers *b)
{
	unsigned int cpu, one = 0;

	for (cpu = 0; cpu < b->nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++)
		if (kp_cpu_online(cpu))
			one = cpu;
	return one;
}

static const char *tt_type_name(__u32 type)
{
	switch (type) {
	case KPROF_RECORD_SAMPLE:
		return "SAMPLE";
	case KPROF_RECORD_LOST:
		return "LOST";
	case KPROF_RECORD_THROTTLE:
		return "THROTTLE";
	case KPROF_RECORD_UNTHROTTLE:
		return "UNTHROTTLE";
	case KPROF_RECORD_WOULD_THROTTLE:
		return "WOULD_THROTTLE";
	case KPROF_RECORD_RATE_LOWERED:
		return "RATE_LOWERED";
	}
	return "?";
}

/*
 * For a failed check on CPU @cpu's record @at: it and the @before records
 * ahead of it, as kept, on stderr in the harness's "# " lines.
 */
void tt_log_records(unsigned int cpu, size_t at, size_t before)
{
	const struct tt_cpu *t = &tt_cpus[cpu];
	size_t i = at > before ? at - before : 0;

	for (; i <= at && i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];

		fprintf(stderr, "#   CPU %u record %zu: %s misc %#x time %llu seq %llu",
			cpu, i, tt_type_name(r->type), r->misc,
			(unsigned long long)r->time, (unsigned long long)r->seq);
		fprintf(stderr, " tick %llu interrupts %llu lost throttle %u unthrottle %u\n",
			(unsigned long long)r->tick,
			(unsigned long long)r->interrupts, r->lost_throttle,
			r->lost_unthrottle);
	}
}

/*
 * THROTTLE and UNTHROTTLE records that did not fit, told by LOST record
 * @i of CPU @cpu, @r, before the next record that did: they alternated,
 * in an order not told.  Updates @open, the THROTTLEs not ended (0 or 1),
 * and says whether they could have alternated from there; if not, logs
 * the records up to @r.
 */
bool tt_pair_lost(unsigned int cpu, size_t i, const struct tt_rec *r,
		  unsigned int *open)
{
	*open += r->lost_throttle;
	if (r->lost_unthrottle > *open || *open - r->lost_unthrottle > 1) {
		tt_log_records(cpu, i, 12);
		return false;
	}
	*open -= r->lost_unthrottle;
	return true;
}
