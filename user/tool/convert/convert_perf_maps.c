// SPDX-License-Identifier: GPL-2.0
/*
 * convert_perf_maps.c - a DSO's user maps in the perf.data file: all of
 * its segments, as the ELF loader maps them, for perf's DWARF unwinder.
 *
 * A capture keeps a process's executable maps only: they are all the
 * symbols need.  perf's unwinder (libunwind, as Debian's perf is built)
 * needs the others: it takes a DSO's load address from its lowest map
 * (the one at file offset 0), and it reads .eh_frame_hdr and .eh_frame
 * through the maps, which in a DSO linked with separate code lie in the
 * read-only segment after the executable one.  Without them it prints
 * the sample's IP alone.  So for an executable map whose file is on this
 * machine (with the capture's build-id, when it has one, and an
 * executable segment at the map's offset and of its length: perf reads
 * the same file), every PT_LOAD of the file is written as a map at the
 * executable map's load bias, with its file offset and protection; a
 * file not here, or not that one, keeps its executable map alone (perf
 * cannot read its CFI either).  Each file's segments are read once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "lib/util/strmap.h"
#include "tool/convert/convert_perf_maps.h"

#define PAGE		4096ULL		/* x86-64's: the registers' ABI */
#define MAX_SEGS	16

struct seg {
	uint64_t vaddr, len, off;	/* page-aligned, as the loader maps it */
	uint32_t prot;
};

struct segs {
	unsigned int nr;		/* 0: the file is not here */
	struct seg s[MAX_SEGS];
};

struct perf_maps {
	struct strmap *files;		/* path and build-id -> 1 + index in v */
	struct segs *v;
	size_t n, cap;
};

struct perf_maps *perf_maps__new(void)
{
	struct perf_maps *m = calloc(1, sizeof(*m));

	if (m)
		m->files = strmap__new();
	if (m && !m->files) {
		free(m);
		return NULL;
	}
	return m;
}

void perf_maps__free(struct perf_maps *m)
{
	if (!m)
		return;
	strmap__free(m->files);
	free(m->v);
	free(m);
}

static int same_build_id(Elf *elf, const struct pev *e)
{
	const void *bid;
	ssize_t n;

	if (!e->bid_len)
		return 1;
	n = dwelf_elf_gnu_build_id(elf, &bid);
	return n == (ssize_t)e->bid_len && !memcmp(bid, e->build_id, n);
}

/* The PT_LOADs of E's file into S; none when it is not here or not E's. */
static void read_segs(const struct pev *e, struct segs *s)
{
	size_t i, n;
	GElf_Phdr ph;
	Elf *elf;
	int fd;

	s->nr = 0;
	elf_version(EV_CURRENT);
	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !same_build_id(elf, e) ||
	    elf_getphdrnum(elf, &n))
		n = 0;
	for (i = 0; i < n && s->nr < MAX_SEGS; i++) {
		struct seg *g = &s->s[s->nr];

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		g->vaddr = ph.p_vaddr & ~(PAGE - 1);
		g->off = ph.p_offset & ~(PAGE - 1);
		g->len = ((ph.p_vaddr + ph.p_filesz + PAGE - 1) & ~(PAGE - 1)) - g->vaddr;
		g->prot = (ph.p_flags & PF_R ? PROT_READ : 0) |
			  (ph.p_flags & PF_W ? PROT_WRITE : 0) |
			  (ph.p_flags & PF_X ? PROT_EXEC : 0);
		s->nr++;
	}
	elf_end(elf);
	close(fd);
}

/* E's file's segments, read the first time it is asked for; NULL: no memory. */
static const struct segs *segs_of(struct perf_maps *m, const struct pev *e)
{
	char key[4096 + 2 * USYMS_BUILD_ID_MAX + 2];
	struct strmap_entry *ent;
	size_t n;
	uint32_t i;

	n = snprintf(key, sizeof(key), "%s ", e->path);
	for (i = 0; i < e->bid_len && n < sizeof(key) - 3; i++)
		n += snprintf(key + n, sizeof(key) - n, "%02x", e->build_id[i]);
	ent = strmap__get(m->files, key, n < sizeof(key) ? n : sizeof(key) - 1);
	if (!ent)
		return NULL;
	if (ent->a)
		return &m->v[ent->a - 1];
	if (m->n == m->cap) {
		size_t ncap = m->cap ? 2 * m->cap : 64;
		struct segs *v = realloc(m->v, ncap * sizeof(*v));

		if (!v)
			return NULL;
		m->v = v;
		m->cap = ncap;
	}
	read_segs(e, &m->v[m->n]);
	ent->a = ++m->n;
	return &m->v[ent->a - 1];
}

int perf_maps__write(struct perf_maps *m, struct perf_out *p, const struct pev *e)
{
	const struct segs *s = NULL;
	const struct seg *x = NULL;
	uint64_t bias;
	unsigned int i;

	if (e->path && e->path[0] == '/') {
		s = segs_of(m, e);
		if (!s)
			return -ENOMEM;
		/*
		 * The executable segment the capture's map is, at the same
		 * offset and of the same length (without a build-id, the
		 * little there is to tell the file is the one mapped): its
		 * load bias.
		 */
		for (i = 0; i < s->nr && !x; i++)
			if ((s->s[i].prot & PROT_EXEC) && s->s[i].off == e->pgoff &&
			    s->s[i].len == e->len && s->s[i].vaddr <= e->start)
				x = &s->s[i];
	}
	if (!x) {
		perf_out__mmap2(p, e, e->start, e->len, e->pgoff, PROT_READ | PROT_EXEC);
		return 0;
	}
	bias = e->start - x->vaddr;
	for (i = 0; i < s->nr; i++) {
		if (&s->s[i] == x)
			perf_out__mmap2(p, e, e->start, e->len, e->pgoff, PROT_READ | PROT_EXEC);
		else
			perf_out__mmap2(p, e, bias + s->s[i].vaddr, s->s[i].len, s->s[i].off,
					s->s[i].prot);
	}
	return 0;
}
