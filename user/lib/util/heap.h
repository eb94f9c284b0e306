/* SPDX-License-Identifier: GPL-2.0 */
/*
 * heap.h - the process's heap in huge pages, where the kernel has them.
 */
#ifndef KPROFCAT_HEAP_H
#define KPROFCAT_HEAP_H

/*
 * Before the first allocation that matters (main()'s first step): grow
 * the heap in HEAP_PAD steps and ask for huge pages over the first;
 * nothing changes where the kernel or libc refuses.
 */
void heap__use_huge_pages(void);

#endif
