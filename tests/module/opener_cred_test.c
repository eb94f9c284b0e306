// SPDX-License-Identifier: GPL-2.0
/*
 * Events are created under the session owner's credentials, wherever
 * they are created: START's worker and the cpuhp thread at START, and the
 * cpuhp thread for a CPU that comes online while the session runs.  A
 * PMU driver's own checks see those credentials, so the PMU stand-in
 * (tests/testpmu/) notes the euid and the capabilities its event_init ran
 * with (init_euid, init_caps).  A kernel thread's would be uid 0 with
 * every capability.
 *
 * The owner is a member of the group= grant running as uid 65534 without
 * capabilities: its events must be judged as uid 65534 with CAP_PERFMON
 * (the grant) and nothing else, at perf_event_paranoid 2, where
 * find_get_context()'s perf_allow_cpu() refuses a CPU-wide event to a user
 * without CAP_PERFMON.  Root's events are judged as root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_test.h"
#include "testpmu.h"

#define GRANT_GID	4242
#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define INIT_EUID	"/sys/module/kprof_testpmu/parameters/init_euid"
#define INIT_CAPS	"/sys/module/kprof_testpmu/parameters/init_caps"
#define CAPS_PERFMON	1	/* init_caps bits, see kprof_testpmu.c */
#define CAPS_SYS_ADMIN	2
#define HP_CPU		1	/* the CPU that comes online mid-session */

static int write_str(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(s, f) < 0 ? -1 : 0;
	if (fclose(f))
		ret = -1;
	return ret;
}

/* What the stand-in's last event_init saw, after a reset to -1. */
static int reset_seen(void)
{
	return write_str(INIT_EUID, "-1") || write_str(INIT_CAPS, "-1") ? -1 : 0;
}

static void seen(long long *euid, long long *caps)
{
	*euid = tp_read_num(INIT_EUID);
	*caps = tp_read_num(INIT_CAPS);
}

/* A session on the stand-in, 1 ms period, on CPU 0 and HP_CPU. */
static int start_session(int fd)
{
	struct kprof_config cfg;

	kp_cfg_init(&cfg, 0);
	cfg.type = (__u32)tp_type();
	cfg.config = 0;
	cfg.flags &= ~KPROF_CFG_FREQ;
	cfg.sample = 1000000;
	cfg.buffer_pages = 4;
	kp_cfg_add_cpu(&cfg, 0);
	kp_cfg_add_cpu(&cfg, HP_CPU);
	if (kp_set_config(fd, &cfg))
		return -1;
	return kp_start(fd);
}

FIXTURE(cred) {
	int loaded;
	char paranoid[16];
};

FIXTURE_SETUP(cred)
{
	FILE *f;

	self->loaded = 0;
	self->paranoid[0] = '\0';
	if (getuid() != 0 || !getenv("KPROF_VM"))
		SKIP(return, "reloads kprof.ko: test-bed VM only");
	if (tp_type() < 0)
		SKIP(return, "needs the PMU stand-in (tests/vm/run --testpmu)");
	if (access(INIT_EUID, W_OK))
		SKIP(return, "the stand-in has no init_euid");
	KP_LOAD_GRANTED(GRANT_GID);
	self->loaded = 1;
	f = fopen(PARANOID, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(self->paranoid, sizeof(self->paranoid), f));
	fclose(f);
	ASSERT_EQ(0, write_str(PARANOID, "2"));
	ASSERT_EQ(0, reset_seen());
}

FIXTURE_TEARDOWN(cred)
{
	if (self->paranoid[0])
		write_str(PARANOID, self->paranoid);
	if (!kp_cpu_online(HP_CPU))
		write_str("/sys/devices/system/cpu/cpu1/online", "1");
	if (!self->loaded)
		return;
	kp_rmmod();
	kp_insmod();
}

/* The member's session: start, report, wait for the parent, stop. */
static int member_session(int report, int go, char *msg, size_t len)
{
	int fd = kp_open();
	char c;

	if (fd < 0) {
		snprintf(msg, len, "open: %s", strerror(errno));
		return 1;
	}
	if (start_session(fd)) {
		snprintf(msg, len, "START as a member at paranoid 2: %s",
			 strerror(errno));
		return 2;
	}
	if (write(report, "s", 1) != 1 || read(go, &c, 1) != 1) {
		snprintf(msg, len, "pipe to the parent: %s", strerror(errno));
		return 3;
	}
	if (kp_stop(fd)) {
		snprintf(msg, len, "STOP: %s", strerror(errno));
		return 4;
	}
	close(fd);
	return 0;
}

/*
 * A member's session, with HP_CPU offline at START and brought online
 * while it runs: both the START and the hotplug creation are judged as
 * the member.
 */
TEST_F_TIMEOUT(cred, member_events_judged_as_member, 60)
{
	int report[2], go[2], status, rc;
	long long euid, caps;
	char msg[512] = "", c;
	gid_t grant = GRANT_GID;
	pid_t pid;

	KP_RETURN_IF_SKIPPED();
	if (!kp_cpu_online(HP_CPU) ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs CPU %d online and hotpluggable (--cpus 2 or more)",
		     HP_CPU);
	ASSERT_EQ(0, write_str("/sys/devices/system/cpu/cpu1/online", "0"));
	ASSERT_EQ(0, pipe(report));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(report[0]);
		close(go[1]);
		if (setgroups(1, &grant) || setgid(KP_NOBODY) || setuid(KP_NOBODY))
			_exit(100);
		rc = member_session(report[1], go[0], msg, sizeof(msg));
		if (rc)
			fprintf(stderr, "# child: %s\n", msg);
		_exit(rc);
	}
	close(report[1]);
	close(go[0]);
	rc = read(report[0], &c, 1);
	if (rc == 1) {
		/* START created CPU 0's event (and the preflight's). */
		seen(&euid, &caps);
		EXPECT_EQ(KP_NOBODY, euid) TH_LOG("START: event_init ran as euid %lld", euid);
		EXPECT_EQ(CAPS_PERFMON, caps)
			TH_LOG("START: event_init's capabilities %#llx, want CAP_PERFMON alone",
			       caps);
		/* Now the cpuhp thread creates HP_CPU's. */
		EXPECT_EQ(0, reset_seen());
		EXPECT_EQ(0, write_str("/sys/devices/system/cpu/cpu1/online", "1"));
		seen(&euid, &caps);
		EXPECT_EQ(KP_NOBODY, euid)
			TH_LOG("CPU %d online: event_init ran as euid %lld", HP_CPU, euid);
		EXPECT_EQ(CAPS_PERFMON, caps)
			TH_LOG("CPU %d online: capabilities %#llx", HP_CPU, caps);
	}
	EXPECT_EQ(1, write(go[1], "g", 1));
	close(go[1]);
	close(report[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("member's session failed (see # child)");
	ASSERT_EQ(1, rc) TH_LOG("the child never started");
}

TEST_HARNESS_MAIN
