// SPDX-License-Identifier: GPL-2.0
/*
 * event_test: kprofcat's -e parser (user/lib/dev/config.c) against a sysfs tree
 * built in a temporary directory: generic names, PMUs by name with
 * perf's terms (config, config1, config2, period, freq, format terms), and
 * each kind of bad input refused with its errno.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "kselftest_harness.h"

#include "lib/dev/config.h"
#include "lib/util/print.h"

static void put(const char *root, const char *rel, const char *text)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

FIXTURE(event) {
	char root[64];
	struct kprof_config cfg;
	int given;
};

FIXTURE_SETUP(event)
{
	strcpy(self->root, "/tmp/event_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	put(self->root, "kprof_testpmu/type", "11\n");
	put(self->root, "kprof_testpmu/format/event", "config:0-63\n");
	put(self->root, "cpu/type", "4\n");
	put(self->root, "cpu/format/event", "config:0-7\n");
	put(self->root, "cpu/format/umask", "config:8-15\n");
	put(self->root, "cpu/format/ldlat", "config1:0-15\n");
	put(self->root, "cpu/format/split", "config:0-3,32-35\n");
	put(self->root, "cpu/format/edge", "config:18\n");
	put(self->root, "broken/type", "eleven\n");
	config__set_sysfs(self->root);
	memset(&self->cfg, 0, sizeof(self->cfg));
	self->cfg.flags = KPROF_CFG_FREQ;
	self->cfg.sample = 4000;
}

FIXTURE_TEARDOWN(event)
{
	char cmd[128];

	config__set_sysfs("/sys");
	p_set_quiet(0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", self->root);
}

TEST_F(event, pmu_without_terms)
{
	ASSERT_EQ(0, config__parse_event(&self->cfg, "kprof_testpmu//", &self->given));
	EXPECT_EQ(11U, self->cfg.type);
	EXPECT_EQ(0ULL, self->cfg.config);
	EXPECT_EQ(0, self->given);
	EXPECT_EQ(4000ULL, self->cfg.sample);
	EXPECT_EQ(KPROF_CFG_FREQ, self->cfg.flags);
}

TEST_F(event, builtin_terms)
{
	ASSERT_EQ(0, config__parse_event(&self->cfg,
					 "kprof_testpmu/config=0x1a,config1=5,config2=07,period=50000/",
					 &self->given));
	EXPECT_EQ(11U, self->cfg.type);
	EXPECT_EQ(0x1aULL, self->cfg.config);
	EXPECT_EQ(5ULL, self->cfg.config1);
	EXPECT_EQ(7ULL, self->cfg.config2);	/* 0 prefix: octal, as strtoull */
	EXPECT_EQ(1, self->given);
	EXPECT_EQ(50000ULL, self->cfg.sample);
	EXPECT_EQ(0ULL, self->cfg.flags & KPROF_CFG_FREQ);

	ASSERT_EQ(0, config__parse_event(&self->cfg, "kprof_testpmu/freq=2000/", &self->given));
	EXPECT_EQ(1, self->given);
	EXPECT_EQ(2000ULL, self->cfg.sample);
	EXPECT_EQ(KPROF_CFG_FREQ, self->cfg.flags & KPROF_CFG_FREQ);
	EXPECT_EQ(0ULL, self->cfg.config1);	/* a new event starts from zero */
}

TEST_F(event, format_terms)
{
	ASSERT_EQ(0, config__parse_event(&self->cfg, "cpu/event=0x3c,umask=0x1,edge/",
					 &self->given));
	EXPECT_EQ(4U, self->cfg.type);
	EXPECT_EQ(0x4013cULL, self->cfg.config);
	ASSERT_EQ(0, config__parse_event(&self->cfg, "cpu/split=0xa5,ldlat=3/", &self->given));
	EXPECT_EQ(0x5ULL | (0xaULL << 32), self->cfg.config);
	EXPECT_EQ(3ULL, self->cfg.config1);
}

TEST_F(event, generic_names)
{
	ASSERT_EQ(0, config__parse_event(&self->cfg, "cpu/ldlat=3/", &self->given));
	ASSERT_EQ(0, config__parse_event(&self->cfg, "cycles", &self->given));
	EXPECT_EQ((__u32)PERF_TYPE_HARDWARE, self->cfg.type);
	EXPECT_EQ((__u64)PERF_COUNT_HW_CPU_CYCLES, self->cfg.config);
	EXPECT_EQ(0ULL, self->cfg.config1);
	ASSERT_EQ(0, config__parse_event(&self->cfg, "r1a2", &self->given));
	EXPECT_EQ((__u32)PERF_TYPE_RAW, self->cfg.type);
	EXPECT_EQ(0x1a2ULL, self->cfg.config);
}

FIXTURE(bad_event) {
	char root[64];
};

FIXTURE_VARIANT(bad_event) {
	const char *event;
	int err;
};

#define BAD(id, str, errnum)					\
	FIXTURE_VARIANT_ADD(bad_event, id) {			\
		.event = str,					\
		.err = errnum,					\
	}

BAD(unknown_pmu, "nosuchpmu//", -ENOENT);
BAD(unknown_term, "kprof_testpmu/umask=1/", -EINVAL);
BAD(unknown_name, "cyclez", -EINVAL);
BAD(no_closing_slash, "kprof_testpmu/", -EINVAL);
BAD(modifier, "kprof_testpmu//k", -EINVAL);
BAD(dotdot_pmu, "..//", -EINVAL);
BAD(path_in_term, "cpu/../type/", -EINVAL);
BAD(empty_pmu, "//", -EINVAL);
BAD(bad_value, "kprof_testpmu/config=x/", -EINVAL);
BAD(negative_value, "kprof_testpmu/config=-1/", -EINVAL);
BAD(period_zero, "kprof_testpmu/period=0/", -EINVAL);
BAD(period_bit63, "kprof_testpmu/period=0x8000000000000000/", -EINVAL);
BAD(format_too_big, "cpu/event=0x100/", -EINVAL);
BAD(split_too_big, "cpu/split=0x100/", -EINVAL);
BAD(type_not_a_number, "broken//", -EINVAL);

FIXTURE_SETUP(bad_event)
{
	strcpy(self->root, "/tmp/event_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	put(self->root, "kprof_testpmu/type", "11\n");
	put(self->root, "kprof_testpmu/format/event", "config:0-63\n");
	put(self->root, "cpu/type", "4\n");
	put(self->root, "cpu/format/event", "config:0-7\n");
	put(self->root, "cpu/format/split", "config:0-3,32-35\n");
	put(self->root, "broken/type", "eleven\n");
	config__set_sysfs(self->root);
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(bad_event)
{
	char cmd[128];

	config__set_sysfs("/sys");
	p_set_quiet(0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", self->root);
}

TEST_F(bad_event, refused)
{
	struct kprof_config cfg = { .sample = 4000, .flags = KPROF_CFG_FREQ };
	int given = 0;

	EXPECT_EQ(variant->err, config__parse_event(&cfg, variant->event, &given))
		TH_LOG("event '%s'", variant->event);
}

TEST_HARNESS_MAIN
