// SPDX-License-Identifier: GPL-2.0
/*
 * symbols_test: the symbol perf 6.1 prints for an address, rule by rule,
 * on an ELF file written here with libelf (aliases of every kind, symbols
 * perf keeps and ones it drops) and on a kallsyms text.  The rules are
 * those of tools/perf/util/symbol.c (choose_best_symbol(),
 * symbols__fixup_end(), symbols__fixup_duplicate()) and symbol-elf.c
 * (dso__load_sym_internal(): which symbols are kept); each case says
 * which rule it pins and what the other choice would have printed.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "kselftest_harness.h"

#include "lib/symbols/dso.h"
#include "lib/symbols/ksyms.h"
#include "lib/symbols/symtab.h"
#include "lib/util/print.h"

/* Section indexes of the crafted file. */
enum {
	S_NULL, S_TEXT, S_DATA, S_RODATA, S_COMMENT, S_SYMTAB, S_STRTAB,
	S_DYNSYM, S_DYNSTR, S_SHSTRTAB, NR_SECTIONS
};

#define TEXT_ADDR	0x1000
#define DATA_ADDR	0x2000
#define RODATA_ADDR	0x2100
#define FILE_SIZE	0x3000

struct csym {
	const char *name;
	uint64_t value, size;
	int type, bind, vis, shndx;
};

#define FUNC(n, v, sz, b)	{ n, v, sz, STT_FUNC, b, STV_DEFAULT, S_TEXT }

/* .symtab, in this order (perf inserts in table order). */
static const struct csym symtab[] = {
	/* Non-zero size beats zero size, even a local over a global. */
	FUNC("a_zero_global", 0x1000, 0, STB_GLOBAL),
	FUNC("a_sized_local", 0x1000, 0x10, STB_LOCAL),
	/* Non-weak beats weak, even a local. */
	FUNC("b_weak_global", 0x1100, 0x10, STB_WEAK),
	FUNC("b_local", 0x1100, 0x10, STB_LOCAL),
	/* Global beats local. */
	FUNC("c_local_longer", 0x1200, 0x10, STB_LOCAL),
	FUNC("c_global", 0x1200, 0x10, STB_GLOBAL),
	/* Fewer leading underscores beat a longer name. */
	FUNC("__d_two_longer", 0x1300, 0x10, STB_GLOBAL),
	FUNC("_d_one", 0x1300, 0x10, STB_GLOBAL),
	/* The longer name. */
	FUNC("e_short", 0x1400, 0x10, STB_GLOBAL),
	FUNC("e_longer", 0x1400, 0x10, STB_GLOBAL),
	/* A tie: the first in table order. */
	FUNC("f_first", 0x1500, 0x10, STB_GLOBAL),
	FUNC("f_later", 0x1500, 0x10, STB_GLOBAL),
	/* arch__choose_best_symbol(): not the "SyS" one. */
	FUNC("SyS_g", 0x1600, 0x10, STB_GLOBAL),
	FUNC("sys_g", 0x1600, 0x10, STB_GLOBAL),
	/* Zero-size symbols are kept and end where the next one starts. */
	FUNC("h_zero", 0x1700, 0, STB_GLOBAL),
	FUNC("h_next", 0x1780, 0x10, STB_GLOBAL),
	/* A NOTYPE label in .text is kept (ld.so's _start, _dl_start_user) ... */
	{ "i_label", 0x1800, 0, STT_NOTYPE, STB_LOCAL, STV_DEFAULT, S_TEXT },
	/* ... a hidden one is not (i_label goes on over it). */
	{ "i_hidden", 0x1808, 0, STT_NOTYPE, STB_GLOBAL, STV_HIDDEN, S_TEXT },
	/* Not kept: outside allocated sections, absolute, undefined. */
	FUNC("j_func", 0x1900, 0x10, STB_GLOBAL),
	{ "j_nonalloc_longer", 0x1900, 0x10, STT_FUNC, STB_GLOBAL, STV_DEFAULT, S_COMMENT },
	FUNC("k_func", 0x1a00, 0x10, STB_GLOBAL),
	{ "k_absolute_longer", 0x1a00, 0x10, STT_FUNC, STB_GLOBAL, STV_DEFAULT, SHN_ABS },
	{ "k_undefined_longer", 0x1a00, 0x10, STT_FUNC, STB_GLOBAL, STV_DEFAULT, SHN_UNDEF },
	/* .symtab and .dynsym both count: the .dynsym alias is longer. */
	FUNC("l_sym", 0x1b00, 0x10, STB_GLOBAL),
	/* Names are chosen demangled: "foobar" (no '_') beats "xfoob". */
	FUNC("_Z6foobarv", 0x1b80, 0x10, STB_GLOBAL),
	FUNC("xfoob", 0x1b80, 0x10, STB_GLOBAL),
	/* Objects are kept: a zero-size label before one ends at it. */
	{ "m_label", 0x1c00, 0, STT_NOTYPE, STB_GLOBAL, STV_DEFAULT, S_TEXT },
	{ "m_object", DATA_ADDR, 8, STT_OBJECT, STB_GLOBAL, STV_DEFAULT, S_DATA },
	/* A label in a section named neither "*text*" nor "*data*" is not kept. */
	{ "n_eh_frame_label", RODATA_ADDR, 0, STT_NOTYPE, STB_GLOBAL, STV_DEFAULT, S_RODATA },
};

static const struct csym dynsym[] = {
	FUNC("l_dyn_longer", 0x1b00, 0x10, STB_GLOBAL),
};

static char path[64] = "/tmp/kprofcat-symbols-XXXXXX";

/* A string table of NAMES; *OFFS gets each one's offset.  Returns its size. */
static size_t strtab(char *buf, const struct csym *s, size_t n, uint32_t *offs)
{
	size_t len = 1, i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		offs[i] = len;
		len += sprintf(buf + len, "%s", s[i].name) + 1;
	}
	return len;
}

static int add_section(Elf *e, const char *name, size_t *shstr_off, char *shstr,
		       uint32_t type, uint64_t flags, uint64_t addr, uint64_t off,
		       void *data, size_t size, uint32_t link, uint64_t entsize, uint32_t info)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	GElf_Shdr sh;

	if (!d || !gelf_getshdr(scn, &sh))
		return -1;
	d->d_buf = data;
	d->d_size = size;
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	memset(&sh, 0, sizeof(sh));
	sh.sh_name = *shstr_off;
	*shstr_off += sprintf(shstr + *shstr_off, "%s", name) + 1;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_offset = off;
	sh.sh_size = size;
	sh.sh_link = link;
	sh.sh_info = info;
	sh.sh_addralign = 1;
	sh.sh_entsize = entsize;
	return gelf_update_shdr(scn, &sh) ? 0 : -1;
}

static void fill_syms(Elf64_Sym *out, const struct csym *s, size_t n, const uint32_t *offs)
{
	size_t i;

	memset(out, 0, sizeof(*out));	/* entry 0 */
	for (i = 0; i < n; i++) {
		out[i + 1].st_name = offs[i];
		out[i + 1].st_value = s[i].value;
		out[i + 1].st_size = s[i].size;
		out[i + 1].st_info = ELF64_ST_INFO(s[i].bind, s[i].type);
		out[i + 1].st_other = s[i].vis;
		out[i + 1].st_shndx = s[i].shndx;
	}
}

/* The crafted file: one PT_LOAD over all of it at address 0 (offset = address). */
static int write_elf(void)
{
	static unsigned char text[0x1000], data[0x100], rodata[0x100], comment[16];
	static char str[4096], dstr[512], shstr[256];
	static Elf64_Sym syms[64], dsyms[8];
	uint32_t offs[64], doffs[8];
	size_t ns = sizeof(symtab) / sizeof(symtab[0]), nd = sizeof(dynsym) / sizeof(dynsym[0]);
	size_t slen = strtab(str, symtab, ns, offs), dlen = strtab(dstr, dynsym, nd, doffs);
	size_t shoff = 1, off = FILE_SIZE;
	GElf_Ehdr eh;
	GElf_Phdr ph;
	Elf *e;
	int fd = mkstemp(path), ret = -1;

	if (fd < 0)
		return -1;
	fill_syms(syms, symtab, ns, offs);
	fill_syms(dsyms, dynsym, nd, doffs);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e || !gelf_newehdr(e, ELFCLASS64) || !gelf_getehdr(e, &eh))
		goto out;
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_shstrndx = S_SHSTRTAB;
	shstr[0] = '\0';
	if (add_section(e, ".text", &shoff, shstr, SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
			TEXT_ADDR, TEXT_ADDR, text, sizeof(text), 0, 0, 0) ||
	    add_section(e, ".data", &shoff, shstr, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
			DATA_ADDR, DATA_ADDR, data, sizeof(data), 0, 0, 0) ||
	    add_section(e, ".eh_frame", &shoff, shstr, SHT_PROGBITS, SHF_ALLOC,
			RODATA_ADDR, RODATA_ADDR, rodata, sizeof(rodata), 0, 0, 0) ||
	    add_section(e, ".comment", &shoff, shstr, SHT_PROGBITS, 0, 0, off,
			comment, sizeof(comment), 0, 0, 0))
		goto out;
	off += sizeof(comment);
	if (add_section(e, ".symtab", &shoff, shstr, SHT_SYMTAB, 0, 0, off, syms,
			(ns + 1) * sizeof(*syms), S_STRTAB, sizeof(*syms), 1))
		goto out;
	off += (ns + 1) * sizeof(*syms);
	if (add_section(e, ".strtab", &shoff, shstr, SHT_STRTAB, 0, 0, off, str, slen, 0, 0, 0))
		goto out;
	off = (off + slen + 7) & ~7UL;
	if (add_section(e, ".dynsym", &shoff, shstr, SHT_DYNSYM, SHF_ALLOC, 0, off, dsyms,
			(nd + 1) * sizeof(*dsyms), S_DYNSTR, sizeof(*dsyms), 1))
		goto out;
	off += (nd + 1) * sizeof(*dsyms);
	if (add_section(e, ".dynstr", &shoff, shstr, SHT_STRTAB, SHF_ALLOC, 0, off, dstr, dlen,
			0, 0, 0))
		goto out;
	off += dlen;
	if (add_section(e, ".shstrtab", &shoff, shstr, SHT_STRTAB, 0, 0, off, shstr,
			sizeof(shstr), 0, 0, 0))
		goto out;
	off = (off + sizeof(shstr) + 7) & ~7UL;
	eh.e_shoff = off;
	eh.e_phoff = sizeof(Elf64_Ehdr);
	if (!gelf_update_ehdr(e, &eh) || !gelf_newphdr(e, 1))
		goto out;
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_filesz = FILE_SIZE;
	ph.p_memsz = FILE_SIZE;
	ph.p_align = 0x1000;
	if (!gelf_update_phdr(e, 0, &ph) || elf_update(e, ELF_C_WRITE) < 0)
		goto out;
	ret = 0;
out:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

FIXTURE(crafted) {
	struct dso *d;
};

FIXTURE_SETUP(crafted)
{
	p_set_quiet(1);
	ASSERT_EQ(0, write_elf()) TH_LOG("writing %s: %s", path, elf_errmsg(-1));
	self->d = dso__new(path);
	ASSERT_NE(NULL, self->d);
}

FIXTURE_TEARDOWN(crafted)
{
	dso__free(self->d);
	unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
}

/* "name+0xoff" for OFF in the file, or "[unknown]". */
static const char *at(struct dso *d, uint64_t off, int demangle)
{
	static char buf[128];
	const char *name;
	uint64_t symoff;

	if (dso__resolve(d, off, demangle, &name, &symoff))
		return "[unknown]";
	snprintf(buf, sizeof(buf), "%s+0x%llx", name, (unsigned long long)symoff);
	return buf;
}

TEST_F(crafted, aliases_follow_choose_best_symbol)
{
	EXPECT_STREQ("a_sized_local+0x4", at(self->d, 0x1004, 1));
	EXPECT_STREQ("b_local+0x0", at(self->d, 0x1100, 1));
	EXPECT_STREQ("c_global+0x0", at(self->d, 0x1200, 1));
	EXPECT_STREQ("_d_one+0x0", at(self->d, 0x1300, 1));
	EXPECT_STREQ("e_longer+0x0", at(self->d, 0x1400, 1));
	EXPECT_STREQ("f_first+0x0", at(self->d, 0x1500, 1));
	EXPECT_STREQ("sys_g+0x0", at(self->d, 0x1600, 1));
	EXPECT_STREQ("l_dyn_longer+0x8", at(self->d, 0x1b08, 1));
}

TEST_F(crafted, zero_size_symbols_and_labels_are_kept)
{
	/* h_zero ends where h_next starts. */
	EXPECT_STREQ("h_zero+0x40", at(self->d, 0x1740, 1));
	EXPECT_STREQ("h_next+0x0", at(self->d, 0x1780, 1));
	/* Past h_next's size, before the next symbol: nothing. */
	EXPECT_STREQ("[unknown]", at(self->d, 0x17f0, 1));
	EXPECT_STREQ("i_label+0x4", at(self->d, 0x1804, 1));
	EXPECT_STREQ("i_label+0x10", at(self->d, 0x1810, 1));	/* not i_hidden */
	/* m_label ends at the object after it; the object resolves too. */
	EXPECT_STREQ("m_label+0x3ff", at(self->d, 0x1fff, 1));
	EXPECT_STREQ("m_object+0x4", at(self->d, 0x2004, 1));
}

TEST_F(crafted, dropped_symbols_do_not_compete)
{
	EXPECT_STREQ("j_func+0x0", at(self->d, 0x1900, 1));
	EXPECT_STREQ("k_func+0x0", at(self->d, 0x1a00, 1));
	EXPECT_STREQ("[unknown]", at(self->d, RODATA_ADDR, 1));
}

TEST_F(crafted, aliases_are_chosen_by_the_names_printed)
{
	EXPECT_STREQ("foobar+0x0", at(self->d, 0x1b80, 1));
	EXPECT_STREQ("xfoob+0x0", at(self->d, 0x1b80, 0));
	EXPECT_STREQ("foobar+0x0", at(self->d, 0x1b80, 1));
}

/* The DSO snapshot a capture saves makes the same choices. */
static int keep_blob(void *ctx, const void *blob, size_t len)
{
	void **out = ctx;

	*out = malloc(len + sizeof(size_t));
	if (!*out)
		return -1;
	memcpy(*out, &len, sizeof(len));
	memcpy((char *)*out + sizeof(len), blob, len);
	return 0;
}

TEST_F(crafted, snapshot_chooses_the_same)
{
	struct dso *copy;
	void *blob = NULL;
	size_t len;

	ASSERT_STREQ("a_sized_local+0x0", at(self->d, 0x1000, 1));
	ASSERT_EQ(1, dso__used(self->d));
	ASSERT_EQ(0, dso__save(self->d, keep_blob, &blob));
	memcpy(&len, blob, sizeof(len));
	ASSERT_STREQ(path, dso__blob_path((char *)blob + sizeof(len), len));
	copy = dso__new("/nonexistent/elsewhere");
	ASSERT_NE(NULL, copy);
	ASSERT_EQ(0, dso__load_blob(copy, (char *)blob + sizeof(len), len));
	EXPECT_STREQ("_d_one+0x0", at(copy, 0x1300, 1));
	EXPECT_STREQ("h_zero+0x40", at(copy, 0x1740, 1));
	EXPECT_STREQ("l_dyn_longer+0x0", at(copy, 0x1b00, 1));
	EXPECT_STREQ("xfoob+0x0", at(copy, 0x1b80, 0));
	EXPECT_STREQ("foobar+0x0", at(copy, 0x1b80, 1));
	/* A truncated blob is refused. */
	EXPECT_NE(0, dso__load_blob(copy, (char *)blob + sizeof(len), len - 8));
	dso__free(copy);
	free(blob);
}

/*
 * kallsyms: every symbol has size zero, symbols__fixup_end() runs before
 * symbols__fixup_duplicate(), so of aliases only the last in file order
 * gets a size, and a non-zero size wins: the last alias, whatever its
 * binding or name.
 */
static const char kallsyms[] =
	"ffffffff81000000 T zzz_long_global_name\n"
	"ffffffff81000000 t a\n"
	"ffffffff81000100 T next\n"
	"ffffffff81000100 W next_weak\n"
	"ffffffff81000200 r some_rodata\n"		/* not a kept type */
	"ffffffff81000300 T last_core\n"
	"ffffffffc0000000 t modfunc\t[mod]\n"
	"ffffffffc0000040 t modlast\t[mod]\n";

static const char *kat(const struct ksyms *k, uint64_t addr)
{
	static char buf[128];
	const char *name, *dso;
	uint64_t off;

	if (ksyms__resolve(k, addr, &name, &off, &dso))
		return "[unknown]";
	snprintf(buf, sizeof(buf), "%s+0x%llx %s", name, (unsigned long long)off, dso);
	return buf;
}

TEST(kallsyms_aliases_and_ends)
{
	struct ksyms *k = ksyms__new(kallsyms, sizeof(kallsyms) - 1);

	ASSERT_NE(NULL, k);
	EXPECT_STREQ("a+0x10 [kernel.kallsyms]", kat(k, 0xffffffff81000010ULL));
	EXPECT_STREQ("next_weak+0x0 [kernel.kallsyms]", kat(k, 0xffffffff81000100ULL));
	/* 'r' is not kept: next_weak runs on to last_core. */
	EXPECT_STREQ("next_weak+0x100 [kernel.kallsyms]", kat(k, 0xffffffff81000200ULL));
	/* Before a module's symbols, the last core one ends a page on. */
	EXPECT_STREQ("last_core+0x1cff [kernel.kallsyms]", kat(k, 0xffffffff81001fffULL));
	EXPECT_STREQ("[unknown]", kat(k, 0xffffffff81002000ULL));
	EXPECT_STREQ("modfunc+0x8 [mod]", kat(k, 0xffffffffc0000008ULL));
	/* The very last symbol ends at the page after its start's page. */
	EXPECT_STREQ("modlast+0x1fbf [mod]", kat(k, 0xffffffffc0001fffULL));
	EXPECT_STREQ("[unknown]", kat(k, 0xffffffffc0002000ULL));
	ksyms__free(k);
}

/*
 * The whole table perf 6.1 builds from kallsyms (kallsyms__parse(): every
 * kept symbol in file order, size zero; symbols__fixup_end(), then
 * symbols__fixup_duplicate()), built here line by line with the symbol
 * table's own rules: what ksyms' lookups, which build no such table,
 * must answer like.  *HIDDEN: every address is zero.
 */
static struct symtab *whole_table(const char *text, size_t len, int *hidden)
{
	struct symtab *t = symtab__new_in(text);
	const char *p = text, *end = text + len, *nl, *e;
	int seen = 0, nonzero = 0;
	unsigned long long addr;
	size_t n;

	while (t && p < end) {
		const char *line = p;

		nl = memchr(p, '\n', end - p);
		if (!nl)
			nl = end;
		p = nl + 1;
		for (addr = 0, e = line; e < nl && isxdigit((unsigned char)*e); e++)
			addr = addr << 4 | (isdigit((unsigned char)*e) ? *e - '0' :
					    (*e | 0x20) - 'a' + 10);
		if (e == line || *e != ' ' || e + 3 > nl || e[2] != ' ')
			continue;
		seen++;
		nonzero |= !!addr;
		if (!strchr("TtWwDdBb", e[1]) || (e + 3 < nl && e[3] == '$'))
			continue;
		n = nl - (e + 3) > 511 ? 511 : nl - (e + 3);
		symtab__add_len(t, addr, 0, e[1] == 'W' ? STB_WEAK :
				isupper((unsigned char)e[1]) ? STB_GLOBAL : STB_LOCAL, e + 3, n);
	}
	symtab__commit(t);
	symtab__fixup_end(t, 1);
	symtab__fixup_duplicate(t);
	*hidden = seen && !nonzero;
	return t;
}

/* What the whole table answers for ADDR, as kat() prints ksyms' answer. */
static const char *whole_at(const struct symtab *t, int hidden, uint64_t addr)
{
	static char buf[600];
	const struct symtab_sym *s = hidden ? NULL : symtab__find(t, addr);
	unsigned long long off;
	const char *n, *tab;

	if (!s)
		return "[unknown]";
	n = symtab__name(t, s);
	off = addr - s->start;
	tab = memchr(n, '\t', s->len);
	if (tab && tab + 1 < n + s->len && tab[1] == '[')
		snprintf(buf, sizeof(buf), "%.*s+0x%llx %.*s", (int)(tab - n), n, off,
			 (int)(n + s->len - tab - 1), tab + 1);
	else
		snprintf(buf, sizeof(buf), "%.*s+0x%llx [kernel.kallsyms]",
			 (int)(tab ? tab - n : s->len), n, off);
	return buf;
}

static uint64_t rnd_state = 88172645463325252ULL;

static uint64_t rnd(uint64_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state % n;
}

/*
 * A line kallsyms does not have: no address, an address in capitals, or
 * one whose 16 digits hold a byte that is none (a neighbour of the digits
 * in ASCII, a space, a byte above 0x7f, a digit less its 0x20 bit).
 */
static void odd_line(FILE *f, uint64_t addr)
{
	static const char not_hex[] = { '/', ':', '@', 'G', '`', 'g', ' ', (char)0xe6,
					'1' ^ 0x20 };
	char a[17];

	switch (rnd(3)) {
	case 0:
		fprintf(f, "%s\n", rnd(2) ? "garbage" : "ffff");
		break;
	case 1:
		fprintf(f, "%016llX T upper\n", (unsigned long long)addr);
		break;
	default:
		snprintf(a, sizeof(a), "%016llx", (unsigned long long)addr);
		a[rnd(16)] = not_hex[rnd(sizeof(not_hex))];
		fprintf(f, "%s T odd\n", a);
	}
}

/*
 * A kallsyms text of NR core lines (runs of aliases, every type, names
 * with leading underscores and "SyS", '$' names, an odd line now and
 * then), then, unless SORTED, modules' symbols in no order; ENDED: the
 * last line has its newline.  A third of the way in, a global core_global
 * (then next_core), and each module's local at_core at its address: rules
 * that only neighbours in address order decide, across the two parts:
 * core_global against at_core (global wins, both sized: core_global ends
 * at the page a module's symbol follows).  Two
 * thirds in, core_lone and, 0x3000 on, after_lone, which each module's
 * lone_tie shares: core_lone's successor is after_lone, the core's (it
 * ends there, not a page on).
 */
static char *synth_kallsyms(int nr, int sorted, int ended, size_t *len)
{
	static const char types[] = "TtWwDdBbrRAV";
	static const char *const pre[] = { "", "_", "__", "SyS_", "$" };
	static const uint64_t steps[] = { 0, 0, 0x10, 0x40, 0x800, 0x1000, 0x3000 };
	uint64_t addr = 0xffffffff81000000ULL, core_at = 0, lone_at = 0;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int i, m;

	for (i = 0; i < nr; i++) {
		addr += steps[rnd(7)];
		if (!rnd(50))
			odd_line(f, addr);
		if (i == nr / 3) {
			addr += 0x10;
			core_at = addr;
			fprintf(f, "%016llx T core_global\n", (unsigned long long)addr);
			addr += 0x3000;
			fprintf(f, "%016llx t next_core\n", (unsigned long long)addr);
			addr += 0x10;
		}
		if (i == 2 * nr / 3) {
			addr += 0x10;
			fprintf(f, "%016llx t core_lone\n", (unsigned long long)addr);
			addr += 0x3000;
			lone_at = addr;
			fprintf(f, "%016llx t after_lone\n", (unsigned long long)addr);
			addr += 0x10;
		}
		fprintf(f, "%016llx %c %s%c%d\n", (unsigned long long)addr, types[rnd(12)],
			pre[rnd(5)], (char)('a' + rnd(26)), (int)rnd(1000));
	}
	for (m = 0; !sorted && m < 3; m++) {
		uint64_t base = 0xffffffffc0000000ULL + m * 0x100000;

		for (i = 0; i < 200; i++)
			fprintf(f, "%016llx %c m%d_%d\t[mod%d]\n",
				(unsigned long long)(base + rnd(64) * 0x40), types[rnd(8)],
				m, i, m);
		fprintf(f, "%016llx t at_core\t[mod%d]\n", (unsigned long long)core_at, m);
		fprintf(f, "%016llx t lone_tie\t[mod%d]\n", (unsigned long long)lone_at, m);
	}
	fprintf(f, "%016llx T the_end", (unsigned long long)(addr + 0x100));
	fprintf(f, ended ? "\n" : "");
	fclose(f);
	*len = size;
	return buf;
}

/*
 * ksyms__resolve() against the whole table, at and around every line's
 * address: how many answers differ.
 */
static int compare_whole(struct __test_metadata *_metadata, const char *text, size_t len)
{
	static const int64_t near[] = { -1, 0, 1, 0x3f, 0x7ff, 0x1000, 0x2000 };
	struct ksyms *k = ksyms__new(text, len);
	int hidden, checked = 0, bad = 0;
	struct symtab *t = whole_table(text, len, &hidden);
	const char *p = text, *end = text + len, *nl;
	char want[600];
	size_t i;

	ASSERT_NE(NULL, k);
	ASSERT_NE(NULL, t);
	for (; p < end; p = nl ? nl + 1 : end) {
		uint64_t a = strtoull(p, NULL, 16);

		nl = memchr(p, '\n', end - p);
		for (i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
			snprintf(want, sizeof(want), "%s", whole_at(t, hidden, a + near[i]));
			checked++;
			if (strcmp(want, kat(k, a + near[i])) && bad++ < 5)
				TH_LOG("at %llx: %s, the whole table: %s",
				       (unsigned long long)(a + near[i]), kat(k, a + near[i]),
				       want);
		}
	}
	EXPECT_EQ(0, bad) TH_LOG("%d of %d addresses differ", bad, checked);
	EXPECT_LT(1000, checked);
	symtab__free(t);
	ksyms__free(k);
	return bad;
}

FIXTURE(kwhole) {
	char *text;
	size_t len;
};

FIXTURE_VARIANT(kwhole) {
	int sorted, ended, nr;
};

/* A kernel without modules: every line in order, no table at all. */
FIXTURE_VARIANT_ADD(kwhole, no_modules) {
	.sorted = 1, .ended = 1, .nr = 3000,
};

/* Modules after the core, in their own order. */
FIXTURE_VARIANT_ADD(kwhole, modules) {
	.sorted = 0, .ended = 1, .nr = 3000,
};

/* The last line without its newline. */
FIXTURE_VARIANT_ADD(kwhole, unended) {
	.sorted = 0, .ended = 0, .nr = 500,
};

FIXTURE_SETUP(kwhole)
{
	self->text = synth_kallsyms(variant->nr, variant->sorted, variant->ended, &self->len);
	ASSERT_NE(NULL, self->text);
}

FIXTURE_TEARDOWN(kwhole)
{
	free(self->text);
}

/*
 * kallsyms' core part is looked up in the text, the rest in a table; the
 * answers are the whole table's, perf's, at every symbol and around it.
 */
TEST_F(kwhole, lookups_answer_as_the_whole_table)
{
	compare_whole(_metadata, self->text, self->len);
}

/*
 * ksyms.c reads the ordered part's regular lines (16 lowercase digits) by
 * their text, and hands the others to the reader of any line: a line in
 * capitals, or of 8 or 17 digits, in order or not, the line after it
 * going back below it, at a mark (every 32nd kept line) or next to one;
 * and whether the text is hidden (every address 0).
 */
enum {
	TW_CAPS_BELOW,		/* in capitals, 1 below the line before it */
	TW_CAPS_OVER,		/* in capitals, and the next line 1 below it */
	TW_SHORT,		/* 8 digits (a 32-bit kernel's): far below */
	TW_LONG_OVER,		/* 17 digits, and the next line 1 below it */
	TW_KEPT_ONLY,		/* none: kept lines only, not hidden */
	TW_RUN,			/* 0 but on 50 lines from it, regular: not hidden */
	TW_ZERO,		/* every address 0: hidden */
	TW_ZERO_BUT_SKIPPED,	/* but a line not kept: not hidden */
	TW_ZERO_BUT_BAD,	/* but a bad line (a '\n' for its type): hidden */
	NR_TWISTS
};

/* 150 kept lines 0x10 apart, the one at AT with TWIST. */
static char *twisted_kallsyms(int twist, int at, size_t *len)
{
	int zero = twist >= TW_ZERO, over = twist == TW_CAPS_OVER || twist == TW_LONG_OVER;
	unsigned long long a;
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int i;

	for (i = 0; i < 150; i++) {
		a = 0xffffffff81000000ULL + i * 0x10;
		if (zero || (twist == TW_RUN && (i < at || i >= at + 50)))
			a = 0;
		if (i == at + 1 && over)
			a -= 0x11;
		if (i != at || twist == TW_KEPT_ONLY || twist == TW_RUN || twist == TW_ZERO)
			fprintf(f, "%016llx T s%d\n", a, i);
		else if (twist == TW_CAPS_BELOW)
			fprintf(f, "%016llX T caps\n", a - 0x11);
		else if (twist == TW_CAPS_OVER)
			fprintf(f, "%016llX T caps\n", a);
		else if (twist == TW_SHORT)
			fprintf(f, "%08llx T short\n", a & 0xffffffff);
		else if (twist == TW_LONG_OVER)
			fprintf(f, "0%016llx T long\n", a);
		else if (twist == TW_ZERO_BUT_SKIPPED)
			fprintf(f, "ffffffff81000000 r skipped\n");
		else
			fprintf(f, "ffffffff81000000 \n T bad\n");
	}
	fclose(f);
	*len = size;
	return buf;
}

TEST(kallsyms_handovers_answer_as_the_whole_table)
{
	int twist, at, bad;
	size_t len;
	char *text;

	for (twist = 0; twist < NR_TWISTS; twist++)
		for (at = 29; at <= 35; at++) {
			text = twisted_kallsyms(twist, at, &len);
			ASSERT_NE(NULL, text);
			bad = compare_whole(_metadata, text, len);
			free(text);
			ASSERT_EQ(0, bad) TH_LOG("twist %d at line %d", twist, at);
		}
}

/* The same on this machine's kallsyms, when it shows addresses. */
TEST(this_kallsyms_answers_as_the_whole_table)
{
	char *text = NULL;
	size_t len = 0, n;
	char buf[1 << 16];
	FILE *in = fopen("/proc/kallsyms", "r"), *out;

	if (!in)
		SKIP(return, "no /proc/kallsyms to read");
	out = open_memstream(&text, &len);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	fclose(out);
	if (!strtoull(text, NULL, 16)) {
		free(text);
		SKIP(return, "kallsyms' addresses are hidden (kptr_restrict): run as root");
	}
	compare_whole(_metadata, text, len);
	free(text);
}

/*
 * A batch out of order, with many equal starts: committed, the table is in
 * by_start order, and entries of one start keep the order they were added
 * in (their names were appended in that order), as qsort()'s stable merge
 * sort leaves them.  Each entry's size is its place in the batch.
 */
TEST(commit_sorts_stably_by_start)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 1000, 4097 };
	unsigned int k;

	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct symtab *t = symtab__new();
		uint64_t x = 12345 + k;
		size_t i, n = sizes[k];
		char name[32];

		ASSERT_NE(NULL, t);
		for (i = 0; i < n; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			snprintf(name, sizeof(name), "s%zu", i);
			ASSERT_EQ(0, symtab__add(t, 0x1000 + (x >> 33) % (n / 3 + 1), i + 1,
						 STB_GLOBAL, name));
		}
		ASSERT_EQ((int)n, symtab__commit(t));
		ASSERT_EQ(n, symtab__count(t));
		for (i = 1; i < n; i++) {
			const struct symtab_sym *a = symtab__sym(t, i - 1), *b = symtab__sym(t, i);

			ASSERT_TRUE(a->start < b->start ||
				    (a->start == b->start && a->end - a->start < b->end - b->start))
				TH_LOG("batch of %zu: entry %zu (%#llx, added %llu) before %zu (%#llx, added %llu)",
				       n, i - 1, (unsigned long long)a->start,
				       (unsigned long long)(a->end - a->start), i,
				       (unsigned long long)b->start,
				       (unsigned long long)(b->end - b->start));
		}
		symtab__free(t);
	}
}

TEST_HARNESS_MAIN
