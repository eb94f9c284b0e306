// SPDX-License-Identifier: GPL-2.0
/*
 * cu_scopes_test: the tables that find an address's scopes answer as
 * libdw does, in every unit of real debug info: at both ends of every
 * range of every child of the unit, just outside them, and between them.
 * A compile unit's child holding an address, from cu_scopes' sorted
 * ranges, is the one the scope walk finds (the first child in DIE order
 * whose ranges hold it); the unit holding it, from aranges' table, is
 * dwarf_addrdie()'s, asked on a Dwarf of its own.  The debug info is
 * progs/scopes.S's (gas's: a function within another, two names of one
 * range), kprofcat's (gcc -O2 -g, a hundred units) and, where libc6-dbg
 * is installed, libc's.  A .debug_aranges that libdw refuses, or none,
 * gives no table.
 */
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>

#include "kselftest_harness.h"

#include "lib/symbols/aranges.h"
#include "lib/symbols/cu_scopes.h"

struct tally {
	unsigned long units, asked, held, differ;
	unsigned long in_unit, unit_differ;	/* aranges against dwarf_addrdie() */
};

/* The unit holding ADDR: from aranges (on DW) and from libdw (on REF). */
static void ask_unit(struct __test_metadata *_metadata, const struct aranges *ar, Dwarf *dw,
		     Dwarf *ref, Dwarf_Addr addr, struct tally *t)
{
	Dwarf_Die a, l;
	Dwarf_Die *fa = aranges__cu_die(ar, dw, addr, &a), *fl = dwarf_addrdie(ref, addr, &l);

	t->in_unit += !!fl;
	if (!fa == !fl && (!fa || dwarf_dieoffset(&a) == dwarf_dieoffset(&l)))
		return;
	if (t->unit_differ++ < 5)
		TH_LOG("at %#llx: aranges %#llx, dwarf_addrdie %#llx", (unsigned long long)addr,
		       fa ? (unsigned long long)dwarf_dieoffset(&a) : 0ULL,
		       fl ? (unsigned long long)dwarf_dieoffset(&l) : 0ULL);
}

/*
 * The scope walk's answer, as libdw's walk meets a unit's children (these
 * files import no partial units): the first child in DIE order whose
 * ranges hold ADDR.  1, or 0.
 */
static int walked(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die *out)
{
	if (dwarf_child(cu, out))
		return 0;
	do {
		if (dwarf_haspc(out, addr) > 0)
			return 1;
	} while (!dwarf_siblingof(out, out));
	return 0;
}

/* Both answers at ADDR in CU: the same DIE, or none from both. */
static void ask(struct __test_metadata *_metadata, struct cu_scopes *c, Dwarf_Die *cu,
		Dwarf_Addr addr, struct tally *t)
{
	Dwarf_Die walk, table;
	int w = walked(cu, addr, &walk);
	int i = cu_scopes__child_holding(c, cu, addr, &table);

	t->asked++;
	t->held += w;
	if (w == i && (!w || dwarf_dieoffset(&walk) == dwarf_dieoffset(&table)))
		return;
	if (t->differ++ < 5)
		TH_LOG("unit %#llx at %#llx: walk %d (%#llx), table %d (%#llx)",
		       (unsigned long long)dwarf_dieoffset(cu), (unsigned long long)addr, w,
		       w ? (unsigned long long)dwarf_dieoffset(&walk) : 0ULL, i,
		       i ? (unsigned long long)dwarf_dieoffset(&table) : 0ULL);
}

/* Both tables at ADDR, asked about from unit CU. */
static void ask_both(struct __test_metadata *_metadata, struct cu_scopes *c, Dwarf_Die *cu,
		     const struct aranges *ar, Dwarf *dw, Dwarf *ref, Dwarf_Addr addr,
		     struct tally *t)
{
	ask(_metadata, c, cu, addr, t);
	ask_unit(_metadata, ar, dw, ref, addr, t);
}

/* Every unit of the debug info in PATH, at and around its children's ranges. */
static void compare_file(struct __test_metadata *_metadata, const char *path, struct tally *t)
{
	struct cu_scopes *c = cu_scopes__new();
	Dwarf_Off off = 0, next;
	struct aranges *ar;
	size_t hsize;
	Dwarf *dw, *ref;
	int fd, ref_fd;

	ASSERT_NE(NULL, c);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ref_fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s", path);
	ASSERT_LE(0, ref_fd) TH_LOG("%s", path);
	dw = dwarf_begin(fd, DWARF_C_READ);
	ref = dwarf_begin(ref_fd, DWARF_C_READ);
	ASSERT_NE(NULL, dw) TH_LOG("%s: %s", path, dwarf_errmsg(-1));
	ASSERT_NE(NULL, ref) TH_LOG("%s: %s", path, dwarf_errmsg(-1));
	ar = aranges__new(dw);
	ASSERT_NE(NULL, ar) TH_LOG("%s: no table of its .debug_aranges", path);
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_tag(&cu) == DW_TAG_compile_unit &&
		    !dwarf_child(&cu, &child)) {
			t->units++;
			do {
				Dwarf_Addr base, start, end;
				ptrdiff_t r = 0;

				while ((r = dwarf_ranges(&child, r, &base, &start, &end)) > 0) {
					Dwarf_Addr at[] = { start - 1, start,
							    start + (end - start) / 2,
							    end - 1, end };
					unsigned int i;

					for (i = 0; i < sizeof(at) / sizeof(at[0]); i++)
						ask_both(_metadata, c, &cu, ar, dw, ref, at[i], t);
				}
			} while (!dwarf_siblingof(&child, &child));
		}
		off = next;
	}
	aranges__free(ar);
	dwarf_end(ref);
	dwarf_end(dw);
	close(ref_fd);
	close(fd);
	cu_scopes__free(c);
}

/* progs/scopes.so, built beside this test (OUTPUT/host -> OUTPUT/progs). */
static int scopes_lib(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	snprintf(path, len, "%s/../progs/scopes.so", dirname(self));
	return access(path, R_OK);
}

/* The name of the child of the first unit of PATH holding ADDR, from the table. */
static const char *held_by(struct __test_metadata *_metadata, const char *path,
			   Dwarf_Addr addr, char *name, size_t len)
{
	struct cu_scopes *c = cu_scopes__new();
	Dwarf_Die cu, child;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Dwarf *dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	Dwarf_Off next;
	size_t hsize;

	snprintf(name, len, "(none)");
	if (c && dw && !dwarf_nextcu(dw, 0, &next, &hsize, NULL, NULL, NULL) &&
	    dwarf_offdie(dw, hsize, &cu) && cu_scopes__child_holding(c, &cu, addr, &child) > 0)
		snprintf(name, len, "%s", dwarf_diename(&child) ?: "(no name)");
	EXPECT_NE(NULL, dw) TH_LOG("%s", path);
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	cu_scopes__free(c);
	return name;
}

/*
 * Nested functions and aliases: the walk's answer is the first in DIE
 * order holding the address (outer over inner, alias_b over alias_a),
 * and the table's is the walk's everywhere.
 */
TEST(the_first_in_die_order_holds_nested_and_aliased_functions)
{
	struct tally t = { 0 };
	char path[PATH_MAX + 32], name[64];

	ASSERT_EQ(0, scopes_lib(path, sizeof(path))) TH_LOG("%s: not built", path);
	compare_file(_metadata, path, &t);
	EXPECT_EQ(0UL, t.differ);
	EXPECT_EQ(0UL, t.unit_differ);
	/* outer: 0x1000-0x1005, inner 0x1001-0x1003, alias_a and alias_b 0x1005-0x1007. */
	EXPECT_STREQ("outer", held_by(_metadata, path, 0x1001, name, sizeof(name)));
	EXPECT_STREQ("outer", held_by(_metadata, path, 0x1004, name, sizeof(name)));
	EXPECT_STREQ("alias_b", held_by(_metadata, path, 0x1006, name, sizeof(name)));
	EXPECT_STREQ("(none)", held_by(_metadata, path, 0x1007, name, sizeof(name)));
}

TEST(the_table_answers_as_the_walk_in_kprofcat)
{
	struct tally t = { 0 };

	compare_file(_metadata, KPROF_TREE "/user/kprofcat", &t);
	TH_LOG("%lu units, %lu addresses, %lu held, %lu in a unit", t.units, t.asked, t.held,
	       t.in_unit);
	EXPECT_EQ(0UL, t.differ);
	EXPECT_EQ(0UL, t.unit_differ);
	EXPECT_LT(50UL, t.units);
	EXPECT_LT(1000UL, t.held);
	EXPECT_LT(1000UL, t.in_unit);
}

/* libc6-dbg's file for this libc, by the build-id note of the libc mapped. */
static int libc_debug_file(char *path, size_t len)
{
	const unsigned char *bid = NULL;
	char line[512], *lib = NULL;
	FILE *maps = fopen("/proc/self/maps", "r");
	Elf_Data *data;
	Elf_Scn *scn = NULL;
	size_t n, off = 0, name_off, desc_off;
	GElf_Nhdr nh;
	GElf_Shdr sh;
	Elf *elf;
	int fd, ret = -1;

	while (maps && !lib && fgets(line, sizeof(line), maps))
		if (strstr(line, "/libc.so.6"))
			lib = strdup(strchr(line, '/'));
	if (maps)
		fclose(maps);
	if (!lib)
		return -1;
	lib[strcspn(lib, "\n")] = '\0';
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	free(lib);
	elf_version(EV_CURRENT);
	elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	while (elf && !bid && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		off = 0;
		while (data && !bid &&
		       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			bid = (const unsigned char *)data->d_buf + desc_off;
			n = nh.n_descsz;
		}
	}
	if (bid) {
		size_t at = snprintf(path, len, "/usr/lib/debug/.build-id/%02x/", bid[0]), i;

		for (i = 1; i < n && at + 3 < len; i++)
			at += snprintf(path + at, len - at, "%02x", bid[i]);
		snprintf(path + at, len - at, ".debug");
		ret = access(path, R_OK);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ret;
}

TEST(the_table_answers_as_the_walk_in_libc)
{
	struct tally t = { 0 };
	char path[256];

	if (libc_debug_file(path, sizeof(path)))
		SKIP(return, "no debug file for this libc (apt-get install libc6-dbg)");
	compare_file(_metadata, path, &t);
	TH_LOG("%s: %lu units, %lu addresses, %lu held, %lu in a unit", path, t.units, t.asked,
	       t.held, t.in_unit);
	EXPECT_EQ(0UL, t.differ);
	EXPECT_EQ(0UL, t.unit_differ);
	EXPECT_LT(100UL, t.held);
	EXPECT_LT(100UL, t.in_unit);
}

/*
 * kprofcat's file in memory with one change made by CHANGE, its Dwarf
 * in *DW (a new Elf in *ELF); the buffer, to free.
 */
static char *changed_copy(struct __test_metadata *_metadata,
			  void (*change)(char *buf, Elf *elf, Elf_Scn *aranges),
			  Elf **elf, Dwarf **dw)
{
	size_t size, shstrndx;
	Elf_Scn *scn = NULL, *found = NULL;
	GElf_Shdr sh;
	FILE *f = fopen(KPROF_TREE "/user/kprofcat", "r");
	char *buf;
	Elf *orig;

	ASSERT_NE(NULL, f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	buf = malloc(size);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(1, fread(buf, size, 1, f));
	fclose(f);
	elf_version(EV_CURRENT);
	orig = elf_memory(buf, size);
	ASSERT_NE(NULL, orig);
	ASSERT_EQ(0, elf_getshdrstrndx(orig, &shstrndx));
	while (!found && (scn = elf_nextscn(orig, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    !strcmp(elf_strptr(orig, shstrndx, sh.sh_name) ?: "", ".debug_aranges"))
			found = scn;
	ASSERT_NE(NULL, found) TH_LOG("kprofcat has no .debug_aranges");
	change(buf, orig, found);
	elf_end(orig);
	*elf = elf_memory(buf, size);
	ASSERT_NE(NULL, *elf);
	*dw = dwarf_begin_elf(*elf, DWARF_C_READ, NULL);
	ASSERT_NE(NULL, *dw) TH_LOG("%s", dwarf_errmsg(-1));
	return buf;
}

/* The first set's version (after its 4-byte length): 3, which libdw refuses. */
static void bad_version(char *buf, Elf *elf, Elf_Scn *aranges)
{
	GElf_Shdr sh;

	gelf_getshdr(aranges, &sh);
	buf[sh.sh_offset + 4] = 3;
	(void)elf;
}

/* The section renamed: the file then has no .debug_aranges. */
static void renamed(char *buf, Elf *elf, Elf_Scn *aranges)
{
	GElf_Shdr sh, str;
	size_t shstrndx;

	gelf_getshdr(aranges, &sh);
	elf_getshdrstrndx(elf, &shstrndx);
	gelf_getshdr(elf_getscn(elf, shstrndx), &str);
	buf[str.sh_offset + sh.sh_name + strlen(".debug_arange")] = 'z';
}

/* Where libdw refuses the section, so does the table: no answer is made up. */
TEST(no_table_where_libdw_refuses_the_section)
{
	Dwarf_Aranges *list;
	size_t n;
	Elf *elf;
	Dwarf *dw;
	char *buf = changed_copy(_metadata, bad_version, &elf, &dw);

	EXPECT_EQ(NULL, aranges__new(dw));
	EXPECT_EQ(-1, dwarf_getaranges(dw, &list, &n));
	dwarf_end(dw);
	elf_end(elf);
	free(buf);
}

TEST(no_table_without_the_section)
{
	Dwarf_Aranges *list;
	size_t n = 1;
	Elf *elf;
	Dwarf *dw;
	char *buf = changed_copy(_metadata, renamed, &elf, &dw);

	EXPECT_EQ(NULL, aranges__new(dw));
	/* libdw's table is then empty or refused: dwarf_addrdie() finds nothing. */
	EXPECT_TRUE(dwarf_getaranges(dw, &list, &n) != 0 || n == 0);
	dwarf_end(dw);
	elf_end(elf);
	free(buf);
}

TEST_HARNESS_MAIN
