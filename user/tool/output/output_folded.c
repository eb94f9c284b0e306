// SPDX-License-Identifier: GPL-2.0
/*
 * output_folded.c - folded stacks, as stackcollapse-perf.pl writes them:
 * "comm;root;...;leaf COUNT", one line per unique stack, sorted, spaces
 * in comm turned into '_', ';' in names into ':', kernel frames suffixed
 * "_[k]" (stackcollapse-perf.pl --all), COUNT in samples or, with
 * --weight=period, summed periods.
 *
 * Per sample nothing is formatted: each comm and each frame's sym_id maps
 * to a token (its text as printed, interned, so equal texts are one
 * token), and a stack is counted under its sequence of tokens.  The lines
 * are made once, at the end; token sequences and lines correspond one to
 * one, so the counts are those of the lines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "lib/util/strmap.h"

#define MAX_TOKENS	(2 * KPROF_MAX_STACK + 2)

struct fstack {
	struct fstack *next;	/* in its hash bucket */
	uint64_t hash, count;
	uint32_t n;		/* tokens: comm, then the frames root first */
	uint32_t tok[];
};

struct folded {
	struct output o;
	int weight_period;
	const char *event;
	struct out_totals tot;
	struct strmap *tokens;		/* text -> a = token + 1 */
	const char **tok_text;
	uint32_t nr_tok, tok_cap;
	uint32_t *by_id;		/* sym_id -> token + 1 */
	uint32_t nr_ids;
	struct fstack **buckets;
	size_t nr_buckets, nr_stacks;
	/* The last comm seen, and its token. */
	char last_comm[KPROF_COMM_LEN];
	uint32_t last_tid, last_tok;
	int have_last;
	char *buf;
	size_t cap;
};

/* Token of TEXT (LEN bytes), made on first sight. */
static int token(struct folded *fo, const char *text, size_t len, uint32_t *tok)
{
	struct strmap_entry *e = strmap__get(fo->tokens, text, len);

	if (!e)
		return -ENOMEM;
	if (!e->a) {
		if (fo->nr_tok == fo->tok_cap) {
			uint32_t cap = fo->tok_cap ? fo->tok_cap * 2 : 1024;
			const char **t = realloc(fo->tok_text, cap * sizeof(*t));

			if (!t)
				return -ENOMEM;
			fo->tok_text = t;
			fo->tok_cap = cap;
		}
		fo->tok_text[fo->nr_tok] = e->key;
		e->a = ++fo->nr_tok;
	}
	*tok = e->a - 1;
	return 0;
}

/* Text of S as folded prints it: ';' -> ':', and in comm ' ' -> '_'. */
static int escaped_token(struct folded *fo, const char *s, int comm, int kernel, uint32_t *tok)
{
	size_t n = strlen(s), i;

	if (n + 5 > fo->cap) {
		char *b = realloc(fo->buf, (n + 5) * 2);

		if (!b)
			return -ENOMEM;
		fo->buf = b;
		fo->cap = (n + 5) * 2;
	}
	for (i = 0; i < n; i++)
		fo->buf[i] = s[i] == ';' ? ':' : s[i] == ' ' && comm ? '_' : s[i];
	if (kernel) {
		memcpy(fo->buf + n, "_[k]", 4);
		n += 4;
	}
	return token(fo, fo->buf, n, tok);
}

static int frame_token(struct folded *fo, const struct out_frame *f, uint32_t *tok)
{
	if (f->sym_id >= fo->nr_ids) {
		uint32_t n = fo->nr_ids ? fo->nr_ids : 1024, *v;

		while (n <= f->sym_id)
			n *= 2;
		v = realloc(fo->by_id, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + fo->nr_ids, 0, (n - fo->nr_ids) * sizeof(*v));
		fo->by_id = v;
		fo->nr_ids = n;
	}
	if (!fo->by_id[f->sym_id]) {
		if (escaped_token(fo, f->sym ? f->sym : "[unknown]", 0, f->kernel, tok))
			return -ENOMEM;
		fo->by_id[f->sym_id] = *tok + 1;
	}
	*tok = fo->by_id[f->sym_id] - 1;
	return 0;
}

static uint64_t hash_tokens(const uint32_t *t, uint32_t n)
{
	uint64_t h = 1469598103934665603ULL;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = (h ^ t[i]) * 1099511628211ULL;
	return h ^ h >> 29;
}

static int grow_buckets(struct folded *fo)
{
	size_t n = fo->nr_buckets ? fo->nr_buckets * 2 : 4096, i;
	struct fstack **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < fo->nr_buckets; i++) {
		while (fo->buckets[i]) {
			struct fstack *st = fo->buckets[i];

			fo->buckets[i] = st->next;
			st->next = b[st->hash & (n - 1)];
			b[st->hash & (n - 1)] = st;
		}
	}
	free(fo->buckets);
	fo->buckets = b;
	fo->nr_buckets = n;
	return 0;
}

static int folded_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct folded *fo = (struct folded *)o;
	uint32_t tok[MAX_TOKENS], n = 0;
	struct fstack *st;
	char comm[24];
	uint64_t h;
	unsigned int i;

	if (!fo->have_last || memcmp(fo->last_comm, r->sample.comm, sizeof(fo->last_comm)) ||
	    (!r->sample.comm[0] && fo->last_tid != r->sample.tid)) {
		if (r->sample.comm[0])
			snprintf(comm, sizeof(comm), "%s", r->sample.comm);
		else
			snprintf(comm, sizeof(comm), ":%u", r->sample.tid);
		if (escaped_token(fo, comm, 1, 0, &fo->last_tok))
			return -1;
		memcpy(fo->last_comm, r->sample.comm, sizeof(fo->last_comm));
		fo->last_tid = r->sample.tid;
		fo->have_last = 1;
	}
	tok[n++] = fo->last_tok;
	for (i = nr; i-- > 0 && n < MAX_TOKENS;)
		if (frame_token(fo, &f[i], &tok[n++]))
			return -1;
	if (fo->nr_stacks >= fo->nr_buckets && grow_buckets(fo))
		return -1;
	h = hash_tokens(tok, n);
	for (st = fo->buckets[h & (fo->nr_buckets - 1)]; st; st = st->next)
		if (st->hash == h && st->n == n && !memcmp(st->tok, tok, n * sizeof(*tok)))
			break;
	if (!st) {
		st = malloc(sizeof(*st) + n * sizeof(*tok));
		if (!st)
			return -1;
		st->hash = h;
		st->count = 0;
		st->n = n;
		memcpy(st->tok, tok, n * sizeof(*tok));
		st->next = fo->buckets[h & (fo->nr_buckets - 1)];
		fo->buckets[h & (fo->nr_buckets - 1)] = st;
		fo->nr_stacks++;
	}
	st->count += fo->weight_period ? r->sample.period : 1;
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

static int folded_finish(struct output *o, const struct out_summary *s)
{
	struct folded *fo = (struct folded *)o;
	struct line *v = calloc(fo->nr_stacks + 1, sizeof(*v));
	size_t nr = 0, i;
	int ret = 0;

	(void)s;
	if (!v)
		return -1;
	for (i = 0; i < fo->nr_buckets; i++) {
		struct fstack *st;

		for (st = fo->buckets[i]; st; st = st->next) {
			size_t len = 0, k;
			uint32_t j;
			char *t;

			for (j = 0; j < st->n; j++)
				len += strlen(fo->tok_text[st->tok[j]]) + 1;
			t = malloc(len + 1);
			if (!t) {
				ret = -1;
				goto out;
			}
			for (j = 0, k = 0; j < st->n; j++) {
				size_t l = strlen(fo->tok_text[st->tok[j]]);

				if (j)
					t[k++] = ';';
				memcpy(t + k, fo->tok_text[st->tok[j]], l);
				k += l;
			}
			t[k] = '\0';
			v[nr].text = t;
			v[nr++].count = st->count;
		}
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
	return ret;
}

static void folded_free(struct output *o)
{
	struct folded *fo = (struct folded *)o;
	size_t i;

	for (i = 0; i < fo->nr_buckets; i++) {
		while (fo->buckets[i]) {
			struct fstack *st = fo->buckets[i];

			fo->buckets[i] = st->next;
			free(st);
		}
	}
	free(fo->buckets);
	strmap__free(fo->tokens);
	free(fo->tok_text);
	free(fo->by_id);
	free(fo->buf);
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
	fo->tokens = strmap__new();
	if (!fo->tokens) {
		free(fo);
		return NULL;
	}
	fo->o.ops = &folded_ops;
	fo->o.f = f;
	fo->o.needs_frames = 1;
	fo->weight_period = weight_period;
	fo->event = event;
	return &fo->o;
}
