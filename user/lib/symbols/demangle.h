/* SPDX-License-Identifier: GPL-2.0 */
/*
 * demangle.h - C++ symbol names as perf prints them (demangled by default,
 * --no-demangle keeps the raw ones).
 */
#ifndef KPROFCAT_DEMANGLE_H
#define KPROFCAT_DEMANGLE_H

/*
 * NAME demangled as perf prints it (no parameters: "kp::Worker::spin"),
 * malloc'd, or NULL when NAME is not a mangled name (C symbols, anything
 * the demangler rejects) or memory ran out: callers then use NAME as is.
 */
char *demangle__cxx(const char *name);

#endif
