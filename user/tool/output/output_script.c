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
 * kprof's own records (LOST, THROTTLE, UNTHROTTLE, RATE_LOWERED,
 * WOULD_THROTTLE) are printed as comment blocks between samples:
 *
 *	"# kprof LOST cpu=1 time=12.345678 full=3 nested=0 ...\n\n"
 *
 * stackcollapse-perf.pl and the Firefox Profiler skip lines starting with
 * '#'; speedscope parses each blank-line separated block and drops one
 * whose first line has no " <number> " token, which "key=value" lines never
 * have.  The output starts with a "# ========" header block, which is how
 * the Firefox Profiler recognizes `perf script --header` output.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/fmt.h"
#include "lib/stream/output.h"

/*
 * Everything goes through one buffer, written with one fwrite() when
 * full: per sample the header is formatted by hand and each frame is
 * the line the frame cache formatted once (out_frame.line).  64 KiB (a
 * pipe's worth) stays in the CPU's cache and costs 16 page faults, where
 * a larger one costs a fault per 4 KiB for no fewer bytes copied.
 */
#define BUF_SIZE	(64U << 10)
#define PREFIXES	64

/* "comm pid/tid [cpu] " of a recent sample, by CPU: threads repeat. */
struct prefix {
	uint32_t pid, tid, cpu, len;
	char comm[KPROF_COMM_LEN];
	char text[KPROF_COMM_LEN + 48];
};

struct script {
	struct output o;
	const char *event;
	size_t event_len;
	int header_done;
	int err;
	char *buf;
	size_t len, cap;
	struct prefix prefixes[PREFIXES];
};

static int script_flush(struct script *s)
{
	if (s->len && fwrite(s->buf, 1, s->len, s->o.f) != s->len)
		s->err = 1;
	s->len = 0;
	return s->err ? -1 : 0;
}

/* Room for N more bytes; NULL when memory ran out. */
static char *script_reserve(struct script *s, size_t n)
{
	if (s->len + n > s->cap) {
		script_flush(s);
		if (n > s->cap) {
			char *b = realloc(s->buf, n);

			if (!b)
				return NULL;
			s->buf = b;
			s->cap = n;
		}
	}
	return s->buf + s->len;
}

static void script_printf(struct script *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void script_printf(struct script *s, const char *fmt, ...)
{
	va_list ap;
	char *p = script_reserve(s, 512);
	int n;

	if (!p) {
		s->err = 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(p, 512, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->len += n < 512 ? n : 511;
}

static void script_header(struct script *s)
{
	if (s->header_done)
		return;
	s->header_done = 1;
	/* The event's name is known by now (replay reads it from the capture). */
	s->event_len = strlen(s->event);
	script_printf(s, "# ========\n# kprofcat: event %s\n# ========\n#\n\n", s->event);
}

static void fmt_time(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL / 1000));
}

/* "%s %5u/%-5u [%03u] " of SMP, from the cache when the thread repeats. */
static char *sample_prefix(struct script *s, char *p, const struct kp_sample *smp)
{
	struct prefix *x = &s->prefixes[smp->cpu % PREFIXES];
	char *q;

	if (x->len && x->tid == smp->tid && x->pid == smp->pid && x->cpu == smp->cpu &&
	    !memcmp(x->comm, smp->comm, sizeof(x->comm)))
		return fmt_str(p, x->text, x->len);
	q = x->text;
	if (smp->comm[0]) {
		q = fmt_str(q, smp->comm, strlen(smp->comm));
	} else {
		*q++ = ':';
		q = fmt_u(q, smp->tid);
	}
	*q++ = ' ';
	q = fmt_u_pad(q, smp->pid, 5);
	*q++ = '/';
	q = fmt_u_left(q, smp->tid, 5);
	q = fmt_str(q, " [", 2);
	q = fmt_u_zpad(q, smp->cpu, 3);
	q = fmt_str(q, "] ", 2);
	x->len = q - x->text;
	x->pid = smp->pid;
	x->tid = smp->tid;
	x->cpu = smp->cpu;
	memcpy(x->comm, smp->comm, sizeof(x->comm));
	return fmt_str(p, x->text, x->len);
}

/* "%s %5u/%-5u [%03u] %12s: %10llu %s: \n", the time "%llu.%06llu". */
static char *sample_header(struct script *s, char *p, const struct kp_sample *smp)
{
	uint64_t us = smp->time / 1000;
	char t[32], *e;
	size_t n;

	p = sample_prefix(s, p, smp);
	e = fmt_u(t, us / 1000000);
	*e++ = '.';
	e = fmt_u_zpad(e, us % 1000000, 6);
	for (n = e - t; n < 12; n++)
		*p++ = ' ';
	p = fmt_str(p, t, e - t);
	p = fmt_str(p, ": ", 2);
	p = fmt_u_pad(p, smp->period, 10);
	*p++ = ' ';
	p = fmt_str(p, s->event, s->event_len);
	return fmt_str(p, ": \n", 3);
}

static int script_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct script *s = (struct script *)o;
	size_t need = 128 + s->event_len;
	unsigned int i;
	char *p;

	script_header(s);
	for (i = 0; i < nr; i++)
		need += f[i].line_len;
	p = script_reserve(s, need);
	if (!p)
		return -1;
	p = sample_header(s, p, &r->sample);
	/* Lines that lie back to back (a cached call chain's) in one copy. */
	for (i = 0; i < nr; ) {
		const char *start = f[i].line, *end = start + f[i].line_len;

		for (i++; i < nr && f[i].line == end; i++)
			end += f[i].line_len;
		p = fmt_str(p, start, end - start);
	}
	*p++ = '\n';
	s->len = p - s->buf;
	return s->err ? -1 : 0;
}

static int script_event(struct output *o, const struct kp_record *r)
{
	struct script *s = (struct script *)o;
	const char *name = decode__type_name(r->type);
	char t[32];

	script_header(s);
	fmt_time(t, sizeof(t), r->time);
	script_printf(s, "# kprof %s cpu=%u time=%s", name, r->cpu, t);
	switch (r->type) {
	case KPROF_RECORD_LOST:
		script_printf(s, " full=%llu nested=%llu stopped=%llu throttled=%llu",
			      (unsigned long long)r->lost.full, (unsigned long long)r->lost.nested,
			      (unsigned long long)r->lost.stopped,
			      (unsigned long long)r->lost.throttled);
		if (r->lost.throttle || r->lost.unthrottle || r->lost.lowered ||
		    r->lost.would)
			script_printf(s, " records: throttle=%u unthrottle=%u lowered=%u would=%u",
				      r->lost.throttle, r->lost.unthrottle,
				      r->lost.lowered, r->lost.would);
		break;
	case KPROF_RECORD_THROTTLE:
		/* Which limit(s) tripped; none named by older producers. */
		if (r->misc & (KPROF_MISC_THROTTLE_OWN | KPROF_MISC_THROTTLE_KERNEL))
			script_printf(s, " limits=%s%s%s",
				      r->misc & KPROF_MISC_THROTTLE_OWN ? "kprof" : "",
				      (r->misc & KPROF_MISC_THROTTLE_OWN) &&
				      (r->misc & KPROF_MISC_THROTTLE_KERNEL) ? "," : "",
				      r->misc & KPROF_MISC_THROTTLE_KERNEL ? "kernel" : "");
		/* fall through */
	case KPROF_RECORD_UNTHROTTLE:
	case KPROF_RECORD_WOULD_THROTTLE:
		script_printf(s, " seq=%llu tick=%llu interrupts=%llu",
			      (unsigned long long)r->throttle.seq,
			      (unsigned long long)r->throttle.tick,
			      (unsigned long long)r->throttle.interrupts);
		break;
	case KPROF_RECORD_RATE_LOWERED:
		script_printf(s, " avg_ns=%llu old_allowed_ns=%llu max_samples_per_tick=%llu max_sample_rate=%llu",
			      (unsigned long long)r->lowered.avg_ns,
			      (unsigned long long)r->lowered.old_allowed_ns,
			      (unsigned long long)r->lowered.max_samples_per_tick,
			      (unsigned long long)r->lowered.max_sample_rate);
		break;
	}
	script_printf(s, "\n\n");
	return s->err ? -1 : 0;
}

static int script_finish(struct output *o, const struct out_summary *sum)
{
	struct script *s = (struct script *)o;

	(void)sum;
	script_header(s);
	if (script_flush(s))
		return -1;
	return fflush(o->f) || ferror(o->f) ? -1 : 0;
}

static void script_free(struct output *o)
{
	struct script *s = (struct script *)o;

	free(s->buf);
	free(s);
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
	s->buf = malloc(BUF_SIZE);
	if (!s->buf) {
		free(s);
		return NULL;
	}
	s->cap = BUF_SIZE;
	s->o.ops = &script_ops;
	s->o.f = f;
	s->o.needs_frames = 1;
	s->event = event;
	return &s->o;
}
