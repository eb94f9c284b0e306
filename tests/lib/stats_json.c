// SPDX-License-Identifier: GPL-2.0
/*
 * stats_json.c - the numbers of `kprofcat --stats --json` for in-guest
 * tests.  Not a JSON parser: the output's shape is fixed
 * ({"cpus":[...],"total":{...},"reader":{...}}), and each key is looked
 * up after its object's name.
 */
#include "stats_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @key's number in @json after @object's name, or -1. */
static long long json_num(const char *json, const char *object, const char *key)
{
	char pat[64];
	const char *p = strstr(json, object);

	if (!p)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(p, pat);
	return p ? atoll(p + strlen(pat)) : -1;
}

int stats_json_parse(const char *json, struct stats_json *st)
{
	static const char * const causes[] = {
		"lost_full", "lost_nested", "lost_stopped", "lost_throttled",
	};
	unsigned int i;
	long long n;

	st->overflows = json_num(json, "\"total\":", "overflows");
	st->samples = json_num(json, "\"total\":", "samples");
	st->read = json_num(json, "\"reader\":", "samples");
	st->filtered = json_num(json, "\"reader\":", "filtered");
	st->lost = 0;
	for (i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
		n = json_num(json, "\"total\":", causes[i]);
		if (n < 0)
			return -1;
		st->lost += n;
	}
	return st->overflows < 0 || st->samples < 0 || st->read < 0 ||
	       st->filtered < 0 ? -1 : 0;
}
