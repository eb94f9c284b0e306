/* SPDX-License-Identifier: GPL-2.0 */
/*
 * usyms.h - user-space symbolization: per-process executable mappings
 * (from /proc/PID/maps snapshots and side-band mmap/exec/fork history, all
 * stamped with local_clock() time like the samples), and per-DSO symbol
 * tables read as perf reads them (dso.h) or from a capture's snapshot.
 */
#ifndef KPROFCAT_USYMS_H
#define KPROFCAT_USYMS_H

#include <stddef.h>
#include <stdint.h>

#define USYMS_BUILD_ID_MAX	20

/* Process history events ("proc events"). */
enum pev_type {
	PEV_MMAP = 1,	/* executable mapping appeared (time 0: since ever) */
	PEV_EXEC = 2,	/* pid exec'd: its mappings end */
	PEV_FORK = 3,	/* pid is a new process forked by ppid */
};

struct pev {
	uint32_t type;
	uint32_t pid;
	uint32_t ppid;		/* PEV_FORK */
	uint32_t bid_len;	/* PEV_MMAP: build-id length, 0 if unknown */
	uint64_t time;
	uint64_t start, len, pgoff;	/* PEV_MMAP */
	unsigned char build_id[USYMS_BUILD_ID_MAX];
	const char *path;	/* PEV_MMAP */
};

struct usym {
	const char *name;	/* NULL: no symbol ("[unknown]") */
	uint64_t off;		/* from the symbol's start */
	uint64_t addr;		/* address perf prints: offset in the DSO */
	const char *dso;	/* mapping's path, "[unknown]" without one */
	struct dso *obj;	/* its symbols (dso.h), NULL without a map */
	/*
	 * The answer holds for every sample time from SINCE on, until
	 * usyms__generation() changes.
	 */
	int stable;
	uint64_t since;
};

struct usyms;

struct usyms *usyms__new(void);
void usyms__free(struct usyms *u);
/*
 * Whether usyms__resolve() names C++ symbols demangled (the default, as
 * perf does) or as the ELF symbol table spells them (--no-demangle).
 */
void usyms__set_demangle(struct usyms *u, int on);
int usyms__apply(struct usyms *u, const struct pev *e);
/*
 * Changes whenever PID's maps do, or the build-id a file they map must
 * have (0 while PID has none).
 */
uint32_t usyms__generation(const struct usyms *u, uint32_t pid);
/*
 * Symbolize ADDR of process PID at TIME, as perf does (at ADDR itself,
 * return addresses included, through the last map made over ADDR at or
 * before TIME).  Always fills R; returns 0 with a symbol, -ENOENT without.
 */
int usyms__resolve(struct usyms *u, uint32_t pid, uint64_t time, uint64_t addr,
		   struct usym *r);

/*
 * The functions perf shows inlined at R's address (dso.h's dso__inlines()),
 * for a frame R that usyms__resolve() named: how many, in *NAMES (valid
 * until the next call), innermost first; 0 for frames perf shows as they
 * are (no symbol, JIT code, no debug info).
 */
unsigned int usyms__inlines(struct usyms *u, const struct usym *r, const char *const **names);

/* A mapping of a process, as usyms__map() finds it. */
struct usym_map {
	uint64_t start, end, pgoff;
	const char *path;	/* the DSO's (the JIT map's for JIT code) */
	int jit;
	const unsigned char *build_id;	/* the one the file must have (dso.h), or NULL */
	size_t build_id_len;
	uint64_t lo, hi;	/* the addresses whose answer (at that time) is this */
	uint64_t from, to;	/* the times whose answer (for those addresses) is this */
};

/*
 * The map usyms__resolve() takes for ADDR of PID at TIME: 0 and M, or
 * -ENOENT.  For unwinders, which read the file behind it, and can take M
 * for any address of [M->lo, M->hi) at any time of [M->from, M->to)
 * without asking again, as long as usyms__generation() of PID is the same.
 */
int usyms__map(struct usyms *u, uint32_t pid, uint64_t time, uint64_t addr,
	       struct usym_map *m);

/*
 * Parse /proc/PID/maps TEXT into PEV_MMAP events stamped TIME, passed to FN.
 */
int usyms__parse_maps(uint32_t pid, uint64_t time, char *text,
		      int (*fn)(void *ctx, const struct pev *e), void *ctx);

/*
 * DSO symbol snapshots, for captures: every DSO looked up so far, as
 * self-contained blobs (path, build-id, raw symbols: dso.h), and back.  A
 * DSO loaded from a blob is never read from the filesystem.
 */
int usyms__save_dsos(struct usyms *u,
		     int (*write)(void *ctx, const void *blob, size_t len), void *ctx);
int usyms__load_dso(struct usyms *u, const void *blob, size_t len);

#endif
