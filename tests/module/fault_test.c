// SPDX-License-Identifier: GPL-2.0
/*
 * fault_test - every allocation and event creation kprof makes can fail,
 * and each failure is survived: a clean errno, no kernel report (the
 * test bed fails the run on any), a following session whose counters add
 * up, and no leak kmemleak finds once kprof.ko is unloaded.
 *
 * On the debug kernel only (scripts/debug-kernel.config: kmemleak,
 * failslab, fail_page_alloc, fail_function); elsewhere it skips.
 *
 *  - Each step a task of ours makes (open, SET_CONFIG, START, mmap,
 *    read()) is run with /proc/thread-self/fail-nth set to 1, 2, ...: the
 *    nth fault point the task reaches (a slab or page allocation, in
 *    kprof or in the kernel on its behalf) fails, until the step
 *    completes with nothing injected.  failslab and fail_page_alloc are
 *    set to fail sleeping and order-0 allocations too, at probability 0:
 *    nothing but fail-nth fails.
 *  - The events are created on the hotplug threads and a kworker, which
 *    no task's fail-nth reaches: fail_function fails kprof's own step
 *    there, kprof_event_create(), the 1st, 2nd, ... call of a START, and
 *    the call of a CPU coming online while sampling.
 *  - Last, kprof.ko is unloaded, kmemleak scans, and no unreferenced
 *    object may have been allocated from kprof.ko's text.
 *
 * The tally of injected failures goes to FAULT_TALLY; the last test
 * prints the whole.
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <sys/mman.h>

#include "kselftest_harness.h"
#include "testpmu.h"

#define DBG		"/sys/kernel/debug/"
#define FEI		DBG "fail_function/"
#define FEI_FN		"kprof_event_create"
#define KMEMLEAK	DBG "kmemleak"
#define KPTR_RESTRICT	"/proc/sys/kernel/kptr_restrict"
#define FAULT_TALLY	"/tmp/fault_test.tally"
/* A hang guard: no step reaches this many fault points. */
#define MAX_NTH		5000
#define BUF_PAGES	8
#define SESSION_MS	20

/*
 * Set up what a step needs; run it (-errno, or 0); undo what it made,
 * with nothing injected any more: a munmap() that an injected failure
 * stopped would leave the mapping, and its file, behind.
 */
struct step {
	const char *name;
	int (*prepare)(int *fd);
	int (*run)(int fd);
	void (*undo)(int fd);
};

/* What run_mmap() mapped, for undo_mmap(). */
static void *mapped = MAP_FAILED;
static size_t mapped_len;

/* cpu-clock at 1 kHz on every CPU, @pages data pages each. */
static int config_all(int fd, __u32 pages)
{
	struct kprof_config cfg;

	kp_cfg_init(&cfg, 1000);
	cfg.buffer_pages = pages;
	return kp_set_config(fd, &cfg) ? -errno : 0;
}

static int prepare_none(int *fd)
{
	*fd = -1;
	return 0;
}

static int prepare_open(int *fd)
{
	*fd = kp_open();
	return *fd < 0 ? -errno : 0;
}

static int prepare_configured(int *fd)
{
	int ret = prepare_open(fd);

	return ret ?: config_all(*fd, BUF_PAGES);
}

static int prepare_recorded(int *fd)
{
	int ret = prepare_configured(fd);

	if (ret || kp_start(*fd))
		return ret ?: -errno;
	kp_sleep_ms(SESSION_MS);
	return kp_stop(*fd) ? -errno : 0;
}

static int run_open(int fd)
{
	int nfd = kp_open();

	(void)fd;
	if (nfd < 0)
		return -errno;
	close(nfd);
	return 0;
}

/* Another size than the one in force: a new buffer set each time. */
static int run_set_config(int fd)
{
	return config_all(fd, 2 * BUF_PAGES);
}

static int run_start(int fd)
{
	if (kp_start(fd))
		return -errno;
	return kp_stop(fd) ? -errno : 0;
}

static int run_mmap(int fd)
{
	struct kprof_info info;

	if (kp_get_info(fd, &info))
		return -errno;
	mapped_len = info.mmap_stride;
	mapped = mmap(NULL, mapped_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      0);
	return mapped == MAP_FAILED ? -errno : 0;
}

static void undo_mmap(int fd)
{
	(void)fd;
	if (mapped != MAP_FAILED)
		munmap(mapped, mapped_len);
	mapped = MAP_FAILED;
}

static void undo_none(int fd)
{
	(void)fd;
}

static int run_read(int fd)
{
	static char buf[BUF_PAGES * 4096 * 4];

	return read(fd, buf, sizeof(buf)) < 0 ? -errno : 0;
}

static int fail_nth_set(unsigned int n)
{
	return tp_write_u64("/proc/thread-self/fail-nth", n);
}

/*
 * One session on every CPU after a failure: it starts, and every CPU's
 * overflows add up (overflows == samples + lost by cause).  0, or -1
 * with the reason in @msg.
 */
static int clean_session(char *msg, size_t len)
{
	struct kprof_cpu_stats st;
	unsigned int cpu;
	int fd, ret = -1;

	fd = kp_open();
	if (fd < 0 || config_all(fd, BUF_PAGES) || kp_start(fd)) {
		snprintf(msg, len, "the next session: %s", strerror(errno));
		goto out;
	}
	kp_sleep_ms(SESSION_MS);
	if (kp_stop(fd)) {
		snprintf(msg, len, "the next session's STOP: %s", strerror(errno));
		goto out;
	}
	for (cpu = 0; kp_cpu_online(cpu); cpu++) {
		const struct kprof_counters *k = &st.counters;

		if (kp_get_stats(fd, cpu, &st))
			goto out;
		if (k->overflows != k->samples + k->lost_full + k->lost_nested +
		    k->lost_stopped + k->lost_throttled) {
			snprintf(msg, len, "the next session, CPU %u: overflows %llu != samples %llu + lost",
				 cpu, (unsigned long long)k->overflows,
				 (unsigned long long)k->samples);
			goto out;
		}
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

static void tally_add(const char *what, long injected)
{
	FILE *f = fopen(FAULT_TALLY, "a");

	if (f) {
		fprintf(f, "%s %ld\n", what, injected);
		fclose(f);
	}
}

/* Set a failslab or fail_page_alloc attribute; -1 if it is not there. */
static int attr_set(const char *cap, const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), DBG "%s/%s", cap, name);
	return tp_write(path, val);
}

FIXTURE(fault) {
	int dummy;
};

FIXTURE_VARIANT(fault) {
	struct step step;
};

FIXTURE_VARIANT_ADD(fault, open) {
	.step = { "open", prepare_none, run_open, undo_none },
};

FIXTURE_VARIANT_ADD(fault, set_config) {
	.step = { "SET_CONFIG", prepare_configured, run_set_config, undo_none },
};

FIXTURE_VARIANT_ADD(fault, start) {
	.step = { "START", prepare_configured, run_start, undo_none },
};

FIXTURE_VARIANT_ADD(fault, mmap) {
	.step = { "mmap", prepare_configured, run_mmap, undo_mmap },
};

FIXTURE_VARIANT_ADD(fault, read) {
	.step = { "read", prepare_recorded, run_read, undo_none },
};

FIXTURE_SETUP(fault)
{
	static const char * const caps[] = { "failslab", "fail_page_alloc" };
	unsigned int i;

	if (access(DBG "failslab", F_OK) || access(DBG "fail_page_alloc", F_OK) ||
	    access("/proc/thread-self/fail-nth", F_OK))
		SKIP(return, "no failslab, fail_page_alloc or fail-nth: the debug kernel's (tests/vm/run --kernel debug)");
	if (access(KP_DEV, F_OK))
		SKIP(return, "%s: kprof.ko not loaded", KP_DEV);
	/*
	 * Sleeping and order-0 allocations may fail too; probability 0 keeps
	 * every failure to fail-nth's; no stack dump per failure.
	 */
	for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		ASSERT_EQ(0, attr_set(caps[i], "probability", "0"));
		ASSERT_EQ(0, attr_set(caps[i], "ignore-gfp-wait", "N"));
		ASSERT_EQ(0, attr_set(caps[i], "verbose", "0"));
	}
	ASSERT_EQ(0, attr_set("fail_page_alloc", "ignore-gfp-highmem", "N"));
	ASSERT_EQ(0, attr_set("fail_page_alloc", "min-order", "0"));
}

FIXTURE_TEARDOWN(fault)
{
	fail_nth_set(0);
}

TEST_F_TIMEOUT(fault, each_fault_point_in_turn, 1800)
{
	const struct step *s = &variant->step;
	long injected = 0, enomem = 0, efault = 0, passed = 0;
	long long left;
	char msg[256];
	unsigned int n;
	int fd, ret;

	KP_RETURN_IF_SKIPPED();
	for (n = 1; n <= MAX_NTH; n++) {
		ASSERT_EQ(0, s->prepare(&fd))
			TH_LOG("%s: preparing: %s", s->name, strerror(errno));
		ASSERT_EQ(0, fail_nth_set(n));
		ret = s->run(fd);
		/* 0: the nth fault point was reached and failed. */
		left = tp_read_num("/proc/thread-self/fail-nth");
		fail_nth_set(0);
		s->undo(fd);
		if (left != 0) {
			if (fd >= 0)
				close(fd);
			ASSERT_EQ(0, ret) TH_LOG("%s failed with nothing injected: %s",
						 s->name, strerror(-ret));
			break;
		}
		injected++;
		if (fd >= 0)
			close(fd);
		/* The step fails cleanly, or gets by without what failed. */
		if (!ret)
			passed++;
		else if (ret == -ENOMEM)
			enomem++;
		else if (ret == -EFAULT && !strcmp(s->name, "read"))
			efault++;	/* the fault of the user's buffer failed */
		else
			ASSERT_EQ(-ENOMEM, ret)
				TH_LOG("%s, fault point %u: %s", s->name, n,
				       strerror(-ret));
		ASSERT_EQ(0, clean_session(msg, sizeof(msg)))
			TH_LOG("%s, fault point %u: %s", s->name, n, msg);
	}
	ASSERT_GE(MAX_NTH, n) TH_LOG("%s reached over %d fault points", s->name,
				     MAX_NTH);
	TH_LOG("%s: %ld fault points, each failed in turn (ENOMEM %ld, EFAULT %ld, got by without %ld); the next run reached none",
	       s->name, injected, enomem, efault, passed);
	tally_add(s->name, injected);
}

/*
 * fail_function on kprof_event_create(): the nth call fails, once (each
 * call takes one from 'space' and the one that finds it at 1 fails).
 */
static int fei_arm(unsigned int nth)
{
	char retval[32];

	snprintf(retval, sizeof(retval), "%#llx", (unsigned long long)-ENOMEM);
	if (tp_write(FEI "inject", FEI_FN) ||
	    tp_write(FEI FEI_FN "/retval", retval) ||
	    tp_write(FEI "task-filter", "N") || tp_write(FEI "verbose", "0") ||
	    tp_write(FEI "interval", "1") || tp_write(FEI "probability", "100") ||
	    tp_write_u64(FEI "space", nth) || tp_write(FEI "times", "1"))
		return -1;
	return 0;
}

static void fei_disarm(void)
{
	tp_write(FEI "inject", "\n");	/* blank: every function removed */
}

FIXTURE(event) {
	int fd;
	int offlined;
};

FIXTURE_SETUP(event)
{
	self->offlined = -1;
	self->fd = -1;
	if (access(FEI "inject", F_OK))
		SKIP(return, "no fail_function: the debug kernel's (tests/vm/run --kernel debug)");
	KP_OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, config_all(self->fd, BUF_PAGES));
}

FIXTURE_TEARDOWN(event)
{
	char path[64];

	fei_disarm();
	if (self->fd >= 0)
		close(self->fd);
	if (self->offlined >= 0) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
			 self->offlined);
		tp_write(path, "1");
	}
}

TEST_F_TIMEOUT(event, start_with_each_event_failing, 600)
{
	long injected = 0;
	char msg[256];
	unsigned int n;
	int ret;

	KP_RETURN_IF_SKIPPED();
	/* The preflight's event, then one per online CPU. */
	for (n = 1; n <= MAX_NTH; n++) {
		ASSERT_EQ(0, fei_arm(n)) TH_LOG("fail_function on %s: %s", FEI_FN,
						strerror(errno));
		ret = kp_start(self->fd) ? -errno : 0;
		/* times 0: the nth call failed. */
		if (tp_read_num(FEI "times") != 0) {
			ASSERT_EQ(0, ret) TH_LOG("START with nothing injected: %s",
						 strerror(-ret));
			ASSERT_EQ(0, kp_stop(self->fd));
			break;
		}
		injected++;
		ASSERT_EQ(-ENOMEM, ret) TH_LOG("START, event %u failing", n);
		fei_disarm();
		ASSERT_EQ(0, clean_session(msg, sizeof(msg)))
			TH_LOG("event %u failed: %s", n, msg);
	}
	TH_LOG("START: %ld event creations, each failed in turn; the next run failed none",
	       injected);
	ASSERT_LT(1, injected) TH_LOG("no CPU's event was failed");
	tally_add("START events", injected);
}

TEST_F_TIMEOUT(event, cpu_online_with_its_event_failing, 600)
{
	struct kprof_info info;
	char path[64], msg[256];
	int cpu = 1;

	KP_RETURN_IF_SKIPPED();
	while (kp_cpu_online(cpu + 1))
		cpu++;
	if (cpu < 1 || !kp_cpu_online(cpu))
		SKIP(return, "needs a second CPU to take down");
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	ASSERT_EQ(0, tp_write(path, "0")) TH_LOG("offline CPU %d: %s", cpu,
						 strerror(errno));
	self->offlined = cpu;
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	ASSERT_EQ(0, fei_arm(1));
	/* The CPU comes up, without an event: sampling goes on elsewhere. */
	ASSERT_EQ(0, tp_write(path, "1")) TH_LOG("online CPU %d: %s", cpu,
						 strerror(errno));
	self->offlined = -1;
	EXPECT_EQ(0, tp_read_num(FEI "times"))
		TH_LOG("CPU %d's event was not failed", cpu);
	fei_disarm();
	ASSERT_EQ(0, kp_get_info(self->fd, &info));
	EXPECT_EQ(0, info.online_mask[cpu / 64] & (1ULL << (cpu % 64)))
		TH_LOG("CPU %d has an event after its creation failed", cpu);
	ASSERT_EQ(0, kp_stop(self->fd));
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, clean_session(msg, sizeof(msg))) TH_LOG("%s", msg);
	tally_add("CPU online event", 1);
}

/* kprof.ko's text, from /proc/modules: [*lo, *hi). */
static int module_range(unsigned long long *lo, unsigned long long *hi)
{
	char name[64], line[256];
	unsigned long long size, base;
	FILE *f = fopen("/proc/modules", "r");
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu %*s %*s %*s %llx", name, &size, &base) == 3 &&
		    !strcmp(name, KP_MODULE)) {
			*lo = base;
			*hi = base + size;
			ret = 0;
		}
	fclose(f);
	return ret;
}

/*
 * Is a backtrace line kprof.ko's?  kmemleak prints "[<hashed>] SYMBOL":
 * "func+0x1/0x2 [kprof]" while the module is loaded, the bare address
 * "0xffff..." once it is gone.
 */
static int kprof_frame(const char *line, unsigned long long lo,
		       unsigned long long hi)
{
	const char *sym = strstr(line, "] ");
	unsigned long long addr;

	if (!sym)
		return 0;
	sym += 2;
	if (!strncmp(sym, "0x", 2)) {
		addr = strtoull(sym, NULL, 16);
		return addr >= lo && addr < hi;
	}
	return !strncmp(strchrnul(sym, ' '), " [" KP_MODULE "]", 3 + strlen(KP_MODULE));
}

/* Reports whose backtrace has a frame of kprof.ko, logged. */
static int leaks_from(char *report, unsigned long long lo,
		      unsigned long long hi, struct __test_metadata *_metadata)
{
	char *entry = strstr(report, "unreferenced object"), *next, *line;
	int n = 0;

	while (entry) {
		int ours = 0;

		next = strstr(entry + 1, "unreferenced object");
		if (next)
			next[-1] = '\0';
		for (line = strstr(entry, "[<"); line; line = strstr(line + 2, "[<"))
			ours |= kprof_frame(line, lo, hi);
		if (ours)
			TH_LOG("%s", entry);
		n += ours;
		entry = next;
	}
	return n;
}

/* Last: the harness runs fixtures in the order they are declared. */
FIXTURE(leak) {
	int dummy;
};

FIXTURE_SETUP(leak)
{
}

FIXTURE_TEARDOWN(leak)
{
	if (!kp_module_loaded())
		kp_insmod();
}

TEST_F_TIMEOUT(leak, none_after_unload, 600)
{
	static char report[1 << 20];
	unsigned long long lo = 0, hi = 0, total = 0, v;
	long long restrict_was;
	size_t have = 0;
	char what[64];
	ssize_t got;
	FILE *f;
	int fd;

	if (access(KMEMLEAK, F_OK))
		SKIP(return, "no kmemleak: the debug kernel's (tests/vm/run --kernel debug)");
	if (module_range(&lo, &hi))
		SKIP(return, "kprof.ko not loaded");
	f = fopen(FAULT_TALLY, "r");
	while (f && fscanf(f, "%63[^0-9] %llu\n", what, &v) == 2) {
		TH_LOG("injected: %s%llu", what, v);
		total += v;
	}
	if (f)
		fclose(f);
	unlink(FAULT_TALLY);
	TH_LOG("%llu failures injected in all", total);

	ASSERT_EQ(0, kp_rmmod()) TH_LOG("rmmod kprof: %s", strerror(errno));
	/* kmemleak reports nothing younger than 5 s. */
	kp_sleep_ms(6000);
	/*
	 * Twice: a scan only greys an object whose contents changed since
	 * the one before (a new one's always did); the next reports it.
	 */
	ASSERT_EQ(0, tp_write(KMEMLEAK, "scan"))
		TH_LOG("kmemleak scan: %s (is it on?)", strerror(errno));
	ASSERT_EQ(0, tp_write(KMEMLEAK, "scan"));
	/*
	 * kmemleak prints backtraces with %pK: real addresses for a reader
	 * with CAP_SYSLOG at kptr_restrict 1, hashed ones at 0.
	 */
	restrict_was = tp_read_num(KPTR_RESTRICT);
	ASSERT_EQ(0, tp_write(KPTR_RESTRICT, "1"));
	fd = open(KMEMLEAK, O_RDONLY);
	ASSERT_LE(0, fd);
	while ((got = read(fd, report + have, sizeof(report) - 1 - have)) > 0)
		have += got;
	close(fd);
	tp_write_u64(KPTR_RESTRICT, restrict_was);
	ASSERT_LE(0, got) TH_LOG("reading %s: %s", KMEMLEAK, strerror(errno));
	report[have] = '\0';
	EXPECT_EQ(0, leaks_from(report, lo, hi, _metadata))
		TH_LOG("kmemleak: objects allocated from kprof.ko [%llx, %llx) unreferenced after rmmod",
		       lo, hi);
}

TEST_HARNESS_MAIN
