// SPDX-License-Identifier: GPL-2.0
/*
 * stacks.c - the samples' stacks counted by their folded text (stacks.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/strmap.h"
#include "tool/output/stacks.h"

int stacks__init(struct stacks *s, int weight_period)
{
	memset(s, 0, sizeof(*s));
	s->weight_period = weight_period;
	s->tokens = strmap__new();
	return s->tokens ? 0 : -ENOMEM;
}

/* Token of TEXT (LEN bytes), made on first sight. */
static int token(struct stacks *sk, const char *text, size_t len, uint32_t *tok)
{
	struct strmap_entry *e = strmap__get(sk->tokens, text, len);

	if (!e)
		return -ENOMEM;
	if (!e->a) {
		if (sk->nr_tok == sk->tok_cap) {
			uint32_t cap = sk->tok_cap ? sk->tok_cap * 2 : 1024;
			const char **t = realloc(sk->tok_text, cap * sizeof(*t));

			if (!t)
				return -ENOMEM;
			sk->tok_text = t;
			sk->tok_cap = cap;
		}
		sk->tok_text[sk->nr_tok] = e->key;
		e->a = ++sk->nr_tok;
	}
	*tok = e->a - 1;
	return 0;
}

/* Text of S as folded prints it: ';' -> ':', and in comm ' ' -> '_'. */
static int escaped_token(struct stacks *sk, const char *s, int comm, int kernel, uint32_t *tok)
{
	size_t n = strlen(s), i;

	if (n + 5 > sk->cap) {
		char *b = realloc(sk->buf, (n + 5) * 2);

		if (!b)
			return -ENOMEM;
		sk->buf = b;
		sk->cap = (n + 5) * 2;
	}
	for (i = 0; i < n; i++)
		sk->buf[i] = s[i] == ';' ? ':' : s[i] == ' ' && comm ? '_' : s[i];
	if (kernel) {
		memcpy(sk->buf + n, "_[k]", 4);
		n += 4;
	}
	return token(sk, sk->buf, n, tok);
}

static int frame_token(struct stacks *sk, const struct out_frame *f, uint32_t *tok)
{
	if (f->sym_id >= sk->nr_ids) {
		uint32_t n = sk->nr_ids ? sk->nr_ids : 1024, *v;

		while (n <= f->sym_id)
			n *= 2;
		v = realloc(sk->by_id, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + sk->nr_ids, 0, (n - sk->nr_ids) * sizeof(*v));
		sk->by_id = v;
		sk->nr_ids = n;
	}
	if (!sk->by_id[f->sym_id]) {
		if (escaped_token(sk, f->sym ? f->sym : "[unknown]", 0, f->kernel, tok))
			return -ENOMEM;
		sk->by_id[f->sym_id] = *tok + 1;
	}
	*tok = sk->by_id[f->sym_id] - 1;
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

static int grow_buckets(struct stacks *sk)
{
	size_t n = sk->nr_buckets ? sk->nr_buckets * 2 : 4096, i;
	struct fstack **b = calloc(n, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (i = 0; i < sk->nr_buckets; i++) {
		while (sk->buckets[i]) {
			struct fstack *st = sk->buckets[i];

			sk->buckets[i] = st->next;
			st->next = b[st->hash & (n - 1)];
			b[st->hash & (n - 1)] = st;
		}
	}
	free(sk->buckets);
	sk->buckets = b;
	sk->nr_buckets = n;
	return 0;
}

/* The token of R's comm (":TID" without one), kept while it repeats. */
static int comm_token(struct stacks *sk, const struct kp_record *r)
{
	char comm[24];

	if (sk->have_last && !memcmp(sk->last_comm, r->sample.comm, sizeof(sk->last_comm)) &&
	    (r->sample.comm[0] || sk->last_tid == r->sample.tid))
		return 0;
	if (r->sample.comm[0])
		snprintf(comm, sizeof(comm), "%s", r->sample.comm);
	else
		snprintf(comm, sizeof(comm), ":%u", r->sample.tid);
	if (escaped_token(sk, comm, 1, 0, &sk->last_tok))
		return -ENOMEM;
	memcpy(sk->last_comm, r->sample.comm, sizeof(sk->last_comm));
	sk->last_tid = r->sample.tid;
	sk->have_last = 1;
	return 0;
}

int stacks__add(struct stacks *sk, const struct kp_record *r,
		const struct out_frame *f, unsigned int nr)
{
	uint32_t tok[STACKS_MAX_TOKENS], n = 0;
	struct fstack *st;
	uint64_t h;
	unsigned int i;

	if (comm_token(sk, r))
		return -ENOMEM;
	tok[n++] = sk->last_tok;
	for (i = nr; i-- > 0 && n < STACKS_MAX_TOKENS;)
		if (frame_token(sk, &f[i], &tok[n++]))
			return -ENOMEM;
	if (sk->nr_stacks >= sk->nr_buckets && grow_buckets(sk))
		return -ENOMEM;
	h = hash_tokens(tok, n);
	for (st = sk->buckets[h & (sk->nr_buckets - 1)]; st; st = st->next)
		if (st->hash == h && st->n == n && !memcmp(st->tok, tok, n * sizeof(*tok)))
			break;
	if (!st) {
		st = malloc(sizeof(*st) + n * sizeof(*tok));
		if (!st)
			return -ENOMEM;
		st->hash = h;
		st->count = 0;
		st->n = n;
		memcpy(st->tok, tok, n * sizeof(*tok));
		st->next = sk->buckets[h & (sk->nr_buckets - 1)];
		sk->buckets[h & (sk->nr_buckets - 1)] = st;
		sk->nr_stacks++;
	}
	st->count += sk->weight_period ? r->sample.period : 1;
	return 0;
}

struct fstack **stacks__list(const struct stacks *s)
{
	struct fstack **v = malloc((s->nr_stacks + 1) * sizeof(*v));
	size_t i, n = 0;
	struct fstack *st;

	if (!v)
		return NULL;
	for (i = 0; i < s->nr_buckets; i++)
		for (st = s->buckets[i]; st; st = st->next)
			v[n++] = st;
	return v;
}

void stacks__exit(struct stacks *s)
{
	size_t i;

	for (i = 0; i < s->nr_buckets; i++) {
		while (s->buckets[i]) {
			struct fstack *st = s->buckets[i];

			s->buckets[i] = st->next;
			free(st);
		}
	}
	free(s->buckets);
	strmap__free(s->tokens);
	free(s->tok_text);
	free(s->by_id);
	free(s->buf);
}
