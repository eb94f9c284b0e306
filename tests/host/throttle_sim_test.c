// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_sim_test.c - `kprofcat throttle-sim` on crafted traces: exact
 * stdout (a format scripts parse, fixed by sim_usage()), exit status and error messages.
 *
 * Runs user/kprofcat of the tree it was built from (or $KPROFCAT).  The
 * expected numbers are worked out by hand in the comments, from
 * kernel/events/core.c's formulas, not from the code under test.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "kselftest_harness.h"

#define SIM_OUT_MAX	8192

FIXTURE(sim) {
	char kprofcat[PATH_MAX];
	char out[SIM_OUT_MAX];
	char err[SIM_OUT_MAX];
};

/* The fixture's data, for run_sim(). */
typedef FIXTURE_DATA(sim) sim_data;

FIXTURE_SETUP(sim)
{
	const char *env = getenv("KPROFCAT");

	if (env)
		snprintf(self->kprofcat, sizeof(self->kprofcat), "%s", env);
	else	/* the tree this test was built from (tests/Makefile) */
		snprintf(self->kprofcat, sizeof(self->kprofcat),
			 "%s/user/kprofcat", KPROF_TREE);
	ASSERT_EQ(0, access(self->kprofcat, X_OK))
		TH_LOG("kprofcat not built at %s (make user, or set KPROFCAT)",
		       self->kprofcat);
}

FIXTURE_TEARDOWN(sim)
{
}

static void slurp(FILE *f, char *buf, size_t size)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
}

/*
 * Run `kprofcat throttle-sim ARGS...` with @input on stdin; stdout and
 * stderr land in self->out / self->err.  Returns the exit status, or -1.
 */
static int run_sim(sim_data *self, const char *input, ...)
{
	char *argv[16];
	FILE *in, *out, *err;
	int argc = 0, status;
	va_list ap;
	pid_t pid;

	argv[argc++] = self->kprofcat;
	argv[argc++] = "throttle-sim";
	va_start(ap, input);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;

	in = tmpfile();
	out = tmpfile();
	err = tmpfile();
	if (!in || !out || !err)
		return -1;
	fputs(input, in);
	fflush(in);
	rewind(in);

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fileno(in), 0);
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;

	slurp(out, self->out, sizeof(self->out));
	slurp(err, self->err, sizeof(self->err));
	fclose(in);
	fclose(out);
	fclose(err);
	return WEXITSTATUS(status);
}

#define SUMMARY(i, s, td, ts, lw, rate, mpt, allowed)			\
	"summary interrupts=" #i " samples=" #s " throttled=" #td	\
	" throttles=" #ts " lowered=" #lw " max_sample_rate=" #rate	\
	" max_samples_per_tick=" #mpt " allowed_ns=" #allowed "\n"

/* HZ 1000, 3000/s: 3 per tick (period 333333 ns, allowed 83333 ns). */
static const char three_per_tick[] =
	"0 1\n1 1\n2 1\n10 1\n1000000 1\n";

/*
 * ge: the 3rd interrupt of tick 0 stops (and is sampled), the 4th does
 * not happen, the event restarts at 1000000.
 */
TEST_F(sim, ge_third_interrupt_stops)
{
	ASSERT_EQ(0, run_sim(self, three_per_tick, "--hz", "1000",
			     "--max-sample-rate", "3000", NULL));
	ASSERT_STREQ("throttle t=2 tick=0 interrupts=3\n"
		     "unthrottle t=1000000\n"
		     SUMMARY(5, 4, 1, 1, 0, 3000, 3, 83333), self->out);
	ASSERT_STREQ("", self->err);
}

/* gt (before f51972e6): count > max, so the 4th stops; none is lost. */
TEST_F(sim, gt_fourth_interrupt_stops)
{
	ASSERT_EQ(0, run_sim(self, three_per_tick, "--hz", "1000",
			     "--max-sample-rate", "3000", "--semantics", "gt",
			     NULL));
	ASSERT_STREQ("throttle t=10 tick=0 interrupts=4\n"
		     "unthrottle t=1000000\n"
		     SUMMARY(5, 5, 0, 1, 0, 3000, 3, 83333), self->out);
}

/* shadow: never stops, marks where ge would have, once per tick. */
TEST_F(sim, shadow_marks_once_per_tick)
{
	ASSERT_EQ(0, run_sim(self, three_per_tick, "--hz", "1000",
			     "--max-sample-rate", "3000", "--semantics",
			     "shadow", NULL));
	ASSERT_STREQ("would-throttle t=2 tick=0 interrupts=3\n"
		     SUMMARY(5, 5, 0, 1, 0, 3000, 3, 83333), self->out);
}

/*
 * 1000/s at HZ 1000: one per tick, allowed 1000000 * 25 / 100 = 250000.
 * The unthrottle is reported when the next line is read, before that
 * line's own output, at the start of the tick after the throttling one
 * (1000000), even when the line is two ticks later.  A throttle on the
 * last line has no unthrottle.
 */
TEST_F(sim, unthrottle_is_lazy)
{
	ASSERT_EQ(0, run_sim(self, "5 1\n2500000 1\n3000000 1\n",
			     "--hz", "1000", "--max-sample-rate", "1000",
			     NULL));
	ASSERT_STREQ("throttle t=5 tick=0 interrupts=1\n"
		     "unthrottle t=1000000\n"
		     "throttle t=2500000 tick=2 interrupts=1\n"
		     "unthrottle t=3000000\n"
		     "throttle t=3000000 tick=3 interrupts=1\n"
		     SUMMARY(3, 3, 0, 3, 0, 1000, 1, 250000), self->out);
}

/*
 * An interrupt while throttled does not happen: its cost (1 s here) is
 * not fed, so nothing is lowered.
 */
TEST_F(sim, throttled_cost_not_fed)
{
	ASSERT_EQ(0, run_sim(self, "0 1\n1 1000000000\n",
			     "--hz", "1000", "--max-sample-rate", "1000",
			     NULL));
	ASSERT_STREQ("throttle t=0 tick=0 interrupts=1\n"
		     SUMMARY(2, 1, 1, 1, 0, 1000, 1, 250000), self->out);
}

/*
 * The throttling interrupt is sampled, so its cost is fed: 64000000 / 128
 * = 500000 > 250000; margin 625000 >= 25% of the tick (250000): max 1,
 * rate 1 x 1000; allowed becomes 625000.
 */
TEST_F(sim, throttling_cost_fed)
{
	ASSERT_EQ(0, run_sim(self, "0 64000000\n",
			     "--hz", "1000", "--max-sample-rate", "1000",
			     NULL));
	ASSERT_STREQ("throttle t=0 tick=0 interrupts=1\n"
		     "lower t=0 avg=500000 allowed=250000 max_samples_per_tick=1 max_sample_rate=1000\n"
		     SUMMARY(1, 1, 0, 1, 1, 1000, 1, 625000), self->out);
}

/*
 * Defaults (HZ 250, 100000/s, 25%: allowed 2500).  400000 / 128 = 3125 >
 * 2500; margin 3125 + 781 = 3906; 4000000 / 100 * 25 = 1000000; 1000000 /
 * 3906 = 256 per tick, 64000/s.  Next: 400000 - 3125 + 400000 = 796875,
 * / 128 = 6225 > 3906; margin 6225 + 1556 = 7781; 1000000 / 7781 = 128,
 * 32000/s.  Comments and blank lines are ignored.
 */
TEST_F(sim, lowerings)
{
	ASSERT_EQ(0, run_sim(self,
			     "# time cost\n\n  0 400000   # first\n\t\n1\t400000\n",
			     NULL));
	ASSERT_STREQ("lower t=0 avg=3125 allowed=2500 max_samples_per_tick=256 max_sample_rate=64000\n"
		     "lower t=1 avg=6225 allowed=3906 max_samples_per_tick=128 max_sample_rate=32000\n"
		     SUMMARY(2, 2, 0, 0, 2, 32000, 128, 7781), self->out);
}

/* pct 0 and 100 switch the cost controller off: allowed 0, no lowering. */
TEST_F(sim, cost_controller_off)
{
	static const char *const pcts[] = { "0", "100" };
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, run_sim(self, "0 400000\n1 400000\n",
				     "--cpu-time-max-percent", pcts[i], NULL));
		ASSERT_STREQ(SUMMARY(2, 2, 0, 0, 0, 100000, 400, 0),
			     self->out);
		ASSERT_NE(NULL, strstr(self->err, "cost controller off"));
		/* writing the default rate is no write: accepted */
		ASSERT_EQ(0, run_sim(self, "",
				     "--cpu-time-max-percent", pcts[i],
				     "--max-sample-rate", "100000", NULL));
		/* any other rate is refused, as the sysctl does */
		ASSERT_EQ(2, run_sim(self, "",
				     "--cpu-time-max-percent", pcts[i],
				     "--max-sample-rate", "50000", NULL));
		ASSERT_STREQ("", self->out);
		ASSERT_NE(NULL, strstr(self->err, "EINVAL"));
	}
}

/*
 * The kernel computes DIV_ROUND_UP(rate, HZ) in int: INT_MAX + 999 wraps
 * to -2147482650, / 1000 = -2147482, and the u64 comparison never trips.
 * Period 1e9 / INT_MAX = 0, so allowed is the minimum 1.
 */
TEST_F(sim, int_max_rate_wraps_like_the_kernel)
{
	char input[8192] = "";
	int i;

	for (i = 0; i < 500; i++)
		snprintf(input + strlen(input), sizeof(input) - strlen(input),
			 "%d 0\n", i);
	ASSERT_EQ(0, run_sim(self, input, "--hz", "1000",
			     "--max-sample-rate", "2147483647", NULL));
	ASSERT_STREQ(SUMMARY(500, 500, 0, 0, 0, 2147483647, -2147482, 1),
		     self->out);
}

/* Equal timestamps are fine; a decreasing one names its line. */
/*
 * A TICK column (the module's SAMPLE tick: the kernel's tick count for PMU
 * events) replaces TIMESTAMP_NS / TICK_NSEC: tick 5 holds the throttle
 * five ticks of time on, tick 6 lets go a nanosecond later, and the
 * unthrottle is that line's time.
 */
TEST_F(sim, given_ticks)
{
	ASSERT_EQ(0, run_sim(self,
			     "0 1 5\n1 1 5\n2 1 5\n10 1 5\n5000000 1 5\n5000001 1 6\n",
			     "--hz", "1000", "--max-sample-rate", "3000", NULL));
	ASSERT_STREQ("throttle t=2 tick=5 interrupts=3\n"
		     "unthrottle t=5000001\n"
		     SUMMARY(6, 4, 2, 1, 0, 3000, 3, 83333), self->out);
	ASSERT_STREQ("", self->err);
}

TEST_F(sim, decreasing_timestamp)
{
	ASSERT_EQ(0, run_sim(self, "7 1\n7 1\n", NULL));
	ASSERT_EQ(2, run_sim(self, "7 1\n# c\n6 1\n8 1\n", NULL));
	ASSERT_STREQ("", self->out);
	ASSERT_NE(NULL, strstr(self->err, "line 3:")) TH_LOG("%s", self->err);
	ASSERT_NE(NULL, strstr(self->err, "before the previous"));
}

TEST_F(sim, malformed_lines)
{
	static const char *const bad[] = {
		"0 1\nabc 1\n",
		"0 1\n5\n",
		"0 1\n5 1 2\n",
		"0 1\n-5 1\n",
		"0 1\n5 -1\n",
		"0 1\n5 1.5\n",
		"0 1\n18446744073709551616 1\n",
		"0 1\n0x10 1\n",
		"0 1 0\n5 1\n",
		"0 1 0\n5 1 x\n",
		"0 1 0\n5 1 2 3\n",
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ASSERT_EQ(2, run_sim(self, bad[i], NULL))
			TH_LOG("input %u", i);
		ASSERT_STREQ("", self->out);
		ASSERT_NE(NULL, strstr(self->err, "line 2:"))
			TH_LOG("input %u: %s", i, self->err);
	}
}

TEST_F(sim, bad_options)
{
	ASSERT_EQ(2, run_sim(self, "", "--hz", "0", NULL));
	ASSERT_NE(NULL, strstr(self->err, "--hz"));
	ASSERT_EQ(2, run_sim(self, "", "--hz", "25o", NULL));
	ASSERT_EQ(2, run_sim(self, "", "--hz", NULL));
	ASSERT_NE(NULL, strstr(self->err, "needs a value"));
	ASSERT_EQ(2, run_sim(self, "", "--max-sample-rate", "0",
			     NULL));
	ASSERT_EQ(2, run_sim(self, "", "--max-sample-rate",
			     "2147483648", NULL));
	ASSERT_EQ(2, run_sim(self, "", "--cpu-time-max-percent",
			     "101", NULL));
	ASSERT_NE(NULL, strstr(self->err, "--cpu-time-max-percent"));
	ASSERT_EQ(2, run_sim(self, "", "--semantics", "lt", NULL));
	ASSERT_NE(NULL, strstr(self->err, "ge, gt, shadow"));
	ASSERT_EQ(2, run_sim(self, "", "--frobnicate", NULL));
	ASSERT_NE(NULL, strstr(self->err, "--frobnicate"));
	ASSERT_EQ(2, run_sim(self, "", "trace.txt", NULL));
	ASSERT_NE(NULL, strstr(self->err, "trace.txt"));
	ASSERT_STREQ("", self->out);
}

TEST_HARNESS_MAIN
