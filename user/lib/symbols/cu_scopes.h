/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cu_scopes.h - the scopes holding an address, in the order libdw's scope
 * walk (__libdw_visit_scopes(), elfutils 0.188) meets a DIE's children:
 * an imported partial unit's children in its place, a whole compile unit
 * imported by gcc -flto skipped.
 *
 * Below a function the children are few, and are walked.  A compile
 * unit's own children are its functions, types and variables, thousands
 * in a large unit: walking them for every address a profile asks about is
 * most of the inline frames' cost.  cu_scopes keeps, per compile unit
 * asked about, its children's address ranges sorted once, each with its
 * child's place in that order, and answers with the first child holding
 * the address as the walk would.
 */
#ifndef KPROFCAT_CU_SCOPES_H
#define KPROFCAT_CU_SCOPES_H

#include <elfutils/libdw.h>

struct cu_scopes;

/* The ranges of the units of one Dwarf; NULL: no memory. */
struct cu_scopes *cu_scopes__new(void);
void cu_scopes__free(struct cu_scopes *c);
/*
 * The first child of PARENT whose ranges hold ADDR, into *OUT, in the
 * scope walk's order: from the unit's table when PARENT is a compile
 * unit, else walked.  1, or 0 without one.
 */
int cu_scopes__child_holding(struct cu_scopes *c, Dwarf_Die *parent, Dwarf_Addr addr,
			     Dwarf_Die *out);

#endif
