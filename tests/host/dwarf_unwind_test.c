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
 * alone, and both fail).  perf script runs with
 * --no-inline: kprofcat does not print inline frames (in any mode), which
 * perf reads from debug info such as libc6-dbg's.  Each program is perf's
 * own child, exec'd once: in a child that a shell forked and that exec'd
 * (sh -c 'a | b'), Debian's perf (libunwind) prints chains cut short or
 * missing frames for about a tenth of the samples, which kprofcat
 * unwinds to the entry as in these runs.
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

/*
 * Per sample of B (perf script), whether A (kprofcat) has one at the same
 * time and CPU with the same frame lines; and how many of A's chains end
 * in the program's entry.  Prints "samples=N same=S entry=E"; the first
 * few differing samples go to stderr.
 */
static const char compare_awk[] =
	"function key(   i) { for (i = 1; i < NF; i++) if ($i ~ /^\\[[0-9]+\\]$/) return $i \" \" $(i + 1); return $0 }\n"
	"function done() { if (k == \"\") return; if (kf == ARGV[1]) { a[k] = f; if (f ~ /__libc_start_call_main|_dl_start\\+|start_thread\\+/) entry++ }\n"
	"  else { n++; if ((k in a) && a[k] == f) same++; else if (shown++ < 3) printf \"%s\\n-- kprofcat:\\n%s-- perf script:\\n%s\", k, a[k], f > \"/dev/stderr\" }\n"
	"  k = \"\" }\n"
	"FNR == 1 { done() }\n"
	"/^\\t/ { f = f $0 \"\\n\"; next }\n"
	"/^$/ || /^#/ { next }\n"
	"{ done(); k = key(); kf = FILENAME; f = \"\" }\n"
	"END { done(); printf \"samples=%d same=%d entry=%d\\n\", n, same, entry }\n";

FIXTURE(dwarf) {
	char dir[64];
};

FIXTURE_VARIANT(dwarf) {
	const char *prog;	/* must exist */
	const char *cmd;	/* %s: the fixture's directory */
	int entry_pct;		/* chains reaching the entry, at least */
};

FIXTURE_VARIANT_ADD(dwarf, perl) {
	.prog = "/usr/bin/perl",
	.cmd = "/usr/bin/perl -e 'my $s = 0; for (1..2000000) { $s += sqrt($_) } print \"$s\\n\"'",
	.entry_pct = 90,
};

FIXTURE_VARIANT_ADD(dwarf, python3) {
	.prog = "/usr/bin/python3",
	.cmd = "/usr/bin/python3 -c 'import json\ns = 0\nfor i in range(150000): s += len(json.dumps({\"a\": i, \"b\": [i, str(i)]}))\nprint(s)'",
	.entry_pct = 50,	/* deep interpreter stacks outgrow 8 KiB */
};

FIXTURE_VARIANT_ADD(dwarf, xz) {
	.prog = "/usr/bin/xz",
	.cmd = "head -c 3000000 /dev/urandom >%1$s/in && /usr/bin/xz -6 -T1 -c %1$s/in",
	.entry_pct = 90,
};

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
	char cmd[2 * PATH_MAX], path[PATH_MAX], line[256] = "";
	unsigned long long n = 0, same = 0, entry = 0;
	FILE *f;

	if (cmd_run("command -v perf >/dev/null"))
		SKIP(return, "no perf (scripts/deps installs linux-perf)");
	if (access(variant->prog, X_OK))
		SKIP(return, "no %s", variant->prog);
	snprintf(cmd, sizeof(cmd), variant->cmd, self->dir);
	/* The workload's setup (xz's input) outside the recording. */
	if (strstr(cmd, " && ")) {
		ASSERT_EQ(0, cmd_run("%.*s", (int)(strstr(cmd, " && ") - cmd), cmd));
		memmove(cmd, strstr(cmd, " && ") + 4, strlen(strstr(cmd, " && ") + 4) + 1);
	}
	if (cmd_run("perf record -q -e cpu-clock --call-graph dwarf,8192 --sample-cpu -o %s/perf.data -- %s >/dev/null 2>%s/record.err",
		    self->dir, cmd, self->dir)) {
		cmd_run("cat %s/record.err >&2", self->dir);
		SKIP(return, "perf record failed (kernel.perf_event_paranoid?)");
	}
	ASSERT_EQ(0, cmd_run("perf report -D -i %s/perf.data 2>/dev/null | %s/tools/perf2kpcap %s/c.kpcap >/dev/null",
			     self->dir, tests_dir, self->dir));
	ASSERT_EQ(0, cmd_run("%s/kprofcat -i %s/c.kpcap >%s/k.txt 2>%s/k.err", user_dir, self->dir,
			     self->dir, self->dir));
	ASSERT_EQ(0, cmd_run("perf script --no-inline -i %s/perf.data >%s/p.txt 2>/dev/null",
			     self->dir, self->dir));
	snprintf(path, sizeof(path), "%s/compare.awk", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs(compare_awk, f);
	ASSERT_EQ(0, fclose(f));
	ASSERT_EQ(0, cmd_run("awk -f %s/compare.awk %s/k.txt %s/p.txt >%s/cmp",
			     self->dir, self->dir, self->dir, self->dir));
	snprintf(path, sizeof(path), "%s/cmp", self->dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	ASSERT_EQ(3, sscanf(line, "samples=%llu same=%llu entry=%llu", &n, &same, &entry))
		TH_LOG("the comparison said: %s", line);
	TH_LOG("%s: %llu samples, %llu (%.2f%) with perf script's frames, %llu (%.1f%) reaching the entry",
	       variant->prog, n, same, n ? 100.0 * same / n : 0, entry, n ? 100.0 * entry / n : 0);
	ASSERT_GE(n, 100);
	EXPECT_GE(same * 1000, n * 995);
	EXPECT_GE(entry * 100, n * variant->entry_pct);
}

TEST_HARNESS_MAIN
