// SPDX-License-Identifier: GPL-2.0
/*
 * session_race_test - a session's records reach its own file only, also
 * in the windows between a read()'s choice of buffers and its copy
 * ("Sessions" in include/uapi/linux/kprof.h).  tests/testpmu/
 * kprof_hold.ko holds a read() in its path while others act, which no
 * single-CPU interleaving shows.
 *
 *  - same_file: a read() held before its copy takes the session's
 *    read_lock (mutex_lock_interruptible(): it chose its buffer set and
 *    took a reference on it) or at its copy (kprof_bufs_read(): the lock
 *    held), while the file, shared through fork, gets SET_CONFIG with
 *    another buffer_pages (a new buffer set; the old one is dropped once
 *    the read lets go of it) and START, whose events sample into the new
 *    set meanwhile.  The held read() then returns every record of the old
 *    set, whole, and none of the new one's, which a later read() gets.
 *  - other_file: B's read() of its own session completes while A's is
 *    held, and each gets its own session's records, all of them.
 *  - reach: while A's session runs and after its STOP, another file B
 *    gets nothing of it: GET_INFO not running, GET_STATS zero, read()
 *    EOF, mmap() ENODEV, STOP leaves A's running; once B configures its
 *    own session, B's mapped pages see none of A's records.
 *
 * CPUs: the test on CPU_M, the sessions sample CPU_S, helpers on CPU_B,
 * the held read() on CPU_W: four, tests/vm/run --cpus 4 (the suite's
 * default).  A START's events are created on every online CPU, the held
 * one too, so it returns only once the read() is let go; its events on
 * the other CPUs sample meanwhile.
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
#define PAGES_OLD	16
#define PAGES_NEW	32

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

/* Fork @fn(@fd) pinned to @cpu; it gets its ends of the pipes. */
static int peer_start(struct peer *pr, unsigned int cpu, int fd,
		      int (*fn)(int fd, int in, int out))
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
		_exit(kp_pin_self(cpu) ? 90 : fn(fd, to[0], from[1]));
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

/* CPU_S only, cpu-clock at 1 kHz, @pages data pages. */
static int config_cpu_s(int fd, __u32 pages)
{
	struct kprof_config cfg;

	kp_cfg_init(&cfg, 1000);
	cfg.buffer_pages = pages;
	kp_cfg_add_cpu(&cfg, CPU_S);
	return kp_set_config(fd, &cfg);
}

/* CPU_S's SAMPLE count of @fd's session, or -1. */
static long samples_of(int fd)
{
	struct kprof_cpu_stats st;

	return kp_get_stats(fd, CPU_S, &st) ? -1 : (long)st.counters.samples;
}

/* A session of @fd recorded on CPU_S and stopped; its samples, or -1. */
static long record(int fd, __u32 pages)
{
	if (config_cpu_s(fd, pages) || kp_start(fd))
		return -1;
	kp_sleep_ms(RECORD_MS);
	if (kp_stop(fd))
		return -1;
	return samples_of(fd);
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

/* The SAMPLE records one read() of @fd returns; -1 - errno on failure. */
static long read_samples(int fd)
{
	unsigned char *buf = malloc(READ_BYTES);
	ssize_t got;
	long n;

	if (!buf)
		return -1 - ENOMEM;
	got = read(fd, buf, READ_BYTES);
	n = got < 0 ? -1 - errno : count_samples(buf, got);
	free(buf);
	return n;
}

/* On the test's word, one read() of @fd; report its SAMPLE records. */
static int reader(int fd, int in, int out)
{
	long n;
	char go;

	if (peer_recv(in, &go, 1))
		return 1;
	n = read_samples(fd);
	return peer_send(out, &n, sizeof(n)) ? 1 : 0;
}

/* On the test's word, SET_CONFIG of @fd with PAGES_NEW; report its errno. */
static int reconfigure(int fd, int in, int out)
{
	char go;
	int err;

	if (peer_recv(in, &go, 1))
		return 1;
	err = config_cpu_s(fd, PAGES_NEW) ? errno : 0;
	return peer_send(out, &err, sizeof(err)) ? 1 : 0;
}

/* On the test's word, START of @fd; report its errno. */
static int starter(int fd, int in, int out)
{
	char go;
	int err;

	if (peer_recv(in, &go, 1))
		return 1;
	err = kp_start(fd) ? errno : 0;
	return peer_send(out, &err, sizeof(err)) ? 1 : 0;
}

FIXTURE(race) {
	int fd;
	int hold_loaded;
	struct peer r, x, y;
};

FIXTURE_SETUP(race)
{
	memset(&self->r, 0, sizeof(self->r));
	memset(&self->x, 0, sizeof(self->x));
	memset(&self->y, 0, sizeof(self->y));
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

FIXTURE_TEARDOWN(race)
{
	if (self->hold_loaded)
		kp_hold_release();
	if (self->r.pid > 0)
		kill(self->r.pid, SIGKILL);
	peer_wait(&self->r);
	peer_wait(&self->x);
	peer_wait(&self->y);
	if (self->hold_loaded)
		kp_hold_unload();
	if (self->fd >= 0)
		close(self->fd);
}

/* Hold @pr's next read() of a session at its copy. */
static int hold_read(struct peer *pr)
{
	if (kp_hold_arm(pr->pid) || peer_send(pr->to, "r", 1))
		return -1;
	return kp_hold_wait(KP_PROGRESS_MS);
}

/*
 * Until @fd's session has PAGES_NEW data pages (its SET_CONFIG swapped
 * the sets); then its layout into @info.
 */
static int wait_new_set(int fd, struct kprof_info *info)
{
	double end = kp_now() + KP_PROGRESS_MS / 1000.0;

	while (!kp_get_info(fd, info)) {
		if (info->data_size == (__u64)PAGES_NEW * info->page_size)
			return 0;
		if (kp_now() > end)
			break;
		kp_sleep_ms(1);
	}
	return -1;
}

/* Until the control page @pg shows a record: 0, or -1 after a while. */
static int wait_records(struct kprof_mmap_page *pg)
{
	double end = kp_now() + KP_PROGRESS_MS / 1000.0;

	while (!__atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE)) {
		if (kp_now() > end)
			return -1;
		kp_sleep_ms(1);
	}
	return 0;
}

typedef FIXTURE_DATA(race) race_data;

/*
 * The same-file race with the read() held at @symbol's call from kprof's
 * read path (see the top).
 */
static void same_file_race(struct __test_metadata *_metadata, race_data *self,
			   const char *symbol)
{
	long old, n_read, n_new, n_after;
	double t_held, t_swap, t_rec;
	struct kprof_info info;
	int err, ret;
	void *p;

	old = record(self->fd, PAGES_OLD);
	ASSERT_LT(0, old) TH_LOG("the first run recorded no sample");
	ASSERT_EQ(0, kp_hold_load(symbol, HOLD_MS))
		TH_LOG("insmod %s symbol=%s: %s", KP_HOLD_KO, symbol, strerror(errno));
	self->hold_loaded = 1;
	ASSERT_EQ(0, peer_start(&self->r, CPU_W, self->fd, reader));
	ASSERT_EQ(0, hold_read(&self->r))
		TH_LOG("the read() never reached %s()", symbol);
	t_held = kp_now();

	/*
	 * SET_CONFIG swaps the sets under kprof.lock, then waits in
	 * synchronize_rcu() for the held CPU; GET_INFO shows the swap.
	 */
	ASSERT_EQ(0, peer_start(&self->x, CPU_B, self->fd, reconfigure));
	ASSERT_EQ(0, peer_send(self->x.to, "c", 1));
	ASSERT_EQ(0, wait_new_set(self->fd, &info)) TH_LOG("SET_CONFIG never swapped the sets");
	t_swap = kp_now();
	/*
	 * The new set's CPU_S region, to see the START's events sample into
	 * it: mapped before the START, which holds kprof.lock until the held
	 * CPU lets it go (->mmap takes kprof.map_lock only), and unmapped
	 * before the release (a mapping refuses read()).
	 */
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, self->fd,
		 (off_t)CPU_S * info.mmap_stride);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap of the new set: %s", strerror(errno));
	ASSERT_EQ(0, peer_start(&self->y, CPU_B, self->fd, starter));
	ASSERT_EQ(0, peer_send(self->y.to, "s", 1));
	ret = wait_records(p);
	t_rec = kp_now();
	munmap(p, info.mmap_stride);
	ASSERT_EQ(0, ret) TH_LOG("no record in the new set");
	kp_hold_release();
	TH_LOG("held; the swap seen %.0f ms later, the new set's first record %.0f ms after it",
	       (t_swap - t_held) * 1e3, (t_rec - t_swap) * 1e3);

	ASSERT_EQ(0, peer_recv(self->r.from, &n_read, sizeof(n_read)));
	ASSERT_EQ(0, peer_recv(self->x.from, &err, sizeof(err)));
	EXPECT_EQ(0, err) TH_LOG("SET_CONFIG: %s", strerror(err));
	ASSERT_EQ(0, peer_recv(self->y.from, &err, sizeof(err)));
	EXPECT_EQ(0, err) TH_LOG("START: %s", strerror(err));
	EXPECT_EQ(0, peer_wait(&self->r));
	EXPECT_EQ(0, peer_wait(&self->x));
	EXPECT_EQ(0, peer_wait(&self->y));
	EXPECT_FALSE(kp_hold_timed_out());
	kp_sleep_ms(RECORD_MS);
	ASSERT_EQ(0, kp_stop(self->fd));
	n_new = samples_of(self->fd);
	n_after = read_samples(self->fd);
	TH_LOG("old set: %ld samples, the held read() returned %ld; new set: %ld samples, a read() after STOP returned %ld",
	       old, n_read, n_new, n_after);
	/* Whole records (-1: malformed), all the old set's, none of the new. */
	EXPECT_EQ(old, n_read);
	EXPECT_LT(0, n_new);
	EXPECT_EQ(n_new, n_after);
}

/* Before its read_lock: between its choice of buffer set and its copy. */
TEST_F_TIMEOUT(race, same_file_reconfigures_and_starts_before_a_reads_lock, 120)
{
	KP_RETURN_IF_SKIPPED();
	same_file_race(_metadata, self, kp_hold_lock_symbol("mutex_lock_interruptible"));
}

/* At its copy: the read_lock held, the set it chose referenced. */
TEST_F_TIMEOUT(race, same_file_reconfigures_and_starts_at_a_reads_copy, 120)
{
	KP_RETURN_IF_SKIPPED();
	same_file_race(_metadata, self, "kprof_bufs_read");
}

TEST_F_TIMEOUT(race, another_files_read_goes_on_beside_a_held_one, 120)
{
	long na, nb, got_a, got_b;
	int b;

	KP_RETURN_IF_SKIPPED();
	b = kp_open();
	ASSERT_LE(0, b) TH_LOG("%s", strerror(errno));
	na = record(self->fd, PAGES_OLD);
	nb = record(b, PAGES_NEW);
	ASSERT_LT(0, na) TH_LOG("A recorded no sample");
	ASSERT_LT(0, nb) TH_LOG("B recorded no sample");
	ASSERT_EQ(0, kp_hold_load("kprof_bufs_read", HOLD_MS))
		TH_LOG("insmod %s: %s", KP_HOLD_KO, strerror(errno));
	self->hold_loaded = 1;
	ASSERT_EQ(0, peer_start(&self->r, CPU_W, self->fd, reader));
	ASSERT_EQ(0, hold_read(&self->r))
		TH_LOG("A's read() never reached its copy");
	/* B's read() while A's holds A's read_lock and A's buffers. */
	got_b = read_samples(b);
	kp_hold_release();
	EXPECT_EQ(nb, got_b) TH_LOG("B's read() beside A's held one");
	ASSERT_EQ(0, peer_recv(self->r.from, &got_a, sizeof(got_a)));
	EXPECT_EQ(na, got_a) TH_LOG("A's held read()");
	EXPECT_EQ(0, peer_wait(&self->r));
	EXPECT_FALSE(kp_hold_timed_out());
	close(b);
}

/* What file @b sees of another file's session: nothing at all. */
static void sees_nothing(struct __test_metadata *_metadata, int b)
{
	struct kprof_info info;
	char buf[4096];
	void *p;

	ASSERT_EQ(0, kp_get_info(b, &info));
	EXPECT_FALSE(info.flags & KPROF_INFO_RUNNING);
	EXPECT_EQ(0, samples_of(b));
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, b,
		 (off_t)CPU_S * info.mmap_stride);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	if (p != MAP_FAILED)
		munmap(p, info.mmap_stride);
	EXPECT_EQ(0, read(b, buf, sizeof(buf)));
}

/* @b's own session's CPU_S region, mapped: its data_head. */
static long long own_head(int b)
{
	struct kprof_info info;
	long long head;
	void *p;

	if (kp_get_info(b, &info))
		return -1;
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, b,
		 (off_t)CPU_S * info.mmap_stride);
	if (p == MAP_FAILED)
		return -1;
	head = __atomic_load_n(&((struct kprof_mmap_page *)p)->data_head, __ATOMIC_ACQUIRE);
	munmap(p, info.mmap_stride);
	return head;
}

TEST_F_TIMEOUT(race, another_file_reaches_nothing_of_a_session, 60)
{
	struct kprof_info info;
	long a_running, a_all;
	char buf[4096];
	int b;

	KP_RETURN_IF_SKIPPED();
	b = kp_open();
	ASSERT_LE(0, b) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, config_cpu_s(self->fd, PAGES_OLD));
	ASSERT_EQ(0, kp_start(self->fd));
	kp_sleep_ms(RECORD_MS);
	a_running = samples_of(self->fd);
	ASSERT_LT(0, a_running) TH_LOG("A sampled nothing");

	sees_nothing(_metadata, b);
	/* B's STOP is of B's session, which it has not. */
	EXPECT_EQ(0, kp_stop(b));
	ASSERT_EQ(0, kp_get_info(self->fd, &info));
	EXPECT_TRUE(info.flags & KPROF_INFO_RUNNING);
	/* B's own session on the same CPU: its buffers, none of A's records. */
	ASSERT_EQ(0, config_cpu_s(b, PAGES_NEW));
	kp_sleep_ms(RECORD_MS);
	EXPECT_EQ(0, own_head(b));
	EXPECT_EQ(0, read(b, buf, sizeof(buf)));
	EXPECT_EQ(0, samples_of(b));

	ASSERT_EQ(0, kp_stop(self->fd));
	a_all = samples_of(self->fd);
	EXPECT_EQ(0, own_head(b));
	EXPECT_EQ(0, read(b, buf, sizeof(buf)));
	close(b);
	/* A new file after STOP: nothing of A's either. */
	b = kp_open();
	ASSERT_LE(0, b) TH_LOG("%s", strerror(errno));
	sees_nothing(_metadata, b);
	close(b);
	/* And A has every record of its own: none went elsewhere. */
	EXPECT_EQ(a_all, read_samples(self->fd));
}

TEST_HARNESS_MAIN
