// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input, as syzkaller would send it: two threads drive /dev/kprof
 * through a few shared files with random kprof ioctl numbers and sizes up
 * to 4 KiB, random and mutated structs, bad pointers, random mmap()
 * offsets, lengths, protections and flags, read() of random sizes,
 * START/STOP/SET_CONFIG interleaved, and close()/reopen of a file while
 * the other thread may be inside an ioctl on it.
 *
 * Reproducible: every random choice comes from the seed, printed first
 * and with any failure; KPROF_FUZZ_SEED=N replays one (thread scheduling
 * aside).  Bounded: KPROF_FUZZ_SECONDS (default 20) of operations, each of
 * which returns (files are O_NONBLOCK).
 * What must hold: no splat (the test bed fails the run on one), no fault
 * in this process, and afterwards a clean session on a fresh file whose
 * counters add up.
 */
#include "kprof_test.h"
#include "kprof_throttle.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include "kselftest_harness.h"

#define FZ_FILES	3
#define FZ_THREADS	2
#define FZ_ARG_SIZE	4096

static int fz_fds[FZ_FILES];
static volatile int fz_stop;
static long fz_pagesize;

struct fz_thread {
	pthread_t tid;
	__u64 rng;
	unsigned long ops, mapped, reads, ioctls_ok;
	/*
	 * FZ_ARG_SIZE bytes right below a PROT_NONE page: what the kernel
	 * copies out past a pointer near its end faults (EFAULT) instead of
	 * overwriting this program.
	 */
	unsigned char *arg;
};

/* xorshift64*: small, and the same sequence on every machine. */
static __u64 fz_rand(struct fz_thread *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1DULL;
}

static __u64 fz_below(struct fz_thread *t, __u64 n)
{
	return n ? fz_rand(t) % n : 0;
}

static void fz_fill(struct fz_thread *t, void *p, size_t len)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		c[i] = (unsigned char)fz_rand(t);
}

static int fz_fd(struct fz_thread *t)
{
	return __atomic_load_n(&fz_fds[fz_below(t, FZ_FILES)], __ATOMIC_RELAXED);
}

/* A pointer a syscall may be handed: ours, NULL, unmapped, kernel. */
static void *fz_ptr(struct fz_thread *t)
{
	switch (fz_below(t, 16)) {
	case 0:
		return NULL;
	case 1:
		return (void *)0x1000;			/* unmapped */
	case 2:
		return (void *)0xffffffff81000000UL;	/* kernel text */
	case 3:
		return t->arg + FZ_ARG_SIZE - fz_below(t, 8); /* straddles */
	default:
		return t->arg;
	}
}

/* A kprof struct with 'size' first: plausible, or anything. */
static void fz_struct(struct fz_thread *t, __u32 size_hint)
{
	__u32 *size = (__u32 *)t->arg;

	fz_fill(t, t->arg, FZ_ARG_SIZE);
	switch (fz_below(t, 4)) {
	case 0:
		break;					/* random size too */
	case 1:
		*size = fz_below(t, FZ_ARG_SIZE + 64);
		break;
	default:
		/* Zeroed tail past the hint: only fields are random. */
		*size = size_hint + 8 * fz_below(t, 4);
		memset(t->arg + size_hint, 0, FZ_ARG_SIZE - size_hint);
		break;
	}
}

/* A valid configuration with one field made wrong, or none. */
static void fz_config(struct fz_thread *t, struct kprof_config *cfg)
{
	static const __u32 pages[] = { 0, 1, 2, 3, 8, 16, 64, 65537 };
	unsigned int cpu = fz_below(t, 4);

	kp_cfg_init(cfg, 50 + fz_below(t, 2000));
	cfg->buffer_pages = 1U << fz_below(t, 5);
	if (fz_below(t, 2))
		kp_cfg_add_cpu(cfg, cpu);
	if (fz_below(t, 2)) {
		cfg->flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
		cfg->kernel_stack = 1 + fz_below(t, KPROF_MAX_STACK);
		cfg->user_stack = 1 + fz_below(t, KPROF_MAX_STACK);
	}
	switch (fz_below(t, 10)) {
	case 0:
		cfg->flags = fz_rand(t);
		break;
	case 1:
		cfg->type = fz_below(t, 8);
		break;
	case 2:
		cfg->config = fz_rand(t);
		break;
	case 3:
		cfg->sample = fz_rand(t);
		break;
	case 4:
		cfg->buffer_pages = pages[fz_below(t, 8)];
		break;
	case 5:
		cfg->watermark = fz_rand(t);
		break;
	case 6:
		cfg->cpumask[fz_below(t, KPROF_MAX_CPUS / 64)] = fz_rand(t);
		break;
	case 7:
		cfg->__reserved[fz_below(t, 8)] = fz_rand(t);
		break;
	default:
		break;
	}
}

static void fz_op_ioctl_raw(struct fz_thread *t)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE
	};
	unsigned int type = fz_below(t, 8) ? KPROF_IOC_MAGIC : fz_below(t, 256);
	unsigned long cmd = _IOC(dirs[fz_below(t, 4)], type, fz_below(t, 16),
				 fz_below(t, FZ_ARG_SIZE));

	fz_struct(t, 8 + 8 * fz_below(t, 200));
	if (!ioctl(fz_fd(t), cmd, fz_ptr(t)))
		t->ioctls_ok++;
}

static void fz_op_session(struct fz_thread *t)
{
	struct kprof_throttle_config th = { .size = sizeof(th) };
	struct kprof_cpu_stats st;
	struct kprof_config cfg;
	int fd = fz_fd(t);

	switch (fz_below(t, 7)) {
	case 0:
		fz_config(t, &cfg);
		kp_set_config(fd, &cfg);
		break;
	case 1:
		kp_start(fd);
		break;
	case 2:
		kp_stop(fd);
		break;
	case 3:
		kp_get_stats(fd, fz_below(t, 8), &st);
		break;
	case 4:
		if (ioctl(fd, KPROF_IOC_GET_THROTTLE, &th))
			break;
		switch (fz_below(t, 4)) {
		case 0:
			th.__reserved0 = fz_below(t, 2) ? 0 : fz_rand(t);
			break;
		case 1:
			th.cpu_time_max_percent = fz_below(t, 120);
			break;
		case 2:
			th.semantics = fz_below(t, 4);
			break;
		default:
			th.max_sample_rate = fz_rand(t);
			break;
		}
		ioctl(fd, KPROF_IOC_SET_THROTTLE, &th);
		break;
	case 5:
		fz_struct(t, KPROF_CONFIG_SIZE_VER0);
		ioctl(fd, KPROF_IOC_GET_CONFIG, fz_ptr(t));
		break;
	default:
		fz_struct(t, KPROF_INFO_SIZE_VER0);
		ioctl(fd, KPROF_IOC_GET_INFO, fz_ptr(t));
		break;
	}
}

static void fz_op_mmap(struct fz_thread *t)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_NONE,
	};
	static const int flags[] = { MAP_SHARED, MAP_PRIVATE, MAP_SHARED | MAP_FIXED_NOREPLACE };
	struct kprof_info info;
	int fd = fz_fd(t), prot;
	size_t len, stride;
	off_t off;
	void *p;

	if (kp_get_info(fd, &info) || !info.mmap_stride)
		return;
	stride = info.mmap_stride;
	len = fz_below(t, 4) ? stride : fz_below(t, 2 * stride + 1);
	off = fz_below(t, 4) ? (off_t)(fz_below(t, info.nr_cpu_ids + 2) * stride) :
			       (off_t)(fz_below(t, 64) * fz_pagesize);
	prot = prots[fz_below(t, 5)];
	p = mmap(NULL, len, prot, flags[fz_below(t, 3)], fd, off);
	if (p == MAP_FAILED)
		return;
	t->mapped++;
	/* Only a whole region maps: touch it as a reader (or a liar) would. */
	if (prot & PROT_READ)
		(void)*(volatile __u64 *)((char *)p + 1024);
	if ((prot & PROT_WRITE) && len >= 1040)
		__atomic_store_n((__u64 *)((char *)p + 1032), fz_rand(t),
				 __ATOMIC_RELEASE);
	if (fz_below(t, 4) == 0)
		munmap((char *)p + fz_pagesize, fz_pagesize);	/* refused */
	if (fz_below(t, 8) == 0)
		mprotect(p, len, PROT_READ | PROT_EXEC);	/* refused */
	munmap(p, len);
}

static void fz_op_read(struct fz_thread *t)
{
	static char buf[1 << 16];
	struct pollfd pfd = { .fd = fz_fd(t), .events = POLLIN };
	size_t len = fz_below(t, 4) ? fz_below(t, sizeof(buf)) : fz_below(t, 64);
	void *dst = buf;

	if (fz_below(t, 4) == 0)
		poll(&pfd, 1, 0);
	if (fz_below(t, 8) == 0) {
		dst = fz_ptr(t);
		if (dst == t->arg)
			len = fz_below(t, FZ_ARG_SIZE + 1);
	}
	if (read(pfd.fd, dst, len) > 0)
		t->reads++;
}

/* Replace a file under the other thread's feet; the session may go. */
static void fz_op_reopen(struct fz_thread *t)
{
	int slot = fz_below(t, FZ_FILES);
	int fd = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	fd = __atomic_exchange_n(&fz_fds[slot], fd, __ATOMIC_ACQ_REL);
	close(fd);
}

static void *fz_worker(void *arg)
{
	struct fz_thread *t = arg;

	while (!fz_stop) {
		switch (fz_below(t, 16)) {
		case 0 ... 4:
			fz_op_ioctl_raw(t);
			break;
		case 5 ... 9:
			fz_op_session(t);
			break;
		case 10 ... 11:
			fz_op_mmap(t);
			break;
		case 12 ... 14:
			fz_op_read(t);
			break;
		default:
			fz_op_reopen(t);
			break;
		}
		t->ops++;
	}
	return NULL;
}

static double fz_seconds(void)
{
	const char *s = getenv("KPROF_FUZZ_SECONDS");

	return s ? atof(s) : 20;
}

TEST(random_sequences)
{
	static struct fz_thread th[FZ_THREADS];
	unsigned long long seed;
	struct kprof_config cfg;
	struct kp_buffers b;
	double end;
	int i, fd;

	memset(&b, 0, sizeof(b));
	KP_OPEN_OR_SKIP(fd);
	close(fd);
	seed = getenv("KPROF_FUZZ_SEED") ?
	       strtoull(getenv("KPROF_FUZZ_SEED"), NULL, 0) :
	       (unsigned long long)time(NULL) * 2654435761ULL;
	seed |= 1;
	ksft_print_msg("fuzz seed %llu (KPROF_FUZZ_SEED=%llu to replay)\n",
		       seed, seed);
	fflush(stdout);
	fz_pagesize = sysconf(_SC_PAGESIZE);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < FZ_FILES; i++) {
		fz_fds[i] = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, fz_fds[i]) TH_LOG("seed %llu: open: %s", seed,
					       strerror(errno));
	}
	for (i = 0; i < FZ_THREADS; i++) {
		unsigned char *m = mmap(NULL, FZ_ARG_SIZE + fz_pagesize,
					PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, m);
		ASSERT_EQ(0, mprotect(m + FZ_ARG_SIZE, fz_pagesize, PROT_NONE));
		th[i].arg = m;
		th[i].rng = seed * (i + 1) + 0x9E3779B97F4A7C15ULL;
		ASSERT_EQ(0, pthread_create(&th[i].tid, NULL, fz_worker, &th[i]));
	}
	end = kp_now() + fz_seconds();
	while (kp_now() < end)
		kp_sleep_ms(100);
	fz_stop = 1;
	for (i = 0; i < FZ_THREADS; i++) {
		pthread_join(th[i].tid, NULL);
		ksft_print_msg("thread %d: %lu operations, %lu ioctls accepted, %lu mappings, %lu reads\n",
			       i, th[i].ops, th[i].ioctls_ok, th[i].mapped,
			       th[i].reads);
	}
	fflush(stdout);
	for (i = 0; i < FZ_FILES; i++)
		close(fz_fds[i]);

	/* Whatever happened, a fresh file runs a clean, conserved session. */
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG("seed %llu: open after: %s", seed,
				strerror(errno));
	kp_cfg_init(&cfg, 500);
	ASSERT_EQ(0, kp_set_config(fd, &cfg))
		TH_LOG("seed %llu: SET_CONFIG after: %s", seed, strerror(errno));
	{
		struct kprof_throttle_config t = {
			.size = sizeof(t),
			.max_sample_rate = KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE,
			.cpu_time_max_percent = 25,
		};

		/* The run may have left a delay, or the controller off. */
		ASSERT_EQ(0, ioctl(fd, KPROF_IOC_SET_THROTTLE, &t))
			TH_LOG("seed %llu: SET_THROTTLE after: %s", seed,
			       strerror(errno));
	}
	ASSERT_EQ(0, kp_map(&b, fd)) TH_LOG("seed %llu: %s", seed, b.err);
	ASSERT_EQ(0, kp_start(fd)) TH_LOG("seed %llu: START after: %s", seed,
					  strerror(errno));
	kp_sleep_ms(200);
	ASSERT_EQ(0, kp_stop(fd));
	EXPECT_LE(0, kp_drain(&b)) TH_LOG("seed %llu: %s", seed, b.err);
	EXPECT_EQ(0, kp_check_conserved_all(&b, 1)) TH_LOG("seed %llu: %s",
							   seed, b.err);
	kp_close(fd, &b);
}

TEST_HARNESS_MAIN
