// SPDX-License-Identifier: GPL-2.0
/*
 * output_script.c - `perf script` text, field for field as perf 6.1's
 * builtin-script.c prints a sample with -F comm,pid,tid,cpu,time,period,
 * event,ip,sym,symoff,dso and a callchain:
 *
 *	"%s %5d/%-5d [%03d] %12s: %10llu %s: \n"	(time "secs.usecs")
 *	"\t%16llx %s+0x%llx (%s)\n"			per frame, leaf first
 *	"\n"						after each sample
 *
 * User frames print the offset in the DSO, kernel frames the address, as
 * perf does; unresolved frames print "[unknown]" without offset.
 *
 * kprof's own records (LOST, THROTTLE, UNTHROTTLE, KERNEL_THROTTLED,
 * RATE_LOWERED) are printed as comment blocks between samples:
 *
 *	"# kprof LOST cpu=1 time=12.345678 full=3 nested=0 ...\n\n"
 *
 * stackcollapse-perf.pl and the Firefox Profiler skip lines starting with
 * '#'; speedscope parses each blank-line separated block and drops one
 * whose first line has no " <number> " token, which "key=value" lines never
 * have.  The output starts with a "# ========" header block, which is how
 * the Firefox Profiler recognizes `perf script --header` output.
 */
#include <stdlib.h>

#include "output.h"

struct script {
	struct output o;
	const char *event;
	int header_done;
};

static void script_header(struct script *s)
{
	if (s->header_done)
		return;
	s->header_done = 1;
	fprintf(s->o.f, "# ========\n# kprofcat: event %s\n# ========\n#\n\n", s->event);
}

static void fmt_time(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL / 1000));
}

static int script_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct script *s = (struct script *)o;
	const struct kp_sample *smp = &r->sample;
	char t[32];
	unsigned int i;

	script_header(s);
	fmt_time(t, sizeof(t), smp->time);
	if (smp->comm[0])
		fprintf(o->f, "%s ", smp->comm);
	else
		fprintf(o->f, ":%u ", smp->tid);
	fprintf(o->f, "%5u/%-5u [%03u] %12s: %10llu %s: \n", smp->pid, smp->tid,
		smp->cpu, t, (unsigned long long)smp->period, s->event);
	for (i = 0; i < nr; i++) {
		if (f[i].sym)
			fprintf(o->f, "\t%16llx %s+0x%llx (%s)\n", (unsigned long long)f[i].addr,
				f[i].sym, (unsigned long long)f[i].off, f[i].dso);
		else
			fprintf(o->f, "\t%16llx [unknown] (%s)\n",
				(unsigned long long)f[i].addr, f[i].dso);
	}
	fputc('\n', o->f);
	return ferror(o->f) ? -1 : 0;
}

static int script_event(struct output *o, const struct kp_record *r)
{
	struct script *s = (struct script *)o;
	const char *name = decode__type_name(r->type);
	char t[32];

	script_header(s);
	fmt_time(t, sizeof(t), r->time);
	fprintf(o->f, "# kprof %s cpu=%u time=%s", name, r->cpu, t);
	switch (r->type) {
	case KPROF_RECORD_LOST:
		fprintf(o->f, " full=%llu nested=%llu stopped=%llu throttled=%llu",
			(unsigned long long)r->lost.full, (unsigned long long)r->lost.nested,
			(unsigned long long)r->lost.stopped,
			(unsigned long long)r->lost.throttled);
		if (r->lost.throttle || r->lost.unthrottle || r->lost.lowered ||
		    r->lost.would)
			fprintf(o->f, " records: throttle=%u unthrottle=%u lowered=%u would=%u",
				r->lost.throttle, r->lost.unthrottle,
				r->lost.lowered, r->lost.would);
		break;
	case KPROF_RECORD_THROTTLE:
		/* Which limit(s) tripped; none named by older producers. */
		if (r->misc & (KPROF_MISC_THROTTLE_OWN | KPROF_MISC_THROTTLE_KERNEL))
			fprintf(o->f, " limits=%s%s%s",
				r->misc & KPROF_MISC_THROTTLE_OWN ? "kprof" : "",
				(r->misc & KPROF_MISC_THROTTLE_OWN) &&
				(r->misc & KPROF_MISC_THROTTLE_KERNEL) ? "," : "",
				r->misc & KPROF_MISC_THROTTLE_KERNEL ? "kernel" : "");
		/* fall through */
	case KPROF_RECORD_UNTHROTTLE:
	case KPROF_RECORD_KERNEL_THROTTLED:
	case KPROF_RECORD_WOULD_THROTTLE:
		fprintf(o->f, " seq=%llu tick=%llu interrupts=%llu",
			(unsigned long long)r->throttle.seq, (unsigned long long)r->throttle.tick,
			(unsigned long long)r->throttle.interrupts);
		break;
	case KPROF_RECORD_RATE_LOWERED:
		fprintf(o->f, " avg_ns=%llu old_allowed_ns=%llu max_samples_per_tick=%llu max_sample_rate=%llu",
			(unsigned long long)r->lowered.avg_ns,
			(unsigned long long)r->lowered.old_allowed_ns,
			(unsigned long long)r->lowered.max_samples_per_tick,
			(unsigned long long)r->lowered.max_sample_rate);
		break;
	}
	fputs("\n\n", o->f);
	return ferror(o->f) ? -1 : 0;
}

static int script_finish(struct output *o, const struct out_summary *sum)
{
	(void)sum;
	script_header((struct script *)o);
	return fflush(o->f) ? -1 : 0;
}

static void script_free(struct output *o)
{
	free(o);
}

static const struct output_ops script_ops = {
	.sample = script_sample,
	.event = script_event,
	.finish = script_finish,
	.free = script_free,
};

struct output *output_script__new(FILE *f, const char *event)
{
	struct script *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o.ops = &script_ops;
	s->o.f = f;
	s->o.needs_frames = 1;
	s->event = event;
	return &s->o;
}
