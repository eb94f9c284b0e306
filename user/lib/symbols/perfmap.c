// SPDX-License-Identifier: GPL-2.0
/*
 * perfmap.c - JIT symbol maps (perfmap.h): which mappings use them, and
 * their lines read with perf's own leniency, so both name the same frames.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbols/perfmap.h"

#define PERFMAP_PREFIX	"/tmp/perf-"

int perfmap__covers(const char *name)
{
	/* perf's is_anon_memory() and is_no_dso_memory() */
	return !strcmp(name, "//anon") ||
	       !strncmp(name, "/dev/zero", strlen("/dev/zero")) ||
	       !strncmp(name, "/anon_hugepage", strlen("/anon_hugepage")) ||
	       !strncmp(name, "[stack", strlen("[stack")) ||
	       !strncmp(name, "/SYSV", strlen("/SYSV")) ||
	       !strcmp(name, "[heap]");
}

void perfmap__path(uint32_t pid, char *buf)
{
	snprintf(buf, PERFMAP_PATH_MAX, PERFMAP_PREFIX "%u.map", pid);
}

int perfmap__is_path(const char *path)
{
	return !strncmp(path, PERFMAP_PREFIX, strlen(PERFMAP_PREFIX));
}

/*
 * One line of N characters, as perf takes it: the last character dropped
 * (the newline, or a last line's own last character), START and SIZE as
 * far as they read as hex (strtoull() base 16, so "0x" is optional and
 * leading blanks are skipped) each followed by one separator, and the rest
 * the name, kept only when the line goes on at least two characters past
 * each number's separator.
 */
static int perfmap_line(char *line, size_t n,
			int (*add)(void *ctx, uint64_t start, uint64_t size, const char *name),
			void *ctx)
{
	unsigned long long start, size;
	size_t pos;
	char *end;

	line[--n] = '\0';
	start = strtoull(line, &end, 16);
	pos = end - line + 1;
	if (pos + 2 >= n)
		return 0;
	size = strtoull(line + pos, &end, 16);
	pos = end - line + 1;
	if (pos + 2 >= n)
		return 0;
	return add(ctx, start, size, line + pos);
}

int perfmap__read(const char *path,
		  int (*add)(void *ctx, uint64_t start, uint64_t size, const char *name),
		  void *ctx)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (!f)
		return -errno;
	while (!ret && (n = getline(&line, &cap, f)) > 0)
		ret = perfmap_line(line, n, add, ctx);
	free(line);
	fclose(f);
	return ret;
}
