/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kparams.h - kprof.ko's module parameters (/sys/module/kprof/parameters):
 * the configuration given at insmod, which kprofcat takes as its defaults,
 * and the throttle knobs (max_sample_rate, cpu_time_max_percent,
 * throttle_semantics), which kprofcat sets as root, as sysctl -w sets
 * perf's.
 */
#ifndef KPROFCAT_KPARAMS_H
#define KPROFCAT_KPARAMS_H

#include <stddef.h>

/* What insmod set; fields left at the module's own defaults read as unset. */
struct kparams_defaults {
	unsigned long long freq;	/* 0: not given */
	unsigned long long period;	/* 0: not given */
	unsigned int buffer_pages;	/* 0: the module's 64, as kprofcat's */
	unsigned int watermark;		/* 0: half a buffer */
	char event[64];			/* "": cpu-clock */
	char cpus[256];			/* "": all */
	int exclude_user;
	int exclude_kernel;
};

/* Read the parameters; -ENOENT (silently) when kprof.ko is not loaded. */
int kparams__defaults(struct kparams_defaults *d);
/* NAME's value, its newline stripped; -errno. */
int kparams__read(const char *name, char *buf, size_t len);
/*
 * Write a throttle knob (NAME as the parameter, OPT the option that asked);
 * -errno after a message naming the rule or the privilege it needs.
 */
int kparams__set_knob(const char *opt, const char *name, const char *val);
/* Where the parameters are looked up (tests; default /sys/module/kprof/parameters). */
void kparams__set_dir(const char *dir);

#endif
