// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - kprofcat's command table (bpftool style): a verb runs its
 * builtin-<verb>.c; perf's verbs and no verb at all are modes of
 * builtin-profile.c.
 */
#include <string.h>

#include "lib/util/heap.h"
#include "tool/builtin.h"
#include "tool/cli_read.h"

static const struct verb verbs[] = {
	{ "record", FMT_SCRIPT, 1 },
	{ "script", FMT_SCRIPT, 0 },
	{ "report", FMT_REPORT, 0 },
	{ "stat", FMT_STATS, 0 },
};

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const struct verb *verb;	/* or: a mode of profile_main() */
};

static const struct cmd cmds[] = {
	{ "throttle-sim", throttle_sim_main, NULL },
	{ "convert", convert_main, NULL },
	{ "record", NULL, &verbs[0] },
	{ "script", NULL, &verbs[1] },
	{ "report", NULL, &verbs[2] },
	{ "stat", NULL, &verbs[3] },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const struct cmd *c;

	heap__use_huge_pages();
	if (argc > 1) {
		for (c = cmds; c->name; c++)
			if (!strcmp(argv[1], c->name))
				return c->verb ? profile_main(argc - 1, argv + 1, c->verb) :
				       c->func(argc - 1, argv + 1);
	}
	return profile_main(argc, argv, &(const struct verb){ NULL, FMT_SCRIPT, 0 });
}
