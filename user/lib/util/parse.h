/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse.h - numbers and CPU lists from command lines, files and traces,
 * read strictly: a value is all of its string or an error.
 */
#ifndef KPROFCAT_PARSE_H
#define KPROFCAT_PARSE_H

#include <linux/types.h>

/*
 * S, all of it, as an unsigned number in BASE (strtoull()'s: 0 takes 0x
 * hex and 0 octal as well): 0, or -EINVAL for what is not digits alone
 * (empty, signed, white space, text after them), -ERANGE past 64 bits.
 */
int parse__u64(const char *s, int base, unsigned long long *out);
/*
 * The value S of option OPT, from MIN to MAX, decimal or 0x hex: 0, or
 * -EINVAL after an error naming the option, the value and the range.
 */
int parse__option(const char *opt, const char *s, unsigned long long min,
		  unsigned long long max, unsigned long long *out);
/*
 * A CPU list as -C and /sys/devices/system/cpu/ spell it ("0,2-3"): its
 * CPUs set in MASK (NR bits, cleared first): 0, or -EINVAL when it is
 * empty or malformed, -ERANGE when it names a CPU at or above NR.
 */
int parse__cpu_list(const char *list, __u64 *mask, unsigned int nr);

#endif
