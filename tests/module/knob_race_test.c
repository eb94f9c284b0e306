// SPDX-License-Identifier: GPL-2.0
/*
 * knob_race_test - a knob write keeps what an overflow handler lowered
 * while the write was in progress.
 *
 * A write to /sys/module/kprof/parameters/ is checked on a copy of the
 * live limits and then stored; the overflow handlers of other CPUs lower
 * max_sample_rate (and the per-tick limit, the period and the allowed
 * cost) in the live limits at any moment, without a lock.  The write must
 * set only its own fields: a lowering made between its copy and its store
 * stays.  That window is a few instructions long, so the test-only module
 * tests/testpmu/kprof_hold.ko holds the writer in it: a write of
 * cpu_time_max_percent=0, which switches the cost controller off, asks
 * capable(CAP_SYS_ADMIN) after the copy and before the store, and the
 * module's probe there spins until the test releases it.
 *
 * The lowering in the window is made certain, and none before it: kprof
 * samples CPU S only, with cpu-clock excluding the kernel and the cost
 * controller fed by clock events (KPROF_THROTTLE_F_FEED_CLOCK), at
 * max_sample_rate 10000000 (25 ns allowed per sample, which any handler
 * exceeds).  Nothing runs in user mode on S until the writer is held;
 * then a child spins there until the first RATE_LOWERED record.  The
 * writer is held on CPU W, the test runs on CPU M: three CPUs.
 *
 * After the write, max_sample_rate must be the rate of the last
 * RATE_LOWERED record.  A write that stored its whole copy back puts
 * 10000000 back.  Whatever the timing, the percent write never sets the
 * rate, so the check cannot fail on a correct module.
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <linux/capability.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "testpmu.h"

#define HOLD_KO		"tests/testpmu/kprof_hold.ko"
#define HOLD_PARAM	"/sys/module/kprof_hold/parameters/"
#define KNOB_PARAM	"/sys/module/kprof/parameters/"
#define CPU_W		0	/* the writer, held */
#define CPU_S		1	/* sampled */
#define CPU_M		2	/* the test itself */
#define RACE_RATE	10000000
#define PERIOD_NS	50000
/*
 * How long the writer may be held, and the wait for the lowering within
 * it: a hang detector, not a rate (the window takes milliseconds).  Below
 * the soft-lockup (20 s) and RCU-stall (21 s) detectors, which a CPU held
 * with preemption off would trip.
 */
#define HOLD_MS		10000
#define LOWER_WAIT_MS	8000

/* RATE_LOWERED records of one CPU consumed so far, and the last rate. */
struct lowerings {
	__u64 n;
	__u64 rate;
};

/* Consume @c's records; count RATE_LOWERED ones. 0, or -1 (b->err). */
static int scan_lowerings(struct kp_buffers *b, struct kp_cpu *c,
			  struct lowerings *low)
{
	__u64 head, tail, mask = c->data_size - 1;

	head = __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE);
	tail = c->pg->data_tail;
	while (tail != head) {
		struct kprof_record_header h;
		struct kprof_rate_lowered r;
		__u64 off = tail & mask, first;

		memcpy(&h, c->data + off, sizeof(h));
		if (h.size < 8 || h.size % 8 || h.size > head - tail)
			return kp_fail(b, "CPU %u: record type %u size %u at %llu",
				       c->cpu, h.type, h.size,
				       (unsigned long long)tail);
		if (h.type == KPROF_RECORD_RATE_LOWERED && h.size == sizeof(r)) {
			first = c->data_size - off;
			if (first >= sizeof(r)) {
				memcpy(&r, c->data + off, sizeof(r));
			} else {
				memcpy(&r, c->data + off, first);
				memcpy((char *)&r + first, c->data, sizeof(r) - first);
			}
			low->n++;
			low->rate = r.max_sample_rate;
		}
		tail += h.size;
	}
	__atomic_store_n(&c->pg->data_tail, tail, __ATOMIC_RELEASE);
	return 0;
}

static int write_num(const char *path, long long v)
{
	return tp_write_u64(path, (unsigned long long)v);
}

FIXTURE(race) {
	int fd;
	struct kp_buffers b;
	pid_t spinner, writer;
	int go[2], ack[2], wgo[2];
	volatile int *stop;
	int loaded;
};

FIXTURE_SETUP(race)
{
	const struct kprof_throttle_config t = {
		.size = sizeof(t),
		.semantics = KPROF_THROTTLE_GE,
		.max_sample_rate = RACE_RATE,
		.cpu_time_max_percent = 25,
		.flags = KPROF_THROTTLE_F_FEED_CLOCK,
	};
	struct kprof_config cfg;
	char params[64];
	void *stop;
	int fd;

	self->fd = -1;
	self->spinner = 0;
	self->writer = 0;
	self->loaded = 0;
	if (!kp_cpu_online(CPU_W) || !kp_cpu_online(CPU_S) || !kp_cpu_online(CPU_M))
		SKIP(return, "needs CPUs %d, %d and %d online (tests/vm/run --cpus 3 or more)",
		     CPU_W, CPU_S, CPU_M);
	if (access(HOLD_KO, R_OK))
		SKIP(return, "%s: %s (built by tests/vm/run --testpmu)", HOLD_KO,
		     strerror(errno));
	ASSERT_EQ(0, kp_pin_self(CPU_M)) TH_LOG("pinning to CPU %d: %s", CPU_M,
						strerror(errno));
	fd = open(HOLD_KO, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	snprintf(params, sizeof(params), "symbol=capable arg0=%d", CAP_SYS_ADMIN);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, params, 0))
		TH_LOG("insmod %s %s: %s", HOLD_KO, params, strerror(errno));
	close(fd);
	self->loaded = 1;
	ASSERT_EQ(0, write_num(HOLD_PARAM "timeout_ms", HOLD_MS));

	KP_OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &t))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	kp_cfg_init(&cfg, PERIOD_NS);
	cfg.flags = KPROF_CFG_EXCLUDE_KERNEL;
	cfg.buffer_pages = 64;
	kp_cfg_add_cpu(&cfg, CPU_S);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	stop = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, stop);
	self->stop = stop;
	*self->stop = 0;
	ASSERT_EQ(0, pipe(self->go));
	ASSERT_EQ(0, pipe(self->ack));
	ASSERT_EQ(0, pipe(self->wgo));
}

FIXTURE_TEARDOWN(race)
{
	if (self->loaded)
		tp_write(HOLD_PARAM "release", "1");
	if (self->spinner > 0) {
		kill(self->spinner, SIGKILL);
		waitpid(self->spinner, NULL, 0);
	}
	if (self->writer > 0) {
		kill(self->writer, SIGKILL);
		waitpid(self->writer, NULL, 0);
	}
	if (self->fd >= 0) {
		kp_stop(self->fd);
		kp_default_limits(self->fd);
		kp_close(self->fd, &self->b);
	}
	if (self->loaded)
		syscall(SYS_delete_module, "kprof_hold", O_NONBLOCK);
}

/*
 * Forked on CPU M (the parent's affinity), so it never runs on S before
 * @go: then it moves to S, spins in user mode until *@stop, says so on
 * @ack and waits for the end.
 */
static void spinner(int go, int ack, volatile int *stop)
{
	char c;

	if (read(go, &c, 1) != 1 || kp_pin_self(CPU_S))
		_exit(1);
	while (!*stop)
		;
	if (write(ack, "s", 1) != 1)
		_exit(2);
	while (read(go, &c, 1) > 0)
		;
	_exit(0);
}

/* On CPU W: the knob write, at @wgo; exits with its errno, 0 if it took. */
static void writer(int wgo)
{
	int fd;
	char c;

	if (kp_pin_self(CPU_W))
		_exit(100);
	fd = open(KNOB_PARAM "cpu_time_max_percent", O_WRONLY);
	if (fd < 0 || read(wgo, &c, 1) != 1)
		_exit(101);
	_exit(write(fd, "0\n", 2) == 2 ? 0 : errno);
}

/* Wait for the writer to be held; 0, or -1 if its write ended first. */
static int wait_held(pid_t *writer)
{
	double end = kp_now() + KP_PROGRESS_MS / 1000.0;

	while (tp_read_num(HOLD_PARAM "entered") != 1) {
		if (waitpid(*writer, NULL, WNOHANG) == *writer) {
			*writer = 0;
			return -1;
		}
		if (kp_now() > end)
			return -1;
		kp_sleep_ms(1);
	}
	return 0;
}

TEST_F_TIMEOUT(race, write_keeps_a_lowering_made_meanwhile, 120)
{
	struct kp_cpu *s = &self->b.cpus[CPU_S];
	struct lowerings before = { 0 }, during = { 0 };
	long long rate_before, rate_after;
	double end;
	int status;
	char caller[256] = "", c;
	FILE *f;

	KP_RETURN_IF_SKIPPED();
	ASSERT_NE(NULL, s->base) TH_LOG("CPU %d not mapped", CPU_S);
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	self->spinner = fork();
	ASSERT_LE(0, self->spinner);
	if (!self->spinner)
		spinner(self->go[0], self->ack[1], self->stop);
	self->writer = fork();
	ASSERT_LE(0, self->writer);
	if (!self->writer)
		writer(self->wgo[0]);

	/* Nothing sampled yet: the copy will hold RACE_RATE. */
	ASSERT_EQ(0, scan_lowerings(&self->b, s, &before)) TH_LOG("%s", self->b.err);
	rate_before = tp_read_num(KNOB_PARAM "max_sample_rate");
	ASSERT_EQ(0ULL, before.n)
		TH_LOG("a lowering before the write: CPU %d ran user code", CPU_S);
	ASSERT_EQ(RACE_RATE, rate_before);

	/* The writer copies the limits and is held before its store. */
	ASSERT_EQ(0, write_num(HOLD_PARAM "pid", self->writer));
	ASSERT_EQ(1, write(self->wgo[1], "w", 1));
	ASSERT_EQ(0, wait_held(&self->writer))
		TH_LOG("the write was not held: kprof's percent write asked no capable(CAP_SYS_ADMIN)");

	/* A handler lowers the live limits meanwhile. */
	ASSERT_EQ(1, write(self->go[1], "g", 1));
	end = kp_now() + LOWER_WAIT_MS / 1000.0;
	while (!during.n && kp_now() < end) {
		ASSERT_EQ(0, scan_lowerings(&self->b, s, &during))
			TH_LOG("%s", self->b.err);
		kp_sleep_ms(1);
	}
	*self->stop = 1;
	ASSERT_EQ(1, read(self->ack[0], &c, 1));
	ASSERT_LT(0ULL, during.n) TH_LOG("no RATE_LOWERED on CPU %d while the write was held",
					 CPU_S);

	/* The write goes on and stores. */
	ASSERT_EQ(0, tp_write(HOLD_PARAM "release", "1"));
	ASSERT_EQ(self->writer, waitpid(self->writer, &status, 0));
	self->writer = 0;
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("the write: %s", strerror(WEXITSTATUS(status)));
	EXPECT_EQ(0, tp_read_num(HOLD_PARAM "timed_out"));
	f = fopen(HOLD_PARAM "caller", "r");
	if (f) {
		if (!fgets(caller, sizeof(caller), f))
			caller[0] = '\0';
		fclose(f);
	}
	caller[strcspn(caller, "\n")] = '\0';
	TH_LOG("held in capable() from %s; %llu lowerings meanwhile, the last to %llu",
	       caller, (unsigned long long)during.n,
	       (unsigned long long)during.rate);

	rate_after = tp_read_num(KNOB_PARAM "max_sample_rate");
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_EQ(0, scan_lowerings(&self->b, s, &during)) TH_LOG("%s", self->b.err);
	EXPECT_EQ(0, tp_read_num(KNOB_PARAM "cpu_time_max_percent"));
	EXPECT_EQ((long long)during.rate, rate_after)
		TH_LOG("max_sample_rate %lld after the percent write; %llu lowerings while it was held, the last to %llu: the write put back the %lld of its copy",
		       rate_after, (unsigned long long)during.n,
		       (unsigned long long)during.rate, rate_before);
}

TEST_HARNESS_MAIN
