// SPDX-License-Identifier: GPL-2.0
/*
 * basic_test: the module's life cycle and the device's basic contract, run
 * as root inside the test-bed VM (tests/vm/suite) with kprof.ko loaded.
 *
 * - /dev/kprof is a character device with mode 0666 (privilege is decided
 *   at open, not by the node's mode);
 * - KPROF_IOC_ABI_VERSION answers KPROF_ABI_VERSION; unknown ioctls get
 *   ENOTTY, and no number past GET_THROTTLE is known;
 * - the module unloads and reloads 20 times, the node following it;
 * - rmmod is refused while a region is mapped (even after close), and
 *   works once it is unmapped.
 *
 * Tests that load or unload the module run only in the test-bed guest.
 * The module file is /kprof/kmod/kprof.ko, found from this binary's path
 * (tests/module/basic_test -> kmod/kprof.ko), or $KPROF_KO.
 */
#include "kprof_test.h"

#include <sys/stat.h>

#include "kselftest_harness.h"

#define LOAD_CYCLES	20

/*
 * Skip unless this is the test-bed guest (tests/vm/init exports KPROF_VM=1:
 * never load modules into a development machine's kernel) and we are root;
 * then make sure kprof is loaded.
 */
#define NEED_ROOT_AND_MODULE() do {					\
	if (!getenv("KPROF_VM"))					\
		SKIP(return, "loads modules: only inside tests/vm/run");	\
	if (geteuid() != 0)						\
		SKIP(return, "needs root to load and unload kprof.ko");	\
	if (!kp_module_loaded())						\
		ASSERT_EQ(0, kp_insmod())				\
			TH_LOG("insmod %s: %s", kp_ko_path(), strerror(errno)); \
} while (0)

TEST(device_node)
{
	struct stat st;

	if (!kp_module_loaded())
		SKIP(return, "kprof is not loaded (tests/vm/run loads it)");
	ASSERT_EQ(0, stat(KP_DEV, &st)) TH_LOG(KP_DEV ": %s", strerror(errno));
	EXPECT_TRUE(S_ISCHR(st.st_mode)) TH_LOG("mode %o", st.st_mode);
	/* root's, like /dev/cpu/N/msr: group= grants more (privilege_test). */
	EXPECT_EQ(0600, st.st_mode & 07777) TH_LOG("mode %o", st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
}

TEST(abi_version)
{
	__u32 version = 0;
	int fd;

	if (!kp_module_loaded())
		SKIP(return, "kprof is not loaded (tests/vm/run loads it)");
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG(KP_DEV ": %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, KPROF_IOC_ABI_VERSION, &version))
		TH_LOG("KPROF_IOC_ABI_VERSION: %s", strerror(errno));
	EXPECT_EQ(KPROF_ABI_VERSION, version);
	close(fd);
}

/*
 * Unknown commands get ENOTTY.  The size bits are not part of the match
 * (kmod/kprof_cdev.c: structs are versioned by their 'size' field), so a
 * wrong size is not an unknown command; a wrong direction is.
 */
TEST(bad_ioctl)
{
	static const struct {
		unsigned long cmd;
		const char *what;
	} bad[] = {
		{ _IO(KPROF_IOC_MAGIC, 0x7f), "unknown number" },
		{ _IOW(KPROF_IOC_MAGIC, 0, __u32), "ABI_VERSION nr, wrong direction" },
		{ _IO(KPROF_IOC_MAGIC - 1, 0), "foreign magic" },
	};
	__u64 arg = 0;
	unsigned int i;
	int fd;

	if (!kp_module_loaded())
		SKIP(return, "kprof is not loaded (tests/vm/run loads it)");
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG(KP_DEV ": %s", strerror(errno));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		EXPECT_EQ(-1, ioctl(fd, bad[i].cmd, &arg)) TH_LOG("%s", bad[i].what);
		EXPECT_EQ(ENOTTY, errno) TH_LOG("%s: %s", bad[i].what, strerror(errno));
	}
	close(fd);
}

/*
 * The requests are numbers 0 (ABI_VERSION) to 8 (GET_THROTTLE) and no
 * more: the product carries no test-only request.  Every number above,
 * in every direction and at a u32's size, is unknown, also to root.
 */
TEST(no_request_past_get_throttle)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE
	};
	__u64 arg = 0;
	unsigned int nr, d;
	int fd;

	if (!kp_module_loaded())
		SKIP(return, "kprof is not loaded (tests/vm/run loads it)");
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG(KP_DEV ": %s", strerror(errno));
	ASSERT_EQ(8, _IOC_NR(KPROF_IOC_GET_THROTTLE));
	for (nr = 9; nr < 32; nr++) {
		for (d = 0; d < 4; d++) {
			errno = 0;
			EXPECT_EQ(-1, ioctl(fd, _IOC(dirs[d], KPROF_IOC_MAGIC, nr,
						     sizeof(__u32)), &arg))
				TH_LOG("nr %u dir %u", nr, dirs[d]);
			EXPECT_EQ(ENOTTY, errno)
				TH_LOG("nr %u dir %u: %s", nr, dirs[d], strerror(errno));
		}
	}
	close(fd);
}

TEST(load_unload)
{
	__u32 version;
	int i, fd;

	NEED_ROOT_AND_MODULE();
	for (i = 0; i < LOAD_CYCLES; i++) {
		ASSERT_EQ(0, kp_rmmod())
			TH_LOG("rmmod #%d: %s", i, strerror(errno));
		ASSERT_FALSE(kp_module_loaded());
		ASSERT_NE(0, access(KP_DEV, F_OK)) TH_LOG(KP_DEV " outlived rmmod #%d", i);

		ASSERT_EQ(0, kp_insmod())
			TH_LOG("insmod #%d %s: %s", i, kp_ko_path(), strerror(errno));
		fd = kp_open();
		ASSERT_LE(0, fd) TH_LOG(KP_DEV " after insmod #%d: %s", i, strerror(errno));
		version = 0;
		EXPECT_EQ(0, ioctl(fd, KPROF_IOC_ABI_VERSION, &version));
		EXPECT_EQ(KPROF_ABI_VERSION, version);
		close(fd);
	}
}

static int rmmod_refused(void)
{
	return kp_rmmod() == -1 && (errno == EBUSY || errno == EWOULDBLOCK);
}

TEST(rmmod_while_mapped)
{
	struct kprof_config cfg;
	struct kprof_info info;
	struct kprof_mmap_page *pg;
	void *region;
	int fd;

	NEED_ROOT_AND_MODULE();
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG(KP_DEV ": %s", strerror(errno));
	/* Its session, whose buffers it maps (ABI 5: none before). */
	kp_cfg_init(&cfg, 100);
	ASSERT_EQ(0, kp_set_config(fd, &cfg)) TH_LOG("%s", strerror(errno));
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	ASSERT_EQ(0, ioctl(fd, KPROF_IOC_GET_INFO, &info))
		TH_LOG("KPROF_IOC_GET_INFO: %s", strerror(errno));
	ASSERT_LT(0, info.mmap_stride);

	/* CPU 0's whole region, as a reader maps it. */
	region = mmap(NULL, info.mmap_stride, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, region) TH_LOG("mmap CPU 0 region: %s", strerror(errno));
	pg = region;
	EXPECT_EQ(KPROF_ABI_VERSION, pg->version);

	EXPECT_TRUE(rmmod_refused()) TH_LOG("rmmod while open and mapped: %s",
					    strerror(errno));
	close(fd);
	/* The mapping alone must keep the module (and its pages) alive. */
	EXPECT_TRUE(rmmod_refused()) TH_LOG("rmmod while mapped after close: %s",
					    strerror(errno));
	ASSERT_TRUE(kp_module_loaded());
	EXPECT_EQ(KPROF_ABI_VERSION, pg->version);
	EXPECT_EQ(0, pg->cpu);

	ASSERT_EQ(0, munmap(region, info.mmap_stride));
	ASSERT_EQ(0, kp_rmmod()) TH_LOG("rmmod after munmap: %s", strerror(errno));
	ASSERT_EQ(0, kp_insmod()) TH_LOG("insmod again: %s", strerror(errno));
}

TEST_HARNESS_MAIN
