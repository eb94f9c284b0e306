// SPDX-License-Identifier: GPL-2.0
/*
 * cmd_output.c - what a command prints (cmd_output.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
