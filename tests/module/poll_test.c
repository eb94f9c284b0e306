// SPDX-License-Identifier: GPL-2.0
/*
 * poll_test - poll() answers while another thread's STOP is in progress.
 *
 * STOP holds the configuration mutex (kprof.lock) across CPU hotplug
 * (cpuhp_state_remove_instance(), which clears each CPU's
 * KPROF_PAGE_ONLINE as its event goes) and synchronize_rcu(), and
 * clears every page's KPROF_PAGE_RUNNING last, still holding it.  So a
 * poll() that starts once a page has lost ONLINE and returns while a page
 * still has RUNNING ran entirely inside STOP's hold of the mutex: a poll()
 * that took the mutex could not.  A trial in which the main thread is not
 * scheduled between the two points proves nothing either way; the test
 * runs trials until one does, and fails if none of KP_POLL_TRIALS does.
 * Once STOP has returned, poll() still says EPOLLIN while records are
 * left and EPOLLHUP once they are drained.
 */
#include "kprof_test.h"
#include <poll.h>
#include <pthread.h>
#include "kselftest_harness.h"

#define KP_POLL_TRIALS	20

FIXTURE(poll_stop) {
	int fd;
	struct kp_buffers b;
};

FIXTURE_SETUP(poll_stop)
{
	struct kprof_config cfg;

	KP_OPEN_OR_SKIP(self->fd);
	kp_cfg_init(&cfg, 1000);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
}

FIXTURE_TEARDOWN(poll_stop)
{
	kp_close(self->fd, &self->b);
}

struct ps_stopper {
	pthread_t thread;
	int fd;
	int ret, err;
	int done;
};

static void *ps_stop(void *arg)
{
	struct ps_stopper *s = arg;

	s->ret = kp_stop(s->fd);
	s->err = errno;
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* @all: every online CPU's page has @flag set; else: some page has. */
static int ps_flag(struct kp_buffers *b, __u32 flag, int all)
{
	unsigned int cpu;
	struct kp_cpu *c;

	kp_for_each_online(b, cpu, c) {
		int set = !!(kp_page_flags(c) & flag);

		if (set != all)
			return !all;
	}
	return all;
}

/*
 * One START and a STOP on another thread; 1 if a poll() ran inside the
 * STOP's hold of the mutex, 0 if this trial could not tell, -1 on error.
 */
static int ps_trial(struct __test_metadata *_metadata, int fd,
		    struct kp_buffers *b)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct ps_stopper s = { .fd = fd };
	int inside = 0, n;

	if (kp_start(fd)) {
		TH_LOG("START: %s", strerror(errno));
		return -1;
	}
	if (!ps_flag(b, KPROF_PAGE_ONLINE, 1)) {
		TH_LOG("START returned with a CPU without an event");
		kp_stop(fd);
		return -1;
	}
	kp_sleep_ms(20);
	if (pthread_create(&s.thread, NULL, ps_stop, &s)) {
		kp_stop(fd);
		return -1;
	}
	/* Until STOP has released a CPU's event, or it is over. */
	while (ps_flag(b, KPROF_PAGE_ONLINE, 1) &&
	       !__atomic_load_n(&s.done, __ATOMIC_ACQUIRE))
		;
	n = poll(&pfd, 1, 0);
	if (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE) &&
	    ps_flag(b, KPROF_PAGE_RUNNING, 0))
		inside = 1;
	pthread_join(s.thread, NULL);
	if (n < 0 || s.ret) {
		TH_LOG("poll: %d (%s), STOP: %d (%s)", n, strerror(errno),
		       s.ret, strerror(s.err));
		return -1;
	}
	return inside;
}

TEST_F_TIMEOUT(poll_stop, answers_during_stop, 300)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	int trials = 0, inside = 0, ret;

	KP_RETURN_IF_SKIPPED();
	while (!inside && trials < KP_POLL_TRIALS) {
		trials++;
		kp_reset_tally(&self->b);
		ret = ps_trial(_metadata, self->fd, &self->b);
		ASSERT_LE(0, ret);
		inside = ret;

		/* Stopped: records left, then EPOLLHUP once drained. */
		ASSERT_EQ(1, poll(&pfd, 1, 0));
		if (pfd.revents & POLLIN)
			ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
		ASSERT_EQ(1, poll(&pfd, 1, 0));
		EXPECT_EQ(POLLHUP, pfd.revents) TH_LOG("revents %#x", pfd.revents);
	}
	TH_LOG("%d trials, poll() inside STOP in %d", trials, inside);
	EXPECT_EQ(1, inside)
		TH_LOG("no poll() returned while STOP held the configuration mutex");
}

TEST_HARNESS_MAIN
