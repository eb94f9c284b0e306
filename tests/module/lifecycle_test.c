// SPDX-License-Identifier: GPL-2.0
/*
 * Life cycle under stress, inside the test-bed VM only (KPROF_VM=1):
 *
 * load_cycles:  LOAD_CYCLES x (rmmod, insmod, open, configure, map, start,
 *               wait for a sample, stop, unmap, close), then no vmalloc
 *               area or module reference is left behind.
 * start_stop_storm: two threads START and STOP as fast as they can while
 *               a third reads every buffer, until STORM_STARTS STARTs and
 *               STOPs have succeeded and a record was read; only
 *               documented errors, the counters add up after the final
 *               STOP, and a session after the storm is exactly conserved.
 */
#include "kprof_test.h"

#include <limits.h>
#include <pthread.h>

#include "kselftest_harness.h"

#define LOAD_CYCLES	200
/*
 * The storm is bounded by work, not time: it ends once STORM_STARTS
 * STARTs and as many STOPs have succeeded (each START/STOP pair creates
 * and releases every CPU's event, ~10x slower on PREEMPT_RT than on the
 * stock kernels, so no rate is assumed).  A storm that stops making
 * progress is a hang, which the test's timeout reports.
 */
#define STORM_STARTS	20

static long vmalloc_areas(void)
{
	FILE *f = fopen("/proc/vmallocinfo", "r");
	char line[512];
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n++;
	fclose(f);
	return n;
}

/* One short session on a freshly loaded module: a sample must arrive. */
static int one_session(char *err, size_t len)
{
	struct kprof_config cfg;
	struct kp_buffers b;
	int fd, i, ret = -1;

	memset(&b, 0, sizeof(b));
	fd = kp_open();
	if (fd < 0) {
		snprintf(err, len, "open: %s", strerror(errno));
		return -1;
	}
	kp_cfg_init(&cfg, 1000);
	cfg.buffer_pages = 1;
	cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL;
	cfg.kernel_stack = 8;
	if (kp_set_config(fd, &cfg) || kp_map(&b, fd) || kp_start(fd)) {
		snprintf(err, len, "configure/map/start: %s %s", strerror(errno),
			 b.err);
		goto out;
	}
	for (i = 0; i < KP_PROGRESS_MS; i++) {
		if (kp_drain(&b) < 0) {
			snprintf(err, len, "%s", b.err);
			goto out;
		}
		if (b.cpus[0].samples || (b.nr_cpu_ids > 1 && b.cpus[1].samples))
			break;
		kp_sleep_ms(1);
	}
	if (kp_stop(fd)) {
		snprintf(err, len, "STOP: %s", strerror(errno));
		goto out;
	}
	if (kp_drain(&b) < 0 || kp_check_conserved_all(&b, 1)) {
		snprintf(err, len, "%s", b.err);
		goto out;
	}
	if (i == 200) {
		snprintf(err, len, "no sample within 200 ms");
		goto out;
	}
	ret = 0;
out:
	kp_unmap(&b);
	close(fd);
	return ret;
}

FIXTURE(load) {
	const char *ko;
};

FIXTURE_SETUP(load)
{
	if (!getenv("KPROF_VM"))
		SKIP(return, "loads and unloads kprof.ko: only in the test-bed VM (KPROF_VM=1)");
	if (geteuid())
		SKIP(return, "needs root to load and unload kprof.ko");
	self->ko = kp_ko_path();
	if (!self->ko)
		SKIP(return, "no kmod/kprof.ko next to tests/module");
	if (access(self->ko, R_OK))
		SKIP(return, "%s: %s", self->ko, strerror(errno));
	if (!kp_module_loaded())
		ASSERT_EQ(0, kp_insmod()) TH_LOG("insmod: %s", strerror(errno));
}

FIXTURE_TEARDOWN(load)
{
	/* Leave it loaded (and stopped: a fresh load is) for the next test. */
	if (!_metadata->skip && !kp_module_loaded())
		kp_insmod();
}

TEST_F_TIMEOUT(load, cycles, 280)
{
	char err[600];
	long before, after;
	double t0;
	int i;

	KP_RETURN_IF_SKIPPED();
	/* Settle the lazily freed vmalloc areas of earlier tests first. */
	ASSERT_EQ(0, kp_rmmod()) TH_LOG("rmmod: %s", strerror(errno));
	ASSERT_EQ(0, kp_insmod()) TH_LOG("insmod: %s", strerror(errno));
	ASSERT_EQ(0, one_session(err, sizeof(err))) TH_LOG("%s", err);
	before = vmalloc_areas();

	t0 = kp_now();
	for (i = 0; i < LOAD_CYCLES; i++) {
		ASSERT_EQ(0, kp_rmmod()) TH_LOG("rmmod #%d: %s", i, strerror(errno));
		ASSERT_FALSE(kp_module_loaded());
		ASSERT_EQ(0, kp_insmod())
			TH_LOG("insmod #%d: %s", i, strerror(errno));
		ASSERT_EQ(0, one_session(err, sizeof(err)))
			TH_LOG("session #%d: %s", i, err);
	}
	after = vmalloc_areas();
	TH_LOG("%d load/sample/unload cycles in %.1f s; vmalloc areas %ld -> %ld",
	       LOAD_CYCLES, kp_now() - t0, before, after);
	/* A leak of one buffer (or module image) per cycle shows as +200. */
	ASSERT_GT(before + LOAD_CYCLES / 4, after);
}

/* ------------------------------------------------------------------ */

struct storm {
	int fd;
	volatile int stop;
	struct kp_buffers *b;
	/* per toggler: operations done, and unexpected errors */
	unsigned long starts[2], stops[2], busy[2];
	int bad_errno[2];
	const char *bad_op[2];
	/* reader */
	long records;
	int reader_failed;
};

/* The counters are written by the togglers while the main thread polls. */
#define READ_ONCE_UL(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)

struct toggler {
	struct storm *s;
	int id;
};

static void *toggle(void *arg)
{
	struct toggler *t = arg;
	struct storm *s = t->s;
	unsigned int seed = t->id + 1;

	while (!s->stop && !s->bad_errno[t->id]) {
		if (rand_r(&seed) & 1) {
			if (!kp_start(s->fd))
				__atomic_fetch_add(&s->starts[t->id], 1,
						   __ATOMIC_RELAXED);
			else if (errno == EBUSY)	/* already running */
				s->busy[t->id]++;
			else
				s->bad_op[t->id] = "START",
				s->bad_errno[t->id] = errno;
		} else {
			if (!kp_stop(s->fd))
				__atomic_fetch_add(&s->stops[t->id], 1,
						   __ATOMIC_RELAXED);
			else
				s->bad_op[t->id] = "STOP",
				s->bad_errno[t->id] = errno;
		}
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct storm *s = arg;
	long n;

	while (!s->stop) {
		n = kp_drain(s->b);
		if (n < 0) {
			s->reader_failed = 1;
			break;
		}
		__atomic_fetch_add(&s->records, n, __ATOMIC_RELAXED);
		usleep(500);
	}
	return NULL;
}

FIXTURE(storm) {
	int fd;
	struct kp_buffers b;
};

FIXTURE_SETUP(storm)
{
	struct kprof_config cfg;

	KP_OPEN_OR_SKIP(self->fd);
	kp_cfg_init(&cfg, 2000);
	cfg.buffer_pages = 16;
	cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
	cfg.kernel_stack = 16;
	cfg.user_stack = 16;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
}

FIXTURE_TEARDOWN(storm)
{
	kp_close(self->fd, &self->b);
}

TEST_F_TIMEOUT(storm, start_stop, 120)
{
	struct storm s = { .fd = self->fd, .b = &self->b };
	struct toggler t[2] = { { &s, 0 }, { &s, 1 } };
	double t0 = kp_now();
	pthread_t th[3];
	int i;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, pthread_create(&th[0], NULL, toggle, &t[0]));
	ASSERT_EQ(0, pthread_create(&th[1], NULL, toggle, &t[1]));
	ASSERT_EQ(0, pthread_create(&th[2], NULL, reader, &s));
	while (!s.bad_errno[0] && !s.bad_errno[1] && !s.reader_failed &&
	       (READ_ONCE_UL(s.starts[0]) + READ_ONCE_UL(s.starts[1]) < STORM_STARTS ||
		READ_ONCE_UL(s.stops[0]) + READ_ONCE_UL(s.stops[1]) < STORM_STARTS ||
		!__atomic_load_n(&s.records, __ATOMIC_RELAXED)))
		kp_sleep_ms(10);
	s.stop = 1;
	for (i = 0; i < 3; i++)
		pthread_join(th[i], NULL);

	TH_LOG("START %lu+%lu (EBUSY %lu+%lu), STOP %lu+%lu, %ld records read, in %.2f s",
	       s.starts[0], s.starts[1], s.busy[0], s.busy[1], s.stops[0],
	       s.stops[1], s.records, kp_now() - t0);
	i = s.bad_errno[0] ? 0 : 1;
	ASSERT_EQ(0, s.bad_errno[i])
		TH_LOG("thread %d: %s: %s", i, s.bad_op[i],
		       strerror(s.bad_errno[i]));
	ASSERT_EQ(0, s.reader_failed) TH_LOG("%s", self->b.err);
	ASSERT_LE(STORM_STARTS, s.starts[0] + s.starts[1]);

	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_LT(0L, s.records);

	/* Stopped means stopped: nothing more arrives. */
	kp_sleep_ms(50);
	ASSERT_EQ(0L, kp_drain(&self->b));

	/*
	 * START resets the counters, so the storm's sessions cannot be
	 * told apart in the stream; the last one's counters add up...
	 */
	for (i = 0; i < (int)self->b.nr_cpu_ids; i++) {
		struct kprof_counters k;

		if (self->b.cpus[i].base)
			ASSERT_EQ(0, kp_check_counters(&self->b, &self->b.cpus[i], &k))
				TH_LOG("%s", self->b.err);
	}
	/* ...and a clean session after the storm is exactly conserved. */
	kp_reset_tally(&self->b);
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	kp_sleep_ms(200);
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_LT(0ULL, self->b.cpus[0].samples);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1))
		TH_LOG("%s", self->b.err);
}

TEST_HARNESS_MAIN
