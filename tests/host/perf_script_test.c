// SPDX-License-Identifier: GPL-2.0
/*
 * perf_script_test: kprofcat -i prints the frames perf script prints.
 *
 * perf records a program on this host (cpu-clock needs no PMU and no
 * module), bench/perf2kpcap turns the same samples into a kprofcat
 * capture, and the two texts are compared by bench/framediff: every frame
 * line of every sample must be identical (sample headers differ by design:
 * kprofcat prints pid/tid, perf script's default the tid).  The variants
 * cover deep user stacks (fixedwork) and a libc-, ld.so- and kernel-heavy
 * pipeline (fork, exec, sort, dd: the aliases perf chooses among).
 */
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "cmd_output.h"

static char tests_dir[PATH_MAX], user_dir[PATH_MAX + 16];

FIXTURE(perf) {
	char dir[64];
};

FIXTURE_VARIANT(perf) {
	const char *cmd;	/* %s: the tests/ directory */
};

FIXTURE_VARIANT_ADD(perf, deep_user_stacks) {
	.cmd = "%s/progs/fixedwork -j 1 -d 12 -n 300",
};

FIXTURE_VARIANT_ADD(perf, libc_ld_so_and_kernel) {
	.cmd = "sh -c 'seq 1 40000 | sort -R | md5sum; dd if=/dev/zero of=/dev/null bs=4k count=20000 2>/dev/null; ls -lR /usr/lib/x86_64-linux-gnu >/dev/null 2>&1'",
};

FIXTURE_SETUP(perf)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/kprofcat-perf-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, cmd_dirs(tests_dir, sizeof(tests_dir), user_dir, sizeof(user_dir)));
}

FIXTURE_TEARDOWN(perf)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

TEST_F(perf, frames_are_perf_scripts)
{
	unsigned long long na, nb, fa, fb, diff, reordered;
	char prog[2 * PATH_MAX], line[256] = "";
	FILE *f;

	if (cmd_run("command -v perf >/dev/null"))
		SKIP(return, "no perf (scripts/deps installs linux-perf)");
	snprintf(prog, sizeof(prog), variant->cmd, tests_dir);
	if (cmd_run("perf record -q -e cpu-clock -c 100000 -g --sample-cpu -o %s/perf.data -- %s >/dev/null 2>%s/record.err",
		    self->dir, prog, self->dir)) {
		cmd_run("cat %s/record.err >&2", self->dir);
		SKIP(return, "perf record failed (kernel.perf_event_paranoid?)");
	}
	ASSERT_EQ(0, cmd_run("perf report -D -i %s/perf.data 2>/dev/null | %s/tools/perf2kpcap %s/c.kpcap >/dev/null",
			     self->dir, tests_dir, self->dir));
	ASSERT_EQ(0, cmd_run("%s/kprofcat -i %s/c.kpcap >%s/k.txt 2>%s/k.err", user_dir, self->dir,
			     self->dir, self->dir));
	ASSERT_EQ(0, cmd_run("perf script -i %s/perf.data >%s/p.txt 2>/dev/null", self->dir,
			     self->dir));
	ASSERT_EQ(0, cmd_run("%s/tools/framediff %s/k.txt %s/p.txt >%s/diff 2>%s/diff.err",
			     tests_dir, self->dir, self->dir, self->dir, self->dir));
	snprintf(prog, sizeof(prog), "%s/diff", self->dir);
	f = fopen(prog, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	ASSERT_EQ(6, sscanf(line, "samples=%llu/%llu frames=%llu/%llu differing=%llu reordered=%llu",
			    &na, &nb, &fa, &fb, &diff, &reordered)) TH_LOG("framediff said: %s",
									   line);
	TH_LOG("%s", line);
	ASSERT_GT(nb, 0);
	EXPECT_EQ(nb, na);
	EXPECT_EQ(fb, fa);
	EXPECT_EQ(0, diff) {
		cmd_run("cat %s/diff.err >&2", self->dir);
	}
}

TEST_HARNESS_MAIN
