/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin.h - the entry points of kprofcat's verbs that main.c's command
 * table runs with the verb's arguments; each returns the exit status.
 */
#ifndef KPROFCAT_BUILTIN_H
#define KPROFCAT_BUILTIN_H

struct verb;

/* `kprofcat convert ...` (builtin-convert.c) */
int convert_main(int argc, char **argv);

/*
 * `kprofcat throttle-sim ...` (builtin-throttle-sim.c).  argv[0] is the
 * subcommand name ("throttle-sim"), options follow; getopt state is reset
 * here.  Reads stdin, writes stdout, errors go to stderr.  Returns 0 on
 * success, 1 when stdout could not be written, 2 for a bad option or input
 * line.
 */
int throttle_sim_main(int argc, char **argv);

/*
 * Plain kprofcat (VB: no name) and perf's verbs record, script, report and
 * stat (builtin-profile.c): VB's defaults, then the options in ARGV.
 */
int profile_main(int argc, char **argv, const struct verb *vb);

#endif
