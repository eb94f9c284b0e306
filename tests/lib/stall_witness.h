/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stall_witness.h - a witness for a command that stalls.  A test that runs kprofcat (or a
 * shell pipeline) through popen() reads its output here; while the
 * command is still running every STALL_WITNESS_S seconds, the state,
 * wait channel, current syscall and kernel stack of each of the test's
 * descendants go to stderr.  When the harness later kills the test at its
 * timeout, the log says where the time went: a task blocked in the kernel
 * (its stack), one spinning in user space (state R, no syscall) or one
 * that was only slow (the reports change from one to the next).
 *
 * It only logs, never asserts: STALL_WITNESS_S is not a bound on anything.
 * 30 s is several times what any command of the suite takes on the debug
 * kernel (kprofcat_test's seven tests take 27 s to 41 s there), yet below
 * the tests' timeouts, so at least one report lands before the kill.
 *
 * Test-only: reads other processes' /proc/PID/stack (root in the guest).
 */
#ifndef _KPROF_STALL_WITNESS_H
#define _KPROF_STALL_WITNESS_H

#include <stddef.h>
#include <stdio.h>

#define STALL_WITNESS_S	30

char *stall_witness_read(FILE *p, const char *what, size_t *len);

#endif /* _KPROF_STALL_WITNESS_H */
