/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - the entry points of kprofcat's verbs that main.c's command
 * table runs with the verb's arguments; each returns the exit status.
 */
#ifndef KPROFCAT_BUILTIN_H
#define KPROFCAT_BUILTIN_H

/* `kprofcat convert ...` (builtin-convert.c) */
int convert_main(int argc, char **argv);

#endif
