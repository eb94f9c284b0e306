/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hot3_tally.h - folded stacks of tests/progs/hot3, tallied per hot
 * function: the samples whose leaf is hot_a/b/c (kernel frames may follow
 * it) and those among them whose chain reaches main through the
 * function's callers.
 * Shared by the cpu-clock (kprofcat_test) and PMU stand-in
 * (testpmu_kprof_test) attribution tests.
 */
#ifndef _KPROF_HOT3_TALLY_H
#define _KPROF_HOT3_TALLY_H

#include <math.h>

struct hot3_tally {
	unsigned long n[3];	/* hot_a, hot_b, hot_c */
	unsigned long chain[3];	/* ... with the whole chain up to main */
};

void hot3_tally(char *out, struct hot3_tally *t);
int hot3_stage_shares(const char *text, double pct[3]);
double hot3_share_tolerance(double pct, double n);

#define HOT3_SHARES_FMT "hot_a %.1f%% hot_b %.1f%% hot_c %.1f%% of %.0f samples (time %.1f/%.1f/%.1f%%); full chains %lu/%lu %lu/%lu %lu/%lu"

/*
 * The shares of @t against hot3's timed split @want, logged, each within
 * hot3_share_tolerance(); a kselftest helper (uses _metadata's EXPECTs).
 */
#define hot3_check_shares(t, want)					\
	do {								\
		double tot_ = (t)->n[0] + (t)->n[1] + (t)->n[2], s_[3];	\
		int k_;							\
									\
		for (k_ = 0; k_ < 3; k_++)				\
			s_[k_] = 100 * (t)->n[k_] / tot_;		\
		TH_LOG(HOT3_SHARES_FMT, s_[0], s_[1], s_[2], tot_,	\
		       (want)[0], (want)[1], (want)[2],			\
		       (t)->chain[0], (t)->n[0], (t)->chain[1], (t)->n[1], \
		       (t)->chain[2], (t)->n[2]);			\
		for (k_ = 0; k_ < 3; k_++)				\
			EXPECT_GE(hot3_share_tolerance((want)[k_], tot_), \
				  fabs(s_[k_] - (want)[k_]))		\
				TH_LOG("hot function %d", k_);		\
	} while (0)

#endif /* _KPROF_HOT3_TALLY_H */
