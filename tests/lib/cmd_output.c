// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_output.c - what a command prints (cmd_output.h).
 */
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_output.h"

char *cmd_output(const char *cmd)
{
	char *buf = NULL, chunk[4096];
	size_t len = 0, n;
	FILE *p = popen(cmd, "r"), *m = open_memstream(&buf, &len);

	if (!p || !m) {
		if (p)
			pclose(p);
		if (m)
			fclose(m);
		free(buf);
		return NULL;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(m);
	if (pclose(p)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int count_occurrences(const char *haystack, const char *needle)
{
	int n = 0;

	for (; (haystack = strstr(haystack, needle)); haystack++)
		n++;
	return n;
}

int cmd_run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

int cmd_dirs(char *tests, size_t tests_len, char *user, size_t user_len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = '\0';
	if (snprintf(tests, tests_len, "%s/..", dirname(self)) >= (int)tests_len)
		return -1;
	/* KPROF_TREE: the tree tests/Makefile built this from. */
	if (snprintf(user, user_len, "%s/user", KPROF_TREE) >= (int)user_len)
		return -1;
	return 0;
}
