/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - the command line's sampling options as struct kprof_config.
 */
#ifndef KPROFCAT_CONFIG_H
#define KPROFCAT_CONFIG_H

#include <linux/kprof.h>

/*
 * -e EVENT: type/config/config1/config2.  EVENT is a generic name, rNNNN,
 * or a PMU as perf spells it, NAME/TERMS/ (see config.c).  A period= or
 * freq= term sets sample and KPROF_CFG_FREQ and *sample_given (it wins
 * over -c/-F, as in perf).  -EINVAL/-ENOENT after a message.
 */
int config__parse_event(struct kprof_config *c, const char *name, int *sample_given);
/* -C LIST ("0,2-3").  -EINVAL after a message. */
int config__parse_cpus(struct kprof_config *c, const char *list);
/* Where PMUs are looked up: ROOT/bus/event_source/devices (default /sys). */
void config__set_sysfs(const char *root);

#endif
