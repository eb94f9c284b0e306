// SPDX-License-Identifier: GPL-2.0
/*
 * framediff: how many frame lines of two perf-script texts differ.
 *
 *   framediff A B
 *
 * Both are read as streams (FIFOs are fine), a sample at a time from each,
 * and split into samples: a sample starts at a line that is neither a frame
 * ("\t...") nor blank nor a comment ('#'), and holds the frame lines after
 * it.  Samples are paired by their time and CPU ("12.345678:" and
 * "[001]" in the header; the rest of the header is not compared: kprofcat
 * prints pid/tid, perf script's default only the tid), so a sample perf
 * prints out of time order (perf's rounds) still meets its peer.  Within
 * a pair each position where the frame lines differ counts, and so does
 * each frame one has beyond the other's last; a sample without a peer
 * counts all its frames.  Prints
 * "samples=NA/NB frames=FA/FB differing=D reordered=R" (R: pairs at
 * different positions) and the first few differences on stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sample {
	struct sample *next;	/* in its bucket */
	char key[64];
	unsigned long long index;
	char **frames;
	size_t nr, cap;
};

struct stream {
	FILE *f;
	char *line;
	size_t cap;
	int eof, started;
	unsigned long long samples, frames;
	struct sample **pending;	/* not yet paired, by key */
};

#define BUCKETS	65536

static unsigned long long differing, reordered, shown;

static void *xalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("framediff");
		exit(2);
	}
	return p;
}

static unsigned int hash(const char *s)
{
	unsigned int h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h % BUCKETS;
}

static int next_line(struct stream *s)
{
	if (s->eof || getline(&s->line, &s->cap, s->f) < 0) {
		s->eof = 1;
		return 0;
	}
	return 1;
}

/* "time: " and "[cpu]" of a header line. */
static void header_key(const char *line, char *key, size_t len)
{
	const char *cpu = strstr(line, " ["), *t = cpu ? strstr(cpu, "] ") : NULL;
	size_t n;

	key[0] = '\0';
	if (!cpu || !t)
		return;
	t += 2;
	while (*t == ' ')
		t++;
	n = strcspn(t, ":");
	snprintf(key, len, "%.*s %.*s", (int)n, t, (int)(strchr(cpu, ']') - cpu), cpu + 1);
}

static struct sample *next_sample(struct stream *s)
{
	struct sample *sm;

	if (!s->started) {
		next_line(s);
		s->started = 1;
	}
	while (!s->eof && (s->line[0] == '\t' || s->line[0] == '\n' || s->line[0] == '#'))
		next_line(s);
	if (s->eof)
		return NULL;
	sm = xalloc(sizeof(*sm));
	header_key(s->line, sm->key, sizeof(sm->key));
	sm->index = s->samples++;
	while (next_line(s) && s->line[0] == '\t') {
		if (sm->nr == sm->cap) {
			sm->cap = sm->cap ? sm->cap * 2 : 32;
			sm->frames = realloc(sm->frames, sm->cap * sizeof(*sm->frames));
			if (!sm->frames) {
				perror("framediff");
				exit(2);
			}
		}
		sm->frames[sm->nr++] = strdup(s->line);
		s->frames++;
	}
	return sm;
}

static void free_sample(struct sample *sm)
{
	size_t i;

	for (i = 0; i < sm->nr; i++)
		free(sm->frames[i]);
	free(sm->frames);
	free(sm);
}

static void compare(const struct sample *a, const struct sample *b)
{
	size_t i, n = a->nr > b->nr ? a->nr : b->nr;

	if (a->index != b->index)
		reordered++;
	for (i = 0; i < n; i++) {
		const char *x = i < a->nr ? a->frames[i] : "(none)\n";
		const char *y = i < b->nr ? b->frames[i] : "(none)\n";

		if (!strcmp(x, y))
			continue;
		differing++;
		if (shown++ < 5)
			fprintf(stderr, "framediff: sample at %s, frame %zu:\n  %s  %s",
				a->key, i, x, y);
	}
}

/* Pair SM (of THIS) with a pending sample of OTHER, or keep it pending. */
static void pair(struct stream *this, struct stream *other, struct sample *sm, int this_is_a)
{
	struct sample **p = &other->pending[hash(sm->key)];

	for (; *p; p = &(*p)->next) {
		if (strcmp((*p)->key, sm->key))
			continue;
		if (this_is_a)
			compare(sm, *p);
		else
			compare(*p, sm);
		{
			struct sample *o = *p;

			*p = o->next;
			free_sample(o);
		}
		free_sample(sm);
		return;
	}
	sm->next = this->pending[hash(sm->key)];
	this->pending[hash(sm->key)] = sm;
}

static unsigned long long leftover(struct stream *s)
{
	unsigned long long n = 0;
	unsigned int i;

	for (i = 0; i < BUCKETS; i++)
		while (s->pending[i]) {
			struct sample *sm = s->pending[i];

			s->pending[i] = sm->next;
			if (shown++ < 5)
				fprintf(stderr, "framediff: sample at %s has no peer\n", sm->key);
			n += sm->nr ? sm->nr : 1;
			free_sample(sm);
		}
	return n;
}

int main(int argc, char **argv)
{
	struct stream a = { 0 }, b = { 0 };

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
	a.pending = xalloc(BUCKETS * sizeof(*a.pending));
	b.pending = xalloc(BUCKETS * sizeof(*b.pending));
	for (;;) {
		struct sample *x = next_sample(&a), *y = next_sample(&b);

		if (!x && !y)
			break;
		if (x)
			pair(&a, &b, x, 1);
		if (y)
			pair(&b, &a, y, 0);
	}
	differing += leftover(&a) + leftover(&b);
	printf("samples=%llu/%llu frames=%llu/%llu differing=%llu reordered=%llu\n",
	       a.samples, b.samples, a.frames, b.frames, differing, reordered);
	return 0;
}
