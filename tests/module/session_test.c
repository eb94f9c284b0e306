// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions per open file and buffer memory (include/uapi/linux/kprof.h,
 * "Sessions" and SET_CONFIG).
 *
 * owner.*:   file A configures, maps and starts; file B (another open of
 *            /dev/kprof) acts on its own session only: its STOP, its
 *            SET_CONFIG, its read() and its mmap() leave A's session
 *            running and untouched, it sees its own counters, not A's,
 *            and it may start its own beside A's; its SET_THROTTLE
 *            (global knobs, root's file) succeeds while A's runs.
 *            Closing either file stops only its own session.
 * buffers.*: buffers exist for the selected CPUs only, counted in
 *            /proc/vmallocinfo, where each region is one area whose
 *            caller is a kprof function.
 */
#include "kprof_test.h"

#include "kselftest_harness.h"

FIXTURE(owner) {
	int a, b;
	struct kp_buffers buf;
};

FIXTURE_SETUP(owner)
{
	struct kprof_config cfg;

	self->b = -1;
	memset(&self->buf, 0, sizeof(self->buf));
	KP_OPEN_OR_SKIP(self->a);
	kp_cfg_init(&cfg, 200);
	ASSERT_EQ(0, kp_set_config(self->a, &cfg)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->buf, self->a)) TH_LOG("%s", self->buf.err);
	self->b = kp_open();
	ASSERT_LE(0, self->b) TH_LOG("second open: %s", strerror(errno));
}

FIXTURE_TEARDOWN(owner)
{
	if (self->b >= 0)
		close(self->b);
	kp_close(self->a, &self->buf);
}

static int running(int fd)
{
	struct kprof_info info;

	if (kp_get_info(fd, &info))
		return -1;
	return !!(info.flags & KPROF_INFO_RUNNING);
}

TEST_F(owner, second_file_acts_on_its_own)
{
	struct kprof_throttle_config t = { .size = sizeof(t) };
	struct kprof_cpu_stats sa, sb;
	struct kprof_mmap_page *pg;
	struct kprof_config cfg;
	struct kprof_info info;
	char rbuf[4096];
	void *p;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->a)) TH_LOG("%s", strerror(errno));
	kp_sleep_ms(100);

	/* B's STOP: of B's session, which does not exist; A's runs on. */
	EXPECT_EQ(0, kp_stop(self->b)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, running(self->a));
	/* Nothing of B's to read yet. */
	EXPECT_EQ(0, read(self->b, rbuf, sizeof(rbuf)));
	/* B's SET_CONFIG creates B's session, with buffers of its own. */
	kp_cfg_init(&cfg, 100);
	cfg.buffer_pages = 2;
	EXPECT_EQ(0, kp_set_config(self->b, &cfg)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, running(self->a));
	EXPECT_EQ(0, running(self->b));
	ASSERT_EQ(0, ioctl(self->a, KPROF_IOC_GET_CONFIG, &cfg));
	EXPECT_EQ(200ULL, cfg.sample);
	/*
	 * The knobs are every session's, and an admin's file sets them
	 * while A's runs, as a perf sysctl write (live: sessions_test).
	 */
	ASSERT_EQ(0, ioctl(self->b, KPROF_IOC_GET_THROTTLE, &t));
	EXPECT_EQ(0, ioctl(self->b, KPROF_IOC_SET_THROTTLE, &t)) TH_LOG("%s", strerror(errno));
	/* B maps B's buffers: 2 data pages, not A's. */
	ASSERT_EQ(0, kp_get_info(self->b, &info));
	EXPECT_EQ(2ULL * sysconf(_SC_PAGESIZE), info.data_size);
	p = mmap(NULL, info.mmap_stride, PROT_READ, MAP_SHARED, self->b, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("%s", strerror(errno));
	pg = p;
	EXPECT_EQ(info.data_size, pg->data_size);
	EXPECT_EQ(0ULL, pg->data_head);
	munmap(p, info.mmap_stride);
	/* B's counters are B's: none. */
	ASSERT_EQ(0, kp_get_stats(self->a, 0, &sa)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, kp_get_stats(self->b, 0, &sb)) TH_LOG("%s", strerror(errno));
	EXPECT_LT(0ULL, sa.counters.overflows);
	EXPECT_EQ(0ULL, sb.counters.overflows);

	/* Closing B leaves A's session alone. */
	close(self->b);
	self->b = -1;
	EXPECT_EQ(1, running(self->a));
	kp_sleep_ms(100);

	/* A stops; every overflow of its session is accounted. */
	ASSERT_EQ(0, kp_stop(self->a)) TH_LOG("%s", strerror(errno));
	ASSERT_LE(0, kp_drain(&self->buf)) TH_LOG("%s", self->buf.err);
	EXPECT_EQ(0, kp_check_conserved_all(&self->buf, 1))
		TH_LOG("%s", self->buf.err);
}

/* B has no session: nothing to map, and A's START does not care. */
TEST_F(owner, second_file_maps_nothing_of_a)
{
	void *p;

	KP_RETURN_IF_SKIPPED();
	p = mmap(NULL, self->buf.stride, PROT_READ, MAP_SHARED, self->b, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(ENODEV, errno);
	if (p != MAP_FAILED)
		munmap(p, self->buf.stride);
	EXPECT_EQ(0, kp_start(self->a)) TH_LOG("%s", strerror(errno));
}

/* A file's last reference stops its own session only. */
TEST_F(owner, close_stops_own_session_only)
{
	KP_RETURN_IF_SKIPPED();
	kp_unmap(&self->buf);
	ASSERT_EQ(0, kp_start(self->a)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, running(self->b));
	/* B runs a session of its own beside A's. */
	ASSERT_EQ(0, kp_start(self->b)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, running(self->b));
	close(self->a);
	self->a = -1;
	EXPECT_EQ(1, running(self->b));
	EXPECT_EQ(0, kp_stop(self->b));
	EXPECT_EQ(0, running(self->b));
}

/* ---- buffers ---- */

/* Number of /proc/vmallocinfo areas allocated by kprof.ko. */
static int kprof_areas(void)
{
	char line[512];
	FILE *f = fopen("/proc/vmallocinfo", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += !!strstr(line, "[kprof]");
	fclose(f);
	return n;
}

static int nr_possible(void)
{
	unsigned int n = 0, cpu;
	char path[64];

	for (cpu = 0; cpu < KPROF_MAX_CPUS; cpu++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
		n += access(path, F_OK) == 0;
	}
	return n;
}

TEST(buffers_for_selected_cpus_only)
{
	struct kprof_config cfg;
	void *p;
	int fd, n;

	if (getuid() != 0)
		SKIP(return, "/proc/vmallocinfo needs root");
	KP_OPEN_OR_SKIP(fd);
	n = nr_possible();
	if (n < 2)
		SKIP(return, "needs 2 CPUs, has %d", n);

	kp_cfg_init(&cfg, 100);		/* all CPUs */
	ASSERT_EQ(0, kp_set_config(fd, &cfg)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(n, kprof_areas());

	kp_cfg_add_cpu(&cfg, 0);	/* -C 0 */
	ASSERT_EQ(0, kp_set_config(fd, &cfg)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(1, kprof_areas());
	p = mmap(NULL, (1 + cfg.buffer_pages) * sysconf(_SC_PAGESIZE),
		 PROT_READ, MAP_SHARED, fd,
		 (1 + cfg.buffer_pages) * sysconf(_SC_PAGESIZE));
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("CPU 1 has a region");
	EXPECT_EQ(ENODEV, errno);
	if (p != MAP_FAILED)
		munmap(p, (1 + cfg.buffer_pages) * sysconf(_SC_PAGESIZE));

	/* A session on CPU 0 alone still works. */
	ASSERT_EQ(0, kp_start(fd)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, kp_stop(fd));
	close(fd);
}

TEST_HARNESS_MAIN
