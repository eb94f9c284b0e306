// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_state.c - the state every layer of kprof.ko shares: the global
 * session state, the per-CPU state and the mlock_kb parameter.  Data
 * only, defined below every file that uses it, so no file reaches up to
 * kprof_main.c for it; kprof.h says who may write which field and under
 * what (the mutex, the handler on its own CPU, or nothing after START).
 */
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/wait.h>

#include "kprof.h"

struct kprof_state kprof = {
	.lock = __MUTEX_INITIALIZER(kprof.lock),
	.wq = __WAIT_QUEUE_HEAD_INITIALIZER(kprof.wq),
};

struct kprof_cpu __percpu *kprof_pcpu;

/* kernel.perf_event_mlock_kb's default: 512 KiB + the control page. */
uint kprof_mlock_kb = 512 + (PAGE_SIZE / 1024);
module_param_named(mlock_kb, kprof_mlock_kb, uint, 0444);
MODULE_PARM_DESC(mlock_kb, "like kernel.perf_event_mlock_kb: buffer KiB per online CPU a user may have without RLIMIT_MEMLOCK");
