// SPDX-License-Identifier: GPL-2.0
/*
 * elf_sym.c - the symbols of a test's ELF files: where one lies in its
 * file, and each name of the symbol tables.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "elf_sym.h"

typedef void (*sym_fn)(const char *name, uint64_t value, void *arg);

/* FN for each symbol of E's sections of the type TYPE, or of either table (0). */
static void each_sym(Elf *e, Elf64_Word type, sym_fn fn, void *arg)
{
	Elf_Scn *scn = NULL;
	size_t i;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || (type ? sh.sh_type != type :
		    sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			const char *name;
			GElf_Sym s;

			if (!gelf_getsym(d, i, &s))
				continue;
			name = elf_strptr(e, sh.sh_link, s.st_name);
			if (name)
				fn(name, s.st_value, arg);
		}
	}
}

/* Open PATH for reading its sections: the Elf, and the fd in *FD; NULL. */
static Elf *open_elf(const char *path, int *fd)
{
	Elf *e;

	*fd = open(path, O_RDONLY);
	if (*fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e)
		close(*fd);
	return e;
}

struct wanted {
	const char *name;
	uint64_t vaddr;
};

static void note_vaddr(const char *name, uint64_t value, void *arg)
{
	struct wanted *w = arg;

	if (!strcmp(name, w->name))
		w->vaddr = value;
}

int sym_file_offset(const char *path, const char *name, uint64_t *off)
{
	struct wanted w = { name, 0 };
	int fd, ret = -1;
	size_t i, nph;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -1;
	each_sym(e, SHT_SYMTAB, note_vaddr, &w);
	if (w.vaddr && !elf_getphdrnum(e, &nph)) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
			    w.vaddr >= ph.p_vaddr && w.vaddr < ph.p_vaddr + ph.p_filesz) {
				*off = w.vaddr - ph.p_vaddr + ph.p_offset;
				ret = 0;
			}
		}
	}
	elf_end(e);
	close(fd);
	return ret;
}

struct name_fn {
	void (*fn)(const char *name, void *arg);
	void *arg;
};

static void pass_name(const char *name, uint64_t value, void *arg)
{
	struct name_fn *n = arg;

	(void)value;
	n->fn(name, n->arg);
}

int each_sym_name(const char *path, void (*fn)(const char *name, void *arg), void *arg)
{
	struct name_fn n = { fn, arg };
	int fd;
	Elf *e = open_elf(path, &fd);

	if (!e)
		return -1;
	each_sym(e, 0, pass_name, &n);
	elf_end(e);
	close(fd);
	return 0;
}
