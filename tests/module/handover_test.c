// SPDX-License-Identifier: GPL-2.0
/*
 * One session's records are not the next session's: session A (root)
 * records on CPU 0 and closes without reading; session B, a member of
 * the group= grant running as another uid, then maps and reads CPU 0 and
 * must find none of A's records and no byte of them ("START" and
 * "Sessions" in include/uapi/linux/kprof.h: since ABI version 5 every
 * file has its own buffers, so this holds by construction, and B also
 * finds nothing of A's while A's stopped session is still open).
 *
 * kprof.ko is reloaded with group=GRANT_GID; B runs in a child dropped
 * to uid/gid KP_NOBODY with GRANT_GID as its supplementary group.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "kprof_test.h"

#define GRANT_GID	4242
#define BUF_PAGES	16

typedef int (*child_fn)(int fd, char *msg, size_t len);

/* What as_member()'s child runs once it has opened the device. */
static child_fn member_fn;

static int open_and_run(char *msg, size_t len)
{
	int fd = kp_open();

	if (fd < 0) {
		snprintf(msg, len, "open: %s", strerror(errno));
		return 100;
	}
	return member_fn(fd, msg, len);
}

/*
 * Open the device in a child running as KP_NOBODY in GRANT_GID and run
 * @fn on it; its exit code (-1 if it died) is returned, its message in
 * @msg.
 */
static int as_member(child_fn fn, char *msg, size_t len)
{
	gid_t grant = GRANT_GID;

	member_fn = fn;
	return kp_as_nobody(&grant, 1, open_and_run, msg, len);
}

/* CPU 0 only, BUF_PAGES pages: A and B share the buffer set's size. */
static void cfg_cpu0(struct kprof_config *cfg, __u64 sample, __u64 flags)
{
	kp_cfg_init(cfg, sample);
	cfg->flags = flags;
	cfg->buffer_pages = BUF_PAGES;
	kp_cfg_add_cpu(cfg, 0);
}

/*
 * Session A: cpu-clock at 1 kHz on CPU 0 for 300 ms while this process
 * spins there, stopped and closed without reading.  Returns the SAMPLE
 * records it committed, so a test can insist there was something to leak.
 */
static long session_a(int close_it, int *fdp)
{
	struct kprof_cpu_stats st;
	struct kprof_config cfg;
	double end;
	int fd;

	fd = kp_open();
	if (fd < 0)
		return -1;
	cfg_cpu0(&cfg, 1000, KPROF_CFG_FREQ);
	if (kp_default_limits(fd) || kp_set_config(fd, &cfg) || kp_start(fd))
		goto fail;
	kp_pin_self(0);
	for (end = kp_now() + 0.3; kp_now() < end;)
		;
	if (kp_stop(fd) || kp_get_stats(fd, 0, &st))
		goto fail;
	if (close_it)
		close(fd);
	else
		*fdp = fd;
	return (long)st.counters.samples;
fail:
	close(fd);
	return -1;
}

/* First non-zero byte of [from, to) in @p, or -1. */
static long nonzero_at(const unsigned char *p, __u64 from, __u64 to)
{
	__u64 i;

	for (i = from; i < to; i++)
		if (p[i])
			return (long)i;
	return -1;
}

/*
 * Count the SAMPLE records in [0, len) of @p, checking each header and
 * that its seq is one of this session's @overflows.
 */
static long own_samples(const unsigned char *p, __u64 len, __u64 overflows,
			char *msg, size_t mlen)
{
	const struct kprof_record_header *h;
	long samples = 0;
	__u64 off;

	for (off = 0; off < len; off += h->size) {
		h = (const void *)(p + off);
		if (h->size < 8 || h->size % 8 || off + h->size > len) {
			snprintf(msg, mlen, "record at %llu: size %u",
				 (unsigned long long)off, h->size);
			return -1;
		}
		if (h->type != KPROF_RECORD_SAMPLE)
			continue;
		if (((const struct kprof_sample *)h)->seq > overflows) {
			snprintf(msg, mlen, "SAMPLE seq %llu of %llu overflows",
				 (unsigned long long)((const struct kprof_sample *)h)->seq,
				 (unsigned long long)overflows);
			return -1;
		}
		samples++;
	}
	return samples;
}

/*
 * Session B: with @map_first, map CPU 0 while stopped (nothing there:
 * A's release emptied it), else after START; with @configure, its own
 * configuration, a period of 20 ms (a few records of its own), else A's;
 * run for 100 ms, then check the mapping and, unmapped, read().  Exit 0
 * when B saw only its own records and zeros; else 1 with the evidence in
 * @msg.
 */
static int run_b(int fd, int map_first, int configure, char *msg, size_t len)
{
	struct kprof_mmap_page *pg;
	struct kprof_config cfg;
	struct kprof_info info;
	struct kprof_counters k;
	unsigned char *data, *rbuf;
	long n, samples, at;
	__u64 head;
	ssize_t got;
	void *p;

	cfg_cpu0(&cfg, 20ULL * 1000 * 1000, 0);
	if ((configure && kp_set_config(fd, &cfg)) || kp_get_info(fd, &info)) {
		snprintf(msg, len, "SET_CONFIG/GET_INFO: %s", strerror(errno));
		return 1;
	}
	if (!map_first && kp_start(fd)) {
		snprintf(msg, len, "START: %s", strerror(errno));
		return 1;
	}
	p = mmap(NULL, info.mmap_stride, PROT_READ | PROT_WRITE, MAP_SHARED,
		 fd, 0);
	if (p == MAP_FAILED) {
		snprintf(msg, len, "mmap CPU 0: %s", strerror(errno));
		return 1;
	}
	pg = p;
	data = (unsigned char *)p + pg->data_offset;
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	at = nonzero_at(data, 0, pg->data_size);
	if (map_first && (head || pg->data_tail || at >= 0)) {
		snprintf(msg, len, "before START: data_head %llu data_tail %llu, byte %ld not zero",
			 (unsigned long long)head,
			 (unsigned long long)pg->data_tail, at);
		return 1;
	}
	if (map_first && kp_start(fd)) {
		snprintf(msg, len, "START: %s", strerror(errno));
		return 1;
	}
	kp_sleep_ms(100);
	if (kp_stop(fd)) {
		snprintf(msg, len, "STOP: %s", strerror(errno));
		return 1;
	}
	memcpy(&k, &pg->counters, sizeof(k));
	head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	/* B's few records cannot have wrapped its ring. */
	if (pg->data_tail || head > pg->data_size) {
		snprintf(msg, len, "after STOP: tail %llu head %llu of %llu",
			 (unsigned long long)pg->data_tail,
			 (unsigned long long)head,
			 (unsigned long long)pg->data_size);
		return 1;
	}
	samples = own_samples(data, head, k.overflows, msg, len);
	if (samples < 0)
		return 1;
	at = nonzero_at(data, head, pg->data_size);
	if ((__u64)samples != k.samples || at >= 0) {
		snprintf(msg, len, "mmap: %ld SAMPLE records in [0, %llu), session counted %llu; byte %ld past head not zero",
			 samples, (unsigned long long)head,
			 (unsigned long long)k.samples, at);
		return 1;
	}
	munmap(p, info.mmap_stride);

	/* The same records through read(): B's tail is still 0. */
	rbuf = calloc(1, info.data_size);
	if (!rbuf)
		return 1;
	got = read(fd, rbuf, info.data_size);
	if (got < 0 || (__u64)got != head) {
		snprintf(msg, len, "read(): %zd (%s), %llu bytes recorded",
			 got, got < 0 ? strerror(errno) : "",
			 (unsigned long long)head);
		return 1;
	}
	n = own_samples(rbuf, got, k.overflows, msg, len);
	if (n != samples) {
		if (n >= 0)
			snprintf(msg, len, "read(): %ld SAMPLE records, mmap %ld",
				 n, samples);
		return 1;
	}
	snprintf(msg, len, "%ld SAMPLE records of B's own, %llu bytes",
		 samples, (unsigned long long)head);
	return 0;
}

static int session_b(int fd, char *msg, size_t len)
{
	return run_b(fd, 1, 1, msg, len);
}

/* B, never started: read() finds nothing of A's. */
static int read_unstarted(int fd, char *msg, size_t len)
{
	char buf[4096];
	ssize_t got = read(fd, buf, sizeof(buf));

	if (got) {
		snprintf(msg, len, "read(): %zd (%s)", got,
			 got < 0 ? strerror(errno) : "A's records");
		return 1;
	}
	return 0;
}

/*
 * B while A's stopped session is still open: no session of its own yet,
 * so nothing to map (ENODEV) or read (EOF), and nothing of A's; then a
 * session of its own on CPU 0, in buffers of its own.  (Not the module's
 * default configuration, which samples every CPU: run_b() compares what
 * read() returns with CPU 0's mapping.)
 */
static int own_session_while_a_open(int fd, char *msg, size_t len)
{
	struct kprof_info info;
	char buf[4096];
	ssize_t got;
	void *p;

	if (kp_get_info(fd, &info)) {
		snprintf(msg, len, "GET_INFO: %s", strerror(errno));
		return 1;
	}
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, fd, 0);
	if (p != MAP_FAILED || errno != ENODEV) {
		snprintf(msg, len, "mmap: %s", p == MAP_FAILED ?
			 strerror(errno) : "mapped buffers without a session");
		return 1;
	}
	got = read(fd, buf, sizeof(buf));
	if (got) {
		snprintf(msg, len, "read(): %zd (%s)", got,
			 got < 0 ? strerror(errno) : "A's records");
		return 1;
	}
	return run_b(fd, 0, 1, msg, len);
}

FIXTURE(granted) {
	int loaded;
};

FIXTURE_SETUP(granted)
{
	self->loaded = 0;
	if (getuid() != 0 || !getenv("KPROF_VM"))
		SKIP(return, "reloads kprof.ko: test-bed VM only");
	KP_LOAD_GRANTED(GRANT_GID);
	self->loaded = 1;
}

FIXTURE_TEARDOWN(granted)
{
	if (!self->loaded)
		return;
	kp_rmmod();
	kp_insmod();
}

TEST_F_TIMEOUT(granted, next_session_sees_only_its_own, 60)
{
	char msg[512];
	long a;
	int rc;

	KP_RETURN_IF_SKIPPED();
	a = session_a(1, NULL);
	/* 300 ms at 1 kHz: with none, there would be nothing to leak. */
	ASSERT_LT(0, a) TH_LOG("session A recorded no sample");
	rc = as_member(session_b, msg, sizeof(msg));
	EXPECT_EQ(0, rc) TH_LOG("after A's %ld samples: %s", a, msg);
	if (!rc)
		TH_LOG("%s", msg);
}

TEST_F_TIMEOUT(granted, closed_session_is_not_readable, 60)
{
	char msg[512];
	long a;
	int rc;

	KP_RETURN_IF_SKIPPED();
	a = session_a(1, NULL);
	ASSERT_LT(0, a) TH_LOG("session A recorded no sample");
	rc = as_member(read_unstarted, msg, sizeof(msg));
	EXPECT_EQ(0, rc) TH_LOG("after A's %ld samples: %s", a, msg);
}

TEST_F_TIMEOUT(granted, stopped_session_stays_its_files, 60)
{
	char msg[512];
	long a;
	int fd = -1, rc;

	KP_RETURN_IF_SKIPPED();
	a = session_a(0, &fd);
	ASSERT_LT(0, a) TH_LOG("session A recorded no sample");
	rc = as_member(own_session_while_a_open, msg, sizeof(msg));
	EXPECT_EQ(0, rc) TH_LOG("A open, %ld samples: %s", a, msg);
	close(fd);
}

TEST_HARNESS_MAIN
