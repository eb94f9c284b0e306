/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symtab.h - a symbol table built the way perf 6.1 builds a DSO's (and the
 * kernel's) symbols, so that an address resolves to the symbol perf prints:
 *
 *	batches of symbols inserted in perf's order, each batch after the
 *	symbols already in the table that start at the same address (perf's
 *	rb-tree puts equal starts to the right);
 *	symbols__fixup_end(): a zero-size symbol ends where the next one
 *	starts (the last one at the page after its start; in kallsyms, one
 *	followed by a symbol of another module ends at the next page);
 *	symbols__fixup_duplicate(): of the symbols at one address, keep one,
 *	choose_best_symbol(): non-zero size, then not weak, then global,
 *	then fewer leading underscores, then the longer name, then the
 *	"SyS" rule, then the first;
 *	symbols__find(): the symbol whose [start, end) holds the address
 *	(or whose start it is, for a symbol still of size zero).
 *
 * perf keeps a red-black tree; its in-order sequence is this table's
 * order, which is all the fixups look at.  Lookups agree whenever symbols
 * do not overlap; where they do (sized symbols over others: seen only
 * among .rodata objects, never text), perf's answer depends on the tree's
 * shape and this table answers with the nearest start below the address.
 */
#ifndef KPROFCAT_SYMTAB_H
#define KPROFCAT_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

struct symtab_sym {
	uint64_t start, end;
	uint32_t name;		/* offset in the table's names */
	uint32_t len : 30;	/* the name's, without the NUL it may have */
	uint32_t binding : 2;	/* STB_LOCAL, STB_GLOBAL, STB_WEAK */
};

struct symtab;

/* A table that keeps a NUL-terminated copy of every name. */
struct symtab *symtab__new(void);
/*
 * A table whose names lie in TEXT, which outlives it: symtab__add_len()
 * takes names there and copies nothing, so they end at their length, not
 * at a NUL (kallsyms' megabytes, most of whose names are never printed).
 * Names must be added in TEXT's order (equal starts keep it).
 */
struct symtab *symtab__new_in(const char *text);
void symtab__free(struct symtab *t);
/* Queue one symbol of the next batch (NAME is copied).  -ENOMEM. */
int symtab__add(struct symtab *t, uint64_t start, uint64_t size, int binding,
		const char *name);
/* The same for the LEN bytes at NAME (no NUL needed). */
int symtab__add_len(struct symtab *t, uint64_t start, uint64_t size, int binding,
		    const char *name, size_t len);
/*
 * Room for a batch of NR symbols of NAMES bytes (NULs included) in all,
 * so that a big one (kallsyms) is not copied as it grows.  -ENOMEM.
 */
int symtab__reserve(struct symtab *t, size_t nr, size_t names);
/* Insert the queued batch; returns how many it held, or -ENOMEM. */
int symtab__commit(struct symtab *t);
/* KALLSYMS: perf's kallsyms rule at module boundaries (names hold '['). */
void symtab__fixup_end(struct symtab *t, int kallsyms);
void symtab__fixup_duplicate(struct symtab *t);
const struct symtab_sym *symtab__find(const struct symtab *t, uint64_t addr);
/* S's name, of S->len bytes: NUL-terminated unless from symtab__new_in(). */
const char *symtab__name(const struct symtab *t, const struct symtab_sym *s);
size_t symtab__count(const struct symtab *t);
const struct symtab_sym *symtab__sym(const struct symtab *t, size_t i);

#endif
