// SPDX-License-Identifier: GPL-2.0
/*
 * heap.c - the process's heap in huge pages, where the kernel has them.
 *
 * What kprofcat allocates (symbol tables, the debug info libdw reads, the
 * frame cache, the lines it prints) is a few megabytes written once and
 * kept to the end.  In 4 KiB pages that is a page fault for each, a
 * thousand or more in a replay of a short DWARF profile, and on a virtual
 * machine a page fault costs microseconds: a third of such a replay's
 * time went to them.  So the heap grows in 64 MiB steps of address space
 * (M_TOP_PAD: pages the program never touches cost nothing), large
 * blocks come from it too (M_MMAP_THRESHOLD: glibc would map each on its
 * own, in small pages), and the first step is marked MADV_HUGEPAGE: the
 * kernel then fills it 2 MiB at a time, a fault each.  Where transparent
 * huge pages are off, madvise() fails and the heap is as it was; where
 * the kernel finds no free huge page, it falls back to small ones.  Peak
 * RSS grows by up to a huge page less one small page.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/util/heap.h"

#define HEAP_PAD	(64UL << 20)
#define HUGE_PAGE	(2UL << 20)
/* More than the default 128 KiB pad: the heap must grow for it. */
#define FIRST_BLOCK	(256UL << 10)

void heap__use_huge_pages(void)
{
	uintptr_t lo, hi;
	void *p;

	if (!mallopt(M_TOP_PAD, HEAP_PAD) || !mallopt(M_MMAP_THRESHOLD, HEAP_PAD))
		return;
	/* Larger than what the heap holds yet: it grows by this and the pad. */
	p = malloc(FIRST_BLOCK);
	if (!p)
		return;
	lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	hi = (uintptr_t)sbrk(0);
	if (hi > lo + HUGE_PAGE)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
	/* Back to the heap's top; glibc keeps the pad mapped. */
	free(p);
}
