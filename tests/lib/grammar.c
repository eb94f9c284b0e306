// SPDX-License-Identifier: GPL-2.0
/*
 * grammar.c - `perf script` text against the line grammars of the tools
 * that read it (grammar.h).
 */
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grammar.h"

#define G_S	"[[:space:]]"
#define G_NS	"[^[:space:]]"
#define G_D	"[0-9]"
#define G_W	"[[:alnum:]_]"

struct grammar_res {
	regex_t sc_event1, sc_event2, frame, ss_event, ss_evname, ff_detect,
		ff_start, ff_thread;
};

#define G_NOSUB	(REG_EXTENDED | REG_NOSUB)

static int grammar_compile(struct grammar_res *g)
{
	return regcomp(&g->sc_event1,
		       "^(" G_NS "+" G_S "*" G_NS "*)" G_S "+(" G_D "+)" G_S, G_NOSUB) ||
	       regcomp(&g->sc_event2,
		       "^(" G_NS "+" G_S "*" G_NS "*)" G_S "+(" G_D "+)/(" G_D "+)", G_NOSUB) ||
	       regcomp(&g->frame,
		       "^" G_S "*(" G_W "+)" G_S "*(.+) \\((" G_NS "*)\\)", G_NOSUB) ||
	       regcomp(&g->ss_event,
		       "^(" G_NS ".+)" G_S "+(" G_D "+)(/?(" G_D "+))?" G_S "+", G_NOSUB) ||
	       regcomp(&g->ss_evname, "(" G_NS "+):" G_S "*$", REG_EXTENDED) ||
	       regcomp(&g->ff_detect,
		       "^" G_NS ".*" G_S "+(" G_D "+/)?" G_D "+" G_S "+(\\[" G_D "+\\]" G_S
		       "+)?[0-9.]+:", G_NOSUB) ||
	       regcomp(&g->ff_start, "^(.*)" G_S "+([0-9.]+):", REG_EXTENDED) ||
	       regcomp(&g->ff_thread,
		       "^(.*)" G_S "+((" G_D "+)/)?(" G_D "+)(" G_S "|$)", G_NOSUB);
}

static void grammar_free(struct grammar_res *g)
{
	regfree(&g->sc_event1);
	regfree(&g->sc_event2);
	regfree(&g->frame);
	regfree(&g->ss_event);
	regfree(&g->ss_evname);
	regfree(&g->ff_detect);
	regfree(&g->ff_start);
	regfree(&g->ff_thread);
}

static int g_match(const regex_t *re, const char *s)
{
	return !regexec(re, s, 0, NULL, 0);
}

/* The three parsers' view of the text so far. */
struct gstate {
	struct grammar_res g;
	struct grammar_result *r;
	char ss_event[64];		/* speedscope: the first event's name */
	unsigned long sc_samples, ss_samples, ff_samples, lineno, frames;
	int in_sample, block_start, block_is_comment;
};

static int gfail(struct gstate *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int gfail(struct gstate *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->r->err, sizeof(s->r->err), fmt, ap);
	va_end(ap);
	return -1;
}

/* Firefox Profiler's format detection, on the raw text. */
static int ff_recognized(struct gstate *s, const char *text)
{
	char first[512];
	size_t n;

	if (!strncmp(text, "# ========\n", 11))
		return 0;
	n = strcspn(text, "\n");
	snprintf(first, sizeof(first), "%.*s", (int)(n < 511 ? n : 511), text);
	if (!g_match(&s->g.ff_detect, first))
		return gfail(s, "Firefox Profiler would not recognize the format: first line '%.200s'",
			     first);
	return 0;
}

/* An event line: speedscope's event name, Firefox Profiler's thread. */
static int event_line(struct gstate *s, const char *line)
{
	regmatch_t m[2];
	char start[512];

	if (regexec(&s->g.ss_evname, line, 2, m, 0))
		return gfail(s, "line %lu: speedscope: no event name", s->lineno);
	snprintf(start, sizeof(start), "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
		 line + m[1].rm_so);
	if (!s->ss_event[0])
		snprintf(s->ss_event, sizeof(s->ss_event), "%.63s", start);
	else if (strcmp(s->ss_event, start))
		return gfail(s, "line %lu: speedscope would drop event '%.200s' (first was '%.200s')",
			     s->lineno, start, s->ss_event);
	if (regexec(&s->g.ff_start, line, 2, m, 0))
		return gfail(s, "line %lu: Firefox Profiler: not a sample start", s->lineno);
	snprintf(start, sizeof(start), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line);
	if (!g_match(&s->g.ff_thread, start))
		return gfail(s, "line %lu: Firefox Profiler: no pid/tid in '%.200s'",
			     s->lineno, start);
	return 0;
}

/* The first line of a block: a comment block's, or a sample's event line. */
static int block_first_line(struct gstate *s, const char *line)
{
	s->block_start = 0;
	if (line[0] == '#') {
		/*
		 * Skipped by stackcollapse and Firefox; speedscope must not
		 * see an event in this block.
		 */
		if (g_match(&s->g.ss_event, line))
			return gfail(s, "line %lu: speedscope would take comment '%.200s' for an event",
				     s->lineno, line);
		s->block_is_comment = 1;
		s->r->comments++;
		return 0;
	}
	if (!(g_match(&s->g.sc_event1, line) || g_match(&s->g.sc_event2, line)))
		return gfail(s, "line %lu: stackcollapse-perf: not an event line: '%.200s'",
			     s->lineno, line);
	if (!g_match(&s->g.ss_event, line))
		return gfail(s, "line %lu: speedscope: not an event line: '%.200s'",
			     s->lineno, line);
	if (event_line(s, line))
		return -1;
	s->in_sample = 1;
	return 0;
}

static int one_line(struct gstate *s, const char *line)
{
	if (!*line) {			/* blank: every parser ends the block */
		if (s->in_sample) {
			s->sc_samples++;
			s->ss_samples++;
			s->ff_samples++;
		}
		s->in_sample = 0;
		s->block_start = 1;
		s->block_is_comment = 0;
		return 0;
	}
	if (s->block_start)
		return block_first_line(s, line);
	if (s->block_is_comment) {
		if (line[0] != '#')
			return gfail(s, "line %lu: text inside a comment block", s->lineno);
		return 0;
	}
	if (line[0] == '#' || !g_match(&s->g.frame, line))
		return gfail(s, "line %lu: not a frame line: '%.200s'", s->lineno, line);
	s->frames++;
	return 0;
}

/* TEXT is modified (split into lines).  0 when every parser agrees. */
int grammar_check(char *text, struct grammar_result *r)
{
	struct gstate s = { .r = r, .block_start = 1 };
	char *line, *next;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (grammar_compile(&s.g)) {
		snprintf(r->err, sizeof(r->err), "regcomp failed");
		return -1;
	}
	if (ff_recognized(&s, text))
		goto out;
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			gfail(&s, "line %lu has no newline", s.lineno + 1);
			goto out;
		}
		*next++ = '\0';
		s.lineno++;
		if (one_line(&s, line))
			goto out;
	}
	if (s.in_sample) {
		gfail(&s, "the last sample has no blank line after it");
		goto out;
	}
	r->samples = s.sc_samples;
	r->frames = s.frames;
	ret = s.sc_samples == s.ss_samples && s.ss_samples == s.ff_samples ? 0 : -1;
out:
	grammar_free(&s.g);
	return ret;
}
