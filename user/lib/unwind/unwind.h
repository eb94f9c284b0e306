/* SPDX-License-Identifier: GPL-2.0 */
/*
 * unwind.h - user call chains from a sample's registers and stack
 * snapshot (KPROF_MISC_STACK_USER), unwound with elfutils' libdwfl from
 * the .eh_frame / .debug_frame of the process's DSOs, as perf's
 * unwind-libdw.c unwinds them: the same first frame (the sample's IP),
 * the same return-address rule (pc - 1 for every frame but an activation
 * frame, the address perf prints and symbolizes), the same stop rules.
 *
 * Unlike perf, which builds its libdwfl state again for every sample,
 * one Dwfl is kept per process and reused: its modules (one per DSO
 * mapped, each with its parsed CFI) are reported once, when a frame
 * first lands in them, and the Dwfl is built again only when a module
 * it holds is no longer what the process maps there (an exec, a
 * dlclose()d library replaced).  At most 64 are kept, the least recently
 * sampled process's going first.  The maps are the symbolizer's (usyms.h).
 * Frames whose CFI row is simple are unwound from a cache of rules
 * shared by all processes (cfi_cache.h), with libdwfl's results; a
 * sample with any other row is unwound by libdwfl.
 */
#ifndef KPROFCAT_UNWIND_H
#define KPROFCAT_UNWIND_H

#include <stdint.h>

#include "lib/symbols/usyms.h"

/* A sample's user state, pointing into its record (decode.h). */
struct unwind_sample {
	uint32_t pid;
	uint64_t time;
	const uint64_t *regs;		/* KPROF_REGS_USER_MASK's, kprof.h order */
	const unsigned char *stack;	/* from regs' SP up */
	uint64_t stack_len;		/* bytes of STACK really read (dyn_size) */
};

struct unwind;

/* Maps from U, which must outlive the unwinder. */
struct unwind *unwind__new(struct usyms *u);
void unwind__free(struct unwind *w);
/*
 * The user chain of S, leaf first, in IPS (at most MAX): how many
 * addresses (0: none, as perf gives none), each the one perf prints.
 */
unsigned int unwind__chain(struct unwind *w, const struct unwind_sample *s, uint64_t *ips,
			   unsigned int max);
/* Samples unwound so far, and Dwfl states built (for --stats and tests). */
uint64_t unwind__samples(const struct unwind *w);
uint64_t unwind__builds(const struct unwind *w);
/*
 * Frames of the chains unwound so far from cached CFI rules
 * (cfi_cache.h), and from libdwfl (a sample with a frame no rule unwinds).
 */
uint64_t unwind__cached_frames(const struct unwind *w);
uint64_t unwind__dwfl_frames(const struct unwind *w);

#endif
