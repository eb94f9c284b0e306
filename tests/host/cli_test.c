// SPDX-License-Identifier: GPL-2.0
/*
 * cli_test: kprofcat's reading side from the command line, run as a user
 * would run it (user/kprofcat, exit status and stderr checked):
 *  - perf's verbs: record, script, report, stat, and script/report/stat
 *    reading kprof.kpcap by default;
 *  - file errors that say what is wrong (no such file, a directory, no
 *    permission, empty, not a capture), for -i and the positional FILE,
 *    never "load the module first" for a file;
 *  - -i applies -C, -p, --tid, --comm, --user-only, --kernel-only and
 *    refuses recording's options (--call-graph fp and dwarf among them)
 *    and --report's outside --report;
 *  - --call-graph dwarf,SIZE refuses sizes perf refuses, naming the rule;
 *  - --folded's totals go to stderr, its stdout stays stacks only, and
 *    with 2>&1 the totals never land inside a stack's line.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "expect.h"

#include "lib/capture/capture.h"
#include "synth.h"

static char kprofcat[512];

static const char kallsyms[] = "ffffffff81000000 T _stext\nffffffff81001000 T do_syscall_64\n";

struct result {
	int status;
	char out[16384], err[4096];
};

/* Run "cd DIR && kprofcat ARGS" (as nobody: AS_NOBODY), output in R. */
static void run_as(struct result *r, int as_nobody, const char *dir, const char *fmt, va_list ap)
{
	char args[1024], cmd[4096], outp[128], errp[128];
	FILE *f;
	size_t n;

	vsnprintf(args, sizeof(args), fmt, ap);
	snprintf(outp, sizeof(outp), "%s/out.txt", dir);
	snprintf(errp, sizeof(errp), "%s/err.txt", dir);
	snprintf(cmd, sizeof(cmd), "%scd %s && %s %s%s >%s 2>%s",
		 as_nobody ? "su nobody -s /bin/sh -c '" : "",
		 dir, kprofcat, args, as_nobody ? "'" : "", outp, errp);
	r->status = system(cmd);
	r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	r->out[0] = '\0';
	r->err[0] = '\0';
	f = fopen(outp, "r");
	if (f) {
		n = fread(r->out, 1, sizeof(r->out) - 1, f);
		r->out[n] = '\0';
		fclose(f);
	}
	f = fopen(errp, "r");
	if (f) {
		n = fread(r->err, 1, sizeof(r->err) - 1, f);
		r->err[n] = '\0';
		fclose(f);
	}
}

static void run(struct result *r, const char *dir, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run_as(r, 0, dir, fmt, ap);
	va_end(ap);
}

static void run_nobody(struct result *r, const char *dir, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	run_as(r, 1, dir, fmt, ap);
	va_end(ap);
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)); text++)
		n++;
	return n;
}

/*
 * DIR/c.kpcap: 2 CPUs, 12 samples (i odd on CPU 1), pid 100 + i % 2,
 * tid 1000 + i % 3, comm "a" or "b" (i % 2), every fourth in user mode.
 */
static int write_capture(const char *path)
{
	static const char meta[] = "event=cpu-clock\nsample=4000\nfreq=1\nnr_cpus=2\n";
	struct capture_writer *w = capture__create(path);
	unsigned char buf[256];
	uint64_t ips[2] = { 0xffffffff81001010ULL, 0x401000 };
	int i;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1) ||
	    capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (i = 0; i < 12; i++) {
		int user = i % 4 == 0;
		size_t n = synth_sample(buf, i + 1, 1000000000ULL + i * 1000, i % 2, 100 + i % 2,
					i % 2 ? "b" : "a", user ? KPROF_MISC_USER : 0,
					user ? ips + 1 : ips, !user, user);

		((struct kprof_sample *)buf)->tid = 1000 + i % 3;
		if (capture__add_record(w, i % 2, buf, n))
			return -1;
	}
	return capture__close(w);
}

FIXTURE(cli) {
	char dir[64];
	char cap[128];
};

FIXTURE_SETUP(cli)
{
	/* KPROF_TREE: the tree this test was built from (tests/Makefile). */
	snprintf(kprofcat, sizeof(kprofcat), "%s/user/kprofcat", KPROF_TREE);
	if (access(kprofcat, X_OK))
		SKIP(return, "no user/kprofcat (make user first)");
	snprintf(self->dir, sizeof(self->dir), "/tmp/kprofcat-cli-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	chmod(self->dir, 0755);
	snprintf(self->cap, sizeof(self->cap), "%s/c.kpcap", self->dir);
	ASSERT_EQ(0, write_capture(self->cap));
}

FIXTURE_TEARDOWN(cli)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

TEST_F(cli, file_errors_say_what_is_wrong)
{
	struct result r;
	char path[256];
	FILE *f;

	run(&r, self->dir, "nosuch.kpcap");
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("kprofcat: error: cannot read capture file nosuch.kpcap: No such file or directory\n",
		     r.err);
	run(&r, self->dir, "-i /nonexistent");
	EXPECT_STREQ("kprofcat: error: cannot read capture file /nonexistent: No such file or directory\n",
		     r.err);
	run(&r, self->dir, "-i /tmp");
	EXPECT_HAS(r.err, "/tmp is a directory, not a capture file");
	run(&r, self->dir, "/tmp");
	EXPECT_HAS(r.err, "/tmp is a directory, not a capture file");
	snprintf(path, sizeof(path), "%s/empty", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fclose(f);
	run(&r, self->dir, "-i empty");
	EXPECT_HAS(r.err, "empty is empty, not a kprofcat capture");
	snprintf(path, sizeof(path), "%s/text", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("hello, world\n", f);
	fclose(f);
	run(&r, self->dir, "text");
	EXPECT_EQ(1, r.status);
	EXPECT_HAS(r.err, "text is not a kprofcat capture: it does not start with \"KPROFCAP\"");
	/* A path under /dev is the device: its absence means no module. */
	run(&r, self->dir, "/dev/kprof-nosuch");
	EXPECT_NE(NULL, strstr(r.err, "load the module first")) TH_LOG("%s", r.err);
}

TEST_F(cli, an_unreadable_capture_is_a_permission_error)
{
	struct result r;

	ASSERT_EQ(0, chmod(self->cap, 0));
	chmod(self->dir, 0777);		/* nobody writes out.txt and err.txt there */
	if (!geteuid() && system("su nobody -s /bin/sh -c true 2>/dev/null"))
		SKIP(return, "root reads anything, and cannot run as nobody");
	/* root reads anything: read it as nobody. */
	if (geteuid()) {
		run(&r, self->dir, "-i c.kpcap");
	} else {
		char cmd[sizeof(kprofcat) + 300];

		/* The checkout may be where nobody cannot go (a 0700 clone dir). */
		snprintf(cmd, sizeof(cmd), "cp %s %s/kprofcat", kprofcat, self->dir);
		ASSERT_EQ(0, system(cmd));
		snprintf(kprofcat, sizeof(kprofcat), "%s/kprofcat", self->dir);
		run_nobody(&r, self->dir, "-i c.kpcap");
	}
	EXPECT_EQ(1, r.status);
	EXPECT_NE(NULL, strstr(r.err, "cannot read capture file")) TH_LOG("%s", r.err);
	EXPECT_HAS(r.err, ": Permission denied (read it as its owner or root)");
}

TEST_F(cli, perfs_verbs_are_the_modes)
{
	struct result r;

	run(&r, self->dir, "script -i c.kpcap");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(12, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
	run(&r, self->dir, "report -i c.kpcap");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "# Samples: 12 of event 'cpu-clock'\n")) TH_LOG("%s", r.out);
	run(&r, self->dir, "stat -i c.kpcap");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "reader: 12 samples")) TH_LOG("%s", r.out);
	run(&r, self->dir, "report --folded -i c.kpcap");
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "'kprofcat report' picks the output")) TH_LOG("%s", r.err);
	run(&r, self->dir, "record -i c.kpcap");
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "'kprofcat record' writes a capture")) TH_LOG("%s", r.err);
}

TEST_F(cli, verbs_read_kprof_kpcap_by_default)
{
	struct result r;
	char path[256];

	run(&r, self->dir, "report");
	EXPECT_EQ(1, r.status);
	EXPECT_STREQ("kprofcat: error: cannot read capture file kprof.kpcap: No such file or directory\n",
		     r.err);
	snprintf(path, sizeof(path), "%s/kprof.kpcap", self->dir);
	ASSERT_EQ(0, rename(self->cap, path));
	run(&r, self->dir, "report");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "# Samples: 12 of event 'cpu-clock'\n")) TH_LOG("%s", r.out);
	run(&r, self->dir, "script -p 101");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(6, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
}

TEST_F(cli, i_applies_the_sample_filters)
{
	struct result r;

	run(&r, self->dir, "-i c.kpcap -C 1");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(6, count(r.out, " cpu-clock: \n"));
	EXPECT_EQ(0, count(r.out, "[000]")) TH_LOG("%s", r.out);
	run(&r, self->dir, "-i c.kpcap --user-only");
	EXPECT_EQ(3, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
	EXPECT_EQ(0, count(r.out, "do_syscall_64")) TH_LOG("%s", r.out);
	run(&r, self->dir, "-i c.kpcap --kernel-only");
	EXPECT_EQ(9, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
	run(&r, self->dir, "-i c.kpcap --tid 1002");
	EXPECT_EQ(4, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
	EXPECT_EQ(4, count(r.out, "/1002 ")) TH_LOG("%s", r.out);
	run(&r, self->dir, "-i c.kpcap --comm b");
	EXPECT_EQ(6, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
	EXPECT_EQ(0, count(r.out, "\na ")) TH_LOG("%s", r.out);
	run(&r, self->dir, "-i c.kpcap -p 100");
	EXPECT_EQ(6, count(r.out, " cpu-clock: \n")) TH_LOG("%s", r.out);
	run(&r, self->dir, "--report -i c.kpcap -C 0 --comm a --tid 1000");
	EXPECT_NE(NULL, strstr(r.out, "# Samples: 2 of event")) TH_LOG("%s", r.out);
}

TEST_F(cli, i_refuses_what_it_cannot_apply)
{
	static const char *const opts[] = { "-F 100", "-c 1000", "-e cycles", "-a",
					    "--buffer-pages 8", "--watermark 4096",
					    "--call-graph dwarf", "--call-graph=dwarf,4096",
					    "-g fp" };
	struct result r;
	size_t i;

	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		run(&r, self->dir, "-i c.kpcap %s", opts[i]);
		EXPECT_EQ(2, r.status) TH_LOG("%s was accepted with -i", opts[i]);
		EXPECT_NE(NULL, strstr(r.err, "only applies to recording"))
			TH_LOG("%s: %s", opts[i], r.err);
	}
	run(&r, self->dir, "-i c.kpcap --sort sym");
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "--sort only applies to --report")) TH_LOG("%s", r.err);
	run(&r, self->dir, "-i c.kpcap -g");
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "-g with -i only applies to --report")) TH_LOG("%s", r.err);
	run(&r, self->dir, "-o x.kpcap --tid 5 -- true");
	EXPECT_EQ(2, r.status);
	EXPECT_HAS(r.err, "--tid filters what is read: with -o alone");
}

/*
 * --call-graph dwarf,SIZE: perf record's rule for the dump size, named in
 * the refusal; the report's orders still parse beside the record modes.
 */
TEST_F(cli, call_graph_dwarf_size_follows_perfs_rule)
{
	static const char *const bad[] = { "dwarf,0", "dwarf,12", "dwarf,65536", "dwarf,",
					   "dwarf,x", "dwarf,-8", "dwarfy" };
	struct result r;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		run(&r, self->dir, "--call-graph=%s -i c.kpcap", bad[i]);
		EXPECT_EQ(2, r.status) TH_LOG("--call-graph %s was accepted", bad[i]);
		if (strncmp(bad[i], "dwarf,", 6))
			EXPECT_HAS(r.err, "use caller or callee (the report's order), fp or dwarf[,SIZE]");
		else
			EXPECT_HAS(r.err, "the stack dump size is a multiple of 8, from 8 to 65528");
	}
	/* Good sizes get as far as -i's refusal of a recording option. */
	run(&r, self->dir, "--call-graph dwarf,65528 -i c.kpcap");
	EXPECT_HAS(r.err, "--call-graph dwarf only applies to recording");
	run(&r, self->dir, "--call-graph=dwarf,8 -i c.kpcap");
	EXPECT_HAS(r.err, "--call-graph dwarf only applies to recording");
	run(&r, self->dir, "-i c.kpcap --report -g callee");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
}

TEST_F(cli, folded_totals_go_to_stderr)
{
	struct result r;

	run(&r, self->dir, "--folded -i c.kpcap");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(0, count(r.out, "#")) TH_LOG("%s", r.out);
	EXPECT_HAS(r.err, "kprofcat: folded 12 samples of cpu-clock (period 12036108); lost 0 (full 0, nested 0, stopped 0, throttled 0); 0 throttles, 0 rate lowerings\n");
}

/*
 * DIR/big.kpcap: 600 samples, each its own comm, so --folded prints 600
 * lines, several times stdout's buffer.  With 2>&1 both streams share
 * one file: a message to stderr while the buffer held part of a line
 * would cut that line in two.
 */
static int write_big_capture(const char *path)
{
	static const char meta[] = "event=cpu-clock\nsample=4000\nfreq=1\nnr_cpus=1\n";
	struct capture_writer *w = capture__create(path);
	uint64_t ips[1] = { 0xffffffff81001010ULL };
	unsigned char buf[256];
	char comm[9];
	int i;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1) ||
	    capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (i = 0; i < 600; i++) {
		size_t n;

		snprintf(comm, sizeof(comm), "comm%04d", i);
		n = synth_sample(buf, i + 1, 1000000000ULL + i * 1000, 0, 100, comm,
				 0, ips, 1, 0);
		if (capture__add_record(w, 0, buf, n))
			return -1;
	}
	return capture__close(w);
}

TEST_F(cli, folded_lines_stay_whole_with_stderr_merged)
{
	char path[160], cmd[1024], line[4096];
	int lines = 0, bad = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/big.kpcap", self->dir);
	ASSERT_EQ(0, write_big_capture(path));
	snprintf(cmd, sizeof(cmd), "cd %s && %s --folded -i big.kpcap >both.txt 2>&1",
		 self->dir, kprofcat);
	ASSERT_EQ(0, system(cmd));
	snprintf(path, sizeof(path), "%s/both.txt", self->dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		char *sp = strrchr(line, ' ');

		if (!strncmp(line, "kprofcat: ", 10))
			continue;
		lines++;
		/* "comm;frames COUNT": a comm first, a count last. */
		if (strncmp(line, "comm", 4) || !sp ||
		    strspn(sp + 1, "0123456789\n") != strlen(sp + 1)) {
			if (!bad++)
				TH_LOG("a cut line: %s", line);
		}
	}
	fclose(f);
	EXPECT_EQ(600, lines);
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
