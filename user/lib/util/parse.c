// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - strict numbers (parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/util/parse.h"
#include "lib/util/print.h"

int parse__u64(const char *s, int base, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull() would skip white space and take a sign: "-1" is huge. */
	if (!isalnum((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (errno || end == s || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse__option(const char *opt, const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *out)
{
	if (parse__u64(s, 0, out) || *out < min || *out > max) {
		p_err("bad value '%s' for %s: want a number from %llu to %llu",
		      s, opt, min, max);
		return -EINVAL;
	}
	return 0;
}
