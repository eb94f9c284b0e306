// SPDX-License-Identifier: GPL-2.0
/*
 * counters_test - the control page's counters are read as one snapshot
 * while sampling runs (the 'lock' sequence count of
 * include/uapi/linux/kprof.h, read with libkprof's ring__page_counters()).
 *
 * Each CPU's page is read in a tight loop by a thread pinned to that CPU,
 * while the session publishes at every record: with watermark 1 every
 * record crosses the watermark, and the wakeup irq_work that follows
 * publishes the counters.  That irq_work is an interrupt on the reader's
 * own CPU, so it lands at any point of the reader's loop, between its
 * loads of overflows and of samples and lost_* among them; without the
 * sequence count such a copy mixes two publications and breaks
 * overflows == samples + lost_full + lost_nested + lost_stopped +
 * lost_throttled.  Every snapshot the loop accepts must keep it, and no
 * counter may go back from one snapshot to the next (they only grow while
 * a session runs).  GET_STATS, asked for every CPU from another thread at
 * the same time, must give consistent snapshots too.
 */
#include "kprof_test.h"
#include "testpmu.h"
#include <poll.h>
#include <pthread.h>
#include "kselftest_harness.h"
#include "lib/dev/ring.h"

/*
 * Publications each CPU's reader must see change the counters: each is
 * one chance for a torn copy, and most of a reader's loop lies between
 * its first and last counter load.
 */
#define CT_PUBLICATIONS	1000

#define CT_NR_U64 (sizeof(struct kprof_counters) / sizeof(__u64))

struct ct_reader {
	pthread_t thread;
	const struct kprof_mmap_page *pg;
	unsigned int cpu;
	const int *stop;
	int pin_errno;
	unsigned long long snapshots, publications, retries;
	unsigned long long broken, regressed;
	struct kprof_counters last, first_broken, regress_from, regress_to;
};

struct ct_stats {
	pthread_t thread;
	int fd;
	unsigned int nr_cpu_ids;
	const int *stop;
	int err;
	unsigned long long snapshots, broken;
	unsigned int broken_cpu;
	struct kprof_counters first_broken;
};

static int ct_conserved(const struct kprof_counters *k)
{
	return k->overflows == k->samples + kp_lost_total(k);
}

/* Some counter of @now is below its value in @then. */
static int ct_regressed(const struct kprof_counters *then,
			const struct kprof_counters *now)
{
	const __u64 *a = (const __u64 *)then, *b = (const __u64 *)now;
	size_t i;

	for (i = 0; i < CT_NR_U64; i++)
		if (b[i] < a[i])
			return 1;
	return 0;
}

static void *ct_read_page(void *arg)
{
	struct ct_reader *r = arg;
	struct kprof_counters k;
	__u64 avg_ns;

	if (kp_pin_self(r->cpu)) {
		r->pin_errno = errno;
		return NULL;
	}
	while (!__atomic_load_n(r->stop, __ATOMIC_RELAXED)) {
		r->retries += ring__page_counters(r->pg, &k, &avg_ns);
		r->snapshots++;
		if (!ct_conserved(&k) && !r->broken++)
			r->first_broken = k;
		if (ct_regressed(&r->last, &k) && !r->regressed++) {
			r->regress_from = r->last;
			r->regress_to = k;
		}
		if (k.overflows != r->last.overflows)
			__atomic_store_n(&r->publications, r->publications + 1,
					 __ATOMIC_RELAXED);
		r->last = k;
	}
	return NULL;
}

static void *ct_read_stats(void *arg)
{
	struct ct_stats *s = arg;
	struct kprof_cpu_stats st;
	unsigned int cpu;

	while (!__atomic_load_n(s->stop, __ATOMIC_RELAXED)) {
		for (cpu = 0; cpu < s->nr_cpu_ids; cpu++) {
			if (!kp_cpu_online(cpu))
				continue;
			if (kp_get_stats(s->fd, cpu, &st)) {
				s->err = errno;
				return NULL;
			}
			s->snapshots++;
			if (!ct_conserved(&st.counters) && !s->broken++) {
				s->first_broken = st.counters;
				s->broken_cpu = cpu;
			}
		}
	}
	return NULL;
}

FIXTURE(counters) {
	int fd;
	struct kp_buffers b;
};

FIXTURE_VARIANT(counters) {
	int testpmu;		/* NMI overflows of the PMU stand-in */
	__u64 freq;		/* per CPU */
};

FIXTURE_VARIANT_ADD(counters, testpmu) {
	.testpmu = 1,
	.freq = 2000,
};

FIXTURE_VARIANT_ADD(counters, cpu_clock) {
	.testpmu = 0,
	.freq = 2000,
};

FIXTURE_SETUP(counters)
{
	struct kprof_throttle_config t = {
		.size = sizeof(t),
		.semantics = KPROF_THROTTLE_GE,
		.max_sample_rate = 100000,
		.cpu_time_max_percent = 0,
	};
	struct kprof_config cfg;

	KP_OPEN_OR_SKIP(self->fd);
	if (!variant->testpmu)
		kp_cfg_init(&cfg, variant->freq);
	else if (tp_cfg_init(&cfg, variant->freq))
		SKIP(return, "no %s (load it: tests/vm/run --testpmu)", TP_SYSFS);
	else
		ASSERT_EQ(0, tp_controller_off());
	/*
	 * No cost controller, kprof's or the kernel's: its lowerings would
	 * throttle the CPUs into silence under TCG, and this test needs
	 * records, whatever their fate.  Every lost cause counts in the
	 * invariant all the same.
	 */
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &t))
		TH_LOG("SET_THROTTLE percent 0: %s", strerror(errno));
	cfg.watermark = 1;	/* a wakeup, hence a publication, per record */
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
}

FIXTURE_TEARDOWN(counters)
{
	if (variant->testpmu)
		tp_reset_sysctls();
	kp_close(self->fd, &self->b);
}

/* The fewest publications any reader has seen. */
static unsigned long long ct_min_publications(const struct ct_reader *r,
					      unsigned int n)
{
	unsigned long long min = ~0ULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (__atomic_load_n(&r[i].publications, __ATOMIC_RELAXED) < min)
			min = __atomic_load_n(&r[i].publications,
					      __ATOMIC_RELAXED);
	return min;
}

static void ct_log(struct __test_metadata *_metadata, const char *what,
		   unsigned int cpu, const struct kprof_counters *k)
{
	TH_LOG("%s CPU %u: overflows %llu samples %llu lost full %llu nested %llu stopped %llu throttled %llu",
	       what, cpu, k->overflows, k->samples, k->lost_full,
	       k->lost_nested, k->lost_stopped, k->lost_throttled);
}

TEST_F_TIMEOUT(counters, snapshot_while_running, 300)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	unsigned long long seen = 0, last_seen = 0;
	struct ct_stats st = {};
	struct ct_reader *r;
	unsigned int cpu, n = 0, i;
	double progress;
	struct kp_cpu *c;
	int stop = 0;

	KP_RETURN_IF_SKIPPED();
	r = calloc(self->b.nr_cpu_ids, sizeof(*r));
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	kp_for_each_online(&self->b, cpu, c) {
		r[n].pg = c->pg;
		r[n].cpu = cpu;
		r[n].stop = &stop;
		ASSERT_EQ(0, pthread_create(&r[n].thread, NULL, ct_read_page,
					    &r[n]));
		n++;
	}
	ASSERT_LT(0U, n);
	st.fd = self->fd;
	st.nr_cpu_ids = self->b.nr_cpu_ids;
	st.stop = &stop;
	ASSERT_EQ(0, pthread_create(&st.thread, NULL, ct_read_stats, &st));

	/* Drain, so that records keep fitting and publications keep coming. */
	progress = kp_now();
	while ((seen = ct_min_publications(r, n)) < CT_PUBLICATIONS) {
		if (seen != last_seen) {
			last_seen = seen;
			progress = kp_now();
		}
		if (kp_now() - progress > KP_PROGRESS_MS / 1000.0)
			break;
		ASSERT_LE(0, poll(&pfd, 1, 100)) TH_LOG("poll: %s", strerror(errno));
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		pthread_join(r[i].thread, NULL);
	pthread_join(st.thread, NULL);
	ASSERT_EQ(0, kp_stop(self->fd)) TH_LOG("STOP: %s", strerror(errno));

	for (i = 0; i < n; i++) {
		TH_LOG("CPU %u: %llu snapshots, %llu publications seen, %llu retries, %llu broken, %llu regressed",
		       r[i].cpu, r[i].snapshots, r[i].publications,
		       r[i].retries, r[i].broken, r[i].regressed);
		ASSERT_EQ(0, r[i].pin_errno) TH_LOG("pin to CPU %u", r[i].cpu);
		if (r[i].broken)
			ct_log(_metadata, "first broken snapshot,", r[i].cpu,
			       &r[i].first_broken);
		if (r[i].regressed) {
			ct_log(_metadata, "went back from", r[i].cpu,
			       &r[i].regress_from);
			ct_log(_metadata, "to", r[i].cpu, &r[i].regress_to);
		}
		EXPECT_EQ(0ULL, r[i].broken);
		EXPECT_EQ(0ULL, r[i].regressed);
	}
	TH_LOG("GET_STATS: %llu snapshots, %llu broken", st.snapshots,
	       st.broken);
	ASSERT_EQ(0, st.err) TH_LOG("GET_STATS: %s", strerror(st.err));
	if (st.broken)
		ct_log(_metadata, "first broken GET_STATS,", st.broken_cpu,
		       &st.first_broken);
	EXPECT_EQ(0ULL, st.broken);
	EXPECT_LT(0ULL, st.snapshots);
	EXPECT_LE(CT_PUBLICATIONS, seen)
		TH_LOG("no new publication for %d ms", KP_PROGRESS_MS);
	free(r);
}

TEST_HARNESS_MAIN
