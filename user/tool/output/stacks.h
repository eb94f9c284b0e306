/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stacks.h - the samples' stacks counted by their folded text, for
 * --folded and --flamegraph (stacks.c): "comm;root;...;leaf", spaces in
 * comm turned into '_', ';' in names into ':', kernel frames suffixed
 * "_[k]" (stackcollapse-perf.pl --all).
 *
 * Per sample nothing is formatted: each comm and each frame's sym_id maps
 * to a token (its text as printed, interned, so equal texts are one
 * token), and a stack is counted under its sequence of tokens.  Token
 * sequences and folded lines correspond one to one.
 */
#ifndef KPROFCAT_STACKS_H
#define KPROFCAT_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "lib/stream/output.h"

/* Tokens of a stack at most: comm and the frames (the rest are cut). */
#define STACKS_MAX_TOKENS	(OUT_MAX_FRAMES + 1)

struct fstack {
	struct fstack *next;	/* in its hash bucket */
	uint64_t hash, count;
	uint32_t n;		/* tokens: comm, then the frames root first */
	uint32_t tok[];
};

struct strmap;

struct stacks {
	int weight_period;		/* count periods, not samples */
	struct strmap *tokens;		/* text -> a = token + 1 */
	const char **tok_text;		/* token -> its text */
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

/* -ENOMEM or 0. */
int stacks__init(struct stacks *s, int weight_period);
void stacks__exit(struct stacks *s);
/* Count sample R's stack (F: NR frames, leaf first); -ENOMEM or 0. */
int stacks__add(struct stacks *s, const struct kp_record *r,
		const struct out_frame *f, unsigned int nr);
/* Every stack, in no particular order, in an array the caller frees; NULL: -ENOMEM. */
struct fstack **stacks__list(const struct stacks *s);

#endif
