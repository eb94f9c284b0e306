/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kp_sys.h - the system around kprof for the in-guest tests: clocks, CPUs,
 * the module file and its loading, the test programs, and running as
 * nobody.
 */
#ifndef KP_SYS_H
#define KP_SYS_H

#include <stddef.h>
#include <sys/types.h>

/*
 * A wait for progress (a sample, an exec, a CPU delivering again) gives up
 * after this long: a hang detector, not a rate.  Far above the longest
 * stall the emulator shows on a loaded host (hundreds of ms), far below
 * the tests' timeouts.
 */
#define KP_PROGRESS_MS	20000

#define KP_MODULE	"kprof"

/* nobody's uid and gid on Debian, for the privilege tests' children. */
#define KP_NOBODY	65534

void kp_sleep_ms(long ms);
double kp_now(void);
unsigned long long kp_now_ns(void);
int kp_icount(void);
int kp_pin_self(unsigned int cpu);
int kp_cpu_online(unsigned int cpu);
int kp_cpu_set_online(unsigned int cpu, int on);

int kp_prog_path(char *buf, size_t len, const char *name);
const char *kp_ko_path(void);
int kp_module_loaded(void);
int kp_insmod_params(const char *params);
int kp_insmod(void);
int kp_rmmod(void);

typedef int (*kp_child_fn)(char *msg, size_t len);
int kp_as_nobody(const gid_t *groups, int ngroups, kp_child_fn fn,
		 char *msg, size_t len);

typedef int (*kp_ns_fn)(pid_t outer, char *msg, size_t len);
int kp_in_new_pidns(kp_ns_fn fn, char *msg, size_t len);

#endif /* KP_SYS_H */
