// SPDX-License-Identifier: GPL-2.0
/*
 * framecache_test: the frame cache's table keeps each address's frame
 * through the table's growth and through framecache__trim()'s restarts.
 * Kernel frames without symbols (framecache__kernel() with no ksyms)
 * need no files: each is "\t%16llx [unknown] ([kernel.kallsyms])\n", a
 * 72-byte line in the arena, so FRAMECACHE_MAX_BYTES / 72 frames fill
 * the arena and the next trim starts the table over.
 */
#include <stdio.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lib/stream/framecache.h"

#define BASE		0xffffffff81000000ULL
/* Three arenas' worth of distinct frames: two restarts at least. */
#define FRAMES		(3 * (FRAMECACHE_MAX_BYTES / 72))

static int frame_is(const struct out_frame *f, uint64_t addr)
{
	char want[64];
	int n = snprintf(want, sizeof(want), "\t%16llx [unknown] ([kernel.kallsyms])\n",
			 (unsigned long long)addr);

	return f->addr == addr && f->kernel && !f->sym && f->line_len == (uint32_t)n &&
	       !memcmp(f->line, want, n);
}

/* A sample's worth: trimmed first, as session.c does between samples. */
static int frame_of(struct framecache *c, uint64_t addr, struct out_frame *f)
{
	framecache__trim(c);
	return framecache__kernel(c, NULL, addr, f);
}

TEST(each_address_keeps_its_frame_through_growth_and_restarts)
{
	struct framecache *c = framecache__new();
	struct out_frame f;
	uint32_t i, bad = 0;

	ASSERT_NE(NULL, c);
	for (i = 0; i < FRAMES; i++) {
		ASSERT_EQ(0, frame_of(c, BASE + 16ULL * i, &f));
		bad += !frame_is(&f, BASE + 16ULL * i);
		/* Again at once, and one made 1000 frames before: both from the table. */
		ASSERT_EQ(0, frame_of(c, BASE + 16ULL * i, &f));
		bad += !frame_is(&f, BASE + 16ULL * i);
		if (i >= 1000) {
			ASSERT_EQ(0, frame_of(c, BASE + 16ULL * (i - 1000), &f));
			bad += !frame_is(&f, BASE + 16ULL * (i - 1000));
		}
	}
	/* The first frames again, long after the restarts dropped them. */
	for (i = 0; i < 5000; i++) {
		ASSERT_EQ(0, frame_of(c, BASE + 16ULL * i, &f));
		bad += !frame_is(&f, BASE + 16ULL * i);
	}
	EXPECT_EQ(0, bad);
	framecache__free(c);
}

TEST_HARNESS_MAIN
