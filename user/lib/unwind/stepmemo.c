// SPDX-License-Identifier: GPL-2.0
/*
 * stepmemo.c - a direct-mapped memo of frames by return address
 * (stepmemo.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/stepmemo.h"

/*
 * Slots: 1024 (64 KiB), one per address hash; a collision replaces.  A
 * program's hot chains return to a few hundred addresses.
 */
#define MEMO_SLOTS	1024

struct memo_slot {
	uint64_t ret;		/* 0: empty (no frame returns to 0) */
	struct stepmemo_key key;
	struct cfi_rule rule;
};

struct stepmemo {
	struct memo_slot slots[MEMO_SLOTS];
};

struct stepmemo *stepmemo__new(void)
{
	return calloc(1, sizeof(struct stepmemo));
}

void stepmemo__free(struct stepmemo *m)
{
	free(m);
}

void stepmemo__clear(struct stepmemo *m)
{
	memset(m->slots, 0, sizeof(m->slots));
}

static unsigned int slot_of(uint64_t ret)
{
	return (unsigned int)((ret * 0x9e3779b97f4a7c15ULL) >> 54) & (MEMO_SLOTS - 1);
}

const struct cfi_rule *stepmemo__find(const struct stepmemo *m, uint64_t ret, uint32_t gen,
				      uint64_t time)
{
	const struct memo_slot *s = &m->slots[slot_of(ret)];

	if (s->ret != ret || !ret || s->key.gen != gen || time < s->key.from ||
	    time >= s->key.to)
		return NULL;
	return &s->rule;
}

void stepmemo__add(struct stepmemo *m, uint64_t ret, const struct stepmemo_key *key,
		   const struct cfi_rule *rule)
{
	struct memo_slot *s = &m->slots[slot_of(ret)];

	s->ret = ret;
	s->key = *key;
	s->rule = *rule;
}
