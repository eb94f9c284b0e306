// SPDX-License-Identifier: GPL-2.0
/*
 * decode.c - validate and unpack kprof records.
 *
 * The ring already guarantees 8 <= size <= data_size, size % 8 == 0 and
 * that the bytes are all there; this file checks each type's own layout:
 * the fixed part must fit, and a SAMPLE's frames must fit in its size, and
 * so must its user registers and stack snapshot (KPROF_MISC_STACK_USER).
 * Records may be larger than this reader knows (a newer, compatible
 * producer appending fields): the extra bytes are ignored.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "lib/stream/decode.h"

static const char *const type_names[KPROF_RECORD_MAX] = {
	[KPROF_RECORD_SAMPLE]		= "SAMPLE",
	[KPROF_RECORD_LOST]		= "LOST",
	[KPROF_RECORD_THROTTLE]		= "THROTTLE",
	[KPROF_RECORD_UNTHROTTLE]	= "UNTHROTTLE",
	[KPROF_RECORD_RATE_LOWERED]	= "RATE_LOWERED",
	[KPROF_RECORD_WOULD_THROTTLE]	= "WOULD_THROTTLE",
};

const char *decode__type_name(uint32_t type)
{
	return type < KPROF_RECORD_MAX ? type_names[type] : NULL;
}

/*
 * The tail of a KPROF_MISC_STACK_USER sample, at P with LEFT bytes left:
 * abi, regs[], size, data[], dyn_size (kprof.h).
 */
static int decode_stack_user(const unsigned char *p, size_t left, struct kp_sample *d)
{
	uint64_t abi, size;

	if (left < 8)
		return -EBADMSG;
	memcpy(&abi, p, 8);
	p += 8;
	left -= 8;
	if (abi != KPROF_SAMPLE_REGS_ABI_NONE) {
		if (abi != KPROF_SAMPLE_REGS_ABI_64 || left < KPROF_REGS_USER_NR * 8)
			return -EBADMSG;
		d->regs = (const uint64_t *)p;
		p += KPROF_REGS_USER_NR * 8;
		left -= KPROF_REGS_USER_NR * 8;
	}
	if (left < 8)
		return -EBADMSG;
	memcpy(&size, p, 8);
	p += 8;
	left -= 8;
	if (!size)
		return 0;
	if (size % 8 || size > left || left - size < 8)
		return -EBADMSG;
	d->stack = p;
	d->stack_size = size;
	memcpy(&d->stack_dyn, p + size, 8);
	if (d->stack_dyn > size)
		return -EBADMSG;
	return 0;
}

static int decode_sample(const void *rec, size_t len, struct kp_record *out)
{
	const struct kprof_sample *s = rec;
	struct kp_sample *d = &out->sample;
	size_t nr;

	if (len < sizeof(*s))
		return -EBADMSG;
	nr = (size_t)s->nr_kernel + s->nr_user;
	if (s->nr_kernel > KPROF_MAX_STACK || s->nr_user > KPROF_MAX_STACK ||
	    len < sizeof(*s) + nr * sizeof(__u64))
		return -EBADMSG;
	d->seq = s->seq;
	d->time = s->time;
	d->cpu = s->cpu;
	d->pid = s->pid;
	d->tid = s->tid;
	d->cost_ns = s->cost_ns;
	memcpy(d->comm, s->comm, sizeof(d->comm));
	d->comm[sizeof(d->comm) - 1] = '\0';
	d->ip = s->ip;
	d->period = s->period;
	d->nr_kernel = s->nr_kernel;
	d->nr_user = s->nr_user;
	d->ips = (const uint64_t *)s->ips;
	d->regs = NULL;
	d->stack = NULL;
	d->stack_size = 0;
	d->stack_dyn = 0;
	out->time = s->time;
	if (s->header.misc & KPROF_MISC_STACK_USER)
		return decode_stack_user((const unsigned char *)(s->ips + nr),
					 len - sizeof(*s) - nr * sizeof(__u64), d);
	return 0;
}

int decode__record(const void *rec, size_t len, unsigned int cpu,
		   struct kp_record *out, struct decode_stats *st)
{
	const struct kprof_record_header *h = rec;
	size_t need;
	int ret = 0;

	/* A SAMPLE fills every field of its own (no memset per sample). */
	out->type = h->type;
	out->misc = h->misc;
	out->cpu = cpu;
	out->time = 0;
	switch (h->type) {
	case KPROF_RECORD_SAMPLE:
		ret = decode_sample(rec, len, out);
		break;
	case KPROF_RECORD_LOST:
		need = sizeof(out->lost);
		goto fixed;
	case KPROF_RECORD_THROTTLE:
	case KPROF_RECORD_UNTHROTTLE:
	case KPROF_RECORD_WOULD_THROTTLE:
		need = sizeof(out->throttle);
		goto fixed;
	case KPROF_RECORD_RATE_LOWERED:
		need = sizeof(out->lowered);
		goto fixed;
	default:
		st->unknown++;
		return 1;
	}
	goto done;
fixed:
	if (len < need) {
		ret = -EBADMSG;
		goto done;
	}
	/* Every fixed-layout record has its time right after the header. */
	memset(&out->sample, 0, sizeof(*out) - offsetof(struct kp_record, sample));
	memcpy(&out->lost, rec, need);
	memcpy(&out->time, (const char *)rec + sizeof(*h), sizeof(out->time));
done:
	if (ret)
		st->bad++;
	else
		st->records[h->type]++;
	return ret;
}
