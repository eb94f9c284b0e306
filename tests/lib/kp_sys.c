// SPDX-License-Identifier: GPL-2.0
/*
 * kp_sys.c - the system around kprof for the in-guest tests (kp_sys.h).
 *
 * The tests run in the test-bed guest, where tests/vm/run lays the tree
 * out at /kprof as the repository does: a test at
 * <root>/tests/module/NAME, the test programs at <root>/tests/progs/, the
 * module at <root>/kmod/kprof.ko.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kp_sys.h"

void kp_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

double kp_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC in ns: the clock of hrtimer-driven (cpu-clock) events. */
unsigned long long kp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * On the icount clock (tests/vm/run --icount, one vCPU; tests/vm/init
 * exports KPROF_ICOUNT=1) a handler's time is its instruction count, which
 * no host stall stretches: a run the plain clock may not replay (a stalled
 * handler lowered the limits) or judge must replay and be judged there.
 */
int kp_icount(void)
{
	const char *v = getenv("KPROF_ICOUNT");

	return v && !strcmp(v, "1");
}

int kp_pin_self(unsigned int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* Online state from sysfs; a CPU without an 'online' file (cpu0) is on. */
int kp_cpu_online(unsigned int cpu)
{
	char path[64], v = '0';
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
		return access(path, F_OK) == 0;
	}
	if (read(fd, &v, 1) != 1)
		v = '0';
	close(fd);
	return v == '1';
}

/* Take @cpu offline (@on 0) or bring it online: 0, or -1 with errno. */
int kp_cpu_set_online(unsigned int cpu, int on)
{
	char path[64];
	int fd, ret, err;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/online", cpu);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, on ? "1" : "0", 1) == 1 ? 0 : -1;
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* Path of a helper program in tests/progs, next to tests/module. */
int kp_prog_path(char *buf, size_t len, const char *name)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	if ((size_t)snprintf(buf, len, "%s/../progs/%s", self, name) >= len)
		return -1;
	return access(buf, X_OK);
}

/*
 * The kprof.ko this test belongs to: $KPROF_KO, else <root>/kmod/kprof.ko
 * for a test at <root>/tests/module/NAME, else NULL.
 */
const char *kp_ko_path(void)
{
	static char path[4096 + sizeof("/kmod/kprof.ko")];
	char self[4096];
	ssize_t n;
	char *p;

	if (getenv("KPROF_KO"))
		return getenv("KPROF_KO");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return NULL;
	self[n] = '\0';
	p = strstr(self, "/tests/module/");
	if (!p)
		return NULL;
	*p = '\0';
	snprintf(path, sizeof(path), "%s/kmod/kprof.ko", self);
	return path;
}

int kp_module_loaded(void)
{
	return access("/sys/module/" KP_MODULE, F_OK) == 0;
}

/* insmod kp_ko_path() with module parameters: 0, or -1 with errno. */
int kp_insmod_params(const char *params)
{
	const char *path = kp_ko_path();
	int fd, ret, err;

	if (!path) {
		errno = ENOENT;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	err = errno;
	close(fd);
	errno = err;
	return ret;
}

/* insmod kp_ko_path(): 0, or -1 with errno. */
int kp_insmod(void)
{
	return kp_insmod_params("");
}

/* rmmod without waiting: 0, or -1 with errno (EBUSY/EWOULDBLOCK in use). */
int kp_rmmod(void)
{
	return syscall(SYS_delete_module, KP_MODULE, O_NONBLOCK);
}

/*
 * Run @fn in a child as uid/gid KP_NOBODY with @ngroups supplementary
 * groups; returns its exit code (-1 if it died), its message in @msg.
 */
int kp_as_nobody(const gid_t *groups, int ngroups, kp_child_fn fn,
		 char *msg, size_t len)
{
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	msg[0] = '\0';
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char buf[512] = "";
		int rc;

		close(pfd[0]);
		if (setgroups(ngroups, groups) || setgid(KP_NOBODY) ||
		    setuid(KP_NOBODY)) {
			snprintf(buf, sizeof(buf), "dropping to %d: %s", KP_NOBODY,
				 strerror(errno));
			rc = 100;
		} else {
			rc = fn(buf, sizeof(buf));
		}
		if (write(pfd[1], buf, strlen(buf)) < 0)
			rc = 101;
		_exit(rc);
	}
	close(pfd[1]);
	n = read(pfd[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * Run @fn as pid 1 of a new pid namespace, given its own pid in ours
 * (@outer, which it must not see in kprof's records); returns its exit
 * code (-1 if it or its parent died), its message in @msg.
 */
int kp_in_new_pidns(kp_ns_fn fn, char *msg, size_t len)
{
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	msg[0] = '\0';
	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int opid[2];
		pid_t inner;

		close(pfd[0]);
		if (unshare(CLONE_NEWPID) || pipe(opid))
			_exit(100);
		inner = fork();
		if (inner < 0)
			_exit(101);
		if (!inner) {
			char buf[512] = "";
			pid_t outer;
			int rc = 103;

			if (read(opid[0], &outer, sizeof(outer)) == sizeof(outer))
				rc = fn(outer, buf, sizeof(buf));
			if (write(pfd[1], buf, strlen(buf)) < 0)
				rc = 102;
			_exit(rc);
		}
		if (write(opid[1], &inner, sizeof(inner)) != sizeof(inner))
			_exit(103);
		_exit(waitpid(inner, &status, 0) == inner && WIFEXITED(status) ?
		      WEXITSTATUS(status) : 104);
	}
	close(pfd[1]);
	n = read(pfd[0], msg, len - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
