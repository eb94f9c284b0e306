// SPDX-License-Identifier: GPL-2.0
/*
 * strmap.c - open hash of strings to counters, grown at 3/4 load.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/util/strmap.h"

struct strmap {
	struct strmap_entry **slots;
	size_t cap, nr;
};

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

struct strmap *strmap__new(void)
{
	struct strmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 1024;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void strmap__free(struct strmap *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->cap; i++)
		free(m->slots[i]);
	free(m->slots);
	free(m);
}

static int grow(struct strmap *m)
{
	size_t cap = m->cap * 2, i;
	struct strmap_entry **slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return -1;
	for (i = 0; i < m->cap; i++) {
		struct strmap_entry *e = m->slots[i];
		size_t j;

		if (!e)
			continue;
		j = hash(e->key, strlen(e->key)) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = e;
	}
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

struct strmap_entry *strmap__get(struct strmap *m, const char *key, size_t len)
{
	size_t i;
	struct strmap_entry *e;

	if ((m->nr + 1) * 4 > m->cap * 3 && grow(m))
		return NULL;
	i = hash(key, len) & (m->cap - 1);
	while ((e = m->slots[i])) {
		if (!strncmp(e->key, key, len) && e->key[len] == '\0')
			return e;
		i = (i + 1) & (m->cap - 1);
	}
	e = calloc(1, sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	memcpy((char *)(e + 1), key, len);
	e->key = (const char *)(e + 1);
	m->slots[i] = e;
	m->nr++;
	return e;
}

struct strmap_entry **strmap__entries(struct strmap *m, size_t *nr)
{
	struct strmap_entry **v = malloc((m->nr + 1) * sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return NULL;
	for (i = 0; i < m->cap; i++)
		if (m->slots[i])
			v[n++] = m->slots[i];
	*nr = n;
	return v;
}
