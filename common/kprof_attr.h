/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kprof.ko asks of a precise (PEBS) event, shared with the host
 * tests, which check it against the large-PEBS flags of the kernels.
 *
 * kprof's handler takes nothing perf would collect for a sample, so its
 * attr's sample_type could be 0.  But with precise_ip and a fixed period,
 * intel_pmu_hw_config() (arch/x86/events/intel/core.c, 6.1 and later)
 * turns on large PEBS when no sample_type bit lies outside
 * intel_pmu_large_pebs_flags(): the PMI then comes only when the PEBS
 * buffer is full, and intel_pmu_drain_pebs_*() hands all records but the
 * last to perf_event_output() - no ring buffer on a kernel counter, so
 * they vanish uncounted - and only the last to the overflow handler.
 *
 * PERF_SAMPLE_CALLCHAIN is outside those flags on every kernel:
 * LARGE_PEBS_FLAGS (arch/x86/events/perf_event.h: IP, TID, ADDR, ID, CPU,
 * STREAM_ID, DATA_SRC, IDENTIFIER, TRANSACTION, PHYS_ADDR, REGS_INTR,
 * REGS_USER, PERIOD, CODE_PAGE_SIZE, WEIGHT_TYPE) and what boot adds for
 * PEBS formats 3-6 and arch PEBS in 7.x (TIME, BRANCH_STACK, READ).  It is
 * the bit `perf record -g` sets, and it makes the PEBS path compute the
 * chain from the interrupt registers (setup_pebs_*_sample_data():
 * perf_callchain(event, iregs): "we must however always use iregs for the
 * unwinder to stay sane"), which kprof's handler then copies instead of
 * unwinding from the PEBS registers, whose IP is the precise one.
 * Non-precise events keep sample_type 0: no callchain buffers are taken.
 */
#ifndef _KPROF_ATTR_H
#define _KPROF_ATTR_H

#include <linux/perf_event.h>
#include <linux/kprof.h>

#define KPROF_ATTR_PRECISE_SAMPLE_TYPE	PERF_SAMPLE_CALLCHAIN

/* The frames asked of the PMU's chain: what kprof records, at most 127. */
static inline __u16 kprof_attr_max_stack(const struct kprof_config *cfg)
{
	unsigned int n = cfg->kernel_stack + cfg->user_stack;

	return n < 127 ? n : 127;
}

/* The precise-event part of the attr kprof builds from @cfg. */
static inline void kprof_attr_precise(struct perf_event_attr *attr,
				      const struct kprof_config *cfg)
{
	attr->precise_ip = cfg->precise_ip;
	if (!cfg->precise_ip)
		return;
	attr->sample_type |= KPROF_ATTR_PRECISE_SAMPLE_TYPE;
	/* Only the chains kprof records. */
	attr->exclude_callchain_kernel =
		!(cfg->flags & KPROF_CFG_CALLCHAIN_KERNEL);
	attr->exclude_callchain_user = !(cfg->flags & KPROF_CFG_CALLCHAIN_USER);
	/*
	 * Their depth: perf_copy_attr() fills in the sysctl's default only
	 * for perf_event_open(); a kernel counter keeps what it is given,
	 * and 0 stores no frame at all (perf_callchain_store(): nr <
	 * max_stack).  Both chains kprof records, capped at the
	 * perf_event_max_stack default (127) that get_callchain_buffers()
	 * allows; a lower sysctl makes START fail with EOVERFLOW.
	 */
	attr->sample_max_stack = kprof_attr_max_stack(cfg);
}

#endif /* _KPROF_ATTR_H */
