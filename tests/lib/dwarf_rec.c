// SPDX-License-Identifier: GPL-2.0
/*
 * dwarf_rec.c - perf DWARF recordings as kprof captures, and per-sample
 * frame comparisons (dwarf_rec.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd_output.h"
#include "dwarf_rec.h"

const struct dwarf_workload dwarf_perl = {
	.prog = "/usr/bin/perl",
	.cmd = "/usr/bin/perl -e 'my $s = 0; for (1..2000000) { $s += sqrt($_) } print \"$s\\n\"'",
	.entry_pct = 90,
};

const struct dwarf_workload dwarf_python3 = {
	.prog = "/usr/bin/python3",
	.cmd = "/usr/bin/python3 -c 'import json\ns = 0\nfor i in range(150000): s += len(json.dumps({\"a\": i, \"b\": [i, str(i)]}))\nprint(s)'",
	.entry_pct = 50,	/* deep interpreter stacks outgrow 8 KiB */
};

const struct dwarf_workload dwarf_xz = {
	.prog = "/usr/bin/xz",
	.cmd = "head -c 3000000 /dev/urandom >%1$s/in && /usr/bin/xz -6 -T1 -c %1$s/in",
	.entry_pct = 90,
};

int dwarf_record(const char *dir, const char *tests, const struct dwarf_workload *w,
		 char *why, size_t why_len)
{
	char cmd[2 * PATH_MAX], *run;

	why[0] = '\0';
	if (cmd_run("command -v perf >/dev/null")) {
		snprintf(why, why_len, "no perf (scripts/deps installs linux-perf)");
		return 1;
	}
	if (access(w->prog, X_OK)) {
		snprintf(why, why_len, "no %s", w->prog);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), w->cmd, dir);
	/* The workload's setup (xz's input) outside the recording. */
	run = strstr(cmd, " && ");
	if (run) {
		*run = '\0';
		run += 4;
		if (cmd_run("%s", cmd))
			return -1;
	} else {
		run = cmd;
	}
	if (cmd_run("perf record -q -e cpu-clock --call-graph dwarf,8192 --sample-cpu -o %s/perf.data -- %s >/dev/null 2>%s/record.err",
		    dir, run, dir)) {
		cmd_run("cat %s/record.err >&2", dir);
		snprintf(why, why_len, "perf record failed (kernel.perf_event_paranoid?)");
		return 1;
	}
	return cmd_run("perf report -D -i %s/perf.data 2>/dev/null | %s/tools/perf2kpcap %s/c.kpcap >/dev/null",
		       dir, tests, dir) ? -1 : 0;
}

/* Prints "samples=N same=S entry=E"; see dwarf_compare(). */
static const char compare_awk[] =
	"function key(   i) { for (i = 1; i < NF; i++) if ($i ~ /^\\[[0-9]+\\]$/) return $i \" \" $(i + 1); return $0 }\n"
	"function done() { if (k == \"\") return; if (kf == ARGV[1]) { a[k] = f; if (f ~ /"
	DWARF_ENTRY_RE "/) entry++ }\n"
	"  else { n++; if ((k in a) && a[k] == f) same++; else if (shown++ < 3) printf \"%s\\n-- A:\\n%s-- B:\\n%s\", k, a[k], f > \"/dev/stderr\" }\n"
	"  k = \"\" }\n"
	"FNR == 1 { done() }\n"
	"/^\\t/ { f = f $0 \"\\n\"; next }\n"
	"/^$/ || /^#/ { next }\n"
	"{ done(); k = key(); kf = FILENAME; f = \"\" }\n"
	"END { done(); printf \"samples=%d same=%d entry=%d\\n\", n, same, entry }\n";

int dwarf_compare(const char *dir, const char *a, const char *b, struct dwarf_cmp *c)
{
	char path[PATH_MAX], line[256] = "";
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/compare.awk", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(compare_awk, f);
	if (fclose(f) ||
	    cmd_run("awk -f %s/compare.awk %s/%s %s/%s >%s/cmp", dir, dir, a, dir, b, dir))
		return -1;
	snprintf(path, sizeof(path), "%s/cmp", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fgets(line, sizeof(line), f) &&
	     sscanf(line, "samples=%llu same=%llu entry=%llu",
		    &c->samples, &c->same, &c->entry) == 3;
	fclose(f);
	return ok ? 0 : -1;
}
