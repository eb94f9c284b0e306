// SPDX-License-Identifier: GPL-2.0
/*
 * testpmu.c - in-guest tests on the PMU stand-in (testpmu.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "kp_dev.h"
#include "testpmu.h"

/* Write @val to @path; 0, or -errno of the write. */
int tp_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fputs(val, f) < 0)
		ret = -errno;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

int tp_write_u64(const char *path, unsigned long long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu\n", v);
	return tp_write(path, buf);
}

/* The number in @path, or -1. */
long long tp_read_num(const char *path)
{
	FILE *f = fopen(path, "r");
	long long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* kprof_testpmu's perf type, or -1 when the stand-in is not loaded. */
int tp_type(void)
{
	return (int)tp_read_num(TP_SYSFS "/type");
}

/* The perf sysctls back to the kernel's defaults; 0 or -errno. */
int tp_reset_sysctls(void)
{
	int ret = tp_write_u64(TP_MAX_PERCENT, TP_DEFAULT_PERCENT);

	return ret ?: tp_write_u64(TP_MAX_RATE, TP_DEFAULT_RATE);
}

/*
 * The kernel's cost controller off (perf_cpu_time_max_percent=0, the
 * per-tick limit stays at the default rate's 400), for tests of kprof's
 * capture on the stand-in rather than of the kernel's throttle: under TCG
 * an NMI costs more than perf's 2.5 us budget, the controller lowers the
 * rate until the per-tick limit throttles kprof's counter, and a counter
 * throttled on a tickless idle CPU stays stopped until that CPU ticks
 * again.  It also keeps the kernel's throttle out of tests of kprof's
 * (pmu_throttle_test runs both on purpose).
 * tp_reset_sysctls() turns it back on.
 */
int tp_controller_off(void)
{
	int ret = tp_reset_sysctls();

	return ret ?: tp_write_u64(TP_MAX_PERCENT, 0);
}

/* The stand-in's nmi_stats (sums over all CPUs); 0 or -1. */
int tp_read_stats(struct tp_stats *st)
{
	FILE *f = fopen(TP_SYSFS "/nmi_stats", "r");
	char name[32];
	unsigned long long v;
	int n = 0;

	memset(st, 0, sizeof(*st));
	if (!f)
		return -1;
	while (fscanf(f, "%31s %llu", name, &v) == 2) {
		n++;
		if (!strcmp(name, "nmis"))
			st->nmis = v;
		else if (!strcmp(name, "nmi_ns"))
			st->nmi_ns = v;
		else if (!strcmp(name, "cost_ns"))
			st->cost_ns = v;
		else if (!strcmp(name, "overflows"))
			st->overflows = v;
		else if (!strcmp(name, "lost_nmis"))
			st->lost_nmis = v;
		else
			n--;
	}
	fclose(f);
	return n == 5 ? 0 : -1;
}

/* Put @mark in the kernel log (tp_log_since() finds what follows it). */
int tp_log_mark(const char *mark)
{
	return tp_write("/dev/kmsg", mark);
}

/*
 * The kernel log after the last line holding @mark, into @out (@len
 * bytes); 0, or -1 when dmesg fails or the mark is not there.
 */
int tp_log_since(const char *mark, char *out, size_t len)
{
	char *p, *last = NULL;

	if (tp_run("dmesg", out, len))
		return -1;
	for (p = strstr(out, mark); p; p = strstr(p + 1, mark))
		last = p;
	if (!last)
		return -1;
	memmove(out, last, strlen(last) + 1);
	return 0;
}

/*
 * Run the shell command @cmd, its stdout and stderr into @out (NUL
 * terminated, truncated to @len); returns its exit status, or -1.
 */
int tp_run(const char *cmd, char *out, size_t len)
{
	char *full;
	FILE *p;
	size_t n = 0, r;
	int st;

	if (asprintf(&full, "( %s ) 2>&1", cmd) < 0)
		return -1;
	p = popen(full, "r");
	free(full);
	if (!p)
		return -1;
	while (n + 1 < len && (r = fread(out + n, 1, len - 1 - n, p)) > 0)
		n += r;
	out[n] = 0;
	/* Drain what did not fit, so the command is not killed by SIGPIPE. */
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * `perf script ARGS`, its stdout alone into @out (for parsing); its
 * stderr is printed as the test's log.  perf writes its warnings
 * ("Processed N events and lost M chunks!", ...) to stderr once it is
 * done, while part of its stdout still sits in stdio's buffer: through
 * one pipe a warning lands inside a sample line (seen on 6.1-rt: a
 * period of 50000 read as "5000Warning:").  Returns perf's status, or -1.
 */
int tp_run_script(const char *args, char *out, size_t len)
{
	static const char err_file[] = "/tmp/kprof-tp-script.err";
	char cmd[512], err[2048];
	int rc;

	if (snprintf(cmd, sizeof(cmd), "perf script %s 2>%s", args, err_file) >=
	    (int)sizeof(cmd))
		return -1;
	rc = tp_run(cmd, out, len);
	snprintf(cmd, sizeof(cmd), "cat %s; rm -f %s", err_file, err_file);
	if (!tp_run(cmd, err, sizeof(err)) && err[0])
		fprintf(stderr, "# perf script's stderr: %s\n", err);
	return rc;
}

/*
 * kp_cfg_init()'s request (kp_dev.h) on the stand-in instead of
 * cpu-clock, at @freq Hz as a fixed period of 1e9/@freq ns (config 0
 * counts ns): what perf itself turns -F into for cpu-clock.  Frequency
 * mode is left to tests that keep their CPUs busy: the stand-in counts
 * through idle (as cpu-clock does, unlike cycles), and the kernel's
 * per-tick period estimate assumes one tick of counting per tick, which
 * a CPU leaving tickless idle breaks (the rate dips until the
 * per-overflow estimate pulls it back).  0, or -1 without the stand-in.
 */
int tp_cfg_init(struct kprof_config *cfg, __u64 freq)
{
	int type = tp_type();

	if (type < 0 || !freq)
		return -1;
	kp_cfg_init(cfg, freq);
	cfg->type = type;
	cfg->config = 0;
	cfg->flags &= ~KPROF_CFG_FREQ;
	cfg->sample = 1000000000ULL / freq;
	return 0;
}

/*
 * The request of a test that samples busy CPUs at @freq Hz on cpu-clock
 * or, with @testpmu, on the stand-in in frequency mode: kp_cfg_init()'s,
 * or tp_cfg_init()'s with KPROF_CFG_FREQ, kprof's knobs back to the
 * default max rate (tp_kprof_relax(): a variant before may have lowered
 * it on TCG) and both controllers off (tp_controller_off()).  0; 1
 * without the stand-in; -1 with errno when a limit could not be set.
 */
int tp_freq_cfg_init(struct kprof_config *cfg, bool testpmu, __u64 freq)
{
	struct kprof_throttle_config saved;

	if (!testpmu) {
		kp_cfg_init(cfg, freq);
		return 0;
	}
	if (tp_cfg_init(cfg, freq))
		return 1;
	cfg->flags |= KPROF_CFG_FREQ;
	cfg->sample = freq;
	if (tp_kprof_relax(&saved, 0) || tp_controller_off())
		return -1;
	return 0;
}

/*
 * kprof's own throttle knobs back to the default max rate, with @percent;
 * the old ones into @saved.  kprof's lowered max rate persists while it
 * stays loaded (as perf's sysctl does), and kprof refuses a frequency
 * above it, as perf_event_open() does: a test asking for -F N after
 * another test lowered it needs this.  0, or -1 with errno.
 */
int tp_kprof_relax(struct kprof_throttle_config *saved, int percent)
{
	struct kprof_throttle_config t;
	int fd = open(KP_DEV, O_RDONLY), ret = -1;

	if (fd < 0)
		return -1;
	memset(saved, 0, sizeof(*saved));
	saved->size = sizeof(*saved);
	if (ioctl(fd, KPROF_IOC_GET_THROTTLE, saved))
		goto out;
	t = *saved;
	/* The rate first, while the percent still allows writing it. */
	t.max_sample_rate = TP_DEFAULT_RATE;
	if (ioctl(fd, KPROF_IOC_SET_THROTTLE, &t))
		goto out;
	t.cpu_time_max_percent = percent;
	ret = ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
out:
	close(fd);
	return ret;
}

void tp_kprof_restore(const struct kprof_throttle_config *saved)
{
	struct kprof_throttle_config t = *saved;
	int fd = open(KP_DEV, O_RDONLY);

	if (fd < 0)
		return;
	t.max_sample_rate = TP_DEFAULT_RATE;
	t.cpu_time_max_percent = TP_DEFAULT_PERCENT;
	ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
	ioctl(fd, KPROF_IOC_SET_THROTTLE, saved);
	close(fd);
}
