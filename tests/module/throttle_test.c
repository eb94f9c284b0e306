// SPDX-License-Identifier: GPL-2.0
/*
 * kprof's own throttle in the module (issue 4), with cpu-clock at 10 kHz
 * (period 100000 ns) on every CPU while one spinner per CPU burns it.
 *
 * per_tick_limit: max_sample_rate 1000 (4 per tick at HZ 250).  THROTTLE
 *	and UNTHROTTLE alternate, no sample between them, the UNTHROTTLE is
 *	in a later tick than its THROTTLE, no tick has more than 4 samples,
 *	and the delivered rate stays near 1000/s per CPU.
 * cost_lowering: a 20 us busy-wait in the handler.  RATE_LOWERED records
 *	appear and agree with common/kprof_throttle.h replayed on the
 *	recorded per-sample costs; after the last lowering no tick has more
 *	samples than it announces.
 * Both: overflows are conserved and the throttle counters match the
 *	records.
 *
 * The kernel's own cost controller is switched off for the run
 * (kernel.perf_cpu_time_max_percent = 0), so it does not throttle kprof's
 * event as well; the setting is restored afterwards.
 */
#include "kprof_test.h"

#include <signal.h>
#include <sys/wait.h>

#include "kprof_throttle.h"
#include "kselftest_harness.h"

#define TT_HZ		250	/* both test kernels */
#define TT_PERIOD_NS	100000
#define TT_MAX_CPUS	64

/* One record as read, in stream order. */
struct tt_rec {
	__u32 type;
	__u64 time, seq, tick, interrupts;
	__u64 cost;				/* SAMPLE */
	__u16 misc;
	struct kprof_rate_lowered low;		/* RATE_LOWERED */
};

struct tt_cpu {
	struct tt_rec *r;
	size_t n, cap;
};

static struct tt_cpu tt_cpus[TT_MAX_CPUS];

static int tt_keep(struct kp_cpu *c, const struct kprof_record_header *h)
{
	struct tt_cpu *t = &tt_cpus[c->cpu];
	struct tt_rec *r;

	if (h->type != KPROF_RECORD_SAMPLE &&
	    h->type != KPROF_RECORD_THROTTLE &&
	    h->type != KPROF_RECORD_UNTHROTTLE &&
	    h->type != KPROF_RECORD_KERNEL_THROTTLED &&
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

static long tt_drain(struct kp_buffers *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_cpu_ids; i++)
		if (tt_drain_cpu(b, &b->cpus[i]) < 0)
			return -1;
	return 0;
}

static int tt_sysctl_read(const char *path, long *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%ld", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int tt_sysctl_write(const char *path, long v)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fprintf(f, "%ld\n", v) > 0;
	return (fclose(f) == 0 && ok) ? 0 : -1;
}

#define TT_PCT	"/proc/sys/kernel/perf_cpu_time_max_percent"

FIXTURE(throttle) {
	int fd;
	struct kp_buffers b;
	long kernel_pct;
	pid_t spin[TT_MAX_CPUS];
	unsigned int nr_spin;
};

FIXTURE_SETUP(throttle)
{
	struct kprof_config cfg;

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
	kp_cfg_init(&cfg, TT_PERIOD_NS);
	cfg.flags = 0;			/* a period, in ns of cpu-clock */
	cfg.buffer_pages = 256;
	cfg.watermark = 4096;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
}

static int tt_set_throttle_sem(int fd, __u32 sem, __u32 rate, __u32 pct,
			      __u32 delay)
{
	struct kprof_throttle_config t = {
		.size = sizeof(t),
		.semantics = sem,
		.max_sample_rate = rate,
		.cpu_time_max_percent = pct,
		.handler_delay_ns = delay,
	};

	return ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
}

static int tt_set_throttle(int fd, __u32 rate, __u32 pct, __u32 delay)
{
	return tt_set_throttle_sem(fd, KPROF_THROTTLE_GE, rate, pct, delay);
}

FIXTURE_TEARDOWN(throttle)
{
	unsigned int i;

	for (i = 0; i < self->nr_spin; i++) {
		kill(self->spin[i], SIGKILL);
		waitpid(self->spin[i], NULL, 0);
	}
	if (self->fd >= 0) {
		kp_stop(self->fd);
		/* The lowerings persist, as the sysctl's do: restore. */
		tt_set_throttle(self->fd, KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE,
				KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT, 0);
		kp_unmap(&self->b);
		close(self->fd);
	}
	if (self->kernel_pct >= 0)
		tt_sysctl_write(TT_PCT, self->kernel_pct);
	for (i = 0; i < TT_MAX_CPUS; i++)
		free(tt_cpus[i].r);
}

/* One spinner per online CPU, start, drain for @ms, stop, drain. */
static int tt_run(struct __test_metadata *_metadata, FIXTURE_DATA(throttle) *self,
		  int ms)
{
	unsigned int cpu;
	double end;

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		pid_t pid;

		if (!kp_cpu_online(cpu))
			continue;
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			kp_pin_self(cpu);
			for (;;)
				;
		}
		self->spin[self->nr_spin++] = pid;
	}
	if (kp_start(self->fd)) {
		TH_LOG("START: %s", strerror(errno));
		return -1;
	}
	end = kp_now() + ms / 1000.0;
	while (kp_now() < end) {
		kp_sleep_ms(50);
		if (tt_drain(&self->b))
			return -1;
	}
	if (kp_stop(self->fd) || tt_drain(&self->b))
		return -1;
	if (kp_check_conserved_all(&self->b, 1))
		return -1;
	return 0;
}

/* The throttle counters agree with the records read. */
static void tt_check_counters(struct __test_metadata *_metadata,
			      struct kp_cpu *c)
{
	struct kprof_counters k;

	kp_page_counters(c, &k);
	EXPECT_EQ(k.throttles, c->throttle_recs) TH_LOG("CPU %u", c->cpu);
	EXPECT_EQ(k.unthrottles, c->unthrottle_recs) TH_LOG("CPU %u", c->cpu);
	EXPECT_EQ(k.kernel_throttles, c->kthrottle_recs)
		TH_LOG("CPU %u", c->cpu);
	EXPECT_EQ(k.lowerings, c->lowered_recs) TH_LOG("CPU %u", c->cpu);
	EXPECT_EQ(k.would_throttles, c->would_recs) TH_LOG("CPU %u", c->cpu);
	TH_LOG("CPU %u: overflows %llu samples %llu lost_throttled %llu throttles %llu unthrottles %llu kernel_throttles %llu lowerings %llu",
	       c->cpu, k.overflows, k.samples, k.lost_throttled, k.throttles,
	       k.unthrottles, k.kernel_throttles, k.lowerings);
}

/* Most samples of a CPU in one tick, from @from_ns on. */
static __u64 tt_max_per_tick(const struct tt_cpu *t, __u64 tick_nsec,
			     __u64 from_ns, __u64 *nr)
{
	__u64 cur = ~0ULL, in = 0, most = 0;
	size_t i;

	*nr = 0;
	for (i = 0; i < t->n; i++) {
		const struct tt_rec *r = &t->r[i];

		if (r->type != KPROF_RECORD_SAMPLE || r->time < from_ns)
			continue;
		(*nr)++;
		if (r->time / tick_nsec != cur) {
			cur = r->time / tick_nsec;
			in = 0;
		}
		if (++in > most)
			most = in;
	}
	return most;
}

TEST_F_TIMEOUT(throttle, per_tick_limit, 60)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ);
	unsigned int cpu, checked = 0;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, tt_set_throttle(self->fd, 1000, 25, 0))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run(_metadata, self, 2000)) TH_LOG("%s", self->b.err);

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];
		const struct tt_cpu *t = &tt_cpus[cpu];
		const struct tt_rec *thr = NULL;
		__u64 pairs = 0, most, nr, first = 0, last = 0;
		double secs;
		size_t i;

		if (!c->base || !kp_cpu_online(cpu))
			continue;
		checked++;
		tt_check_counters(_metadata, c);
		for (i = 0; i < t->n; i++) {
			const struct tt_rec *r = &t->r[i];

			switch (r->type) {
			case KPROF_RECORD_SAMPLE:
				if (!first)
					first = r->time;
				last = r->time;
				if (r->misc & KPROF_MISC_NMI)
					break;
				/* Stopped: nothing between the pair. */
				EXPECT_EQ(NULL, thr)
					TH_LOG("CPU %u: sample seq %llu at %llu inside the throttle at %llu",
					       cpu, r->seq, r->time, thr->time);
				break;
			case KPROF_RECORD_THROTTLE:
				ASSERT_EQ(NULL, thr)
					TH_LOG("CPU %u: two THROTTLEs", cpu);
				EXPECT_EQ(4ULL, r->interrupts)
					TH_LOG("CPU %u", cpu);
				EXPECT_EQ(r->time / tick_nsec, r->tick);
				thr = r;
				break;
			case KPROF_RECORD_UNTHROTTLE:
				ASSERT_NE(NULL, thr)
					TH_LOG("CPU %u: UNTHROTTLE without THROTTLE", cpu);
				/* Restarted in a later tick: a real gap. */
				EXPECT_LT(thr->tick, r->tick)
					TH_LOG("CPU %u", cpu);
				EXPECT_LE((thr->tick + 1) * tick_nsec, r->time)
					TH_LOG("CPU %u", cpu);
				EXPECT_LE(thr->seq, r->seq);
				pairs++;
				thr = NULL;
				break;
			}
		}
		EXPECT_LT(0ULL, pairs) TH_LOG("CPU %u never throttled", cpu);
		most = tt_max_per_tick(t, tick_nsec, 0, &nr);
		EXPECT_GE(4ULL, most) TH_LOG("CPU %u: %llu samples in a tick",
					     cpu, most);
		secs = last > first ? (last - first) / 1e9 : 0;
		TH_LOG("CPU %u: %llu pairs, %llu samples in %.2f s: %.0f/s, at most %llu per tick",
		       cpu, pairs, nr, secs, secs ? nr / secs : 0.0, most);
		if (secs > 0.5)
			EXPECT_GE(1000 * 1.05 + 2 * TT_HZ, nr / secs);
	}
	ASSERT_LT(0U, checked);
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
	ASSERT_EQ(0, tt_set_throttle_sem(self->fd, KPROF_THROTTLE_SHADOW,
					 1000, 25, 0))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run(_metadata, self, 1000)) TH_LOG("%s", self->b.err);

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];
		const struct tt_cpu *t = &tt_cpus[cpu];
		__u64 would = 0, last_tick = ~0ULL, most, nr;
		size_t i;

		if (!c->base || !kp_cpu_online(cpu))
			continue;
		checked++;
		tt_check_counters(_metadata, c);
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

/* Some RATE_LOWERED record announced this pair. */
static int tt_announced(__u64 max, __u64 rate)
{
	unsigned int cpu;
	size_t i;

	for (cpu = 0; cpu < TT_MAX_CPUS; cpu++)
		for (i = 0; i < tt_cpus[cpu].n; i++) {
			const struct tt_rec *r = &tt_cpus[cpu].r[i];

			if (r->type == KPROF_RECORD_RATE_LOWERED &&
			    r->low.max_samples_per_tick == max &&
			    r->low.max_sample_rate == rate)
				return 1;
		}
	return 0;
}

TEST_F_TIMEOUT(throttle, cost_lowering, 60)
{
	__u64 tick_nsec = kprof_throttle_tick_nsec(TT_HZ);
	__u64 last_low_time = 0, final_max = 0, final_rate = 0, total_low = 0;
	struct kprof_cpu_stats st;
	unsigned int cpu;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, tt_set_throttle(self->fd, 100000, 25, 20000))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, tt_run(_metadata, self, 3000)) TH_LOG("%s", self->b.err);

	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];
		const struct tt_cpu *t = &tt_cpus[cpu];
		struct kprof_throttle_cpu rc, before;
		__u64 last_cost = 0;
		int have_sample = 0;
		size_t i;

		if (!c->base)
			continue;
		tt_check_counters(_metadata, c);
		/* Replay this CPU's costs through the shared code. */
		kprof_throttle_cpu_init(&rc);
		before = rc;
		for (i = 0; i < t->n; i++) {
			const struct tt_rec *r = &t->r[i];
			struct kprof_throttle_limits l;
			struct kprof_throttle_lowering low;
			struct kprof_throttle_cpu x;

			if (r->type == KPROF_RECORD_SAMPLE) {
				before = rc;
				/* Only the overall limit matters for the sum. */
				kprof_throttle_limits_init(&l, TT_HZ, 0);
				kprof_throttle_sample_took(&l, &rc, r->cost,
							   &low);
				last_cost = r->cost;
				have_sample = 1;
				continue;
			}
			if (r->type != KPROF_RECORD_RATE_LOWERED)
				continue;
			total_low++;
			ASSERT_TRUE(have_sample)
				TH_LOG("CPU %u: RATE_LOWERED before a sample", cpu);
			/*
			 * The sample just before it, with the allowed value
			 * the record reports, must lower to the same values.
			 */
			kprof_throttle_limits_init(&l, TT_HZ, 0);
			l.allowed_ns = r->low.old_allowed_ns;
			x = before;
			ASSERT_TRUE(kprof_throttle_sample_took(&l, &x, last_cost,
							       &low))
				TH_LOG("CPU %u: replay does not lower at %llu (avg %llu allowed %llu)",
				       cpu, r->time, r->low.avg_ns,
				       r->low.old_allowed_ns);
			EXPECT_EQ(low.avg_ns, r->low.avg_ns) TH_LOG("CPU %u", cpu);
			EXPECT_EQ(low.max_samples_per_tick,
				  r->low.max_samples_per_tick) TH_LOG("CPU %u", cpu);
			EXPECT_EQ(low.max_sample_rate, r->low.max_sample_rate)
				TH_LOG("CPU %u", cpu);
			EXPECT_EQ(r->low.max_samples_per_tick * TT_HZ,
				  r->low.max_sample_rate);
			if (r->time > last_low_time) {
				last_low_time = r->time;
				final_max = r->low.max_samples_per_tick;
				final_rate = r->low.max_sample_rate;
			}
		}
	}
	ASSERT_LT(0ULL, total_low) TH_LOG("no RATE_LOWERED record");
	/*
	 * The limits are global and, as in the kernel, written without a
	 * lock: two CPUs lowering at once may leave the older value.  The
	 * one in effect is what GET_STATS reports; it was announced.
	 */
	ASSERT_EQ(0, kp_get_stats(self->fd, 0, &st));
	TH_LOG("%llu lowerings, last at %llu: %llu per tick, %llu/s; in effect %llu per tick, %llu/s",
	       total_low, last_low_time, final_max, final_rate,
	       st.max_samples_per_tick, st.max_sample_rate);
	EXPECT_TRUE(tt_announced(st.max_samples_per_tick,
				 st.max_sample_rate));
	final_max = st.max_samples_per_tick;
	/* 20 us per sample at 25%: at most 1e6 / 25e3 = 40 per tick. */
	EXPECT_GE(40ULL, final_max);

	/* From the tick after the last lowering on, no CPU exceeds it. */
	for (cpu = 0; cpu < self->b.nr_cpu_ids && cpu < TT_MAX_CPUS; cpu++) {
		__u64 most, nr;

		if (!self->b.cpus[cpu].base)
			continue;
		most = tt_max_per_tick(&tt_cpus[cpu], tick_nsec,
				       (last_low_time / tick_nsec + 1) * tick_nsec,
				       &nr);
		TH_LOG("CPU %u: %llu samples after the last lowering, at most %llu per tick",
		       cpu, nr, most);
		EXPECT_GE(final_max, most) {
			const struct tt_cpu *t = &tt_cpus[cpu];
			__u64 cur = ~0ULL, in = 0;
			size_t i, j, start = 0;

			for (i = 0; i < t->n; i++) {
				if (t->r[i].type != KPROF_RECORD_SAMPLE)
					continue;
				if (t->r[i].time / tick_nsec != cur) {
					cur = t->r[i].time / tick_nsec;
					in = 0;
					start = i;
				}
				if (++in == most && t->r[i].time >= last_low_time)
					break;
			}
			for (j = start; j < t->n && j < start + most + 8; j++)
				TH_LOG("  type %u time %llu seq %llu tick %llu intr %llu cost %llu",
				       t->r[j].type, t->r[j].time, t->r[j].seq,
				       t->r[j].time / tick_nsec, t->r[j].interrupts,
				       t->r[j].cost);
		}
	}
}

TEST_HARNESS_MAIN
