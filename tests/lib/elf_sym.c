// SPDX-License-Identifier: GPL-2.0
/*
 * elf_sym.c - where a symbol of a test program lies in its file.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>

#include "elf_sym.h"

int sym_file_offset(const char *path, const char *name, uint64_t *off)
{
	int fd = open(path, O_RDONLY), ret = -1;
	Elf_Scn *scn = NULL;
	uint64_t vaddr = 0;
	size_t i, nph;
	Elf *e;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (gelf_getsym(d, i, &s) &&
			    !strcmp(elf_strptr(e, sh.sh_link, s.st_name), name))
				vaddr = s.st_value;
		}
	}
	if (e && vaddr && !elf_getphdrnum(e, &nph)) {
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
			    vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
				*off = vaddr - ph.p_vaddr + ph.p_offset;
				ret = 0;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}
