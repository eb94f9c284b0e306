// SPDX-License-Identifier: GPL-2.0
/*
 * inline.c - the inline chain addr2line -i -f gives for an address
 * (inline.h), read with libdw, kept per file offset.
 *
 * The address addr2line is asked about is perf's map__rip_2objdump() of
 * the file offset: the offset plus the runtime file's .text sh_addr -
 * sh_offset.  The DIEs holding it, innermost first, are dwarf_getscopes()'
 * innermost one and its physical parents, as eu-addr2line -i walks them
 * (dwarf_getscopes_die()): each DW_TAG_inlined_subroutine, subprogram or
 * entry point among them is one record, which is what binutils'
 * caller_func chain gives.  They are found in one walk down the compile
 * unit, libdw's own descent (the first child holding the address, at each
 * level), whose path is those parents: not in the two walks of the whole
 * unit those calls make.  The unit's own children, its functions among
 * thousands of others, are not walked per address: cu_scopes.h keeps
 * their ranges, sorted once per unit.
 *
 * The DWARF is read from dbgcache.h's inflated copy of the file where its
 * debug sections are compressed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "lib/symbols/aranges.h"
#include "lib/symbols/cu_scopes.h"
#include "lib/symbols/dbgcache.h"
#include "lib/symbols/demangle.h"
#include "lib/symbols/elfsrc.h"
#include "lib/symbols/inline.h"
#include "lib/util/strmap.h"

/* Past this many addresses kept, the table starts over (names stay). */
#define INLINES_MAX_ADDRS	(1U << 17)
/* Records of one address at most (perf's MAX_INLINE_NEST is 1024: never reached). */
#define INLINES_MAX_NEST	64

struct slot {
	uint64_t off;		/* + 1: 0 is a free slot */
	uint32_t first, nr;	/* names[first .. first + nr) */
};

struct inlines {
	int fd;
	Dwarf *dw;
	struct aranges *ar;	/* NULL: dwarf_addrdie() finds the units */
	Dwarf_Off interned;	/* the furthest unit DIE libdw has interned */
	uint64_t text_shift;	/* file offset -> addr2line's address */
	int demangle;
	struct strmap *names_in;	/* interned names */
	const char **names;		/* the chains, back to back */
	uint32_t nr_names, cap_names;
	struct slot *tab;
	uint32_t cap, nr;
	struct cu_scopes *units;	/* their children by address */
};

/* .text sh_addr - sh_offset of PATH (dso->text_offset); 0 without one. */
static uint64_t text_shift(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t shift = 0;
	GElf_Shdr sh;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elfsrc__section(elf, ".text", &sh, NULL))
		shift = sh.sh_addr - sh.sh_offset;
	elf_end(elf);
	close(fd);
	return shift;
}

struct inlines *inlines__open(const char *dwarf_path, const char *run_path, int demangle)
{
	struct inlines *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	elf_version(EV_CURRENT);
	in->fd = dbgcache__open(dwarf_path);
	if (in->fd >= 0)
		in->dw = dwarf_begin(in->fd, DWARF_C_READ);
	if (in->dw)
		in->ar = aranges__new(in->dw);
	in->cap = 1024;
	in->tab = calloc(in->cap, sizeof(*in->tab));
	in->names_in = strmap__new();
	in->units = cu_scopes__new();
	if (!in->dw || !in->tab || !in->names_in || !in->units) {
		inlines__free(in);
		return NULL;
	}
	in->text_shift = text_shift(run_path);
	in->demangle = demangle;
	return in;
}

void inlines__free(struct inlines *in)
{
	if (!in)
		return;
	aranges__free(in->ar);
	if (in->dw)
		dwarf_end(in->dw);
	if (in->fd >= 0)
		close(in->fd);
	strmap__free(in->names_in);
	cu_scopes__free(in->units);
	free(in->names);
	free(in->tab);
	free(in);
}

/*
 * The name binutils gives a function DIE: the linkage name before the
 * name, either through abstract origins and specifications; demangled
 * as perf demangles (new_inline_sym()).  Interned; NULL: no memory.
 */
static const char *die_name(struct inlines *in, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *raw = NULL;
	char *dem = NULL;
	struct strmap_entry *e;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		raw = dwarf_formstring(&a);
	if (!raw)
		raw = dwarf_diename(die);
	if (!raw || !*raw)
		raw = "??";
	if (in->demangle)
		dem = demangle__cxx(raw);
	e = strmap__get(in->names_in, dem ? dem : raw, strlen(dem ? dem : raw));
	free(dem);
	return e ? e->key : NULL;
}

static int push_name(struct inlines *in, const char *name)
{
	if (in->nr_names == in->cap_names) {
		uint32_t cap = in->cap_names ? in->cap_names * 2 : 1024;
		const char **v = realloc(in->names, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		in->names = v;
		in->cap_names = cap;
	}
	in->names[in->nr_names++] = name;
	return 0;
}

static int is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);

	return tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
	       tag == DW_TAG_entry_point;
}

/* The length of DIE's range holding ADDR; 0: none does. */
static Dwarf_Addr range_len(Dwarf_Die *die, Dwarf_Addr addr)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(die, off, &base, &start, &end)) > 0)
		if (start <= addr && addr < end)
			return end - start;
	return 0;
}

/*
 * binutils takes for the innermost function the one whose range holding
 * ADDR is shortest, the last in DIE order among equals: where gas gave
 * each alias of an assembly function a DIE of the same range (glibc's
 * "__mprotect", "__GI___mprotect", "mprotect", "__GI_mprotect"), the
 * last one.  Those are siblings of the first one libdw finds, *DIE.
 */
static void innermost(Dwarf_Die *die, Dwarf_Addr addr)
{
	Dwarf_Addr best = range_len(die, addr), len;
	Dwarf_Die sib = *die;

	while (dwarf_siblingof(&sib, &sib) == 0) {
		if (!is_function(&sib))
			continue;
		len = range_len(&sib, addr);
		if (len && len <= best) {
			best = len;
			*die = sib;
		}
	}
}

/*
 * libdw interns the units of the file in order, reading every unit header
 * on the way: up to the unit asked for (dwarf_offdie()), or all of them
 * when it builds its address table (dwarf_getaranges(), where the file's
 * .debug_aranges is not read by aranges.h).  In the mapped file that is a
 * page of .debug_info every few KiB, most of it (5.6 MiB of libc's)
 * resident for good.  The mapping is read-only (dwarf_begin():
 * ELF_C_READ_MMAP), so after each such run its pages are dropped: later
 * lookups fault back the few they read, from the page cache.
 */
static void release_headers(struct inlines *in)
{
	Elf *elf = dwarf_getelf(in->dw);
	size_t size = 0;
	char *map = elf ? elf_rawfile(elf, &size) : NULL;
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)map & ~(uintptr_t)(page - 1);

	if (map && size)
		madvise((void *)start, (uintptr_t)map + size - start, MADV_DONTNEED);
}

/*
 * The compile unit holding ADDR into *CU, as dwarf_addrdie() finds it;
 * the pages libdw read to intern units on the way released.
 */
static Dwarf_Die *unit_of(struct inlines *in, Dwarf_Addr addr, Dwarf_Die *cu)
{
	Dwarf_Die *found;

	if (!in->ar) {
		found = dwarf_addrdie(in->dw, addr, cu);
		/* Its first call interned them all. */
		if (!in->interned) {
			in->interned = ~(Dwarf_Off)0;
			release_headers(in);
		}
		return found;
	}
	found = aranges__cu_die(in->ar, in->dw, addr, cu);
	if (found && dwarf_dieoffset(cu) > in->interned) {
		in->interned = dwarf_dieoffset(cu);
		release_headers(in);
	}
	return found;
}

/* libdw's may_have_scopes(): the tags whose children may hold ADDR's scopes. */
static int may_have_scopes(Dwarf_Die *die)
{
	switch (dwarf_tag(die)) {
	case DW_TAG_compile_unit: case DW_TAG_module: case DW_TAG_lexical_block:
	case DW_TAG_with_stmt: case DW_TAG_catch_block: case DW_TAG_try_block:
	case DW_TAG_entry_point: case DW_TAG_inlined_subroutine: case DW_TAG_subprogram:
	case DW_TAG_namespace: case DW_TAG_class_type: case DW_TAG_structure_type:
		return 1;
	}
	return 0;
}

/*
 * The DIEs holding ADDR from CU down, innermost last, as dwarf_getscopes()
 * finds its innermost one: the first child holding it at each level.  How
 * many (at most MAX).
 */
static int scopes_down(struct inlines *in, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *path,
		       int max)
{
	int n = 1;

	path[0] = *cu;
	while (n < max && may_have_scopes(&path[n - 1]) &&
	       cu_scopes__child_holding(in->units, &path[n - 1], addr, &path[n]))
		n++;
	return n;
}

/* Append the records of ADDR to the names; how many. */
static uint32_t walk(struct inlines *in, Dwarf_Addr addr)
{
	Dwarf_Die cu, path[INLINES_MAX_NEST * 2];
	Dwarf_Die *found = unit_of(in, addr, &cu);
	int n, i;
	uint32_t nr = 0;

	if (!found)
		return 0;
	n = scopes_down(in, &cu, addr, path, INLINES_MAX_NEST * 2);
	if (n < 2)		/* the CU alone: no scope holds ADDR */
		return 0;
	for (i = n - 1; i >= 0 && nr < INLINES_MAX_NEST; i--) {
		const char *name;

		if (!is_function(&path[i]))
			continue;
		if (!nr)
			innermost(&path[i], addr);
		name = die_name(in, &path[i]);
		if (!name || push_name(in, name))
			break;
		nr++;
	}
	return nr;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	return x ^ x >> 33;
}

/* Start over when full (bounded memory), else double when half full. */
static int make_room(struct inlines *in)
{
	uint32_t ncap = in->cap * 2, j;
	struct slot *nt;

	if (in->nr + 1 <= in->cap / 2)
		return 0;
	if (in->nr >= INLINES_MAX_ADDRS) {
		memset(in->tab, 0, in->cap * sizeof(*in->tab));
		in->nr = 0;
		in->nr_names = 0;
		return 0;
	}
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return -ENOMEM;
	for (j = 0; j < in->cap; j++) {
		uint32_t i;

		if (!in->tab[j].off)
			continue;
		for (i = mix(in->tab[j].off) & (ncap - 1); nt[i].off; i = (i + 1) & (ncap - 1))
			;
		nt[i] = in->tab[j];
	}
	free(in->tab);
	in->tab = nt;
	in->cap = ncap;
	return 0;
}

unsigned int inlines__at(struct inlines *in, uint64_t off, const char *const **names)
{
	uint32_t i, mask;
	struct slot *s;

	if (make_room(in))
		return 0;
	mask = in->cap - 1;
	for (i = mix(off + 1) & mask; in->tab[i].off; i = (i + 1) & mask) {
		if (in->tab[i].off == off + 1) {
			*names = in->names + in->tab[i].first;
			return in->tab[i].nr;
		}
	}
	s = &in->tab[i];
	s->off = off + 1;
	s->first = in->nr_names;
	s->nr = walk(in, off + in->text_shift);
	in->nr++;
	*names = in->names + s->first;
	return s->nr;
}
