// SPDX-License-Identifier: GPL-2.0
/*
 * kparams.c - kprof.ko's module parameters, see kparams.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/dev/kparams.h"
#include "lib/util/parse.h"
#include "lib/util/print.h"

static const char *param_dir = "/sys/module/kprof/parameters";

void kparams__set_dir(const char *dir)
{
	param_dir = dir;
}

int kparams__read(const char *name, char *buf, size_t len)
{
	char path[512];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), "%s/%s", param_dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static unsigned long long read_ull(const char *name)
{
	char buf[64];
	unsigned long long v;

	if (kparams__read(name, buf, sizeof(buf)) || parse__u64(buf, 10, &v))
		return 0;
	return v;
}

static int read_bool(const char *name)
{
	char buf[8];

	return !kparams__read(name, buf, sizeof(buf)) && (buf[0] == 'Y' || buf[0] == '1');
}

int kparams__defaults(struct kparams_defaults *d)
{
	char buf[16];

	memset(d, 0, sizeof(*d));
	/* freq is always there: the module is loaded (and new enough). */
	if (kparams__read("freq", buf, sizeof(buf)))
		return -ENOENT;
	d->freq = read_ull("freq");
	d->period = read_ull("period");
	d->buffer_pages = read_ull("buffer_pages");
	if (d->buffer_pages == 64)
		d->buffer_pages = 0;
	d->watermark = read_ull("watermark");
	if (kparams__read("event", d->event, sizeof(d->event)) ||
	    !strcmp(d->event, "cpu-clock"))
		d->event[0] = '\0';
	if (kparams__read("cpus", d->cpus, sizeof(d->cpus)))
		d->cpus[0] = '\0';
	d->exclude_user = read_bool("exclude_user");
	d->exclude_kernel = read_bool("exclude_kernel");
	return 0;
}

static void knob_error(const char *opt, const char *name, const char *val, int e)
{
	if (e == ENOENT)
		p_err("%s: kprof.ko is not loaded (no %s/%s): load the module first (insmod kmod/kprof.ko)",
		      opt, param_dir, name);
	else if (e == EACCES)
		p_err("%s %s: permission denied: %s/%s is a system-wide knob, like the perf sysctls it mirrors: run as root (or write it there)",
		      opt, val, param_dir, name);
	else if (e == EPERM)
		p_err("%s %s: switching kprof's cost controller off (0 or 100) is a debug setting that needs CAP_SYS_ADMIN",
		      opt, val);
	else if (e == EINVAL && !strcmp(name, "max_sample_rate"))
		p_err("%s %s refused: want 1 to %d, and kprof's cpu_time_max_percent must not be 0 or 100 (as kernel.perf_event_max_sample_rate cannot be written while perf_cpu_time_max_percent is): set --cpu-time-max-percent to 1..99 first",
		      opt, val, 0x7fffffff);
	else if (e == EINVAL && !strcmp(name, "cpu_time_max_percent"))
		p_err("%s %s refused: want a percent from 0 to 100 (0 and 100 switch the cost controller off)",
		      opt, val);
	else if (e == EINVAL)
		p_err("%s %s refused: use ge, gt or shadow", opt, val);
	else
		p_err("%s %s: writing %s/%s: %s", opt, val, param_dir, name, strerror(e));
}

int kparams__set_knob(const char *opt, const char *name, const char *val)
{
	char path[512];
	size_t len = strlen(val);
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/%s", param_dir, name);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);	/* as echo >FILE */
	if (fd < 0) {
		e = errno;
	} else {
		if (write(fd, val, len) != (ssize_t)len)
			e = errno ? errno : EIO;
		if (close(fd) && !e)
			e = errno;
	}
	if (e) {
		knob_error(opt, name, val, e);
		return -e;
	}
	return 0;
}
