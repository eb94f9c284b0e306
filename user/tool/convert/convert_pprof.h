/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert_pprof.h - a capture as a gzipped pprof profile.proto (convert_pprof.c).
 */
#ifndef KPROFCAT_CONVERT_PPROF_H
#define KPROFCAT_CONVERT_PPROF_H

#include "tool/convert/convert.h"

/* Write OUT from IN as convert_perf__write() does (convert_perf.h). */
int convert_pprof__write(const struct convert_input *in, const char *out, int pid);

#endif
