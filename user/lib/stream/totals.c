// SPDX-License-Identifier: GPL-2.0
/*
 * totals.c - a run's totals from the kernel's per-CPU counters, shared by
 * the end-of-run line and the output headers.
 */
#include <string.h>

#include "lib/stream/output.h"

void out_summary__kernel_totals(const struct out_summary *s, struct out_kernel_totals *t)
{
	unsigned int i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < s->nr_cpu; i++) {
		const struct kprof_cpu_stats *cs = &s->cpu[i];
		const struct kprof_counters *c = &cs->counters;

		if (!cs->size)
			continue;
		t->samples += c->samples;
		t->lost_full += c->lost_full;
		t->lost_nested += c->lost_nested;
		t->lost_stopped += c->lost_stopped;
		t->lost_throttled += c->lost_throttled;
		t->lost_events += c->lost_events;
		t->throttles += c->throttles;
		t->lowerings += c->lowerings;
		/* The limits are global: every CPU shows the same, or 0 (no event). */
		if (cs->max_sample_rate &&
		    (!t->max_sample_rate || cs->max_sample_rate < t->max_sample_rate))
			t->max_sample_rate = cs->max_sample_rate;
	}
	t->lost = t->lost_full + t->lost_nested + t->lost_stopped + t->lost_throttled;
}

const char *out_semantics_name(unsigned int semantics)
{
	return semantics == KPROF_THROTTLE_GE ? "ge" :
	       semantics == KPROF_THROTTLE_GT ? "gt" :
	       semantics == KPROF_THROTTLE_SHADOW ? "shadow" : "?";
}
