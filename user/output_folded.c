// SPDX-License-Identifier: GPL-2.0
/*
 * output_folded.c - folded stacks, as stackcollapse-perf.pl writes them:
 * "comm;root;...;leaf COUNT", one line per unique stack, sorted, spaces
 * in comm turned into '_', ';' in names into ':', kernel frames suffixed
 * "_[k]" (stackcollapse-perf.pl --all), COUNT in samples or, with
 * --weight=period, summed periods.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "strmap.h"

struct folded {
	struct output o;
	int weight_period;
	struct strmap *stacks;
	char *buf;
	size_t cap;
};

static int append(struct folded *fo, size_t *len, const char *s, int sep, int kernel)
{
	size_t n = strlen(s), need = *len + n + 6, i;

	if (need > fo->cap) {
		char *b = realloc(fo->buf, need * 2);

		if (!b)
			return -1;
		fo->buf = b;
		fo->cap = need * 2;
	}
	if (sep)
		fo->buf[(*len)++] = ';';
	for (i = 0; i < n; i++) {
		char c = s[i];

		fo->buf[(*len)++] = c == ';' ? ':' : c == ' ' && !sep ? '_' : c;
	}
	if (kernel) {
		memcpy(fo->buf + *len, "_[k]", 4);
		*len += 4;
	}
	return 0;
}

static int folded_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct folded *fo = (struct folded *)o;
	struct strmap_entry *e;
	size_t len = 0;
	char comm[24];
	unsigned int i;

	if (r->sample.comm[0])
		snprintf(comm, sizeof(comm), "%s", r->sample.comm);
	else
		snprintf(comm, sizeof(comm), ":%u", r->sample.tid);
	if (append(fo, &len, comm, 0, 0))
		return -1;
	for (i = nr; i-- > 0;)
		if (append(fo, &len, f[i].sym ? f[i].sym : "[unknown]", 1, f[i].kernel))
			return -1;
	e = strmap__get(fo->stacks, fo->buf, len);
	if (!e)
		return -1;
	e->a += fo->weight_period ? r->sample.period : 1;
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp((*(struct strmap_entry *const *)a)->key,
		      (*(struct strmap_entry *const *)b)->key);
}

static int folded_finish(struct output *o, const struct out_summary *s)
{
	struct folded *fo = (struct folded *)o;
	struct strmap_entry **v;
	size_t nr, i;

	(void)s;
	v = strmap__entries(fo->stacks, &nr);
	if (!v)
		return -1;
	qsort(v, nr, sizeof(*v), cmp_key);
	for (i = 0; i < nr; i++)
		fprintf(o->f, "%s %llu\n", v[i]->key, (unsigned long long)v[i]->a);
	free(v);
	return fflush(o->f) || ferror(o->f) ? -1 : 0;
}

static void folded_free(struct output *o)
{
	struct folded *fo = (struct folded *)o;

	strmap__free(fo->stacks);
	free(fo->buf);
	free(fo);
}

static const struct output_ops folded_ops = {
	.sample = folded_sample,
	.finish = folded_finish,
	.free = folded_free,
};

struct output *output_folded__new(FILE *f, int weight_period)
{
	struct folded *fo = calloc(1, sizeof(*fo));

	if (!fo)
		return NULL;
	fo->stacks = strmap__new();
	if (!fo->stacks) {
		free(fo);
		return NULL;
	}
	fo->o.ops = &folded_ops;
	fo->o.f = f;
	fo->o.needs_frames = 1;
	fo->weight_period = weight_period;
	return &fo->o;
}
