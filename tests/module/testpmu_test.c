// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU stand-in itself (tests/testpmu/kprof_testpmu.c), driven by stock
 * perf in the guest: its counter counts nanoseconds, `perf record -e
 * kprof_testpmu// -c 50000 -a` samples every CPU with the requested
 * period, its event_init refuses what an x86 counter without PEBS/LBR
 * refuses, nmi_cost_ns keeps to its bounds, and with nmi_cost_ns raised
 * the kernel's own cost controller logs "interrupt took too long" and
 * lowers kernel.perf_event_max_sample_rate.  Skips without the stand-in
 * (tests/vm/run --testpmu loads it).
 */
#include <sys/syscall.h>

#include "kprof_test.h"
#include "testpmu.h"
#include "kselftest_harness.h"

#define TP_OUT_LEN	(1 << 20)

FIXTURE(testpmu) {
	int type;
	char *out;
};

FIXTURE_SETUP(testpmu)
{
	self->out = NULL;
	self->type = tp_type();
	if (self->type < 0)
		SKIP(return, "no %s (load it: tests/vm/run --testpmu)", TP_SYSFS);
	self->out = malloc(TP_OUT_LEN);
	ASSERT_NE(NULL, self->out);
	ASSERT_EQ(0, tp_write_u64(TP_PARAM, 0));
	ASSERT_EQ(0, tp_reset_sysctls());
}

FIXTURE_TEARDOWN(testpmu)
{
	if (self->type >= 0) {
		tp_write_u64(TP_PARAM, 0);
		tp_reset_sysctls();
	}
	free(self->out);
}

static int tp_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static void tp_attr(struct perf_event_attr *attr, int type)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->sample_period = 1000000;
	attr->disabled = 1;
}

/* event_init: one valid request opens; each changed field gets its errno. */
TEST_F(testpmu, event_init_validates)
{
	struct perf_event_attr attr;
	int fd;

	KP_RETURN_IF_SKIPPED();
	tp_attr(&attr, self->type);
	fd = tp_open(&attr, 0);
	ASSERT_LE(0, fd) TH_LOG("valid request: %s", strerror(errno));
	close(fd);

	tp_attr(&attr, self->type);
	attr.config = 1;
	EXPECT_EQ(-1, tp_open(&attr, 0));
	EXPECT_EQ(EINVAL, errno) TH_LOG("config=1");

	/* precise_ip stands for PEBS (the stand-in's header): up to 3. */
	tp_attr(&attr, self->type);
	attr.precise_ip = 3;
	fd = tp_open(&attr, 0);
	EXPECT_LE(0, fd) TH_LOG("precise_ip=3: %s", strerror(errno));
	if (fd >= 0)
		close(fd);

	tp_attr(&attr, self->type);
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	EXPECT_EQ(-1, tp_open(&attr, 0));
	EXPECT_EQ(EOPNOTSUPP, errno) TH_LOG("branch stack (no LBR)");
}

/*
 * Config 0 counts the nanoseconds the event runs: in one `perf stat` of
 * a 1 s spin it must agree with task-clock, which counts the same
 * on-CPU intervals.  They differ by how far apart the two events are
 * switched in and out at each context switch (microseconds, even under
 * TCG), over the few hundred switches of a lone spinning task in an idle
 * guest: well under 10% of 1 s.
 */
TEST_F(testpmu, counts_nanoseconds)
{
	char spin[4096], cmd[4400];
	double ns = -1, task_ms = -1, v;
	char *line, *save, unit[32], name[64];

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_prog_path(spin, sizeof(spin), "spin"));
	snprintf(cmd, sizeof(cmd),
		 "perf stat -x, -e kprof_testpmu//,task-clock -- %s 1", spin);
	ASSERT_EQ(0, tp_run(cmd, self->out, TP_OUT_LEN)) TH_LOG("%s", self->out);
	for (line = strtok_r(self->out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%lf,%31[^,],%63[^,]", &v, unit, name) == 3) {
			if (!strcmp(name, "task-clock"))
				task_ms = v;
		} else if (sscanf(line, "%lf,,%63[^,]", &v, name) == 2) {
			if (!strncmp(name, "kprof_testpmu", 13))
				ns = v;
		}
	}
	ASSERT_LT(0, ns) TH_LOG("no kprof_testpmu count in perf stat's output");
	ASSERT_LT(0, task_ms) TH_LOG("no task-clock in perf stat's output");
	TH_LOG("kprof_testpmu %.0f ns, task-clock %.3f ms", ns, task_ms);
	EXPECT_LT(ns, task_ms * 1e6 * 1.1);
	EXPECT_GT(ns, task_ms * 1e6 * 0.9);
}

/* qsort() of the sample lines, to find identical ones side by side. */
static int tp_cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Stock perf samples every CPU through the stand-in's NMIs, with the
 * period it asked for (-c: a fixed period is every sample's period).
 * Each sample comes from one perf_event_overflow() call of the stand-in
 * (throttling overflows write their sample too), so the distinct samples
 * written are at most the overflows it counted.  Distinct: perf record
 * writes some records twice.  Its perf_mmap__push() (Debian's perf 6.1,
 * tools/perf/util/mmap.c) reads data_head once, then again in
 * perf_mmap__read_init(); it writes out up to the second and keeps the
 * first as where it stopped, so what the kernel published between the
 * two reads is written again on its next pass.  With all vCPUs on one
 * TCG thread, perf's vCPU can be descheduled between the two reads while
 * others sample, and about one run in ten holds a copy: byte for byte
 * the same CPU, ns timestamp and IP at two file offsets, for one overflow
 * the stand-in counted.  Copies are logged; only distinct samples count.
 */
TEST_F(testpmu, perf_record_all_cpus)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long samples = 0, bad_period = 0;
	unsigned long long per_cpu[256] = { 0 };
	unsigned long long copies = 0;
	struct tp_stats before, after;
	unsigned int cpu, period;
	char *line, *save, **lines;
	size_t n = 0, cap = 1024, j;
	long i;

	KP_RETURN_IF_SKIPPED();
	ASSERT_GT(256, ncpu);
	ASSERT_EQ(0, tp_read_stats(&before));
	ASSERT_EQ(0, tp_run("perf record -q -e kprof_testpmu// -c 50000 -a -o /tmp/testpmu.data -- sleep 1",
			    self->out, TP_OUT_LEN)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, tp_read_stats(&after));
	ASSERT_EQ(0, tp_run_script("-i /tmp/testpmu.data --ns -F cpu,time,period,ip",
				   self->out, TP_OUT_LEN)) TH_LOG("%s", self->out);
	lines = malloc(cap * sizeof(*lines));
	ASSERT_NE(NULL, lines);
	for (line = strtok_r(self->out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, " [%u] %*[0-9.]: %u", &cpu, &period) != 2 || cpu >= 256)
			continue;
		if (n == cap) {
			cap *= 2;
			lines = realloc(lines, cap * sizeof(*lines));
			ASSERT_NE(NULL, lines);
		}
		lines[n++] = line;
	}
	qsort(lines, n, sizeof(*lines), tp_cmp_lines);
	for (j = 0; j < n; j++) {
		if (j && !strcmp(lines[j], lines[j - 1])) {
			copies++;
			TH_LOG("perf.data holds this record twice: %s", lines[j]);
			continue;
		}
		sscanf(lines[j], " [%u] %*[0-9.]: %u", &cpu, &period);
		samples++;
		per_cpu[cpu]++;
		if (period != 50000 && !bad_period++)
			TH_LOG("a sample with another period: %s", lines[j]);
	}
	free(lines);
	unlink("/tmp/testpmu.data");
	TH_LOG("%llu samples (%llu more copies), %llu overflows, %llu NMIs (%.1f us each)",
	       samples, copies, after.overflows - before.overflows,
	       after.nmis - before.nmis,
	       after.nmis > before.nmis ?
	       (after.nmi_ns - before.nmi_ns) / 1e3 / (after.nmis - before.nmis) : 0.0);
	EXPECT_LT(0, samples);
	EXPECT_EQ(0, bad_period);
	EXPECT_GE(after.overflows - before.overflows, samples);
	EXPECT_EQ(before.lost_nmis, after.lost_nmis);
	for (i = 0; i < ncpu; i++)
		if (kp_cpu_online(i))
			EXPECT_LT(0, per_cpu[i]) TH_LOG("no sample on CPU %ld", i);
}

/*
 * With 50 us per NMI, 20 times perf's default budget of 2.5 us
 * (perf_sample_allowed_ns at 100000 Hz, HZ=250, 25%), the kernel's EWMA
 * (1/128 per sample) of the NMI's duration passes the budget within a
 * few NMIs, and the controller logs its line and lowers the sysctl, at
 * most to the last value it logged.
 */
TEST_F(testpmu, cost_controller_lowers_rate)
{
	const char *tag = "lowering kernel.perf_event_max_sample_rate to ";
	long long rate, logged = -1;
	char *line, *save, *p;
	int lines = 0;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, tp_log_mark("testpmu_test: cost_controller_lowers_rate\n"));
	ASSERT_EQ(0, tp_write_u64(TP_PARAM, 50000));
	ASSERT_EQ(0, tp_run("perf record -q -e kprof_testpmu// -c 50000 -a -o /tmp/testpmu.data -- sleep 1",
			    self->out, TP_OUT_LEN)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, tp_write_u64(TP_PARAM, 0));
	unlink("/tmp/testpmu.data");
	rate = tp_read_num(TP_MAX_RATE);
	ASSERT_EQ(0, tp_log_since("testpmu_test: cost_controller_lowers_rate",
				  self->out, TP_OUT_LEN));
	for (line = strtok_r(self->out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, "perf: interrupt took too long"))
			continue;
		lines++;
		TH_LOG("%s", line);
		p = strstr(line, tag);
		if (p)
			logged = atoll(p + strlen(tag));
	}
	EXPECT_LT(0, lines) TH_LOG("the kernel never logged 'interrupt took too long'");
	EXPECT_GT(TP_DEFAULT_RATE, rate);
	/*
	 * perf_duration_warn() logs through printk_ratelimited(): steps past
	 * the burst go unlogged, and the rate only goes down, so the sysctl
	 * is at most the last value logged.
	 */
	EXPECT_LT(0, logged);
	EXPECT_GE(logged, rate);
}

/* nmi_cost_ns takes 0 ... TICK_NSEC/2 and names its bound when refusing. */
TEST_F(testpmu, nmi_cost_bounds)
{
	const char *tag = "above TICK_NSEC/2 (";
	long long half = -1;
	char *p;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, tp_log_mark("testpmu_test: nmi_cost_bounds\n"));
	/* HZ >= 100: TICK_NSEC/2 <= 5 ms < 1 s. */
	EXPECT_EQ(-EINVAL, tp_write_u64(TP_PARAM, 1000000000));
	EXPECT_EQ(-EINVAL, tp_write(TP_PARAM, "many\n"));
	ASSERT_EQ(0, tp_log_since("testpmu_test: nmi_cost_bounds",
				  self->out, TP_OUT_LEN));
	p = strstr(self->out, tag);
	ASSERT_NE(NULL, p) TH_LOG("no bound in the log: %s", self->out);
	half = atoll(p + strlen(tag));
	ASSERT_LT(0, half);
	EXPECT_EQ(0, tp_write_u64(TP_PARAM, half));
	EXPECT_EQ(half, tp_read_num(TP_PARAM));
	EXPECT_EQ(-EINVAL, tp_write_u64(TP_PARAM, half + 1));
	EXPECT_EQ(half, tp_read_num(TP_PARAM));
	EXPECT_EQ(0, tp_write_u64(TP_PARAM, 0));
}

/*
 * Unload and load again: on 6.1 the second perf_hw_context registration
 * WARNs unless the PMU claims PERF_PMU_CAP_HETEROGENEOUS_CPUS (the test
 * bed fails the run on a WARN).  The stand-in comes back with a type.
 */
TEST_F(testpmu, reload)
{
	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, tp_run("rmmod kprof_testpmu && insmod tests/testpmu/kprof_testpmu.ko",
			    self->out, TP_OUT_LEN)) TH_LOG("%s", self->out);
	self->type = tp_type();
	EXPECT_LE(0, self->type);
}

TEST_HARNESS_MAIN
