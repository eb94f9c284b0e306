/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_opts.h - what the command line asks of a live run: filled by
 * main.c and cli_read.c, read by the live loop (record.c) and its limits
 * (runlimits.c).
 */
#ifndef KPROFCAT_RECORD_OPTS_H
#define KPROFCAT_RECORD_OPTS_H

#include <linux/kprof.h>

#include "lib/stream/output.h"
#include "lib/stream/session.h"

struct record_opts {
	const char *device;
	struct kprof_config cfg;
	const char *event;	/* its name, for messages and the output */
	double duration;	/* seconds, 0: until Ctrl-C or CMD exits */
	char **cmd;		/* -- CMD ARGS */
	int all;		/* -a */
	int pid;		/* -p PID, 0 if none */
	/*
	 * -- CMD or -p PID without -a or -C: a per-task session on CMD or
	 * PID and the tasks it creates (KPROF_TARGET_TASK), as perf
	 * record's default; else the CPUs, CMD's samples kept by the reader.
	 */
	int per_task;
	const char *out_path;	/* -o */
	struct output *out;	/* NULL: -o alone */
	int want_stats;		/* fill the summary from the device */
	struct sample_filter sf;	/* --tid, --comm, ... (session.h) */
	/* How cfg.sample got its frequency, for -F above the max. */
	enum { FREQ_DEFAULT, FREQ_USER, FREQ_MAX } freq_src;
	int strict_freq;	/* --strict-freq: -F above the max is an error */
	int quiet;		/* -q: no status line, no end-of-run line */
	/* --throttle-semantics, --cpu-time-max-percent, --max-sample-rate */
	const char *set_semantics, *set_percent, *set_rate;
};

#endif
