// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_buffer.c - kprof's per-CPU ring buffers.
 *
 * Each selected CPU has one region, its pages on the CPU's node and mapped
 * with vmap(): a control page (struct kprof_mmap_page) followed by a
 * power-of-two data area.  The memory is charged as perf charges its ring
 * buffers (kprof_bufs_charge()).  The producer is
 * that CPU's overflow/NMI handler, possibly nested (an NMI inside the
 * cpu-clock hrtimer interrupt); it works like kernel/events/ring_buffer.c:
 * writers reserve space with a cmpxchg loop on a local_t head, copy their
 * record, and only the outermost writer publishes data_head.  The consumer
 * is either user space through mmap() or read() below, never both at once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "kprof.h"
#include "kprof_compat.h"

/*
 * irq_work on the CPU whose handler crossed the watermark: publish that
 * CPU's counters (lazily, not per sample) and wake the readers.
 */
static void kprof_buffer_wakeup_work(struct irq_work *work)
{
	struct kprof_buf *b = container_of(work, struct kprof_buf, wakeup);
	/*
	 * Queued by the producer, which STOP and SET_CONFIG wait for
	 * (irq_work_sync()) before they detach it: set here.
	 */
	struct kprof_cpu *c = b->producer;

	if (WARN_ON_ONCE(!c))
		return;
	kprof_counters_publish(c);
	wake_up_all(&c->session->wq);
}

/**
 * kprof_bufs_set_watermark() - set every CPU's wakeup and poll() level
 * @bufs: the buffers
 * @watermark: bytes, 0 for half the data area
 *
 * At most half the ring: poll() and the wakeup share this level, and a
 * full ring (the last record did not fit) may hold less than a watermark
 * set near its size, which would leave a sleeping reader never woken.
 *
 * Context: process context, sampling stopped (the caller holds the
 * configuration lock).
 */
void kprof_bufs_set_watermark(struct kprof_bufs *bufs, u32 watermark)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_buf *b = &bufs->cpu[cpu];
		unsigned long half = b->size / 2;

		/* poll() reads it without kprof.lock. */
		WRITE_ONCE(b->watermark,
			   watermark ? min_t(unsigned long, watermark, half) :
				       half);
	}
}

/*
 * Charge @nr pages the way perf_mmap() charges a ring buffer: to the
 * user's locked_vm (the very counter perf's rings use) up to mlock_kb per
 * online CPU, the rest to the caller's pinned_vm, which RLIMIT_MEMLOCK
 * bounds unless the caller has CAP_IPC_LOCK.  Unlike perf, which also
 * waives the limit at perf_event_paranoid -1, nothing here reads that
 * sysctl: it is not exported, and a path is the opener's to forge.
 */
static int kprof_bufs_charge(struct kprof_bufs *bufs, unsigned long nr)
{
	unsigned long user_limit, user_locked, extra = 0;
	struct user_struct *user = current_user();
	struct mm_struct *mm = current->mm;

	user_limit = (unsigned long)kprof_mlock_kb >> (PAGE_SHIFT - 10);
	user_limit *= num_online_cpus();
	user_locked = atomic_long_read(&user->locked_vm);
	if (user_locked > user_limit)
		extra = nr;	/* already beyond (perf's rings count too) */
	else if (user_locked + nr > user_limit)
		extra = user_locked + nr - user_limit;

	/* No mm (a kernel thread) has no pinned_vm to take the rest. */
	if (extra && !mm)
		return -EPERM;
	if (extra && atomic64_read(&mm->pinned_vm) + extra >
		     rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT &&
	    !capable(CAP_IPC_LOCK))
		return -EPERM;

	atomic_long_add(nr - extra, &user->locked_vm);
	bufs->user = get_uid(user);
	bufs->locked_pages = nr - extra;
	if (extra) {
		atomic64_add(extra, &mm->pinned_vm);
		mmgrab(mm);
		bufs->mm = mm;
		bufs->pinned_pages = extra;
	}
	return 0;
}

static void kprof_bufs_uncharge(struct kprof_bufs *bufs)
{
	atomic_long_sub(bufs->locked_pages, &bufs->user->locked_vm);
	free_uid(bufs->user);
	if (bufs->mm) {
		atomic64_sub(bufs->pinned_pages, &bufs->mm->pinned_vm);
		mmdrop(bufs->mm);
	}
}

/*
 * One CPU's region, its pages on @node: perf's ring buffers are there,
 * next to the CPU that writes them.  VM_USERMAP lets remap_vmalloc_range()
 * map it.  The pages and their array stay @b's, freed by
 * kprof_region_free() after vunmap(), not handed to vfree() with
 * VM_MAP_PUT_PAGES: vfree() of such an area subtracts from VmallocUsed
 * (nr_vmalloc_pages) and the memcg's vmalloc count what vmap() never
 * added, on kernels without the fix that made it skip them (6.13, and
 * the stable kernels it went back to).
 */
static void *kprof_region_alloc(struct kprof_buf *b, unsigned long nr,
				int node)
{
	struct page **pages;
	unsigned long i;
	void *addr;

	pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL_ACCOUNT);
	if (!pages)
		return NULL;
	for (i = 0; i < nr; i++) {
		pages[i] = alloc_pages_node(node, GFP_KERNEL_ACCOUNT | __GFP_ZERO,
					    0);
		if (!pages[i])
			goto free_pages;
	}
	addr = vmap(pages, nr, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (addr) {
		b->pages = pages;
		b->nr_pages = nr;
		return addr;
	}
free_pages:
	while (i--)
		__free_page(pages[i]);
	kvfree(pages);
	return NULL;
}

static void kprof_region_free(struct kprof_buf *b)
{
	unsigned long i;

	vunmap(b->page);
	for (i = 0; i < b->nr_pages; i++)
		__free_page(b->pages[i]);
	kvfree(b->pages);
}

static void kprof_bufs_free_regions(struct kprof_bufs *bufs)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_buf *b = &bufs->cpu[cpu];

		if (!b->page)
			continue;	/* kprof_bufs_alloc() failed before it */
		if (cpumask_test_cpu(cpu, &bufs->cpus))
			kprof_region_free(b);
		else
			free_page((unsigned long)b->page);
	}
}

/*
 * A CPU the configuration selects gets a whole region; any other only a
 * zeroed control page, no data and no mapping (ENODEV): the stop path
 * and GET_STATS publish every possible CPU's counters without asking
 * which CPUs run, and a page per CPU is what the cpumask costs anyway.
 */
static int kprof_buf_init(struct kprof_bufs *bufs, unsigned int cpu)
{
	struct kprof_buf *b = &bufs->cpu[cpu];
	bool selected = cpumask_test_cpu(cpu, &bufs->cpus);
	struct kprof_mmap_page *pg;

	if (selected)
		pg = kprof_region_alloc(b, bufs->region_size >> PAGE_SHIFT,
					cpu_to_node(cpu));
	else
		pg = (void *)get_zeroed_page(GFP_KERNEL_ACCOUNT);
	if (!pg)
		return -ENOMEM;
	b->page = pg;
	if (selected) {
		b->data = (void *)pg + PAGE_SIZE;
		b->size = bufs->region_size - PAGE_SIZE;
	}
	local_set(&b->head, 0);
	b->published = 0;
	local_set(&b->nest, 0);
	local_set(&b->wakeup_head, 0);
	init_irq_work(&b->wakeup, kprof_buffer_wakeup_work);

	pg->version = KPROF_ABI_VERSION;
	pg->compat_version = KPROF_ABI_COMPAT_VERSION;
	pg->size = sizeof(*pg);
	pg->cpu = cpu;
	pg->data_offset = PAGE_SIZE;
	pg->data_size = b->size;
	return 0;
}

/**
 * kprof_bufs_alloc() - allocate zeroed buffers for the selected CPUs
 * @pages: data pages per CPU, a power of two
 * @watermark: bytes between reader wakeups, 0 for (and at most) half the
 *	       data area
 * @cpus: the CPUs the configuration samples (possible ones); offline
 *	  CPUs among them get theirs too, so that it is mapped before they
 *	  come online
 *
 * The memory is charged to the caller (see kprof_bufs_charge()) until the
 * set is freed.
 *
 * Context: process context, may sleep.
 * Return: the buffer set with one reference, ERR_PTR(-EPERM) beyond the
 * caller's memory limit, ERR_PTR(-ENOMEM).
 */
struct kprof_bufs *kprof_bufs_alloc(u32 pages, u32 watermark,
				    const struct cpumask *cpus)
{
	struct kprof_bufs *bufs;
	unsigned int cpu;
	int ret;

	BUILD_BUG_ON(sizeof(struct kprof_mmap_page) > PAGE_SIZE);

	bufs = kzalloc(struct_size(bufs, cpu, nr_cpu_ids), GFP_KERNEL);
	if (!bufs)
		return ERR_PTR(-ENOMEM);
	kref_init(&bufs->ref);
	atomic_set(&bufs->mapped, 0);
	bufs->pages = pages;
	bufs->region_size = PAGE_SIZE + ((unsigned long)pages << PAGE_SHIFT);
	cpumask_and(&bufs->cpus, cpus, cpu_possible_mask);

	ret = kprof_bufs_charge(bufs, cpumask_weight(&bufs->cpus) *
				      (1 + (unsigned long)pages) +
				      num_possible_cpus() -
				      cpumask_weight(&bufs->cpus));
	if (ret)
		goto free_bufs;
	for_each_possible_cpu(cpu) {
		ret = kprof_buf_init(bufs, cpu);
		if (ret)
			goto free_regions;
	}
	kprof_bufs_set_watermark(bufs, watermark);
	return bufs;

free_regions:
	kprof_bufs_free_regions(bufs);
	kprof_bufs_uncharge(bufs);
free_bufs:
	kfree(bufs);
	return ERR_PTR(ret);
}

/**
 * kprof_bufs_reset() - empty every buffer of a set for a new session
 * @bufs: the buffers
 *
 * Heads, tails and counters back to 0 and the data areas zeroed: a
 * session reads its own records and not one byte of an earlier one's.
 * Done in place, not by a new set: the only mappings that can exist are
 * those of the file about to own the data (START refuses others), and the
 * region keeps its size and charge.
 *
 * Context: process context, producers quiesced, no read() in progress.
 */
void kprof_bufs_reset(struct kprof_bufs *bufs)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_buf *b = &bufs->cpu[cpu];
		struct kprof_mmap_page *pg = b->page;

		irq_work_sync(&b->wakeup);
		local_set(&b->head, 0);
		b->published = 0;
		local_set(&b->nest, 0);
		local_set(&b->wakeup_head, 0);
		kprof_counters_clear_page(b);
		if (b->data)
			memset(b->data, 0, b->size);
		/* The emptied data before the empty ring is announced. */
		smp_store_release(&pg->data_head, 0);
		WRITE_ONCE(pg->data_tail, 0);
	}
}

/**
 * kprof_bufs_get() - take a reference on a buffer set
 * @bufs: the buffers
 */
void kprof_bufs_get(struct kprof_bufs *bufs)
{
	kref_get(&bufs->ref);
}

static void kprof_bufs_release(struct kref *ref)
{
	struct kprof_bufs *bufs = container_of(ref, struct kprof_bufs, ref);
	unsigned int cpu;

	/* A wakeup queued by the last record must not run on freed memory. */
	for_each_possible_cpu(cpu)
		irq_work_sync(&bufs->cpu[cpu].wakeup);
	kprof_bufs_free_regions(bufs);
	kprof_bufs_uncharge(bufs);
	kfree(bufs);
}

/**
 * kprof_bufs_put() - drop a reference, freeing the buffers with the last
 * @bufs: the buffers
 *
 * Context: process context (may sleep in irq_work_sync()).
 */
void kprof_bufs_put(struct kprof_bufs *bufs)
{
	kref_put(&bufs->ref, kprof_bufs_release);
}

/*
 * The reader's tail, clamped into [head - size, head]: user space may have
 * written anything there, and the producer must never be talked into
 * overwriting unread data it cannot account for, or beyond the area.
 */
static unsigned long kprof_buffer_tail(struct kprof_buf *b, unsigned long head)
{
	unsigned long tail = READ_ONCE(b->page->data_tail);

	if ((long)(head - tail) < 0)
		return head;
	if (head - tail > b->size)
		return head - b->size;
	return tail;
}

/*
 * kprof_buffer_publish() - end a write; the outermost writer publishes.
 *
 * Since the consumer (user space or read()) runs on another CPU:
 *
 *   producer				consumer
 *
 *   if (LOAD ->data_tail) {		LOAD-ACQUIRE ->data_head	(C)
 *			(A)		LOAD $data
 *	STORE $data			STORE-RELEASE ->data_tail	(D)
 *	STORE-RELEASE ->data_head (B)
 *   }
 *
 * A pairs with D, B pairs with C.  A is the control dependency of the
 * room check in kprof_buffer_reserve(), as in perf_output_begin(): the
 * record stores cannot be done before the tail load they depend on, so
 * they cannot overwrite bytes the consumer has not finished reading.  D
 * orders the consumer's data loads before its tail store.  B orders the
 * record stores before the head store, C the head load before the data
 * loads.  This is perf_output_put_handle()'s pairing, with release/acquire
 * in place of its smp_wmb()/smp_rmb(); include/uapi/linux/kprof.h cites
 * it.
 *
 * Nested writers (an NMI inside the hrtimer interrupt) only drop the nest
 * count: the writer they interrupted publishes both records.  After
 * publishing, the outermost writer re-checks the head so that a writer
 * that nested between its load of head and its nest decrement is not left
 * unpublished.
 */
static void kprof_buffer_publish(struct kprof_buf *b)
{
	unsigned long head;

	if (local_read(&b->nest) > 1) {
		local_dec(&b->nest);
		return;
	}
again:
	/*
	 * Load head after our nest increment, so we never publish a head
	 * older than one published by a writer that nested before it.
	 */
	barrier();
	head = local_read(&b->head);
	/*
	 * Nothing new (an overflow lost to the throttle, a full ring or
	 * nesting): leave the reader's cache line alone.
	 */
	if (head != b->published) {
		smp_store_release(&b->page->data_head, head); /* B, matches C */
		WRITE_ONCE(b->published, head);
	}

	/*
	 * Publish before leaving the nest: otherwise a writer nesting now
	 * publishes a newer head that our store would move back.
	 */
	barrier();
	local_set(&b->nest, 0);

	/* Leave the nest before the re-check, to catch the last nested write. */
	barrier();
	if (unlikely(head != local_read(&b->head))) {
		local_set(&b->nest, 1);
		goto again;
	}
}

/*
 * Reserve @size bytes, with @slack more left free behind them (room for a
 * LOST record, see kprof_buffer_reserve_rec()), inside a
 * kprof_buffer_begin() / kprof_buffer_end() section.  On success the
 * caller writes its record at *@start.  The only read-modify-write per record is the local (not
 * LOCKed) cmpxchg of the head.
 */
static bool kprof_buffer_reserve(struct kprof_buf *b, unsigned long size,
				 unsigned long slack, unsigned long *start)
{
	unsigned long tail, offset, head;

	do {
		offset = local_read(&b->head);
		head = offset;
		/*
		 * Clamped against the published head, not the reserved one:
		 * the reader cannot have read past data_head, and a tail it
		 * wrote beyond would free the bytes of the records a writer
		 * this one nests in has reserved but not yet published.  A
		 * nested writer may see an older published head: a lower
		 * clamp, less room, never too much.
		 */
		tail = kprof_buffer_tail(b, READ_ONCE(b->published));
		/*
		 * A, matches D: the record stores depend on this branch, so
		 * they are ordered after the tail load (a control dependency,
		 * as in perf_output_begin()).  See kprof_buffer_publish().
		 */
		if (unlikely(head - tail + size + slack > b->size))
			return false;
		head += size;
	} while (local_cmpxchg(&b->head, offset, head) != offset);

	*start = offset;
	return true;
}

/**
 * kprof_buffer_copy_at() - copy reserved bytes into the buffer
 * @b: the buffer, inside the write section that reserved them
 * @pos: their byte counter (kprof_buffer_reserve_rec())
 * @src: what to copy
 * @len: how many bytes, in two pieces when they wrap
 */
void kprof_buffer_copy_at(struct kprof_buf *b, unsigned long pos,
			  const void *src, unsigned long len)
{
	unsigned long off = pos & (b->size - 1);
	unsigned long first = min(len, b->size - off);

	memcpy(b->data + off, src, first);
	if (first < len)
		memcpy(b->data, src + first, len - first);
}

/**
 * kprof_buffer_copy_user_at() - copy user memory into reserved bytes
 * @b: the buffer, inside the write section that reserved them
 * @pos: their byte counter (kprof_buffer_reserve_rec())
 * @src: user address to copy from
 * @len: how many bytes, in two pieces when they wrap
 *
 * With copy_from_user_nmi(), which never faults a page in nor sleeps, as
 * perf's arch_perf_out_copy_user.  The bytes read are the first ones:
 * once a piece stops short the second is not tried.  The bytes past them
 * keep what the ring held: the caller gives them back or zeroes them
 * (kprof_buffer_zero_at()).
 *
 * Context: the producer (hardirq or NMI).
 * Return: how many bytes were read.
 */
unsigned long kprof_buffer_copy_user_at(struct kprof_buf *b, unsigned long pos,
					const void __user *src,
					unsigned long len)
{
	unsigned long off = pos & (b->size - 1);
	unsigned long first = min(len, b->size - off);
	unsigned long done;

	done = first - copy_from_user_nmi(b->data + off, src, first);
	if (done == first && first < len)
		done += len - first - copy_from_user_nmi(b->data, src + first,
							  len - first);
	return done;
}

/**
 * kprof_buffer_zero_at() - zero reserved bytes
 * @b: the buffer, inside the write section that reserved them
 * @pos: their byte counter
 * @len: how many, in two pieces when they wrap
 */
void kprof_buffer_zero_at(struct kprof_buf *b, unsigned long pos,
			  unsigned long len)
{
	unsigned long off = pos & (b->size - 1);
	unsigned long first = min(len, b->size - off);

	memset(b->data + off, 0, first);
	if (first < len)
		memset(b->data, 0, len - first);
}

/**
 * kprof_buffer_room() - bytes a record reserved now could take at most
 * @b: this CPU's buffer, inside a write section
 *
 * Less the slack every reservation keeps and a LOST record that may have
 * to go first (kprof_buffer_reserve_rec()).  A writer nesting before the
 * reservation may take some of it: then the reservation fails, as any.
 *
 * Return: the room, 0 when there is none.
 */
unsigned long kprof_buffer_room(struct kprof_buf *b)
{
	unsigned long head = local_read(&b->head);
	unsigned long used = head - kprof_buffer_tail(b, READ_ONCE(b->published));
	unsigned long keep = used + 2 * sizeof(struct kprof_lost);

	return keep < b->size ? b->size - keep : 0;
}

/*
 * Write a LOST record for the claimed counts at @pos, stamped @time (that
 * of the record it precedes); account it.  Returns the position after it.
 */
static unsigned long kprof_buffer_put_lost(struct kprof_cpu *c,
					   unsigned long pos, u64 time,
					   const u64 *claimed)
{
	struct kprof_lost lost = {
		.header = {
			.type = KPROF_RECORD_LOST,
			.size = sizeof(lost),
		},
		.time = time,
		.full = claimed[KPROF_LOST_FULL],
		.nested = claimed[KPROF_LOST_NESTED],
		.stopped = claimed[KPROF_LOST_STOPPED],
		.throttled = claimed[KPROF_LOST_THROTTLED],
		.throttle = claimed[KPROF_LOST_THROTTLE_REC],
		.unthrottle = claimed[KPROF_LOST_UNTHROTTLE_REC],
		.lowered = claimed[KPROF_LOST_LOWERED_REC],
		.would = claimed[KPROF_LOST_WOULD_REC],
	};
	int i;

	BUILD_BUG_ON(KPROF_NR_LOST != 8);
	kprof_buffer_copy_at(c->buf, pos, &lost, sizeof(lost));
	for (i = 0; i < KPROF_NR_LOST_OVERFLOWS; i++)
		local64_add(claimed[i], &c->count[KPROF_CNT_LOST_RECORDS]);
	return pos + sizeof(lost);
}

/*
 * Take the pending loss counts (record kinds at most U32_MAX at a time,
 * the width of their LOST fields).  Nothing pending is the common case:
 * one read of pending_any says so.  The flag is cleared before the counts
 * are read, so a count added by a nested writer after the read of its
 * counter has set it again (kprof_pending_add()).  A claim is a local
 * cmpxchg, so a nested writer adding meanwhile is never lost.
 */
static bool kprof_buffer_claim_lost(struct kprof_cpu *c, u64 *claimed)
{
	bool any = false, left = false;
	int i;

	if (!local_read(&c->pending_any))
		return false;
	local_set(&c->pending_any, 0);
	barrier();
	for (i = 0; i < KPROF_NR_LOST; i++) {
		u64 v, take;

		claimed[i] = 0;
		do {
			v = local64_read(&c->pending[i]);
			if (!v)
				break;
			take = i < KPROF_NR_LOST_OVERFLOWS ? v :
			       min_t(u64, v, U32_MAX);
		} while (local64_cmpxchg(&c->pending[i], v, v - take) != v);
		if (v) {
			claimed[i] = take;
			any = true;
			left |= take < v;
		}
	}
	if (left)
		local_set(&c->pending_any, 1);
	return any;
}

static void kprof_buffer_unclaim_lost(struct kprof_cpu *c, const u64 *claimed)
{
	int i;

	for (i = 0; i < KPROF_NR_LOST; i++)
		if (claimed[i])
			kprof_pending_add(c, i, claimed[i]);
}

/**
 * kprof_buffer_begin() - enter a write section of this CPU's buffer
 * @b: the buffer
 *
 * Records put until kprof_buffer_end() are published together by it
 * (or by the outermost section this one nests in).
 */
void kprof_buffer_begin(struct kprof_buf *b)
{
	local_inc(&b->nest);
}

/**
 * kprof_buffer_reserve_rec() - reserve one record in this CPU's buffer
 * @c: this CPU's state (its buf is the target), inside a write section
 * @size: bytes, a multiple of 8
 * @time: the record's time, also that of a LOST record put before it
 * @pos: out: the byte counter of the record, for kprof_buffer_at() (to
 *	 write it in place) or kprof_buffer_copy_at(), and
 *	 kprof_buffer_patch_u32(), all before kprof_buffer_end()
 *
 * Losses not yet reported go first, as a LOST record reserved together
 * with the record, so they are in-band right before the next record that
 * fits.  Every reservation leaves room for one more LOST record behind
 * it, so the stop path can always report the final losses.
 *
 * Context: this CPU's producer (hardirq or NMI), or the stop path once the
 * producer is quiesced.
 * Return: true if reserved, false if the buffer had no room.
 */
bool kprof_buffer_reserve_rec(struct kprof_cpu *c, u32 size, u64 time,
			      unsigned long *pos)
{
	u64 claimed[KPROF_NR_LOST];
	unsigned long at, need = size;
	bool lost;

	lost = kprof_buffer_claim_lost(c, claimed);
	if (lost)
		need += sizeof(struct kprof_lost);

	if (!kprof_buffer_reserve(c->buf, need, sizeof(struct kprof_lost),
				  &at)) {
		if (lost)
			kprof_buffer_unclaim_lost(c, claimed);
		return false;
	}
	if (lost)
		at = kprof_buffer_put_lost(c, at, time, claimed);
	*pos = at;
	return true;
}

/**
 * kprof_buffer_at() - where a reserved record can be written in place
 * @b: the buffer, inside the write section that reserved it
 * @pos: its byte counter (kprof_buffer_reserve_rec())
 * @size: its size
 *
 * Return: the record's address, or NULL when it wraps the end of the data
 * area (then it is built elsewhere and kprof_buffer_copy_at() puts it).
 */
void *kprof_buffer_at(struct kprof_buf *b, unsigned long pos, u32 size)
{
	unsigned long off = pos & (b->size - 1);

	return off + size <= b->size ? b->data + off : NULL;
}

/*
 * One record (header.size == @size) copied into this CPU's buffer,
 * unpublished: kprof_buffer_reserve_rec(), then the copy.  False if the
 * buffer had no room.
 */
static bool kprof_buffer_put(struct kprof_cpu *c, const void *rec, u32 size,
			     u64 time)
{
	unsigned long at;

	if (!kprof_buffer_reserve_rec(c, size, time, &at))
		return false;
	kprof_buffer_copy_at(c->buf, at, rec, size);
	return true;
}

/**
 * kprof_buffer_patch_u32() - rewrite a field of a record not yet published
 * @b: the buffer, inside the write section that put the record
 * @pos: byte counter of the field, 4-byte aligned (so it never wraps)
 * @val: the value
 */
void kprof_buffer_patch_u32(struct kprof_buf *b, unsigned long pos, u32 val)
{
	*(u32 *)(b->data + (pos & (b->size - 1))) = val;
}

/**
 * kprof_buffer_patch_u16() - rewrite a 2-byte field of a record not yet
 * published
 * @b: the buffer, inside the write section that put the record
 * @pos: byte counter of the field, 2-byte aligned (so it never wraps)
 * @val: the value
 */
void kprof_buffer_patch_u16(struct kprof_buf *b, unsigned long pos, u16 val)
{
	*(u16 *)(b->data + (pos & (b->size - 1))) = val;
}

/**
 * kprof_buffer_shrink() - give back the end of the last record reserved
 * @b: the buffer, inside the write section that reserved the record
 * @end: the byte counter just past the record
 * @new_end: where it is to end, at most @end
 *
 * Only while no record was reserved after it (one nesting since took the
 * bytes from @end on): the head moves back with the local cmpxchg that
 * moved it forward (kprof_buffer_reserve()).  Nothing was published past
 * the record, which is in an open write section, so no reader has seen
 * the bytes given back.
 *
 * Return: true if they were given back.
 */
bool kprof_buffer_shrink(struct kprof_buf *b, unsigned long end,
			 unsigned long new_end)
{
	return local_cmpxchg(&b->head, end, new_end) == end;
}

/**
 * kprof_buffer_wakeup() - queue the reader wakeup a watermark crossing owes
 * @b: the buffer, inside a write section
 *
 * The watermark is counted from the later of the last wakeup's head and
 * the reader's tail.  From the last wakeup alone, a reader that drained
 * past it between wakeups (on a timeout, at a side-band event) would be
 * woken at wakeup_head + watermark holding less than a watermark, which
 * poll() does not call readable, and not again before wakeup_head +
 * 2 * watermark: with the largest watermark, half the ring, never, the
 * ring being full before.  Counted from the tail too, a reader asleep in
 * poll() is woken by the record that brings its unread bytes to the
 * watermark.  The tail is loaded again, from the line
 * kprof_buffer_reserve() has just loaded it from, and needs no ordering:
 * a reader only moves it forward, so a stale one makes a wakeup early,
 * never late (kprof_bufs_readable() covers an early one).  The last
 * wakeup's head still bounds the rate to one wakeup per watermark of
 * records written.
 *
 * Only the outermost section checks (a nested one's records are counted
 * by it or by the next).  The irq_work runs after the interrupt returns,
 * by when kprof_buffer_end() has published what it is woken for; so the
 * handler calls this before taking its end time, as the kernel's PMI
 * cost covers its wakeup.
 */
void kprof_buffer_wakeup(struct kprof_buf *b)
{
	unsigned long head, from, tail;

	if (local_read(&b->nest) > 1)
		return;
	head = local_read(&b->head);
	from = local_read(&b->wakeup_head);
	tail = kprof_buffer_tail(b, READ_ONCE(b->published));
	if ((long)(tail - from) > 0)
		from = tail;
	/* wake_up() takes locks: never from here, defer to irq_work. */
	if (head - from >= b->watermark) {
		local_set(&b->wakeup_head, head);
		irq_work_queue(&b->wakeup);
	}
}

/**
 * kprof_buffer_end() - leave a write section; the outermost publishes
 * @b: the buffer
 */
void kprof_buffer_end(struct kprof_buf *b)
{
	kprof_buffer_publish(b);
}

/**
 * kprof_buffer_output() - write and publish one record
 * @c: this CPU's state (its buf is the target)
 * @rec: the record, header.size == @size
 * @size: bytes, a multiple of 8
 * @time: the record's time
 *
 * kprof_buffer_put() in a section of its own, with its wakeup.
 *
 * Context: this CPU's producer, its throttle timer, or the stop path once
 * the producer is quiesced.
 * Return: true if written, false if the buffer had no room.
 */
bool kprof_buffer_output(struct kprof_cpu *c, const void *rec, u32 size,
			 u64 time)
{
	bool ok;

	kprof_buffer_begin(c->buf);
	ok = kprof_buffer_put(c, rec, size, time);
	kprof_buffer_wakeup(c->buf);
	kprof_buffer_end(c->buf);
	return ok;
}

/**
 * kprof_buffer_flush_lost() - write the losses still pending as LOST
 * @c: a CPU's state whose producer is quiesced (after STOP, before START)
 *
 * Uses the slack every other reservation left, so it fits unless the
 * reader moved data_tail backwards; then the counts stay pending and
 * lost_records stays below the lost counters.
 *
 * Return: true when nothing is left pending.
 */
bool kprof_buffer_flush_lost(struct kprof_cpu *c)
{
	u64 claimed[KPROF_NR_LOST];
	unsigned long pos;
	bool ok = true;

	if (!kprof_buffer_claim_lost(c, claimed))
		return true;
	kprof_buffer_begin(c->buf);
	if (kprof_buffer_reserve(c->buf, sizeof(struct kprof_lost), 0, &pos)) {
		kprof_buffer_put_lost(c, pos, local_clock(), claimed);
	} else {
		kprof_buffer_unclaim_lost(c, claimed);
		ok = false;
	}
	kprof_buffer_end(c->buf);
	return ok;
}

/**
 * kprof_buffer_set_flags() - update a control page's KPROF_PAGE_* flags
 * @b: the buffer
 * @set: flags to set
 * @clear: flags to clear
 *
 * Context: control path (kprof.lock or this CPU's cpuhp callback).
 */
void kprof_buffer_set_flags(struct kprof_buf *b, u32 set, u32 clear)
{
	WRITE_ONCE(b->page->flags, (b->page->flags & ~clear) | set);
}

/**
 * kprof_bufs_readable() - whether a reader has records to take
 * @bufs: the buffers
 * @watermark: count only a buffer holding at least its watermark, or
 *	       records a wakeup was sent for
 *
 * poll() asks with @watermark while sampling runs, as perf's poll() waits
 * for the wakeup a watermark crossing sends: a reader that polls right
 * after draining sleeps until a buffer is worth a drain instead of
 * spinning on every record.  kprof_buffer_wakeup() fires when a buffer's
 * unread bytes reach the watermark, counted from the reader's tail once
 * it has read past the last wakeup, so a reader that sleeps here is woken
 * by the record that makes this true.
 *
 * A wakeup may also come while the reader is between its load of
 * data_head and its store of the tail: counted from the older tail, its
 * head can lie less than a watermark past the tail the reader then
 * sleeps with, and the next wakeup is counted from that head.  So, as
 * perf's poll() reports the rb->poll a wakeup set, a buffer whose reader
 * has not read up to the last wakeup's head is readable: otherwise that
 * reader would sleep until almost twice the watermark is unread.  The
 * wakeup's head is stored before the data_head that publishes it, and C
 * orders the loads here: a head not published yet is taken for none, and
 * its irq_work, which runs after the publication, wakes the reader.
 *
 * Return: true if some buffer's data_head is ahead of its (clamped) tail,
 * by at least its watermark or past its last wakeup when @watermark.
 */
bool kprof_bufs_readable(struct kprof_bufs *bufs, bool watermark)
{
	unsigned int cpu;

	for_each_cpu(cpu, &bufs->cpus) {
		struct kprof_buf *b = &bufs->cpu[cpu];
		/* C, matches B in kprof_buffer_publish() */
		unsigned long head = smp_load_acquire(&b->page->data_head);
		unsigned long tail = kprof_buffer_tail(b, head);
		unsigned long woken;

		if (head == tail)
			continue;
		if (!watermark || head - tail >= READ_ONCE(b->watermark))
			return true;
		woken = local_read(&b->wakeup_head);
		if ((long)(woken - tail) > 0 && (long)(head - woken) >= 0)
			return true;
	}
	return false;
}

/* Copy out of the ring at byte counter @pos, in two pieces when it wraps. */
static int kprof_buffer_copy_to_user(struct kprof_buf *b, char __user *dst,
				     unsigned long pos, unsigned long len)
{
	unsigned long off = pos & (b->size - 1);
	unsigned long first = min(len, b->size - off);

	if (copy_to_user(dst, b->data + off, first))
		return -EFAULT;
	if (first < len && copy_to_user(dst + first, b->data, len - first))
		return -EFAULT;
	return 0;
}

/*
 * Move whole records of one CPU to @ubuf + *@done.  Returns -EINVAL when
 * the next record does not fit and nothing was copied yet, -EFAULT, 1 when
 * @ubuf is full, 0 when this CPU is drained.
 */
static int kprof_buffer_read(struct kprof_buf *b, char __user *ubuf,
			     size_t count, size_t *done)
{
	unsigned long head = smp_load_acquire(&b->page->data_head); /* C */
	unsigned long tail = kprof_buffer_tail(b, head);
	int ret = 0;

	while (tail != head) {
		struct kprof_record_header hdr;
		unsigned long off = tail & (b->size - 1);
		unsigned long size;

		if (tail % 8) {
			/* A garbage tail left by a former mapping: resync. */
			tail = head;
			break;
		}
		/* Records are 8-byte multiples: a header never wraps. */
		memcpy(&hdr, b->data + off, sizeof(hdr));
		size = hdr.size;
		if (size < sizeof(hdr) || size % 8 || size > head - tail) {
			tail = head;
			break;
		}
		if (size > count - *done) {
			ret = *done ? 1 : -EINVAL;
			break;
		}
		ret = kprof_buffer_copy_to_user(b, ubuf + *done, tail, size);
		if (ret)
			break;
		*done += size;
		tail += size;
	}
	smp_store_release(&b->page->data_tail, tail);	/* D */
	return ret;
}

/**
 * kprof_bufs_read() - read() path: drain whole records from all CPUs
 * @bufs: the buffers, not mapped
 * @ubuf: user buffer
 * @count: its size
 *
 * Context: process context; the caller serializes readers.
 * Return: bytes copied (0 if there was nothing), -EINVAL if the first
 * record does not fit in @count, -EFAULT.
 */
ssize_t kprof_bufs_read(struct kprof_bufs *bufs, char __user *ubuf,
			size_t count)
{
	size_t done = 0;
	unsigned int cpu;
	int ret;

	for_each_cpu(cpu, &bufs->cpus) {
		ret = kprof_buffer_read(&bufs->cpu[cpu], ubuf, count, &done);
		if (ret < 0)
			return done ? done : ret;
		if (ret > 0)
			break;
	}
	return done;
}

/*
 * Mappings are counted per buffer set (read() and SET_CONFIG wait for
 * none) and per file (START wants no other file's); a mapping holds its
 * file, so the file's state outlives it.
 */
static void kprof_vm_open(struct vm_area_struct *vma)
{
	struct kprof_file *f = vma->vm_file->private_data;
	struct kprof_bufs *bufs = vma->vm_private_data;

	kprof_bufs_get(bufs);
	atomic_inc(&bufs->mapped);
	atomic_inc(&f->mapped);
}

static void kprof_vm_close(struct vm_area_struct *vma)
{
	struct kprof_file *f = vma->vm_file->private_data;
	struct kprof_bufs *bufs = vma->vm_private_data;

	atomic_dec(&f->mapped);
	atomic_dec(&bufs->mapped);
	kprof_bufs_put(bufs);
}

/* A region is mapped whole or not at all: no partial munmap(). */
static int kprof_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static int kprof_vm_mremap(struct vm_area_struct *vma)
{
	return -EINVAL;
}

static const struct vm_operations_struct kprof_vm_ops = {
	.open = kprof_vm_open,
	.close = kprof_vm_close,
	.may_split = kprof_vm_may_split,
	.mremap = kprof_vm_mremap,
};

/**
 * kprof_bufs_mmap() - map one CPU's region
 * @bufs: the buffers
 * @vma: the mapping: exactly one region at its offset, shared, no exec
 *
 * Return: 0, -EINVAL for a bad size, offset or flags, -ENODEV for a CPU
 * that is not possible.
 */
int kprof_bufs_mmap(struct kprof_bufs *bufs, struct vm_area_struct *vma)
{
	unsigned long region_pages = bufs->region_size >> PAGE_SHIFT;
	unsigned long cpu;
	int ret;

	/* VM_MAYSHARE: MAP_SHARED of a read-only file has no VM_SHARED. */
	if (!(vma->vm_flags & VM_MAYSHARE) || (vma->vm_flags & VM_EXEC))
		return -EINVAL;
	if (vma->vm_end - vma->vm_start != bufs->region_size ||
	    vma->vm_pgoff % region_pages)
		return -EINVAL;
	cpu = vma->vm_pgoff / region_pages;
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	if (!cpumask_test_cpu(cpu, &bufs->cpus))
		return -ENODEV;

	/* No exec later (mprotect), no fork copy, no growth, no core dump. */
	kprof_vm_flags_mod(vma, VM_DONTEXPAND | VM_DONTCOPY | VM_DONTDUMP,
			   VM_MAYEXEC);
	ret = remap_vmalloc_range(vma, bufs->cpu[cpu].page, 0);
	if (ret)
		return ret;

	vma->vm_ops = &kprof_vm_ops;
	vma->vm_private_data = bufs;
	kprof_vm_open(vma);
	return 0;
}
