// SPDX-License-Identifier: GPL-2.0
/*
 * framediff: how many frame lines of two perf-script texts differ.
 *
 *   framediff A B
 *
 * Both are read as streams (FIFOs are fine) and split into samples: a
 * sample starts at a line that is neither a frame ("\t...") nor blank nor a
 * comment ('#'), and holds the frame lines after it.  Sample I of A is
 * compared with sample I of B frame by frame: each position where the lines
 * differ counts, and so does each frame one of them has beyond the other's
 * last.  Sample header lines are not compared (kprofcat prints pid/tid,
 * perf script's default only the tid).  Prints
 * "samples=NA/NB frames=FA/FB differing=D" and the first few differences
 * on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stream {
	FILE *f;
	char *line;		/* the header line of the next sample, if any */
	size_t cap;
	int eof;
	unsigned long long samples, frames;
};

struct sample {
	char **frames;
	size_t nr, cap;
};

static int next_line(struct stream *s)
{
	if (s->eof || getline(&s->line, &s->cap, s->f) < 0) {
		s->eof = 1;
		return 0;
	}
	return 1;
}

/* Read the next sample's frames into SM; 0 at the end. */
static int next_sample(struct stream *s, struct sample *sm)
{
	size_t i;

	for (i = 0; i < sm->nr; i++)
		free(sm->frames[i]);
	sm->nr = 0;
	/* Skip to a header. */
	while (!s->eof && (!s->line || s->line[0] == '\t' || s->line[0] == '\n' ||
			   s->line[0] == '#'))
		next_line(s);
	if (s->eof)
		return 0;
	s->samples++;
	while (next_line(s) && s->line[0] == '\t') {
		if (sm->nr == sm->cap) {
			sm->cap = sm->cap ? sm->cap * 2 : 64;
			sm->frames = realloc(sm->frames, sm->cap * sizeof(*sm->frames));
			if (!sm->frames) {
				perror("framediff");
				exit(2);
			}
		}
		sm->frames[sm->nr++] = strdup(s->line);
		s->frames++;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct stream a = { 0 }, b = { 0 };
	struct sample sa = { 0 }, sb = { 0 };
	unsigned long long differing = 0, shown = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: framediff A B\n");
		return 2;
	}
	a.f = fopen(argv[1], "r");
	b.f = fopen(argv[2], "r");
	if (!a.f || !b.f) {
		perror("framediff");
		return 2;
	}
	for (;;) {
		int ha = next_sample(&a, &sa), hb = next_sample(&b, &sb);
		size_t i, n = sa.nr > sb.nr ? sa.nr : sb.nr;

		if (!ha && !hb)
			break;
		for (i = 0; i < n; i++) {
			const char *x = i < sa.nr ? sa.frames[i] : "(none)\n";
			const char *y = i < sb.nr ? sb.frames[i] : "(none)\n";

			if (!strcmp(x, y))
				continue;
			differing++;
			if (shown++ < 5)
				fprintf(stderr, "framediff: sample %llu frame %zu:\n  %s  %s",
					ha ? a.samples : b.samples, i, x, y);
		}
	}
	printf("samples=%llu/%llu frames=%llu/%llu differing=%llu\n",
	       a.samples, b.samples, a.frames, b.frames, differing);
	return 0;
}
