/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pidmap.h - sets and maps of processes keyed by pid (an integer: no
 * formatting or string hashing per sample).
 */
#ifndef KPROFCAT_PIDMAP_H
#define KPROFCAT_PIDMAP_H

#include <stdint.h>

struct pidmap;

struct pidmap *pidmap__new(void);
void pidmap__free(struct pidmap *m);
/*
 * PID's value: made (0) if CREATE, else NULL when PID is absent; NULL when
 * memory ran out.  Valid until the next pidmap__get(..., 1).
 */
uint64_t *pidmap__get(struct pidmap *m, uint32_t pid, int create);

#endif
