/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_flamegraph.h - --flamegraph FILE.svg: an interactive SVG flame
 * graph of the folded stacks (output_flamegraph.c).
 */
#ifndef KPROFCAT_OUTPUT_FLAMEGRAPH_H
#define KPROFCAT_OUTPUT_FLAMEGRAPH_H

#include <stdio.h>

#include "lib/stream/output.h"

/*
 * Frames narrower than this (in px of the full graph) are left out, as
 * flamegraph.pl's --minwidth.
 */
#define FLAME_MIN_WIDTH		0.1
/* The graph's width in px, the frames' within it (a margin on each side). */
#define FLAME_WIDTH		1200
#define FLAME_PAD		10

/*
 * The SVG goes to F (PATH names it in messages); frame widths by samples
 * or, with WEIGHT_PERIOD, summed periods.  EVENT: for the title.
 */
struct output *output_flamegraph__new(FILE *f, const char *path, int weight_period,
				      const char *event);
/*
 * The same into the file PATH ("-": standard output), which it owns: made
 * if need be, overwritten only at the end, with the graph (a run that
 * fails before leaves an older file as it was, and removes one it made).
 * NULL after a message (the file cannot be written, out of memory).
 */
struct output *output_flamegraph__open(const char *path, int weight_period, const char *event);

#endif
