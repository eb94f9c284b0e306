// SPDX-License-Identifier: GPL-2.0
/*
 * output_report.c - top symbols: self share (samples whose leaf frame is
 * the symbol) and total share (samples with the symbol anywhere in the
 * stack, counted once per sample), with sample counts, sorted by self.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "strmap.h"

#define REPORT_MAX_ROWS	50

struct report {
	struct output o;
	const char *event;
	struct strmap *syms;
	uint64_t samples;
	/* Entry of each out_frame.sym_id, made the first time it shows. */
	struct strmap_entry **by_id;
	uint32_t nr_ids;
};

static struct strmap_entry *sym_entry(struct report *rp, const struct out_frame *f)
{
	char key[512];
	int n = snprintf(key, sizeof(key), "%s (%s)", f->sym ? f->sym : "[unknown]", f->dso);

	if (n < 0)
		return NULL;
	if ((size_t)n >= sizeof(key))
		n = sizeof(key) - 1;
	return strmap__get(rp->syms, key, n);
}

/* The entry of F, through its sym_id: the key is formatted once per id. */
static struct strmap_entry *frame_entry(struct report *rp, const struct out_frame *f)
{
	if (f->sym_id >= rp->nr_ids) {
		uint32_t n = rp->nr_ids ? rp->nr_ids : 1024;
		struct strmap_entry **v;

		while (n <= f->sym_id)
			n *= 2;
		v = realloc(rp->by_id, n * sizeof(*v));
		if (!v)
			return NULL;
		memset(v + rp->nr_ids, 0, (n - rp->nr_ids) * sizeof(*v));
		rp->by_id = v;
		rp->nr_ids = n;
	}
	if (!rp->by_id[f->sym_id])
		rp->by_id[f->sym_id] = sym_entry(rp, f);
	return rp->by_id[f->sym_id];
}

static int report_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct report *rp = (struct report *)o;
	unsigned int i;

	(void)r;
	rp->samples++;
	for (i = 0; i < nr; i++) {
		struct strmap_entry *e = frame_entry(rp, &f[i]);

		if (!e)
			return -1;
		if (!i)
			e->a++;
		if (e->mark != rp->samples) {	/* recursion counts once */
			e->mark = rp->samples;
			e->b++;
		}
	}
	return 0;
}

static int cmp_self(const void *a, const void *b)
{
	const struct strmap_entry *x = *(struct strmap_entry *const *)a;
	const struct strmap_entry *y = *(struct strmap_entry *const *)b;

	if (x->a != y->a)
		return x->a > y->a ? -1 : 1;
	if (x->b != y->b)
		return x->b > y->b ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int report_finish(struct output *o, const struct out_summary *s)
{
	struct report *rp = (struct report *)o;
	double total = rp->samples ? (double)rp->samples : 1.0;
	struct strmap_entry **v;
	size_t nr, i;

	(void)s;
	v = strmap__entries(rp->syms, &nr);
	if (!v)
		return -1;
	qsort(v, nr, sizeof(*v), cmp_self);
	fprintf(o->f, "# kprofcat report: %llu samples of %s\n#\n",
		(unsigned long long)rp->samples, rp->event);
	fprintf(o->f, "#   Self%%   Total%%     Self    Total  Symbol (DSO)\n");
	for (i = 0; i < nr && i < REPORT_MAX_ROWS; i++)
		fprintf(o->f, "%8.2f%% %7.2f%% %8llu %8llu  %s\n",
			100.0 * v[i]->a / total, 100.0 * v[i]->b / total,
			(unsigned long long)v[i]->a, (unsigned long long)v[i]->b, v[i]->key);
	if (nr > REPORT_MAX_ROWS)
		fprintf(o->f, "# (%zu more symbols)\n", nr - REPORT_MAX_ROWS);
	free(v);
	return fflush(o->f) || ferror(o->f) ? -1 : 0;
}

static void report_free(struct output *o)
{
	struct report *rp = (struct report *)o;

	strmap__free(rp->syms);
	free(rp->by_id);
	free(rp);
}

static const struct output_ops report_ops = {
	.sample = report_sample,
	.finish = report_finish,
	.free = report_free,
};

struct output *output_report__new(FILE *f, const char *event)
{
	struct report *rp = calloc(1, sizeof(*rp));

	if (!rp)
		return NULL;
	rp->syms = strmap__new();
	if (!rp->syms) {
		free(rp);
		return NULL;
	}
	rp->o.ops = &report_ops;
	rp->o.f = f;
	rp->o.needs_frames = 1;
	rp->event = event;
	return &rp->o;
}
