// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - user-space symbolization.
 *
 * A sample address is mapped like perf does: the mapping [start, end) of
 * the process that covers it at the sample's time gives the file offset
 * (addr - start + pgoff, which is also what perf script prints), the DSO's
 * PT_LOAD table turns that into an ELF virtual address, and the DSO's
 * function symbols (sorted; at one address a global beats a weak beats a
 * local symbol) give name and offset.  Zero-sized symbols extend to the
 * next one, as perf's symbols__fixup_end() does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "demangle.h"
#include "print.h"
#include "usyms.h"

#define HASH_BITS	10
#define HASH_SIZE	(1U << HASH_BITS)
#define TIME_FOREVER	UINT64_MAX

struct dsym {
	uint64_t addr;
	uint64_t size;
	uint32_t name;		/* offset in strtab */
	uint32_t rank;		/* 0 global, 1 weak, 2 local */
};

struct phdr {
	uint64_t offset;
	uint64_t vaddr;
	uint64_t filesz;
};

enum dso_state { DSO_NEW, DSO_LOADED, DSO_FAILED };

struct dso {
	struct dso *next;
	char *path;
	enum dso_state state;
	uint32_t bid_len;
	unsigned char bid[USYMS_BUILD_ID_MAX];
	uint32_t want_bid_len;	/* build-id the side band reported */
	unsigned char want_bid[USYMS_BUILD_ID_MAX];
	struct phdr *ph;
	uint32_t nph;
	struct dsym *syms;
	uint32_t nsyms;
	char *strtab;
	uint32_t strtab_len;
	/*
	 * Display names, per symbol, made the first time a sample hits it:
	 * demangled (malloc'd) or the raw name (pointing into strtab).  The
	 * raw names are what captures save.
	 */
	const char **dem;
};

struct umap {
	uint64_t start, end, pgoff;
	uint64_t time, until;	/* valid in [time, until) */
	struct dso *dso;
};

struct proc {
	struct proc *next;
	uint32_t pid;
	struct umap *maps;
	size_t nr, cap;
};

struct usyms {
	struct dso *dsos[HASH_SIZE];
	struct proc *procs[HASH_SIZE];
	int demangle;
};

static unsigned int hash_str(const char *s)
{
	unsigned int h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h & (HASH_SIZE - 1);
}

struct usyms *usyms__new(void)
{
	struct usyms *u = calloc(1, sizeof(struct usyms));

	if (u)
		u->demangle = 1;
	return u;
}

void usyms__set_demangle(struct usyms *u, int on)
{
	u->demangle = on;
}

/* Drop the display names (before the symbols they belong to go). */
static void dso_free_dem(struct dso *d)
{
	uint32_t i;

	if (!d->dem)
		return;
	for (i = 0; i < d->nsyms; i++)
		if (d->dem[i] && d->dem[i] != d->strtab + d->syms[i].name)
			free((char *)d->dem[i]);
	free(d->dem);
	d->dem = NULL;
}

/* Name of symbol S of D as printed: demangled once, then from the cache. */
static const char *dso_display_name(struct dso *d, const struct dsym *s)
{
	const char *raw = d->strtab + s->name;
	uint32_t i = s - d->syms;
	char *dem;

	if (raw[0] != '_' || raw[1] != 'Z')
		return raw;
	if (!d->dem) {
		d->dem = calloc(d->nsyms, sizeof(*d->dem));
		if (!d->dem)
			return raw;
	}
	if (!d->dem[i]) {
		dem = demangle__cxx(raw);
		d->dem[i] = dem ? dem : raw;
	}
	return d->dem[i];
}

static void dso_free(struct dso *d)
{
	dso_free_dem(d);
	free(d->path);
	free(d->ph);
	free(d->syms);
	free(d->strtab);
	free(d);
}

void usyms__free(struct usyms *u)
{
	unsigned int i;

	if (!u)
		return;
	for (i = 0; i < HASH_SIZE; i++) {
		while (u->dsos[i]) {
			struct dso *d = u->dsos[i];

			u->dsos[i] = d->next;
			dso_free(d);
		}
		while (u->procs[i]) {
			struct proc *p = u->procs[i];

			u->procs[i] = p->next;
			free(p->maps);
			free(p);
		}
	}
	free(u);
}

static struct dso *dso_find(struct usyms *u, const char *path, int create)
{
	unsigned int h = hash_str(path);
	struct dso *d;

	for (d = u->dsos[h]; d; d = d->next)
		if (!strcmp(d->path, path))
			return d;
	if (!create)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->path = strdup(path);
	if (!d->path) {
		free(d);
		return NULL;
	}
	/* Pseudo-files ([vdso], //anon, memfd:...) have nothing to read. */
	if (path[0] != '/')
		d->state = DSO_FAILED;
	d->next = u->dsos[h];
	u->dsos[h] = d;
	return d;
}

static struct proc *proc_find(struct usyms *u, uint32_t pid, int create)
{
	unsigned int h = pid & (HASH_SIZE - 1);
	struct proc *p;

	for (p = u->procs[h]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->next = u->procs[h];
	u->procs[h] = p;
	return p;
}

int usyms__has_pid(const struct usyms *u, uint32_t pid)
{
	return proc_find((struct usyms *)u, pid, 0) != NULL;
}

static int proc_add(struct proc *p, const struct umap *m)
{
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct umap *maps = realloc(p->maps, cap * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		p->maps = maps;
		p->cap = cap;
	}
	p->maps[p->nr++] = *m;
	return 0;
}

int usyms__apply(struct usyms *u, const struct pev *e)
{
	struct proc *p = proc_find(u, e->pid, 1), *parent;
	struct umap m;
	size_t i;

	if (!p)
		return -ENOMEM;
	switch (e->type) {
	case PEV_MMAP:
		m.start = e->start;
		m.end = e->start + e->len;
		m.pgoff = e->pgoff;
		m.time = e->time;
		m.until = TIME_FOREVER;
		m.dso = dso_find(u, e->path, 1);
		if (!m.dso)
			return -ENOMEM;
		if (e->bid_len && !m.dso->want_bid_len) {
			m.dso->want_bid_len = e->bid_len;
			memcpy(m.dso->want_bid, e->build_id, e->bid_len);
		}
		/* A new mapping replaces what it overlaps. */
		for (i = 0; i < p->nr; i++) {
			struct umap *o = &p->maps[i];

			if (o->until == TIME_FOREVER && o->start < m.end &&
			    m.start < o->end && o->time <= m.time)
				o->until = m.time;
		}
		return proc_add(p, &m);
	case PEV_EXEC:
		for (i = 0; i < p->nr; i++)
			if (p->maps[i].until == TIME_FOREVER)
				p->maps[i].until = e->time;
		return 0;
	case PEV_FORK:
		parent = proc_find(u, e->ppid, 0);
		if (!parent || parent == p)
			return 0;
		/* The child starts with what the parent had mapped then. */
		for (i = 0; i < parent->nr; i++) {
			if (parent->maps[i].time > e->time || parent->maps[i].until <= e->time)
				continue;
			if (proc_add(p, &parent->maps[i]))
				return -ENOMEM;
		}
		return 0;
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------------- */

static int dsym_cmp(const void *a, const void *b, void *arg)
{
	const struct dsym *x = a, *y = b;
	const char *strtab = arg;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return strcmp(strtab + x->name, strtab + y->name);
}

/* Sort, keep one symbol per address. */
static void dso_finish_syms(struct dso *d)
{
	uint32_t i, n = 0;

	qsort_r(d->syms, d->nsyms, sizeof(*d->syms), dsym_cmp, d->strtab);
	for (i = 0; i < d->nsyms; i++)
		if (!n || d->syms[n - 1].addr != d->syms[i].addr)
			d->syms[n++] = d->syms[i];
	d->nsyms = n;
}

static int dso_add_sym(struct dso *d, uint32_t *cap, uint32_t *strcap,
		       uint64_t addr, uint64_t size, const char *name, uint32_t rank)
{
	size_t len = strlen(name) + 1;

	if (d->nsyms == *cap) {
		uint32_t ncap = *cap ? *cap * 2 : 256;
		struct dsym *s = realloc(d->syms, ncap * sizeof(*s));

		if (!s)
			return -ENOMEM;
		d->syms = s;
		*cap = ncap;
	}
	while (d->strtab_len + len > *strcap) {
		uint32_t ncap = *strcap ? *strcap * 2 : 4096;
		char *t = realloc(d->strtab, ncap);

		if (!t)
			return -ENOMEM;
		d->strtab = t;
		*strcap = ncap;
	}
	memcpy(d->strtab + d->strtab_len, name, len);
	d->syms[d->nsyms].addr = addr;
	d->syms[d->nsyms].size = size;
	d->syms[d->nsyms].name = d->strtab_len;
	d->syms[d->nsyms].rank = rank;
	d->strtab_len += len;
	d->nsyms++;
	return 0;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int dso_read_elf(struct dso *d)
{
	uint32_t cap = 0, strcap = 0;
	const unsigned char *bits;
	GElf_Addr bias, bid_vaddr;
	Dwfl_Module *mod;
	size_t i, nph;
	int n, ret = -ENOENT, bid_len;
	Dwfl *dwfl;
	Elf *elf;

	dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl)
		return -ENOMEM;
	mod = dwfl_report_offline(dwfl, d->path, d->path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod)
		goto out;
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || elf_getphdrnum(elf, &nph))
		goto out;
	bid_len = dwfl_module_build_id(mod, &bits, &bid_vaddr);
	if (bid_len > 0 && bid_len <= USYMS_BUILD_ID_MAX) {
		d->bid_len = bid_len;
		memcpy(d->bid, bits, bid_len);
	}
	if (d->want_bid_len && (d->want_bid_len != d->bid_len ||
				memcmp(d->want_bid, d->bid, d->bid_len))) {
		p_warn("%s: build-id differs from the one the process mapped: its frames will be [unknown]",
		       d->path);
		goto out;
	}
	d->ph = calloc(nph ? nph : 1, sizeof(*d->ph));
	if (!d->ph) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		d->ph[d->nph].offset = ph.p_offset;
		d->ph[d->nph].vaddr = ph.p_vaddr;
		d->ph[d->nph].filesz = ph.p_filesz;
		d->nph++;
	}
	n = dwfl_module_getsymtab(mod);
	for (i = 1; n > 0 && i < (size_t)n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		Elf *symelf;
		Dwarf_Addr symbias;
		const char *name;
		int type, bind;

		name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
					       &symelf, &symbias);
		if (!name || !*name || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		bind = GELF_ST_BIND(sym.st_info);
		if (dso_add_sym(d, &cap, &strcap, addr - bias, sym.st_size, name,
				bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2)) {
			ret = -ENOMEM;
			goto out;
		}
	}
	dso_finish_syms(d);
	ret = 0;
out:
	dwfl_end(dwfl);
	return ret;
}

static void dso_load(struct dso *d)
{
	if (d->state != DSO_NEW)
		return;
	d->state = dso_read_elf(d) ? DSO_FAILED : DSO_LOADED;
}

static const struct dsym *dso_lookup(const struct dso *d, uint64_t vaddr)
{
	uint32_t lo = 0, hi = d->nsyms;
	const struct dsym *s;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (d->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &d->syms[lo - 1];
	if (s->size && vaddr >= s->addr + s->size)
		return NULL;
	return s;
}

static const struct umap *proc_lookup(const struct proc *p, uint64_t time, uint64_t addr)
{
	const struct umap *best = NULL, *any = NULL;
	size_t i;

	for (i = 0; i < p->nr; i++) {
		const struct umap *m = &p->maps[i];

		if (addr < m->start || addr >= m->end)
			continue;
		if (m->time <= time && time < m->until) {
			if (!best || m->time >= best->time)
				best = m;
		} else if (!any || m->time >= any->time) {
			any = m;
		}
	}
	/*
	 * Side-band and samples come from different CPUs' clocks: a map a
	 * hair "younger" than the sample is still the right one.
	 */
	return best ? best : any;
}

int usyms__resolve(struct usyms *u, uint32_t pid, uint64_t time, uint64_t addr,
		   int caller, struct usym *r)
{
	struct proc *p = proc_find(u, pid, 0);
	const struct umap *m;
	const struct dsym *s;
	uint64_t off, vaddr;
	uint32_t i;

	r->name = NULL;
	r->off = 0;
	r->addr = addr;
	r->dso = "[unknown]";
	m = p ? proc_lookup(p, time, addr) : NULL;
	if (!m)
		return -ENOENT;
	off = addr - m->start + m->pgoff;
	r->addr = off;
	r->dso = m->dso->path;
	dso_load(m->dso);
	if (m->dso->state != DSO_LOADED)
		return -ENOENT;
	for (i = 0; i < m->dso->nph; i++) {
		const struct phdr *ph = &m->dso->ph[i];

		if (off >= ph->offset && off < ph->offset + ph->filesz)
			break;
	}
	if (i == m->dso->nph)
		return -ENOENT;
	vaddr = off - m->dso->ph[i].offset + m->dso->ph[i].vaddr;
	s = dso_lookup(m->dso, caller && vaddr ? vaddr - 1 : vaddr);
	if (!s)
		return -ENOENT;
	r->name = u->demangle ? dso_display_name(m->dso, s) : m->dso->strtab + s->name;
	r->off = vaddr - s->addr;
	return 0;
}

int usyms__parse_maps(uint32_t pid, uint64_t time, char *text,
		      int (*fn)(void *ctx, const struct pev *e), void *ctx)
{
	char *line, *save = NULL;
	int ret;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, pgoff, inode;
		char perms[8], *deleted;
		struct pev e = { .type = PEV_MMAP, .pid = pid, .time = time };
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n",
			   &start, &end, perms, &pgoff, &inode, &n) < 5 || !n)
			continue;
		if (!strchr(perms, 'x') || end <= start)
			continue;
		e.start = start;
		e.len = end - start;
		e.pgoff = pgoff;
		e.path = line + n;
		deleted = strstr(line + n, " (deleted)");
		if (deleted && !deleted[10])
			*deleted = '\0';
		if (!*e.path)
			e.path = "//anon";
		ret = fn(ctx, &e);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---------------------------------------------------------------------- */
/*
 * DSO blob: struct dso_blob, then the path (path_len bytes, NUL included),
 * nph struct phdr, nsyms struct dsym, strtab_len bytes of names; each part
 * padded to 8 bytes.
 */
struct dso_blob {
	uint32_t state;		/* DSO_LOADED or DSO_FAILED */
	uint32_t path_len;
	uint32_t bid_len;
	uint32_t nph;
	uint32_t nsyms;
	uint32_t strtab_len;
	unsigned char bid[24];
};

#define PAD8(x)	(((x) + 7) & ~(size_t)7)

int usyms__save_dsos(struct usyms *u,
		     int (*write)(void *ctx, const void *blob, size_t len), void *ctx)
{
	unsigned int i;
	int ret;

	for (i = 0; i < HASH_SIZE; i++) {
		struct dso *d;

		for (d = u->dsos[i]; d; d = d->next) {
			struct dso_blob b = { 0 };
			size_t len, pos;
			char *buf;

			if (d->state == DSO_NEW)
				continue;	/* never needed */
			b.state = d->state;
			b.path_len = strlen(d->path) + 1;
			b.bid_len = d->bid_len;
			memcpy(b.bid, d->bid, d->bid_len);
			if (d->state == DSO_LOADED) {
				b.nph = d->nph;
				b.nsyms = d->nsyms;
				b.strtab_len = d->strtab_len;
			}
			len = sizeof(b) + PAD8(b.path_len) + b.nph * sizeof(struct phdr) +
			      b.nsyms * sizeof(struct dsym) + PAD8(b.strtab_len);
			buf = calloc(1, len);
			if (!buf)
				return -ENOMEM;
			memcpy(buf, &b, sizeof(b));
			pos = sizeof(b);
			memcpy(buf + pos, d->path, b.path_len);
			pos += PAD8(b.path_len);
			if (b.nph)
				memcpy(buf + pos, d->ph, b.nph * sizeof(struct phdr));
			pos += b.nph * sizeof(struct phdr);
			if (b.nsyms)
				memcpy(buf + pos, d->syms, b.nsyms * sizeof(struct dsym));
			pos += b.nsyms * sizeof(struct dsym);
			if (b.strtab_len)
				memcpy(buf + pos, d->strtab, b.strtab_len);
			ret = write(ctx, buf, len);
			free(buf);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int usyms__load_dso(struct usyms *u, const void *blob, size_t len)
{
	const unsigned char *p = blob;
	struct dso_blob b;
	struct dso *d;
	size_t pos, need;
	uint32_t i;

	if (len < sizeof(b))
		return -EBADMSG;
	memcpy(&b, p, sizeof(b));
	if ((b.state != DSO_LOADED && b.state != DSO_FAILED) || !b.path_len ||
	    b.path_len > 4096 || b.bid_len > USYMS_BUILD_ID_MAX ||
	    b.nph > 1024 || b.nsyms > (1U << 24) || b.strtab_len > (1U << 28))
		return -EBADMSG;
	need = sizeof(b) + PAD8(b.path_len) + (size_t)b.nph * sizeof(struct phdr) +
	       (size_t)b.nsyms * sizeof(struct dsym) + b.strtab_len;
	if (len < need || p[sizeof(b) + b.path_len - 1] != '\0')
		return -EBADMSG;
	d = dso_find(u, (const char *)p + sizeof(b), 1);
	if (!d)
		return -ENOMEM;
	dso_free_dem(d);
	free(d->ph);
	free(d->syms);
	free(d->strtab);
	d->ph = NULL;
	d->syms = NULL;
	d->strtab = NULL;
	d->nph = b.nph;
	d->nsyms = b.nsyms;
	d->strtab_len = b.strtab_len;
	d->bid_len = b.bid_len;
	memcpy(d->bid, b.bid, b.bid_len);
	d->state = DSO_FAILED;
	pos = sizeof(b) + PAD8(b.path_len);
	d->ph = malloc(b.nph * sizeof(struct phdr) + 1);
	d->syms = malloc(b.nsyms * sizeof(struct dsym) + 1);
	d->strtab = malloc(b.strtab_len + 1);
	if (!d->ph || !d->syms || !d->strtab)
		return -ENOMEM;
	memcpy(d->ph, p + pos, b.nph * sizeof(struct phdr));
	pos += b.nph * sizeof(struct phdr);
	memcpy(d->syms, p + pos, b.nsyms * sizeof(struct dsym));
	pos += b.nsyms * sizeof(struct dsym);
	memcpy(d->strtab, p + pos, b.strtab_len);
	d->strtab[b.strtab_len] = '\0';
	for (i = 0; i < b.nsyms; i++)
		if (d->syms[i].name >= b.strtab_len)
			return -EBADMSG;
	if (b.strtab_len && d->strtab[b.strtab_len - 1] != '\0')
		return -EBADMSG;
	d->state = b.state;
	return 0;
}
