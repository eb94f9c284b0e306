/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture_check.h - what a record read from a capture file must be
 * before it is believed: a capture is a file, and files get corrupted.
 */
#ifndef KPROFCAT_CAPTURE_CHECK_H
#define KPROFCAT_CAPTURE_CHECK_H

#include <stddef.h>
#include <stdint.h>

struct capture_check {
	/* From the capture's META (or its STATS sections). */
	uint32_t nr_cpus;	/* CPUs recorded: records of others are corrupt */
	int fixed_period;	/* -c: every sample's period is PERIOD (or 0) */
	uint64_t period;
	/* Tallies, for the warnings after the replay. */
	uint64_t records;	/* accepted */
	uint64_t kernel_samples;	/* accepted samples with kernel frames */
	uint64_t rejected;	/* records whose fields are impossible */
	uint64_t skipped_bytes;	/* after a record of impossible size, to its section's end */
	char first[192];	/* why the first one was rejected, and where */
};

/*
 * NULL if the record REC of LEN bytes (its header's size, checked by the
 * caller), read from the RECORDS section of CPU, is one kprof could have
 * written; else what is wrong with it.
 */
const char *capture_check__record(struct capture_check *c, unsigned int cpu,
				  const void *rec, size_t len);

#endif
