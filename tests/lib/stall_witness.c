// SPDX-License-Identifier: GPL-2.0
/*
 * stall_witness.c - a witness for a command that stalls (stall_witness.h).
 *
 * Test-only: reads other processes' /proc/PID/stack (root in the guest).
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "stall_witness.h"

#define STALL_WITNESS_MAX_PROCS	32768

/* PID's parent from /proc/PID/stat, or -1 (the process is gone). */
static int stall_witness_ppid(int pid)
{
	char path[64], buf[512], *rp;
	int ppid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	/* "pid (comm) S ppid ...": comm may hold spaces and parentheses. */
	if (fgets(buf, sizeof(buf), f)) {
		rp = strrchr(buf, ')');
		if (rp && sscanf(rp + 1, " %*c %d", &ppid) != 1)
			ppid = -1;
	}
	fclose(f);
	return ppid;
}

/* Copy file PATH to stderr (only lines starting with KEY, if any), prefixed. */
static void stall_witness_file(const char *path, const char *key, const char *prefix)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!key || !strncmp(line, key, strlen(key)))
			fprintf(stderr, "%s%s%s", prefix, line,
				line[strlen(line) - 1] == '\n' ? "" : "\n");
	fclose(f);
}

/* Copy /proc/PID/NAME to stderr, as stall_witness_file(). */
static void stall_witness_cat(int pid, const char *name, const char *key,
			      const char *prefix)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	stall_witness_file(path, key, prefix);
}

/* One report: every process whose parent chain reaches this one. */
static void stall_witness_report(const char *what, double waited)
{
	/*
	 * /proc lists every process, kernel threads first (low pids): ours
	 * come last, so the table must hold them all, not the first few.
	 */
	static int pids[STALL_WITNESS_MAX_PROCS], ppids[STALL_WITNESS_MAX_PROCS];
	int n = 0, i, j, found, self = getpid();
	struct dirent *de;
	DIR *d = opendir("/proc");

	fprintf(stderr, "# stall witness: '%s' still running after %.0f s; its processes:\n",
		what, waited);
	if (!d)
		return;
	while ((de = readdir(d)) && n < STALL_WITNESS_MAX_PROCS) {
		int pid = atoi(de->d_name);

		if (pid > 0 && pid != self) {
			pids[n] = pid;
			ppids[n++] = stall_witness_ppid(pid);
		}
	}
	closedir(d);
	/* Mark descendants by turning their ppid into 'self', to a fixed point. */
	do {
		found = 0;
		for (i = 0; i < n; i++) {
			if (ppids[i] == self || ppids[i] <= 0)
				continue;
			for (j = 0; j < n; j++)
				if (pids[j] == ppids[i] && ppids[j] == self) {
					ppids[i] = self;
					found = 1;
				}
		}
	} while (found);
	for (i = 0; i < n; i++) {
		if (ppids[i] != self)
			continue;
		fprintf(stderr, "# stall witness: pid %d\n", pids[i]);
		stall_witness_cat(pids[i], "comm", NULL, "#   comm: ");
		stall_witness_cat(pids[i], "status", "State:", "#   ");
		stall_witness_cat(pids[i], "wchan", NULL, "#   wchan: ");
		stall_witness_cat(pids[i], "syscall", NULL, "#   syscall: ");
		stall_witness_cat(pids[i], "stack", NULL, "#   stack: ");
	}
	/*
	 * The test bed's serial ports carry the guest's output and the
	 * export channel (tests/vm/run): a port whose interrupts stopped
	 * shows tx counts and an interrupt count that no longer move.
	 */
	stall_witness_file("/proc/tty/driver/serial", NULL, "#   tty/driver/serial: ");
	stall_witness_file("/proc/interrupts", NULL, "#   interrupts: ");
}

/* Seconds since T0. */
static double stall_witness_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - t0->tv_sec + (t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * Until some child of ours has ended (not reaped: pclose() does that),
 * reporting on the same schedule.  A command's output can end long before
 * it does: a shell that execs `tar ... >/dev/ttyS4` as its last command
 * closes the pipe before tar writes a byte.
 */
static void stall_witness_wait(const char *what, const struct timespec *t0, double *next)
{
	siginfo_t si;

	for (;;) {
		double waited = stall_witness_since(t0);

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) || si.si_pid)
			return;
		if (waited >= *next) {
			stall_witness_report(what, waited);
			*next += STALL_WITNESS_S;
		}
		usleep(100000);
	}
}

/*
 * All of popen stream P (running WHAT) into a malloc'd NUL-terminated
 * buffer, then wait until the command has ended (pclose() reaps it);
 * *LEN gets the output's length.  NULL when out of memory or on a read
 * error.  Reads the fd directly: stdio's buffer would hide data from poll.
 */
char *stall_witness_read(FILE *p, const char *what, size_t *len)
{
	size_t cap = 1 << 16;
	char *buf = malloc(cap + 1);
	struct pollfd pfd = { .fd = fileno(p), .events = POLLIN };
	struct timespec t0;
	double next = STALL_WITNESS_S;

	*len = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (buf) {
		ssize_t n;
		int r = poll(&pfd, 1, 1000);

		if (r < 0 && errno != EINTR)
			break;
		if (stall_witness_since(&t0) >= next) {
			stall_witness_report(what, stall_witness_since(&t0));
			next += STALL_WITNESS_S;
		}
		if (r <= 0)
			continue;
		n = read(pfd.fd, buf + *len, cap - *len);
		if (n == 0) {
			buf[*len] = '\0';
			stall_witness_wait(what, &t0, &next);
			return buf;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		*len += n;
		if (*len == cap) {
			char *bigger = realloc(buf, 2 * cap + 1);

			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
	}
	free(buf);
	return NULL;
}
