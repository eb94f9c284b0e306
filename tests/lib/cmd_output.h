/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmd_output.h - what a command prints, for host tests that run kprofcat
 * and perf and search their text.
 */
#ifndef KPROF_TEST_CMD_OUTPUT_H
#define KPROF_TEST_CMD_OUTPUT_H

/* The standard output of CMD (sh -c) in a malloc'd string; NULL if it failed. */
char *cmd_output(const char *cmd);
/* How many times NEEDLE occurs in HAYSTACK (overlaps counted). */
int count_occurrences(const char *haystack, const char *needle);

#endif
