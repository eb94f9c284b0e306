/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats_json.h - the numbers of `kprofcat --stats --json` (live or of a
 * capture, user/tool/output/output_stats.c) that in-guest tests check a
 * session's accounting with.
 */
#ifndef KPROF_TEST_STATS_JSON_H
#define KPROF_TEST_STATS_JSON_H

/* Its "total" object (every CPU of the session) and its "reader" object. */
struct stats_json {
	long long overflows;	/* total: the session's overflows */
	long long samples;	/* total: delivered */
	long long lost;		/* total: lost, every cause summed */
	long long read;		/* reader: SAMPLE records it got */
	long long filtered;	/* reader: samples it left out */
};

/* Parse @json into @st: 0, or -1 when a number is missing. */
int stats_json_parse(const char *json, struct stats_json *st);

#endif
