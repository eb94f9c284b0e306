// SPDX-License-Identifier: GPL-2.0
/*
 * dso.c - a DSO's symbols as perf 6.1 reads them (see dso.h).
 *
 * Loading keeps the raw symbols (ELF names, file offsets, sizes, bindings,
 * in perf's insertion order, with the batch each belongs to); the table
 * perf would build from them (symtab.c) is made on the first lookup, with
 * the names demangled or not.  Captures save the raw symbols (dso_blob.c).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gelf.h>

#include "lib/symbols/debuginfod.h"
#include "lib/symbols/demangle.h"
#include "lib/symbols/dso.h"
#include "lib/symbols/dso_internal.h"
#include "lib/symbols/elfsrc.h"
#include "lib/symbols/inline.h"
#include "lib/symbols/perfmap.h"
#include "lib/util/print.h"
#include "lib/symbols/symtab.h"

struct dso *dso__new(const char *path)
{
	struct dso *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	/* Pseudo-files (//anon, memfd:..., [heap]) have nothing to read. */
	if (path[0] != '/' && strcmp(path, "[vdso]"))
		d->state = DSO_FAILED;
	d->jit = perfmap__is_path(path);
	return d;
}

void dso_clear(struct dso *d)
{
	free(d->raw);
	free(d->names);
	symtab__free(d->tab);
	d->raw = NULL;
	d->names = NULL;
	d->tab = NULL;
	d->nraw = 0;
	d->raw_cap = 0;
	d->names_len = 0;
	d->names_cap = 0;
}

void dso__free(struct dso *d)
{
	if (!d)
		return;
	dso_clear(d);
	while (d->nretired)
		symtab__free(d->retired[--d->nretired]);
	free(d->retired);
	inlines__free(d->inl);
	free(d->path);
	free(d);
}

const char *dso__path(const struct dso *d)
{
	return d->path;
}

size_t dso__build_id(const struct dso *d, const unsigned char **bid)
{
	if (d->want_bid_len) {
		*bid = d->want_bid;
		return d->want_bid_len;
	}
	if (d->from_blob && d->bid_len) {
		*bid = d->bid;
		return d->bid_len;
	}
	*bid = NULL;
	return 0;
}

int dso__expect_build_id(struct dso *d, const unsigned char *bid, size_t len)
{
	if (!len || len > DSO_BUILD_ID_MAX || d->want_bid_len)
		return 0;
	d->want_bid_len = len;
	memcpy(d->want_bid, bid, len);
	return 1;
}

void dso__set_debuginfod(struct dso *d, struct debuginfod *c)
{
	d->dbgd = c;
}

int dso__used(const struct dso *d)
{
	return d->state != DSO_NEW;
}

/*
 * Room for NR more raw symbols and NAMES more bytes of names: a table's
 * counts ask once what doubling would ask a dozen times, each a copy into
 * new pages.  -ENOMEM.
 */
static int raw_reserve(struct dso *d, size_t nr, size_t names)
{
	if (d->nraw + nr > d->raw_cap) {
		size_t cap = d->nraw + nr;
		struct rawsym *r;

		if (cap > UINT32_MAX)
			return -ENOMEM;
		r = realloc(d->raw, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		d->raw = r;
		d->raw_cap = cap;
	}
	if (d->names_len + names > d->names_cap) {
		size_t cap = d->names_len + names;
		char *n;

		if (cap > UINT32_MAX)
			return -ENOMEM;
		n = realloc(d->names, cap);
		if (!n)
			return -ENOMEM;
		d->names = n;
		d->names_cap = cap;
	}
	return 0;
}

static int add_raw(struct dso *d, uint64_t start, uint64_t size, int binding,
		   int batch, const char *name)
{
	size_t len = strlen(name) + 1;

	if (d->nraw == d->raw_cap && raw_reserve(d, d->raw_cap ? d->raw_cap : 256, 0))
		return -ENOMEM;
	if (d->names_len + len > d->names_cap &&
	    raw_reserve(d, 0, d->names_cap > len ? d->names_cap : len + 4096))
		return -ENOMEM;
	memcpy(d->names + d->names_len, name, len);
	d->raw[d->nraw++] = (struct rawsym){ .start = start, .size = size,
		.name = d->names_len, .binding = binding, .batch = batch };
	d->names_len += len;
	return 0;
}

/* ---------------------------------------------------------------------- */
/* Reading an ELF file's symbols the way perf's dso__load_sym() does. */

/* An ELF file's PT_LOAD headers, in their order, read once for all its symbols. */
struct loads {
	size_t n;
	GElf_Phdr *ph;
};

static int loads_read(Elf *elf, struct loads *l)
{
	GElf_Phdr ph;
	size_t i, n;

	l->n = 0;
	l->ph = NULL;
	if (elf_getphdrnum(elf, &n) || !n)
		return 0;
	l->ph = calloc(n, sizeof(*l->ph));
	if (!l->ph)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			l->ph[l->n++] = ph;
	return 0;
}

/* The first PT_LOAD holding VADDR (elf_read_program_header()), or NULL. */
static const GElf_Phdr *phdr_of(const struct loads *l, uint64_t vaddr)
{
	const GElf_Phdr *ph;
	uint64_t sz;

	for (ph = l->ph; ph < l->ph + l->n; ph++) {
		sz = ph->p_memsz > ph->p_filesz ? ph->p_memsz : ph->p_filesz;
		if (sz && vaddr >= ph->p_vaddr && vaddr < ph->p_vaddr + sz)
			return ph;
	}
	return NULL;
}

/* dso__load_sym_internal(): one table of SYMS, in its order. */
static int load_symbols(struct dso *d, struct elfsrc *syms, struct elfsrc *run,
			const struct loads *loads, Elf_Scn *table, int batch)
{
	size_t shstr_sym, shstr_run, i, n;
	GElf_Shdr tsh, ssh;
	Elf_Scn *strtab;
	Elf_Data *data;

	if (!gelf_getshdr(table, &tsh) || !tsh.sh_entsize ||
	    elf_getshdrstrndx(syms->elf, &shstr_sym) ||
	    elf_getshdrstrndx(run->elf, &shstr_run))
		return -EBADMSG;
	data = elf_getdata(table, NULL);
	if (!data)
		return -EBADMSG;
	n = tsh.sh_size / tsh.sh_entsize;
	/* At most every symbol, named from the table's strings. */
	strtab = elf_getscn(syms->elf, tsh.sh_link);
	if (raw_reserve(d, n, strtab && gelf_getshdr(strtab, &ssh) ? ssh.sh_size : 0))
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		int type, vis, is_label, is_func, is_obj;
		const char *name, *secname;
		size_t secstr = shstr_sym;
		Elf *secelf = syms->elf;
		GElf_Sym sym;
		const GElf_Phdr *ph;
		GElf_Shdr sh;
		Elf_Scn *sec;
		uint64_t value;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		vis = GELF_ST_VISIBILITY(sym.st_other);
		is_label = type == STT_NOTYPE && sym.st_name && sym.st_shndx != SHN_UNDEF &&
			   sym.st_shndx != SHN_ABS && vis != STV_HIDDEN && vis != STV_INTERNAL;
		is_func = (type == STT_FUNC || type == STT_GNU_IFUNC) && sym.st_name &&
			  sym.st_shndx != SHN_UNDEF;
		is_obj = type == STT_OBJECT && sym.st_name && sym.st_shndx != SHN_UNDEF;
		if ((!is_label && !is_func && !is_obj) || sym.st_shndx == SHN_ABS ||
		    sym.st_shndx >= SHN_LORESERVE)
			continue;
		sec = elf_getscn(syms->elf, sym.st_shndx);
		if (!sec || !gelf_getshdr(sec, &sh))
			return -EBADMSG;
		if (!(sh.sh_flags & SHF_ALLOC))
			continue;
		/* A debug file's NOBITS sections: the runtime file's header. */
		if (sh.sh_type == SHT_NOBITS) {
			sec = elf_getscn(run->elf, sym.st_shndx);
			if (!sec || !gelf_getshdr(sec, &sh))
				return -EBADMSG;
			secstr = shstr_run;
			secelf = run->elf;
		}
		if (is_label) {
			secname = elf_strptr(secelf, secstr, sh.sh_name);
			if (!secname || (!strstr(secname, "text") && !strstr(secname, "data")))
				continue;
		}
		name = elf_strptr(syms->elf, tsh.sh_link, sym.st_name);
		if (!name)
			continue;
		value = sym.st_value;
		ph = phdr_of(loads, value);
		if (ph)
			value -= ph->p_vaddr - ph->p_offset;
		else
			value -= sh.sh_addr - sh.sh_offset;
		if (add_raw(d, value, sym.st_size, GELF_ST_BIND(sym.st_info), batch, name))
			return -ENOMEM;
	}
	return 0;
}

static int load_table(struct dso *d, struct elfsrc *syms, struct elfsrc *run,
		      Elf_Scn *table, int batch)
{
	struct loads loads;
	int ret = loads_read(run->elf, &loads);

	if (!ret)
		ret = load_symbols(d, syms, run, &loads, table, batch);
	free(loads.ph);
	return ret;
}

/* dso__synthesize_plt_symbols(): NAME@plt for each .rela.plt (.rel.plt) entry. */
static int load_plt(struct dso *d, struct elfsrc *run)
{
	GElf_Shdr rel_sh, plt_sh, dyn_sh;
	Elf_Data *rel, *syms;
	Elf_Scn *scn;
	uint64_t off;
	size_t i, n;

	if (!run->dynsym || !gelf_getshdr(run->dynsym, &dyn_sh))
		return 0;
	scn = elfsrc__section(run->elf, ".rela.plt", &rel_sh, NULL);
	if (!scn)
		scn = elfsrc__section(run->elf, ".rel.plt", &rel_sh, NULL);
	if (!scn || rel_sh.sh_link != run->dynsym_idx || !rel_sh.sh_entsize ||
	    !elfsrc__section(run->elf, ".plt", &plt_sh, NULL))
		return 0;
	rel = elf_getdata(scn, NULL);
	syms = elf_getdata(run->dynsym, NULL);
	if (!rel || !syms)
		return 0;
	n = rel_sh.sh_size / rel_sh.sh_entsize;
	off = plt_sh.sh_offset + plt_sh.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Rela ra;
		GElf_Rel r;
		GElf_Sym sym;
		const char *name;
		size_t idx;

		if (rel_sh.sh_type == SHT_RELA) {
			if (!gelf_getrela(rel, i, &ra))
				return 0;
			idx = GELF_R_SYM(ra.r_info);
		} else {
			if (!gelf_getrel(rel, i, &r))
				return 0;
			idx = GELF_R_SYM(r.r_info);
		}
		if (!gelf_getsym(syms, idx, &sym))
			return 0;
		name = elf_strptr(run->elf, dyn_sh.sh_link, sym.st_name);
		if (add_raw(d, off, plt_sh.sh_entsize, STB_GLOBAL, BATCH_PLT, name ? name : ""))
			return -ENOMEM;
		off += plt_sh.sh_entsize;
	}
	return 0;
}

static int add_jit(void *d, uint64_t start, uint64_t size, const char *name)
{
	return add_raw(d, start, size, STB_GLOBAL, BATCH_SYMTAB, name);
}

/* A JIT map's symbols, as they are: dso_build() neither demangles nor fixes them. */
static int jit_read(struct dso *d)
{
	struct stat st;

	if (stat(d->path, &st))
		return -ENOENT;
	d->jit_size = st.st_size;
	return perfmap__read(d->path, add_jit, d);
}

/*
 * A JIT appends to its map as it compiles: a frame the map did not name
 * when it was read may be named once it has grown (a capture's copy is
 * what the recording read last, and final).
 */
static int jit_grew(const struct dso *d)
{
	struct stat st;

	return d->jit && !d->from_blob && !stat(d->path, &st) && st.st_size != d->jit_size;
}

static int dso_read(struct dso *d)
{
	struct elfsrc cand[ELFSRC_CANDIDATES + 1], *syms = NULL, *run = NULL;
	char path[PATH_MAX];
	struct elfsrc self;
	int i, nc = 0, ret = -ENOENT;

	if (d->jit)
		return jit_read(d);
	if (!strcmp(d->path, "[vdso]")) {
		if (elfsrc__open_vdso(&cand[0]))
			return -ENOENT;
		nc = 1;
		syms = cand[0].symtab ? &cand[0] : NULL;
		run = cand[0].dynsym ? &cand[0] : NULL;
		goto found;
	}
	/* The DSO's own build-id: debug files must match it. */
	if (elfsrc__open(&self, d->path, d->bid, d->bid_len))
		return -ENOENT;
	d->bid_len = elfsrc__build_id(self.elf, d->bid, sizeof(d->bid));
	elfsrc__close(&self);
	if (d->want_bid_len && (d->want_bid_len != d->bid_len ||
				memcmp(d->want_bid, d->bid, d->bid_len))) {
		p_warn("%s: build-id differs from the one the process mapped: its frames will be [unknown]",
		       d->path);
		return -ENOENT;
	}
	for (i = 0; i < ELFSRC_CANDIDATES && !(syms && run); i++) {
		struct elfsrc *s = &cand[nc];
		int keep = 0;

		if (elfsrc__candidate(d->path, d->bid, d->bid_len, i, path, sizeof(path)) ||
		    elfsrc__open(s, path, d->bid, d->bid_len))
			continue;
		if (!syms && s->symtab) {
			syms = s;
			keep = 1;
		}
		if (!run && s->dynsym) {
			run = s;
			keep = 1;
		}
		if (keep)
			nc++;
		else
			elfsrc__close(s);
	}
	/* No .symtab on this disk: the debug file a server has for the build-id. */
	if (!syms && !debuginfod__find(d->dbgd, d->bid, d->bid_len, path, sizeof(path)) &&
	    !elfsrc__open(&cand[nc], path, d->bid, d->bid_len)) {
		if (cand[nc].symtab)
			syms = &cand[nc++];
		else
			elfsrc__close(&cand[nc]);
	}
found:
	if (!syms && !run)
		goto out;
	if (!syms)
		syms = run;
	if (!run)
		run = syms;
	ret = 0;
	if (syms->symtab)
		ret = load_table(d, syms, run, syms->symtab, BATCH_SYMTAB);
	if (!ret && syms->dynsym)
		ret = load_table(d, syms, run, syms->dynsym, BATCH_DYNSYM);
	if (!ret && d->nraw)
		ret = load_plt(d, run);
out:
	for (i = 0; i < nc; i++)
		elfsrc__close(&cand[i]);
	return ret;
}

/* The table perf builds from the raw symbols (dso__load_sym(), then the plt). */
static int dso_build(struct dso *d, int demangle)
{
	int batch, ret = 0;
	uint32_t i;

	d->tab = symtab__new();
	if (!d->tab)
		return -ENOMEM;
	for (batch = 0; batch < NR_BATCHES && !ret; batch++) {
		for (i = 0; i < d->nraw && !ret; i++) {
			const struct rawsym *r = &d->raw[i];
			const char *raw = d->names + r->name;
			char *dem = NULL, *plt = NULL;
			const char *name = raw;

			if (r->batch != batch)
				continue;
			if (demangle && !d->jit)
				dem = demangle__cxx(raw);
			if (dem)
				name = dem;
			if (batch == BATCH_PLT && asprintf(&plt, "%s@plt", name) > 0)
				name = plt;
			ret = symtab__add(d->tab, r->start, r->size, r->binding, name);
			free(dem);
			free(plt);
		}
		if (!ret) {
			ret = symtab__commit(d->tab);
			if (ret > 0 && batch != BATCH_PLT && !d->jit) {
				symtab__fixup_end(d->tab, 0);
				symtab__fixup_duplicate(d->tab);
			}
		}
		ret = ret < 0 ? ret : 0;
	}
	return ret;
}

static int dso_lookup(struct dso *d, uint64_t off, int demangle, const char **name,
		      uint64_t *symoff)
{
	const struct symtab_sym *s;

	if (d->state == DSO_NEW)
		d->state = dso_read(d) ? DSO_FAILED : DSO_LOADED;
	if (d->state != DSO_LOADED)
		return -ENOENT;
	if (d->tab && d->tab_demangle != !!demangle) {
		symtab__free(d->tab);
		d->tab = NULL;
	}
	d->tab_demangle = !!demangle;
	if (!d->tab && dso_build(d, demangle)) {
		d->state = DSO_FAILED;
		return -ENOENT;
	}
	s = symtab__find(d->tab, off);
	if (!s)
		return -ENOENT;
	*name = symtab__name(d->tab, s);
	*symoff = off - s->start;
	return 0;
}

int dso__resolve(struct dso *d, uint64_t off, int demangle, const char **name,
		 uint64_t *symoff)
{
	struct symtab **r;

	if (!dso_lookup(d, off, demangle, name, symoff))
		return 0;
	if (!jit_grew(d))
		return -ENOENT;
	r = realloc(d->retired, (d->nretired + 1) * sizeof(*r));
	if (!r)
		return -ENOENT;
	d->retired = r;
	d->retired[d->nretired++] = d->tab;
	d->tab = NULL;
	dso_clear(d);
	d->state = DSO_NEW;
	return dso_lookup(d, off, demangle, name, symoff);
}

/*
 * The file perf hands addr2line (dso__name() in srcline.c): the one it
 * read the symbols from if that had a .symtab (symsrc_filename), else the
 * DSO itself.  Looked for again here, the same way, so that a DSO a
 * capture snapshot filled gets the debug info this machine has for its
 * build-id.  -ENOENT: no file of that build-id.
 */
static int dwarf_source(struct dso *d, char *out, size_t len)
{
	struct elfsrc s;
	int i, symtab;

	for (i = 0; i < ELFSRC_CANDIDATES; i++) {
		if (elfsrc__candidate(d->path, d->bid, d->bid_len, i, out, len) ||
		    elfsrc__open(&s, out, d->bid, d->bid_len))
			continue;
		symtab = !!s.symtab;
		elfsrc__close(&s);
		if (symtab)
			return 0;
	}
	if (!debuginfod__find(d->dbgd, d->bid, d->bid_len, out, len) &&
	    !elfsrc__open(&s, out, d->bid, d->bid_len)) {
		symtab = !!s.symtab;
		elfsrc__close(&s);
		if (symtab)
			return 0;
	}
	if (elfsrc__open(&s, d->path, d->bid, d->bid_len))
		return -ENOENT;
	elfsrc__close(&s);
	snprintf(out, len, "%s", d->path);
	return 0;
}

unsigned int dso__inlines(struct dso *d, uint64_t off, int demangle,
			  const char *const **names)
{
	char path[PATH_MAX];

	if (d->jit || d->path[0] != '/' || d->state != DSO_LOADED)
		return 0;
	if (d->inl_tried && d->inl_demangle != !!demangle) {
		inlines__free(d->inl);
		d->inl = NULL;
		d->inl_tried = 0;
	}
	if (!d->inl_tried) {
		d->inl_tried = 1;
		d->inl_demangle = !!demangle;
		if (!dwarf_source(d, path, sizeof(path)))
			d->inl = inlines__open(path, d->path, demangle);
	}
	return d->inl ? inlines__at(d->inl, off, names) : 0;
}
