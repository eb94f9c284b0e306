/* SPDX-License-Identifier: GPL-2.0 */
/*
 * expect.h - kselftest assertions on text, with the expected text whole
 * on one line (for grep, as checkpatch wants of format strings).
 *
 * EXPECT_HAS(text, needle): EXPECT_NE(NULL, strstr(text, needle)), the
 * text logged when it fails.
 */
#ifndef KPROF_EXPECT_H
#define KPROF_EXPECT_H

#include <string.h>

#define EXPECT_HAS(text, needle)					\
	do {								\
		const char *text_ = (text);				\
									\
		EXPECT_NE(NULL, strstr(text_, (needle)))		\
			TH_LOG("%s", text_);				\
	} while (0)

#endif /* KPROF_EXPECT_H */
