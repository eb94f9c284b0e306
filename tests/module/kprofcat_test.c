// SPDX-License-Identifier: GPL-2.0
/*
 * kprofcat_test: issue 5's acceptance, in the test-bed VM (cwd = repo,
 * kprof.ko loaded, root):
 *  - `kprofcat -e cpu-clock -F 997 -g --folded -- tests/progs/hot3 3`:
 *    hot_a/hot_b/hot_c shares within 5 points of 60/30/10, and their
 *    stacks reach main through the right callers;
 *  - the default output passes the stackcollapse-perf, speedscope and
 *    Firefox Profiler line grammars (tests/host/grammar.h);
 *  - a capture (-o) replays (-i) to the same text, also once the profiled
 *    binary is gone (symbols come from the capture);
 *  - a process that exits within 50 ms is symbolized (side band);
 *  - errors: unknown event, bad option, a hardware event without a PMU.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#include "../host/grammar.h"

#define KPROFCAT	"user/kprofcat"
#define HOT3		"tests/progs/hot3"

/* Run CMD with sh, stdout into *OUT (malloc'd), stderr into *ERR. */
static int run(const char *cmd, char **out, char **err)
{
	char full[1024], errpath[] = "/tmp/kprofcat_test.err.XXXXXX";
	size_t cap = 1 << 16, len = 0, n;
	FILE *p, *e;
	int fd = mkstemp(errpath), status;

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(full, sizeof(full), "%s 2>%s", cmd, errpath);
	p = popen(full, "r");
	if (!p)
		return -1;
	*out = malloc(cap + 1);
	while ((n = fread(*out + len, 1, cap - len, p)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			*out = realloc(*out, cap + 1);
		}
	}
	(*out)[len] = '\0';
	status = pclose(p);
	e = fopen(errpath, "r");
	*err = calloc(1, 8192);
	if (e) {
		n = fread(*err, 1, 8191, e);
		(*err)[n] = '\0';
		fclose(e);
	}
	unlink(errpath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void need_device(struct __test_metadata *_metadata)
{
	if (access("/dev/kprof", F_OK))
		SKIP(return, "no /dev/kprof (kprof.ko not loaded)");
}

TEST(hot3_shares_and_callers)
{
	unsigned long a = 0, b = 0, c = 0, a_chain = 0, b_chain = 0, c_chain = 0;
	char *out, *err, *line, *save = NULL;
	double sa, sb, sc, total;

	need_device(_metadata);
	ASSERT_EQ(0, run(KPROFCAT " -e cpu-clock -F 997 -g --folded -- " HOT3 " 3", &out, &err))
		TH_LOG("%s", err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		unsigned long n;

		if (!sp || strncmp(line, "hot3;", 5))
			continue;
		n = strtoul(sp + 1, NULL, 10);
		*sp = '\0';
		/* Leaf is the hot function (kernel frames may follow it). */
		if (strstr(line, ";hot_a")) {
			a += n;
			if (strstr(line, ";main;run;stage_a;hot_a"))
				a_chain += n;
		} else if (strstr(line, ";hot_b")) {
			b += n;
			if (strstr(line, ";main;run;stage_b;mix_b;hot_b"))
				b_chain += n;
		} else if (strstr(line, ";hot_c")) {
			c += n;
			if (strstr(line, ";main;run;stage_c;hot_c"))
				c_chain += n;
		}
	}
	total = a + b + c;
	ASSERT_GT(total, 500) TH_LOG("only %.0f samples in hot functions; stderr: %s", total, err);
	sa = 100 * a / total;
	sb = 100 * b / total;
	sc = 100 * c / total;
	TH_LOG("hot_a %.1f%% hot_b %.1f%% hot_c %.1f%% of %.0f samples; full chains %lu/%lu %lu/%lu %lu/%lu",
	       sa, sb, sc, total, a_chain, a, b_chain, b, c_chain, c);
	EXPECT_LT(abs((int)(sa - 60)), 5);
	EXPECT_LT(abs((int)(sb - 30)), 5);
	EXPECT_LT(abs((int)(sc - 10)), 5);
	/* Samples in a prologue lose one caller; nearly all reach main. */
	EXPECT_GE(a_chain * 100, a * 95);
	EXPECT_GE(b_chain * 100, b * 95);
	EXPECT_GE(c_chain * 100, c * 95);
	free(out);
	free(err);
}

TEST(default_output_passes_the_parsers_grammars)
{
	struct grammar_result g;
	char *out, *err;

	need_device(_metadata);
	ASSERT_EQ(0, run(KPROFCAT " -e cpu-clock -F 997 -g -- " HOT3 " 1", &out, &err))
		TH_LOG("%s", err);
	ASSERT_EQ(0, grammar_check(out, &g)) TH_LOG("%s", g.err);
	TH_LOG("%lu samples, %lu frames, %lu comment blocks", g.samples, g.frames, g.comments);
	EXPECT_GT(g.samples, 300);
	free(out);
	free(err);
}

TEST(capture_replays_to_the_same_text_without_the_binary)
{
	char *out1, *out2, *out3, *err;

	need_device(_metadata);
	ASSERT_EQ(0, run("cp " HOT3 " /tmp/hot3.copy && " KPROFCAT
			 " -F 997 -g -o /tmp/kprofcat_test.cap -- /tmp/hot3.copy 1", &out1, &err))
		TH_LOG("%s", err);
	free(out1);
	free(err);
	ASSERT_EQ(0, run(KPROFCAT " -i /tmp/kprofcat_test.cap", &out1, &err)) TH_LOG("%s", err);
	free(err);
	EXPECT_NE(NULL, strstr(out1, " hot_a+0x")) TH_LOG("no hot_a frame in the replay");
	ASSERT_EQ(0, unlink("/tmp/hot3.copy"));
	ASSERT_EQ(0, run(KPROFCAT " -i /tmp/kprofcat_test.cap", &out2, &err)) TH_LOG("%s", err);
	free(err);
	EXPECT_STREQ(out1, out2);
	/* And the positional FILE form reads captures too. */
	ASSERT_EQ(0, run(KPROFCAT " /tmp/kprofcat_test.cap", &out3, &err)) TH_LOG("%s", err);
	EXPECT_STREQ(out1, out3);
	unlink("/tmp/kprofcat_test.cap");
	free(out1);
	free(out2);
	free(out3);
	free(err);
}

TEST(short_lived_process_is_symbolized)
{
	struct timespec t0, t1;
	char *out, *err;
	pid_t rec, prog;
	int status;
	double ms;

	need_device(_metadata);
	rec = fork();
	ASSERT_GE(rec, 0);
	if (!rec) {
		if (!freopen("/tmp/kprofcat_short.out", "w", stdout))
			_exit(126);
		execl(KPROFCAT, "kprofcat", "-a", "-F", "997", "-g", "--duration", "4",
		      "--folded", (char *)NULL);
		_exit(127);
	}
	sleep(2);	/* kprofcat is up and sampling */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	prog = fork();
	ASSERT_GE(prog, 0);
	if (!prog) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execl(HOT3, "hot3", "0.01", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(prog, waitpid(prog, &status, 0));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	ASSERT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, run("grep '^hot3;' /tmp/kprofcat_short.out", &out, &err));
	TH_LOG("hot3 lived %.1f ms; its stacks:\n%s", ms, out);
	EXPECT_NE(NULL, strstr(out, ";main;run;stage_"));
	unlink("/tmp/kprofcat_short.out");
	free(out);
	free(err);
}

TEST(errors_name_the_problem)
{
	char *out, *err;

	need_device(_metadata);
	EXPECT_EQ(2, run(KPROFCAT " -e no-such-event --duration 1", &out, &err));
	EXPECT_NE(NULL, strstr(err, "unknown event 'no-such-event'")) TH_LOG("%s", err);
	free(out);
	free(err);
	EXPECT_EQ(2, run(KPROFCAT " --frobnicate", &out, &err));
	free(out);
	free(err);
	EXPECT_EQ(1, run(KPROFCAT " /dev/no-such-kprof --duration 1", &out, &err));
	EXPECT_NE(NULL, strstr(err, "insmod kmod/kprof.ko")) TH_LOG("%s", err);
	free(out);
	free(err);
	/* Under TCG there is no PMU: a clean error, not a hang or an oops. */
	if (run(KPROFCAT " -e cycles --duration 1 --stats", &out, &err) == 1)
		EXPECT_NE(NULL, strstr(err, "event 'cycles'")) TH_LOG("%s", err);
	free(out);
	free(err);
}

TEST(stats_json)
{
	char *out, *err;

	need_device(_metadata);
	ASSERT_EQ(0, run(KPROFCAT " -F 997 --stats --json --duration 1", &out, &err)) TH_LOG("%s", err);
	EXPECT_EQ(0, strncmp(out, "{\"cpus\":[{\"cpu\":0,\"overflows\":", 30)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"reader\":{\"seconds\":"));
	free(out);
	free(err);
}

TEST_HARNESS_MAIN
