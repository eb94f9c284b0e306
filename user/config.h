/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - the command line's sampling options as struct kprof_config.
 */
#ifndef KPROFCAT_CONFIG_H
#define KPROFCAT_CONFIG_H

#include <linux/kprof.h>

/* -e NAME: type/config.  -EINVAL after listing the known names. */
int config__parse_event(struct kprof_config *c, const char *name);
/* -C LIST ("0,2-3").  -EINVAL after a message. */
int config__parse_cpus(struct kprof_config *c, const char *list);

#endif
