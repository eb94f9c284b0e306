// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_ustack.c - the user registers and user stack copy of a SAMPLE with
 * DWARF call chains (KPROF_CFG_CALLCHAIN_DWARF), as perf's
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER give them for
 * --call-graph dwarf: the reader unwinds the user chain from them, with
 * the unwind tables of the code, which needs no frame pointers.
 *
 * Called from the overflow handler (hardirq or NMI context, see
 * kprof_sample.c): no locks, no allocation, no sleeping; the stack is read
 * with copy_from_user_nmi(), which fails on a page not present instead of
 * faulting it in.
 */
#include <linux/align.h>
#include <linux/hardirq.h>
#include <linux/limits.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <asm/ptrace.h>

#include "kprof.h"

/* header.size is a __u16 multiple of 8. */
#define KPROF_RECORD_MAX_SIZE	round_down(U16_MAX, 8)

/*
 * The user registers of the interrupted task, as perf_get_regs_user() and
 * perf_prepare_sample() choose them: the interrupted ones in user mode,
 * else those the kernel entry saved, none for a task without a user
 * context (as kprof_user_chain()).  *@partial: an NMI in kernel mode,
 * where perf reports only the registers every entry path has saved.
 * NULL also for 32-bit tasks, whose registers and frames the reader does
 * not unwind (it reads ABI_64 only).
 */
static struct pt_regs *kprof_ustack_user_regs(struct pt_regs *regs,
					      bool *partial)
{
	struct pt_regs *uregs;

	*partial = false;
	if (!current->mm || (current->flags & KPROF_NO_USER_CONTEXT))
		return NULL;
	if (user_mode(regs)) {
		uregs = regs;
	} else {
		uregs = task_pt_regs(current);
		/*
		 * An NMI that interrupted the entry code while it built
		 * task_pt_regs() cannot trust them: perf says ABI_NONE.
		 */
		if (in_nmi() && regs->sp > (unsigned long)&uregs->r11 &&
		    regs->sp <= (unsigned long)(uregs + 1))
			return NULL;
		*partial = in_nmi();
	}
	return user_64bit_mode(uregs) ? uregs : NULL;
}

/**
 * kprof_ustack_regs() - the abi, regs[] and size words of a SAMPLE's tail
 * @regs: the interrupted context
 * @out: where to write them (the scratch record, after the chains); room
 *	 for KPROF_USTACK_REGS_SIZE bytes
 * @u: out: the user stack pointer, and size 0 until kprof_ustack_size()
 *
 * regs[] in KPROF_REGS_USER_MASK order (include/uapi/linux/kprof.h); the
 * size word, last, is left for the caller to fill in once
 * kprof_ustack_size() has chosen it.
 *
 * Context: the overflow handler.
 * Return: how many words were written, size's included: 2 with abi NONE
 * (no regs[]), else 2 + KPROF_REGS_USER_NR.
 */
unsigned int kprof_ustack_regs(struct pt_regs *regs, u64 *out,
			       struct kprof_ustack *u)
{
	struct pt_regs *ur;
	bool partial;
	unsigned int n = 0;

	BUILD_BUG_ON(KPROF_REGS_USER_NR != 20 ||
		     KPROF_REGS_USER_MASK != 0xff0fffULL);
	u->sp = 0;
	u->size = 0;
	ur = kprof_ustack_user_regs(regs, &partial);
	if (!ur) {
		out[n++] = KPROF_SAMPLE_REGS_ABI_NONE;
		out[n++] = 0;
		return n;
	}
	out[n++] = KPROF_SAMPLE_REGS_ABI_64;
	/* PERF_REG_X86_AX .. SS, then R8 .. R15 (DS, ES, FS, GS not in the mask) */
	out[n++] = ur->ax;
	out[n++] = partial ? -1 : ur->bx;
	out[n++] = ur->cx;
	out[n++] = ur->dx;
	out[n++] = ur->si;
	out[n++] = ur->di;
	out[n++] = ur->bp;
	out[n++] = ur->sp;
	out[n++] = ur->ip;
	out[n++] = ur->flags;
	out[n++] = ur->cs;
	out[n++] = ur->ss;
	out[n++] = ur->r8;
	out[n++] = ur->r9;
	out[n++] = ur->r10;
	out[n++] = ur->r11;
	out[n++] = partial ? -1 : ur->r12;
	out[n++] = partial ? -1 : ur->r13;
	out[n++] = partial ? -1 : ur->r14;
	out[n++] = partial ? -1 : ur->r15;
	out[n++] = 0;
	u->sp = ur->sp;
	return n;
}

/**
 * kprof_ustack_size() - how many bytes of user stack this SAMPLE copies
 * @u: from kprof_ustack_regs(); its size is set
 * @other: the record's other bytes (header to the size word)
 * @room: kprof_buffer_room() now
 * @max_size: the session's configured user_stack_size
 *
 * The configured size, clamped as perf_sample_ustack_size() clamps it (to
 * what lies below the top of the user address space above sp, and to what
 * a record's __u16 size holds), and to the ring's room, so that a full
 * ring shortens the copy before it loses the sample.  A multiple of 8.
 *
 * Context: the overflow handler.
 * Return: the bytes it adds to the record: size, and dyn_size's 8 unless
 * size is 0.
 */
u32 kprof_ustack_size(struct kprof_ustack *u, u32 other, unsigned long room,
		      u32 max_size)
{
	unsigned long max = max_size;
	u32 fixed = other + sizeof(u64);	/* dyn_size */

	u->size = 0;
	if (!u->sp || u->sp >= TASK_SIZE)
		return 0;
	max = min(max, TASK_SIZE - u->sp);
	if (fixed >= KPROF_RECORD_MAX_SIZE || fixed >= room)
		return 0;
	max = min(max, KPROF_RECORD_MAX_SIZE - fixed);
	max = min(max, room - fixed);
	u->size = round_down(max, 8);
	return u->size ? u->size + sizeof(u64) : 0;
}

/**
 * kprof_ustack_put() - the stack bytes and dyn_size of a SAMPLE's tail
 * @b: the buffer, inside the write section that reserved the record
 * @rec: byte counter of the record (its header)
 * @pos: byte counter of data[] (right after the size word)
 * @u: what kprof_ustack_size() chose; nothing is written when size is 0
 *
 * dyn_size is the count of bytes read from sp up.  When the copy stops
 * short (the stack's mapping ends less than size above sp, as it does in
 * most tasks, whose stack in use is a few KiB), the record is cut to the
 * bytes read, rounded up to 8: the size word and header.size say so, and
 * the rest goes back to the ring (kprof_buffer_shrink()), so neither the
 * ring nor the reader carries bytes that were never read.  Where a record
 * nesting since holds the bytes after this one, it keeps its size and
 * the bytes not read are zeroed, as include/uapi/linux/kprof.h promises.
 * Nothing that was not read reaches user space either way.
 *
 * Context: the overflow handler, inside the region the cost is measured.
 */
void kprof_ustack_put(struct kprof_buf *b, unsigned long rec,
		      unsigned long pos, const struct kprof_ustack *u)
{
	unsigned long end = pos + u->size + sizeof(u64), new_end;
	u64 dyn, size = u->size;

	if (!size)
		return;
	dyn = kprof_buffer_copy_user_at(b, pos, (const void __user *)u->sp,
					size);
	if (dyn < size) {
		size = round_up(dyn, 8);
		/* Nothing read: no data[] and no dyn_size (UAPI). */
		new_end = size ? pos + size + sizeof(u64) : pos;
		if (kprof_buffer_shrink(b, end, new_end)) {
			kprof_buffer_copy_at(b, pos - sizeof(u64), &size,
					     sizeof(size));
			kprof_buffer_patch_u16(b, rec +
					       offsetof(struct kprof_record_header, size),
					       new_end - rec);
			if (!size)
				return;
		} else {
			size = u->size;
		}
		kprof_buffer_zero_at(b, pos + dyn, size - dyn);
	}
	kprof_buffer_copy_at(b, pos + size, &dyn, sizeof(dyn));
}
