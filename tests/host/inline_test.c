// SPDX-License-Identifier: GPL-2.0
/*
 * inline_test: inline frames as perf script prints them.  tests/progs/
 * inlined (built -O1 -g) has mix() always inlined into run(), and a hidden
 * label, kp_inline_mark, inside mix's inlined body: there its debug info
 * says mix was inlined into run.  perf script prints such an address of a
 * DWARF-unwound chain as
 *
 *	"\t%16llx mix+0x<run's offset> (inlined)\n"
 *	"\t%16llx run+0x<run's offset> (<the program>)\n"
 *
 * and a frame-pointer chain's as run's line alone.  Checked through the
 * symbolizer (usyms__inlines()) and the frame cache that formats the
 * lines kprofcat prints, with inline frames and without.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "elf_sym.h"
#include "lib/stream/framecache.h"
#include "lib/symbols/usyms.h"

#define MAP_START	0x555555554000ULL
#define PID		4321

static char prog[PATH_MAX];

/* progs/inlined, built beside this test (OUTPUT/host -> OUTPUT/progs). */
static int find_prog(void)
{
	char self[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	dir = dirname(self);
	snprintf(prog, sizeof(prog), "%s/../progs/inlined", dir);
	if (!realpath(prog, self))
		return -1;
	snprintf(prog, sizeof(prog), "%s", self);
	return access(prog, R_OK);
}

FIXTURE(inl) {
	struct usyms *u;
	uint64_t mark, run;	/* file offsets */
};

FIXTURE_SETUP(inl)
{
	struct pev e = { .type = PEV_MMAP, .pid = PID, .time = 0, .start = MAP_START,
			 .len = 1 << 20, .pgoff = 0 };

	ASSERT_EQ(0, find_prog()) TH_LOG("build tests/progs/inlined first");
	ASSERT_EQ(0, sym_file_offset(prog, "kp_inline_mark", &self->mark));
	ASSERT_EQ(0, sym_file_offset(prog, "run", &self->run));
	ASSERT_LT(self->run, self->mark);
	self->u = usyms__new();
	ASSERT_NE(NULL, self->u);
	e.path = prog;
	ASSERT_EQ(0, usyms__apply(self->u, &e));
}

FIXTURE_TEARDOWN(inl)
{
	usyms__free(self->u);
}

TEST_F(inl, symbolizer_names_the_inlined_function_then_its_caller)
{
	const char *const *names;
	struct usym r;

	ASSERT_EQ(0, usyms__resolve(self->u, PID, 1, MAP_START + self->mark, &r));
	EXPECT_STREQ("run", r.name);
	EXPECT_EQ(self->mark - self->run, r.off);
	ASSERT_EQ(2, usyms__inlines(self->u, &r, &names));
	EXPECT_STREQ("mix", names[0]);
	EXPECT_STREQ("run", names[1]);
	/* Where nothing was inlined: run alone, its own line. */
	ASSERT_EQ(0, usyms__resolve(self->u, PID, 1, MAP_START + self->run, &r));
	ASSERT_EQ(1, usyms__inlines(self->u, &r, &names));
	EXPECT_STREQ("run", names[0]);
}

/* LINE (not NUL-terminated, LEN bytes) is WANT. */
static int line_is(const struct out_frame *f, const char *want)
{
	return f->line_len == strlen(want) && !memcmp(f->line, want, f->line_len);
}

TEST_F(inl, dwarf_frames_print_inlined_lines_and_fp_frames_do_not)
{
	char want_mix[PATH_MAX + 64], want_run[PATH_MAX + 64];
	struct framecache *c = framecache__new();
	struct out_frame f[8];
	unsigned int nr = 0;
	uint64_t since;
	int inl;

	ASSERT_NE(NULL, c);
	snprintf(want_mix, sizeof(want_mix), "\t%16llx mix+0x%llx (inlined)\n",
		 (unsigned long long)self->mark, (unsigned long long)(self->mark - self->run));
	snprintf(want_run, sizeof(want_run), "\t%16llx run+0x%llx (%s)\n",
		 (unsigned long long)self->mark, (unsigned long long)(self->mark - self->run),
		 prog);
	/* Twice each: the second answer comes from the cache. */
	for (inl = 1; inl >= 0; inl--) {
		int pass;

		for (pass = 0; pass < 2; pass++) {
			uint32_t gen = usyms__generation(self->u, PID);

			ASSERT_EQ(0, framecache__user(c, self->u, PID, gen, 1,
						      MAP_START + self->mark, inl, f, 8, &nr,
						      &since));
			ASSERT_EQ(inl ? 2 : 1, nr);
			EXPECT_TRUE(line_is(&f[0], inl ? want_mix : want_run))
				TH_LOG("%.*s", f[0].line_len, f[0].line);
			EXPECT_EQ(inl, f[0].inlined);
			/* Self's symbol: the one the address lies in. */
			EXPECT_STREQ("run", f[0].outer);
			if (!inl)
				continue;
			EXPECT_TRUE(line_is(&f[1], want_run));
			EXPECT_NE(f[0].sym_id, f[1].sym_id);
			EXPECT_EQ(f[1].sym_id, f[0].outer_id);
		}
	}
	/* Room for one frame: the innermost. */
	ASSERT_EQ(0, framecache__user(c, self->u, PID, usyms__generation(self->u, PID), 1,
				      MAP_START + self->mark, 1, f, 1, &nr, &since));
	ASSERT_EQ(1, nr);
	EXPECT_TRUE(line_is(&f[0], want_mix));
	framecache__free(c);
}

TEST_HARNESS_MAIN
