/* SPDX-License-Identifier: GPL-2.0 */
/*
 * throttle_replay.h - a throttle test run's samples (throttle_run.h)
 * replayed through the real `kprofcat throttle-sim`, whose lowerings,
 * throttles and unthrottles the tests compare with the module's records.
 */
#ifndef KPROF_THROTTLE_REPLAY_H
#define KPROF_THROTTLE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>

#include "throttle_run.h"

/* The lines of `kprofcat throttle-sim` output the tests compare. */
struct tt_sim_line {
	char kind;			/* 'l'ower, 't'hrottle, 'u'nthrottle */
	__u64 t, avg, allowed, max, rate, tick, interrupts;
};

struct tt_sim {
	struct tt_sim_line *l;
	size_t n, cap;
};

void tt_kprofcat(char *buf, size_t len);
int tt_throttle_sim(const struct tt_cpu *t, const char *sem, int rate,
		    bool ticks, struct tt_sim *out, char *err, size_t errlen);
const struct tt_sim_line *tt_sim_nth(const struct tt_sim *s, char kind,
				     size_t i);
size_t tt_sim_count(const struct tt_sim *s, char kind);

#endif /* KPROF_THROTTLE_REPLAY_H */
