// SPDX-License-Identifier: GPL-2.0
/*
 * dwarf_unwind_test: kprofcat -i unwinds DWARF stack snapshots into the
 * user call chains perf script prints for the same samples.
 *
 * perf records one of Debian's own programs, stripped and built without
 * frame pointers (perl, python3, xz), with --call-graph dwarf,8192
 * (cpu-clock: no PMU needed); bench/perf2kpcap carries the samples, user
 * registers and stack bytes included, into a capture; kprofcat -i unwinds
 * them (lib/unwind) and prints them.  Per sample (paired by time and CPU),
 * the frame lines must be perf script's for at least 99.5% of samples,
 * and most chains must reach the program's entry, libc's
 * __libc_start_call_main (with unwinding off a chain is its first frame
 * alone, and both fail).  perf script runs with --no-inline: kprofcat
 * does not print inline frames (in any mode), which perf reads from debug
 * info such as libc6-dbg's.  The workloads, the recording and the
 * comparison are tests/lib/dwarf_rec.c's.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "kselftest_harness.h"

#include "cmd_output.h"
#include "dwarf_rec.h"

static char tests_dir[PATH_MAX], user_dir[PATH_MAX + 16];

FIXTURE(dwarf) {
	char dir[64];
};

FIXTURE_VARIANT(dwarf) {
	const struct dwarf_workload *w;
};

FIXTURE_VARIANT_ADD(dwarf, perl) { .w = &dwarf_perl };
FIXTURE_VARIANT_ADD(dwarf, python3) { .w = &dwarf_python3 };
FIXTURE_VARIANT_ADD(dwarf, xz) { .w = &dwarf_xz };

FIXTURE_SETUP(dwarf)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/kprofcat-dwarf-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_EQ(0, cmd_dirs(tests_dir, sizeof(tests_dir), user_dir, sizeof(user_dir)));
}

FIXTURE_TEARDOWN(dwarf)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

TEST_F(dwarf, chains_are_perf_scripts)
{
	struct dwarf_cmp c;
	char why[128];
	int ret;

	ret = dwarf_record(self->dir, tests_dir, variant->w, why, sizeof(why));
	if (ret > 0)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, cmd_run("%s/kprofcat -i %s/c.kpcap >%s/k.txt 2>%s/k.err", user_dir, self->dir,
			     self->dir, self->dir));
	ASSERT_EQ(0, cmd_run("perf script --no-inline -i %s/perf.data >%s/p.txt 2>/dev/null",
			     self->dir, self->dir));
	ASSERT_EQ(0, dwarf_compare(self->dir, "k.txt", "p.txt", &c));
	TH_LOG("%s: %llu samples, %llu (%.2f%%) with perf script's frames, %llu (%.1f%%) reaching the entry",
	       variant->w->prog, c.samples, c.same, c.samples ? 100.0 * c.same / c.samples : 0,
	       c.entry, c.samples ? 100.0 * c.entry / c.samples : 0);
	ASSERT_GE(c.samples, 100);
	EXPECT_GE(c.same * 1000, c.samples * 995);
	EXPECT_GE(c.entry * 100, c.samples * variant->w->entry_pct);
}

TEST_HARNESS_MAIN
