/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_out.h - the perf.data writer's state and its buffered writes
 * (perf_out.c), under both halves of the writer: convert_perf.c (header,
 * attr, records) and convert_perf_meta.c (kernel maps from kallsyms,
 * feature sections).  Private to the perf.data writer.
 */
#ifndef KPROFCAT_PERF_OUT_H
#define KPROFCAT_PERF_OUT_H

#include <stdint.h>
#include <stdio.h>

#include <linux/perf_event.h>

#include "tool/convert/convert.h"
#include "lib/stream/output.h"
#include "lib/symbols/usyms.h"
#include "lib/util/strmap.h"

#define PERF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" */
#define NAME_ALIGN	64
#define HOST_PID	((uint32_t)-1)

/* @x rounded up to a multiple of @a, a power of two. */
static inline uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) & ~(a - 1);
}

enum {
	FEAT_BUILD_ID = 2, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION,
	FEAT_ARCH, FEAT_NRCPUS, FEAT_CMDLINE = 11, FEAT_EVENT_DESC,
	FEAT_BITS = 256,
};

struct file_section {
	uint64_t offset, size;
};

struct file_header {
	uint64_t magic, size, attr_size;
	struct file_section attrs, data, event_types;
	uint64_t features[FEAT_BITS / 64];
};

struct file_attr {
	struct perf_event_attr attr;
	struct file_section ids;
};

/* sample_id_all trailer for sample_type TID|TIME|CPU */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
};

struct perf_out {
	struct output o;	/* first: record__replay drives it */
	const struct convert_input *in;
	FILE *f;
	const char *path;
	int err;
	struct perf_event_attr attr;
	uint64_t data_start, data_size;
	struct strmap *comms;	/* tid -> hash of the comm last written */
	unsigned int max_cpu;
	uint64_t lost, throttles;
};

/* Buffered writes; the first error sticks in p->err. */
void perf_out__put(struct perf_out *p, const void *b, size_t len);
void perf_out__zeros(struct perf_out *p, size_t len);
/*
 * One data-section record: header, BODY (BLEN bytes), STR NUL-padded to a
 * multiple of STR_ALIGN (none if NULL), then ID (the sample_id_all
 * trailer, none if NULL).
 */
void perf_out__record(struct perf_out *p, uint32_t type, uint16_t misc,
		      const void *body, size_t blen, const char *str, size_t str_align,
		      const struct sample_id *id);
/* A PERF_RECORD_MMAP2 of E's file (PEV_MMAP): LEN bytes at START, from file offset PGOFF. */
void perf_out__mmap2(struct perf_out *p, const struct pev *e, uint64_t start, uint64_t len,
		     uint64_t pgoff, uint32_t prot);

#endif
