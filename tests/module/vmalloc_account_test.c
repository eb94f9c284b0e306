// SPDX-License-Identifier: GPL-2.0
/*
 * vmalloc_account_test - swapping buffer sets leaves VmallocUsed where it
 * was.
 *
 * Every SET_CONFIG that changes buffer_pages allocates a new set and frees
 * the old one.  A region mapped with vmap() is not counted in VmallocUsed
 * (nr_vmalloc_pages) nor in the memcg's vmalloc statistic; freeing it by
 * vfree() with VM_MAP_PUT_PAGES subtracts its pages from both on kernels
 * without the 6.13 fix that skips such areas (kprof_region_alloc()), so
 * the figure would drift down by every swapped set's pages.
 *
 * The bound, from the swaps this test makes: sets of 1 and 2 data pages
 * plus a control page on one CPU, alternately, SWAPS times: a drift of
 * SWAPS * 2.5 pages on such a kernel.  Half of it is allowed either way,
 * far above what the idle guest's own vmalloc use moves in the meantime
 * (logged).
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include "kselftest_harness.h"

#define SWAPS	1000

/* VmallocUsed in KiB, or -1. */
static long vmalloc_used_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmallocUsed: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

FIXTURE(swap) {
	int fd;
};

FIXTURE_SETUP(swap)
{
	KP_OPEN_OR_SKIP(self->fd);
}

FIXTURE_TEARDOWN(swap)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(swap, vmalloc_used_unchanged_by_buffer_swaps, 600)
{
	long before, after, drift, bound, page_kb = getpagesize() / 1024;
	struct kprof_config cfg;
	int i;

	KP_RETURN_IF_SKIPPED();
	kp_cfg_init(&cfg, 1000);
	kp_cfg_add_cpu(&cfg, 0);
	cfg.buffer_pages = 2;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	before = vmalloc_used_kb();
	ASSERT_LE(0, before) TH_LOG("no VmallocUsed in /proc/meminfo");
	for (i = 0; i < SWAPS; i++) {
		cfg.buffer_pages = i % 2 ? 2 : 1;
		ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
			TH_LOG("swap %d: %s", i, strerror(errno));
	}
	after = vmalloc_used_kb();
	drift = after - before;
	/* Sets of 2 and 3 pages, freed alternately: 2.5 pages a swap. */
	bound = SWAPS * 5 * page_kb / 4;
	TH_LOG("VmallocUsed %ld kB before, %ld kB after %d swaps: %+ld kB (a kernel that miscounts: about %ld kB)",
	       before, after, SWAPS, drift, -2 * bound);
	EXPECT_GT(bound, labs(drift));
}

TEST_HARNESS_MAIN
