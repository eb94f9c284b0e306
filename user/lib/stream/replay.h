/* SPDX-License-Identifier: GPL-2.0 */
/*
 * replay.h - a run's records from a capture file, through the session
 * pipeline into an output (replay.c).
 */
#ifndef KPROFCAT_REPLAY_H
#define KPROFCAT_REPLAY_H

#include <stddef.h>

#include "lib/stream/output.h"
#include "lib/stream/session.h"

/*
 * Read the capture PATH into OUT.  EVENT receives the recorded
 * event's name (before any output).  PID: keep only that process's
 * samples; SF: the sample filter (NULL: none).
 */
int record__replay(const char *path, struct output *out, int pid,
		   char *event, size_t event_len);
int record__replay_filtered(const char *path, struct output *out, int pid,
			    const struct sample_filter *sf, char *event, size_t event_len);

#endif
