// SPDX-License-Identifier: GPL-2.0
/*
 * params_test: kprofcat's handling of kprof.ko's parameters and knobs that
 * needs no module:
 *  - the insmod defaults read from a parameters directory built in a
 *    temporary directory (user/lib/dev/kparams.c): values left at the module's own
 *    defaults read as not given;
 *  - the knob writes and their errors (a missing module);
 *  - event modifiers :u and :k (user/lib/dev/config.c);
 *  - the end-of-run totals (out_summary__kernel_totals()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/kprof.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"

#include "lib/dev/config.h"
#include "lib/dev/kparams.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static const char *read_back(const char *dir, const char *name)
{
	static char buf[64];
	char path[4096];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

FIXTURE(params) {
	char dir[64];
};

FIXTURE_SETUP(params)
{
	strcpy(self->dir, "/tmp/params_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	kparams__set_dir(self->dir);
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(params)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
	p_set_quiet(0);
}

/* What insmod kprof.ko with no parameters shows. */
static void put_module_defaults(const char *dir)
{
	put(dir, "freq", "0\n");
	put(dir, "period", "0\n");
	put(dir, "buffer_pages", "64\n");
	put(dir, "watermark", "0\n");
	put(dir, "event", "cpu-clock\n");
	put(dir, "cpus", "\n");
	put(dir, "exclude_user", "N\n");
	put(dir, "exclude_kernel", "N\n");
}

TEST_F(params, no_module_no_defaults)
{
	struct kparams_defaults d;

	EXPECT_EQ(-ENOENT, kparams__defaults(&d));
	EXPECT_EQ(-ENOENT, kparams__set_knob("--max-sample-rate", "max_sample_rate", "5000"));
}

TEST_F(params, module_defaults_read_as_not_given)
{
	struct kparams_defaults d;

	put_module_defaults(self->dir);
	ASSERT_EQ(0, kparams__defaults(&d));
	EXPECT_EQ(0ULL, d.freq);
	EXPECT_EQ(0ULL, d.period);
	EXPECT_EQ(0U, d.buffer_pages);
	EXPECT_EQ(0U, d.watermark);
	EXPECT_STREQ("", d.event);
	EXPECT_STREQ("", d.cpus);
	EXPECT_EQ(0, d.exclude_user);
	EXPECT_EQ(0, d.exclude_kernel);
}

TEST_F(params, insmod_values_are_read)
{
	struct kparams_defaults d;

	put_module_defaults(self->dir);
	put(self->dir, "freq", "100\n");
	put(self->dir, "buffer_pages", "128\n");
	put(self->dir, "event", "task-clock\n");
	put(self->dir, "cpus", "0-1\n");
	put(self->dir, "exclude_kernel", "Y\n");
	ASSERT_EQ(0, kparams__defaults(&d));
	EXPECT_EQ(100ULL, d.freq);
	EXPECT_EQ(128U, d.buffer_pages);
	EXPECT_STREQ("task-clock", d.event);
	EXPECT_STREQ("0-1", d.cpus);
	EXPECT_EQ(1, d.exclude_kernel);
}

TEST_F(params, knob_write)
{
	put(self->dir, "max_sample_rate", "100000\n");
	ASSERT_EQ(0, kparams__set_knob("--max-sample-rate", "max_sample_rate", "5000"));
	EXPECT_STREQ("5000", read_back(self->dir, "max_sample_rate"));
}

TEST(modifiers)
{
	struct kprof_config c = { .size = sizeof(c) };
	int given;

	p_set_quiet(1);
	ASSERT_EQ(0, config__parse_event(&c, "cpu-clock:u", &given));
	EXPECT_EQ((__u32)PERF_TYPE_SOFTWARE, c.type);
	EXPECT_EQ(KPROF_CFG_EXCLUDE_KERNEL, c.flags);
	ASSERT_EQ(0, config__parse_event(&c, "cpu-clock:k", &given));
	EXPECT_EQ(KPROF_CFG_EXCLUDE_USER, c.flags);
	ASSERT_EQ(0, config__parse_event(&c, "task-clock:uk", &given));
	EXPECT_EQ(0ULL, c.flags);
	EXPECT_EQ(-EINVAL, config__parse_event(&c, "cpu-clock:p", &given));
	EXPECT_EQ(-EINVAL, config__parse_event(&c, "nosuch:u", &given));
	p_set_quiet(0);
}

TEST(totals_sum_the_cpus)
{
	struct kprof_cpu_stats cpu[3];
	struct out_summary s = { .cpu = cpu, .nr_cpu = 3 };
	struct out_kernel_totals t;

	memset(cpu, 0, sizeof(cpu));
	cpu[0].size = sizeof(cpu[0]);	/* CPU 1: no event */
	cpu[2].size = sizeof(cpu[0]);
	cpu[0].counters.samples = 10;
	cpu[0].counters.lost_full = 1;
	cpu[0].counters.lost_throttled = 2;
	cpu[0].counters.throttles = 3;
	cpu[0].max_sample_rate = 14750;
	cpu[1].counters.samples = 1000;	/* not counted: size 0 */
	cpu[2].counters.samples = 5;
	cpu[2].counters.lost_nested = 4;
	cpu[2].counters.lost_stopped = 8;
	cpu[2].counters.lost_events = 16;
	cpu[2].counters.lowerings = 1;
	cpu[2].max_sample_rate = 14750;
	out_summary__kernel_totals(&s, &t);
	EXPECT_EQ(15ULL, t.samples);
	EXPECT_EQ(15ULL, t.lost);
	EXPECT_EQ(1ULL, t.lost_full);
	EXPECT_EQ(2ULL, t.lost_throttled);
	EXPECT_EQ(4ULL, t.lost_nested);
	EXPECT_EQ(8ULL, t.lost_stopped);
	EXPECT_EQ(16ULL, t.lost_events);
	EXPECT_EQ(3ULL, t.throttles);
	EXPECT_EQ(1ULL, t.lowerings);
	EXPECT_EQ(14750ULL, t.max_sample_rate);
	EXPECT_STREQ("gt", out_semantics_name(KPROF_THROTTLE_GT));
}

TEST_HARNESS_MAIN
