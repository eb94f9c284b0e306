/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfo.h - libdwfl's find_debuginfo callback for the unwinder:
 * dwfl_standard_find_debuginfo()'s answer, the file it finds by build-id
 * read from the debug cache's inflated copy (dbgcache.h), and without
 * loading libdebuginfod when no debuginfod server could be asked.
 *
 * libdwfl (elfutils 0.188) looks for a module's debug file when its CFI
 * is wanted from .debug_frame (an address .eh_frame has no FDE for): by
 * build-id, then along its debug path by name, then, still without one,
 * from debuginfod, for which it dlopen()s libdebuginfod and its twenty
 * libraries (libcurl, GnuTLS, libcrypto: about 6 MB of RSS and
 * milliseconds of relocation).  With DEBUGINFOD_URLS unset or empty that
 * query does nothing (debuginfod_find_debuginfo() returns -ENOSYS before
 * it looks at the cache), so it is skipped then, when no file the path
 * search could open exists either: the module has no debug file, as the
 * standard search would have concluded.  Otherwise the standard search
 * runs, whole.
 */
#ifndef KPROFCAT_UNWIND_DEBUGINFO_H
#define KPROFCAT_UNWIND_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/* The standard one's signature, for Dwfl_Callbacks.find_debuginfo. */
extern __typeof__(dwfl_standard_find_debuginfo) unwind_find_debuginfo;

#endif
