// SPDX-License-Identifier: GPL-2.0
/*
 * cu_scopes.c - a compile unit's children by address (cu_scopes.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>

#include "lib/symbols/cu_scopes.h"

/* Imported units within imported units: past this, a cycle (libdw fails). */
#define IMPORT_NEST_MAX	8
/* Ranges kept for all units: past this, the units' tables start over. */
#define RANGES_MAX	(1U << 20)

/* One range of a child of a unit. */
struct span {
	Dwarf_Addr low, high;
	uint32_t child;		/* its place in the walk's order */
};

/* A compile unit's children with ranges, and their ranges by address. */
struct unit {
	Dwarf_Off off;		/* the unit DIE's offset */
	int used;
	struct span *spans;	/* by low */
	Dwarf_Addr *reach;	/* reach[i]: the highest high of spans[0..i] */
	uint32_t nr_spans, nr_children;
	Dwarf_Die *children;	/* in the walk's order */
};

/* may_have_ranges()'s answer for the DIEs of one abbreviation. */
struct memo {
	const Dwarf_Abbrev *abbrev;	/* NULL: a free slot */
	int answer;
};

struct cu_scopes {
	struct unit *units;	/* open addressing by offset */
	uint32_t cap, nr;
	size_t ranges;		/* spans of all units */
	struct memo *memo;	/* open addressing by abbreviation */
	uint32_t memo_cap, memo_nr;
};

typedef int (*visit_fn)(Dwarf_Die *die, void *arg);

/*
 * Whether dwarf_ranges() can find a range of DIE: it reads DW_AT_low_pc
 * (with high_pc) and DW_AT_ranges, through DW_AT_abstract_origin and
 * DW_AT_specification.  A unit's children are mostly types and variables
 * with none of them; asking the abbreviation is much cheaper than that
 * search, and the answer is the same.
 */
static int ranges_attrs(Dwarf_Die *die)
{
	return dwarf_hasattr(die, DW_AT_low_pc) || dwarf_hasattr(die, DW_AT_ranges) ||
	       dwarf_hasattr(die, DW_AT_abstract_origin) ||
	       dwarf_hasattr(die, DW_AT_specification);
}

static uint32_t memo_slot(const Dwarf_Abbrev *abbrev, uint32_t cap)
{
	return (uint32_t)(((uintptr_t)abbrev * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* Twice the memo's slots; -1: no memory (it stays as it is). */
static int memo_grow(struct cu_scopes *c)
{
	uint32_t ncap = c->memo_cap ? c->memo_cap * 2 : 256, i, j;
	struct memo *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < c->memo_cap; i++) {
		if (!c->memo[i].abbrev)
			continue;
		for (j = memo_slot(c->memo[i].abbrev, ncap); n[j].abbrev; j = (j + 1) & (ncap - 1))
			;
		n[j] = c->memo[i];
	}
	free(c->memo);
	c->memo = n;
	c->memo_cap = ncap;
	return 0;
}

/*
 * ranges_attrs(DIE), remembered by its abbreviation (the attributes it
 * names are those of every DIE of it): the Dwarf_Abbrev libdw keeps for
 * the DIE once dwarf_tag() read it, which lives as long as the Dwarf
 * handle this table serves.  The walks ask it of each DIE they pass, a
 * few hundred abbreviations for thousands of DIEs.
 */
static int may_have_ranges(struct cu_scopes *c, Dwarf_Die *die)
{
	const Dwarf_Abbrev *abbrev = die->abbrev;
	uint32_t i;
	int answer;

	/* Not read yet, or unreadable (libdw's DWARF_END_ABBREV). */
	if (!abbrev || abbrev == (const Dwarf_Abbrev *)-1l)
		return ranges_attrs(die);
	if ((c->memo_nr + 1) * 2 > c->memo_cap && memo_grow(c))
		return ranges_attrs(die);
	for (i = memo_slot(abbrev, c->memo_cap); c->memo[i].abbrev; i = (i + 1) & (c->memo_cap - 1))
		if (c->memo[i].abbrev == abbrev)
			return c->memo[i].answer;
	answer = ranges_attrs(die);
	c->memo[i].abbrev = abbrev;
	c->memo[i].answer = answer;
	c->memo_nr++;
	return answer;
}

/*
 * VISIT for CHILD and its siblings in the walk's order, until it returns
 * nonzero: that value, or 0.
 */
static int each_child(Dwarf_Die child, visit_fn visit, void *arg, int nest)
{
	Dwarf_Attribute a;
	Dwarf_Die unit;
	int ret;

	do {
		if (dwarf_tag(&child) == DW_TAG_imported_unit) {
			/* gcc -flto imported whole compile units: libdw skips those. */
			if (nest < IMPORT_NEST_MAX &&
			    dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &a), &unit) &&
			    dwarf_tag(&unit) != DW_TAG_compile_unit && !dwarf_child(&unit, &unit)) {
				ret = each_child(unit, visit, arg, nest + 1);
				if (ret)
					return ret;
			}
			continue;
		}
		ret = visit(&child, arg);
		if (ret)
			return ret;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

struct holding {
	struct cu_scopes *c;
	Dwarf_Addr addr;
	Dwarf_Die *out;
};

static int holds(Dwarf_Die *die, void *arg)
{
	struct holding *h = arg;

	if (!may_have_ranges(h->c, die) || dwarf_haspc(die, h->addr) <= 0)
		return 0;
	*h->out = *die;
	return 1;
}

/* The first of CHILD and its siblings holding ADDR, into *OUT, walked: 1, or 0. */
static int first_holding(struct cu_scopes *c, Dwarf_Die child, Dwarf_Addr addr, Dwarf_Die *out)
{
	struct holding h = { c, addr, out };

	return each_child(child, holds, &h, 0);
}

struct cu_scopes *cu_scopes__new(void)
{
	struct cu_scopes *c = calloc(1, sizeof(*c));

	if (c) {
		c->cap = 64;
		c->units = calloc(c->cap, sizeof(*c->units));
	}
	if (c && !c->units) {
		free(c);
		c = NULL;
	}
	return c;
}

static void unit_free(struct unit *u)
{
	free(u->spans);
	free(u->reach);
	free(u->children);
	memset(u, 0, sizeof(*u));
}

static void forget_units(struct cu_scopes *c)
{
	uint32_t i;

	for (i = 0; i < c->cap; i++)
		unit_free(&c->units[i]);
	c->nr = 0;
	c->ranges = 0;
}

void cu_scopes__free(struct cu_scopes *c)
{
	if (!c)
		return;
	forget_units(c);
	free(c->units);
	free(c->memo);
	free(c);
}

struct build {
	struct cu_scopes *c;
	struct unit *u;
	uint32_t cap_spans, cap_children;
	int err;
};

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t ncap = *cap ? *cap * 2 : 64;
	void *n;

	if (need <= *cap)
		return 0;
	n = realloc(*p, ncap * size);
	if (!n)
		return -1;
	*p = n;
	*cap = ncap;
	return 0;
}

/* DIE's ranges (those dwarf_haspc() reads), and DIE when it has one. */
static int add_child(Dwarf_Die *die, void *arg)
{
	struct build *b = arg;
	struct unit *u = b->u;
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	int any = 0;

	if (!may_have_ranges(b->c, die))
		return 0;
	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0) {
		if (start >= end)
			continue;
		if (grow((void **)&u->spans, &b->cap_spans, u->nr_spans + 1, sizeof(*u->spans))) {
			b->err = 1;
			return 1;
		}
		u->spans[u->nr_spans++] = (struct span){ start, end, u->nr_children };
		any = 1;
	}
	if (!any)
		return 0;
	if (grow((void **)&u->children, &b->cap_children, u->nr_children + 1,
		 sizeof(*u->children))) {
		b->err = 1;
		return 1;
	}
	u->children[u->nr_children++] = *die;
	return 0;
}

static int by_low(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	/* Among equal lows the lookup takes the first child itself. */
	return x->low < y->low ? -1 : x->low > y->low;
}

/* U, for the unit CU: its children's ranges, sorted.  0, or -1 (no memory). */
static int unit_build(struct cu_scopes *c, struct unit *u, Dwarf_Die *cu)
{
	struct build b = { .c = c, .u = u };
	Dwarf_Die child;
	uint32_t i;

	if (!dwarf_child(cu, &child))
		each_child(child, add_child, &b, 0);
	if (!b.err && u->nr_spans)
		u->reach = malloc(u->nr_spans * sizeof(*u->reach));
	if (b.err || (u->nr_spans && !u->reach))
		return -1;
	qsort(u->spans, u->nr_spans, sizeof(*u->spans), by_low);
	for (i = 0; i < u->nr_spans; i++)
		u->reach[i] = i && u->reach[i - 1] > u->spans[i].high ? u->reach[i - 1] :
			      u->spans[i].high;
	return 0;
}

static uint32_t slot_of(Dwarf_Off off, uint32_t cap)
{
	return (uint32_t)((off * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* Twice the slots for the units.  -1: no memory. */
static int units_grow(struct cu_scopes *c)
{
	uint32_t ncap = c->cap * 2, i, j;
	struct unit *n = calloc(ncap, sizeof(*n));

	if (!n)
		return -1;
	for (i = 0; i < c->cap; i++) {
		if (!c->units[i].used)
			continue;
		for (j = slot_of(c->units[i].off, ncap); n[j].used; j = (j + 1) & (ncap - 1))
			;
		n[j] = c->units[i];
	}
	free(c->units);
	c->units = n;
	c->cap = ncap;
	return 0;
}

/* The unit CU's table, built on its first ask; NULL: no memory. */
static struct unit *unit_get(struct cu_scopes *c, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct unit *u;
	uint32_t i;

	for (i = slot_of(off, c->cap); c->units[i].used; i = (i + 1) & (c->cap - 1))
		if (c->units[i].off == off)
			return &c->units[i];
	if (c->ranges >= RANGES_MAX)
		forget_units(c);
	if ((c->nr + 1) * 2 > c->cap && units_grow(c))
		return NULL;
	for (i = slot_of(off, c->cap); c->units[i].used; i = (i + 1) & (c->cap - 1))
		;
	u = &c->units[i];
	u->off = off;
	if (unit_build(c, u, cu)) {
		unit_free(u);
		return NULL;
	}
	u->used = 1;
	c->nr++;
	c->ranges += u->nr_spans;
	return u;
}

/* The first child of the unit CU holding ADDR, from its table: 1, or 0. */
static int unit_holding(struct cu_scopes *c, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	struct unit *u = unit_get(c, cu);
	uint32_t lo = 0, hi, mid, best = UINT32_MAX, i;
	Dwarf_Die child;

	/* No memory for the table: the walk itself. */
	if (!u)
		return !dwarf_child(cu, &child) && first_holding(c, child, addr, out);
	/* The spans starting at or below ADDR; of those reaching past it, the first child's. */
	for (hi = u->nr_spans; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (u->spans[mid].low <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i-- > 0 && u->reach[i] > addr; )
		if (u->spans[i].high > addr && u->spans[i].child < best)
			best = u->spans[i].child;
	if (best == UINT32_MAX)
		return 0;
	*out = u->children[best];
	return 1;
}

int cu_scopes__child_holding(struct cu_scopes *c, Dwarf_Die *parent, Dwarf_Addr addr,
			     Dwarf_Die *out)
{
	Dwarf_Die child;

	if (dwarf_tag(parent) == DW_TAG_compile_unit)
		return unit_holding(c, parent, addr, out);
	return !dwarf_child(parent, &child) && first_holding(c, child, addr, out);
}
