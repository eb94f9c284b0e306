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
 * alone, and both fail): kprofcat -i against perf script as it is, with
 * the inline frames both read from debug info such as libc6-dbg's, and
 * kprofcat --no-inline against perf script --no-inline.  The same
 * recordings check the other
 * readers of a DWARF capture: perf script on `kprofcat convert
 * --to-perf-data`'s file, and every output.  The workloads, the
 * recording and the comparison are tests/lib/dwarf_rec.c's.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "cmd_output.h"
#include "dwarf_rec.h"

static char tests_dir[PATH_MAX], user_dir[PATH_MAX + 16];

FIXTURE(dwarf) {
	char dir[64];
	char skip[128];		/* why the recording could not be made here */
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
	/* Each test skips on its own: a SKIP here would not end it. */
	ASSERT_LE(0, dwarf_record(self->dir, tests_dir, variant->w, self->skip,
				  sizeof(self->skip)));
}

FIXTURE_TEARDOWN(dwarf)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

/*
 * perf script OPTS of the recording against the frames in A (a file of
 * DIR), sample for sample, logged with WHAT the agreement means.
 */
static void compare(struct __test_metadata *_metadata, const char *dir,
		    const struct dwarf_workload *w, const char *opts, const char *a,
		    const char *what, struct dwarf_cmp *c)
{
	ASSERT_EQ(0, cmd_run("perf script %s -i %s/perf.data >%s/p.txt 2>/dev/null",
			     opts, dir, dir));
	ASSERT_EQ(0, dwarf_compare(dir, a, "p.txt", c));
	TH_LOG("%s: %llu samples, %llu (%.2f%%) %s, %llu (%.1f%%) reaching the entry",
	       w->prog, c->samples, c->same, c->samples ? 100.0 * c->same / c->samples : 0,
	       what, c->entry, c->samples ? 100.0 * c->entry / c->samples : 0);
	ASSERT_GE(c->samples, 100);
	EXPECT_GE(c->entry * 100, c->samples * w->entry_pct);
}

TEST_F(dwarf, chains_are_perf_scripts)
{
	struct dwarf_cmp c;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, cmd_run("%s/kprofcat -i %s/c.kpcap >%s/k.txt 2>%s/k.err", user_dir, self->dir,
			     self->dir, self->dir));
	compare(_metadata, self->dir, variant->w, "", "k.txt",
		"with perf script's frames, inline frames included", &c);
	EXPECT_GE(c.same * 1000, c.samples * 995);
	ASSERT_EQ(0, cmd_run("%s/kprofcat --no-inline -i %s/c.kpcap >%s/k.txt 2>%s/k.err",
			     user_dir, self->dir, self->dir, self->dir));
	compare(_metadata, self->dir, variant->w, "--no-inline", "k.txt",
		"with perf script --no-inline's frames", &c);
	EXPECT_GE(c.same * 1000, c.samples * 995);
}

/*
 * `kprofcat convert --to-perf-data` of the capture: perf script unwinds
 * the file itself, from the user registers and stack it holds (attr
 * sample_regs_user, sample_stack_user) and the DSOs its maps name, into
 * the frames it prints for the original recording, sample for sample.
 * Without the snapshot a chain is its IP alone, and both checks fail.
 */
TEST_F(dwarf, perf_script_unwinds_the_converted_file)
{
	struct dwarf_cmp c;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, cmd_run("%s/kprofcat convert --to-perf-data %s/k.data -i %s/c.kpcap",
			     user_dir, self->dir, self->dir));
	ASSERT_EQ(0, cmd_run("perf evlist -v -i %s/k.data 2>/dev/null | grep -q 'REGS_USER|STACK_USER.*sample_regs_user: 0xff0fff, sample_stack_user: 8192'",
			     self->dir));
	ASSERT_EQ(0, cmd_run("perf script --no-inline -i %s/k.data >%s/c.txt 2>/dev/null",
			     self->dir, self->dir));
	compare(_metadata, self->dir, variant->w, "--no-inline", "c.txt",
		"unwound from the converted file as from the recording", &c);
	EXPECT_EQ(c.samples, c.same);
}

/* The number the shell command FMT prints; -1 if it fails or prints none. */
static double cmd_number(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX], *out;
	double v = -1;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	out = cmd_output(cmd);
	if (!out || sscanf(out, "%lf", &v) != 1)
		v = -1;
	free(out);
	return v;
}

/*
 * Every output of the capture is made of the unwound chains, not of the
 * sample's IP: the samples whose chain passes through libc's
 * __libc_start_call_main in kprofcat -i's text are as many in --folded's
 * stacks, in the flame graph's frame, in the pprof file's cumulative
 * count, and --report -g's Children share (by period) is theirs (by
 * count) within a point, with the program's main (or what it calls)
 * below it in the graph.
 */
TEST_F(dwarf, every_output_holds_the_unwound_chains)
{
	const char *d = self->dir, *u = user_dir;
	double n, entry, share;
	char cmd[2 * PATH_MAX], *rep, *row, *end;
	const char *callee;

	if (self->skip[0])
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, cmd_run("%s/kprofcat -i %s/c.kpcap >%s/k.txt 2>/dev/null", u, d, d));
	n = cmd_number("grep -c -v -E '^(\t|#|$)' %s/k.txt", d);
	entry = cmd_number("grep -c '\t *[0-9a-f]* __libc_start_call_main+' %s/k.txt", d);
	TH_LOG("%s: %.0f samples, %.0f through __libc_start_call_main", variant->w->prog, n, entry);
	ASSERT_GE(entry * 100, n * variant->w->entry_pct);
	EXPECT_EQ(entry, cmd_number("%s/kprofcat -i %s/c.kpcap --folded 2>/dev/null | awk '/;__libc_start_call_main;/ { s += $NF } END { print s + 0 }'",
				    u, d));
	EXPECT_EQ(0, cmd_run("%s/kprofcat -i %s/c.kpcap --flamegraph %s/f.svg 2>/dev/null",
			     u, d, d));
	EXPECT_EQ(entry, cmd_number("grep -o '<title>__libc_start_call_main ([0-9]*' %s/f.svg | awk -F'(' '{ s += $2 } END { print s + 0 }'",
				    d));
	snprintf(cmd, sizeof(cmd), "%s/kprofcat -i %s/c.kpcap --report -g 2>/dev/null", u, d);
	rep = cmd_output(cmd);
	ASSERT_NE(NULL, rep);
	row = strstr(rep, "[.] __libc_start_call_main\n");
	EXPECT_NE(NULL, row);
	if (row) {
		while (row > rep && row[-1] != '\n')
			row--;
		share = strtod(row, NULL);
		EXPECT_LE(fabs(share - 100.0 * entry / n), 1.0)
			TH_LOG("--report's row: %.60s", row);
		end = strstr(row, "\n\n");
		if (end)
			*end = '\0';
		callee = strstr(row, "---__libc_start_call_main\n");
		callee = callee ? callee + strlen("---__libc_start_call_main\n") : "";
		/* Past the graph's branch marks ("|", "--97.48%--"), its first callee. */
		callee += strspn(callee, " |-0123456789.%\n");
		EXPECT_TRUE(isalpha(*callee) || *callee == '_' || *callee == '[')
			TH_LOG("--report -g's graph of the row: %s", row);
	}
	free(rep);
	if (cmd_run("command -v go >/dev/null"))
		SKIP(return, "no go: pprof not read");
	ASSERT_EQ(0, cmd_run("%s/kprofcat convert --to-pprof %s/p.pb.gz -i %s/c.kpcap", u, d, d));
	EXPECT_EQ(entry, cmd_number("HOME=/tmp GOCACHE=/tmp/kprofcat-gocache go tool pprof -symbolize=none -sample_index=0 -top -cum -nodefraction=0 -nodecount=100000 %s/p.pb.gz 2>/dev/null | awk '$NF == \"__libc_start_call_main\" { print $4 }'",
				    d));
}

TEST_HARNESS_MAIN
