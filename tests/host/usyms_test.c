// SPDX-License-Identifier: GPL-2.0
/*
 * usyms_test: usyms__map()'s answers and where they hold.  A map it finds
 * says for which addresses and times the same lookup gives the same map
 * ([lo, hi) x [from, to)), while usyms__generation() of the process stays
 * the same: the unwinder keeps it across samples on that word.  Random
 * histories of maps made, replaced, ended by an exec and inherited by a
 * fork are checked by brute force: every address and time of a small
 * grid inside each answer's window is looked up again and must give the
 * same map.  And learning the build-id a file must have, from another
 * process's map of it, changes every process's generation.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lib/symbols/usyms.h"

#define PAGE		0x1000ULL
/* The grid: addresses in pages 1 to PAGES, times 0 to TIMES - 1. */
#define PAGES		24
#define TIMES		40
#define PARENT		100
#define CHILD		101

static const char *const paths[] = { "/kprof-test/a.so", "/kprof-test/b.so", "/kprof-test/c" };

/* xorshift64: the same histories on every run. */
static uint64_t next_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/* One random event of PARENT's or CHILD's history, applied to U. */
static int random_event(struct usyms *u, uint64_t *rnd)
{
	uint64_t r = next_rand(rnd), first = 1 + r % PAGES;
	struct pev e = {
		.type = PEV_MMAP,
		.pid = (r >> 8) % 4 ? PARENT : CHILD,
		.time = (r >> 16) % 8 ? (r >> 20) % TIMES : 0,	/* 0: since ever */
		.start = first * PAGE,
		.len = (1 + (r >> 28) % 6) * PAGE,
		.pgoff = (r >> 32) % 4 * PAGE,
		.path = paths[(r >> 40) % 3],
	};

	if ((r >> 44) % 16 == 0) {
		e.type = PEV_EXEC;
	} else if ((r >> 44) % 16 == 1) {
		e.type = PEV_FORK;
		e.pid = CHILD;
		e.ppid = PARENT;
	}
	return usyms__apply(u, &e);
}

static int same_map(const struct usym_map *a, const struct usym_map *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->path == b->path && a->jit == b->jit && a->lo == b->lo && a->hi == b->hi &&
	       a->from == b->from && a->to == b->to;
}

/*
 * Every grid point of M's window (M found for ADDR at TIME of PID) gives
 * M again: the number of points checked, or -1 at the first that does not.
 */
static int check_window(struct usyms *u, uint32_t pid, const struct usym_map *m)
{
	struct usym_map again;
	uint64_t page, off, t;
	int n = 0;

	for (page = 1; page <= PAGES + 6; page++)
		for (off = 0; off < PAGE; off += PAGE / 2 - 1)
			for (t = 0; t < TIMES + 2; t++) {
				uint64_t a = page * PAGE + off;

				if (a < m->lo || a >= m->hi || t < m->from || t >= m->to)
					continue;
				if (usyms__map(u, pid, t, a, &again) || !same_map(m, &again))
					return -1;
				n++;
			}
	return n;
}

TEST(an_answer_holds_over_its_whole_window)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ULL, checked = 0;
	int history, i, q;

	for (history = 0; history < 40; history++) {
		struct usyms *u = usyms__new();
		int events = 1 + history % 20;

		ASSERT_NE(NULL, u);
		for (i = 0; i < events; i++)
			ASSERT_EQ(0, random_event(u, &rnd));
		for (q = 0; q < 60; q++) {
			uint64_t r = next_rand(&rnd), addr = PAGE + r % ((PAGES + 6) * PAGE);
			uint64_t time = (r >> 40) % (TIMES + 2);
			uint32_t pid = (r >> 60) % 2 ? PARENT : CHILD;
			struct usym_map m;
			int n;

			if (usyms__map(u, pid, time, addr, &m))
				continue;
			ASSERT_TRUE(addr >= m.lo && addr < m.hi && time >= m.from && time < m.to);
			ASSERT_TRUE(addr >= m.start && addr < m.end);
			n = check_window(u, pid, &m);
			ASSERT_LT(0, n) TH_LOG("history %d: %#llx at %llu, map %#llx-%#llx",
					       history, (unsigned long long)addr,
					       (unsigned long long)time,
					       (unsigned long long)m.start,
					       (unsigned long long)m.end);
			checked += n;
		}
		usyms__free(u);
	}
	/* Not a vacuous pass: the histories give maps to check. */
	EXPECT_LT(1000, checked);
	TH_LOG("%llu lookups agreed with the windows", (unsigned long long)checked);
}

TEST(a_map_ended_later_answers_until_then)
{
	struct pev old = { .type = PEV_MMAP, .pid = PARENT, .time = 10, .start = 4 * PAGE,
			   .len = 4 * PAGE, .path = paths[0] };
	struct pev new = old;
	struct usyms *u = usyms__new();
	struct usym_map m;

	ASSERT_NE(NULL, u);
	new.time = 20;
	new.start = 6 * PAGE;
	new.path = paths[1];
	ASSERT_EQ(0, usyms__apply(u, &old));
	ASSERT_EQ(0, usyms__apply(u, &new));
	/* Under the new map: the old one from 10 to 20, the new one from 20 on. */
	ASSERT_EQ(0, usyms__map(u, PARENT, 15, 7 * PAGE, &m));
	EXPECT_STREQ(paths[0], m.path);
	EXPECT_EQ(10, m.from);
	EXPECT_EQ(20, m.to);
	EXPECT_EQ(6 * PAGE, m.lo);
	EXPECT_EQ(8 * PAGE, m.hi);
	ASSERT_EQ(0, usyms__map(u, PARENT, 25, 7 * PAGE, &m));
	EXPECT_STREQ(paths[1], m.path);
	EXPECT_EQ(20, m.from);
	/* Beside it, the old map still answers once ended, as perf keeps it. */
	ASSERT_EQ(0, usyms__map(u, PARENT, 25, 5 * PAGE, &m));
	EXPECT_STREQ(paths[0], m.path);
	EXPECT_EQ(20, m.from);
	EXPECT_EQ(UINT64_MAX, m.to);
	EXPECT_EQ(4 * PAGE, m.lo);
	EXPECT_EQ(6 * PAGE, m.hi);
	usyms__free(u);
}

TEST(a_build_id_learned_changes_every_generation)
{
	struct pev e = { .type = PEV_MMAP, .pid = PARENT, .time = 10, .start = 4 * PAGE,
			 .len = 4 * PAGE, .path = paths[0] };
	struct usyms *u = usyms__new();
	struct usym_map m;
	uint32_t gen;

	ASSERT_NE(NULL, u);
	ASSERT_EQ(0, usyms__apply(u, &e));
	ASSERT_EQ(0, usyms__map(u, PARENT, 15, 5 * PAGE, &m));
	EXPECT_EQ(0, m.build_id_len);
	gen = usyms__generation(u, PARENT);
	/* Another process maps the same file, its build-id known. */
	e.pid = CHILD;
	e.bid_len = 20;
	e.build_id[0] = 0xbe;
	ASSERT_EQ(0, usyms__apply(u, &e));
	EXPECT_NE(gen, usyms__generation(u, PARENT));
	ASSERT_EQ(0, usyms__map(u, PARENT, 15, 5 * PAGE, &m));
	EXPECT_EQ(20, m.build_id_len);
	/* Known already: nothing more is learned. */
	gen = usyms__generation(u, PARENT);
	ASSERT_EQ(0, usyms__apply(u, &e));
	EXPECT_EQ(gen, usyms__generation(u, PARENT));
	usyms__free(u);
}

TEST_HARNESS_MAIN
