// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_state.c - the state every layer of kprof.ko shares: the global
 * control state, the per-CPU cost average and the mlock_kb parameter.  Data
 * only, defined below every file that uses it, so no file reaches up to
 * kprof_main.c for it; kprof.h says who may write which field and under
 * what (the mutex, the handler on its own CPU, or nothing after START).
 */
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include "kprof.h"

struct kprof_state kprof = {
	.lock = __MUTEX_INITIALIZER(kprof.lock),
	.map_lock = __MUTEX_INITIALIZER(kprof.map_lock),
	.sessions = LIST_HEAD_INIT(kprof.sessions),
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

/*
 * Sessions that may sample at once: each adds a pinned event and an
 * overflow handler on every CPU it samples.  The handlers share each
 * CPU's time budget (one cost average, kprof_cost, as in the kernel), so
 * more sessions do not cost more CPU time than the knobs allow, but each
 * gets a smaller share of it; and each hardware session takes a counter
 * of a PMU that has only 4 to 8 general ones (the NMI watchdog and perf
 * want some too), where a pinned event that finds none fails START.  4
 * leaves room for that on every x86 PMU; the administrator may change it
 * (root, 0644): a lower value refuses new STARTs, never stops a session.
 */
uint kprof_max_sessions = 4;
module_param_named(max_sessions, kprof_max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions, "sessions (open files of /dev/kprof) that may sample at once; START beyond it fails with EBUSY (default 4)");
