/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aranges.h - the compile unit holding an address, as dwarf_addrdie()
 * finds it (elfutils 0.188): the .debug_aranges entries sorted by address,
 * searched as dwarf_getarange_addr() searches them.
 *
 * libdw's dwarf_getaranges() interns every compile unit of the file while
 * it builds that table, to take each unit's first DIE offset, and frees
 * them all in dwarf_end(): 4 to 7 ms for libc's 2,000 units, in every
 * process that asks about one address.  This table reads a unit's header
 * only when an address falls in it; libdw then interns the units up to
 * that one (dwarf_offdie()), and no further.
 */
#ifndef KPROFCAT_ARANGES_H
#define KPROFCAT_ARANGES_H

#include <elfutils/libdw.h>

struct aranges;

/*
 * The table of DW's .debug_aranges.  NULL where the file has none, or one
 * that dwarf_getaranges() would refuse (its version not 2, an address
 * size not 4 or 8, a unit past .debug_info), or without memory: the
 * caller asks dwarf_addrdie(), which then answers as before.
 */
struct aranges *aranges__new(Dwarf *dw);
void aranges__free(struct aranges *a);
/*
 * The compile unit DIE holding ADDR into *CU, as dwarf_addrdie(DW, ADDR,
 * CU) gives it: CU, or NULL without one.
 */
Dwarf_Die *aranges__cu_die(const struct aranges *a, Dwarf *dw, Dwarf_Addr addr,
			   Dwarf_Die *cu);

#endif
