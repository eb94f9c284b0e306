// SPDX-License-Identifier: GPL-2.0
/*
 * attr_test.c - the precise-event part of the perf_event_attr kprof.ko
 * builds (common/kprof_attr.h, called by kprof_build_attr()) never lets
 * x86 turn on large PEBS, on any supported kernel.
 *
 * intel_pmu_hw_config() enables large PEBS for a precise, fixed-period
 * event when !(attr.sample_type & ~intel_pmu_large_pebs_flags(event)).
 * The flags below are the union over the kernels kprof supports, written
 * from their sources: LARGE_PEBS_FLAGS of arch/x86/events/perf_event.h
 * (6.1 and 6.12 alike), plus what intel_ds_init() adds for PEBS formats
 * 3-6 (TIME, BRANCH_STACK) and what 7.x adds for arch PEBS (READ).  Every
 * precise configuration must have a bit outside all of them; a
 * non-precise one must ask for nothing (no callchain buffers).
 */
#include <linux/perf_event.h>
#include <string.h>

#include "kselftest_harness.h"
#include "kprof_attr.h"

#define LARGE_PEBS_FLAGS_ANY						\
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |		\
	 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID |	\
	 PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER |		\
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |		\
	 PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_REGS_USER |		\
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CODE_PAGE_SIZE |		\
	 PERF_SAMPLE_WEIGHT_TYPE |					\
	 PERF_SAMPLE_TIME | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_READ)

FIXTURE(attr) {
	struct kprof_config cfg;
	struct perf_event_attr attr;
};

FIXTURE_VARIANT(attr) {
	__u32 precise_ip;
	__u64 flags;
};

FIXTURE_VARIANT_ADD(attr, precise0) { .precise_ip = 0 };

FIXTURE_VARIANT_ADD(attr, precise1) { .precise_ip = 1 };

FIXTURE_VARIANT_ADD(attr, precise2_chains) {
	.precise_ip = 2,
	.flags = KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER,
};

FIXTURE_VARIANT_ADD(attr, precise3_kernel_chain) {
	.precise_ip = 3, .flags = KPROF_CFG_CALLCHAIN_KERNEL,
};

FIXTURE_VARIANT_ADD(attr, precise1_user_chain) {
	.precise_ip = 1, .flags = KPROF_CFG_CALLCHAIN_USER,
};

FIXTURE_SETUP(attr)
{
	memset(&self->cfg, 0, sizeof(self->cfg));
	self->cfg.size = sizeof(self->cfg);
	self->cfg.type = PERF_TYPE_HARDWARE;
	self->cfg.config = PERF_COUNT_HW_CPU_CYCLES;
	self->cfg.sample = 100003;	/* a period: where large PEBS applies */
	self->cfg.precise_ip = variant->precise_ip;
	self->cfg.flags = variant->flags;
	self->cfg.kernel_stack = 32;
	self->cfg.user_stack = 16;
	memset(&self->attr, 0, sizeof(self->attr));
	kprof_attr_precise(&self->attr, &self->cfg);
}

FIXTURE_TEARDOWN(attr)
{
}

TEST_F(attr, no_large_pebs)
{
	EXPECT_EQ(variant->precise_ip, (__u32)self->attr.precise_ip);
	if (!variant->precise_ip) {
		EXPECT_EQ(0ULL, self->attr.sample_type);
		return;
	}
	EXPECT_NE(0ULL, self->attr.sample_type & ~(__u64)LARGE_PEBS_FLAGS_ANY)
		TH_LOG("sample_type %#llx is inside the large-PEBS flags",
		       (unsigned long long)self->attr.sample_type);
}

/* The PMU's chain is only asked for the parts kprof records. */
TEST_F(attr, chain_parts_as_configured)
{
	if (!variant->precise_ip)
		return;
	EXPECT_EQ(!(variant->flags & KPROF_CFG_CALLCHAIN_KERNEL),
		  (int)self->attr.exclude_callchain_kernel);
	EXPECT_EQ(!(variant->flags & KPROF_CFG_CALLCHAIN_USER),
		  (int)self->attr.exclude_callchain_user);
}

/*
 * A kernel counter's chain depth is what the attr says (0: no frames,
 * perf_copy_attr() is not on its path), capped at the sysctl's default.
 */
TEST_F(attr, chain_depth_asked)
{
	if (!variant->precise_ip)
		return;
	EXPECT_EQ(self->cfg.kernel_stack + self->cfg.user_stack,
		  (int)self->attr.sample_max_stack);
	self->cfg.kernel_stack = KPROF_MAX_STACK;
	self->cfg.user_stack = KPROF_MAX_STACK;
	kprof_attr_precise(&self->attr, &self->cfg);
	EXPECT_EQ(127, (int)self->attr.sample_max_stack);
}

TEST_HARNESS_MAIN
