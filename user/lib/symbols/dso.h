/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dso.h - one user-space DSO's symbols, read as perf 6.1 reads them, or
 * from the snapshot a capture saved.
 *
 * Symbol source (dso__load() in perf's symbol.c): the first file with a
 * .symtab among the .gnu_debuglink targets, /usr/lib/debug/PATH.debug,
 * /usr/lib/debug/PATH, /usr/lib/debug/.build-id/xx/rest.debug and PATH
 * itself (a debug file counts only with PATH's build-id); without one,
 * the debug file a debuginfod server has for PATH's build-id, when the
 * DSO was given a client (debuginfod.h): perf record fetches that file
 * into the build-id cache perf reads symbols from; without that either,
 * PATH's .dynsym.  From that file its .symtab, then its .dynsym, each
 * followed by perf's fixups; then "name@plt" for every .rela.plt entry.
 * Kept (dso__load_sym_internal()): FUNC, GNU_IFUNC and OBJECT symbols and
 * NOTYPE labels (not hidden) in "text"/"data" sections, defined, named,
 * not absolute, in allocated sections; each at its file offset (the
 * PT_LOAD holding it, else its section's offset).  Names are demangled as
 * perf demangles them (libiberty, no parameters) before the choice among
 * aliases (symtab.h) when demangling is on.
 *
 * "[vdso]" is read from this process's own vDSO, as perf does, and a JIT
 * map, /tmp/perf-PID.map, as perf reads it (perfmap.h): its symbols as
 * the file gives them, neither demangled nor fixed up, read again when a
 * lookup misses and the file has grown since.
 */
#ifndef KPROFCAT_DSO_H
#define KPROFCAT_DSO_H

#include <stddef.h>
#include <stdint.h>

#define DSO_BUILD_ID_MAX	20

struct dso;

struct dso *dso__new(const char *path);
void dso__free(struct dso *d);
const char *dso__path(const struct dso *d);
struct debuginfod;

/* Ask C (NULL: none) for the debug file when no local file has a .symtab. */
void dso__set_debuginfod(struct dso *d, struct debuginfod *c);
/*
 * The build-id the process mapped (side band): a file without it is not
 * read.  1 when it is taken (D had none yet), else 0.
 */
int dso__expect_build_id(struct dso *d, const unsigned char *bid, size_t len);
/*
 * The build-id the DSO must have: the one the process mapped (side band),
 * else the one a capture's snapshot recorded; 0 (*BID NULL) if unknown.
 */
size_t dso__build_id(const struct dso *d, const unsigned char **bid);
/*
 * Symbol at file offset OFF: 0 with *NAME and *SYMOFF, -ENOENT without.
 * The first call loads the symbols (DEMANGLE: how names are chosen and
 * printed; the same for every call).
 */
int dso__resolve(struct dso *d, uint64_t off, int demangle, const char **name,
		 uint64_t *symoff);
/*
 * The functions perf shows inlined at file offset OFF (inline.h), read
 * from the debug info the symbols came from, or the DSO's own, on the
 * first call; DEMANGLE as for dso__resolve().  0: none.  *NAMES is valid
 * until the next call.
 */
unsigned int dso__inlines(struct dso *d, uint64_t off, int demangle,
			  const char *const **names);
/* Whether the symbols were looked for (a capture saves those DSOs). */
int dso__used(const struct dso *d);

/*
 * Snapshot: the raw symbols perf's rules start from, so a replay makes the
 * same choices under either demangling.  dso__save() passes one blob to
 * WRITE; dso__blob_path() names the DSO a blob is for; dso__load_blob()
 * fills a DSO (never read from the filesystem afterwards).  -EBADMSG.
 */
int dso__save(const struct dso *d, int (*write)(void *ctx, const void *blob, size_t len),
	      void *ctx);
const char *dso__blob_path(const void *blob, size_t len);
int dso__load_blob(struct dso *d, const void *blob, size_t len);

/*
 * A snapshot read in place, for tools that re-export its symbols (kprofcat
 * convert's --symfs files): dso__blob_view() checks BLOB (-EBADMSG) and
 * fills V, pointing into it; dso__blob_sym() gives raw symbol I < V->nr,
 * in perf's insertion order.
 */
struct dso_blob_view {
	const char *path;
	const unsigned char *build_id;
	uint32_t build_id_len;
	int loaded;		/* 0: the DSO could not be read where recorded */
	uint32_t nr;
	const void *syms;
	const char *names;
};

struct dso_blob_sym {
	uint64_t start;		/* file offset */
	uint64_t size;
	const char *name;	/* as in the ELF file (not demangled) */
	int binding;		/* STB_* */
	int plt;		/* a "NAME@plt" entry perf synthesizes */
};

int dso__blob_view(const void *blob, size_t len, struct dso_blob_view *v);
void dso__blob_sym(const struct dso_blob_view *v, uint32_t i, struct dso_blob_sym *s);

#endif
