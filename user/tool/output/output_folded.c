// SPDX-License-Identifier: GPL-2.0
/*
 * output_folded.c - folded stacks, as stackcollapse-perf.pl writes them:
 * "comm;root;...;leaf COUNT", one line per unique stack, sorted, spaces
 * in comm turned into '_', ';' in names into ':', kernel frames suffixed
 * "_[k]" (stackcollapse-perf.pl --all), COUNT in samples or, with
 * --weight=period, summed periods.
 *
 * The stacks are counted by their tokens (stacks.c); the lines are made
 * once, at the end, and correspond one to one to the token sequences, so
 * the counts are those of the lines.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "tool/output/stacks.h"

struct folded {
	struct output o;
	const char *event;
	struct out_totals tot;
	struct stacks st;
};

static int folded_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct folded *fo = (struct folded *)o;

	if (stacks__add(&fo->st, r, f, nr))
		return -1;
	out_totals__sample(&fo->tot, r);
	return 0;
}

static int folded_event(struct output *o, const struct kp_record *r)
{
	out_totals__event(&((struct folded *)o)->tot, r);
	return 0;
}

/*
 * The totals go to stderr: flamegraph.pl reads every line ending in a
 * number as a stack (a "#" line too) and warns about the others.
 */
static void folded_totals(const struct folded *fo)
{
	const struct out_totals *t = &fo->tot;

	p_info("folded %llu samples of %s (period %llu); lost %llu (full %llu, nested %llu, stopped %llu, throttled %llu); %llu throttles, %llu rate lowerings",
	       (unsigned long long)t->samples, fo->event, (unsigned long long)t->period,
	       (unsigned long long)out_totals__lost(t), (unsigned long long)t->lost_full,
	       (unsigned long long)t->lost_nested, (unsigned long long)t->lost_stopped,
	       (unsigned long long)t->lost_throttled, (unsigned long long)t->throttles,
	       (unsigned long long)t->lowerings);
}

struct line {
	char *text;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

/* ST's folded line, "comm;root;...;leaf"; NULL: -ENOMEM. */
static char *folded_line(const struct stacks *sk, const struct fstack *st)
{
	size_t len = 0, k;
	uint32_t j;
	char *t;

	for (j = 0; j < st->n; j++)
		len += strlen(sk->tok_text[st->tok[j]]) + 1;
	t = malloc(len + 1);
	if (!t)
		return NULL;
	for (j = 0, k = 0; j < st->n; j++) {
		size_t l = strlen(sk->tok_text[st->tok[j]]);

		if (j)
			t[k++] = ';';
		memcpy(t + k, sk->tok_text[st->tok[j]], l);
		k += l;
	}
	t[k] = '\0';
	return t;
}

static int folded_finish(struct output *o, const struct out_summary *s)
{
	struct folded *fo = (struct folded *)o;
	struct fstack **stacks = stacks__list(&fo->st);
	struct line *v = calloc(fo->st.nr_stacks + 1, sizeof(*v));
	size_t nr = 0, i;
	int ret = -1;

	(void)s;
	if (!v || !stacks)
		goto out;
	for (nr = 0; nr < fo->st.nr_stacks; nr++) {
		v[nr].text = folded_line(&fo->st, stacks[nr]);
		if (!v[nr].text)
			goto out;
		v[nr].count = stacks[nr]->count;
	}
	qsort(v, nr, sizeof(*v), cmp_line);
	for (i = 0; i < nr; i++)
		fprintf(o->f, "%s %llu\n", v[i].text, (unsigned long long)v[i].count);
	folded_totals(fo);
	ret = fflush(o->f) || ferror(o->f) ? -1 : 0;
out:
	for (i = 0; i < nr; i++)
		free(v[i].text);
	free(v);
	free(stacks);
	return ret;
}

static void folded_free(struct output *o)
{
	struct folded *fo = (struct folded *)o;

	stacks__exit(&fo->st);
	free(fo);
}

static const struct output_ops folded_ops = {
	.sample = folded_sample,
	.event = folded_event,
	.finish = folded_finish,
	.free = folded_free,
};

struct output *output_folded__new(FILE *f, int weight_period, const char *event)
{
	struct folded *fo = calloc(1, sizeof(*fo));

	if (!fo)
		return NULL;
	if (stacks__init(&fo->st, weight_period)) {
		stacks__exit(&fo->st);
		free(fo);
		return NULL;
	}
	fo->o.ops = &folded_ops;
	fo->o.f = f;
	fo->o.needs_frames = 1;
	fo->event = event;
	return &fo->o;
}
