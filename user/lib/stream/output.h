/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output.h - the output formats: perf-script text (default), folded stacks,
 * a symbol report and statistics (text or JSON).
 */
#ifndef KPROFCAT_OUTPUT_H
#define KPROFCAT_OUTPUT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/stream/decode.h"

/* One symbolized frame, leaf first. */
struct out_frame {
	uint64_t addr;		/* as perf prints it: kernel IP, user DSO offset */
	const char *sym;	/* NULL: [unknown] */
	uint64_t off;
	const char *dso;
	int kernel;
	/*
	 * A function inlined at ADDR (lib/symbols/inline.h): SYM is its
	 * name, OFF and DSO those of the symbol it was inlined into.
	 */
	int inlined;
	/* Same for every frame of this (sym, dso, kernel, inlined): dense, from 0. */
	uint32_t sym_id;
	/*
	 * The symbol ADDR lies in and its id: SYM and SYM_ID but for an
	 * inline frame, where it is the function the code was inlined into,
	 * which perf report's Self counts (a frame line of its own only where
	 * debug info names it as the symbol table does).
	 */
	const char *outer;
	uint32_t outer_id;
	uint32_t line_len;
	/*
	 * Its perf-script line, "\t%16llx %s+0x%llx (%s)\n", "(inlined)" for
	 * the DSO of an inline frame (not NUL-terminated).
	 */
	const char *line;
};

/*
 * Frames of a sample at most: the kernel's and the user chain, and the
 * inline frames perf adds to the user chain (a few per frame at most in
 * practice; deeper chains are cut at the root).
 */
#define OUT_MAX_FRAMES		(4 * KPROF_MAX_STACK + 1)

/* Per-CPU kernel counters and reader-side totals, for --stats. */
struct out_summary {
	const struct kprof_cpu_stats *cpu;	/* nr_cpu entries, cpu[i].size 0: none */
	unsigned int nr_cpu;
	const struct decode_stats *decode;
	uint64_t misordered;	/* released after a newer record */
	uint64_t bad_sizes;	/* records with an impossible size (ring) */
	uint64_t discarded;	/* bytes dropped after them */
	uint64_t filtered;	/* samples the filters dropped (-p, -- CMD, -C, --tid, ...) */
	uint64_t sideband_lost;
	double seconds;		/* of recording; 0 when reading a capture */
	/* The module's throttle knobs at the start of a live run, else NULL. */
	const struct kprof_throttle_config *knobs;
};

/*
 * A run's totals from the kernel's counters (out_summary.cpu, from
 * GET_STATS or a capture's STATS sections), summed over the CPUs: the
 * end-of-run line prints them.  (struct out_totals below counts the same
 * from the records in-band.)
 */
struct out_kernel_totals {
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

void out_summary__kernel_totals(const struct out_summary *s, struct out_kernel_totals *t);
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
	/* Inline frames in DWARF-unwound user chains, as perf shows them (not --no-inline). */
	int inlines;
};

/*
 * The totals the records carry in-band, live and in captures alike:
 * --report's header and --folded's line on stderr.
 */
struct out_totals {
	uint64_t samples, period;
	uint64_t lost_full, lost_nested, lost_stopped, lost_throttled;
	uint64_t throttles;	/* THROTTLE records, and those LOST counts as not written */
	uint64_t lowerings;	/* RATE_LOWERED records, likewise */
};

static inline void out_totals__sample(struct out_totals *t, const struct kp_record *r)
{
	t->samples++;
	t->period += r->sample.period;
}

static inline void out_totals__event(struct out_totals *t, const struct kp_record *r)
{
	switch (r->type) {
	case KPROF_RECORD_LOST:
		t->lost_full += r->lost.full;
		t->lost_nested += r->lost.nested;
		t->lost_stopped += r->lost.stopped;
		t->lost_throttled += r->lost.throttled;
		t->throttles += r->lost.throttle;
		t->lowerings += r->lost.lowered;
		break;
	case KPROF_RECORD_THROTTLE:
		t->throttles++;
		break;
	case KPROF_RECORD_RATE_LOWERED:
		t->lowerings++;
		break;
	}
}

static inline uint64_t out_totals__lost(const struct out_totals *t)
{
	return t->lost_full + t->lost_nested + t->lost_stopped + t->lost_throttled;
}

struct output *output_script__new(FILE *f, const char *event);
/* EVENT: for the totals line on stderr (flamegraph.pl takes '#' lines for stacks). */
struct output *output_folded__new(FILE *f, int weight_period, const char *event);
/* --report's options (perf report's); zero: perf report's defaults. */
struct report_opts {
	unsigned int keys[3];	/* --sort: 0 comm, 1 dso, 2 sym, in column order */
	unsigned int nr_keys;	/* 0: comm,dso,sym */
	double percent_limit;	/* --percent-limit: rows below it are left out */
	int no_children;	/* --no-children: Self only, rows by Self */
	int show_samples;	/* -n: a Samples column (the row's own samples) */
	int call_graph;		/* -g: REPORT_CALLER or REPORT_CALLEE graphs */
	const char *dso;	/* --dso: only samples whose leaf is in it */
};

#define REPORT_CALLER		1
#define REPORT_CALLEE		2
/* Graph branches below this share of the total are left out (perf's 0.5). */
#define REPORT_GRAPH_MIN_PCT	0.5

struct output *output_report__new(FILE *f, const char *event, const struct report_opts *ro);
/* --sort LIST into RO; -1 after a message. */
int output_report__parse_sort(const char *sort, struct report_opts *ro);
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
