/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd_output.h - what a command prints, for host tests that run kprofcat
 * and perf and search their text.
 */
#ifndef KPROF_TEST_CMD_OUTPUT_H
#define KPROF_TEST_CMD_OUTPUT_H

#include <stddef.h>

/* The standard output of CMD (sh -c) in a malloc'd string; NULL if it failed. */
char *cmd_output(const char *cmd);
/* How many times NEEDLE occurs in HAYSTACK (overlaps counted). */
int count_occurrences(const char *haystack, const char *needle);

/* system() of a printf-formatted command line. */
int cmd_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Where a host test finds the programs it runs: TESTS, the tests' OUTPUT
 * (this binary's host/..: progs/, tools/), and USER, the user/ of the
 * tree it was built from (kprofcat).  0, or -1 if a path does not fit.
 */
int cmd_dirs(char *tests, size_t tests_len, char *user, size_t user_len);

#endif
