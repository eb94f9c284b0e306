// SPDX-License-Identifier: GPL-2.0
/*
 * parse.c - strict numbers and CPU lists (parse.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

/* One "A" or "A-B" at *P, which is left past it. */
static int parse_range(const char **p, unsigned long *a, unsigned long *b)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	*a = strtoul(*p, &end, 10);
	*b = *a;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -EINVAL;
		*b = strtoul(end + 1, &end, 10);
	}
	*p = end;
	return *a <= *b ? 0 : -EINVAL;
}

int parse__cpu_list(const char *list, __u64 *mask, unsigned int nr)
{
	const char *p = list;
	unsigned long a, b, cpu;

	memset(mask, 0, (nr + 63) / 64 * sizeof(*mask));
	do {
		if (parse_range(&p, &a, &b))
			return -EINVAL;
		if (b >= nr)
			return -ERANGE;
		for (cpu = a; cpu <= b; cpu++)
			mask[cpu / 64] |= 1ULL << (cpu % 64);
	} while (*p++ == ',');
	return p[-1] ? -EINVAL : 0;
}
