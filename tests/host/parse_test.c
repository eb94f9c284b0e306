// SPDX-License-Identifier: GPL-2.0
/*
 * parse_test: the strict parsers every number and CPU list of kprofcat goes
 * through (user/lib/util/parse.c): a value is all of its string, never a
 * prefix, a wrapped negative or white space strtoull() would skip, and a
 * CPU list sets exactly the CPUs it names.
 */
#include <errno.h>
#include <limits.h>

#include "kselftest_harness.h"

#include "lib/util/parse.h"
#include "lib/util/print.h"

TEST(u64_whole_string)
{
	unsigned long long v = 7;

	ASSERT_EQ(0, parse__u64("0", 10, &v));
	ASSERT_EQ(0, v);
	ASSERT_EQ(0, parse__u64("18446744073709551615", 10, &v));
	ASSERT_EQ(ULLONG_MAX, v);
	ASSERT_EQ(0, parse__u64("0x3c", 0, &v));
	ASSERT_EQ(0x3c, v);
	ASSERT_EQ(0, parse__u64("ff", 16, &v));
	ASSERT_EQ(0xff, v);
	ASSERT_EQ(-ERANGE, parse__u64("18446744073709551616", 10, &v));
	ASSERT_EQ(0xff, v);	/* untouched on error */
}

TEST(u64_refused)
{
	static const char *const bad[] = {
		"", "-1", "+1", " 1", "1 ", "1x", "0x", "12abc", "\t7",
	};
	unsigned long long v;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, parse__u64(bad[i], 0, &v)) TH_LOG("'%s'", bad[i]);
	}
	EXPECT_EQ(-EINVAL, parse__u64("0x10", 10, &v));
}

TEST(option_range)
{
	unsigned long long v;

	p_set_quiet(1);
	ASSERT_EQ(0, parse__option("-F", "1", 1, 10, &v));
	ASSERT_EQ(1, v);
	ASSERT_EQ(0, parse__option("-F", "0xa", 1, 10, &v));
	ASSERT_EQ(10, v);
	ASSERT_EQ(-EINVAL, parse__option("-F", "0", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse__option("-F", "11", 1, 10, &v));
	ASSERT_EQ(-EINVAL, parse__option("-F", "-1", 0, ULLONG_MAX, &v));
}

TEST(cpu_list)
{
	__u64 mask[2] = { ~0ULL, ~0ULL };

	ASSERT_EQ(0, parse__cpu_list("0,2-3,64", mask, 128));
	ASSERT_EQ(0xdULL, mask[0]);
	ASSERT_EQ(1ULL, mask[1]);
	ASSERT_EQ(0, parse__cpu_list("0-127", mask, 128));
	ASSERT_EQ(~0ULL, mask[0]);
	ASSERT_EQ(~0ULL, mask[1]);
	ASSERT_EQ(0, parse__cpu_list("5", mask, 128));
	ASSERT_EQ(1ULL << 5, mask[0]);
	ASSERT_EQ(0, mask[1]);
}

TEST(cpu_list_refused)
{
	static const char *const bad[] = {
		"", ",", "0,", ",0", "1-0", "-1", "0-", "0--1", "a", " 1", "1 ", "0;1",
	};
	__u64 mask[2];

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, parse__cpu_list(bad[i], mask, 128)) TH_LOG("'%s'", bad[i]);
	}
	EXPECT_EQ(-ERANGE, parse__cpu_list("128", mask, 128));
	EXPECT_EQ(-ERANGE, parse__cpu_list("0,100-200", mask, 128));
	EXPECT_EQ(-ERANGE, parse__cpu_list("99999999999999999999999", mask, 128));
}

TEST_HARNESS_MAIN
