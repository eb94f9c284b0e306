/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sideband.h - process history (mmap/exec/fork) so that samples of
 * processes that are gone by the time they are symbolized still resolve:
 * a perf_event_open() PERF_COUNT_SW_DUMMY event with mmap2, comm(+exec),
 * task and build_id, stamped with perf's default clock (local_clock(), the
 * clock kprof stamps samples with, so no use_clockid), plus /proc/PID/maps
 * snapshots for processes that existed before.
 */
#ifndef KPROFCAT_SIDEBAND_H
#define KPROFCAT_SIDEBAND_H

#include <poll.h>
#include <stdint.h>

#include "lib/symbols/usyms.h"

struct sideband;

typedef int (*pev_fn)(void *ctx, const struct pev *e);

/*
 * Follow PID and its descendants (inherit), or every process (PID -1).
 * NULL, after one warning naming the cause, when perf_event_open() is
 * refused: callers fall back to /proc snapshots.
 */
struct sideband *sideband__open(int pid);
void sideband__close(struct sideband *sb);
/* Add the event fds to PFDS (at most MAX); returns how many. */
int sideband__pollfds(const struct sideband *sb, struct pollfd *pfds, int max);
/*
 * After a poll() of N fds from sideband__pollfds(): an event whose task
 * has exited reports POLLHUP at every poll() from then on, so its fd
 * leaves the set (its ring is still read by sideband__read()).
 */
void sideband__hangups(struct sideband *sb, const struct pollfd *pfds, int n);
/* Pass every record available now to FN, as process events. */
int sideband__read(struct sideband *sb, pev_fn fn, void *ctx);
uint64_t sideband__lost(const struct sideband *sb);

/*
 * /proc/PID/maps as PEV_MMAP events stamped TIME (0: valid since ever).
 * -errno if unreadable.
 */
int sideband__snapshot_pid(uint32_t pid, uint64_t time, pev_fn fn, void *ctx);
/* Every process in /proc. */
int sideband__snapshot_all(pev_fn fn, void *ctx);

#endif
