// SPDX-License-Identifier: GPL-2.0
/*
 * Negative configuration tests.  Each bad_config variant changes ONE field
 * of a request that is otherwise valid (the 'valid' test proves it is),
 * checks the exact errno, that a PMU kprof refuses is named in the kernel
 * log, and that the configuration in force did not change.  Then:
 * SET_CONFIG while running, a hardware event on a VM without a PMU,
 * unknown ioctls, the size protocol, and the throttle knobs.
 */
#include "kprof_test.h"
#include "testpmu.h"

#include "kselftest_harness.h"

/* The valid request every variant starts from: cpu-clock on CPU 0. */
static void valid_config(struct kprof_config *cfg)
{
	kp_cfg_init(cfg, 1000);
	kp_cfg_add_cpu(cfg, 0);
	cfg->flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
	cfg->kernel_stack = 16;
	cfg->user_stack = 16;
	cfg->buffer_pages = 4;
}

/* The configuration in force before each bad request: distinct values. */
static void prior_config(struct kprof_config *cfg)
{
	kp_cfg_init(cfg, 1234);
	kp_cfg_add_cpu(cfg, 0);
	cfg->buffer_pages = 2;
}

static int get_config(int fd, struct kprof_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	return ioctl(fd, KPROF_IOC_GET_CONFIG, cfg);
}

static int get_throttle(int fd, struct kprof_throttle_config *tc)
{
	memset(tc, 0, sizeof(*tc));
	tc->size = sizeof(*tc);
	return ioctl(fd, KPROF_IOC_GET_THROTTLE, tc);
}

static int has_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
}

/* The perf type of PMU @name (/sys/bus/event_source/devices), or -1. */
static long long pmu_type(const char *name)
{
	char path[128];
	long long type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* A type no PMU in /sys/bus/event_source/devices has: one above all. */
static __u32 unregistered_type(void)
{
	FILE *ls = popen("cat /sys/bus/event_source/devices/*/type", "r");
	unsigned int t, max = PERF_TYPE_MAX;

	if (ls) {
		while (fscanf(ls, "%u", &t) == 1)
			if (t > max)
				max = t;
		pclose(ls);
	}
	return max + 1;
}

/*
 * Whether the kernel log has, after the line @mark, kprof's refusal of
 * event type @type naming PMU @pmu: "event type T config C on PMU 'P'
 * refused: why".
 */
static int refusal_logged(const char *mark, __u32 type, const char *pmu)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd),
		 "dmesg | awk -v want=\"on PMU '%s' refused: \" '/%s/ { m = 1 } m && /kprof: event type %u config / && index($0, want) { f = 1 } END { exit !f }'",
		 pmu, mark, type);
	return system(cmd) == 0;
}

/* ------------------------------------------------------------------ */

FIXTURE(bad_config) {
	int fd;
	unsigned int nr_cpu_ids;
	__u32 max_sample_rate;
	struct kprof_config prior;
};

FIXTURE_VARIANT(bad_config) {
	void (*mutate)(struct kprof_config *cfg, unsigned int nr_cpu_ids,
		       __u32 max_sample_rate);
	int err;
	const char *log_pmu;	/* the PMU the refusal names; NULL: no log */
	const char *sysfs_pmu;	/* NULL, or the sysfs PMU whose type is used */
};

#define BAD_LOG(name, errnum, pmu, sysfs, body)				\
	static void mutate_##name(struct kprof_config *cfg,		\
				  unsigned int nr_cpu_ids,		\
				  __u32 max_sample_rate)		\
	{								\
		(void)nr_cpu_ids;					\
		(void)max_sample_rate;					\
		body;							\
	}								\
	FIXTURE_VARIANT_ADD(bad_config, name) {				\
		.mutate = mutate_##name,				\
		.err = errnum,						\
		.log_pmu = pmu,						\
		.sysfs_pmu = sysfs,					\
	}
#define BAD(name, errnum, body)	BAD_LOG(name, errnum, NULL, NULL, body)
/* An event of type @t, config @c. */
#define BAD_EVENT(name, errnum, t, c)					\
	BAD(name, errnum, { cfg->type = (t); cfg->config = (c); })
/* A PMU kprof does not sample: EOPNOTSUPP at SET_CONFIG, named in the log. */
#define REFUSED(name, pmu, body) BAD_LOG(name, EOPNOTSUPP, pmu, NULL, body)
#define REFUSED_SYSFS(name, sysfs)					\
	BAD_LOG(name, EOPNOTSUPP, "(dynamic type)", sysfs,		\
		{ cfg->type = (__u32)pmu_type(sysfs); cfg->config2 = 0x5; })

/* Event errnos as perf_event_open() gives them. */
REFUSED(type_tracepoint, "tracepoint", cfg->type = PERF_TYPE_TRACEPOINT);
REFUSED(type_breakpoint, "breakpoint", cfg->type = PERF_TYPE_BREAKPOINT);
BAD(software_config_unknown, ENOENT, cfg->config = PERF_COUNT_SW_MAX);
REFUSED(software_page_faults, "software", cfg->config = PERF_COUNT_SW_PAGE_FAULTS);
REFUSED(software_context_switches, "software",
	cfg->config = PERF_COUNT_SW_CONTEXT_SWITCHES);
REFUSED(software_dummy, "software", cfg->config = PERF_COUNT_SW_DUMMY);
/* Dynamic types: kprobe, uprobe, and one no PMU has. */
REFUSED_SYSFS(kprobe_pmu, "kprobe");
REFUSED_SYSFS(uprobe_pmu, "uprobe");
REFUSED(dynamic_type_unregistered, "(dynamic type)",
	{ cfg->type = unregistered_type(); cfg->config1 = 0x5; });
BAD_EVENT(hardware_config_unknown, EINVAL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX);
/* A PMU type in config's upper half (PERF_PMU_TYPE_SHIFT): not kprof's. */
BAD_EVENT(hardware_extended_type, EINVAL, PERF_TYPE_HARDWARE, 1ULL << 32);
/* x86's set_ext_hw_attr(): each of the three cache fields, then the type. */
BAD_EVENT(cache_id_unknown, EINVAL, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_MAX);
BAD_EVENT(cache_op_unknown, EINVAL, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_OP_MAX << 8);
BAD_EVENT(cache_result_unknown, EINVAL, PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_RESULT_MAX << 16);
BAD_EVENT(cache_extended_type, EINVAL, PERF_TYPE_HW_CACHE, 1ULL << 32);
BAD(period_bit63, EINVAL, { cfg->flags &= ~KPROF_CFG_FREQ; cfg->sample = 1ULL << 63; });
BAD(period_zero, EINVAL, { cfg->flags &= ~KPROF_CFG_FREQ; cfg->sample = 0; });
BAD(freq_zero, EINVAL, cfg->sample = 0);
BAD(freq_above_max_rate, EINVAL, cfg->sample = max_sample_rate + 1ULL);
BAD(cpu_out_of_range, EINVAL, kp_cfg_add_cpu(cfg, nr_cpu_ids));
BAD(cpu_last_bit, EINVAL, kp_cfg_add_cpu(cfg, KPROF_MAX_CPUS - 1));
BAD(reserved_first, EINVAL, cfg->__reserved[0] = 1);
BAD(reserved_last, EINVAL, cfg->__reserved[3] = 1ULL << 63);
BAD(reserved0, EINVAL, cfg->__reserved0 = 1);
/* The target (ABI 6): pid > 0 with KPROF_TARGET_TASK only, no cpumask. */
BAD(target_flag_unknown, EINVAL, cfg->target_flags = KPROF_TARGET_ALL + 1);
BAD(target_flag_top, EINVAL, cfg->target_flags = KPROF_TARGET_TASK | 1U << 31);
BAD(target_pid_without_flag, EINVAL, cfg->target_pid = getpid());
BAD(target_threads_without_task, EINVAL, cfg->target_flags = KPROF_TARGET_THREADS);
BAD(target_pid_zero, EINVAL, cfg->target_flags = KPROF_TARGET_TASK);
#define TARGET(pid)	{ cfg->target_flags = KPROF_TARGET_TASK; cfg->target_pid = (pid); }
BAD(target_pid_negative, EINVAL, TARGET(-1));
BAD(target_with_cpumask, EINVAL, { TARGET(getpid()); kp_cfg_add_cpu(cfg, 0); });
/* perf_copy_attr()'s sample_stack_user rules, for DWARF call chains. */
BAD(dwarf_stack_size_zero, EINVAL, cfg->flags |= KPROF_CFG_CALLCHAIN_DWARF);
#define DWARF_SIZE(n)	{ cfg->flags |= KPROF_CFG_CALLCHAIN_DWARF; cfg->user_stack_size = (n); }
BAD(dwarf_stack_size_unaligned, EINVAL, DWARF_SIZE(8188));
BAD(dwarf_stack_size_above_max, EINVAL, DWARF_SIZE(KPROF_MAX_USER_STACK_SIZE + 8));
BAD(stack_size_without_dwarf, EINVAL, cfg->user_stack_size = 8192);
BAD(flag_unknown, EINVAL, cfg->flags |= KPROF_CFG_ALL + 1);
BAD(flag_top, EINVAL, cfg->flags |= 1ULL << 63);
BAD(exclude_everything, EINVAL, cfg->flags |= KPROF_CFG_EXCLUDE_USER | KPROF_CFG_EXCLUDE_KERNEL);
BAD(precise_ip_4, EINVAL, cfg->precise_ip = 4);
BAD(kernel_stack_too_deep, EINVAL, cfg->kernel_stack = KPROF_MAX_STACK + 1);
BAD(user_stack_too_deep, EINVAL, cfg->user_stack = KPROF_MAX_STACK + 1);
BAD(kernel_chain_depth_zero, EINVAL, cfg->kernel_stack = 0);
BAD(user_chain_depth_zero, EINVAL, cfg->user_stack = 0);
BAD(watermark_above_buffer, EINVAL, cfg->watermark = cfg->buffer_pages * sysconf(_SC_PAGESIZE) + 1);
BAD(buffer_pages_zero, EINVAL, cfg->buffer_pages = 0);
BAD(buffer_pages_three, EINVAL, cfg->buffer_pages = 3);
BAD(buffer_pages_huge, EINVAL, cfg->buffer_pages = 1U << 31);
BAD(size_zero, EINVAL, cfg->size = 0);
BAD(size_below_ver0, EINVAL, cfg->size = KPROF_CONFIG_SIZE_VER0 - 8);

FIXTURE_SETUP(bad_config)
{
	struct kprof_throttle_config tc;
	struct kprof_info info;
	struct kprof_config cfg;

	KP_OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, kp_get_info(self->fd, &info));
	self->nr_cpu_ids = info.nr_cpu_ids;
	ASSERT_EQ(0, get_throttle(self->fd, &tc));
	self->max_sample_rate = tc.max_sample_rate;
	ASSERT_LT(1000U, tc.max_sample_rate);

	/* The unmodified request is valid... */
	valid_config(&cfg);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg))
		TH_LOG("valid request refused: %s", strerror(errno));
	/* ...and the one in force before each bad one is another valid one. */
	prior_config(&self->prior);
	ASSERT_EQ(0, kp_set_config(self->fd, &self->prior));
}

FIXTURE_TEARDOWN(bad_config)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(bad_config, refused)
{
	struct kprof_config cfg, now;

	KP_RETURN_IF_SKIPPED();
	if (variant->sysfs_pmu && pmu_type(variant->sysfs_pmu) < 0)
		SKIP(return, "no PMU %s on this kernel", variant->sysfs_pmu);
	valid_config(&cfg);
	variant->mutate(&cfg, self->nr_cpu_ids, self->max_sample_rate);
	/* A mark in the kernel log: the refusal must come after it. */
	if (variant->log_pmu)
		ASSERT_EQ(0, system("echo kprof-test-refused-mark >/dev/kmsg"));
	errno = 0;
	ASSERT_EQ(-1, kp_set_config(self->fd, &cfg));
	ASSERT_EQ(variant->err, errno) TH_LOG("got %s", strerror(errno));
	/*
	 * The line is ratelimited (printk's default: 10 a callsite in 5 s),
	 * and other refusals may have used the burst: once more after the
	 * interval.
	 */
	if (variant->log_pmu &&
	    !refusal_logged("kprof-test-refused-mark", cfg.type, variant->log_pmu)) {
		kp_sleep_ms(5100);
		ASSERT_EQ(0, system("echo kprof-test-refused-mark2 >/dev/kmsg"));
		ASSERT_EQ(-1, kp_set_config(self->fd, &cfg));
		ASSERT_TRUE(refusal_logged("kprof-test-refused-mark2", cfg.type,
					   variant->log_pmu))
			TH_LOG("no log line naming PMU '%s' for type %u",
			       variant->log_pmu, cfg.type);
	}

	/* Nothing of the bad request took effect. */
	ASSERT_EQ(0, get_config(self->fd, &now));
	ASSERT_EQ(0, memcmp(&now, &self->prior, sizeof(now)))
		TH_LOG("config changed: sample %llu buffer_pages %u",
		       now.sample, now.buffer_pages);
}

/* ------------------------------------------------------------------ */

FIXTURE(config) {
	int fd;
	struct kp_buffers b;
	struct kprof_throttle_config throttle;	/* to restore */
};

FIXTURE_SETUP(config)
{
	KP_OPEN_OR_SKIP(self->fd);
	ASSERT_EQ(0, get_throttle(self->fd, &self->throttle));
}

FIXTURE_TEARDOWN(config)
{
	struct kprof_throttle_config tc;

	if (self->fd < 0)
		return;
	kp_stop(self->fd);
	kp_unmap(&self->b);
	/* Restore the knobs; the rate is writable only while 0 < pct < 100. */
	tc = self->throttle;
	tc.cpu_time_max_percent = 25;
	ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &tc);
	ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &self->throttle);
	close(self->fd);
}

TEST_F(config, set_while_running)
{
	struct kprof_config cfg, now;

	KP_RETURN_IF_SKIPPED();
	valid_config(&cfg);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	cfg.sample = 500;
	ASSERT_EQ(-1, kp_set_config(self->fd, &cfg));
	ASSERT_EQ(EBUSY, errno);
	ASSERT_EQ(0, get_config(self->fd, &now));
	ASSERT_EQ(1000ULL, now.sample);
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg));
	ASSERT_EQ(0, get_config(self->fd, &now));
	ASSERT_EQ(0, memcmp(&now, &cfg, sizeof(cfg)));
}

#define KERNEL_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

/*
 * -F above the kernel's perf_event_max_sample_rate is EINVAL, as
 * perf_event_open() says, though kprof's own limit allows it: judged at
 * START, against the rate in force then; the rate itself is accepted.
 */
TEST_F(config, freq_above_kernel_rate)
{
	long long saved = tp_read_num(KERNEL_RATE);
	struct kprof_config cfg;

	KP_RETURN_IF_SKIPPED();
	ASSERT_LT(0, saved);
	ASSERT_EQ(0, kp_default_limits(self->fd));
	ASSERT_EQ(0, tp_write_u64(KERNEL_RATE, 1000));
	valid_config(&cfg);
	cfg.sample = 1001;
	EXPECT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(-1, kp_start(self->fd))
		TH_LOG("the kernel's rate: %lld", tp_read_num(KERNEL_RATE));
	EXPECT_EQ(EINVAL, errno);
	kp_stop(self->fd);
	cfg.sample = 1000;
	EXPECT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	EXPECT_EQ(0, kp_stop(self->fd));
	ASSERT_EQ(0, tp_write_u64(KERNEL_RATE, saved));
}

/* A larger struct from a newer userspace: zero tail fine, else E2BIG. */
TEST_F(config, size_protocol)
{
	struct {
		struct kprof_config cfg;
		__u64 tail[2];
	} big;
	struct kprof_config now;

	KP_RETURN_IF_SKIPPED();
	memset(&big, 0, sizeof(big));
	valid_config(&big.cfg);
	big.cfg.size = sizeof(big);
	ASSERT_EQ(0, kp_set_config(self->fd, &big.cfg))
		TH_LOG("larger struct, zero tail: %s", strerror(errno));

	big.cfg.sample = 777;
	big.tail[1] = 1;
	ASSERT_EQ(-1, kp_set_config(self->fd, &big.cfg));
	ASSERT_EQ(E2BIG, errno);
	ASSERT_EQ(0, get_config(self->fd, &now));
	ASSERT_EQ(1000ULL, now.sample);

	/* GET_CONFIG: kernel's size, and the user's larger tail zeroed. */
	memset(&big, 0xa5, sizeof(big));
	big.cfg.size = sizeof(big);
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_GET_CONFIG, &big.cfg));
	ASSERT_EQ(0ULL, big.tail[0]);
	ASSERT_EQ(0ULL, big.tail[1]);
	ASSERT_EQ(1000ULL, big.cfg.sample);
	ASSERT_EQ(0ULL, big.cfg.__reserved[3]);

	/* ...and a size below the first published one is refused. */
	memset(&now, 0, sizeof(now));
	now.size = KPROF_CONFIG_SIZE_VER0 - 8;
	ASSERT_EQ(-1, ioctl(self->fd, KPROF_IOC_GET_CONFIG, &now));
	ASSERT_EQ(EINVAL, errno);
}

/*
 * cycles, a cache event and a raw event on a VM without a PMU: a clean
 * error at SET_CONFIG or START, and nothing half-built: no CPU running, no
 * event, and cpu-clock works right after.  With the PMU stand-in loaded,
 * it holds the core PMU's type, PERF_TYPE_RAW: the raw code 0x3c is then
 * its event_init's to refuse (EINVAL, config 0 is its only event), and
 * the generic events still find no PMU (it takes only its own type).
 */
TEST_F_TIMEOUT(config, hardware_without_pmu, 60)
{
	static const struct { __u32 type; __u64 config; } hw[] = {
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D |
				      PERF_COUNT_HW_CACHE_RESULT_MISS << 16 },
		{ PERF_TYPE_RAW, 0x003c },
	};
	int standin_raw = pmu_type("kprof_testpmu") == PERF_TYPE_RAW;
	struct kprof_config cfg;
	struct kprof_info info;
	unsigned int i, cpu;
	int ret;

	KP_RETURN_IF_SKIPPED();
	if (has_pmu())
		SKIP(return, "this machine has a CPU PMU: hardware events work");

	for (i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		valid_config(&cfg);
		cfg.type = hw[i].type;
		cfg.config = hw[i].config;
		cfg.flags &= ~KPROF_CFG_FREQ;
		cfg.sample = 100000;
		ret = kp_set_config(self->fd, &cfg);
		if (!ret)
			ret = kp_start(self->fd);
		ASSERT_EQ(-1, ret) TH_LOG("type %u config %#llx accepted without a PMU",
					  hw[i].type, hw[i].config);
		if (standin_raw && hw[i].type == PERF_TYPE_RAW)
			ASSERT_EQ(EINVAL, errno)
				TH_LOG("raw %#llx on the stand-in: %s",
				       hw[i].config, strerror(errno));
		ASSERT_TRUE(errno == ENOENT || errno == EOPNOTSUPP ||
			    errno == ENODEV ||
			    (standin_raw && hw[i].type == PERF_TYPE_RAW))
			TH_LOG("type %u config %#llx: %s", hw[i].type,
			       hw[i].config, strerror(errno));

		ASSERT_EQ(0, kp_get_info(self->fd, &info));
		ASSERT_EQ(0U, info.flags & KPROF_INFO_RUNNING);
		for (cpu = 0; cpu < KPROF_MAX_CPUS / 64; cpu++)
			ASSERT_EQ(0ULL, info.online_mask[cpu])
				TH_LOG("an event is left on CPUs %u*64+", cpu);
	}

	/* Not half-built: cpu-clock starts and samples. */
	valid_config(&cfg);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	kp_sleep_ms(100);
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_LT(0ULL, self->b.cpus[0].samples);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
}

/* Lines of kprof's refusal naming PMU @pmu in the kernel log after @mark. */
static int refusals_logged(const char *mark, const char *pmu)
{
	char cmd[512];
	int n = -1;
	FILE *p;

	snprintf(cmd, sizeof(cmd),
		 "dmesg | awk -v want=\"on PMU '%s' refused: \" '/%s/ { m = 1 } m && /kprof: event type / && index($0, want) { n++ } END { print n + 0 }'",
		 pmu, mark);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

/*
 * Any opener may ask for a refused PMU as often as it likes: the log line
 * is ratelimited (printk's default, DEFAULT_RATELIMIT_BURST 10 lines per
 * DEFAULT_RATELIMIT_INTERVAL 5 s per callsite).  Over T seconds of
 * requests at most floor(T / 5) + 2 intervals are touched (the first may
 * have begun before), so at most 10 * (floor(T / 5) + 2) lines.
 */
#define RATELIMIT_REQUESTS	100

TEST_F(config, refusal_log_ratelimited)
{
	struct kprof_config cfg;
	double t0, secs;
	int i, lines, bound;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, system("echo kprof-test-ratelimit-mark >/dev/kmsg"));
	valid_config(&cfg);
	cfg.type = PERF_TYPE_TRACEPOINT;
	t0 = kp_now();
	for (i = 0; i < RATELIMIT_REQUESTS; i++) {
		ASSERT_EQ(-1, kp_set_config(self->fd, &cfg));
		ASSERT_EQ(EOPNOTSUPP, errno);
	}
	secs = kp_now() - t0;
	lines = refusals_logged("kprof-test-ratelimit-mark", "tracepoint");
	bound = 10 * ((int)(secs / 5) + 2);
	TH_LOG("%d refusals in %.3f s: %d log lines", RATELIMIT_REQUESTS, secs, lines);
	ASSERT_LE(0, lines);
	ASSERT_LE(lines, bound) TH_LOG("more than %d lines in %.3f s", bound, secs);
}

TEST_F(config, stats_bad_cpu)
{
	struct kprof_cpu_stats st;
	struct kprof_info info;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_get_info(self->fd, &info));
	ASSERT_EQ(0, kp_get_stats(self->fd, 0, &st));
	EXPECT_EQ(-1, kp_get_stats(self->fd, info.nr_cpu_ids, &st));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, kp_get_stats(self->fd, ~0U, &st));
	EXPECT_EQ(EINVAL, errno);
	memset(&st, 0, sizeof(st));
	st.size = KPROF_CPU_STATS_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_GET_STATS, &st));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(config, bad_ioctl)
{
	__u32 v = 0;

	KP_RETURN_IF_SKIPPED();
	EXPECT_EQ(-1, ioctl(self->fd, _IO(KPROF_IOC_MAGIC, 99)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(KPROF_IOC_MAGIC, KPROF_IOC_START & 0xff, __u64), &v));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO('x', 4)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(0, ioctl(self->fd, KPROF_IOC_ABI_VERSION, &v));
	EXPECT_EQ((__u32)KPROF_ABI_VERSION, v);
}

/* Throttle knobs, with the rules of the perf sysctl handlers. */
TEST_F(config, throttle_knobs)
{
	struct kprof_throttle_config tc, now;
	__u32 rate;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, get_throttle(self->fd, &tc));
	ASSERT_LE(tc.semantics, (__u32)KPROF_THROTTLE_SHADOW);
	ASSERT_LE(tc.cpu_time_max_percent, 100U);
	rate = tc.max_sample_rate;

	/* Each knob alone. */
	now = tc;
	now.cpu_time_max_percent = 101;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.max_sample_rate = 0;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.semantics = KPROF_THROTTLE_SHADOW + 1;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.__reserved0 = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.flags = KPROF_THROTTLE_F_ALL + 1;	/* an unknown flag */
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.__reserved[3] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.size = KPROF_THROTTLE_CONFIG_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	/* Nothing changed. */
	ASSERT_EQ(0, get_throttle(self->fd, &now));
	ASSERT_EQ(0, memcmp(&now, &tc, sizeof(tc)));

	/*
	 * pct 100 and pct 0 switch the cost controller off; then, as
	 * perf_event_max_sample_rate's handler does, a rate write is refused.
	 */
	now = tc;
	now.cpu_time_max_percent = 100;
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now))
		TH_LOG("pct 100: %s", strerror(errno));
	now.max_sample_rate = rate / 2;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	now = tc;
	now.cpu_time_max_percent = 0;
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now))
		TH_LOG("pct 0: %s", strerror(errno));
	now.max_sample_rate = rate / 2;
	EXPECT_EQ(-1, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	EXPECT_EQ(EINVAL, errno);

	/* With the controller on again, the rate is writable. */
	now = tc;
	now.cpu_time_max_percent = 25;
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now));
	now.max_sample_rate = rate / 2;
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &now))
		TH_LOG("rate write at pct 25: %s", strerror(errno));
	ASSERT_EQ(0, get_throttle(self->fd, &now));
	ASSERT_EQ(rate / 2, now.max_sample_rate);
}

TEST_HARNESS_MAIN
