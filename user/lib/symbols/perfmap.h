/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfmap.h - JIT symbol maps (/tmp/perf-PID.map), as perf 6.1 reads them.
 *
 * A JIT (node --perf-basic-prof, the JVM's perf-map-agent, LuaJIT, python
 * -X perf) names the code it generates in /tmp/perf-PID.map, a line
 * "START SIZE name" per function, START and SIZE in hex.  perf (map__new())
 * resolves every executable mapping of PID without a file behind it,
 * anonymous (//anon, /dev/zero, /anon_hugepage) or of no DSO ([stack...],
 * [heap], /SYSV...), through that file: the mapping's DSO is the file, and
 * a frame is looked up at its own address (identity__map_ip), not at an
 * offset into the mapping.
 */
#ifndef KPROFCAT_PERFMAP_H
#define KPROFCAT_PERFMAP_H

#include <stddef.h>
#include <stdint.h>

#define PERFMAP_PATH_MAX	32

/* Whether an executable mapping named NAME resolves through PID's map. */
int perfmap__covers(const char *name);
/* The map of PID: "/tmp/perf-PID.map" in BUF of PERFMAP_PATH_MAX bytes. */
void perfmap__path(uint32_t pid, char *buf);
/* Whether PATH names a JIT map (perf: a DSO named "/tmp/perf-..."). */
int perfmap__is_path(const char *path);
/*
 * Read the map at PATH as dso__load_perf_map() does, passing each symbol
 * to ADD in the file's order (a non-zero return stops and is returned).
 * -errno when it cannot be opened.
 */
int perfmap__read(const char *path,
		  int (*add)(void *ctx, uint64_t start, uint64_t size, const char *name),
		  void *ctx);

#endif
