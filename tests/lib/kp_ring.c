// SPDX-License-Identifier: GPL-2.0
/*
 * kp_ring.c - kprof's per-CPU regions for the in-guest tests (kp_ring.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "kp_dev.h"
#include "kp_ring.h"
#include "lib/dev/ring.h"

int kp_fail(struct kp_buffers *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
	return -1;
}

__u32 kp_page_flags(const struct kp_cpu *c)
{
	return __atomic_load_n(&c->pg->flags, __ATOMIC_RELAXED);
}

/* One consistent snapshot of a control page's counters (libkprof's loop). */
void kp_page_counters(const struct kp_cpu *c, struct kprof_counters *out)
{
	__u64 avg_ns;

	ring__page_counters(c->pg, out, &avg_ns);
}

/*
 * Map every possible CPU's region as the UAPI prescribes.  Regions of
 * CPUs that are not possible answer ENODEV and stay unmapped.  Call it
 * while stopped, after SET_CONFIG.
 */
int kp_map(struct kp_buffers *b, int fd)
{
	struct kprof_info info;
	unsigned int i;

	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->page_size = sysconf(_SC_PAGESIZE);
	if (kp_get_info(fd, &info))
		return kp_fail(b, "GET_INFO: %s", strerror(errno));
	if (info.version != KPROF_ABI_VERSION || info.nr_cpu_ids == 0 ||
	    info.nr_cpu_ids > KPROF_MAX_CPUS)
		return kp_fail(b, "GET_INFO: version %u nr_cpu_ids %u",
			       info.version, info.nr_cpu_ids);
	if ((long)info.page_size != b->page_size || info.mmap_stride == 0 ||
	    info.mmap_stride % b->page_size || info.data_size == 0 ||
	    (info.data_size & (info.data_size - 1)) ||
	    info.data_size + b->page_size > info.mmap_stride)
		return kp_fail(b, "GET_INFO: page_size %u stride %llu data_size %llu",
			       info.page_size,
			       (unsigned long long)info.mmap_stride,
			       (unsigned long long)info.data_size);
	b->nr_cpu_ids = info.nr_cpu_ids;
	b->stride = info.mmap_stride;
	b->data_size = info.data_size;
	b->cpus = calloc(b->nr_cpu_ids, sizeof(*b->cpus));
	b->scratch = malloc(b->data_size);
	if (!b->cpus || !b->scratch)
		return kp_fail(b, "out of memory");

	for (i = 0; i < b->nr_cpu_ids; i++) {
		struct kp_cpu *c = &b->cpus[i];
		void *p;

		c->cpu = i;
		p = mmap(NULL, b->stride, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, (off_t)(i * b->stride));
		if (p == MAP_FAILED) {
			if (errno == ENODEV)
				continue;
			return kp_fail(b, "mmap CPU %u: %s", i, strerror(errno));
		}
		c->base = p;
		c->pg = p;
		if (c->pg->version != KPROF_ABI_VERSION ||
		    c->pg->compat_version > KPROF_ABI_VERSION ||
		    c->pg->cpu != i || c->pg->size < 1040 ||
		    c->pg->data_size != b->data_size ||
		    c->pg->data_offset < (__u64)b->page_size ||
		    c->pg->data_offset % b->page_size ||
		    c->pg->data_offset + c->pg->data_size > b->stride)
			return kp_fail(b, "CPU %u control page: version %u compat %u cpu %u size %u data_offset %llu data_size %llu",
				       i, c->pg->version, c->pg->compat_version,
				       c->pg->cpu, c->pg->size,
				       (unsigned long long)c->pg->data_offset,
				       (unsigned long long)c->pg->data_size);
		c->data = (const unsigned char *)p + c->pg->data_offset;
		c->data_size = c->pg->data_size;
		/*
		 * Buffers outlive sessions while their size stays: skip what
		 * earlier sessions left, so a test reads the session it
		 * starts.  Only called while stopped: no producer races.
		 */
		__atomic_store_n(&c->pg->data_tail,
				 __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	return 0;
}

void kp_unmap(struct kp_buffers *b)
{
	unsigned int i;

	for (i = 0; b->cpus && i < b->nr_cpu_ids; i++) {
		if (b->cpus[i].base)
			munmap(b->cpus[i].base, b->stride);
		free(b->cpus[i].seen);
	}
	free(b->cpus);
	free(b->scratch);
	b->cpus = NULL;
	b->scratch = NULL;
}

/* FIXTURE_TEARDOWN of a mapped session: stop, unmap, close. */
void kp_close(int fd, struct kp_buffers *b)
{
	if (fd < 0)
		return;
	ioctl(fd, KPROF_IOC_STOP);
	kp_unmap(b);
	close(fd);
}

/* Check one SAMPLE record's fixed fields; account its sequence number. */
int kp_sample_tail(const struct kprof_sample *s, struct kp_stack_user *t)
{
	const __u64 *p = s->ips + s->nr_kernel + s->nr_user;
	size_t have = s->header.size, need = (const char *)p - (const char *)s;

	memset(t, 0, sizeof(*t));
	if (!(s->header.misc & KPROF_MISC_STACK_USER))
		return need == have ? 0 : -1;
	if (need + 16 > have)
		return -1;
	t->abi = *p++;
	need += 16;
	if (t->abi == KPROF_SAMPLE_REGS_ABI_64) {
		need += 8 * KPROF_REGS_USER_NR;
		if (need > have)
			return -1;
		t->regs = p;
		p += KPROF_REGS_USER_NR;
	} else if (t->abi != KPROF_SAMPLE_REGS_ABI_NONE) {
		return -1;
	}
	t->size = *p++;
	if (!t->size)
		return need == have ? 0 : -1;
	if (t->size % 8 || need + t->size + 8 != have)
		return -1;
	t->data = (const unsigned char *)p;
	memcpy(&t->dyn_size, t->data + t->size, 8);
	return 0;
}

static int kp_account_sample(struct kp_buffers *b, struct kp_cpu *c,
			     const struct kprof_sample *s)
{
	struct kp_stack_user t;

	if (kp_sample_tail(s, &t))
		return kp_fail(b, "CPU %u: SAMPLE size %u for %u+%u frames, misc %#x",
			       c->cpu, s->header.size, s->nr_kernel, s->nr_user,
			       s->header.misc);
	if (s->nr_kernel > KPROF_MAX_STACK || s->nr_user > KPROF_MAX_STACK)
		return kp_fail(b, "CPU %u: SAMPLE with %u+%u frames", c->cpu,
			       s->nr_kernel, s->nr_user);
	if (s->cpu != c->cpu)
		return kp_fail(b, "CPU %u: SAMPLE says cpu %u", c->cpu, s->cpu);
	if (!memchr(s->comm, '\0', sizeof(s->comm)))
		return kp_fail(b, "CPU %u: SAMPLE comm not NUL-terminated",
			       c->cpu);
	if (s->seq == 0)
		return kp_fail(b, "CPU %u: SAMPLE seq 0", c->cpu);

	if (s->seq / 8 >= c->seen_bytes) {
		__u64 n = c->seen_bytes ? c->seen_bytes : 4096;
		unsigned char *p;

		while (s->seq / 8 >= n)
			n *= 2;
		p = realloc(c->seen, n);
		if (!p)
			return kp_fail(b, "out of memory");
		memset(p + c->seen_bytes, 0, n - c->seen_bytes);
		c->seen = p;
		c->seen_bytes = n;
	}
	if (c->seen[s->seq / 8] & (1U << (s->seq % 8)))
		c->seq_dups++;
	c->seen[s->seq / 8] |= 1U << (s->seq % 8);
	if (s->seq > c->max_seq)
		c->max_seq = s->seq;
	if (!(s->header.misc & KPROF_MISC_NMI)) {
		if (s->seq <= c->last_seq)
			c->seq_disorder++;
		else
			c->last_seq = s->seq;
		if (s->time < c->last_time)
			c->time_disorder++;
		c->last_time = s->time;
	}
	c->samples++;
	if (s->header.misc & KPROF_MISC_NMI)
		c->nmi_samples++;
	if (s->header.misc & KPROF_MISC_USER)
		c->user_samples++;
	if (b->on_sample)
		return b->on_sample(b, c, s);
	return 0;
}

int kp_account(struct kp_buffers *b, struct kp_cpu *c,
	       const struct kprof_record_header *h)
{
	const struct kprof_lost *l = (const void *)h;
	size_t want = 0;

	c->records++;
	switch (h->type) {
	case KPROF_RECORD_SAMPLE:
		if (h->size < sizeof(struct kprof_sample))
			return kp_fail(b, "CPU %u: SAMPLE size %u", c->cpu,
				       h->size);
		return kp_account_sample(b, c, (const void *)h);
	case KPROF_RECORD_LOST:
		want = sizeof(struct kprof_lost);
		if (h->size != want)
			break;
		c->lost_recs++;
		c->lost_full += l->full;
		c->lost_nested += l->nested;
		c->lost_stopped += l->stopped;
		c->lost_throttled += l->throttled;
		c->lost_events += (__u64)l->throttle + l->unthrottle +
				  l->lowered + l->would;
		c->lost_throttle += l->throttle;
		c->lost_unthrottle += l->unthrottle;
		c->lost_lowered += l->lowered;
		c->lost_would += l->would;
		return 0;
	case KPROF_RECORD_THROTTLE:
	case KPROF_RECORD_UNTHROTTLE:
	case KPROF_RECORD_WOULD_THROTTLE:
		want = sizeof(struct kprof_throttle_event);
		if (h->size != want)
			break;
		if (h->type == KPROF_RECORD_THROTTLE) {
			c->throttle_recs++;
			c->kthrottle_recs +=
				!!(h->misc & KPROF_MISC_THROTTLE_KERNEL);
			c->own_recs += !!(h->misc & KPROF_MISC_THROTTLE_OWN);
		} else if (h->type == KPROF_RECORD_UNTHROTTLE) {
			c->unthrottle_recs++;
		} else {
			c->would_recs++;
		}
		return 0;
	case KPROF_RECORD_RATE_LOWERED:
		want = sizeof(struct kprof_rate_lowered);
		if (h->size != want)
			break;
		c->lowered_recs++;
		return 0;
	default:
		c->unknown_recs++;	/* skipped by size, as readers must */
		return 0;
	}
	return kp_fail(b, "CPU %u: record type %u size %u, want %zu", c->cpu,
		       h->type, h->size, want);
}

/*
 * Consume every record of one CPU: acquire-load data_head, validate and
 * account each record in [tail, head), release-store the new data_tail.
 * Returns the number of records consumed, or -1.
 */
long kp_drain_cpu(struct kp_buffers *b, struct kp_cpu *c)
{
	__u64 head, tail, mask = c->data_size - 1;
	long n = 0;

	if (!c->base)
		return 0;
	head = __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE);
	tail = c->pg->data_tail;
	if (head - tail > c->data_size)
		return kp_fail(b, "CPU %u: head %llu tail %llu: more than data_size %llu unread",
			       c->cpu, (unsigned long long)head,
			       (unsigned long long)tail,
			       (unsigned long long)c->data_size);
	while (tail != head) {
		struct kprof_record_header h;
		__u64 off = tail & mask, left = head - tail;
		const void *rec;

		if (left < sizeof(h))
			return kp_fail(b, "CPU %u: %llu stray bytes at %llu",
				       c->cpu, (unsigned long long)left,
				       (unsigned long long)tail);
		/* A header never wraps: records are 8-byte multiples. */
		memcpy(&h, c->data + off, sizeof(h));
		if (h.size < 8 || h.size % 8 || h.size > c->data_size ||
		    h.size > left)
			return kp_fail(b, "CPU %u: record type %u size %u at %llu (%llu unread)",
				       c->cpu, h.type, h.size,
				       (unsigned long long)tail,
				       (unsigned long long)left);
		if (off + h.size <= c->data_size) {
			rec = c->data + off;
		} else {
			__u64 first = c->data_size - off;

			memcpy(b->scratch, c->data + off, first);
			memcpy(b->scratch + first, c->data, h.size - first);
			rec = b->scratch;
		}
		if (kp_account(b, c, rec))
			return -1;
		tail += h.size;
		n++;
	}
	__atomic_store_n(&c->pg->data_tail, tail, __ATOMIC_RELEASE);
	return n;
}

/* Drain every mapped CPU once; returns records consumed or -1. */
long kp_drain(struct kp_buffers *b)
{
	unsigned int i;
	long n, total = 0;

	for (i = 0; i < b->nr_cpu_ids; i++) {
		n = kp_drain_cpu(b, &b->cpus[i]);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/*
 * Forget what was read so far, keeping the mappings: START resets the
 * counters and sequence numbers, so each session is checked on its own.
 */
void kp_reset_tally(struct kp_buffers *b)
{
	unsigned int i;

	for (i = 0; i < b->nr_cpu_ids; i++) {
		struct kp_cpu *c = &b->cpus[i], keep = *c;

		memset(c, 0, sizeof(*c));
		c->cpu = keep.cpu;
		c->base = keep.base;
		c->pg = keep.pg;
		c->data = keep.data;
		c->data_size = keep.data_size;
		c->seen = keep.seen;
		c->seen_bytes = keep.seen_bytes;
		if (c->seen)
			memset(c->seen, 0, c->seen_bytes);
	}
}

__u64 kp_lost_total(const struct kprof_counters *k)
{
	return k->lost_full + k->lost_nested + k->lost_stopped +
	       k->lost_throttled;
}

/*
 * After STOP: the control page and GET_STATS agree, and the counters add
 * up (overflows == samples + every lost cause).  Fills @k.
 */
int kp_check_counters(struct kp_buffers *b, struct kp_cpu *c,
		      struct kprof_counters *k)
{
	struct kprof_cpu_stats st;

	kp_page_counters(c, k);
	if (kp_get_stats(b->fd, c->cpu, &st))
		return kp_fail(b, "CPU %u: GET_STATS: %s", c->cpu,
			       strerror(errno));
	if (st.cpu != c->cpu || memcmp(&st.counters, k, sizeof(*k)))
		return kp_fail(b, "CPU %u: GET_STATS counters differ from the control page (overflows %llu/%llu samples %llu/%llu lost_records %llu/%llu)",
			       c->cpu, (unsigned long long)st.counters.overflows,
			       (unsigned long long)k->overflows,
			       (unsigned long long)st.counters.samples,
			       (unsigned long long)k->samples,
			       (unsigned long long)st.counters.lost_records,
			       (unsigned long long)k->lost_records);
	if (k->overflows != k->samples + kp_lost_total(k))
		return kp_fail(b, "CPU %u: overflows %llu != samples %llu + lost %llu (full %llu nested %llu stopped %llu throttled %llu)",
			       c->cpu, (unsigned long long)k->overflows,
			       (unsigned long long)k->samples,
			       (unsigned long long)kp_lost_total(k),
			       (unsigned long long)k->lost_full,
			       (unsigned long long)k->lost_nested,
			       (unsigned long long)k->lost_stopped,
			       (unsigned long long)k->lost_throttled);
	return 0;
}

/*
 * After STOP and a final drain of a session read from its START on:
 * kp_check_counters(), the reader saw every delivered sample, the LOST
 * records it saw add up to lost_records, and sample sequence numbers are
 * distinct and within the overflow count (so the missing ones are the lost
 * ones).  With @exact_lost the LOST records must also cover every lost
 * overflow, cause by cause.
 */
static int kp_check_conserved(struct kp_buffers *b, struct kp_cpu *c,
			      int exact_lost)
{
	struct kprof_counters k;
	__u64 lost_seen;

	if (kp_check_counters(b, c, &k))
		return -1;
	if (c->samples != k.samples)
		return kp_fail(b, "CPU %u: read %llu SAMPLE records, counter says %llu",
			       c->cpu, (unsigned long long)c->samples,
			       (unsigned long long)k.samples);
	if (c->nmi_samples != k.nmi_samples)
		return kp_fail(b, "CPU %u: read %llu NMI samples, counter says %llu",
			       c->cpu, (unsigned long long)c->nmi_samples,
			       (unsigned long long)k.nmi_samples);
	lost_seen = c->lost_full + c->lost_nested + c->lost_stopped +
		    c->lost_throttled;
	if (lost_seen != k.lost_records)
		return kp_fail(b, "CPU %u: LOST records sum to %llu, lost_records says %llu",
			       c->cpu, (unsigned long long)lost_seen,
			       (unsigned long long)k.lost_records);
	if (exact_lost &&
	    (c->lost_full != k.lost_full || c->lost_nested != k.lost_nested ||
	     c->lost_stopped != k.lost_stopped ||
	     c->lost_throttled != k.lost_throttled))
		return kp_fail(b, "CPU %u: LOST records full/nested/stopped/throttled %llu/%llu/%llu/%llu, counters %llu/%llu/%llu/%llu",
			       c->cpu, (unsigned long long)c->lost_full,
			       (unsigned long long)c->lost_nested,
			       (unsigned long long)c->lost_stopped,
			       (unsigned long long)c->lost_throttled,
			       (unsigned long long)k.lost_full,
			       (unsigned long long)k.lost_nested,
			       (unsigned long long)k.lost_stopped,
			       (unsigned long long)k.lost_throttled);
	/*
	 * Every sample carries a distinct overflow number no larger than the
	 * overflow count: with samples == counter and the sum above, the
	 * numbers missing from the stream are exactly the lost overflows.
	 */
	if (c->seq_disorder || c->seq_dups)
		return kp_fail(b, "CPU %u: %llu samples out of sequence order, %llu duplicate sequence numbers",
			       c->cpu, (unsigned long long)c->seq_disorder,
			       (unsigned long long)c->seq_dups);
	if (c->max_seq > k.overflows)
		return kp_fail(b, "CPU %u: sample seq %llu beyond %llu overflows",
			       c->cpu, (unsigned long long)c->max_seq,
			       (unsigned long long)k.overflows);
	return 0;
}

/* kp_check_conserved() on every mapped CPU. */
int kp_check_conserved_all(struct kp_buffers *b, int exact_lost)
{
	unsigned int i;

	for (i = 0; i < b->nr_cpu_ids; i++)
		if (b->cpus[i].base &&
		    kp_check_conserved(b, &b->cpus[i], exact_lost))
			return -1;
	return 0;
}

