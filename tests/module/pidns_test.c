// SPDX-License-Identifier: GPL-2.0
/*
 * SAMPLE pids are those of the opener's pid namespace, as perf's are of
 * the event creator's (perf_event_pid()): an opener that is pid 1 of a
 * new namespace finds itself as pid 1, never under its pid in the initial
 * namespace, and tasks outside its namespace as pid 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

#define COMM		"kp-pidns-spin"
#define SPIN_MS		300

struct seen {
	pid_t outer;		/* the opener's pid in the initial namespace */
	__u64 own, outer_pid, others, others_nonzero;
};

static int on_sample(struct kp_buffers *b, struct kp_cpu *c,
		     const struct kprof_sample *s)
{
	struct seen *n = b->arg;

	(void)c;
	if (!strcmp(s->comm, COMM)) {
		if (s->pid != 1 || s->tid != 1)
			return kp_fail(b, "the opener sampled as pid %u tid %u, not 1",
				       s->pid, s->tid);
		n->own++;
	} else if ((pid_t)s->pid == n->outer || (pid_t)s->tid == n->outer) {
		n->outer_pid++;
	} else {
		n->others++;
		if (s->pid)
			n->others_nonzero++;
	}
	return 0;
}

/* In pid 1 of the new namespace: sample itself spinning on CPU 0. */
static int opener(pid_t outer, char *msg, size_t len)
{
	struct seen n = { .outer = outer };
	struct kprof_config cfg;
	struct kp_buffers b;
	double end;
	int fd;

	if (getpid() != 1) {
		snprintf(msg, len, "not pid 1 of a new namespace: %d", getpid());
		return 1;
	}
	prctl(PR_SET_NAME, COMM);
	fd = kp_open();
	if (fd < 0 || kp_pin_self(0)) {
		snprintf(msg, len, "open or pin: %s", strerror(errno));
		return 1;
	}
	kp_cfg_init(&cfg, 1000);
	kp_cfg_add_cpu(&cfg, 0);
	cfg.buffer_pages = 64;
	if (kp_set_config(fd, &cfg) || kp_map(&b, fd) || kp_start(fd)) {
		snprintf(msg, len, "configure, map or START: %s", strerror(errno));
		return 1;
	}
	b.on_sample = on_sample;
	b.arg = &n;
	end = kp_now() + SPIN_MS / 1000.0;
	while (kp_now() < end)
		;
	if (kp_stop(fd) || kp_drain(&b) < 0) {
		snprintf(msg, len, "STOP or drain: %.200s", b.err[0] ? b.err : strerror(errno));
		return 1;
	}
	snprintf(msg, len, "own %llu, under the outer pid %llu, others %llu (%llu with a pid)",
		 n.own, n.outer_pid, n.others, n.others_nonzero);
	/* Every other task on CPU 0 is outside the namespace: pid 0. */
	if (!n.own || n.outer_pid || n.others_nonzero)
		return 2;
	return 0;
}

TEST(samples_carry_the_openers_namespace_pids)
{
	char msg[512];
	int rc;

	if (getuid() != 0 || access(KP_DEV, F_OK))
		SKIP(return, "needs root and kprof loaded");
	rc = kp_in_new_pidns(opener, msg, sizeof(msg));
	ASSERT_EQ(0, rc) TH_LOG("%s", msg);
}

TEST_HARNESS_MAIN
