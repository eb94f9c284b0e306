// SPDX-License-Identifier: GPL-2.0
/*
 * merge.c - bounded reordering of records across CPUs.
 *
 * Each CPU's records almost always arrive in time order (one ring, one
 * clock), so each CPU gets a FIFO: a byte buffer its records are copied
 * into back to back, oldest first.  A record older than the last one its
 * CPU queued goes to a binary min-heap instead.  The oldest record held is
 * then the oldest of the FIFO heads and the heap's top, ordered by time,
 * then arrival, exactly the order one heap of everything would give: no
 * allocation or heap work per record in the common case.
 *
 * A record pushed by reference (merge__push_ref(): a capture's records,
 * mapped and readable until the file is closed) is held as its item alone,
 * pointing at it: the window then costs no copy of 8 KiB stack snapshots
 * and no memory beyond the items.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/stream/merge.h"

struct item {			/* in a FIFO, followed by the record unless REF */
	uint64_t time;
	uint64_t order;
	uint32_t len;
	uint32_t cpu;
	const void *ref;	/* the record, held by reference; NULL: a copy follows */
};

struct held {			/* in the heap */
	struct item it;
	unsigned char rec[];
};

struct fifo {
	unsigned char *buf;
	size_t head, tail, cap;	/* live bytes are [head, tail) */
	uint64_t last_time;	/* of the newest record queued */
	size_t nr;
};

struct merge {
	struct fifo *fifos;
	unsigned int nr_fifos;
	struct held **heap;
	size_t heap_nr, heap_cap;
	size_t nr, max_held;
	uint64_t window;
	uint64_t newest;	/* newest time pushed */
	uint64_t last_out;	/* time of the last record released */
	uint64_t order;
	uint64_t misordered;
};

/* Bytes of an item in a FIFO or the heap: with its copy, or alone (REF). */
#define ITEM_SIZE(len, ref) \
	(sizeof(struct item) + ((ref) ? 0 : ((len) + 7) & ~(size_t)7))

struct merge *merge__new(uint64_t window_ns, size_t max_held)
{
	struct merge *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->window = window_ns;
	m->max_held = max_held ? max_held : 1;
	return m;
}

void merge__set_window(struct merge *m, uint64_t window_ns)
{
	m->window = window_ns;
}

void merge__free(struct merge *m)
{
	unsigned int i;
	size_t j;

	if (!m)
		return;
	for (i = 0; i < m->nr_fifos; i++)
		free(m->fifos[i].buf);
	free(m->fifos);
	for (j = 0; j < m->heap_nr; j++)
		free(m->heap[j]);
	free(m->heap);
	free(m);
}

static int before(const struct item *a, const struct item *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	return a->order < b->order;
}

static void heap_swap(struct merge *m, size_t a, size_t b)
{
	struct held *t = m->heap[a];

	m->heap[a] = m->heap[b];
	m->heap[b] = t;
}

static int heap_push(struct merge *m, const struct item *it, const void *rec)
{
	struct held *h;
	size_t i;

	if (m->heap_nr == m->heap_cap) {
		size_t cap = m->heap_cap ? m->heap_cap * 2 : 64;
		struct held **heap = realloc(m->heap, cap * sizeof(*heap));

		if (!heap)
			return -ENOMEM;
		m->heap = heap;
		m->heap_cap = cap;
	}
	h = malloc(ITEM_SIZE(it->len, it->ref));
	if (!h)
		return -ENOMEM;
	h->it = *it;
	if (!it->ref)
		memcpy(h->rec, rec, it->len);
	i = m->heap_nr++;
	m->heap[i] = h;
	while (i && before(&m->heap[i]->it, &m->heap[(i - 1) / 2]->it)) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

static void heap_pop(struct merge *m)
{
	size_t i = 0;

	free(m->heap[0]);
	m->heap[0] = m->heap[--m->heap_nr];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;

		if (l < m->heap_nr && before(&m->heap[l]->it, &m->heap[min]->it))
			min = l;
		if (r < m->heap_nr && before(&m->heap[r]->it, &m->heap[min]->it))
			min = r;
		if (min == i)
			break;
		heap_swap(m, i, min);
		i = min;
	}
}

/* Room for N bytes at F's tail. */
static int fifo_reserve(struct fifo *f, size_t n)
{
	size_t live = f->tail - f->head, cap;
	unsigned char *b;

	if (f->tail + n <= f->cap)
		return 0;
	if (live + n <= f->cap / 2) {	/* enough room once compacted */
		memmove(f->buf, f->buf + f->head, live);
		f->head = 0;
		f->tail = live;
		return 0;
	}
	cap = f->cap ? f->cap : 64 * 1024;
	while (cap < 2 * (live + n))
		cap *= 2;
	b = malloc(cap);
	if (!b)
		return -ENOMEM;
	if (live)
		memcpy(b, f->buf + f->head, live);
	free(f->buf);
	f->buf = b;
	f->cap = cap;
	f->head = 0;
	f->tail = live;
	return 0;
}

static struct fifo *fifo_of(struct merge *m, unsigned int cpu)
{
	if (cpu >= KPROF_MAX_CPUS)
		return NULL;
	if (cpu >= m->nr_fifos) {
		unsigned int n = cpu + 1;
		struct fifo *f = realloc(m->fifos, n * sizeof(*f));

		if (!f)
			return NULL;
		memset(f + m->nr_fifos, 0, (n - m->nr_fifos) * sizeof(*f));
		m->fifos = f;
		m->nr_fifos = n;
	}
	return &m->fifos[cpu];
}

static int push(struct merge *m, uint64_t time, unsigned int cpu, const void *rec,
		size_t len, const void *ref)
{
	struct item it = { .time = time, .order = m->order, .len = len, .cpu = cpu,
			   .ref = ref };
	struct fifo *f = fifo_of(m, cpu);
	int ret;

	if (!f)
		return -ENOMEM;
	if (f->nr && time < f->last_time) {
		ret = heap_push(m, &it, rec);
	} else {
		ret = fifo_reserve(f, ITEM_SIZE(len, ref));
		if (!ret) {
			memcpy(f->buf + f->tail, &it, sizeof(it));
			if (!ref)
				memcpy(f->buf + f->tail + sizeof(it), rec, len);
			f->tail += ITEM_SIZE(len, ref);
			f->last_time = time;
			f->nr++;
		}
	}
	if (ret)
		return ret;
	m->order++;
	m->nr++;
	if (time > m->newest)
		m->newest = time;
	return 0;
}

int merge__push(struct merge *m, uint64_t time, unsigned int cpu,
		const void *rec, size_t len)
{
	return push(m, time, cpu, rec, len, NULL);
}

int merge__push_ref(struct merge *m, uint64_t time, unsigned int cpu,
		    const void *rec, size_t len)
{
	return push(m, time, cpu, rec, len, rec);
}

static const void *rec_of(const struct item *it)
{
	return it->ref ? it->ref : (const void *)(it + 1);
}

/* The oldest record held: a FIFO's head (*CPU) or the heap's top (-1). */
static const struct item *oldest(struct merge *m, int *cpu)
{
	const struct item *best = m->heap_nr ? &m->heap[0]->it : NULL;
	unsigned int i;

	*cpu = -1;
	for (i = 0; i < m->nr_fifos; i++) {
		struct fifo *f = &m->fifos[i];
		const struct item *it;

		if (!f->nr)
			continue;
		it = (const struct item *)(f->buf + f->head);
		if (!best || before(it, best)) {
			best = it;
			*cpu = i;
		}
	}
	return best;
}

int merge__flush(struct merge *m, int all, merge_fn fn, void *ctx)
{
	uint64_t limit = m->newest > m->window ? m->newest - m->window : 0;
	int ret = 0, cpu;

	while (m->nr) {
		const struct item *it = oldest(m, &cpu);

		if (!all && m->nr <= m->max_held && it->time > limit)
			break;
		if (it->time < m->last_out)
			m->misordered++;
		else
			m->last_out = it->time;
		ret = fn(ctx, it->cpu, rec_of(it), it->len);
		m->nr--;
		if (cpu < 0) {
			heap_pop(m);
		} else {
			struct fifo *f = &m->fifos[cpu];

			f->head += ITEM_SIZE(it->len, it->ref);
			if (!--f->nr) {
				f->tail = 0;
				f->head = 0;
			}
		}
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

const void *merge__lowest_ref(const struct merge *m)
{
	const unsigned char *low = NULL, *p;
	unsigned int i;
	size_t j;

	/* A CPU's records are pushed in file order: its FIFO head is its lowest. */
	for (i = 0; i < m->nr_fifos; i++) {
		const struct fifo *f = &m->fifos[i];

		p = f->nr ? ((const struct item *)(f->buf + f->head))->ref : NULL;
		if (p && (!low || p < low))
			low = p;
	}
	for (j = 0; j < m->heap_nr; j++) {
		p = m->heap[j]->it.ref;
		if (p && (!low || p < low))
			low = p;
	}
	return low;
}
