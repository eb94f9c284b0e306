/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record.h - a run's records live from /dev/kprof (record__live); from a
 * capture file they come through lib/stream/replay.h.
 */
#ifndef KPROFCAT_RECORD_H
#define KPROFCAT_RECORD_H

#include "tool/record_opts.h"

/* Returns the exit status kprofcat should exit with. */
int record__live(struct record_opts *o);

#endif
