// SPDX-License-Identifier: GPL-2.0
/*
 * capture_check.c - every field of a capture's records against what kprof
 * writes (include/uapi/linux/kprof.h, kmod/kprof_sample.c): sizes exact
 * for the ABI version the header names, frame counts that fill the size,
 * the CPU of the buffer the record came from, pids below PID_MAX_LIMIT, a
 * NUL-terminated comm, zero reserved bits, kernel frames at canonical
 * kernel addresses, the IP at one of its mode's, the user chain starting
 * at a user address (it starts with the user-mode IP), and with a fixed
 * period (-c) that period.  The bounds are x86-64's (kprof's unwinder is
 * ORC) with 5-level paging, the widest: a kernel address is at or above
 * 0xff00000000000000, a user one below 0x0100000000000000.  The other
 * user frames are whatever the user stack held (the walker copies them
 * unchecked), so any value is possible.  A sample with
 * KPROF_MISC_STACK_USER ends with the user registers and the stack
 * snapshot: an abi kprof writes, registers only with an abi, a snapshot
 * size that is a multiple of 8, dyn_size at most that size, and the
 * whole filling the record exactly; register values are the task's, any
 * value.
 */
#include <stdio.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/capture/capture_check.h"

#define PID_MAX_LIMIT		(1U << 22)
#define KERNEL_MIN		0xff00000000000000ULL
#define USER_END		0x0100000000000000ULL
#define SAMPLE_MISC		(KPROF_MISC_USER | KPROF_MISC_NMI | KPROF_MISC_USER_FAULT | \
				 KPROF_MISC_KERNEL_TRUNC | KPROF_MISC_USER_TRUNC | \
				 KPROF_MISC_STACK_USER)
#define THROTTLE_MISC		(KPROF_MISC_THROTTLE_OWN | KPROF_MISC_THROTTLE_KERNEL)

/* The tail of a KPROF_MISC_STACK_USER sample: P, LEFT bytes (kprof.h). */
static const char *check_stack_user(const unsigned char *p, size_t left, char *why, size_t n)
{
	uint64_t abi, size, dyn;

	if (left < 16)
		return "no room for the user registers and stack";
	memcpy(&abi, p, 8);
	if (abi != KPROF_SAMPLE_REGS_ABI_NONE && abi != KPROF_SAMPLE_REGS_ABI_64) {
		snprintf(why, n, "user registers of abi %llu", (unsigned long long)abi);
		return why;
	}
	if (abi != KPROF_SAMPLE_REGS_ABI_NONE) {
		if (left < 16 + KPROF_REGS_USER_NR * 8)
			return "no room for the user registers";
		p += KPROF_REGS_USER_NR * 8;
		left -= KPROF_REGS_USER_NR * 8;
	}
	memcpy(&size, p + 8, 8);
	left -= 16;
	if (!size && !left)
		return NULL;
	if (size % 8 || size > left || left - size != 8) {
		snprintf(why, n, "a %llu-byte user stack in %zu bytes",
			 (unsigned long long)size, left);
		return why;
	}
	memcpy(&dyn, p + 16 + size, 8);
	if (dyn > size) {
		snprintf(why, n, "%llu bytes of user stack read of %llu copied",
			 (unsigned long long)dyn, (unsigned long long)size);
		return why;
	}
	return NULL;
}

static const char *check_sample(const struct capture_check *c, unsigned int cpu,
				const struct kprof_sample *s, size_t len, char *why, size_t n)
{
	int user = s->header.misc & KPROF_MISC_USER;
	const char *bad;
	size_t nr, i;

	if (len < sizeof(*s))
		return "shorter than a SAMPLE";
	nr = (size_t)s->nr_kernel + s->nr_user;
	if (s->nr_kernel > KPROF_MAX_STACK || s->nr_user > KPROF_MAX_STACK ||
	    len < sizeof(*s) + nr * sizeof(__u64) ||
	    (len != sizeof(*s) + nr * sizeof(__u64) &&
	     !(s->header.misc & KPROF_MISC_STACK_USER))) {
		snprintf(why, n, "%u kernel + %u user frames do not fill its %zu bytes",
			 s->nr_kernel, s->nr_user, len);
		return why;
	}
	if (s->cpu != cpu) {
		snprintf(why, n, "CPU %u in the buffer of CPU %u", s->cpu, cpu);
		return why;
	}
	if (s->pid >= PID_MAX_LIMIT || s->tid >= PID_MAX_LIMIT) {
		snprintf(why, n, "pid %u / tid %u beyond PID_MAX_LIMIT", s->pid, s->tid);
		return why;
	}
	if (!memchr(s->comm, '\0', sizeof(s->comm)))
		return "comm not NUL-terminated";
	/* Any tick is valid: the kernel's tick count for PMU events. */
	if (s->header.misc & ~SAMPLE_MISC)
		return "reserved bits set";
	bad = !(s->header.misc & KPROF_MISC_STACK_USER) ? NULL :
	      check_stack_user((const unsigned char *)(s->ips + nr),
			       len - sizeof(*s) - nr * sizeof(__u64), why, n);
	if (bad)
		return bad;
	if (user ? s->ip >= USER_END : s->ip < KERNEL_MIN) {
		snprintf(why, n, "IP %#llx is not a %s address", (unsigned long long)s->ip,
			 user ? "user" : "kernel");
		return why;
	}
	if (s->nr_user && s->ips[s->nr_kernel] >= USER_END) {
		snprintf(why, n, "the user chain starts at %#llx, not a user address",
			 (unsigned long long)s->ips[s->nr_kernel]);
		return why;
	}
	for (i = 0; i < s->nr_kernel; i++) {
		if (s->ips[i] < KERNEL_MIN) {
			snprintf(why, n, "kernel frame %zu, %#llx, is not a kernel address", i,
				 (unsigned long long)s->ips[i]);
			return why;
		}
	}
	if (c->fixed_period && s->period != c->period) {
		snprintf(why, n, "period %llu, recorded with -c %llu",
			 (unsigned long long)s->period, (unsigned long long)c->period);
		return why;
	}
	return NULL;
}

/* The size each type has at this ABI version; 0: a type kprof does not write. */
static size_t type_size(uint32_t type)
{
	switch (type) {
	case KPROF_RECORD_LOST:
		return sizeof(struct kprof_lost);
	case KPROF_RECORD_THROTTLE:
	case KPROF_RECORD_UNTHROTTLE:
	case KPROF_RECORD_WOULD_THROTTLE:
		return sizeof(struct kprof_throttle_event);
	case KPROF_RECORD_RATE_LOWERED:
		return sizeof(struct kprof_rate_lowered);
	}
	return 0;
}

const char *capture_check__record(struct capture_check *c, unsigned int cpu,
				  const void *rec, size_t len)
{
	const struct kprof_record_header *h = rec;
	static char why[128];
	size_t want;

	if (cpu >= c->nr_cpus) {
		snprintf(why, sizeof(why), "in a RECORDS section of CPU %u, of %u recorded",
			 cpu, c->nr_cpus);
		return why;
	}
	if (h->type == KPROF_RECORD_SAMPLE) {
		const struct kprof_sample *s = rec;
		const char *bad = check_sample(c, cpu, s, len, why, sizeof(why));

		if (!bad && s->nr_kernel)
			c->kernel_samples++;
		return bad;
	}
	want = type_size(h->type);
	if (!want) {
		snprintf(why, sizeof(why), "type %u, which kprof does not write", h->type);
		return why;
	}
	if (len != want) {
		snprintf(why, sizeof(why), "%zu bytes for a %zu-byte record of type %u",
			 len, want, h->type);
		return why;
	}
	if (h->misc & ~(h->type == KPROF_RECORD_THROTTLE ? THROTTLE_MISC : 0))
		return "reserved bits set";
	return NULL;
}
