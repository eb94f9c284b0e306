/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kdev.h - /dev/kprof: open with ABI check, configure, map every CPU's
 * buffer, start/stop, drain, statistics.
 */
#ifndef KPROFCAT_KDEV_H
#define KPROFCAT_KDEV_H

#include <stddef.h>

#include <linux/kprof.h>

struct kdev;

typedef int (*kdev_record_fn)(void *ctx, unsigned int cpu, const void *rec, size_t len);
/* Whole records of CPU: LEN1 bytes at P1, then LEN2 at P2 (0 if none). */
typedef int (*kdev_span_fn)(void *ctx, unsigned int cpu, const void *p1, size_t len1,
			    const void *p2, size_t len2);

/* NULL after a message naming the problem and the fix. */
struct kdev *kdev__open(const char *path);
void kdev__close(struct kdev *d);
/* SET_CONFIG (EVENT names the event in messages), then map the buffers. */
int kdev__configure(struct kdev *d, const struct kprof_config *c, const char *event);
/* The highest -F accepted now, and the knob that sets it (for messages). */
int kdev__max_freq(struct kdev *d, unsigned long long *max, const char **knob);
/* KPROF_IOC_GET_THROTTLE: the throttle knobs in force. */
int kdev__knobs(struct kdev *d, struct kprof_throttle_config *t);
int kdev__start(struct kdev *d, const char *event);
int kdev__stop(struct kdev *d);
int kdev__fd(const struct kdev *d);
/* Read everything published now; FN's first error stops it. */
int kdev__read(struct kdev *d, kdev_record_fn fn, void *ctx);
/*
 * The same, each CPU's published records in one call, where they lie in
 * its ring (ring__read_span()): for FNs that copy records unread.
 */
int kdev__read_spans(struct kdev *d, kdev_span_fn fn, void *ctx);
unsigned int kdev__nr_cpus(const struct kdev *d);
/* Counters of CPU (KPROF_IOC_GET_STATS); out->size 0 if the CPU has none. */
int kdev__stats(struct kdev *d, unsigned int cpu, struct kprof_cpu_stats *out);
/* Sums over all control pages, for the live status line. */
void kdev__totals(const struct kdev *d, unsigned long long *samples,
		  unsigned long long *lost, unsigned long long *throttled);
unsigned long long kdev__bad_sizes(const struct kdev *d);
unsigned long long kdev__discarded(const struct kdev *d);
/* Bytes of records read from the rings so far. */
unsigned long long kdev__bytes(const struct kdev *d);

#endif
