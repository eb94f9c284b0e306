/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dbgcache.h - a cache of debug files with their compressed .debug_*
 * sections inflated, so that libdw maps them instead of inflating them on
 * every run (Debian's -dbg packages ship them SHF_COMPRESSED with zlib:
 * about 10 MB of inflation for libc alone), as perf keeps its build-id
 * cache in ~/.debug.
 *
 * The copy of a file of build-id B is $KPROFCAT_DEBUG_CACHE/B, else
 * $XDG_CACHE_HOME/kprofcat/debug/B, else ~/.cache/kprofcat/debug/B,
 * written on the first run that needs it.  A copy is used only when it is
 * a regular file of this user's, an ELF file of build-id B whose sections
 * are the original's, inflated (same names, types and sizes, nothing
 * compressed), every one inside the file; else it is written again.
 * KPROFCAT_DEBUG_CACHE=off (or --no-debug-cache) turns the cache off;
 * KPROFCAT_DEBUG_CACHE_MB bounds it (DBGCACHE_DEFAULT_MB), the least
 * recently used copies going first.  Where the cache cannot be written
 * (no HOME, a read-only directory, a full disk) the original file
 * is read, with one warning a run.
 */
#ifndef KPROFCAT_DBGCACHE_H
#define KPROFCAT_DBGCACHE_H

#define DBGCACHE_DEFAULT_MB	1024

/*
 * A read-only descriptor of the DWARF of the ELF file PATH: the cached
 * copy's, else PATH's own (no compressed section, no build-id, the cache
 * off or unwritable); -1 with errno when PATH cannot be opened.
 */
int dbgcache__open(const char *path);
/* The cache is not read or written for the rest of the run. */
void dbgcache__disable(void);

#endif
