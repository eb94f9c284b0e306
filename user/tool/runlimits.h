/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runlimits.h - the throttle knobs, -F against the max rate, the end-of-run
 * line (runlimits.c).
 */
#ifndef KPROFCAT_RUNLIMITS_H
#define KPROFCAT_RUNLIMITS_H

#include <stdint.h>

#include "lib/dev/kdev.h"
#include "lib/stream/output.h"
#include "tool/record_opts.h"

/* Set the knobs O asks for, in the sysctl order; -1 after a message. */
int runlimits__set_knobs(const struct record_opts *o);
/* Fit O's -F to the highest rate in force, as perf record does; -1 after a message. */
int runlimits__fit_freq(struct kdev *d, struct record_opts *o);
/* The end-of-run line on stderr: SAMPLES out, BYTES of records read. */
void runlimits__end_of_run(const struct record_opts *o, const struct out_summary *sum,
			   uint64_t samples, unsigned long long bytes);

#endif
