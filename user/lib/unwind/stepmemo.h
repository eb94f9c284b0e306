/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stepmemo.h - the checks and the CFI rule of a frame, remembered per
 * return address for one Dwfl.
 *
 * Past a chain's first frame, the unwinder checks each frame's module
 * twice (at the return address and at the one before it, as perf's
 * unwinder reports modules), then finds the rule of the row before the
 * return address: two map lookups, three module lookups and a rule
 * lookup for every frame, though a profile's chains come back to the
 * same few return addresses.  The outcome depends only on the Dwfl's
 * modules and on the map the process had over the address: so it is
 * kept per return address with where the map it was checked against
 * answers (the process's generation and the sample times of usyms__map()),
 * and found again only for a frame of a sample in those times of that
 * generation, whose map over the address is that one without looking it
 * up.  Emptied whenever the Dwfl gets a module, it goes with its Dwfl.
 */
#ifndef KPROFCAT_STEPMEMO_H
#define KPROFCAT_STEPMEMO_H

#include <stdint.h>

#include "lib/unwind/cfi_cache.h"

struct stepmemo;

struct stepmemo *stepmemo__new(void);
void stepmemo__free(struct stepmemo *m);
/* Forget every frame: the Dwfl has a new module. */
void stepmemo__clear(struct stepmemo *m);
/* Where a map over a return address answers (struct usym_map's times). */
struct stepmemo_key {
	uint32_t gen;		/* usyms__generation() of the process */
	uint64_t from, to;	/* the sample times */
};

/*
 * The rule remembered for return address RET of a sample at TIME of the
 * process's generation GEN, or NULL.
 */
const struct cfi_rule *stepmemo__find(const struct stepmemo *m, uint64_t ret, uint32_t gen,
				      uint64_t time);
/* Remember RULE for RET, checked against the map over it, which answers at KEY. */
void stepmemo__add(struct stepmemo *m, uint64_t ret, const struct stepmemo_key *key,
		   const struct cfi_rule *rule);

#endif
