// SPDX-License-Identifier: GPL-2.0
/*
 * synth.c - synthetic kprof regions and records for kprofcat's host tests
 * (synth.h).
 */
#include <stdlib.h>
#include <string.h>

#include "synth.h"

int synth_init(struct synth *s, unsigned int cpu)
{
	s->region_size = sizeof(struct kprof_mmap_page) + SYNTH_DATA_SIZE;
	s->pg = aligned_alloc(4096, s->region_size);
	if (!s->pg)
		return -1;
	memset(s->pg, 0, s->region_size);
	s->pg->version = KPROF_ABI_VERSION;
	s->pg->compat_version = KPROF_ABI_COMPAT_VERSION;
	s->pg->size = sizeof(*s->pg);
	s->pg->cpu = cpu;
	s->pg->data_offset = sizeof(*s->pg);
	s->pg->data_size = SYNTH_DATA_SIZE;
	s->data = (unsigned char *)s->pg + s->pg->data_offset;
	return 0;
}

/* Start both counters at POS (to put a record across the end). */
void synth_set_pos(struct synth *s, uint64_t pos)
{
	s->pg->data_head = pos;
	s->pg->data_tail = pos;
}

/* Write LEN bytes at head without publishing. */
void synth_put(struct synth *s, const void *rec, size_t len, uint64_t *pos)
{
	size_t i;

	for (i = 0; i < len; i++)
		s->data[(*pos + i) & (SYNTH_DATA_SIZE - 1)] = ((const unsigned char *)rec)[i];
	*pos += len;
}

void synth_publish(struct synth *s, uint64_t pos)
{
	__atomic_store_n(&s->pg->data_head, pos, __ATOMIC_RELEASE);
}

void synth_write(struct synth *s, const void *rec, size_t len)
{
	uint64_t pos = s->pg->data_head;

	synth_put(s, rec, len, &pos);
	synth_publish(s, pos);
}

/* A SAMPLE record with NK kernel then NU user frames, in BUF (>= 80 + 8 * n). */
size_t synth_sample(void *buf, uint64_t seq, uint64_t time, uint32_t cpu,
		    uint32_t pid, const char *comm, uint16_t misc,
		    const uint64_t *ips, uint16_t nk, uint16_t nu)
{
	struct kprof_sample *s = buf;
	size_t len = sizeof(*s) + (size_t)(nk + nu) * 8;

	memset(s, 0, len);
	s->header.type = KPROF_RECORD_SAMPLE;
	s->header.misc = misc;
	s->header.size = len;
	s->seq = seq;
	s->time = time;
	s->cpu = cpu;
	s->pid = pid;
	s->tid = pid;
	strncpy(s->comm, comm, sizeof(s->comm) - 1);
	s->ip = nk + nu ? ips[0] : 0;
	s->period = 1003009;
	s->nr_kernel = nk;
	s->nr_user = nu;
	memcpy(s->ips, ips, (size_t)(nk + nu) * 8);
	return len;
}

size_t synth_lost(void *buf, uint64_t time, uint64_t full)
{
	struct kprof_lost *l = buf;

	memset(l, 0, sizeof(*l));
	l->header.type = KPROF_RECORD_LOST;
	l->header.size = sizeof(*l);
	l->time = time;
	l->full = full;
	return sizeof(*l);
}

size_t synth_throttle(void *buf, uint32_t type, uint64_t time)
{
	struct kprof_throttle_event *t = buf;

	memset(t, 0, sizeof(*t));
	t->header.type = type;
	t->header.size = sizeof(*t);
	t->time = time;
	t->seq = 7;
	t->tick = time / 4000000;
	t->interrupts = 3;
	return sizeof(*t);
}
