/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demangle.h - C++ symbol names as perf prints them (demangled by default,
 * --no-demangle keeps the raw ones).
 */
#ifndef KPROFCAT_DEMANGLE_H
#define KPROFCAT_DEMANGLE_H

/*
 * The demangled form of the Itanium C++ ABI name NAME ("_Z..."), malloc'd,
 * or NULL when NAME is not a mangled C++ name (C symbols, anything the
 * demangler rejects) or memory ran out: callers then print NAME as is.
 */
char *demangle__cxx(const char *name);

#endif
