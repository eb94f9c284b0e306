// SPDX-License-Identifier: GPL-2.0
/*
 * demangle_test: C++ user symbols print demangled as perf 6.1 prints them
 * (libiberty's cplus_demangle() without DMGL_PARAMS: "kp::Worker::spin",
 * no parameter list), and raw with --no-demangle.  The symbols are those
 * of a real g++ build, tests/progs/cxxhot (a member function, a template
 * instance, an
 * overload): through the symbolizer (usyms), and end to end through a
 * capture replayed by the kprofcat binary with and without --no-demangle
 * (captures keep the raw names, so either choice works on replay).
 */
/* Before libgen.h: libiberty declares the basename() libgen.h renames. */
#include <libiberty/demangle.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/capture/capture.h"
#include "lib/symbols/demangle.h"
#include "lib/symbols/ksyms.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "lib/stream/session.h"
#include "cmd_output.h"
#include "elf_sym.h"
#include "synth.h"
#include "lib/symbols/usyms.h"

#define MAP_START	0x555555554000ULL
#define PID		4321

static char prog[PATH_MAX], kprofcat[PATH_MAX];

/*
 * progs/cxxhot, built beside this test (OUTPUT/host/demangle_test ->
 * OUTPUT/progs/cxxhot), and user/kprofcat of the tree it was built from
 * (KPROF_TREE, from tests/Makefile).
 */
static int find_paths(void)
{
	char self[PATH_MAX], *dir;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	dir = dirname(self);	/* OUTPUT/host */
	snprintf(prog, sizeof(prog), "%s/../progs/cxxhot", dir);
	snprintf(kprofcat, sizeof(kprofcat), "%s/user/kprofcat", KPROF_TREE);
	if (!realpath(prog, self))
		return -1;
	snprintf(prog, sizeof(prog), "%s", self);
	return access(prog, R_OK) || access(kprofcat, X_OK);
}

static int map_prog(void *ctx, int (*apply)(void *ctx, const struct pev *e))
{
	struct pev e = { .type = PEV_MMAP, .pid = PID, .time = 0, .start = MAP_START,
			 .len = 1 << 20, .pgoff = 0, .path = prog };

	return apply(ctx, &e);
}

static int usyms_apply(void *u, const struct pev *e)
{
	return usyms__apply(u, e);
}

TEST(demangles_itanium_names_and_leaves_others)
{
	char *s;

	s = demangle__cxx("_ZN2kp6Worker4spinEm");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("kp::Worker::spin", s);
	free(s);
	s = demangle__cxx("_ZN2kp5twiceIiEET_S1_");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("kp::twice<int>", s);
	free(s);
	/* gcc's clone suffixes: perf 6.1 (DMGL_NO_OPTS) drops them too. */
	s = demangle__cxx("_ZN2kp5twiceEdi.cold");
	ASSERT_NE(NULL, s);
	EXPECT_STREQ("kp::twice", s);
	free(s);
	EXPECT_EQ(NULL, demangle__cxx("main"));
	EXPECT_EQ(NULL, demangle__cxx("_Z"));
	EXPECT_EQ(NULL, demangle__cxx("_Zfoo!"));
	/* A type encoding is not a symbol. */
	EXPECT_EQ(NULL, demangle__cxx("i"));
}

struct tally {
	long names, bad;
};

/* Whether demangle__cxx() and libiberty's cplus_demangle() disagree on NAME, counted. */
static void compare_name(const char *name, void *arg)
{
	struct tally *t = arg;
	char *ours = demangle__cxx(name);
	char *theirs = cplus_demangle(name, DMGL_NO_OPTS);

	t->bad += ours ? !theirs || strcmp(ours, theirs) : !!theirs;
	t->names++;
	free(ours);
	free(theirs);
}

/*
 * demangle__cxx() asks libiberty only for names it may demangle: the
 * answers are libiberty's for every name of a C++ program, of the C++
 * library (thousands of mangled names), of the C library (none), and for
 * each prefix the automatic style knows, Rust's among them.
 */
TEST(answers_as_libiberty_for_every_name)
{
	static const char *const names[] = {
		"_GLOBAL__sub_I_main", "_GLOBAL__D_x", "_GLOBAL_.I_x", "_GLOBAL_x",
		"_RNvCs1234_7mycrate3foo", "_ZN4core3fmt5Write9write_fmt17h0123456789abcdefE",
		"__ZN3foo3barE", "__ZN4core3fmt5Write9write_fmt17h0123456789abcdefE",
		"_D3foo3barFZv", "__libc_start_main", "_start", "_IO_puts", "_", "",
		"Perl_runops_standard", "_Z3fooi", "_ZL3barv",
	};
	static const char *const files[] = {
		prog, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	};
	struct tally t = { 0, 0 };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *ours = demangle__cxx(names[i]);
		char *theirs = cplus_demangle(names[i], DMGL_NO_OPTS);

		EXPECT_TRUE(ours ? theirs && !strcmp(ours, theirs) : !theirs)
			TH_LOG("%s: %s, libiberty %s", names[i], ours ?: "(null)", theirs ?: "(null)");
		free(ours);
		free(theirs);
	}
	ASSERT_EQ(0, find_paths());
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		int ret = each_sym_name(files[i], compare_name, &t);

		if (ret && i)
			continue;	/* a library another machine keeps elsewhere */
		ASSERT_EQ(0, ret) TH_LOG("%s: unreadable", files[i]);
	}
	TH_LOG("%ld names", t.names);
	EXPECT_EQ(0, t.bad);
	EXPECT_LT(1000, t.names);
}

TEST(symbolizer_names_cxx_functions_demangled_unless_told_not_to)
{
	uint64_t spin, twice_int, main_off;
	struct usyms *u;
	struct usym r;

	ASSERT_EQ(0, find_paths()) TH_LOG("build tests/progs/cxxhot and user/kprofcat first");
	ASSERT_EQ(0, sym_file_offset(prog, "_ZN2kp6Worker4spinEm", &spin));
	ASSERT_EQ(0, sym_file_offset(prog, "_ZN2kp5twiceIiEET_S1_", &twice_int));
	ASSERT_EQ(0, sym_file_offset(prog, "main", &main_off));
	u = usyms__new();
	ASSERT_NE(NULL, u);
	ASSERT_EQ(0, map_prog(u, usyms_apply));

	ASSERT_EQ(0, usyms__resolve(u, PID, 1, MAP_START + spin + 4, &r));
	EXPECT_STREQ("kp::Worker::spin", r.name);
	EXPECT_EQ(4, r.off);
	EXPECT_STREQ(prog, r.dso);
	ASSERT_EQ(0, usyms__resolve(u, PID, 1, MAP_START + twice_int + 1, &r));
	EXPECT_STREQ("kp::twice<int>", r.name);
	/* main has C linkage: as is. */
	ASSERT_EQ(0, usyms__resolve(u, PID, 1, MAP_START + main_off + 1, &r));
	EXPECT_STREQ("main", r.name);
	usyms__set_demangle(u, 0);
	ASSERT_EQ(0, usyms__resolve(u, PID, 1, MAP_START + spin + 4, &r));
	EXPECT_STREQ("_ZN2kp6Worker4spinEm", r.name);
	usyms__set_demangle(u, 1);
	ASSERT_EQ(0, usyms__resolve(u, PID, 1, MAP_START + spin + 4, &r));
	EXPECT_STREQ("kp::Worker::spin", r.name);
	usyms__free(u);
}

static int session_apply(void *s, const struct pev *e)
{
	return session__pev(s, e);
}

/* Run kprofcat with ARGS; its stdout in a malloc'd string. */
static char *run_kprofcat(const char *args)
{
	char cmd[3 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "%s %s", kprofcat, args);
	return cmd_output(cmd);
}

TEST(kprofcat_prints_demangled_names_and_raw_ones_with_no_demangle)
{
	char path[] = "/tmp/kprofcat-cxx-XXXXXX", args[PATH_MAX + 64], want[PATH_MAX + 128];
	struct session_opts so = { .window_ns = 1000000 };
	uint64_t spin, twice, ips[2];
	struct capture_writer *w;
	unsigned char buf[512];
	struct session *s;
	char *text;
	size_t n;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	close(fd);
	ASSERT_EQ(0, find_paths()) TH_LOG("build tests/progs/cxxhot and user/kprofcat first");
	ASSERT_EQ(0, sym_file_offset(prog, "_ZN2kp6Worker4spinEm", &spin));
	ASSERT_EQ(0, sym_file_offset(prog, "_ZN2kp5twiceEdi", &twice));
	p_set_quiet(1);
	/* A capture as kprofcat -o writes it: samples, maps, DSO symbols. */
	w = capture__create(path);
	ASSERT_NE(NULL, w);
	so.cap = w;
	s = session__new(&so, ksyms__new("", 0));
	ASSERT_NE(NULL, s);
	ASSERT_EQ(0, capture__write(w, KPCAP_META, 0, "event=cpu-clock\n", 16));
	ASSERT_EQ(0, map_prog(s, session_apply));
	ips[0] = MAP_START + spin + 0x10;	/* leaf */
	ips[1] = MAP_START + twice + 0x9;	/* return address in its caller */
	n = synth_sample(buf, 1, 1000000000, 0, PID, "cxxhot", KPROF_MISC_USER, ips, 0, 2);
	ASSERT_EQ(0, session__record(s, 0, buf, n));
	ASSERT_EQ(0, session__flush(s, 1));
	ASSERT_EQ(0, session__save_dsos(s, w));
	session__free(s);
	ASSERT_EQ(0, capture__close(w));

	snprintf(args, sizeof(args), "-i %s", path);
	text = run_kprofcat(args);
	ASSERT_NE(NULL, text);
	snprintf(want, sizeof(want), "\t%16llx kp::Worker::spin+0x10 (%s)\n",
		 (unsigned long long)spin + 0x10, prog);
	EXPECT_NE(NULL, strstr(text, want)) TH_LOG("want %s in:\n%s", want, text);
	snprintf(want, sizeof(want), " kp::twice+0x9 (%s)\n", prog);
	EXPECT_NE(NULL, strstr(text, want)) TH_LOG("want %s in:\n%s", want, text);
	free(text);

	snprintf(args, sizeof(args), "--no-demangle -i %s", path);
	text = run_kprofcat(args);
	ASSERT_NE(NULL, text);
	snprintf(want, sizeof(want), "\t%16llx _ZN2kp6Worker4spinEm+0x10 (%s)\n",
		 (unsigned long long)spin + 0x10, prog);
	EXPECT_NE(NULL, strstr(text, want)) TH_LOG("want %s in:\n%s", want, text);
	EXPECT_EQ(NULL, strstr(text, "kp::")) TH_LOG("%s", text);
	free(text);

	snprintf(args, sizeof(args), "--folded -i %s", path);
	text = run_kprofcat(args);
	ASSERT_NE(NULL, text);
	EXPECT_STREQ("cxxhot;kp::twice;kp::Worker::spin 1\n", text);
	free(text);
	unlink(path);
}

TEST_HARNESS_MAIN
