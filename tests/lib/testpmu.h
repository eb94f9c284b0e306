/* SPDX-License-Identifier: GPL-2.0 */
/*
 * testpmu.h - in-guest tests on the PMU stand-in (tests/testpmu/, loaded
 * by `tests/vm/run --testpmu`): its perf type, its NMI statistics, its
 * nmi_cost_ns knob, the perf sysctls its NMIs move, and kprof requests
 * on it.
 *
 * Under TCG one NMI costs 10-20 us against perf's 2.5 us budget, so the
 * kernel's controller lowers kernel.perf_event_max_sample_rate even with
 * nmi_cost_ns=0, and the sysctl outlives the test: every test resets it
 * (and perf_cpu_time_max_percent) before and after (tp_reset_sysctls()).
 */
#ifndef KPROF_TESTPMU_H
#define KPROF_TESTPMU_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/kprof.h>

#define TP_SYSFS	"/sys/bus/event_source/devices/kprof_testpmu"
#define TP_PARAM	"/sys/module/kprof_testpmu/parameters/nmi_cost_ns"
#define TP_MAX_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"
#define TP_MAX_PERCENT	"/proc/sys/kernel/perf_cpu_time_max_percent"
/* The kernel's defaults (DEFAULT_MAX_SAMPLE_RATE, ..._CPU_TIME_MAX_PERCENT). */
#define TP_DEFAULT_RATE		100000
#define TP_DEFAULT_PERCENT	25

struct tp_stats {
	unsigned long long nmis, nmi_ns, cost_ns, overflows, lost_nmis;
};

int tp_write(const char *path, const char *val);
int tp_write_u64(const char *path, unsigned long long v);
long long tp_read_num(const char *path);
int tp_type(void);
int tp_reset_sysctls(void);
int tp_controller_off(void);
int tp_read_stats(struct tp_stats *st);
int tp_log_mark(const char *mark);
int tp_log_since(const char *mark, char *out, size_t len);
int tp_run(const char *cmd, char *out, size_t len);
int tp_run_script(const char *args, char *out, size_t len);
int tp_cfg_init(struct kprof_config *cfg, __u64 freq);
int tp_freq_cfg_init(struct kprof_config *cfg, bool testpmu, __u64 freq);
int tp_kprof_relax(struct kprof_throttle_config *saved, int percent);
void tp_kprof_restore(const struct kprof_throttle_config *saved);

#endif /* KPROF_TESTPMU_H */
