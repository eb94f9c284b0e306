/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert_perf_maps.h - the perf.data writer's user maps: each executable
 * map of the capture with the rest of its file's segments
 * (convert_perf_maps.c), called by convert_perf.c.
 */
#ifndef KPROFCAT_CONVERT_PERF_MAPS_H
#define KPROFCAT_CONVERT_PERF_MAPS_H

#include "lib/symbols/usyms.h"
#include "tool/convert/perf_out.h"

struct perf_maps;

struct perf_maps *perf_maps__new(void);
void perf_maps__free(struct perf_maps *m);
/* PERF_RECORD_MMAP2s for PEV_MMAP E into P.  -ENOMEM, else 0. */
int perf_maps__write(struct perf_maps *m, struct perf_out *p, const struct pev *e);

#endif
