// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open /dev/kprof, and what a granted user who is not an admin
 * may do with it (include/uapi/linux/kprof.h, "Privilege").
 *
 * Each check runs in a child that drops to uid/gid 65534 (nobody), with
 * supplementary groups chosen by the test, and reports through a pipe.
 * Where the kernel's own decision is under test, the node is first made
 * 0666 by root, so that the file mode does not refuse the open before
 * kprof does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

#define GRANT_GID	4242
#define PARANOID	"/proc/sys/kernel/perf_event_paranoid"

/* Exit code: open()'s errno, 0 when it succeeded. */
static int try_open(char *msg, size_t len)
{
	int fd = kp_open();

	if (fd < 0) {
		snprintf(msg, len, "open: %s", strerror(errno));
		return errno;
	}
	close(fd);
	return 0;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

static int read_int(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fscanf(f, "%d", v) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

/* A world-readable file holding -1, made by root for the child below. */
static char fake_path[64] = "/tmp/kprof-paranoid.XXXXXX";

/*
 * The bypass of the review: an unprivileged user namespace with its own
 * mount namespace, where a file holding -1 is bind-mounted over
 * perf_event_paranoid.  Exit code 200 + n when the setup step n failed
 * (the test skips), else open()'s errno.
 */
static int fake_paranoid_open(char *msg, size_t len)
{
	char map[32];
	int v = 2;

	/* setuid() cleared it: /proc/self would be root's, maps unwritable. */
	if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		snprintf(msg, len, "PR_SET_DUMPABLE: %s", strerror(errno));
		return 200;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNS)) {
		snprintf(msg, len, "unshare(USER|NS): %s", strerror(errno));
		return 201;
	}
	snprintf(map, sizeof(map), "0 %d 1", KP_NOBODY);
	if (write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/uid_map", map) ||
	    write_file("/proc/self/gid_map", map)) {
		snprintf(msg, len, "id maps: %s", strerror(errno));
		return 202;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount(fake_path, PARANOID, NULL, MS_BIND, NULL)) {
		snprintf(msg, len, "bind mount over " PARANOID ": %s",
			 strerror(errno));
		return 203;
	}
	if (read_int(PARANOID, &v) || v != -1) {
		snprintf(msg, len, PARANOID " reads %d in the namespace", v);
		return 204;
	}
	return try_open(msg, len);
}

FIXTURE(ungranted) {
	int paranoid;		/* to restore; INT_MIN: untouched */
	mode_t mode;		/* of the node, to restore */
};

FIXTURE_SETUP(ungranted)
{
	struct stat st;

	self->paranoid = INT_MIN;
	if (getuid() != 0)
		SKIP(return, "needs root (runs in the test-bed VM)");
	if (stat(KP_DEV, &st))
		SKIP(return, "%s: %s (kprof.ko not loaded?)", KP_DEV,
		     strerror(errno));
	self->mode = st.st_mode & 07777;
	ASSERT_EQ(0, read_int(PARANOID, &self->paranoid));
	/* Let the kernel decide, not the file mode. */
	ASSERT_EQ(0, chmod(KP_DEV, 0666));
}

FIXTURE_TEARDOWN(ungranted)
{
	char v[16];

	if (self->paranoid == INT_MIN)
		return;
	snprintf(v, sizeof(v), "%d", self->paranoid);
	write_file(PARANOID, v);
	chmod(KP_DEV, self->mode);
}

/* Without group=, the node is root's and nobody else's. */
TEST(node_is_root_only)
{
	struct stat st;

	if (stat(KP_DEV, &st))
		SKIP(return, "%s: %s (kprof.ko not loaded?)", KP_DEV,
		     strerror(errno));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
}

TEST_F(ungranted, fake_paranoid_in_userns)
{
	char msg[512];
	int fd, rc;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, write_file(PARANOID, "2"));
	fd = mkstemp(fake_path);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", fake_path, strerror(errno));
	ASSERT_EQ(3, write(fd, "-1\n", 3));
	ASSERT_EQ(0, fchmod(fd, 0644));
	close(fd);
	rc = kp_as_nobody(NULL, 0, fake_paranoid_open, msg, sizeof(msg));
	unlink(fake_path);
	if (rc >= 200)
		SKIP(return, "cannot build the namespace: %s", msg);
	EXPECT_EQ(EACCES, rc) TH_LOG("uid %d, fake paranoid -1: %s", KP_NOBODY,
				     rc ? msg : "opened");
}

TEST_F(ungranted, real_paranoid_any_level)
{
	static const char * const levels[] = { "-1", "0", "1", "2" };
	char msg[512];
	unsigned int i;
	int rc;

	KP_RETURN_IF_SKIPPED();
	for (i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
		ASSERT_EQ(0, write_file(PARANOID, levels[i]));
		rc = kp_as_nobody(NULL, 0, try_open, msg, sizeof(msg));
		EXPECT_EQ(EACCES, rc) TH_LOG("uid %d, paranoid %s: %s", KP_NOBODY,
					     levels[i], rc ? msg : "opened");
	}
	/* root (CAP_PERFMON) still may, at any level. */
	ASSERT_EQ(0, write_file(PARANOID, "2"));
	EXPECT_EQ(0, try_open(msg, sizeof(msg))) TH_LOG("root: %s", msg);
}

/* ---- kprof.ko loaded with group=GRANT_GID ---- */

FIXTURE(granted) {
	int loaded;
};

FIXTURE_SETUP(granted)
{
	self->loaded = 0;
	if (getuid() != 0 || !getenv("KPROF_VM"))
		SKIP(return, "reloads kprof.ko: test-bed VM only");
	KP_LOAD_GRANTED(GRANT_GID);
	self->loaded = 1;
}

FIXTURE_TEARDOWN(granted)
{
	if (!self->loaded)
		return;
	kp_rmmod();
	kp_insmod();
}

TEST_F(granted, node_is_group_rw)
{
	struct stat st;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, stat(KP_DEV, &st));
	EXPECT_EQ(0660, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(GRANT_GID, st.st_gid);
}

TEST_F(granted, member_opens_others_do_not)
{
	gid_t grant = GRANT_GID, other = GRANT_GID + 1;
	char msg[512];
	int rc;

	KP_RETURN_IF_SKIPPED();
	rc = kp_as_nobody(&grant, 1, try_open, msg, sizeof(msg));
	EXPECT_EQ(0, rc) TH_LOG("member of %d: %s", GRANT_GID, msg);
	rc = kp_as_nobody(&other, 1, try_open, msg, sizeof(msg));
	EXPECT_EQ(EACCES, rc) TH_LOG("member of %d only: %s", other,
				     rc ? msg : "opened");
	/* Past the file mode too: kprof itself checks the group. */
	ASSERT_EQ(0, chmod(KP_DEV, 0666));
	rc = kp_as_nobody(&other, 1, try_open, msg, sizeof(msg));
	EXPECT_EQ(EACCES, rc) TH_LOG("member of %d only, node 0666: %s",
				     other, rc ? msg : "opened");
}

static int throttle_call(int fd, struct kprof_throttle_config *t)
{
	t->size = sizeof(*t);
	return ioctl(fd, KPROF_IOC_SET_THROTTLE, t) ? errno : 0;
}

/*
 * The knobs are every session's, applied at once to running ones too: a
 * change is CAP_SYS_ADMIN's (the debug setting and the rest alike);
 * repeating the values in force changes nothing and is the group's.
 */
static int granted_knobs(char *msg, size_t len)
{
	struct kprof_throttle_config cur = { .size = sizeof(cur) }, t;
	int fd, rc;

	fd = kp_open();
	CHILD_EXPECT(fd >= 0, "open: %s", strerror(errno));
	CHILD_EXPECT(!ioctl(fd, KPROF_IOC_GET_THROTTLE, &cur),
		     "GET_THROTTLE: %s", strerror(errno));

	t = cur;
	rc = throttle_call(fd, &t);
	CHILD_EXPECT(rc == 0, "SET_THROTTLE of the current values: %s",
		     strerror(rc));
	t = cur;
	t.max_sample_rate = cur.max_sample_rate / 2;
	rc = throttle_call(fd, &t);
	CHILD_EXPECT(rc == EPERM, "SET_THROTTLE max_sample_rate %u: %s",
		     t.max_sample_rate, rc ? strerror(rc) : "accepted");
	t = cur;
	t.semantics = cur.semantics == KPROF_THROTTLE_GE ? KPROF_THROTTLE_GT : KPROF_THROTTLE_GE;
	rc = throttle_call(fd, &t);
	CHILD_EXPECT(rc == EPERM, "SET_THROTTLE semantics %u: %s", t.semantics,
		     rc ? strerror(rc) : "accepted");

	t = cur;
	t.cpu_time_max_percent = 0;
	rc = throttle_call(fd, &t);
	CHILD_EXPECT(rc == EPERM, "SET_THROTTLE cpu_time_max_percent 0: %s",
		     rc ? strerror(rc) : "accepted");
	t = cur;
	t.cpu_time_max_percent = 100;
	rc = throttle_call(fd, &t);
	CHILD_EXPECT(rc == EPERM, "SET_THROTTLE cpu_time_max_percent 100: %s",
		     rc ? strerror(rc) : "accepted");
	close(fd);
	return 0;
}

TEST_F(granted, knob_changes_need_admin)
{
	gid_t grant = GRANT_GID;
	char msg[512];

	KP_RETURN_IF_SKIPPED();
	EXPECT_EQ(0, kp_as_nobody(&grant, 1, granted_knobs, msg, sizeof(msg)))
		TH_LOG("%s", msg);
}

/*
 * Beyond mlock_kb per online CPU (default 516 KiB) the buffers are
 * charged to RLIMIT_MEMLOCK, here 0: EPERM, as perf's mmap().  Sizes:
 * 16 pages per CPU is (16 + 1) * 4 KiB = 68 KiB a CPU, within; 4096 pages
 * is 16 MiB a CPU, beyond.
 */
static int granted_memory(char *msg, size_t len)
{
	struct rlimit rl = { 0, 0 };
	struct kprof_config cfg;
	int fd;

	CHILD_EXPECT(!setrlimit(RLIMIT_MEMLOCK, &rl), "RLIMIT_MEMLOCK 0: %s",
		     strerror(errno));
	fd = kp_open();
	CHILD_EXPECT(fd >= 0, "open: %s", strerror(errno));
	kp_cfg_init(&cfg, 100);
	cfg.buffer_pages = 4096;
	CHILD_EXPECT(kp_set_config(fd, &cfg) && errno == EPERM,
		     "SET_CONFIG of 4096 pages per CPU: %s",
		     errno ? strerror(errno) : "accepted");
	cfg.buffer_pages = 16;
	CHILD_EXPECT(!kp_set_config(fd, &cfg),
		     "SET_CONFIG of 16 pages per CPU: %s", strerror(errno));
	close(fd);
	return 0;
}

TEST_F(granted, memory_limit)
{
	gid_t grant = GRANT_GID;
	char msg[512];

	KP_RETURN_IF_SKIPPED();
	EXPECT_EQ(0, kp_as_nobody(&grant, 1, granted_memory, msg, sizeof(msg)))
		TH_LOG("%s", msg);
}

/* root: CAP_IPC_LOCK lifts the limit; CAP_SYS_ADMIN the debug setting. */
TEST_F(granted, admin_may)
{
	struct kprof_throttle_config t = { .size = sizeof(t) };
	struct kprof_config cfg;
	__u32 pct;
	int fd;

	KP_RETURN_IF_SKIPPED();
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	kp_cfg_init(&cfg, 100);
	cfg.buffer_pages = 4096;
	EXPECT_EQ(0, kp_set_config(fd, &cfg)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, KPROF_IOC_GET_THROTTLE, &t));
	pct = t.cpu_time_max_percent;
	t.cpu_time_max_percent = 0;
	EXPECT_EQ(0, ioctl(fd, KPROF_IOC_SET_THROTTLE, &t))
		TH_LOG("%s", strerror(errno));
	t.cpu_time_max_percent = pct;
	EXPECT_EQ(0, ioctl(fd, KPROF_IOC_SET_THROTTLE, &t));
	close(fd);
}

TEST_HARNESS_MAIN
