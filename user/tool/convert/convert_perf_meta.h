/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert_perf_meta.h - the perf.data writer's kernel maps and feature
 * sections (convert_perf_meta.c), called by convert_perf.c.
 */
#ifndef KPROFCAT_CONVERT_PERF_META_H
#define KPROFCAT_CONVERT_PERF_META_H

#include "tool/convert/perf_out.h"

/* MMAPs for the kernel and its modules from the capture's kallsyms. */
int perf_out__kernel_maps(struct perf_out *p);
/* The feature sections after the data; sets H's feature bits. */
void perf_out__features(struct perf_out *p, struct file_header *h, int nr, char **cmdline);

#endif
