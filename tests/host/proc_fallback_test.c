// SPDX-License-Identifier: GPL-2.0
/*
 * proc_fallback_test: without side band, kprofcat learns a process's maps
 * from /proc/PID/maps when it first sees the pid and again when the pid's
 * comm changes (an exec).  The new maps date from just after the pid's
 * newest sample under the old comm, not from the sample that showed the new
 * comm: another CPU's ring, read later, may hold earlier samples of the new
 * image, and a map dated after a sample is not used for it (as perf does).
 * A real process execs sleep between the two reads; the test feeds the
 * session samples as two CPUs' rings would hand them over, then checks
 * that kprofcat -i, and perf script on the converted file, put both samples
 * of the new image in its binary.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "lib/capture/capture.h"
#include "lib/symbols/ksyms.h"
#include "lib/stream/session.h"
#include "lib/symbols/usyms.h"
#include "lib/util/print.h"
#include "cmd_output.h"
#include "synth.h"

static char kprofcat[PATH_MAX];

/* Start of PID's executable mapping of PATH, 0 if it has none (yet). */
static uint64_t text_start(pid_t pid, const char *path)
{
	char maps[64], line[PATH_MAX + 128], perms[8], file[PATH_MAX];
	unsigned long long start, end;
	uint64_t found = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	f = fopen(maps, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095s", &start, &end, perms,
			   file) == 4 && perms[2] == 'x' && !strcmp(file, path))
			found = start;
	fclose(f);
	return found;
}

FIXTURE(exec) {
	pid_t child;
	int go;
	char sleep_path[PATH_MAX];
	char cap[64];
};

FIXTURE_SETUP(exec)
{
	int fds[2], fd;
	char c;

	snprintf(kprofcat, sizeof(kprofcat), "%s/user/kprofcat", KPROF_TREE);
	ASSERT_EQ(0, access(kprofcat, X_OK)) TH_LOG("build user/kprofcat first");
	ASSERT_NE(NULL, realpath("/bin/sleep", self->sleep_path));
	strcpy(self->cap, "/tmp/kprofcat-fallback-XXXXXX");
	fd = mkstemp(self->cap);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, pipe(fds));
	self->child = fork();
	ASSERT_LE(0, self->child);
	if (!self->child) {
		close(fds[1]);
		/* Held in the test binary's image until the test says go. */
		if (read(fds[0], &c, 1) == 1)
			execl(self->sleep_path, "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	self->go = fds[1];
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(exec)
{
	char cmd[512];

	kill(self->child, SIGKILL);
	waitpid(self->child, NULL, 0);
	close(self->go);
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s.data %s.data.kallsyms %s.data.symfs", self->cap,
		 self->cap, self->cap, self->cap);
	if (system(cmd))
		TH_LOG("cleaning up %s failed", self->cap);
}

TEST_F(exec, new_image_samples_read_late_still_resolve)
{
	struct session_opts so = { .window_ns = 1000000, .proc_fallback = 1 };
	uint64_t text = 0, ip = 0x1000;
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	char want[PATH_MAX + 8], cmd[3 * PATH_MAX], *txt;
	struct capture_writer *w;
	unsigned char buf[512];
	struct session *s;
	int i;
	size_t n;

	w = capture__create(self->cap);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, capture__write(w, KPCAP_META, 0, "event=cpu-clock\n", 16));
	so.cap = w;
	s = session__new(&so, ksyms__new("", 0));
	ASSERT_NE(NULL, s);
	/* CPU 0, t = 1 ms: the pid first seen, still in the test binary. */
	n = synth_sample(buf, 1, 1000000, 0, self->child, "fallback_old", KPROF_MISC_USER,
			 &ip, 0, 1);
	ASSERT_EQ(0, session__record(s, 0, buf, n));
	ASSERT_EQ(1, write(self->go, "g", 1));
	/* Exec maps the binary before the first user instruction: 10 s is plenty. */
	for (i = 0; i < 1000 && !(text = text_start(self->child, self->sleep_path)); i++)
		nanosleep(&pause, NULL);
	ASSERT_NE(0, text) TH_LOG("%s never mapped in pid %d", self->sleep_path, self->child);
	ip = text + 0x10;
	/* CPU 0's ring, read first: the new comm at t = 3 ms. */
	n = synth_sample(buf, 2, 3000000, 0, self->child, "sleep", KPROF_MISC_USER, &ip, 0, 1);
	ASSERT_EQ(0, session__record(s, 0, buf, n));
	/* CPU 1's, read after: the new image already ran there at t = 2 ms. */
	n = synth_sample(buf, 1, 2000000, 1, self->child, "sleep", KPROF_MISC_USER, &ip, 0, 1);
	ASSERT_EQ(0, session__record(s, 1, buf, n));
	ASSERT_EQ(0, session__flush(s, 1));
	ASSERT_EQ(0, session__save_dsos(s, w));
	session__free(s);
	ASSERT_EQ(0, capture__close(w));

	snprintf(want, sizeof(want), "(%s)\n", self->sleep_path);
	snprintf(cmd, sizeof(cmd), "%s -i %s", kprofcat, self->cap);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_EQ(2, count_occurrences(txt, want)) TH_LOG("want 2 frames in %s:\n%s", want, txt);
	free(txt);
	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf) for the converted file: make deps");
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s.data -i %s 2>/dev/null", kprofcat,
		 self->cap, self->cap);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "perf script -i %s.data --symfs %s.data.symfs -F ip,sym,symoff,dso 2>/dev/null",
		 self->cap, self->cap);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_EQ(2, count_occurrences(txt, want)) TH_LOG("want 2 frames in %s:\n%s", want, txt);
	free(txt);
}

TEST_HARNESS_MAIN
