// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions side by side (ABI version 5, include/uapi/linux/kprof.h,
 * "Sessions"): every open file has its own session.
 *
 * two.*:      files A and B configure, map and start their own sessions;
 *             both sample at once, each into its own buffers, and each
 *             accounts for every overflow of its own; B's STOP stops only
 *             B's.
 * limit:      with max_sessions=1, B's START gets EBUSY while A's session
 *             runs and succeeds once A's stops.
 * knobs:      a third file's SET_THROTTLE while A's and B's sessions run
 *             succeeds, as a perf sysctl write would, and is in both
 *             sessions' control pages when it returns; both still account
 *             for every overflow.
 * none.*:     a file without a session maps nothing (ENODEV), reads EOF,
 *             polls EPOLLHUP and is told the default layout.
 */
#include "kprof_test.h"

#include <poll.h>

#include "kprof_throttle.h"

#include "kselftest_harness.h"

#define MAX_SESSIONS	"/sys/module/kprof/parameters/max_sessions"

FIXTURE(two) {
	int a, b;
	struct kp_buffers ba, bb;
};

FIXTURE_SETUP(two)
{
	struct kprof_config cfg;

	self->b = -1;
	memset(&self->ba, 0, sizeof(self->ba));
	memset(&self->bb, 0, sizeof(self->bb));
	KP_OPEN_OR_SKIP(self->a);
	self->b = kp_open();
	ASSERT_LE(0, self->b) TH_LOG("second open: %s", strerror(errno));
	kp_cfg_init(&cfg, 200);
	ASSERT_EQ(0, kp_set_config(self->a, &cfg)) TH_LOG("A: %s", strerror(errno));
	kp_cfg_init(&cfg, 300);
	cfg.buffer_pages = 8;
	ASSERT_EQ(0, kp_set_config(self->b, &cfg)) TH_LOG("B: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->ba, self->a)) TH_LOG("A: %s", self->ba.err);
	ASSERT_EQ(0, kp_map(&self->bb, self->b)) TH_LOG("B: %s", self->bb.err);
}

FIXTURE_TEARDOWN(two)
{
	if (self->b >= 0)
		kp_close(self->b, &self->bb);
	kp_close(self->a, &self->ba);
}

static int running(int fd)
{
	struct kprof_info info;

	if (kp_get_info(fd, &info))
		return -1;
	return !!(info.flags & KPROF_INFO_RUNNING);
}

TEST_F_TIMEOUT(two, both_sample_and_conserve, 60)
{
	struct kprof_config cfg;
	long na, nb;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->a)) TH_LOG("A: %s", strerror(errno));
	ASSERT_EQ(0, kp_start(self->b)) TH_LOG("B: %s", strerror(errno));
	EXPECT_EQ(1, running(self->a));
	EXPECT_EQ(1, running(self->b));
	kp_sleep_ms(300);
	ASSERT_EQ(0, kp_stop(self->a)) TH_LOG("A: %s", strerror(errno));
	ASSERT_EQ(0, kp_stop(self->b)) TH_LOG("B: %s", strerror(errno));

	na = kp_drain(&self->ba);
	nb = kp_drain(&self->bb);
	ASSERT_LT(0, na) TH_LOG("A: %s", self->ba.err);
	ASSERT_LT(0, nb) TH_LOG("B: %s", self->bb.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->ba, 1)) TH_LOG("A: %s", self->ba.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->bb, 1)) TH_LOG("B: %s", self->bb.err);
	TH_LOG("A: %ld records, B: %ld records", na, nb);

	/* Each file sees its own configuration. */
	cfg.size = sizeof(cfg);
	ASSERT_EQ(0, ioctl(self->a, KPROF_IOC_GET_CONFIG, &cfg));
	EXPECT_EQ(200ULL, cfg.sample);
	ASSERT_EQ(0, ioctl(self->b, KPROF_IOC_GET_CONFIG, &cfg));
	EXPECT_EQ(300ULL, cfg.sample);
	EXPECT_EQ(8U, cfg.buffer_pages);
}

TEST_F_TIMEOUT(two, stop_is_per_session, 60)
{
	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->a)) TH_LOG("A: %s", strerror(errno));
	/* B's STOP acts on B's session, which does not run: A's goes on. */
	EXPECT_EQ(0, kp_stop(self->b)) TH_LOG("B: %s", strerror(errno));
	EXPECT_EQ(1, running(self->a));
	EXPECT_EQ(0, running(self->b));
	ASSERT_EQ(0, kp_start(self->b)) TH_LOG("B: %s", strerror(errno));
	/* Closing B stops only B's. */
	kp_close(self->b, &self->bb);
	self->b = -1;
	EXPECT_EQ(1, running(self->a));
	ASSERT_EQ(0, kp_stop(self->a)) TH_LOG("A: %s", strerror(errno));
	ASSERT_LE(0, kp_drain(&self->ba)) TH_LOG("A: %s", self->ba.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->ba, 1)) TH_LOG("A: %s", self->ba.err);
}

/*
 * The max rate every mapped CPU's control page of @b shows, at most
 * @rate: -1 and b->err if one shows more.
 */
static int pages_at_most(struct kp_buffers *b, __u64 rate)
{
	struct kp_cpu *c;
	unsigned int cpu;

	kp_for_each_online(b, cpu, c) {
		__u64 r = __atomic_load_n(&c->pg->max_sample_rate, __ATOMIC_RELAXED);

		if (r > rate)
			return kp_fail(b, "CPU %u's page: max_sample_rate %llu, above %llu",
				       cpu, (unsigned long long)r, (unsigned long long)rate);
	}
	return 0;
}

/*
 * Live knobs: the cost controller off first (percent 0, as perf allows),
 * so that nothing but a knob write moves the rate both sessions' pages
 * show from the default 100000 (each START publishes it).  The write
 * turns the controller back on with a rate of 2000; from then on it may
 * only lower the rate, so each page shows at most 2000 once the write
 * returned, and a page the write missed would still show 100000.
 */
TEST_F_TIMEOUT(two, knobs_apply_to_running_sessions, 60)
{
	struct kprof_throttle_config t = { .size = sizeof(t) };
	int c;

	KP_RETURN_IF_SKIPPED();
	c = kp_open();
	ASSERT_LE(0, c) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, kp_no_lowering(c)) TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, kp_start(self->a)) TH_LOG("A: %s", strerror(errno));
	ASSERT_EQ(0, kp_start(self->b)) TH_LOG("B: %s", strerror(errno));
	EXPECT_EQ(-1, pages_at_most(&self->ba, 99999)) TH_LOG("A's pages before the write");
	EXPECT_EQ(-1, pages_at_most(&self->bb, 99999)) TH_LOG("B's pages before the write");
	kp_sleep_ms(100);

	ASSERT_EQ(0, ioctl(c, KPROF_IOC_GET_THROTTLE, &t));
	t.cpu_time_max_percent = KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT;
	t.max_sample_rate = 2000;
	EXPECT_EQ(0, ioctl(c, KPROF_IOC_SET_THROTTLE, &t))
		TH_LOG("SET_THROTTLE while two sessions run: %s", strerror(errno));
	EXPECT_EQ(0, pages_at_most(&self->ba, 2000)) TH_LOG("A: %s", self->ba.err);
	EXPECT_EQ(0, pages_at_most(&self->bb, 2000)) TH_LOG("B: %s", self->bb.err);
	EXPECT_EQ(1, running(self->a));
	EXPECT_EQ(1, running(self->b));
	kp_sleep_ms(100);

	ASSERT_EQ(0, kp_stop(self->a)) TH_LOG("A: %s", strerror(errno));
	ASSERT_EQ(0, kp_stop(self->b)) TH_LOG("B: %s", strerror(errno));
	EXPECT_EQ(0, kp_default_limits(c)) TH_LOG("%s", strerror(errno));
	close(c);
	ASSERT_LE(0, kp_drain(&self->ba)) TH_LOG("A: %s", self->ba.err);
	ASSERT_LE(0, kp_drain(&self->bb)) TH_LOG("B: %s", self->bb.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->ba, 1)) TH_LOG("A: %s", self->ba.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->bb, 1)) TH_LOG("B: %s", self->bb.err);
}

static int write_param(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(val, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

TEST_F_TIMEOUT(two, max_sessions_limit, 60)
{
	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_param(MAX_SESSIONS, "1"))
		TH_LOG(MAX_SESSIONS ": %s", strerror(errno));
	ASSERT_EQ(0, kp_start(self->a)) TH_LOG("A: %s", strerror(errno));
	EXPECT_EQ(-1, kp_start(self->b));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, running(self->b));
	ASSERT_EQ(0, kp_stop(self->a)) TH_LOG("A: %s", strerror(errno));
	EXPECT_EQ(0, kp_start(self->b)) TH_LOG("B: %s", strerror(errno));
	EXPECT_EQ(0, kp_stop(self->b));
	EXPECT_EQ(0, write_param(MAX_SESSIONS, "4"));
}

TEST(no_session)
{
	struct kprof_info info;
	struct pollfd pfd;
	char buf[64];
	void *p;
	int fd;

	fd = kp_open();
	if (fd < 0)
		SKIP(return, "%s: %s", KP_DEV, strerror(errno));
	ASSERT_EQ(0, kp_get_info(fd, &info)) TH_LOG("%s", strerror(errno));
	EXPECT_LT(0ULL, info.mmap_stride);
	EXPECT_FALSE(info.flags & KPROF_INFO_RUNNING);
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	if (p != MAP_FAILED)
		munmap(p, info.mmap_stride);
	EXPECT_EQ(0, read(fd, buf, sizeof(buf)));
	pfd.fd = fd;
	pfd.events = POLLIN;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	close(fd);
}

TEST_HARNESS_MAIN
