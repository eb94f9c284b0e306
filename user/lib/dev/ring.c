// SPDX-License-Identifier: GPL-2.0
/*
 * ring.c - consumer side of a kprof per-CPU ring buffer.
 *
 * Ordering, as the UAPI comment and kmod/kprof_buffer.c (the producer,
 * kprof_buffer_publish()) pair it: data_head is loaded with acquire before
 * any record byte is read, and data_tail is stored with release only after
 * the reader is done with the bytes it gives back.  Nothing the kernel
 * writes is trusted: every size is validated against the type-independent
 * rules (>= 8, multiple of 8, <= data_size, inside [tail, head)).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/util/print.h"
#include "lib/dev/ring.h"

struct ring {
	struct kprof_mmap_page *pg;
	unsigned char *data;
	uint64_t mask;
	uint64_t size;
	uint64_t start;		/* next byte to read in this snapshot */
	uint64_t end;		/* head of this snapshot */
	int corrupt;
	uint64_t discarded;
	uint64_t bad;
	unsigned char scratch[1 << 16];	/* header.size is a __u16 */
};

struct ring *ring__new(void *region, size_t region_size)
{
	struct kprof_mmap_page *pg = region;
	struct ring *r;

	if (region_size < sizeof(*pg)) {
		p_err("kprof region of %zu bytes is smaller than its control page", region_size);
		errno = EINVAL;
		return NULL;
	}
	if (pg->compat_version > KPROF_ABI_VERSION || pg->version < KPROF_ABI_VERSION) {
		p_err("ABI mismatch on CPU %u: the module speaks version %u (compatible back to %u), kprofcat was built for version %u: rebuild kprofcat and kprof.ko from the same tree",
		      pg->cpu, pg->version, pg->compat_version, KPROF_ABI_VERSION);
		errno = EPROTO;
		return NULL;
	}
	if (!pg->data_size || (pg->data_size & (pg->data_size - 1)) ||
	    pg->data_offset < sizeof(*pg) || pg->data_offset > region_size ||
	    pg->data_size > region_size - pg->data_offset) {
		p_err("kprof region of CPU %u has a bad layout (data_offset %llu, data_size %llu, region %zu bytes)",
		      pg->cpu, (unsigned long long)pg->data_offset,
		      (unsigned long long)pg->data_size, region_size);
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->pg = pg;
	r->data = (unsigned char *)region + pg->data_offset;
	r->size = pg->data_size;
	r->mask = pg->data_size - 1;
	r->start = __atomic_load_n(&pg->data_tail, __ATOMIC_RELAXED);
	r->end = r->start;
	return r;
}

void ring__free(struct ring *r)
{
	free(r);
}

int ring__read_init(struct ring *r)
{
	/* Pairs with the producer's smp_store_release(&pg->data_head). */
	r->end = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	r->corrupt = 0;
	if (r->end - r->start > r->size) {
		/* More than a buffer ahead: a head we cannot trust. */
		r->corrupt = 1;
		r->bad++;
		return -EBADMSG;
	}
	return r->end == r->start ? -EAGAIN : 0;
}

static void ring_copy(struct ring *r, void *dst, uint64_t pos, size_t len)
{
	uint64_t off = pos & r->mask;
	size_t first = len;

	if (off + len > r->size)
		first = r->size - off;
	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, len - first);
}

int ring__read_event(struct ring *r, const void **rec, size_t *len)
{
	struct kprof_record_header h;
	uint64_t avail = r->end - r->start, off;

	if (r->corrupt)
		return -EBADMSG;
	if (!avail)
		return -EAGAIN;
	if (avail < sizeof(h))
		goto bad;
	ring_copy(r, &h, r->start, sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > r->size || h.size > avail)
		goto bad;
	off = r->start & r->mask;
	if (off + h.size > r->size) {
		ring_copy(r, r->scratch, r->start, h.size);
		*rec = r->scratch;
	} else {
		*rec = r->data + off;
	}
	*len = h.size;
	r->start += h.size;
	return 0;
bad:
	r->corrupt = 1;
	r->bad++;
	return -EBADMSG;
}

/*
 * The size of the record at POS, or 0 when it is impossible (see
 * ring__read_event()).  A header never wraps at an 8-byte boundary.
 */
static size_t ring_record_size(struct ring *r, uint64_t pos)
{
	struct kprof_record_header h;
	uint64_t avail = r->end - pos;

	if (avail < sizeof(h))
		return 0;
	if (pos % 8)
		ring_copy(r, &h, pos, sizeof(h));
	else
		memcpy(&h, r->data + (pos & r->mask), sizeof(h));
	if (h.size < sizeof(h) || h.size % 8 || h.size > r->size || h.size > avail)
		return 0;
	return h.size;
}

int ring__read_span(struct ring *r, const void **p1, size_t *n1,
		    const void **p2, size_t *n2)
{
	uint64_t pos = r->start, off = r->start & r->mask, len;
	size_t size;

	if (r->corrupt)
		return -EBADMSG;
	if (pos == r->end)
		return -EAGAIN;
	while (pos < r->end) {
		size = ring_record_size(r, pos);
		if (!size) {
			r->corrupt = 1;
			r->bad++;
			break;
		}
		pos += size;
	}
	len = pos - r->start;
	if (!len)
		return -EBADMSG;
	*p1 = r->data + off;
	*n1 = off + len > r->size ? r->size - off : len;
	*p2 = r->data;
	*n2 = len - *n1;
	r->start = pos;
	return 0;
}

void ring__consume(struct ring *r)
{
	/* The reader is done with [tail, start): let the kernel reuse it. */
	__atomic_store_n(&r->pg->data_tail, r->start, __ATOMIC_RELEASE);
}

void ring__read_done(struct ring *r)
{
	if (r->corrupt) {
		/*
		 * A bad size leaves no way to find the next record: drop
		 * the rest of what the kernel published.
		 */
		r->discarded += r->end - r->start;
		r->start = r->end;
		r->corrupt = 0;
	}
	ring__consume(r);
}

/* Spin hint while the kernel is inside a write section. */
static inline void ring__relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void ring__copy_u64s(__u64 *dst, const __u64 *src, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/*
 * The reader loop of include/uapi/linux/kprof.h ('lock'): the acquire
 * load of an even count pairs with the kernel's smp_wmb() after its odd
 * store and before the fields; the acquire fence orders the field loads
 * before the second load of the count, which pairs with the kernel's
 * smp_wmb() before its closing store.
 */
unsigned int ring__page_counters(const struct kprof_mmap_page *pg,
				 struct kprof_counters *out, __u64 *avg_ns)
{
	const size_t n = sizeof(*out) / sizeof(__u64);
	unsigned int retries = 0;
	__u32 seq;

	for (;; retries++) {
		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
		if (!(seq & 1)) {
			ring__copy_u64s((__u64 *)out, (const __u64 *)&pg->counters, n);
			*avg_ns = __atomic_load_n(&pg->avg_ns, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&pg->lock, __ATOMIC_RELAXED) == seq)
				return retries;
		}
		ring__relax();
	}
}

void ring__counters(const struct ring *r, struct kprof_counters *out,
		    __u64 *avg_ns)
{
	ring__page_counters(r->pg, out, avg_ns);
}

uint64_t ring__discarded_bytes(const struct ring *r)
{
	return r->discarded;
}

uint64_t ring__bad_records(const struct ring *r)
{
	return r->bad;
}
