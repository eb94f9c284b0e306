// SPDX-License-Identifier: GPL-2.0
/*
 * member_test - what a member of the group= grant may do while root runs
 * a session (ABI version 5, "Sessions" in include/uapi/linux/kprof.h):
 * nothing of root's is within its reach.  Its file sees a session of its
 * own (none yet: not running, the default configuration, zero
 * counters), its STOP, SET_CONFIG, START, read() and mmap() act on that
 * session of its own, beside root's; SET_THROTTLE of the global knobs,
 * which would change root's running session too, gets EPERM for a change
 * (repeating the values in force is allowed: it changes nothing), and
 * the knobs stay as they were.  Root's session runs on, every
 * overflow accounted.  The member runs as uid 65534 without
 * capabilities.  Records of a stopped or closed session of someone else:
 * handover_test.
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <poll.h>

#include "kselftest_harness.h"

#define GRANT_GID	4242
#define FREQ		200

FIXTURE(granted) {
	int loaded;
	int fd;
	struct kp_buffers b;
};

FIXTURE_SETUP(granted)
{
	struct kprof_config cfg;

	self->loaded = 0;
	self->fd = -1;
	if (getuid() != 0 || !getenv("KPROF_VM"))
		SKIP(return, "reloads kprof.ko: test-bed VM only");
	KP_LOAD_GRANTED(GRANT_GID);
	self->loaded = 1;
	KP_OPEN_OR_SKIP(self->fd);
	kp_cfg_init(&cfg, FREQ);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
}

FIXTURE_TEARDOWN(granted)
{
	kp_close(self->fd, &self->b);
	if (!self->loaded)
		return;
	kp_rmmod();
	kp_insmod();
}

/* errno of a call that failed, 0 if it succeeded. */
static int err_of(int ret)
{
	return ret ? errno : 0;
}

/* What the member's file sees: its own session, none yet, not root's. */
static int member_looks(int fd, char *msg, size_t len)
{
	struct kprof_throttle_config t = { .size = sizeof(t) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct kprof_cpu_stats st;
	struct kprof_config cfg;
	struct kprof_info info;
	int rc;

	CHILD_EXPECT(!kp_get_info(fd, &info), "GET_INFO: %s", strerror(errno));
	CHILD_EXPECT(!(info.flags & KPROF_INFO_RUNNING),
		     "GET_INFO: running (root's session)");
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	CHILD_EXPECT(!ioctl(fd, KPROF_IOC_GET_CONFIG, &cfg), "GET_CONFIG: %s",
		     strerror(errno));
	CHILD_EXPECT(cfg.sample != FREQ, "GET_CONFIG: root's sample %d", FREQ);
	CHILD_EXPECT(!kp_get_stats(fd, 0, &st), "GET_STATS: %s", strerror(errno));
	CHILD_EXPECT(!st.counters.overflows, "GET_STATS: %llu overflows (root's)",
		     (unsigned long long)st.counters.overflows);
	CHILD_EXPECT(!ioctl(fd, KPROF_IOC_GET_THROTTLE, &t), "GET_THROTTLE: %s",
		     strerror(errno));
	/* Nothing will come: no session of its own. */
	rc = poll(&pfd, 1, 0);
	CHILD_EXPECT(rc == 1 && (pfd.revents & POLLHUP), "poll(): %d, revents %#x",
		     rc, pfd.revents);
	return 0;
}

/* What it does acts on its own session; a change of the global knobs is refused. */
static int member_acts(int fd, char *msg, size_t len)
{
	struct kprof_throttle_config t = { .size = sizeof(t) };
	struct kprof_info info;
	struct kprof_config cfg;
	char buf[4096];
	__u32 rate;
	ssize_t n;
	void *p;
	int e;

	CHILD_EXPECT(!kp_get_info(fd, &info), "GET_INFO: %s", strerror(errno));
	e = err_of(kp_stop(fd));
	CHILD_EXPECT(!e, "STOP: %s", strerror(e));
	n = read(fd, buf, sizeof(buf));
	CHILD_EXPECT(n == 0, "read(): %s", n < 0 ? strerror(errno) : "records");
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, fd, 0);
	CHILD_EXPECT(p == MAP_FAILED && errno == ENODEV, "mmap: %s",
		     p == MAP_FAILED ? strerror(errno) : "mapped without a session");
	CHILD_EXPECT(!ioctl(fd, KPROF_IOC_GET_THROTTLE, &t), "GET_THROTTLE: %s",
		     strerror(errno));
	e = err_of(ioctl(fd, KPROF_IOC_SET_THROTTLE, &t));
	CHILD_EXPECT(!e, "SET_THROTTLE of the values in force: %s", strerror(e));
	rate = t.max_sample_rate;
	t.max_sample_rate = rate + 1000;
	e = err_of(ioctl(fd, KPROF_IOC_SET_THROTTLE, &t));
	CHILD_EXPECT(e == EPERM, "SET_THROTTLE max_sample_rate %u: %s", t.max_sample_rate,
		     e ? strerror(e) : "accepted");
	CHILD_EXPECT(!ioctl(fd, KPROF_IOC_GET_THROTTLE, &t), "GET_THROTTLE: %s",
		     strerror(errno));
	/* The cost controller may have lowered it meanwhile, never raised it. */
	CHILD_EXPECT(t.max_sample_rate <= rate, "max_sample_rate %u after the refused change to %u",
		     t.max_sample_rate, rate + 1000);
	/* A session of its own, beside root's. */
	kp_cfg_init(&cfg, FREQ / 2);
	e = err_of(kp_set_config(fd, &cfg));
	CHILD_EXPECT(!e, "SET_CONFIG: %s", strerror(e));
	e = err_of(kp_start(fd));
	CHILD_EXPECT(!e, "START: %s", strerror(e));
	CHILD_EXPECT(!kp_get_info(fd, &info), "GET_INFO: %s", strerror(errno));
	CHILD_EXPECT(info.flags & KPROF_INFO_RUNNING, "GET_INFO: not running");
	kp_sleep_ms(50);
	e = err_of(kp_stop(fd));
	CHILD_EXPECT(!e, "STOP: %s", strerror(e));
	return 0;
}

static int (*member_fn)(int fd, char *msg, size_t len);

static int open_and_run(char *msg, size_t len)
{
	int fd = kp_open(), rc;

	CHILD_EXPECT(fd >= 0, "open: %s", strerror(errno));
	rc = member_fn(fd, msg, len);
	close(fd);
	return rc;
}

static int as_member(int (*fn)(int fd, char *msg, size_t len), char *msg,
		     size_t len)
{
	gid_t grant = GRANT_GID;

	member_fn = fn;
	return kp_as_nobody(&grant, 1, open_and_run, msg, len);
}

TEST_F_TIMEOUT(granted, member_cannot_reach_a_running_session, 60)
{
	struct kprof_info info;
	char msg[512];

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	kp_sleep_ms(100);
	EXPECT_EQ(0, as_member(member_looks, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ(0, as_member(member_acts, msg, sizeof(msg))) TH_LOG("%s", msg);

	/* Root's session ran on, whole. */
	ASSERT_EQ(0, kp_get_info(self->fd, &info));
	EXPECT_TRUE(info.flags & KPROF_INFO_RUNNING);
	kp_sleep_ms(100);
	ASSERT_EQ(0, kp_stop(self->fd)) TH_LOG("%s", strerror(errno));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
}

TEST_HARNESS_MAIN
