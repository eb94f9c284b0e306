/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert.h - what `kprofcat convert` reads of a capture file for the
 * formats other tools read (perf.data for perf report/script, pprof for
 * fleet profilers).
 *
 * Every converter sees the samples and kprof records that `kprofcat -i CAP`
 * prints, in the same order and with the same process filter: it is an
 * output (output.h) driven by record__replay().  What the outputs do not
 * get (META, kallsyms, process history) comes from convert__load().
 */
#ifndef KPROFCAT_CONVERT_H
#define KPROFCAT_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/symbols/usyms.h"

struct convert_input {
	const char *path;
	char writer[17];		/* kprofcat version that wrote it */
	/* META */
	char event[64];
	char hostname[256];
	char release[256];
	char command[256];
	uint64_t sample;		/* period, or frequency if freq */
	int freq;
	/* KALLSYMS, as recorded (NULL: none) */
	char *kallsyms;
	size_t kallsyms_len;
	/* PEV sections in file order; paths owned by the array */
	struct pev *pevs;
	size_t nr_pevs;
	unsigned int nr_cpus;		/* 1 + highest CPU with a STATS or RECORDS section */
	/*
	 * The largest user stack snapshot of a sample (KPROF_MISC_STACK_USER,
	 * DWARF call chains), and whether any sample has registers and a
	 * stack: perf's sample_type must say so before the first sample.
	 */
	int stack_user;
	uint64_t stack_user_size;
	/* Per thread with snapshots, the stack they span. */
	struct convert_stack *stacks;
	size_t nr_stacks;
};

struct convert_stack {
	uint32_t pid, tid;
	uint64_t time;			/* of its earliest sample with a snapshot */
	uint64_t start, end;		/* lowest sp, highest sp + bytes read */
};

/*
 * Read everything but the records of capture PATH, and of the records
 * only what the file's layout depends on (stack_user).  -errno after a
 * message.
 */
int convert__load(const char *path, struct convert_input *in);
void convert__free(struct convert_input *in);

#endif
