// SPDX-License-Identifier: GPL-2.0
/*
 * aranges.c - .debug_aranges read as dwarf_getaranges() reads it (elfutils
 * 0.188), without interning the units (aranges.h).
 *
 * Each set: a unit length (4 bytes, or 0xffffffff and 8), version 2, the
 * unit's offset in .debug_info (4 or 8 bytes), the address size (4 or 8),
 * the segment size (ignored, as libdw does), padding to twice the address
 * size, then (address, length) pairs up to a pair of zeros.  The entries
 * are sorted by address, in file order where addresses are equal (libdw's
 * qsort() is glibc's merge sort: stable), and searched with
 * dwarf_getarange_addr()'s bisection, so that where entries overlap the
 * same one answers.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "lib/symbols/aranges.h"
#include "lib/symbols/elfsrc.h"

/* The values are read in place: the file's byte order must be ours. */
#if __BYTE_ORDER == __LITTLE_ENDIAN
#define HOST_ELFDATA	ELFDATA2LSB
#else
#define HOST_ELFDATA	ELFDATA2MSB
#endif

struct arange {
	uint64_t addr, len;
	uint64_t unit;		/* the unit header's offset in .debug_info */
	size_t order;		/* in the file: the tie-break */
};

struct aranges {
	struct arange *e;
	size_t nr, cap;
};

/* The bytes of section NAME, uncompressed; NULL without. */
static const unsigned char *section(Elf *elf, const char *name, size_t *size)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elfsrc__section(elf, name, &sh, NULL);
	Elf_Data *d;

	if (!scn || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return NULL;
	*size = d->d_size;
	return d->d_buf;
}

static uint64_t get(const unsigned char *p, unsigned int size)
{
	uint32_t v32;
	uint64_t v64;

	if (size == 4) {
		memcpy(&v32, p, 4);
		return v32;
	}
	memcpy(&v64, p, 8);
	return v64;
}

static int add(struct aranges *a, uint64_t addr, uint64_t len, uint64_t unit)
{
	if (a->nr == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 256;
		struct arange *e = realloc(a->e, cap * sizeof(*e));

		if (!e)
			return -1;
		a->e = e;
		a->cap = cap;
	}
	a->e[a->nr] = (struct arange){ addr, len, unit, a->nr };
	a->nr++;
	return 0;
}

/*
 * The set at *P (before END); *P past it.  -1 where dwarf_getaranges()
 * would refuse the section.
 */
static int read_set(struct aranges *a, const unsigned char **pp, const unsigned char *end,
		    size_t info_size)
{
	const unsigned char *p = *pp, *hdr = p, *set_end;
	unsigned int off_size = 4, as;
	uint64_t len, unit;
	uint16_t version;

	if (end - p < 4)
		return -1;
	len = get(p, 4);
	p += 4;
	if (len == 0xffffffff) {
		if (end - p < 8)
			return -1;
		len = get(p, 8);
		p += 8;
		off_size = 8;
	} else if (len >= 0xfffffff0) {
		return -1;
	}
	if (len > (uint64_t)(end - p) || len < 2 + off_size + 2)
		return -1;
	set_end = p + len;
	memcpy(&version, p, 2);
	if (version != 2)
		return -1;
	p += 2;
	unit = get(p, off_size);
	p += off_size;
	as = *p++;
	p++;			/* the segment size */
	if ((as != 4 && as != 8) || unit >= info_size)
		return -1;
	p += (2 * as - (size_t)(p - hdr) % (2 * as)) % (2 * as);
	while (set_end - p >= 2 * (long)as) {
		uint64_t addr = get(p, as), n = get(p + as, as);

		p += 2 * as;
		if (!addr && !n)
			break;
		if (add(a, addr, n, unit))
			return -1;
	}
	*pp = set_end;
	return 0;
}

static int by_addr(const void *x, const void *y)
{
	const struct arange *a = x, *b = y;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

struct aranges *aranges__new(Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	const char *ident = elf ? elf_getident(elf, NULL) : NULL;
	const unsigned char *p, *end;
	size_t size = 0, info_size = 0;
	struct aranges *a;

	if (!ident || ident[EI_DATA] != HOST_ELFDATA)
		return NULL;
	p = section(elf, ".debug_aranges", &size);
	if (!p || !section(elf, ".debug_info", &info_size))
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	for (end = p + size; p < end;) {
		if (read_set(a, &p, end, info_size)) {
			aranges__free(a);
			return NULL;
		}
	}
	qsort(a->e, a->nr, sizeof(*a->e), by_addr);
	return a;
}

void aranges__free(struct aranges *a)
{
	if (!a)
		return;
	free(a->e);
	free(a);
}

Dwarf_Die *aranges__cu_die(const struct aranges *a, Dwarf *dw, Dwarf_Addr addr,
			   Dwarf_Die *cu)
{
	size_t l = 0, u = a->nr, i;
	Dwarf_Off next;
	size_t hsize;

	while (l < u) {
		i = (l + u) / 2;
		if (addr < a->e[i].addr) {
			u = i;
		} else if (addr > a->e[i].addr && addr - a->e[i].addr >= a->e[i].len) {
			l = i + 1;
		} else {
			/* The unit's first DIE follows its header, whatever its version. */
			if (dwarf_next_unit(dw, a->e[i].unit, &next, &hsize, NULL, NULL, NULL,
					    NULL, NULL, NULL))
				return NULL;
			return dwarf_offdie(dw, a->e[i].unit + hsize, cu);
		}
	}
	return NULL;
}
