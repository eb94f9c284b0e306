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
#include <string.h>

#include "lib/symbols/demangle.h"

/*
 * Whether cplus_demangle() can take NAME: its automatic style tries Rust
 * ("_R", or "_ZN" and "__ZN" for the legacy scheme) and then the C++ ABI
 * ("_Z", or "_GLOBAL_" for constructor tables) and returns NULL for any
 * other name.  Asked first, it spares a C program's every symbol the
 * demangler's setup: a twentieth of reading a perl profile.
 */
static int may_be_mangled(const char *name)
{
	if (name[0] != '_')
		return 0;
	return name[1] == 'Z' || name[1] == 'R' || (name[1] == '_' && name[2] == 'Z') ||
	       !strncmp(name, "_GLOBAL_", 8);
}

char *demangle__cxx(const char *name)
{
	return may_be_mangled(name) ? cplus_demangle(name, DMGL_NO_OPTS) : NULL;
}
