// SPDX-License-Identifier: GPL-2.0
/*
 * kp_fuzz.c - hostile operations on /dev/kprof (see kp_fuzz.h).  Each
 * returns: files are O_NONBLOCK, pointers that fault give EFAULT, and
 * what the kernel refuses is the expected outcome of most of them.
 */
#include "kp_fuzz.h"

#include "kprof_test.h"

#include <poll.h>

static long fz_pagesize;

/* xorshift64*: small, and the same sequence on every machine. */
static __u64 fz_rand(struct kp_fuzz *t)
{
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	return t->rng * 0x2545F4914F6CDD1DULL;
}

__u64 kp_fuzz_below(struct kp_fuzz *t, __u64 n)
{
	return n ? fz_rand(t) % n : 0;
}

static void fz_fill(struct kp_fuzz *t, void *p, size_t len)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		c[i] = (unsigned char)fz_rand(t);
}

/* One of the files, read atomically: another thread may replace it. */
int kp_fuzz_fd(struct kp_fuzz *t)
{
	return __atomic_load_n(&t->fds[kp_fuzz_below(t, t->nr_fds)],
			       __ATOMIC_RELAXED);
}

/* A pointer a syscall may be handed: ours, NULL, unmapped, kernel. */
static void *fz_ptr(struct kp_fuzz *t)
{
	switch (kp_fuzz_below(t, 16)) {
	case 0:
		return NULL;
	case 1:
		return (void *)0x1000;			/* unmapped */
	case 2:
		return (void *)0xffffffff81000000UL;	/* kernel text */
	case 3:
		return t->arg + KP_FUZZ_ARG_SIZE - kp_fuzz_below(t, 8); /* straddles */
	default:
		return t->arg;
	}
}

/* A kprof struct with 'size' first: plausible, or anything. */
static void fz_struct(struct kp_fuzz *t, __u32 size_hint)
{
	__u32 *size = (__u32 *)t->arg;

	fz_fill(t, t->arg, KP_FUZZ_ARG_SIZE);
	switch (kp_fuzz_below(t, 4)) {
	case 0:
		break;					/* random size too */
	case 1:
		*size = kp_fuzz_below(t, KP_FUZZ_ARG_SIZE + 64);
		break;
	default:
		/* Zeroed tail past the hint: only fields are random. */
		*size = size_hint + 8 * kp_fuzz_below(t, 4);
		memset(t->arg + size_hint, 0, KP_FUZZ_ARG_SIZE - size_hint);
		break;
	}
}

/* A valid configuration with one field made wrong, or none. */
static void fz_config(struct kp_fuzz *t, struct kprof_config *cfg)
{
	static const __u32 pages[] = { 0, 1, 2, 3, 8, 16, 64, 65537 };
	unsigned int cpu = kp_fuzz_below(t, 4);

	kp_cfg_init(cfg, 50 + kp_fuzz_below(t, 2000));
	cfg->buffer_pages = 1U << kp_fuzz_below(t, 5);
	if (kp_fuzz_below(t, 2))
		kp_cfg_add_cpu(cfg, cpu);
	if (kp_fuzz_below(t, 2)) {
		cfg->flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
		cfg->kernel_stack = 1 + kp_fuzz_below(t, KPROF_MAX_STACK);
		cfg->user_stack = 1 + kp_fuzz_below(t, KPROF_MAX_STACK);
	}
	/* DWARF stack copies, of any valid size up to more than the ring. */
	if (kp_fuzz_below(t, 2)) {
		cfg->flags |= KPROF_CFG_CALLCHAIN_DWARF;
		cfg->user_stack_size = 8 * (1 + kp_fuzz_below(t, KPROF_MAX_USER_STACK_SIZE / 8));
	}
	switch (kp_fuzz_below(t, 11)) {
	case 0:
		cfg->flags = fz_rand(t);
		break;
	case 1:
		cfg->type = kp_fuzz_below(t, 8);
		break;
	case 2:
		cfg->config = fz_rand(t);
		break;
	case 3:
		cfg->sample = fz_rand(t);
		break;
	case 4:
		cfg->buffer_pages = pages[kp_fuzz_below(t, 8)];
		break;
	case 5:
		cfg->watermark = fz_rand(t);
		break;
	case 6:
		cfg->cpumask[kp_fuzz_below(t, KPROF_MAX_CPUS / 64)] = fz_rand(t);
		break;
	case 7:
		cfg->__reserved[kp_fuzz_below(t, sizeof(cfg->__reserved) /
					     sizeof(cfg->__reserved[0]))] = fz_rand(t);
		break;
	case 8:
		cfg->user_stack_size = fz_rand(t);
		break;
	default:
		break;
	}
}

static void fz_op_ioctl_raw(struct kp_fuzz *t)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE
	};
	unsigned int type = kp_fuzz_below(t, 8) ? KPROF_IOC_MAGIC : kp_fuzz_below(t, 256);
	unsigned long cmd = _IOC(dirs[kp_fuzz_below(t, 4)], type, kp_fuzz_below(t, 16),
				 kp_fuzz_below(t, KP_FUZZ_ARG_SIZE));

	fz_struct(t, 8 + 8 * kp_fuzz_below(t, 200));
	if (!ioctl(kp_fuzz_fd(t), cmd, fz_ptr(t)))
		t->ioctls_ok++;
}

static void fz_op_session(struct kp_fuzz *t)
{
	struct kprof_throttle_config th = { .size = sizeof(th) };
	struct kprof_cpu_stats st;
	struct kprof_config cfg;
	int fd = kp_fuzz_fd(t);

	switch (kp_fuzz_below(t, 7)) {
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
		kp_get_stats(fd, kp_fuzz_below(t, 8), &st);
		break;
	case 4:
		if (ioctl(fd, KPROF_IOC_GET_THROTTLE, &th))
			break;
		switch (kp_fuzz_below(t, 4)) {
		case 0:
			th.__reserved0 = kp_fuzz_below(t, 2) ? 0 : fz_rand(t);
			break;
		case 1:
			th.cpu_time_max_percent = kp_fuzz_below(t, 120);
			break;
		case 2:
			th.semantics = kp_fuzz_below(t, 4);
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

static void fz_op_mmap(struct kp_fuzz *t)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_WRITE,
		PROT_READ | PROT_EXEC, PROT_NONE,
	};
	static const int flags[] = { MAP_SHARED, MAP_PRIVATE, MAP_SHARED | MAP_FIXED_NOREPLACE };
	struct kprof_info info;
	int fd = kp_fuzz_fd(t), prot;
	size_t len, stride;
	off_t off;
	void *p;

	if (kp_get_info(fd, &info) || !info.mmap_stride)
		return;
	stride = info.mmap_stride;
	len = kp_fuzz_below(t, 4) ? stride : kp_fuzz_below(t, 2 * stride + 1);
	off = kp_fuzz_below(t, 4) ? (off_t)(kp_fuzz_below(t, info.nr_cpu_ids + 2) * stride) :
			       (off_t)(kp_fuzz_below(t, 64) * fz_pagesize);
	prot = prots[kp_fuzz_below(t, 5)];
	p = mmap(NULL, len, prot, flags[kp_fuzz_below(t, 3)], fd, off);
	if (p == MAP_FAILED)
		return;
	t->mapped++;
	/* Only a whole region maps: touch it as a reader (or a liar) would. */
	if (prot & PROT_READ)
		(void)*(volatile __u64 *)((char *)p + 1024);
	if ((prot & PROT_WRITE) && len >= 1040)
		__atomic_store_n((__u64 *)((char *)p + 1032), fz_rand(t),
				 __ATOMIC_RELEASE);
	if (kp_fuzz_below(t, 4) == 0)
		munmap((char *)p + fz_pagesize, fz_pagesize);	/* refused */
	if (kp_fuzz_below(t, 8) == 0)
		mprotect(p, len, PROT_READ | PROT_EXEC);	/* refused */
	munmap(p, len);
}

static void fz_op_read(struct kp_fuzz *t)
{
	static char buf[1 << 16];
	struct pollfd pfd = { .fd = kp_fuzz_fd(t), .events = POLLIN };
	size_t len = kp_fuzz_below(t, 4) ? kp_fuzz_below(t, sizeof(buf)) : kp_fuzz_below(t, 64);
	void *dst = buf;

	if (kp_fuzz_below(t, 4) == 0)
		poll(&pfd, 1, 0);
	if (kp_fuzz_below(t, 8) == 0) {
		dst = fz_ptr(t);
		if (dst == t->arg)
			len = kp_fuzz_below(t, KP_FUZZ_ARG_SIZE + 1);
	}
	if (read(pfd.fd, dst, len) > 0)
		t->reads++;
}

/* Replace a file under the other thread's feet; the session may go. */
static void fz_op_reopen(struct kp_fuzz *t)
{
	int slot = kp_fuzz_below(t, t->nr_fds);
	int fd = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	fd = __atomic_exchange_n(&t->fds[slot], fd, __ATOMIC_ACQ_REL);
	close(fd);
}

/* One operation, of a kind chosen with the weights below. */
void kp_fuzz_step(struct kp_fuzz *t)
{
	switch (kp_fuzz_below(t, 16)) {
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

/*
 * A generator over @nr_fds files in @fds (shared with other generators,
 * which may replace them), seeded with @seed: 0, or -1 with errno.
 */
int kp_fuzz_init(struct kp_fuzz *t, __u64 seed, int *fds, unsigned int nr_fds)
{
	unsigned char *m;

	memset(t, 0, sizeof(*t));
	fz_pagesize = sysconf(_SC_PAGESIZE);
	m = mmap(NULL, KP_FUZZ_ARG_SIZE + fz_pagesize, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -1;
	if (mprotect(m + KP_FUZZ_ARG_SIZE, fz_pagesize, PROT_NONE)) {
		munmap(m, KP_FUZZ_ARG_SIZE + fz_pagesize);
		return -1;
	}
	t->arg = m;
	t->rng = seed | 1;	/* xorshift's one fixed point is 0 */
	t->fds = fds;
	t->nr_fds = nr_fds;
	return 0;
}

void kp_fuzz_fini(struct kp_fuzz *t)
{
	if (t->arg)
		munmap(t->arg, KP_FUZZ_ARG_SIZE + fz_pagesize);
	t->arg = NULL;
}
