/* SPDX-License-Identifier: GPL-2.0 */
/*
 * inline.h - the function names perf 6.1 prints for one address of a DSO
 * where debug info says code was inlined (its "(inlined)" frames).
 *
 * perf (append_inlines(), for DWARF-unwound user frames only) asks
 * addr2line -i -f for the address in the file it read the symbols from,
 * and turns each record, innermost first, into a frame: the function's
 * name (DW_AT_linkage_name before DW_AT_name, through DW_AT_abstract_origin
 * and DW_AT_specification, demangled as symbols are), printed with the
 * frame's own address and symbol offset.  A record naming the frame's own
 * symbol is that symbol's ordinary line; every other is "(inlined)", the
 * outermost one too when the DWARF name differs from the symbol's (as for
 * "foo" in "foo.constprop.0").  Where addr2line finds no function (no
 * DWARF for the address) the frame stays as it was.  Here libdw walks the
 * DIEs holding the address instead of running addr2line.
 *
 * Answers are kept per address, so each is computed once; the names are
 * interned and live as long as the object (past inlines__trim()).
 */
#ifndef KPROFCAT_INLINE_H
#define KPROFCAT_INLINE_H

#include <stdint.h>

struct inlines;

/*
 * The debug info of DWARF_PATH (the file the DSO's symbols came from) for
 * the DSO RUN_PATH (whose .text gives perf's file-offset-to-address
 * shift); names demangled if DEMANGLE.  NULL: no file or no DWARF.
 */
struct inlines *inlines__open(const char *dwarf_path, const char *run_path, int demangle);
void inlines__free(struct inlines *in);
/*
 * The names at file offset OFF, innermost first, in *NAMES: how many (0:
 * none, the frame prints as it is).  *NAMES is valid until the next
 * call; the names themselves while IN lives.
 */
unsigned int inlines__at(struct inlines *in, uint64_t off, const char *const **names);

#endif
