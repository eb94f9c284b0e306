// SPDX-License-Identifier: GPL-2.0
/*
 * kp_dev.c - /dev/kprof for the in-guest tests (kp_dev.h).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "kp_dev.h"

int kp_open(void)
{
	return open(KP_DEV, O_RDWR | O_CLOEXEC);
}

/*
 * kprof's default throttle limits.  Lowerings persist across sessions, as
 * the sysctl's do: an earlier test's handlers, slowed by a loaded host,
 * may have left the max rate below the next test's frequency, which
 * SET_CONFIG then refuses.  The percent goes first (the rate is refused
 * while it is 0), which SET_THROTTLE does in one call.
 */
int kp_default_limits(int fd)
{
	struct kprof_throttle_config t = {
		.size = sizeof(t),
		.semantics = KPROF_THROTTLE_GE,
		.max_sample_rate = 100000,
		.cpu_time_max_percent = 25,
	};

	return ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
}

/*
 * The default limits with kprof's cost controller off (percent 0, as perf
 * allows), for tests of what kprofcat prints, not of throttling: on a
 * slowed kernel (the debug one, under TCG) the handler's measured cost
 * would lower the rate to a fraction of the test's frequency, by as much
 * as the host is loaded.  The rate first, while the percent allows it.
 */
int kp_no_lowering(int fd)
{
	struct kprof_throttle_config t = {
		.size = sizeof(t),
		.semantics = KPROF_THROTTLE_GE,
		.max_sample_rate = 100000,
		.cpu_time_max_percent = 0,
	};

	if (kp_default_limits(fd))
		return -1;
	return ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
}

int kp_get_info(int fd, struct kprof_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, KPROF_IOC_GET_INFO, info);
}

int kp_get_stats(int fd, unsigned int cpu, struct kprof_cpu_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->cpu = cpu;
	return ioctl(fd, KPROF_IOC_GET_STATS, st);
}

void kp_cfg_add_cpu(struct kprof_config *cfg, unsigned int cpu)
{
	cfg->cpumask[cpu / 64] |= 1ULL << (cpu % 64);
}

/* A valid request: cpu-clock at @freq Hz on all CPUs, 16 pages per CPU. */
void kp_cfg_init(struct kprof_config *cfg, __u64 freq)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->type = PERF_TYPE_SOFTWARE;
	cfg->config = PERF_COUNT_SW_CPU_CLOCK;
	cfg->sample = freq;
	cfg->flags = KPROF_CFG_FREQ;
	cfg->buffer_pages = 16;
}

int kp_set_config(int fd, struct kprof_config *cfg)
{
	return ioctl(fd, KPROF_IOC_SET_CONFIG, cfg);
}

int kp_start(int fd)
{
	return ioctl(fd, KPROF_IOC_START, 0);
}

int kp_stop(int fd)
{
	return ioctl(fd, KPROF_IOC_STOP, 0);
}
