// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring's workers (iou-wrk-N, PF_IO_WORKER, PF_USER_WORKER since 6.4)
 * share the submitter's mm but never run in user mode: their SAMPLEs carry
 * no user chain, as get_perf_callchain() gives them none, and never the
 * zero user IP of their copy_thread() registers.  The workers are made to
 * run by reads of /dev/zero submitted with IOSQE_ASYNC, which io_uring
 * hands to its io-wq workers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

#define ENTRIES		16
#define READ_SIZE	(256 << 10)
#define WANT_SAMPLES	20	/* of workers, then stop */

struct ring {
	int fd, zero;
	unsigned int *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail;
	struct io_uring_sqe *sqes;
	char *buf;
};

static int ring_setup(struct ring *r)
{
	struct io_uring_params p;
	void *sq, *cq;

	memset(&p, 0, sizeof(p));
	r->fd = syscall(__NR_io_uring_setup, ENTRIES, &p);
	if (r->fd < 0)
		return -1;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(__u32),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	r->buf = malloc(READ_SIZE);
	r->zero = open("/dev/zero", O_RDONLY);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED ||
	    !r->buf || r->zero < 0)
		return -1;
	r->sq_tail = (unsigned int *)((char *)sq + p.sq_off.tail);
	r->sq_mask = (unsigned int *)((char *)sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned int *)((char *)sq + p.sq_off.array);
	r->cq_head = (unsigned int *)((char *)cq + p.cq_off.head);
	r->cq_tail = (unsigned int *)((char *)cq + p.cq_off.tail);
	return 0;
}

/* ENTRIES async reads of /dev/zero, waited for. */
static int ring_round(struct ring *r)
{
	unsigned int tail = *r->sq_tail, i;

	for (i = 0; i < ENTRIES; i++, tail++) {
		unsigned int idx = tail & *r->sq_mask;
		struct io_uring_sqe *sqe = &r->sqes[idx];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_READ;
		sqe->flags = IOSQE_ASYNC;
		sqe->fd = r->zero;
		sqe->addr = (unsigned long)r->buf;
		sqe->len = READ_SIZE;
		r->sq_array[idx] = idx;
	}
	__atomic_store_n(r->sq_tail, tail, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, ENTRIES, ENTRIES,
		    IORING_ENTER_GETEVENTS, NULL, 0) != ENTRIES)
		return -1;
	/* Completions are counted, not read: all ENTRIES are done. */
	__atomic_store_n(r->cq_head, __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
	return 0;
}

struct seen {
	__u64 workers, with_user;
};

static int on_sample(struct kp_buffers *b, struct kp_cpu *c,
		     const struct kprof_sample *s)
{
	struct seen *n = b->arg;

	(void)c;
	if (strncmp(s->comm, "iou-wrk-", 8))
		return 0;
	n->workers++;
	if (s->nr_user)
		n->with_user++;
	if (s->header.misc & KPROF_MISC_USER)
		return kp_fail(b, "an io_uring worker sampled in user mode");
	return 0;
}

FIXTURE(uring) {
	int fd;
	struct kp_buffers b;
};

FIXTURE_SETUP(uring)
{
	KP_OPEN_OR_SKIP(self->fd);
}

FIXTURE_TEARDOWN(uring)
{
	if (self->fd >= 0)
		kp_close(self->fd, &self->b);
}

TEST_F_TIMEOUT(uring, workers_have_no_user_chain, 60)
{
	struct kprof_config cfg;
	struct seen n = { 0 };
	struct ring r;
	double end;

	KP_RETURN_IF_SKIPPED();
	if (ring_setup(&r))
		SKIP(return, "io_uring: %s", strerror(errno));
	kp_cfg_init(&cfg, 1000);
	cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
	cfg.kernel_stack = 32;
	cfg.user_stack = 32;
	cfg.buffer_pages = 64;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	self->b.on_sample = on_sample;
	self->b.arg = &n;
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	/* Until enough workers' samples, or no progress (a hang detector). */
	end = kp_now() + KP_PROGRESS_MS / 1000.0;
	while (n.workers < WANT_SAMPLES && kp_now() < end) {
		ASSERT_EQ(0, ring_round(&r)) TH_LOG("io_uring_enter: %s", strerror(errno));
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	}
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	TH_LOG("%llu samples of io_uring workers", n.workers);
	ASSERT_LT(0ULL, n.workers)
		TH_LOG("no sample of an io_uring worker in %d ms", KP_PROGRESS_MS);
	ASSERT_EQ(0ULL, n.with_user)
		TH_LOG("%llu of %llu worker samples have a user chain",
		       n.with_user, n.workers);
}

TEST_HARNESS_MAIN
