// SPDX-License-Identifier: GPL-2.0
/*
 * stats_snapshot_test - GET_STATS of another CPU is a snapshot taken
 * between two of that CPU's overflows, even while one is half done.
 *
 * The overflow handler counts the overflow first and its outcome (a
 * SAMPLE, or a loss by cause) at its end: a copy of the counters taken
 * from another CPU in between has overflows == samples + lost_* + 1.
 * GET_STATS must not copy them from there.  That window is one handler
 * long, and the single-threaded emulator does not interleave another
 * vCPU's ioctl with it, so tests/testpmu/kprof_hold.ko holds the handler
 * in it: a kprobe on kprof_throttle_admit(), which the handler calls
 * after counting the overflow and before counting its outcome, spins
 * (interrupts off, on CPU S) while the test, on CPU M, asks GET_STATS for
 * CPU S.  kprof takes that snapshot on CPU S itself, in an IPI that waits
 * for the handler: the hold ends by its timeout, then the snapshot is
 * taken.  A copy made from CPU M returns at once, mid-overflow.
 *
 * The held handler is the one that interrupts a child spinning in user
 * mode on CPU S (cpu-clock, kernel excluded), found by the child's pid.
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "testpmu.h"

#define HOLD_KO		"tests/testpmu/kprof_hold.ko"
#define HOLD_PARAM	"/sys/module/kprof_hold/parameters/"
#define CPU_M		0	/* the test */
#define CPU_S		1	/* sampled, its handler held */
#define PERIOD_NS	1000000
/*
 * How long the handler is held when nothing releases it: GET_STATS waits
 * that long for its IPI.  Below the kernel's CSD-lock (5 s), soft-lockup
 * (20 s) and RCU-stall (21 s) reports; far above the time GET_STATS takes
 * to start once the hold is seen, so that a copy made from CPU M is made
 * inside the hold.
 */
#define HOLD_MS		2000

FIXTURE(held) {
	int fd;
	int loaded;
	pid_t spinner;
};

FIXTURE_SETUP(held)
{
	struct kprof_config cfg;
	int fd;

	self->fd = -1;
	self->loaded = 0;
	self->spinner = 0;
	if (!kp_cpu_online(CPU_M) || !kp_cpu_online(CPU_S))
		SKIP(return, "needs CPUs %d and %d online", CPU_M, CPU_S);
	if (access(HOLD_KO, R_OK))
		SKIP(return, "%s: %s (built by tests/vm/run --testpmu)", HOLD_KO,
		     strerror(errno));
	ASSERT_EQ(0, kp_pin_self(CPU_M));
	fd = open(HOLD_KO, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, syscall(SYS_finit_module, fd, "symbol=kprof_throttle_admit", 0))
		TH_LOG("insmod %s: %s", HOLD_KO, strerror(errno));
	close(fd);
	self->loaded = 1;
	ASSERT_EQ(0, tp_write_u64(HOLD_PARAM "timeout_ms", HOLD_MS));

	KP_OPEN_OR_SKIP(self->fd);
	kp_cfg_init(&cfg, PERIOD_NS);
	cfg.flags = KPROF_CFG_EXCLUDE_KERNEL;
	kp_cfg_add_cpu(&cfg, CPU_S);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(held)
{
	if (self->loaded)
		tp_write(HOLD_PARAM "release", "1");
	if (self->spinner > 0) {
		kill(self->spinner, SIGKILL);
		waitpid(self->spinner, NULL, 0);
	}
	if (self->fd >= 0) {
		kp_stop(self->fd);
		kp_default_limits(self->fd);
		close(self->fd);
	}
	if (self->loaded)
		syscall(SYS_delete_module, "kprof_hold", O_NONBLOCK);
}

TEST_F_TIMEOUT(held, stats_of_a_cpu_mid_overflow, 60)
{
	struct kprof_cpu_stats st;
	const struct kprof_counters *k = &st.counters;
	unsigned long long lost;
	double end;
	int got;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	self->spinner = fork();
	ASSERT_LE(0, self->spinner);
	if (!self->spinner) {
		if (kp_pin_self(CPU_S))
			_exit(1);
		for (;;)
			;
	}
	ASSERT_EQ(0, tp_write_u64(HOLD_PARAM "pid", self->spinner));
	end = kp_now() + KP_PROGRESS_MS / 1000.0;
	while (tp_read_num(HOLD_PARAM "entered") != 1 && kp_now() < end)
		kp_sleep_ms(1);
	ASSERT_EQ(1, tp_read_num(HOLD_PARAM "entered"))
		TH_LOG("no overflow of CPU %d reached kprof_throttle_admit()", CPU_S);

	got = kp_get_stats(self->fd, CPU_S, &st);
	ASSERT_EQ(0, tp_write(HOLD_PARAM "release", "1"));
	ASSERT_EQ(0, got) TH_LOG("GET_STATS: %s", strerror(errno));
	lost = k->lost_full + k->lost_nested + k->lost_stopped + k->lost_throttled;
	TH_LOG("CPU %d: overflows %llu samples %llu lost %llu; the hold %s",
	       CPU_S, (unsigned long long)k->overflows,
	       (unsigned long long)k->samples, lost,
	       tp_read_num(HOLD_PARAM "timed_out") == 1 ? "timed out" : "was released");
	EXPECT_EQ(k->overflows, k->samples + lost)
		TH_LOG("GET_STATS copied CPU %d's counters in the middle of an overflow",
		       CPU_S);
	ASSERT_EQ(0, kp_stop(self->fd));
}

TEST_HARNESS_MAIN
