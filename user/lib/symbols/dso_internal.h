/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dso_internal.h - what dso.c (reading and looking up a DSO's symbols)
 * and dso_blob.c (a capture's snapshot of them) share: the DSO itself and
 * the raw symbols' layout, which is also the snapshot's.  Nothing else
 * includes it.
 *
 * Included after dso.h (DSO_BUILD_ID_MAX), not from here: dso.c includes
 * this header, and scripts/layering counts dso.c and dso.h as one node,
 * so an include of dso.h here would be a circle.
 */
#ifndef KPROFCAT_DSO_INTERNAL_H
#define KPROFCAT_DSO_INTERNAL_H

#ifndef KPROFCAT_DSO_H
#error "include lib/symbols/dso.h before lib/symbols/dso_internal.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct debuginfod;
struct inlines;
struct symtab;

enum dso_state { DSO_NEW, DSO_LOADED, DSO_FAILED };

/* The batches perf inserts, each followed by its fixups (plt: none). */
enum { BATCH_SYMTAB, BATCH_DYNSYM, BATCH_PLT, NR_BATCHES };

struct rawsym {
	uint64_t start;		/* file offset */
	uint64_t size;
	uint32_t name;		/* offset in names */
	uint16_t binding;
	uint16_t batch;
};

struct dso {
	char *path;
	enum dso_state state;
	uint32_t bid_len;
	unsigned char bid[DSO_BUILD_ID_MAX];
	uint32_t want_bid_len;
	unsigned char want_bid[DSO_BUILD_ID_MAX];
	struct rawsym *raw;
	uint32_t nraw, raw_cap;
	char *names;
	uint32_t names_len, names_cap;
	struct symtab *tab;	/* built from RAW on the first lookup */
	int tab_demangle;	/* how TAB's names were made */
	int jit;		/* a JIT map (perfmap.h), not an ELF file */
	int from_blob;		/* a capture's snapshot: never read from disk */
	struct debuginfod *dbgd;	/* NULL: no server asked */
	off_t jit_size;		/* a JIT map's size when it was read */
	/* Tables of earlier reads of a JIT map: names handed out live on. */
	struct symtab **retired;
	size_t nretired;
	/* Inline info, opened on the first dso__inlines() (inl_tried). */
	struct inlines *inl;
	int inl_tried, inl_demangle;
};

/* Drop the raw symbols and the table built from them. */
void dso_clear(struct dso *d);

#endif
