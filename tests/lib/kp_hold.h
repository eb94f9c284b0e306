/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kp_hold.h - the in-guest tests' handle on tests/testpmu/kprof_hold.ko,
 * which holds one task inside a call kprof makes until the test lets it
 * go on (see that file).
 */
#ifndef KP_HOLD_H
#define KP_HOLD_H

#include <sys/types.h>

#define KP_HOLD_KO	"tests/testpmu/kprof_hold.ko"

int kp_hold_load(const char *symbol, unsigned int timeout_ms);
const char *kp_hold_lock_symbol(const char *lock_fn);
int kp_hold_arm(pid_t pid);
int kp_hold_wait(unsigned int ms);
int kp_hold_release(void);
int kp_hold_timed_out(void);
void kp_hold_unload(void);

#endif /* KP_HOLD_H */
