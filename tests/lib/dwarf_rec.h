/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dwarf_rec.h - perf DWARF recordings of Debian's own programs, turned
 * into kprof captures, and per-sample comparisons of two readers' frames,
 * for the host tests of DWARF call chains.
 */
#ifndef KPROF_TEST_DWARF_REC_H
#define KPROF_TEST_DWARF_REC_H

#include <stddef.h>

/*
 * A program stripped and built without frame pointers, and a run of it.
 * Each is perf's own child, exec'd once: in a child that a shell forked
 * and that exec'd (sh -c 'a | b'), Debian's perf (libunwind) prints
 * chains cut short or missing frames for about a tenth of the samples.
 */
struct dwarf_workload {
	const char *prog;	/* must exist */
	const char *cmd;	/* %1$s: the recording's directory; setup && run */
	int entry_pct;		/* chains reaching the entry, at least */
};

extern const struct dwarf_workload dwarf_perl, dwarf_python3, dwarf_xz;

/* The frame line of a chain that reached the program's entry, for grep -E and awk. */
#define DWARF_ENTRY_RE	"__libc_start_call_main|_dl_start\\+|start_thread\\+"

/*
 * perf record -e cpu-clock --call-graph dwarf,8192 of W into DIR/perf.data
 * and bench/perf2kpcap (in TESTS, the tests' OUTPUT) of it into
 * DIR/c.kpcap.  0; 1 when the test cannot run here (no perf, no program,
 * perf record refused), WHY saying so (else empty); -1 when a step failed.
 */
int dwarf_record(const char *dir, const char *tests, const struct dwarf_workload *w,
		 char *why, size_t why_len);

struct dwarf_cmp {
	unsigned long long samples;	/* of B */
	unsigned long long same;	/* of them, with A's frame lines */
	unsigned long long entry;	/* chains of A reaching the entry */
};

/*
 * Per sample of B (perf script text, in DIR), whether A (the same, or
 * kprofcat -i's) has one at the same time and CPU with the same frame
 * lines.  The first few differing samples go to stderr.  0, or -1.
 */
int dwarf_compare(const char *dir, const char *a, const char *b, struct dwarf_cmp *c);

#endif
