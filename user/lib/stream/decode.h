/* SPDX-License-Identifier: GPL-2.0 */
/*
 * decode.h - kprof records (include/uapi/linux/kprof.h) to structs.
 */
#ifndef KPROFCAT_DECODE_H
#define KPROFCAT_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

struct kp_sample {
	uint64_t seq;
	uint64_t time;
	uint32_t cpu;
	uint32_t pid;
	uint32_t tid;
	uint32_t cost_ns;
	char comm[KPROF_COMM_LEN];
	uint64_t ip;
	uint64_t period;
	uint16_t nr_kernel;
	uint16_t nr_user;
	const uint64_t *ips;	/* points into the record: kernel, then user */
	/*
	 * KPROF_MISC_STACK_USER: the user registers (NULL: none, abi NONE)
	 * and the stack snapshot, pointing into the record; else regs NULL
	 * and stack_size 0.
	 */
	const uint64_t *regs;	/* [KPROF_REGS_USER_NR], PERF_REG_X86_* order */
	const unsigned char *stack;
	uint64_t stack_size;	/* bytes of STACK (0: none), a multiple of 8 */
	uint64_t stack_dyn;	/* bytes of STACK really read */
};

struct kp_record {
	uint32_t type;		/* enum kprof_record_type */
	uint16_t misc;
	uint32_t cpu;		/* of the buffer the record came from */
	uint64_t time;
	union {
		struct kp_sample sample;
		struct kprof_lost lost;
		struct kprof_throttle_event throttle;	/* THROTTLE, UNTHROTTLE, WOULD_THROTTLE */
		struct kprof_rate_lowered lowered;
	};
};

/* Reader-side counters, printed by --stats. */
struct decode_stats {
	uint64_t records[KPROF_RECORD_MAX];
	uint64_t unknown;	/* skipped: type this kprofcat does not know */
	uint64_t bad;		/* rejected: size does not match the type */
};

/*
 * Decode REC (LEN bytes, LEN == header.size, already checked by the ring)
 * read from CPU's buffer.  Returns 0, 1 for a record of unknown type
 * (skipped; counted in ST), or -EBADMSG for a record too short for its
 * type or with more frames than fit (counted in ST).
 */
int decode__record(const void *rec, size_t len, unsigned int cpu,
		   struct kp_record *out, struct decode_stats *st);

/* Name of a known record type ("SAMPLE", "LOST", ...), NULL if unknown. */
const char *decode__type_name(uint32_t type);

#endif
