/* SPDX-License-Identifier: GPL-2.0 */
/*
 * debuginfod.h - debug files by build-id from the debuginfod servers
 * DEBUGINFOD_URLS names, through libdebuginfod and its cache
 * (DEBUGINFOD_CACHE_PATH), as perf and gdb fetch them.
 *
 * Each query waits at most DEBUGINFOD_TIMEOUT seconds (default 30) in
 * all, the connection, the server's answer and the download together.
 * The first query that fails for another reason than "the servers have no
 * such file" (a server down, unreachable, or too slow) prints one warning
 * and ends all asking for the rest of the run.
 */
#ifndef KPROFCAT_DEBUGINFOD_H
#define KPROFCAT_DEBUGINFOD_H

#include <stddef.h>

#define DEBUGINFOD_DEFAULT_TIMEOUT	30	/* seconds */

struct debuginfod;

/* NULL when DEBUGINFOD_URLS is unset or empty: nothing is ever asked. */
struct debuginfod *debuginfod__new(void);
void debuginfod__free(struct debuginfod *c);
/*
 * The debug file of build-id BID (LEN bytes): 0 and its path in the
 * client's cache in PATH (PATH_LEN bytes), else -ENOENT (no server has
 * it, or asking has ended).
 */
int debuginfod__find(struct debuginfod *c, const unsigned char *bid, size_t len,
		     char *path, size_t path_len);

#endif
