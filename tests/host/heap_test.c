// SPDX-License-Identifier: GPL-2.0
/*
 * heap_test: after heap__use_huge_pages(), a block of a few megabytes (a
 * symbol table's, the frame cache's) comes from the heap, and the heap's
 * mapping is marked for huge pages ("hg" in its smaps VmFlags): what the
 * kernel reads to fill it 2 MiB at a time.  Whether it found free huge
 * pages is the machine's, not the program's, so the flag is checked, not
 * AnonHugePages.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lib/util/heap.h"

#define BLOCK	(4UL << 20)

/* Whether transparent huge pages are off ("[never]"), or unknown (-1). */
static int thp_off(void)
{
	char line[256] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	return !!strstr(line, "[never]");
}

/*
 * The smaps entry of the mapping holding ADDR: its name into NAME and
 * whether its VmFlags hold "hg"; -1 if none holds it.
 */
static int mapping_of(uintptr_t addr, char *name, size_t n)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512], path[256];
	unsigned long lo, hi;
	int in = 0, hg = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t first = strcspn(line, " ");

		path[0] = '\0';
		/* A mapping's line starts "lo-hi "; a field's "Name:". */
		if (!memchr(line, ':', first) &&
		    sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, path) >= 2) {
			in = addr >= lo && addr < hi;
			if (in)
				snprintf(name, n, "%s", path);
		} else if (in && !strncmp(line, "VmFlags:", 8)) {
			hg = !!strstr(line, " hg");
			break;
		}
	}
	fclose(f);
	return hg;
}

TEST(large_blocks_come_from_a_heap_marked_for_huge_pages)
{
	char name[256] = "";
	unsigned char *p;
	int hg;

	if (thp_off() != 0)
		SKIP(return, "transparent huge pages are off or unknown here");
	heap__use_huge_pages();
	p = malloc(BLOCK);
	ASSERT_NE(NULL, p);
	memset(p, 1, BLOCK);
	hg = mapping_of((uintptr_t)p + BLOCK / 2, name, sizeof(name));
	EXPECT_STREQ("[heap]", name);
	EXPECT_EQ(1, hg);
	free(p);
}

TEST_HARNESS_MAIN
