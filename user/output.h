/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - the output formats: perf-script text (default), folded stacks,
 * a symbol report and statistics (text or JSON).
 */
#ifndef KPROFCAT_OUTPUT_H
#define KPROFCAT_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "decode.h"

/* One symbolized frame, leaf first. */
struct out_frame {
	uint64_t addr;		/* as perf prints it: kernel IP, user DSO offset */
	const char *sym;	/* NULL: [unknown] */
	uint64_t off;
	const char *dso;
	int kernel;
	/* Same for every frame of this (sym, dso, kernel): dense, from 0. */
	uint32_t sym_id;
	uint32_t line_len;
	/* Its perf-script line, "\t%16llx %s+0x%llx (%s)\n" (not NUL-terminated). */
	const char *line;
};

/* Per-CPU kernel counters and reader-side totals, for --stats. */
struct out_summary {
	const struct kprof_cpu_stats *cpu;	/* nr_cpu entries, cpu[i].size 0: none */
	unsigned int nr_cpu;
	const struct decode_stats *decode;
	uint64_t misordered;	/* released after a newer record */
	uint64_t bad_sizes;	/* records with an impossible size (ring) */
	uint64_t discarded;	/* bytes dropped after them */
	uint64_t filtered;	/* samples of other processes (-p, -- CMD) */
	uint64_t sideband_lost;
	double seconds;		/* of recording; 0 when reading a capture */
	/* The module's throttle knobs at the start of a live run, else NULL. */
	const struct kprof_throttle_config *knobs;
};

/*
 * A run's totals from the kernel's counters (out_summary.cpu), summed over
 * the CPUs: the end-of-run line prints them, and so may the --report and
 * --folded headers (out_summary__totals()).
 */
struct out_totals {
	uint64_t samples;		/* SAMPLE records the kernel committed */
	uint64_t lost;			/* overflows not delivered: the sum of */
	uint64_t lost_full;		/*   no room in the buffer */
	uint64_t lost_nested;		/*   nested too deep */
	uint64_t lost_stopped;		/*   while stopping */
	uint64_t lost_throttled;	/*   while throttled */
	uint64_t lost_events;		/* other records that did not fit */
	uint64_t throttles;		/* throttled ticks (THROTTLE records) */
	uint64_t lowerings;		/* cost-controller lowerings (RATE_LOWERED) */
	uint64_t max_sample_rate;	/* in force at the end, lowest of the CPUs; 0: unknown */
};

void out_summary__totals(const struct out_summary *s, struct out_totals *t);
/* enum kprof_throttle_semantics as the throttle_semantics knob spells it. */
const char *out_semantics_name(unsigned int semantics);

struct output;

struct output_ops {
	int (*sample)(struct output *o, const struct kp_record *r,
		      const struct out_frame *f, unsigned int nr);
	int (*event)(struct output *o, const struct kp_record *r);
	int (*finish)(struct output *o, const struct out_summary *s);
	void (*free)(struct output *o);
};

struct output {
	const struct output_ops *ops;
	FILE *f;
	int needs_frames;	/* symbolize samples for it */
	int no_demangle;	/* --no-demangle: raw C++ symbol names */
};

struct output *output_script__new(FILE *f, const char *event);
struct output *output_folded__new(FILE *f, int weight_period);
struct output *output_report__new(FILE *f, const char *event);
struct output *output_stats__new(FILE *f, int json);

static inline int output__sample(struct output *o, const struct kp_record *r,
				 const struct out_frame *f, unsigned int nr)
{
	return o->ops->sample ? o->ops->sample(o, r, f, nr) : 0;
}

static inline int output__event(struct output *o, const struct kp_record *r)
{
	return o->ops->event ? o->ops->event(o, r) : 0;
}

static inline int output__finish(struct output *o, const struct out_summary *s)
{
	return o->ops->finish ? o->ops->finish(o, s) : 0;
}

static inline void output__free(struct output *o)
{
	if (o)
		o->ops->free(o);
}

#endif
