/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert_perf.h - a capture as a perf.data file (convert_perf.c).
 */
#ifndef KPROFCAT_CONVERT_PERF_H
#define KPROFCAT_CONVERT_PERF_H

#include "tool/convert/convert.h"

/*
 * Write OUT from IN (records replayed with process filter PID, 0: the
 * capture's own).  CMDLINE (NR words) goes into the file's header where the
 * format has a place for it.  Return kprofcat's exit status.
 */
int convert_perf__write(const struct convert_input *in, const char *out, int pid,
			int nr, char **cmdline);

#endif
