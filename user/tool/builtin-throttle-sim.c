// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-throttle-sim.c - `kprofcat throttle-sim`: replay would-be overflow
 * interrupts of one CPU through the throttle shared with kprof.ko
 * (common/kprof_throttle.h), without the module.
 *
 * stdin: one interrupt per line, "TIMESTAMP_NS COST_NS [TICK]" (TICK, on
 * every line or none: the tick the module counted it in), timestamps
 * non-decreasing, '#' starts a comment, blank lines are ignored.  For each
 * interrupt: a pending unthrottle is reported first; an interrupt in a
 * tick where the event is throttled does not happen (counted 'throttled',
 * its cost is not fed); otherwise the per-tick limit is checked, then the
 * cost goes through perf_sample_event_took().  The output format is fixed
 * (scripts parse it): see sim_usage().
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprof_throttle.h"
#include "tool/builtin.h"
#include "lib/util/parse.h"
#include "lib/util/print.h"

#define SIM_EXIT_OK		0
#define SIM_EXIT_OUTPUT		1
#define SIM_EXIT_USAGE		2

struct sim_totals {
	unsigned long long interrupts;	/* input lines */
	unsigned long long samples;	/* interrupts that took a sample */
	unsigned long long throttled;	/* interrupts that did not happen */
	unsigned long long throttles;	/* throttle (shadow: would-throttle) */
	unsigned long long lowered;	/* rate lowerings */
};

static void sim_usage(FILE *out)
{
	fprintf(out,
		"usage: kprofcat throttle-sim [--hz N] [--max-sample-rate N]\n"
		"                             [--cpu-time-max-percent N] [--semantics ge|gt|shadow]\n"
		"\n"
		"Replays \"TIMESTAMP_NS COST_NS [TICK]\" lines from stdin (one overflow\n"
		"interrupt on one CPU each, timestamps non-decreasing, '#' comments) through\n"
		"kprof's copy of the kernel's throttle and prints, in order:\n"
		"  throttle t=<ts> tick=<tick> interrupts=<count in this tick>\n"
		"  would-throttle t=<ts> tick=<tick> interrupts=<n>   (shadow, once per tick)\n"
		"  unthrottle t=<start of the next tick>   (when the first later line is read)\n"
		"Without TICK, ticks are TIMESTAMP_NS / TICK_NSEC (kprof's clock events); with it\n"
		"(on every line: a SAMPLE's tick, the kernel's tick count for PMU events) the\n"
		"given ticks, and unthrottle t= is the first line of a later tick.\n"
		"  lower t=<ts> avg=<avg before margin> allowed=<old allowed> max_samples_per_tick=<m> max_sample_rate=<r>\n"
		"  summary interrupts=<lines> samples=<taken> throttled=<skipped> throttles=<n> lowered=<n> max_sample_rate=<r> max_samples_per_tick=<m> allowed_ns=<a>\n"
		"(with --semantics shadow, throttles counts would-throttle lines)\n"
		"\n"
		"  --hz N                    kernel HZ, 1..%u (default 250)\n"
		"  --max-sample-rate N       kernel.perf_event_max_sample_rate, 1..%d (default %d)\n"
		"  --cpu-time-max-percent N  kernel.perf_cpu_time_max_percent, 0..100 (default %d)\n"
		"  --semantics ge|gt|shadow  per-tick limit: ge (current kernels, interrupts >= max),\n"
		"                            gt (before f51972e6: first of a tick unchecked, >),\n"
		"                            shadow (never stops, reports where ge would) (default ge)\n",
		KPROF_THROTTLE_MAX_HZ, INT_MAX,
		KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE,
		KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT);
}

static int sim_parse_semantics(const char *arg, unsigned int *out)
{
	if (!strcmp(arg, "ge")) {
		*out = KPROF_THROTTLE_GE;
	} else if (!strcmp(arg, "gt")) {
		*out = KPROF_THROTTLE_GT;
	} else if (!strcmp(arg, "shadow")) {
		*out = KPROF_THROTTLE_SHADOW;
	} else {
		p_err("--semantics: '%s' is not one of ge, gt, shadow", arg);
		return SIM_EXIT_USAGE;
	}
	return 0;
}

/*
 * Apply the limits in the order an administrator would have to: HZ is the
 * kernel's build, then kernel.perf_cpu_time_max_percent, then
 * kernel.perf_event_max_sample_rate - whose handler refuses every write
 * while the percentage is 0 or 100, so an explicit rate other than the
 * default is an error there, as it is with sysctl.
 */
static int sim_limits(struct kprof_throttle_limits *l, unsigned long long hz,
		      unsigned int semantics, const unsigned long long *pct,
		      const unsigned long long *rate)
{
	int err;

	if (kprof_throttle_limits_init(l, (__u32)hz, semantics)) {
		p_err("--hz %llu is not supported", hz);
		return SIM_EXIT_USAGE;
	}
	if (pct) {
		if (kprof_throttle_set_cpu_time_max_percent(l, *pct)) {
			p_err("--cpu-time-max-percent %llu refused", *pct);
			return SIM_EXIT_USAGE;
		}
		if (!kprof_throttle_cost_control_enabled(l))
			p_warn("--cpu-time-max-percent %llu switches the cost controller off (the kernel warns: \"Dynamic interrupt throttling disabled, can hang your system!\")",
			       *pct);
	}
	if (!rate || *rate == (unsigned long long)l->max_sample_rate)
		return 0;
	err = kprof_throttle_set_max_sample_rate(l, *rate);
	if (err && (l->cpu_time_max_percent == 0 ||
		    l->cpu_time_max_percent == 100))
		p_err("--max-sample-rate %llu refused (EINVAL): the kernel refuses perf_event_max_sample_rate writes while perf_cpu_time_max_percent is %d",
		      *rate, l->cpu_time_max_percent);
	else if (err)
		p_err("--max-sample-rate %llu refused (%s)", *rate, strerror(-err));
	return err ? SIM_EXIT_USAGE : 0;
}

static int sim_setup(int argc, char **argv, struct kprof_throttle_limits *l)
{
	static const struct option options[] = {
		{ "hz",			  required_argument, NULL, 'z' },
		{ "max-sample-rate",	  required_argument, NULL, 'r' },
		{ "cpu-time-max-percent", required_argument, NULL, 'p' },
		{ "semantics",		  required_argument, NULL, 's' },
		{ "help",		  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long hz = 250, rate = 0, pct = 0;
	bool have_rate = false, have_pct = false;
	unsigned int semantics = KPROF_THROTTLE_GE;
	int opt;

	optind = 0;	/* glibc: full reinitialisation of getopt */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
		switch (opt) {
		case 'z':
			if (parse__option("--hz", optarg, 1,
					  KPROF_THROTTLE_MAX_HZ, &hz))
				return SIM_EXIT_USAGE;
			break;
		case 'r':
			if (parse__option("--max-sample-rate", optarg, 1,
					  INT_MAX, &rate))
				return SIM_EXIT_USAGE;
			have_rate = true;
			break;
		case 'p':
			if (parse__option("--cpu-time-max-percent", optarg,
					  0, 100, &pct))
				return SIM_EXIT_USAGE;
			have_pct = true;
			break;
		case 's':
			if (sim_parse_semantics(optarg, &semantics))
				return SIM_EXIT_USAGE;
			break;
		case 'h':
			sim_usage(stdout);
			return -1;
		case ':':
			p_err("%s needs a value", argv[optind - 1]);
			return SIM_EXIT_USAGE;
		default:
			if (optopt)
				p_err("unknown option '-%c'", optopt);
			else
				p_err("unknown option '%s'", argv[optind - 1]);
			return SIM_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		p_err("unexpected argument '%s' (the trace is read from stdin)",
		      argv[optind]);
		return SIM_EXIT_USAGE;
	}
	return sim_limits(l, hz, semantics, have_pct ? &pct : NULL,
			  have_rate ? &rate : NULL);
}

static int sim_parse_field(unsigned long lineno, const char *what,
			   const char *tok, unsigned long long *out)
{
	int err = parse__u64(tok, 10, out);

	if (err)
		p_err("line %lu: %s '%s' is %s", lineno, what, tok,
		      err == -ERANGE ? "too large" :
		      "not a non-negative decimal number");
	return err;
}

/*
 * Parse one input line in place.  Returns 1 for an interrupt, 0 for a
 * blank or comment line, or an exit status after printing the error.
 */
static int sim_parse_line(char *line, unsigned long lineno,
			  unsigned long long *ts, unsigned long long *cost,
			  unsigned long long *tick, int *fields)
{
	static const char *const sep = " \t\r\n\v\f";
	char *hash = strchr(line, '#');
	char *tok[4], *save = NULL;
	int n = 0;

	if (hash)
		*hash = '\0';
	for (char *t = strtok_r(line, sep, &save); t && n < 4;
	     t = strtok_r(NULL, sep, &save))
		tok[n++] = t;
	if (n == 0)
		return 0;
	if (n < 2 || n > 3) {
		p_err("line %lu: expected \"TIMESTAMP_NS COST_NS [TICK]\", found %s",
		      lineno, n == 1 ? "1 field" : "more than 3 fields");
		return -SIM_EXIT_USAGE;
	}
	if (*fields && n != *fields) {
		p_err("line %lu: %d fields after lines of %d: give TICK on every line or on none",
		      lineno, n, *fields);
		return -SIM_EXIT_USAGE;
	}
	*fields = n;
	if ((n == 3 && sim_parse_field(lineno, "tick", tok[2], tick)) ||
	    sim_parse_field(lineno, "timestamp", tok[0], ts) ||
	    sim_parse_field(lineno, "cost", tok[1], cost))
		return -SIM_EXIT_USAGE;
	return 1;
}

/* The one CPU and event simulated: its cost average and per-tick count. */
struct sim_cpu {
	struct kprof_throttle_cpu cost;
	struct kprof_throttle_count ev;
};

/*
 * One interrupt at TS costing COST through the model, its lines printed as
 * they happen.  FIELDS == 3: TICK is the kernel's tick, so an unthrottle is
 * seen at the first line of a later tick, not computed.
 */
static void sim_interrupt(struct kprof_throttle_limits *l, struct sim_cpu *cpu,
			  struct sim_totals *tot, unsigned long long ts,
			  unsigned long long cost, unsigned long long tick, int fields)
{
	struct kprof_throttle_lowering low;
	enum kprof_throttle_verdict v;
	__u64 restart;

	if (fields == 3) {
		/* The kernel's ticks: the restart is seen, not known. */
		if (cpu->ev.throttled && tick != cpu->ev.tick)
			printf("unthrottle t=%llu\n", ts);
		v = kprof_throttle_interrupt_in(l, &cpu->ev, tick, ts);
	} else {
		if (kprof_throttle_unthrottle(l, &cpu->ev, ts, &restart))
			printf("unthrottle t=%llu\n", restart);
		v = kprof_throttle_interrupt(l, &cpu->ev, ts);
	}
	switch (v) {
	case KPROF_THROTTLE_SUPPRESSED:
		tot->throttled++;
		return;
	case KPROF_THROTTLE_STOP:
		printf("throttle t=%llu tick=%llu interrupts=%llu\n",
		       ts, cpu->ev.tick, cpu->ev.interrupts);
		tot->throttles++;
		break;
	case KPROF_THROTTLE_WOULD_STOP:
		printf("would-throttle t=%llu tick=%llu interrupts=%llu\n",
		       ts, cpu->ev.tick, cpu->ev.interrupts);
		tot->throttles++;
		break;
	case KPROF_THROTTLE_SAMPLE:
		break;
	}
	tot->samples++;

	if (kprof_throttle_sample_took(l, &cpu->cost, cost, &low)) {
		printf("lower t=%llu avg=%llu allowed=%llu max_samples_per_tick=%llu max_sample_rate=%llu\n",
		       ts, low.avg_ns, low.old_allowed_ns,
		       low.max_samples_per_tick, low.max_sample_rate);
		tot->lowered++;
	}
}

static int sim_run(FILE *in, struct kprof_throttle_limits *l)
{
	struct sim_cpu cpu;
	struct sim_totals tot = { 0 };
	unsigned long long ts = 0, cost = 0, prev_ts = 0, tick = 0;
	unsigned long lineno = 0;
	int fields = 0;
	char *line = NULL;
	size_t cap = 0;
	int ret = SIM_EXIT_OK;

	kprof_throttle_cpu_init(&cpu.cost);
	kprof_throttle_count_init(&cpu.ev);
	while (getline(&line, &cap, in) != -1) {
		int r;

		lineno++;
		r = sim_parse_line(line, lineno, &ts, &cost, &tick, &fields);
		if (r < 0) {
			ret = -r;
			goto free_line;
		}
		if (r == 0)
			continue;
		if (tot.interrupts && ts < prev_ts) {
			p_err("line %lu: timestamp %llu is before the previous one (%llu); timestamps must not decrease",
			      lineno, ts, prev_ts);
			ret = SIM_EXIT_USAGE;
			goto free_line;
		}
		prev_ts = ts;
		tot.interrupts++;
		sim_interrupt(l, &cpu, &tot, ts, cost, tick, fields);
	}
	if (ferror(in)) {
		p_err("reading stdin after line %lu: %s", lineno, strerror(errno));
		ret = SIM_EXIT_USAGE;
		goto free_line;
	}

	printf("summary interrupts=%llu samples=%llu throttled=%llu throttles=%llu lowered=%llu max_sample_rate=%d max_samples_per_tick=%d allowed_ns=%d\n",
	       tot.interrupts, tot.samples, tot.throttled, tot.throttles,
	       tot.lowered, l->max_sample_rate, l->max_samples_per_tick,
	       l->allowed_ns);
free_line:
	free(line);
	return ret;
}

int throttle_sim_main(int argc, char **argv)
{
	struct kprof_throttle_limits limits = { 0 };
	int ret;

	ret = sim_setup(argc, argv, &limits);
	if (ret < 0)
		return SIM_EXIT_OK;	/* --help */
	if (ret)
		return ret;

	ret = sim_run(stdin, &limits);
	if (fflush(stdout) || ferror(stdout)) {
		p_err("writing stdout: %s", strerror(errno));
		return SIM_EXIT_OUTPUT;
	}
	return ret;
}
