// SPDX-License-Identifier: GPL-2.0
/*
 * runlimits.c - the limits a recording runs under, and what it says about
 * them: the throttle knobs kprofcat was asked to set, -F against the
 * highest rate in force (as perf record fits it), and the end-of-run line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/dev/kparams.h"
#include "tool/runlimits.h"
#include "lib/util/print.h"

int runlimits__set_knobs(const struct record_opts *o)
{
	if (o->set_semantics &&
	    kparams__set_knob("--throttle-semantics", "throttle_semantics", o->set_semantics))
		return -1;
	if (o->set_percent &&
	    kparams__set_knob("--cpu-time-max-percent", "cpu_time_max_percent", o->set_percent))
		return -1;
	if (o->set_rate &&
	    kparams__set_knob("--max-sample-rate", "max_sample_rate", o->set_rate))
		return -1;
	return 0;
}

/*
 * -F above the highest rate accepted now: perf record's rules
 * (record_opts__config_freq()): a default frequency is lowered with a
 * warning, an explicit one is lowered with a warning naming --strict-freq,
 * or refused with it; -F max takes the highest.
 */
int runlimits__fit_freq(struct kdev *d, struct record_opts *o)
{
	unsigned long long max, want = o->cfg.sample;
	const char *knob;

	if (!(o->cfg.flags & KPROF_CFG_FREQ))
		return 0;
	if (kdev__max_freq(d, &max, &knob))
		return -1;
	if (o->freq_src == FREQ_MAX) {
		o->cfg.sample = max;
		p_info("Using a maximum frequency rate of %llu Hz (%s)", max, knob);
		return 0;
	}
	if (want <= max)
		return 0;
	if (o->freq_src == FREQ_DEFAULT) {
		o->cfg.sample = max;
		p_warn("Lowering default frequency rate from %llu to %llu. Please consider tweaking %s.",
		       want, max, knob);
		return 0;
	}
	if (o->strict_freq) {
		p_err("Maximum frequency rate (%llu Hz) exceeded: -F %llu with --strict-freq. Use -F with a lower value (-F max takes %llu) or raise %s.",
		      max, want, max, knob);
		return -1;
	}
	o->cfg.sample = max;
	p_warn("Maximum frequency rate (%llu Hz) exceeded, throttling from %llu Hz to %llu Hz. The limit can be raised via %s. The kernel will lower it when kprof's interrupts take too long. Use --strict-freq to disable this throttling, refusing to record.",
	       max, want, max, knob);
	return 0;
}

/*
 * The end-of-run line, perf record's "[ perf record: Captured and wrote
 * ... ]": what was written or printed, what was lost and why, the
 * throttling, and the max rate in force (with the start's when the cost
 * controller lowered it).
 */
void runlimits__end_of_run(const struct record_opts *o, const struct out_summary *sum,
			   uint64_t samples, unsigned long long bytes)
{
	struct out_kernel_totals t;
	char lost[256] = "", rate[160] = "";
	int n = 0;

	out_summary__kernel_totals(sum, &t);
	fflush(stdout);		/* see p_vprint(): not inside a line of it */
	const struct { unsigned long long v; const char *cause; } causes[] = {
		{ t.lost_full, "buffer full" }, { t.lost_throttled, "throttled" },
		{ t.lost_nested, "nested" }, { t.lost_stopped, "stopping" },
		{ t.lost_events, "other records" },
	};
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (causes[i].v)
			n += snprintf(lost + n, sizeof(lost) - n, "%s%llu %s", n ? ", " : "",
				      causes[i].v, causes[i].cause);
	if (sum->knobs && t.max_sample_rate && t.max_sample_rate != sum->knobs->max_sample_rate)
		snprintf(rate, sizeof(rate), "%llu rate lowerings, max_sample_rate %u -> %llu",
			 (unsigned long long)t.lowerings, sum->knobs->max_sample_rate,
			 (unsigned long long)t.max_sample_rate);
	else
		snprintf(rate, sizeof(rate), "%llu rate lowerings, max_sample_rate %llu",
			 (unsigned long long)t.lowerings,
			 (unsigned long long)(t.max_sample_rate ? t.max_sample_rate :
					      sum->knobs ? sum->knobs->max_sample_rate : 0));
	if (o->out_path) {
		struct stat st;
		double mb = stat(o->out_path, &st) ? 0 : st.st_size / 1e6;

		fprintf(stderr, "[ kprofcat: Captured and wrote %.3f MB %s (%llu samples)",
			mb, o->out_path, (unsigned long long)samples);
	} else {
		fprintf(stderr, "[ kprofcat: %llu samples (%.3f MB of records read)",
			(unsigned long long)samples, bytes / 1e6);
	}
	if (sum->filtered)
		fprintf(stderr, "; %llu samples of other processes left out",
			(unsigned long long)sum->filtered);
	fprintf(stderr, "; lost %llu samples%s%s%s; %llu throttles; %s, throttle_semantics %s ]\n",
		(unsigned long long)t.lost, *lost ? " (" : "", lost, *lost ? ")" : "",
		(unsigned long long)t.throttles, rate,
		sum->knobs ? out_semantics_name(sum->knobs->semantics) : "?");
}
