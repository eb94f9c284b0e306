// SPDX-License-Identifier: GPL-2.0
/*
 * grammar.c - `perf script` text against the line grammars of the tools
 * that read it (grammar.h).
 */
#include <regex.h>
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

static int grammar_compile(struct grammar_res *g)
{
	return regcomp(&g->sc_event1, "^(" G_NS "+" G_S "*" G_NS "*)" G_S "+(" G_D "+)" G_S, REG_EXTENDED | REG_NOSUB) ||
	       regcomp(&g->sc_event2, "^(" G_NS "+" G_S "*" G_NS "*)" G_S "+(" G_D "+)/(" G_D "+)", REG_EXTENDED | REG_NOSUB) ||
	       regcomp(&g->frame, "^" G_S "*(" G_W "+)" G_S "*(.+) \\((" G_NS "*)\\)", REG_EXTENDED | REG_NOSUB) ||
	       regcomp(&g->ss_event, "^(" G_NS ".+)" G_S "+(" G_D "+)(/?(" G_D "+))?" G_S "+", REG_EXTENDED | REG_NOSUB) ||
	       regcomp(&g->ss_evname, "(" G_NS "+):" G_S "*$", REG_EXTENDED) ||
	       regcomp(&g->ff_detect, "^" G_NS ".*" G_S "+(" G_D "+/)?" G_D "+" G_S "+(\\[" G_D "+\\]" G_S "+)?[0-9.]+:", REG_EXTENDED | REG_NOSUB) ||
	       regcomp(&g->ff_start, "^(.*)" G_S "+([0-9.]+):", REG_EXTENDED) ||
	       regcomp(&g->ff_thread, "^(.*)" G_S "+((" G_D "+)/)?(" G_D "+)(" G_S "|$)", REG_EXTENDED | REG_NOSUB);
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

/* TEXT is modified (split into lines).  0 when every parser agrees. */
int grammar_check(char *text, struct grammar_result *r)
{
	struct grammar_res g;
	char *line, *next, ss_event[64] = "";
	unsigned long sc_samples = 0, ss_samples = 0, ff_samples = 0, lineno = 0;
	int in_sample = 0, block_start = 1, block_is_comment = 0, ret = -1;
	unsigned long frames = 0;

	memset(r, 0, sizeof(*r));
	if (grammar_compile(&g)) {
		snprintf(r->err, sizeof(r->err), "regcomp failed");
		return -1;
	}
	/* Firefox Profiler: format detection on the raw text. */
	if (strncmp(text, "# ========\n", 11)) {
		char first[512];
		size_t n = strcspn(text, "\n");

		snprintf(first, sizeof(first), "%.*s", (int)(n < 511 ? n : 511), text);
		if (!g_match(&g.ff_detect, first)) {
			snprintf(r->err, sizeof(r->err), "Firefox Profiler would not recognize the format: first line '%.200s'", first);
			goto out;
		}
	}
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next) {
			snprintf(r->err, sizeof(r->err), "line %lu has no newline", lineno + 1);
			goto out;
		}
		*next++ = '\0';
		lineno++;
		if (!*line) {			/* blank: every parser ends the block */
			if (in_sample) {
				sc_samples++;
				ss_samples++;
				ff_samples++;
			}
			in_sample = 0;
			block_start = 1;
			block_is_comment = 0;
			continue;
		}
		if (block_start) {
			block_start = 0;
			if (line[0] == '#') {
				/* Skipped by stackcollapse and Firefox; speedscope
				 * must not see an event in this block. */
				if (g_match(&g.ss_event, line)) {
					snprintf(r->err, sizeof(r->err), "line %lu: speedscope would take comment '%.200s' for an event", lineno, line);
					goto out;
				}
				block_is_comment = 1;
				r->comments++;
				continue;
			}
			if (!(g_match(&g.sc_event1, line) || g_match(&g.sc_event2, line))) {
				snprintf(r->err, sizeof(r->err), "line %lu: stackcollapse-perf: not an event line: '%.200s'", lineno, line);
				goto out;
			}
			if (!g_match(&g.ss_event, line)) {
				snprintf(r->err, sizeof(r->err), "line %lu: speedscope: not an event line: '%.200s'", lineno, line);
				goto out;
			}
			{
				regmatch_t m[2];
				char start[512];

				if (regexec(&g.ss_evname, line, 2, m, 0)) {
					snprintf(r->err, sizeof(r->err), "line %lu: speedscope: no event name", lineno);
					goto out;
				}
				snprintf(start, sizeof(start), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
				if (!ss_event[0])
					snprintf(ss_event, sizeof(ss_event), "%.63s", start);
				else if (strcmp(ss_event, start)) {
					snprintf(r->err, sizeof(r->err), "line %lu: speedscope would drop event '%.200s' (first was '%.200s')", lineno, start, ss_event);
					goto out;
				}
				if (regexec(&g.ff_start, line, 2, m, 0)) {
					snprintf(r->err, sizeof(r->err), "line %lu: Firefox Profiler: not a sample start", lineno);
					goto out;
				}
				snprintf(start, sizeof(start), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line);
				if (!g_match(&g.ff_thread, start)) {
					snprintf(r->err, sizeof(r->err), "line %lu: Firefox Profiler: no pid/tid in '%.200s'", lineno, start);
					goto out;
				}
			}
			in_sample = 1;
			continue;
		}
		if (block_is_comment) {
			if (line[0] != '#') {
				snprintf(r->err, sizeof(r->err), "line %lu: text inside a comment block", lineno);
				goto out;
			}
			continue;
		}
		if (line[0] == '#' || !g_match(&g.frame, line)) {
			snprintf(r->err, sizeof(r->err), "line %lu: not a frame line: '%.200s'", lineno, line);
			goto out;
		}
		frames++;
	}
	if (in_sample) {
		snprintf(r->err, sizeof(r->err), "the last sample has no blank line after it");
		goto out;
	}
	r->samples = sc_samples;
	r->frames = frames;
	ret = sc_samples == ss_samples && ss_samples == ff_samples ? 0 : -1;
out:
	grammar_free(&g);
	return ret;
}
