// SPDX-License-Identifier: GPL-2.0
/*
 * perf_out.c - the perf.data writer's buffered writes: bytes, padding,
 * whole records and user maps; the first error sticks in perf_out.err.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "tool/convert/perf_out.h"

void perf_out__put(struct perf_out *p, const void *b, size_t len)
{
	if (!p->err && len && fwrite(b, 1, len, p->f) != len)
		p->err = errno ? errno : EIO;
}

void perf_out__zeros(struct perf_out *p, size_t len)
{
	static const char z[NAME_ALIGN];

	while (len) {
		size_t n = len < sizeof(z) ? len : sizeof(z);

		perf_out__put(p, z, n);
		len -= n;
	}
}

void perf_out__record(struct perf_out *p, uint32_t type, uint16_t misc,
		      const void *body, size_t blen, const char *str, size_t str_align,
		       const struct sample_id *id)
{
	struct perf_event_header h = { .type = type, .misc = misc };
	size_t slen = str ? align_up(strlen(str) + 1, str_align) : 0;

	h.size = sizeof(h) + blen + slen + (id ? sizeof(*id) : 0);
	perf_out__put(p, &h, sizeof(h));
	perf_out__put(p, body, blen);
	if (str) {
		perf_out__put(p, str, strlen(str));
		perf_out__zeros(p, slen - strlen(str));
	}
	if (id)
		perf_out__put(p, id, sizeof(*id));
	p->data_size += h.size;
}

void perf_out__mmap2(struct perf_out *p, const struct pev *e, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot)
{
	struct sample_id id = { .pid = e->pid, .tid = e->pid, .time = e->time };
	struct {
		uint32_t pid, tid;
		uint64_t start, len, pgoff;
		uint8_t bid_size, res1;
		uint16_t res2;
		uint8_t bid[20];
		uint32_t prot, flags;
	} mm = { .pid = e->pid, .tid = e->pid, .start = start, .len = len, .pgoff = pgoff,
		 .prot = prot, .flags = MAP_PRIVATE };
	uint16_t misc = PERF_RECORD_MISC_USER;

	if (e->bid_len) {
		mm.bid_size = e->bid_len;
		memcpy(mm.bid, e->build_id, e->bid_len);
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	}
	perf_out__record(p, PERF_RECORD_MMAP2, misc, &mm, sizeof(mm),
			 e->path && *e->path ? e->path : "//anon", 8, &id);
}
