// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - event names (perf's) and CPU lists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "config.h"
#include "print.h"

static const struct {
	const char *name;
	__u32 type;
	__u64 config;
} events[] = {
	{ "cpu-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "ref-cycles",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

int config__parse_event(struct kprof_config *c, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		if (!strcmp(name, events[i].name)) {
			c->type = events[i].type;
			c->config = events[i].config;
			return 0;
		}
	}
	if (name[0] == 'r' && name[1]) {
		char *end;
		unsigned long long code = strtoull(name + 1, &end, 16);

		if (!*end) {
			c->type = PERF_TYPE_RAW;
			c->config = code;
			return 0;
		}
	}
	p_err("unknown event '%s': use cpu-clock, task-clock, cycles, instructions, cache-references, cache-misses, branches, branch-misses, ref-cycles or rNNNN (raw, hex)",
	      name);
	return -EINVAL;
}

int config__parse_cpus(struct kprof_config *c, const char *list)
{
	const char *p = list;

	memset(c->cpumask, 0, sizeof(c->cpumask));
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a, cpu;

		if (end == p)
			goto bad;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				goto bad;
			p = end;
		}
		if (a > b || b >= KPROF_MAX_CPUS)
			goto bad;
		for (cpu = a; cpu <= b; cpu++)
			c->cpumask[cpu / 64] |= 1ULL << (cpu % 64);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (p != list)
		return 0;
bad:
	p_err("bad CPU list '%s' for -C: use e.g. 0,2-3 (CPUs below %d)", list, KPROF_MAX_CPUS);
	return -EINVAL;
}
