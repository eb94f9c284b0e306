/* SPDX-License-Identifier: GPL-2.0 */
/*
 * framecache.h - every distinct frame symbolized and formatted once.
 *
 * A user frame is kept per (pid, address) while the process's maps stay
 * as they were (usyms__generation()) and the lookup gives the same answer
 * for every later sample (usym.stable), and serves samples from the time
 * its map was made (usym.since); a kernel frame per address.  Each entry
 * holds the symbolized frame, its perf-script line, and the id of its
 * (symbol, DSO) pair, so outputs can count per symbol without hashing
 * names.  Memory is bounded: past FRAMECACHE_MAX_BYTES of lines, or of
 * call chains, framecache__trim() starts that part over (ids stay); a call
 * chain is kept from its second sighting on, so chains seen once do not
 * push out the ones that repeat.
 */
#ifndef KPROFCAT_FRAMECACHE_H
#define KPROFCAT_FRAMECACHE_H

#include <stdint.h>

#include "lib/symbols/ksyms.h"
#include "lib/stream/output.h"
#include "lib/symbols/usyms.h"

#define FRAMECACHE_MAX_BYTES	(8U << 20)

struct framecache;

struct framecache *framecache__new(void);
void framecache__free(struct framecache *c);
/*
 * Fill F[*NR] (at most ROOM) for the user frame ADDR of PID (maps
 * generation GEN) at TIME: the frame, or with INL (a DWARF-unwound frame,
 * where perf shows inline frames) the frames perf prints for it, innermost
 * first (usyms__inlines()); and *SINCE, the time from which that answer
 * holds: 0, or 1 when the answer may differ for a later sample (not
 * kept), -ENOMEM.  The inline chain of a DSO address is looked up once
 * (inline.h keeps it); this cache keeps the frames per (PID, ADDR).
 */
int framecache__user(struct framecache *c, struct usyms *u, uint32_t pid, uint32_t gen,
		     uint64_t time, uint64_t addr, int inl, struct out_frame *f,
		     unsigned int room, unsigned int *nr, uint64_t *since);
/* Kernel frame ADDR; K NULL: no symbols, the address is not looked up. */
int framecache__kernel(struct framecache *c, const struct ksyms *k, uint64_t addr,
		       struct out_frame *f);
/* Between samples: start over if the lines grew too big (frames filled before are void). */
void framecache__trim(struct framecache *c);
/*
 * Whole call chains: the frames made for KEY (NKEY words naming the
 * process, its maps' generation and the addresses) if they hold at TIME,
 * or NULL.  A chain is kept only if each of its frames gives the same
 * answer for every later sample.  Their lines lie back to back.  Valid
 * until framecache__trim().
 */
const struct out_frame *framecache__stack_find(struct framecache *c, const uint64_t *key,
					       unsigned int nkey, uint64_t time, unsigned int *nr);
/*
 * Keep a copy of F[NR] for KEY, for samples from SINCE on; returns it, or
 * NULL (not kept: first sighting, no memory).
 */
const struct out_frame *framecache__stack_add(struct framecache *c, const uint64_t *key,
					      unsigned int nkey, uint64_t since,
					      const struct out_frame *f, unsigned int nr);

#endif
