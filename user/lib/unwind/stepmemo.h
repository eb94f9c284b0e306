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
 * kept per return address with the map it was checked against (where the
 * mapped file starts and which file it is), and found again only for a
 * frame whose map is that one.  Emptied whenever the Dwfl gets a module,
 * it goes with its Dwfl.
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
/*
 * The rule remembered for return address RET, checked against the map
 * of file PATH (usyms' string) at BASE (its start less its offset), or
 * NULL.
 */
const struct cfi_rule *stepmemo__find(const struct stepmemo *m, uint64_t ret,
				      uint64_t base, const char *path);
/* Remember RULE for RET, checked against the map of PATH at BASE. */
void stepmemo__add(struct stepmemo *m, uint64_t ret, uint64_t base, const char *path,
		   const struct cfi_rule *rule);

#endif
