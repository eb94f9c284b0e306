// SPDX-License-Identifier: GPL-2.0
/*
 * demangle.c - C++ demangling as perf 6.1 does it: bfd_demangle() of a
 * build without libbfd is libiberty's cplus_demangle() with DMGL_NO_OPTS
 * (tools/perf/util/symbol-elf.c, demangle_sym()), which prints the
 * qualified name without parameter list, return type or qualifiers:
 * "_ZN2kp6Worker4spinEm" is "kp::Worker::spin".  The same library
 * (libiberty-dev) does it here, so the names are perf's to the byte.
 */
#include <libiberty/demangle.h>

#include "lib/symbols/demangle.h"

char *demangle__cxx(const char *name)
{
	return cplus_demangle(name, DMGL_NO_OPTS);
}
