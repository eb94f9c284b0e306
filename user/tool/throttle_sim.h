/* SPDX-License-Identifier: GPL-2.0 */
/*
 * throttle_sim.h - `kprofcat throttle-sim`: replay a trace of (time, cost)
 * pairs through kprof's throttle (common/kprof_throttle.h).
 */
#ifndef KPROF_THROTTLE_SIM_H
#define KPROF_THROTTLE_SIM_H

/*
 * Run the subcommand.  argv[0] is the subcommand name ("throttle-sim"),
 * options follow; getopt state is reset here.  Reads stdin, writes stdout,
 * errors go to stderr.  Returns the process exit status: 0 on success, 1
 * when stdout could not be written, 2 for a bad option or input line.
 */
int throttle_sim_main(int argc, char **argv);

#endif /* KPROF_THROTTLE_SIM_H */
