/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cfi_cache.h - libdwfl's unwinding step, from a cache of CFI rows.
 *
 * libdwfl unwinds a frame (frame_unwind.c, elfutils 0.188) by asking
 * libdw for the CFI row at its pc, then evaluating a DWARF expression
 * for every register, with a malloc()ed frame each time.  Most rows of
 * x86-64 code are simple: the CFA is %rsp or %rbp plus an offset, the
 * return address and %rbp are undefined, unchanged or saved at CFA plus
 * an offset.  Those are kept here, per file and address, reduced to such
 * a rule, and a step applies it with the same results libdwfl's gives:
 * the same pc, %rsp and %rbp for the caller, the same end of the chain,
 * and the same last memory read (its value shows in perf's chains, see
 * unwind.c).  A row that is anything else, or no row at all (libdwfl
 * then unwinds by frame pointer), is left to libdwfl: the step says so.
 */
#ifndef KPROFCAT_CFI_CACHE_H
#define KPROFCAT_CFI_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdwfl.h>

/* What libdwfl's state of a frame holds that a cached rule can read. */
struct cfi_regs {
	uint64_t pc, sp, bp;
	bool bp_set;		/* %rbp known: libdwfl's regs_set bit */
};

/* A memory read as libdwfl's memory_read callback does it. */
typedef bool (*cfi_read_fn)(void *arg, uint64_t addr, uint64_t *val);

/*
 * The memory a step reads: a word at ADDR in [LO, LIM) is BYTES[ADDR -
 * LO...], as READ would give it; READ gives every other one.
 */
struct cfi_mem {
	uint64_t lo, lim;
	const unsigned char *bytes;
	cfi_read_fn read;
	void *arg;
};

enum cfi_step {
	CFI_STEP_NEXT,		/* the caller's frame, in *NEXT */
	CFI_STEP_END,		/* return address undefined or 0: the chain ends */
	CFI_STEP_DWFL,		/* not a simple row: only libdwfl unwinds this frame */
};

/*
 * A row reduced to a rule; its fields are cfi_cache.c's.  A rule is the
 * same wherever its file is mapped: callers may keep copies.
 */
struct cfi_rule {
	bool simple;		/* else libdwfl's */
	bool cfa_bp;		/* CFA from %rbp, else %rsp */
	uint8_t bp;		/* %rbp undefined, the same, or saved */
	bool ra_saved;		/* else undefined */
	bool has_last;		/* the step reads memory: last at CFA + last_off */
	int32_t cfa_off, sp_off, bp_off, ra_off, last_off;
};

struct cfi_cache;

struct cfi_cache *cfi_cache__new(void);
void cfi_cache__free(struct cfi_cache *c);
/*
 * The rule of the CFI row at ADDR in MOD, the module reported for FILE (a
 * string that identifies the file for the cache's life) at BASE; valid
 * until the next call.
 */
const struct cfi_rule *cfi_cache__rule(struct cfi_cache *c, Dwfl_Module *mod,
				       const char *file, uint64_t base, uint64_t addr);
/*
 * One unwinding step of the frame R by RULE (that of R's row), reading
 * MEM.  *LAST_ZERO: whether the step's last memory read gave 0, when it ends
 * the chain.
 */
enum cfi_step cfi_rule__step(const struct cfi_rule *rule, const struct cfi_regs *r,
			     struct cfi_regs *next, bool *last_zero, const struct cfi_mem *mem);

#endif
