/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modmemo.h - dwfl_addrmodule() and the module's userdata, remembered per
 * address for one Dwfl.
 *
 * The unwinder asks libdwfl for the module at every frame's address two
 * or three times (to report it, to check it is still what the process
 * maps there, to find its CFI), and the frames of a profile come back to
 * the same few addresses: each ask is a search of libdwfl's segment
 * table (dwfl_addrsegment()) and a dwfl_module_info() call.  The answer
 * for an address changes only when the Dwfl's modules do, so the memo
 * is emptied whenever a module is reported, and goes with its Dwfl.
 */
#ifndef KPROFCAT_MODMEMO_H
#define KPROFCAT_MODMEMO_H

#include <elfutils/libdwfl.h>

struct modmemo;

struct modmemo *modmemo__new(void);
void modmemo__free(struct modmemo *m);
/* Forget every answer: DWFL has a new module. */
void modmemo__clear(struct modmemo *m);
/* dwfl_addrmodule(DWFL, ADDR), and its userdata in *USERDATA (NULL: none). */
Dwfl_Module *modmemo__addrmodule(struct modmemo *m, Dwfl *dwfl, Dwarf_Addr addr,
				 void **userdata);

#endif
