// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - bounded reordering of records across CPUs (binary min-heap
 * keyed by time, then arrival order so equal times keep their order).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "merge.h"

struct held {
	uint64_t time;
	uint64_t order;
	unsigned int cpu;
	size_t len;
	unsigned char rec[];
};

struct merge {
	struct held **heap;
	size_t nr, cap, max_held;
	uint64_t window;
	uint64_t newest;	/* newest time pushed */
	uint64_t last_out;	/* time of the last record released */
	uint64_t order;
	uint64_t misordered;
};

struct merge *merge__new(uint64_t window_ns, size_t max_held)
{
	struct merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->window = window_ns;
	m->max_held = max_held ? max_held : 1;
	return m;
}

void merge__free(struct merge *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr; i++)
		free(m->heap[i]);
	free(m->heap);
	free(m);
}

static int before(const struct held *a, const struct held *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	return a->order < b->order;
}

static void swap(struct held **a, struct held **b)
{
	struct held *t = *a;

	*a = *b;
	*b = t;
}

int merge__push(struct merge *m, uint64_t time, unsigned int cpu,
		const void *rec, size_t len)
{
	struct held *h;
	size_t i;

	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct held **heap = realloc(m->heap, cap * sizeof(*heap));

		if (!heap)
			return -ENOMEM;
		m->heap = heap;
		m->cap = cap;
	}
	h = malloc(sizeof(*h) + len);
	if (!h)
		return -ENOMEM;
	h->time = time;
	h->order = m->order++;
	h->cpu = cpu;
	h->len = len;
	memcpy(h->rec, rec, len);
	if (time > m->newest)
		m->newest = time;
	i = m->nr++;
	m->heap[i] = h;
	while (i && before(m->heap[i], m->heap[(i - 1) / 2])) {
		swap(&m->heap[i], &m->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	return 0;
}

static struct held *pop(struct merge *m)
{
	struct held *top = m->heap[0];
	size_t i = 0;

	m->heap[0] = m->heap[--m->nr];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->nr && before(m->heap[l], m->heap[min]))
			min = l;
		if (r < m->nr && before(m->heap[r], m->heap[min]))
			min = r;
		if (min == i)
			break;
		swap(&m->heap[i], &m->heap[min]);
		i = min;
	}
	return top;
}

int merge__flush(struct merge *m, int all, merge_fn fn, void *ctx)
{
	uint64_t limit = m->newest > m->window ? m->newest - m->window : 0;
	int ret = 0;

	while (m->nr && (all || m->nr > m->max_held || m->heap[0]->time <= limit)) {
		struct held *h = pop(m);

		if (h->time < m->last_out)
			m->misordered++;
		else
			m->last_out = h->time;
		ret = fn(ctx, h->cpu, h->rec, h->len);
		free(h);
		if (ret)
			break;
	}
	return ret;
}

uint64_t merge__misordered(const struct merge *m)
{
	return m->misordered;
}

size_t merge__held(const struct merge *m)
{
	return m->nr;
}
