/* SPDX-License-Identifier: GPL-2.0 */
/*
 * strmap.h - string-keyed counters (folded stacks, report symbols).
 */
#ifndef KPROFCAT_STRMAP_H
#define KPROFCAT_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_entry {
	const char *key;
	uint64_t a, b;		/* two counters, meaning up to the user */
	uint64_t mark;		/* scratch, e.g. last sample that counted */
};

struct strmap;

struct strmap *strmap__new(void);
void strmap__free(struct strmap *m);
/* The entry of KEY (LEN bytes), created zeroed.  NULL on -ENOMEM. */
struct strmap_entry *strmap__get(struct strmap *m, const char *key, size_t len);
/* All entries, in an array the caller frees (entries stay owned by M). */
struct strmap_entry **strmap__entries(struct strmap *m, size_t *nr);

#endif
