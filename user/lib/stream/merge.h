/* SPDX-License-Identifier: GPL-2.0 */
/*
 * merge.h - put the records of all CPUs into timestamp order, as perf's
 * ordered_events does: records are held and released, oldest first, once
 * they are older than the newest time seen minus a reordering window (or
 * when too many are held).  A record released after a newer one counts as
 * misordered.
 */
#ifndef KPROFCAT_MERGE_H
#define KPROFCAT_MERGE_H

#include <stddef.h>
#include <stdint.h>

struct merge;

typedef int (*merge_fn)(void *ctx, unsigned int cpu, const void *rec, size_t len);

struct merge *merge__new(uint64_t window_ns, size_t max_held);
void merge__free(struct merge *m);
/* The reordering window from now on (before the first push: for all). */
void merge__set_window(struct merge *m, uint64_t window_ns);
/* Copy REC (of CPU < KPROF_MAX_CPUS, stamped TIME) in.  -ENOMEM. */
int merge__push(struct merge *m, uint64_t time, unsigned int cpu,
		const void *rec, size_t len);
/*
 * Hold REC without a copy (a mapped capture's record): it must stay
 * readable until FN has been given it.  -ENOMEM.
 */
int merge__push_ref(struct merge *m, uint64_t time, unsigned int cpu,
		    const void *rec, size_t len);
/*
 * Release, oldest first, the records that fall out of the window (ALL:
 * every record).  Stops at and returns FN's first non-zero result.
 */
int merge__flush(struct merge *m, int all, merge_fn fn, void *ctx);
uint64_t merge__misordered(const struct merge *m);
size_t merge__held(const struct merge *m);
/*
 * The lowest address of the records held by reference, NULL without any
 * (what lies below it in a mapped capture is no longer needed).
 */
const void *merge__lowest_ref(const struct merge *m);

#endif
