/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - a run's records live from /dev/kprof (record__live); from a
 * capture file they come through lib/stream/replay.h.
 */
#ifndef KPROFCAT_RECORD_H
#define KPROFCAT_RECORD_H

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

/* Returns the exit status kprofcat should exit with. */
int record__live(struct record_opts *o);

#endif
