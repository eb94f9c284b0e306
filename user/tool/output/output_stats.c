// SPDX-License-Identifier: GPL-2.0
/*
 * output_stats.c - --stats: the module's per-CPU counters (struct
 * kprof_counters and the throttle state, from KPROF_IOC_GET_STATS or a
 * capture) and the reader's own counts, as a table or (--json) one JSON
 * object: {"cpus":[{"cpu":N,"samples":...},...],"total":{...},
 * "reader":{...}}.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/stream/output.h"

struct stats {
	struct output o;
	int json;
};

/* The __u64 fields of struct kprof_counters, in the order JSON lists them. */
#define COUNTER(field)	{ #field, offsetof(struct kprof_counters, field) }
static const struct counter_field {
	const char *name;
	size_t offset;
} counter_fields[] = {
	COUNTER(overflows), COUNTER(samples), COUNTER(lost_full), COUNTER(lost_nested),
	COUNTER(lost_stopped), COUNTER(lost_throttled), COUNTER(lost_records),
	COUNTER(throttles), COUNTER(kernel_throttles), COUNTER(unthrottles),
	COUNTER(lowerings), COUNTER(handler_ns), COUNTER(nmi_samples),
	COUNTER(would_throttles), COUNTER(own_throttles), COUNTER(lost_events),
};

#define NR_COUNTER_FIELDS	(sizeof(counter_fields) / sizeof(counter_fields[0]))

static __u64 counter_get(const struct kprof_counters *c, size_t i)
{
	return *(const __u64 *)((const char *)c + counter_fields[i].offset);
}

static void sum_counters(struct kprof_counters *t, const struct kprof_counters *c)
{
	size_t i;

	for (i = 0; i < NR_COUNTER_FIELDS; i++)
		*(__u64 *)((char *)t + counter_fields[i].offset) += counter_get(c, i);
}

static void json_counters(FILE *f, const struct kprof_counters *c)
{
	size_t i;

	for (i = 0; i < NR_COUNTER_FIELDS; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : "", counter_fields[i].name,
			(unsigned long long)counter_get(c, i));
	fprintf(f, ",\"avg_handler_ns\":%llu",
		c->samples ? (unsigned long long)(c->handler_ns / c->samples) : 0ULL);
}

static void stats_json(FILE *f, const struct out_summary *s, const struct kprof_counters *total)
{
	const struct decode_stats *d = s->decode;
	unsigned int i;
	int first = 1;

	fprintf(f, "{\"cpus\":[");
	for (i = 0; i < s->nr_cpu; i++) {
		const struct kprof_cpu_stats *c = &s->cpu[i];

		if (!c->size)
			continue;
		fprintf(f, "%s{\"cpu\":%u,", first ? "" : ",", c->cpu);
		json_counters(f, &c->counters);
		fprintf(f, ",\"max_sample_rate\":%llu,\"max_samples_per_tick\":%llu,\"allowed_ns\":%llu,\"avg_ns\":%llu}",
			(unsigned long long)c->max_sample_rate,
			(unsigned long long)c->max_samples_per_tick,
			(unsigned long long)c->allowed_ns, (unsigned long long)c->avg_ns);
		first = 0;
	}
	fprintf(f, "],\"total\":{");
	json_counters(f, total);
	fprintf(f, "},\"reader\":{\"seconds\":%.3f,\"samples\":%llu,\"lost_records\":%llu,\"throttle_records\":%llu,\"unthrottle_records\":%llu,\"would_throttle_records\":%llu,\"rate_lowered_records\":%llu,\"unknown_records\":%llu,\"bad_records\":%llu,\"bad_sizes\":%llu,\"discarded_bytes\":%llu,\"misordered\":%llu,\"filtered\":%llu,\"sideband_lost\":%llu}",
		s->seconds,
		(unsigned long long)d->records[KPROF_RECORD_SAMPLE],
		(unsigned long long)d->records[KPROF_RECORD_LOST],
		(unsigned long long)d->records[KPROF_RECORD_THROTTLE],
		(unsigned long long)d->records[KPROF_RECORD_UNTHROTTLE],
		(unsigned long long)d->records[KPROF_RECORD_WOULD_THROTTLE],
		(unsigned long long)d->records[KPROF_RECORD_RATE_LOWERED],
		(unsigned long long)d->unknown, (unsigned long long)d->bad,
		(unsigned long long)s->bad_sizes, (unsigned long long)s->discarded,
		(unsigned long long)s->misordered, (unsigned long long)s->filtered,
		(unsigned long long)s->sideband_lost);
	if (s->knobs)
		fprintf(f, ",\"knobs\":{\"max_sample_rate\":%u,\"cpu_time_max_percent\":%u,\"throttle_semantics\":\"%s\"}",
			s->knobs->max_sample_rate, s->knobs->cpu_time_max_percent,
			out_semantics_name(s->knobs->semantics));
	fputs("}\n", f);
}

/* One row of the table: C's counters, CS's controller state (NULL: the total). */
static void stats_row(FILE *f, const char *name, const struct kprof_counters *c,
		      const struct kprof_cpu_stats *cs)
{
	fprintf(f, "%4s %10llu %10llu %9llu %8llu %8llu %9llu %9llu %9llu %8llu %8llu %9llu %8llu %10llu",
		name, (unsigned long long)c->overflows, (unsigned long long)c->samples,
		(unsigned long long)c->lost_full, (unsigned long long)c->lost_nested,
		(unsigned long long)c->lost_stopped, (unsigned long long)c->lost_throttled,
		(unsigned long long)c->throttles, (unsigned long long)c->kernel_throttles,
		(unsigned long long)c->would_throttles, (unsigned long long)c->unthrottles,
		(unsigned long long)c->lowerings, (unsigned long long)c->nmi_samples,
		c->samples ? (unsigned long long)(c->handler_ns / c->samples) : 0ULL);
	if (cs)
		fprintf(f, " %10llu %12llu %8llu\n", (unsigned long long)cs->avg_ns,
			(unsigned long long)cs->max_sample_rate,
			(unsigned long long)cs->max_samples_per_tick);
	else
		fprintf(f, " %10s %12s %8s\n", "-", "-", "-");
}

static void stats_table(FILE *f, const struct out_summary *s, const struct kprof_counters *total)
{
	const struct decode_stats *d = s->decode;
	unsigned int i;

	/*
	 * One row per CPU: overflows, then what became of them (samples and
	 * the lost causes), throttled ticks (each once, whatever tripped:
	 * comparable with perf's THROTTLE count), those where the kernel's
	 * per-tick limit tripped, shadow would-throttles, unthrottles, lowerings,
	 * NMI samples, the mean measured cost, the cost controller's running
	 * average and the limits in force.
	 */
	fprintf(f, "%4s %10s %10s %9s %8s %8s %9s %9s %9s %8s %8s %9s %8s %10s %10s %12s %8s\n",
		"cpu", "overflows", "samples", "lost:full", "nested", "stopped",
		"throttled", "throttles", "kthrottle", "would", "unthrot",
		"lowerings", "nmi", "avg_ns", "ctl_avg_ns", "max_rate", "per_tick");
	for (i = 0; i <= s->nr_cpu; i++) {
		const struct kprof_cpu_stats *cs = NULL;
		const struct kprof_counters *c;
		char name[16];

		if (i < s->nr_cpu) {
			if (!s->cpu[i].size)
				continue;
			cs = &s->cpu[i];
			c = &cs->counters;
			snprintf(name, sizeof(name), "%u", cs->cpu);
		} else {
			c = total;
			snprintf(name, sizeof(name), "all");
		}
		stats_row(f, name, c, cs);
	}
	fprintf(f, "reader: %llu samples, %llu LOST, %llu THROTTLE, %llu UNTHROTTLE, %llu WOULD_THROTTLE, %llu RATE_LOWERED records; %llu unknown records skipped, %llu malformed, %llu bad sizes (%llu bytes discarded), %llu misordered, %llu filtered, %llu side-band lost",
		(unsigned long long)d->records[KPROF_RECORD_SAMPLE],
		(unsigned long long)d->records[KPROF_RECORD_LOST],
		(unsigned long long)d->records[KPROF_RECORD_THROTTLE],
		(unsigned long long)d->records[KPROF_RECORD_UNTHROTTLE],
		(unsigned long long)d->records[KPROF_RECORD_WOULD_THROTTLE],
		(unsigned long long)d->records[KPROF_RECORD_RATE_LOWERED],
		(unsigned long long)d->unknown, (unsigned long long)d->bad,
		(unsigned long long)s->bad_sizes, (unsigned long long)s->discarded,
		(unsigned long long)s->misordered, (unsigned long long)s->filtered,
		(unsigned long long)s->sideband_lost);
	if (s->seconds > 0)
		fprintf(f, " in %.3f s", s->seconds);
	fputc('\n', f);
	if (s->knobs)
		fprintf(f, "knobs at start: max_sample_rate %u, cpu_time_max_percent %u, throttle_semantics %s\n",
			s->knobs->max_sample_rate, s->knobs->cpu_time_max_percent,
			out_semantics_name(s->knobs->semantics));
}

static int stats_finish(struct output *o, const struct out_summary *s)
{
	struct stats *st = (struct stats *)o;
	struct kprof_counters total;
	unsigned int i;

	memset(&total, 0, sizeof(total));
	for (i = 0; i < s->nr_cpu; i++)
		if (s->cpu[i].size)
			sum_counters(&total, &s->cpu[i].counters);
	if (st->json)
		stats_json(o->f, s, &total);
	else
		stats_table(o->f, s, &total);
	return fflush(o->f) || ferror(o->f) ? -1 : 0;
}

static void stats_free(struct output *o)
{
	free(o);
}

static const struct output_ops stats_ops = {
	.finish = stats_finish,
	.free = stats_free,
};

struct output *output_stats__new(FILE *f, int json)
{
	struct stats *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->o.ops = &stats_ops;
	st->o.f = f;
	st->json = json;
	return &st->o;
}
