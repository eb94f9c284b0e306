// SPDX-License-Identifier: GPL-2.0
/*
 * ownership_race_test - a file never reaches another file's session
 * records, in the windows between an ownership check and what it guards
 * ("Session ownership" in include/uapi/linux/kprof.h).
 *
 *  - release: A's last close empties A's buffers; another file's mmap()
 *    meanwhile is refused, never shown A's records.  The emptying goes CPU
 *    by CPU (the control page, then a memset of the data area), so
 *    tests/testpmu/kprof_hold.ko holds A as it clears CPU 0's control
 *    page (kprof_counters_clear_page()), before CPU_S's turn, while B
 *    maps CPU_S's region.
 *  - read(): A's read() checks that A owns the buffers, then copies; B's
 *    START between the two takes them, empties them and samples.  A is
 *    held at the mutex_lock_interruptible() of its copy while B starts;
 *    A's read() must then fail with EBUSY, not copy B's records nor move
 *    B's data_tail.  B's START runs its events' cpuhp callbacks on every
 *    CPU, the held one last (so it is the highest), and cannot return
 *    until A is let go: B starts in a child, and its events on the other
 *    CPUs sample meanwhile.
 *  - SET_CONFIG: another file's SET_CONFIG is refused while A's stopped
 *    session holds the buffers, which A then still reads whole.
 *
 * Each is a window no single-CPU interleaving shows: the hold makes it
 * certain.  A and B are two files of root; the checks are on the file,
 * so a group= member's file is refused the same.  CPUs: the test on
 * CPU_M, the session samples CPU_S, B starts on CPU_B, A is held on
 * CPU_W: four, tests/vm/run --cpus 4 (the suite's default).
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kp_hold.h"

#define CPU_M		0
#define CPU_S		1
#define CPU_B		2
#define CPU_W		3
/*
 * The longest hold: a hang detector, not a rate (the windows take
 * milliseconds).  Below the soft-lockup (20 s) and RCU-stall (21 s)
 * detectors, which a CPU held with preemption off would trip.
 */
#define HOLD_MS		10000
/* How long a session samples: some records of cpu-clock at 1 kHz. */
#define RECORD_MS	200
#define READ_BYTES	(1 << 20)

/* A child and the two pipes the test steps it with. */
struct peer {
	pid_t pid;
	int to;		/* the test writes a byte: go on */
	int from;	/* the child writes its step's result */
};

static int peer_send(int fd, const void *p, size_t len)
{
	return write(fd, p, len) == (ssize_t)len ? 0 : -1;
}

static int peer_recv(int fd, void *p, size_t len)
{
	return read(fd, p, len) == (ssize_t)len ? 0 : -1;
}

/* Fork @fn pinned to @cpu; it gets its ends of the pipes. */
static int peer_start(struct peer *pr, unsigned int cpu,
		      int (*fn)(int in, int out))
{
	int to[2], from[2];

	if (pipe(to) || pipe(from))
		return -1;
	pr->pid = fork();
	if (pr->pid < 0)
		return -1;
	if (!pr->pid) {
		close(to[1]);
		close(from[0]);
		_exit(kp_pin_self(cpu) ? 90 : fn(to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	pr->to = to[1];
	pr->from = from[0];
	return 0;
}

static int peer_wait(struct peer *pr)
{
	int status;

	if (pr->pid <= 0)
		return -1;
	close(pr->to);
	close(pr->from);
	waitpid(pr->pid, &status, 0);
	pr->pid = 0;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* CPU_S only, cpu-clock at 1 kHz. */
static int config_cpu_s(int fd, __u32 pages)
{
	struct kprof_config cfg;

	kp_cfg_init(&cfg, 1000);
	cfg.buffer_pages = pages;
	kp_cfg_add_cpu(&cfg, CPU_S);
	return kp_set_config(fd, &cfg);
}

/* A session of @fd recorded and stopped; its samples, or -1. */
static long record(int fd)
{
	struct kprof_cpu_stats st;

	if (config_cpu_s(fd, 16) || kp_start(fd))
		return -1;
	kp_sleep_ms(RECORD_MS);
	if (kp_stop(fd) || kp_get_stats(fd, CPU_S, &st))
		return -1;
	return st.counters.samples;
}

/* SAMPLE records in @len bytes of whole records, or -1 if malformed. */
static long count_samples(const unsigned char *p, size_t len)
{
	struct kprof_record_header h;
	size_t at = 0;
	long n = 0;

	while (at < len) {
		memcpy(&h, p + at, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - at)
			return -1;
		n += h.type == KPROF_RECORD_SAMPLE;
		at += h.size;
	}
	return n;
}

FIXTURE(owner) {
	int fd;
	int hold_loaded;
	struct peer a, b;
};

FIXTURE_SETUP(owner)
{
	memset(&self->a, 0, sizeof(self->a));
	memset(&self->b, 0, sizeof(self->b));
	self->hold_loaded = 0;
	self->fd = -1;
	if (!kp_cpu_online(CPU_S) || !kp_cpu_online(CPU_B) ||
	    !kp_cpu_online(CPU_W) || kp_cpu_online(CPU_W + 1))
		SKIP(return, "needs CPUs 0-%d online and no more (tests/vm/run --cpus %d)",
		     CPU_W, CPU_W + 1);
	if (access(KP_HOLD_KO, R_OK))
		SKIP(return, "%s: %s (built by tests/vm/run --testpmu)",
		     KP_HOLD_KO, strerror(errno));
	ASSERT_EQ(0, kp_pin_self(CPU_M));
	KP_OPEN_OR_SKIP(self->fd);
}

FIXTURE_TEARDOWN(owner)
{
	if (self->hold_loaded)
		kp_hold_release();
	if (self->a.pid > 0)
		kill(self->a.pid, SIGKILL);
	if (self->b.pid > 0)
		kill(self->b.pid, SIGKILL);
	peer_wait(&self->a);
	peer_wait(&self->b);
	if (self->hold_loaded)
		kp_hold_unload();
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * A: record, report its samples, and on the test's word close the
 * device, which is held in the middle of emptying the buffers.
 */
static int a_record_then_close(int in, int out)
{
	int fd = kp_open();
	long samples = fd < 0 ? -1 : record(fd);
	char go;

	if (peer_send(out, &samples, sizeof(samples)) || samples < 0 ||
	    peer_recv(in, &go, 1))
		return 1;
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(owner, release_empties_before_another_file_maps, 120)
{
	struct kprof_mmap_page *pg;
	struct kprof_info info;
	long samples;
	__u64 head;
	void *p;
	int err;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_hold_load("kprof_counters_clear_page", HOLD_MS))
		TH_LOG("insmod %s: %s", KP_HOLD_KO, strerror(errno));
	self->hold_loaded = 1;
	ASSERT_EQ(0, peer_start(&self->a, CPU_W, a_record_then_close));
	ASSERT_EQ(0, peer_recv(self->a.from, &samples, sizeof(samples)));
	/* With none, there would be nothing to leak. */
	ASSERT_LT(0, samples) TH_LOG("A recorded no sample");
	/* A's configuration sets the layout. */
	ASSERT_EQ(0, kp_get_info(self->fd, &info));

	ASSERT_EQ(0, kp_hold_arm(self->a.pid));
	ASSERT_EQ(0, peer_send(self->a.to, "c", 1));
	ASSERT_EQ(0, kp_hold_wait(KP_PROGRESS_MS))
		TH_LOG("A's release never emptied a buffer");
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)CPU_S * info.mmap_stride);
	err = errno;
	head = p == MAP_FAILED ? 0 :
	       __atomic_load_n(&((struct kprof_mmap_page *)p)->data_head,
			       __ATOMIC_ACQUIRE);
	kp_hold_release();
	EXPECT_EQ(0, peer_wait(&self->a));
	EXPECT_TRUE(p == MAP_FAILED && err == EBUSY)
		TH_LOG("mmap of CPU %d while A's release empties it: %s, data_head %llu of A's %ld samples",
		       CPU_S, p == MAP_FAILED ? strerror(err) : "mapped",
		       (unsigned long long)head, samples);
	if (p != MAP_FAILED)
		munmap(p, info.mmap_stride);

	/* Released: anyone's, and empty. */
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)CPU_S * info.mmap_stride);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap after A's release: %s",
					strerror(errno));
	pg = p;
	EXPECT_EQ(0, pg->data_head);
	EXPECT_EQ(0, pg->data_tail);
	munmap(p, info.mmap_stride);
}

/*
 * A: record, and on the test's word read() the stopped session, held
 * before its copy; report what read() returned and its errno.
 */
static int a_record_then_read(int in, int out)
{
	int fd = kp_open(), err;
	long samples = fd < 0 ? -1 : record(fd);
	unsigned char *buf = malloc(READ_BYTES);
	ssize_t got;
	char go;

	if (peer_send(out, &samples, sizeof(samples)) || samples < 0 ||
	    !buf || peer_recv(in, &go, 1))
		return 1;
	got = read(fd, buf, READ_BYTES);
	err = got < 0 ? errno : 0;
	if (peer_send(out, &got, sizeof(got)) ||
	    peer_send(out, &err, sizeof(err)))
		return 1;
	close(fd);
	free(buf);
	return 0;
}

/* B: START (held up by the CPU A is held on), sample, STOP; then its ring. */
static int b_start(int in, int out)
{
	struct kprof_info info;
	__u64 ring[2] = { ~0ULL, ~0ULL };	/* data_head, data_tail */
	int fd = kp_open();
	char done;
	void *p;

	if (fd < 0 || kp_start(fd))
		return 1;
	kp_sleep_ms(RECORD_MS);
	if (kp_stop(fd) || kp_get_info(fd, &info))
		return 1;
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, fd,
		 (off_t)CPU_S * info.mmap_stride);
	if (p != MAP_FAILED) {
		ring[0] = ((struct kprof_mmap_page *)p)->data_head;
		ring[1] = ((struct kprof_mmap_page *)p)->data_tail;
	}
	if (peer_send(out, ring, sizeof(ring)) || peer_recv(in, &done, 1))
		return 1;
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(owner, read_after_another_start_is_refused, 120)
{
	__u64 ring[2];
	long samples;
	ssize_t got;
	int err;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_hold_load(kp_hold_lock_symbol("mutex_lock_interruptible"),
				  HOLD_MS))
		TH_LOG("insmod %s: %s", KP_HOLD_KO, strerror(errno));
	self->hold_loaded = 1;
	ASSERT_EQ(0, peer_start(&self->a, CPU_W, a_record_then_read));
	ASSERT_EQ(0, peer_recv(self->a.from, &samples, sizeof(samples)));
	ASSERT_LT(0, samples) TH_LOG("A recorded no sample");

	ASSERT_EQ(0, kp_hold_arm(self->a.pid));
	ASSERT_EQ(0, peer_send(self->a.to, "r", 1));
	ASSERT_EQ(0, kp_hold_wait(KP_PROGRESS_MS))
		TH_LOG("A's read() never reached its copy");
	/*
	 * B takes the buffers and its events on the CPUs below CPU_W sample
	 * while its START waits for CPU_W; whatever B has recorded by the
	 * release, A's read() must copy none of it.
	 */
	ASSERT_EQ(0, peer_start(&self->b, CPU_B, b_start));
	kp_sleep_ms(RECORD_MS);
	kp_hold_release();
	ASSERT_EQ(0, peer_recv(self->a.from, &got, sizeof(got)));
	ASSERT_EQ(0, peer_recv(self->a.from, &err, sizeof(err)));
	ASSERT_EQ(0, peer_recv(self->b.from, ring, sizeof(ring)));
	ASSERT_EQ(0, peer_send(self->b.to, "d", 1));
	EXPECT_EQ(0, peer_wait(&self->b));
	EXPECT_EQ(0, peer_wait(&self->a));
	TH_LOG("B's ring on CPU %d: data_head %llu data_tail %llu", CPU_S,
	       (unsigned long long)ring[0], (unsigned long long)ring[1]);
	EXPECT_TRUE(got < 0 && err == EBUSY)
		TH_LOG("A's read() after B's START: %zd (%s)", got,
		       got < 0 ? strerror(err) : "copied B's records");
	EXPECT_EQ(0, ring[1]) TH_LOG("B's data_tail moved by A's read()");
}

TEST_F_TIMEOUT(owner, set_config_of_a_stopped_session_is_refused, 60)
{
	unsigned char *buf;
	long samples, n;
	ssize_t got;
	int a;

	KP_RETURN_IF_SKIPPED();
	a = kp_open();
	ASSERT_LE(0, a);
	samples = record(a);
	ASSERT_LT(0, samples) TH_LOG("A recorded no sample");

	/* Another size would replace A's buffers, the same one rewrite them. */
	EXPECT_EQ(-1, config_cpu_s(self->fd, 32));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, config_cpu_s(self->fd, 16));
	EXPECT_EQ(EBUSY, errno);

	buf = malloc(READ_BYTES);
	ASSERT_NE(NULL, buf);
	got = read(a, buf, READ_BYTES);
	n = got > 0 ? count_samples(buf, got) : -1;
	EXPECT_EQ(samples, n) TH_LOG("A's read(): %zd bytes (%s)", got,
				     got < 0 ? strerror(errno) : "records");
	free(buf);
	close(a);
	/* Released: anyone configures. */
	EXPECT_EQ(0, config_cpu_s(self->fd, 32)) TH_LOG("%s", strerror(errno));
}

TEST_HARNESS_MAIN
