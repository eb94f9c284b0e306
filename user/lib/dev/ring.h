/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ring.h - reader of one CPU's kprof ring buffer (the mmap'd region of
 * include/uapi/linux/kprof.h), in the shape of tools/lib/perf/mmap.c:
 *
 *	if (ring__read_init(r) == 0) {
 *		while ((err = ring__read_event(r, &rec, &len)) == 0) {
 *			use rec[0..len);
 *			ring__consume(r);
 *		}
 *		ring__read_done(r);
 *	}
 *
 * or, to move records without looking into them (perf record's push of
 * whole chunks), ring__read_span() in place of the inner loop.
 */
#ifndef KPROFCAT_RING_H
#define KPROFCAT_RING_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

struct ring;

/*
 * Check the control page at the start of REGION (REGION_SIZE bytes):
 * ABI version (compat_version <= KPROF_ABI_VERSION <= version), data area
 * inside the region, data_size a power of two.  Returns NULL and sets errno
 * (EPROTO: ABI mismatch, EINVAL: bad layout) after printing why.
 */
struct ring *ring__new(void *region, size_t region_size);
void ring__free(struct ring *r);

/* Snapshot head (acquire).  -EAGAIN when there is nothing to read. */
int ring__read_init(struct ring *r);
/*
 * Next record of the snapshot: 0 and *REC, *LEN (a record that wraps is
 * copied into a scratch buffer first; valid until the next call), -EAGAIN
 * at the end of the snapshot, -EBADMSG for a record whose size is < 8, not
 * a multiple of 8, > data_size or past head (the rest of the snapshot is
 * then discarded by ring__read_done()).
 */
int ring__read_event(struct ring *r, const void **rec, size_t *len);
/*
 * The rest of the snapshot as whole records, in place: *P1 / *N1 up to the
 * end of the data area, *P2 / *N2 from its start where the records wrap
 * (*N2 is 0 otherwise); valid until ring__consume().  Every record's size
 * is checked as by ring__read_event(): a bad one ends the span before it
 * and, as there, has ring__read_done() discard the rest.  0; -EAGAIN when
 * nothing is left; -EBADMSG when the first record is bad.
 */
int ring__read_span(struct ring *r, const void **p1, size_t *n1,
		    const void **p2, size_t *n2);
/* Give the bytes of every record returned so far back (release tail). */
void ring__consume(struct ring *r);
/* End of the snapshot; after a -EBADMSG, skip to head and count it. */
void ring__read_done(struct ring *r);

/*
 * One consistent snapshot of a control page's counters and avg_ns, by the
 * sequence count loop of the UAPI header ('lock'): all of them as one
 * publication left them, so overflows == samples + lost_*.  Returns how
 * many times the loop found the kernel writing and retried.
 */
unsigned int ring__page_counters(const struct kprof_mmap_page *pg,
				 struct kprof_counters *out, __u64 *avg_ns);
/* The same for R's page. */
void ring__counters(const struct ring *r, struct kprof_counters *out,
		    __u64 *avg_ns);
uint64_t ring__discarded_bytes(const struct ring *r);
uint64_t ring__bad_records(const struct ring *r);

#endif
