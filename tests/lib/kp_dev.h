/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kp_dev.h - /dev/kprof for the in-guest tests: open, the ioctls, a valid
 * request to change one field of, and kprof's default throttle limits.
 */
#ifndef KP_DEV_H
#define KP_DEV_H

#include <linux/perf_event.h>
#include <linux/kprof.h>

#define KP_DEV		"/dev/kprof"

int kp_open(void);
int kp_default_limits(int fd);
int kp_no_lowering(int fd);
int kp_get_info(int fd, struct kprof_info *info);
int kp_get_stats(int fd, unsigned int cpu, struct kprof_cpu_stats *st);
void kp_cfg_add_cpu(struct kprof_config *cfg, unsigned int cpu);
void kp_cfg_init(struct kprof_config *cfg, __u64 freq);
int kp_set_config(int fd, struct kprof_config *cfg);
int kp_start(int fd);
int kp_stop(int fd);

#endif /* KP_DEV_H */
