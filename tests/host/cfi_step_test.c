// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_step_test: cfi_rule__step() takes a word from the snapshot's bytes
 * as its memory callback would give it, so where the bytes are given
 * must not change a step.  Random rules (any field, the %rbp rule's
 * encoding included), registers and memory are stepped twice: once with
 * the snapshot's bytes, once with none, every word read through the
 * callback, which serves the same bytes (but their last word, as
 * unwind.c's does), other words around them, 0 for some and a failed
 * read for others.  Both must end, go on or leave the
 * frame to libdwfl alike, with the same caller's registers and the same
 * last read.
 */
#include <stdint.h>
#include <string.h>

#include "kselftest_harness.h"

#include "lib/unwind/cfi_cache.h"

#define STACK_BASE	0x7ffd00000000ULL
#define STACK_WORDS	64
#define STACK_BYTES	(STACK_WORDS * 8)
/* Past this much above the snapshot, a read fails (libdwfl's callback can). */
#define READABLE	0x400

struct memory {
	uint64_t words[STACK_WORDS];
};

static uint64_t next_rand(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

/*
 * The snapshot's word at ADDR, but for its last (as unwind.c's callback
 * does), else one made of ADDR (0 every 7th), else none.
 */
static bool read_word(void *arg, uint64_t addr, uint64_t *val)
{
	const struct memory *m = arg;
	uint64_t off = addr - STACK_BASE;

	if (addr >= STACK_BASE && off + 8 < STACK_BYTES) {
		memcpy(val, (const unsigned char *)m->words + off, sizeof(*val));
		return true;
	}
	if (addr < STACK_BASE - READABLE || addr >= STACK_BASE + STACK_BYTES + READABLE)
		return false;
	*val = addr % 7 ? addr * 0x9e3779b97f4a7c15ULL : 0;
	return true;
}

static void random_memory(struct memory *m, uint64_t *rnd)
{
	unsigned int i;

	for (i = 0; i < STACK_WORDS; i++) {
		uint64_t r = next_rand(rnd);

		m->words[i] = r % 5 ? r : 0;
	}
}

/* An offset around the snapshot, mostly whole words. */
static int32_t random_off(uint64_t *rnd)
{
	uint64_t r = next_rand(rnd);
	int32_t off = (int32_t)(r % 96) * 8 - 256;

	return r % 9 ? off : off + (int32_t)(r >> 8) % 8;
}

static void random_rule(struct cfi_rule *r, uint64_t *rnd)
{
	uint64_t bits = next_rand(rnd);

	r->simple = bits % 8;
	r->cfa_bp = (bits >> 3) % 2;
	r->bp = (bits >> 4) % 5;
	r->ra_saved = (bits >> 8) % 8;
	r->has_last = (bits >> 11) % 4;
	r->cfa_off = random_off(rnd);
	r->sp_off = random_off(rnd);
	r->bp_off = random_off(rnd);
	r->ra_off = random_off(rnd);
	r->last_off = random_off(rnd);
}

static void random_regs(struct cfi_regs *regs, uint64_t *rnd)
{
	uint64_t r = next_rand(rnd);

	regs->pc = next_rand(rnd);
	regs->sp = STACK_BASE + r % (STACK_BYTES + 128) - 64;
	regs->bp = STACK_BASE + (r >> 16) % (STACK_BYTES + 128) - 64;
	regs->bp_set = (r >> 40) % 4;
	/* Now and then a frame pointer that is no address at all. */
	if ((r >> 44) % 16 == 0)
		regs->bp = (r >> 48) % 4096;
}

TEST(a_step_is_the_same_from_the_bytes_as_through_the_callback)
{
	uint64_t rnd = 0x2545f4914f6cdd1dULL;
	unsigned int i, seen[3] = { 0 };
	struct memory m;

	for (i = 0; i < 200000; i++) {
		struct cfi_mem bytes = { STACK_BASE, STACK_BASE + STACK_BYTES - 8,
					 (const unsigned char *)m.words, read_word, &m };
		struct cfi_mem calls = { 0, 0, NULL, read_word, &m };
		struct cfi_regs regs, a, b;
		bool zero_a = false, zero_b = false;
		enum cfi_step sa, sb;
		struct cfi_rule r;

		random_memory(&m, &rnd);
		random_rule(&r, &rnd);
		random_regs(&regs, &rnd);
		sa = cfi_rule__step(&r, &regs, &a, &zero_a, &bytes);
		sb = cfi_rule__step(&r, &regs, &b, &zero_b, &calls);
		ASSERT_EQ(sb, sa) TH_LOG("step %u", i);
		seen[sa]++;
		if (sa == CFI_STEP_NEXT) {
			ASSERT_EQ(b.pc, a.pc) TH_LOG("step %u", i);
			ASSERT_EQ(b.sp, a.sp) TH_LOG("step %u", i);
			ASSERT_EQ(b.bp, a.bp) TH_LOG("step %u", i);
			ASSERT_EQ(b.bp_set, a.bp_set) TH_LOG("step %u", i);
		}
		if (sa == CFI_STEP_END)
			ASSERT_EQ(zero_b, zero_a) TH_LOG("step %u", i);
	}
	/* Every outcome, many times: the draws reach each. */
	EXPECT_LT(10000, seen[CFI_STEP_NEXT]);
	EXPECT_LT(10000, seen[CFI_STEP_END]);
	EXPECT_LT(10000, seen[CFI_STEP_DWFL]);
	TH_LOG("next %u, end %u, libdwfl %u", seen[CFI_STEP_NEXT], seen[CFI_STEP_END],
	       seen[CFI_STEP_DWFL]);
}

TEST_HARNESS_MAIN
