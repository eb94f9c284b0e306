/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_test.h - what every in-guest test of kprof includes: the system
 * headers they use, the device (kp_dev.h), its regions (kp_ring.h), the
 * system around it (kp_sys.h), and the harness prologues below.  The
 * helpers are compiled once, into libkprof_test.a (tests/Makefile).
 */
#ifndef KPROF_TEST_H
#define KPROF_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <linux/kprof.h>

#include "kp_dev.h"
#include "kp_ring.h"
#include "kp_sys.h"

/*
 * The 6.1 kselftest harness runs a TEST_F body even when its
 * FIXTURE_SETUP called SKIP(); every test body starts with this.
 */
#define KP_RETURN_IF_SKIPPED() do {		\
	if (_metadata->skip)			\
		return;				\
} while (0)

/*
 * FIXTURE_SETUP prologue of the tests that load kprof.ko with the group=
 * grant to @gid: unload it (SKIP when something still holds it), then
 * load it with the grant.
 */
#define KP_LOAD_GRANTED(gid) do {					\
	char params_[32];						\
									\
	if (kp_module_loaded() && kp_rmmod())				\
		SKIP(return, "rmmod kprof: %s", strerror(errno));	\
	snprintf(params_, sizeof(params_), "group=%d", (gid));		\
	ASSERT_EQ(0, kp_insmod_params(params_))				\
		TH_LOG("insmod %s %s: %s", kp_ko_path(), params_,	\
		       strerror(errno));				\
} while (0)

/*
 * FIXTURE_SETUP prologue: open /dev/kprof into @fd and make sure it is
 * stopped (an earlier test may have left a session running) with the
 * default limits, or SKIP when kprof is not loaded.
 */
#define KP_OPEN_OR_SKIP(fd) do {					\
	(fd) = kp_open();						\
	if ((fd) < 0)							\
		SKIP(return, "%s: %s (kprof.ko not loaded?)", KP_DEV,	\
		     strerror(errno));					\
	kp_stop(fd);							\
	ASSERT_EQ(0, kp_default_limits(fd))				\
		TH_LOG("SET_THROTTLE to the defaults: %s", strerror(errno)); \
} while (0)

/*
 * In a child's function (kp_child_fn, kp_ns_fn), whose message goes to
 * @msg of @len: when @cond does not hold, say why there and return 1.
 */
#define CHILD_EXPECT(cond, ...) do {					\
	if (!(cond)) {							\
		snprintf(msg, len, __VA_ARGS__);			\
		return 1;						\
	}								\
} while (0)

#endif /* KPROF_TEST_H */
