// SPDX-License-Identifier: GPL-2.0
/*
 * Negative mmap tests: each bad mapping of a CPU region (size, offset,
 * flags, protection, later mprotect/mremap/partial munmap) is refused with
 * a clean error and leaves the good mapping intact; a garbage data_tail
 * written while sampling is contained by the kernel; poll() waits for a
 * buffer to reach its watermark while running and reports what is left
 * after STOP; the read() path works while nothing is mapped and is refused
 * (EBUSY) while something is.
 */
#include "kprof_test.h"

#include <poll.h>

#include "kselftest_harness.h"

FIXTURE(mmap) {
	int fd;
	long pg;
	__u64 stride;
	unsigned int nr_cpu_ids;
	struct kp_buffers b;
};

FIXTURE_SETUP(mmap)
{
	struct kprof_config cfg;
	struct kprof_info info;

	KP_OPEN_OR_SKIP(self->fd);
	kp_cfg_init(&cfg, 1000);
	cfg.buffer_pages = 4;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_get_info(self->fd, &info));
	self->pg = sysconf(_SC_PAGESIZE);
	self->stride = info.mmap_stride;
	self->nr_cpu_ids = info.nr_cpu_ids;
	ASSERT_LE(5ULL * self->pg, self->stride);
}

FIXTURE_TEARDOWN(mmap)
{
	kp_close(self->fd, &self->b);
}

static void *map(int fd, size_t len, int prot, int flags, off_t off)
{
	return mmap(NULL, len, prot, flags, fd, off);
}

#define RW	(PROT_READ | PROT_WRITE)

/* The mapping at @p still shows CPU @cpu's control page. */
static int region_ok(void *p, unsigned int cpu)
{
	const struct kprof_mmap_page *pg = p;

	return pg->version == KPROF_ABI_VERSION && pg->cpu == cpu;
}

TEST_F(mmap, bad_size)
{
	KP_RETURN_IF_SKIPPED();
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->pg, RW, MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride - self->pg, RW,
				  MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride + self->pg, RW,
				  MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Two regions in one call. */
	if (self->nr_cpu_ids > 1) {
		EXPECT_EQ(MAP_FAILED, map(self->fd, 2 * self->stride, RW,
					  MAP_SHARED, 0));
		EXPECT_EQ(EINVAL, errno);
	}
}

TEST_F(mmap, bad_offset)
{
	KP_RETURN_IF_SKIPPED();
	/* Inside region 0, at its data pages. */
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, RW, MAP_SHARED,
				  self->pg));
	EXPECT_EQ(EINVAL, errno);
	/* Straddling regions 0 and 1. */
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, RW, MAP_SHARED,
				  self->stride / 2));
	EXPECT_EQ(EINVAL, errno);
	/* Not page aligned. */
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, RW, MAP_SHARED, 8));
	EXPECT_EQ(EINVAL, errno);
	/* A CPU number that cannot exist: beyond [0, nr_cpu_ids). */
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, RW, MAP_SHARED,
				  (off_t)(self->nr_cpu_ids * self->stride)));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, RW, MAP_SHARED,
				  (off_t)(KPROF_MAX_CPUS * self->stride)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mmap, bad_flags)
{
	KP_RETURN_IF_SKIPPED();
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, PROT_READ,
				  MAP_PRIVATE, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, RW | PROT_EXEC,
				  MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, map(self->fd, self->stride, PROT_READ | PROT_EXEC,
				  MAP_SHARED, 0));
	EXPECT_EQ(EINVAL, errno);
}

/* The buffer size cannot change under a mapping; other fields can. */
TEST_F(mmap, resize_while_mapped)
{
	struct kprof_config cfg;
	void *p;

	KP_RETURN_IF_SKIPPED();
	p = map(self->fd, self->stride, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("good mmap: %s", strerror(errno));
	kp_cfg_init(&cfg, 1000);
	cfg.buffer_pages = 8;
	EXPECT_EQ(-1, kp_set_config(self->fd, &cfg));
	EXPECT_EQ(EBUSY, errno);
	cfg.buffer_pages = 4;
	cfg.sample = 500;
	EXPECT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, munmap(p, self->stride));
	cfg.buffer_pages = 8;
	EXPECT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
}

/* Later changes to a good mapping are refused; the mapping survives. */
TEST_F(mmap, later_changes)
{
	void *p, *q, *spare;

	KP_RETURN_IF_SKIPPED();
	p = map(self->fd, self->stride, RW, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("good mmap: %s", strerror(errno));
	ASSERT_TRUE(region_ok(p, 0));

	/* No exec, ever (VM_MAYEXEC is gone). */
	EXPECT_EQ(-1, mprotect(p, self->stride, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, mprotect(p, self->pg, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);

	/* Grow in place or by moving: VM_DONTEXPAND refuses both. */
	q = mremap(p, self->stride, self->stride + self->pg, 0);
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_TRUE(errno == EFAULT || errno == EINVAL) TH_LOG("%s", strerror(errno));
	q = mremap(p, self->stride, 2 * self->stride, MREMAP_MAYMOVE);
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_TRUE(errno == EFAULT || errno == EINVAL) TH_LOG("%s", strerror(errno));

	/* Shrink: would split the region. */
	q = mremap(p, self->stride, self->stride - self->pg, 0);
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_EQ(EINVAL, errno);

	/* Move, same size. */
	spare = mmap(NULL, self->stride, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	ASSERT_NE(MAP_FAILED, spare);
	q = mremap(p, self->stride, self->stride, MREMAP_MAYMOVE | MREMAP_FIXED,
		   spare);
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_EQ(EINVAL, errno);
	if (q != MAP_FAILED)
		p = q;
	else
		munmap(spare, self->stride);

	/* Partial munmap: head, tail, middle. */
	EXPECT_EQ(-1, munmap(p, self->pg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap((char *)p + self->stride - self->pg, self->pg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, munmap((char *)p + self->pg, self->pg));
	EXPECT_EQ(EINVAL, errno);

	/* Still whole and readable; whole munmap works. */
	ASSERT_TRUE(region_ok(p, 0));
	(void)((volatile char *)p)[self->stride - 1];	/* faults if cut */
	ASSERT_EQ(0, munmap(p, self->stride));

	/* ...and the region can be mapped again. */
	p = map(self->fd, self->stride, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_TRUE(region_ok(p, 0));
	ASSERT_EQ(0, munmap(p, self->stride));
}

/*
 * A garbage data_tail (far ahead, far behind, random, unaligned) while
 * sampling: the kernel clamps it and stays within the buffer.  Then a
 * reader that resynchronises (tail = head) reads well-formed records, and
 * the counters still add up.
 */
TEST_F_TIMEOUT(mmap, garbage_tail, 60)
{
	unsigned int cpu, round;
	__u64 *last_head;
	struct kp_cpu *c;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	last_head = calloc(self->b.nr_cpu_ids, sizeof(*last_head));
	ASSERT_NE(NULL, last_head);
	srandom(getpid());
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));

	for (round = 0; round < 40; round++) {
		for (cpu = 0; cpu < self->b.nr_cpu_ids; cpu++) {
			struct kp_cpu *c = &self->b.cpus[cpu];
			__u64 head, tail;

			if (!c->base)
				continue;
			head = __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE);
			ASSERT_EQ(0ULL, head % 8) TH_LOG("CPU %u head %llu", cpu, head);
			ASSERT_LE(last_head[cpu], head) TH_LOG("CPU %u head went back", cpu);
			last_head[cpu] = head;
			switch (round % 5) {
			case 0:
				tail = head + (1ULL << 40);
				break;
			case 1:
				tail = head - 10 * c->data_size;
				break;
			case 2:
				tail = ((__u64)random() << 32) | random();
				break;
			case 3:
				tail = ~0ULL;
				break;
			default:
				tail = head - c->data_size / 2 + 3;
				break;
			}
			__atomic_store_n(&c->pg->data_tail, tail, __ATOMIC_RELEASE);
		}
		kp_sleep_ms(10);
	}

	/* Resynchronise and read properly: records are intact. */
	for (cpu = 0; cpu < self->b.nr_cpu_ids; cpu++) {
		struct kp_cpu *c = &self->b.cpus[cpu];

		if (c->base)
			__atomic_store_n(&c->pg->data_tail,
					 __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE),
					 __ATOMIC_RELEASE);
	}
	/*
	 * Until every CPU delivered again: an idle TCG vCPU can go hundreds
	 * of ms without running its timer (KP_PROGRESS_MS: a hang detector).
	 */
	for (round = 0; round < KP_PROGRESS_MS / 20; round++) {
		unsigned int waiting = 0;

		kp_sleep_ms(20);
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
		kp_for_each_online(&self->b, cpu, c)
			waiting += !c->samples;
		if (!waiting)
			break;
	}
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);

	kp_for_each_online(&self->b, cpu, c) {
		struct kprof_cpu_stats st;
		struct kprof_counters k;

		kp_page_counters(c, &k);
		ASSERT_EQ(0, kp_get_stats(self->fd, cpu, &st));
		EXPECT_EQ(0, memcmp(&st.counters, &k, sizeof(k)));
		EXPECT_EQ(k.overflows, k.samples + kp_lost_total(&k))
			TH_LOG("CPU %u", cpu);
		EXPECT_LT(0ULL, c->samples) TH_LOG("CPU %u: nothing after resync", cpu);
		EXPECT_EQ(0ULL, c->seq_disorder) TH_LOG("CPU %u", cpu);
	}
	free(last_head);
}

/* Parse a read() buffer: whole, well-formed records only. */
static int parse_read(const unsigned char *buf, ssize_t len,
		      unsigned int nr_cpu_ids, unsigned long *samples)
{
	ssize_t off = 0;

	while (off < len) {
		const struct kprof_record_header *h = (const void *)(buf + off);
		const struct kprof_sample *s = (const void *)h;

		if (len - off < (ssize_t)sizeof(*h) || h->size < 8 ||
		    h->size % 8 || h->size > len - off)
			return -1;
		if (h->type == KPROF_RECORD_SAMPLE) {
			if (h->size != sizeof(*s) + 8 * ((size_t)s->nr_kernel + s->nr_user) ||
			    s->cpu >= nr_cpu_ids)
				return -1;
			(*samples)++;
		}
		off += h->size;
	}
	return 0;
}

/* Unread bytes of the fullest mapped buffer. */
static __u64 max_unread(struct kp_buffers *b)
{
	__u64 most = 0, head, tail;
	unsigned int cpu;
	struct kp_cpu *c;

	kp_for_each_online(b, cpu, c) {
		head = __atomic_load_n(&c->pg->data_head, __ATOMIC_ACQUIRE);
		tail = c->pg->data_tail;
		if (head - tail > most)
			most = head - tail;
	}
	return most;
}

/*
 * 100 Hz without call chains writes about 10 KB/s per CPU, so 100 ms
 * leaves records in the buffers but far below the 8 KiB watermark (a
 * watermark of the whole 16 KiB data area counts as half of it).
 */
TEST_F_TIMEOUT(mmap, poll_watermark, 60)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct kprof_config cfg;
	__u64 level;

	KP_RETURN_IF_SKIPPED();
	kp_cfg_init(&cfg, 100);
	cfg.buffer_pages = 4;
	cfg.watermark = 4 * self->pg;
	level = 2 * self->pg;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));

	kp_sleep_ms(100);
	ASSERT_LT(0ULL, max_unread(&self->b)) TH_LOG("no record in 100 ms");
	ASSERT_GT(level, max_unread(&self->b));
	EXPECT_EQ(0, poll(&pfd, 1, 0))
		TH_LOG("readable at %llu unread bytes, below the watermark",
		       max_unread(&self->b));

	/* About 0.9 s to the level; the wakeup ends the wait. */
	ASSERT_EQ(1, poll(&pfd, 1, 10000)) TH_LOG("no wakeup at the watermark");
	EXPECT_EQ(POLLIN, pfd.revents);
	EXPECT_LE(level, max_unread(&self->b));

	/* Stopped: what is left is readable, then the stream has ended. */
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents);
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLHUP, pfd.revents);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
}

TEST_F_TIMEOUT(mmap, read_path, 60)
{
	static unsigned char buf[1 << 16];
	unsigned long samples = 0;
	ssize_t n;
	int i;
	void *p;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	for (i = 0; i < KP_PROGRESS_MS / 50 && !samples; i++) {
		kp_sleep_ms(50);
		n = read(self->fd, buf, sizeof(buf));
		ASSERT_LE(0, n) TH_LOG("read: %s", strerror(errno));
		ASSERT_EQ(0, parse_read(buf, n, self->nr_cpu_ids, &samples));
	}
	ASSERT_LT(0UL, samples);

	/* A buffer smaller than one record. */
	kp_sleep_ms(20);
	EXPECT_EQ(-1, read(self->fd, buf, 4));
	EXPECT_EQ(EINVAL, errno);

	/* Mapped: read() is refused, then works again after munmap. */
	p = map(self->fd, self->stride, PROT_READ, MAP_SHARED, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, read(self->fd, buf, sizeof(buf)));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, munmap(p, self->stride));

	samples = 0;
	for (i = 0; i < KP_PROGRESS_MS / 50 && !samples; i++) {
		kp_sleep_ms(50);
		n = read(self->fd, buf, sizeof(buf));
		ASSERT_LE(0, n) TH_LOG("read after munmap: %s", strerror(errno));
		ASSERT_EQ(0, parse_read(buf, n, self->nr_cpu_ids, &samples));
	}
	ASSERT_LT(0UL, samples);
	ASSERT_EQ(0, kp_stop(self->fd));
}

TEST_HARNESS_MAIN
