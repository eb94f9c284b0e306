/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elfsrc.h - finding and opening the ELF file a DSO's symbols are read
 * from, as perf 6.1's symsrc__init() and dso__load() do (dso.h says which
 * files, in which order); dso.c's (and dbgcache.c's, for a build-id).
 *
 * A DSO is named here by its path and build-id (BID_LEN 0: not known yet),
 * not by struct dso: dso.c calls these, so they cannot depend on dso.h
 * (scripts/layering).
 */
#ifndef KPROFCAT_ELFSRC_H
#define KPROFCAT_ELFSRC_H

#include <stddef.h>

#include <gelf.h>

struct elfsrc {
	int fd;
	Elf *elf;
	void *image;		/* [vdso]: a copy of this process's */
	Elf_Scn *symtab, *dynsym;
	size_t dynsym_idx;
};

/*
 * Open PATH as perf's symsrc__init() does: 0, or -ENOENT (not a regular
 * ELF file, or, with BID_LEN, not one of build-id BID).
 */
int elfsrc__open(struct elfsrc *s, const char *path, const unsigned char *bid,
		 size_t bid_len);
/* This process's vDSO, as perf's vdso.c copies its own. */
int elfsrc__open_vdso(struct elfsrc *s);
void elfsrc__close(struct elfsrc *s);

/* ELF's section NAME: its header in *SH and, with IDX, its index; or NULL. */
Elf_Scn *elfsrc__section(Elf *elf, const char *name, GElf_Shdr *sh, size_t *idx);
/* ELF's build-id into BID, its length; 0: none, or longer than SIZE. */
int elfsrc__build_id(Elf *elf, unsigned char *bid, size_t size);

/*
 * Candidate I < ELFSRC_CANDIDATES of dso__load()'s list (the ones a user
 * DSO can have) for the DSO at PATH: 0 with its path in OUT, or -1 (none
 * of that kind).
 */
#define ELFSRC_CANDIDATES	5
int elfsrc__candidate(const char *path, const unsigned char *bid, size_t bid_len,
		      int i, char *out, size_t len);

#endif
