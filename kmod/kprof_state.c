// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_state.c - the state every layer of kprof.ko shares: the global
 * control state, the per-CPU cost average and the mlock_kb parameter.  Data
 * only, defined below every file that uses it, so no file reaches up to
 * kprof_main.c for it; kprof.h says who may write which field and under
 * what (the mutex, the handler on its own CPU, or nothing after START).
 */
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include "kprof.h"

struct kprof_state kprof = {
	.lock = __MUTEX_INITIALIZER(kprof.lock),
};

/*
 * The CPU's handler cost average: one per CPU, fed by every session's
 * handler on it (never nesting in a way that matters: a feed is a few
 * stores, and an NMI feed inside an hrtimer feed only loses one update),
 * as the kernel's running_sample_length is one per CPU for every event.
 */
DEFINE_PER_CPU(struct kprof_throttle_cpu, kprof_cost);

/* kernel.perf_event_mlock_kb's default: 512 KiB + the control page. */
uint kprof_mlock_kb = 512 + (PAGE_SIZE / 1024);
module_param_named(mlock_kb, kprof_mlock_kb, uint, 0444);
MODULE_PARM_DESC(mlock_kb, "like kernel.perf_event_mlock_kb: buffer KiB per online CPU a user may have without RLIMIT_MEMLOCK");
