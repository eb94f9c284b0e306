// SPDX-License-Identifier: GPL-2.0
/*
 * perf_out.c - the perf.data writer's buffered writes: bytes, padding and
 * whole records; the first error sticks in perf_out.err.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

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
