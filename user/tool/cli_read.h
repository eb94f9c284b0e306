/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cli_read.h - the command line's reading side (builtin-profile.c has the rest):
 * perf's verbs, the sample filters -i applies, --report's options, and
 * refusing an option where it cannot apply.
 */
#ifndef KPROFCAT_CLI_READ_H
#define KPROFCAT_CLI_READ_H

#include <getopt.h>

#include "lib/stream/output.h"
#include "tool/record_opts.h"
#include "lib/stream/session.h"

/* What perf record writes and perf report reads, kprofcat's way. */
#define DEFAULT_CAPTURE	"kprof.kpcap"

enum format { FMT_SCRIPT, FMT_FOLDED, FMT_FLAMEGRAPH, FMT_REPORT, FMT_STATS };

/* perf's verbs: a mode of plain kprofcat, with perf's default file. */
struct verb {
	const char *name;	/* NULL: plain kprofcat */
	enum format fmt;
	int record;		/* -o defaults to DEFAULT_CAPTURE */
};

/* What reading takes beyond recording's options. */
struct read_opts {
	struct sample_filter sf;
	struct report_opts ro;
	const char *report_opt;	/* a --report-only option given */
	const char *filter_opt;	/* --tid or --comm given */
	const char *record_opt;	/* an option only recording uses */
};

/*
 * The reading options' codes in builtin-profile.c's getopt_long table:
 * --tid, --comm, --dso, --sort, --percent-limit, --no-children, and 'n'
 * (--show-nr-samples) in its short options.
 */
enum {
	OPT_TID = 512, OPT_COMM, OPT_DSO, OPT_SORT, OPT_PERCENT_LIMIT, OPT_NO_CHILDREN,
};

/* One of the options above into R; -1 after a message (unknown: usage hint). */
int cli_read__option(int opt, const char *arg, struct read_opts *r);
/*
 * The positional argument: a capture file (1) or a device (0).  A path
 * that does not exist is a file unless it is under /dev (then the
 * device's open says to load the module).
 */
int cli_read__is_file(const char *arg);
/*
 * The verb's defaults: record saves to DEFAULT_CAPTURE; script, report
 * and stat read it when nothing says to record (POSITIONAL: a FILE or
 * DEVICE was given).  -1 after a message.
 */
int cli_read__defaults(const struct verb *vb, struct record_opts *o, const char **input,
		       int positional, const struct read_opts *rd);
/*
 * Options of one side used on the other are refused, never ignored.
 * HAS_OUTPUT: something is printed (not -o alone).  -1 after a message.
 */
int cli_read__check(const struct read_opts *rd, const char *input, enum format fmt,
		    const struct record_opts *o, int has_output);

#endif
