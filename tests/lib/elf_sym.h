/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_sym.h - the symbols of a test's ELF files: where one lies in its
 * file, and each name of the symbol tables.
 */
#ifndef KPROF_TEST_ELF_SYM_H
#define KPROF_TEST_ELF_SYM_H

#include <stdint.h>

/*
 * File offset of the .symtab symbol NAME in PATH (its address in a mapping
 * at pgoff 0): 0 and *OFF, or -1.
 */
int sym_file_offset(const char *path, const char *name, uint64_t *off);

/* FN(NAME, ARG) for each name in PATH's .symtab and .dynsym: 0, or -1. */
int each_sym_name(const char *path, void (*fn)(const char *name, void *arg), void *arg);

#endif
