// SPDX-License-Identifier: GPL-2.0
/*
 * side_by_side_test - two engineers profiling at once: two kprofcat
 * recordings started together, each of its own command,
 *
 *   kprofcat -o A -- tests/progs/spin 3
 *   kprofcat -o B -- tests/progs/hot3 3
 *
 * (per-task sessions, one per kprofcat, "Sessions" in
 * include/uapi/linux/kprof.h).  Both succeed; every sample of a capture
 * is of one process, its command's: named after the command, or
 * "kprofcat" (the child kprofcat forked, before its exec); the two
 * processes differ; each capture accounts for every overflow of its
 * session (its STATS: overflows = samples + lost by cause) and holds
 * every sample it delivered.  The recordings must have overlapped for
 * this to say anything: the samples' times show whether they did (SKIP,
 * naming both spans, when not).
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <signal.h>

#include "kselftest_harness.h"

#include "stats_json.h"

#define KPROFCAT	"user/kprofcat"
#define CAP_A		"/tmp/side_by_side_a.kpcap"
#define CAP_B		"/tmp/side_by_side_b.kpcap"
#define OUT_BYTES	(8 << 20)

/* What one capture's samples say. */
struct span {
	long samples;		/* sample header lines */
	long of_cmd;		/* named after the command */
	long before_exec;	/* named kprofcat, the command's pid */
	long other;		/* anything else: the first one in @other_line */
	int pid;		/* the command's (the first sample's) */
	double first, last;	/* sample times, seconds */
	char other_line[160];
};

/* Start `sh -c @cmd`, its output to /dev/null; the pid, or -1. */
static pid_t spawn(const char *cmd)
{
	pid_t pid = fork();

	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int exit_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* popen(@cmd)'s whole output into @buf (NUL-terminated); its status. */
static int slurp(const char *cmd, char *buf, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	if (!p)
		return -1;
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	return pclose(p);
}

/*
 * Sample header lines of kprofcat's script text ("COMM PID/TID [CPU]
 * TIME: PERIOD EVENT:", output_script.c) against the command's name.
 */
static void scan_samples(char *text, const char *comm, struct span *sp)
{
	char *line, *save = NULL;

	memset(sp, 0, sizeof(*sp));
	sp->pid = -1;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[32];
		int pid, tid, cpu;
		double t;

		if (line[0] == '#' || line[0] == ' ' || line[0] == '\t' ||
		    sscanf(line, "%31s %d/%d [%d] %lf:", name, &pid, &tid,
			   &cpu, &t) != 5)
			continue;
		if (!sp->samples++) {
			sp->pid = pid;
			sp->first = t;
		}
		sp->last = t;
		if (pid == sp->pid && !strcmp(name, comm))
			sp->of_cmd++;
		else if (pid == sp->pid && !strcmp(name, "kprofcat"))
			sp->before_exec++;
		else if (!sp->other++)
			snprintf(sp->other_line, sizeof(sp->other_line), "%s", line);
	}
}

/* The capture's STATS: its session's overflows, all accounted for. */
static void check_accounts(struct __test_metadata *_metadata, const char *cap,
			   char *buf)
{
	struct stats_json st;
	char cmd[256];

	snprintf(cmd, sizeof(cmd), KPROFCAT " -i %s --stats --json", cap);
	ASSERT_EQ(0, slurp(cmd, buf, OUT_BYTES)) TH_LOG("%s: %s", cmd, buf);
	ASSERT_EQ(0, stats_json_parse(buf, &st)) TH_LOG("%s", buf);
	ASSERT_LT(0, st.samples) TH_LOG("%s", buf);
	EXPECT_EQ(st.overflows, st.samples + st.lost) TH_LOG("%s", buf);
	/* The capture holds every sample the session delivered. */
	EXPECT_EQ(st.samples, st.read) TH_LOG("%s", buf);
	TH_LOG("%s: overflows %lld = samples %lld + lost %lld; %lld in the capture",
	       cap, st.overflows, st.samples, st.lost, st.read);
}

/* The capture's samples: all of one process, the command's. */
static void check_samples(struct __test_metadata *_metadata, const char *cap,
			  const char *comm, char *buf, struct span *sp)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), KPROFCAT " -i %s", cap);
	ASSERT_EQ(0, slurp(cmd, buf, OUT_BYTES)) TH_LOG("%s failed", cmd);
	scan_samples(buf, comm, sp);
	TH_LOG("%s: %ld samples, pid %d: %ld %s, %ld before its exec, %ld of anything else",
	       cap, sp->samples, sp->pid, sp->of_cmd, comm, sp->before_exec,
	       sp->other);
	ASSERT_LT(0, sp->of_cmd) TH_LOG("no sample of %s in %s", comm, cap);
	EXPECT_EQ(0, sp->other) TH_LOG("first foreign sample: %s", sp->other_line);
}

FIXTURE(two) {
	char *buf;
};

FIXTURE_SETUP(two)
{
	int fd = kp_open();

	self->buf = NULL;
	if (fd < 0)
		SKIP(return, "%s: %s (kprof.ko not loaded?)", KP_DEV, strerror(errno));
	close(fd);
	if (access(KPROFCAT, X_OK))
		SKIP(return, "%s not built (run from the repository)", KPROFCAT);
	self->buf = malloc(OUT_BYTES);
	ASSERT_NE(NULL, self->buf);
}

FIXTURE_TEARDOWN(two)
{
	free(self->buf);
	unlink(CAP_A);
	unlink(CAP_B);
}

TEST_F_TIMEOUT(two, recordings_at_once_each_of_its_own_command, 120)
{
	struct span a, b;
	pid_t pa, pb;
	int ra, rb;

	KP_RETURN_IF_SKIPPED();
	pa = spawn(KPROFCAT " -F 997 -o " CAP_A " -- tests/progs/spin 3");
	pb = spawn(KPROFCAT " -F 997 -o " CAP_B " -- tests/progs/hot3 3");
	ASSERT_LT(0, pa);
	ASSERT_LT(0, pb);
	ra = exit_status(pa);
	rb = exit_status(pb);
	ASSERT_EQ(0, ra) TH_LOG("the spin recording failed");
	ASSERT_EQ(0, rb) TH_LOG("the hot3 recording failed");

	check_samples(_metadata, CAP_A, "spin", self->buf, &a);
	check_samples(_metadata, CAP_B, "hot3", self->buf, &b);
	EXPECT_NE(a.pid, b.pid);
	check_accounts(_metadata, CAP_A, self->buf);
	check_accounts(_metadata, CAP_B, self->buf);
	/* SAMPLE times are local_clock()'s, one clock on every CPU here. */
	TH_LOG("spin sampled %.3f-%.3f s, hot3 %.3f-%.3f s", a.first, a.last,
	       b.first, b.last);
	if (a.last < b.first || b.last < a.first)
		SKIP(return, "the recordings did not overlap (spin %.3f-%.3f s, hot3 %.3f-%.3f s): nothing shown side by side",
		     a.first, a.last, b.first, b.last);
}

TEST_HARNESS_MAIN
