// SPDX-License-Identifier: GPL-2.0
/*
 * pidmap.c - open addressing, linear probing, grown at half load.  Pids
 * are below 2^22 (PID_MAX_LIMIT), so UINT32_MAX marks a free slot.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/stream/pidmap.h"

#define FREE	UINT32_MAX

struct slot {
	uint32_t pid;
	uint64_t value;
};

struct pidmap {
	struct slot *slots;
	uint32_t cap, nr;
};

static struct slot *alloc_slots(uint32_t cap)
{
	struct slot *s = malloc(cap * sizeof(*s));
	uint32_t i;

	if (s)
		for (i = 0; i < cap; i++)
			s[i].pid = FREE;
	return s;
}

struct pidmap *pidmap__new(void)
{
	struct pidmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cap = 64;
	m->slots = alloc_slots(m->cap);
	if (!m->slots) {
		free(m);
		return NULL;
	}
	return m;
}

void pidmap__free(struct pidmap *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m);
}

static uint32_t home(uint32_t pid, uint32_t cap)
{
	return (pid * 2654435761U) & (cap - 1);
}

static int grow(struct pidmap *m)
{
	uint32_t cap = m->cap * 2, i, j;
	struct slot *s = alloc_slots(cap);

	if (!s)
		return -1;
	for (i = 0; i < m->cap; i++) {
		if (m->slots[i].pid == FREE)
			continue;
		for (j = home(m->slots[i].pid, cap); s[j].pid != FREE; j = (j + 1) & (cap - 1))
			;
		s[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = s;
	m->cap = cap;
	return 0;
}

uint64_t *pidmap__get(struct pidmap *m, uint32_t pid, int create)
{
	uint32_t i;

	if (pid == FREE)
		return NULL;
	for (i = home(pid, m->cap); m->slots[i].pid != FREE; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].pid == pid)
			return &m->slots[i].value;
	if (!create)
		return NULL;
	if ((m->nr + 1) * 2 > m->cap) {
		if (grow(m))
			return NULL;
		for (i = home(pid, m->cap); m->slots[i].pid != FREE; i = (i + 1) & (m->cap - 1))
			;
	}
	m->slots[i].pid = pid;
	m->slots[i].value = 0;
	m->nr++;
	return &m->slots[i].value;
}
