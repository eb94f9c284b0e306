/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_sym.h - where a symbol of a test program lies in its file.
 */
#ifndef KPROF_TEST_ELF_SYM_H
#define KPROF_TEST_ELF_SYM_H

#include <stdint.h>

/*
 * File offset of the .symtab symbol NAME in PATH (its address in a mapping
 * at pgoff 0): 0 and *OFF, or -1.
 */
int sym_file_offset(const char *path, const char *name, uint64_t *off);

#endif
