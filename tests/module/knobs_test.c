// SPDX-License-Identifier: GPL-2.0
/*
 * knobs_test: kprofcat's recording side with the throttle knobs, in the test-bed VM (cwd = repo,
 * kprof.ko loaded, root):
 *  - max_sample_rate, cpu_time_max_percent and throttle_semantics are 0644
 *    parameters with the perf sysctls' rules: 5000 reads back 5000 (and is
 *    what GET_THROTTLE and the per-tick limit say), the rate is EINVAL
 *    while the percent is 0 or 100, 101 is refused, gt is taken and bogus
 *    refused; at insmod too;
 *  - insmod's freq= is kprofcat's default;
 *  - kprofcat sets the knobs (root only), lowers -F above the max with
 *    perf's warnings, refuses it with --strict-freq, takes -F max;
 *  - the end-of-run line agrees with --stats, -q silences it, and -o says
 *    what it wrote; the status line stays off the terminal samples go to;
 *  - -p of a missing pid, -p ending with its process, a command that cannot run, -C/--watermark/
 *    --buffer-pages beyond the module's limits, a repeated -e, -e cycles
 *    without a PMU, :u; Ctrl-C on a -- CMD run exits 0 after writing.
 * Every test puts back the knobs it changed (FIXTURE_TEARDOWN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/kprof.h>

#include "kselftest_harness.h"
#include "expect.h"
#include "kp_capture.h"

#include "kprof_test.h"

#define KPROFCAT	"user/kprofcat"
#define SPIN		"tests/progs/spin"
#define PARAMS		"/sys/module/kprof/parameters/"
#define CAP		"/tmp/knobs_test.cap"

/* Run CMD with sh: stdout into OUT, stderr into ERR (each NUL-terminated). */
static int run(const char *cmd, char *out, size_t out_len, char *err, size_t err_len)
{
	char full[1024], errpath[] = "/tmp/knobs_test.err.XXXXXX";
	int fd = mkstemp(errpath), status;
	size_t n = 0, m;
	FILE *p, *e;

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(full, sizeof(full), "%s 2>%s", cmd, errpath);
	p = popen(full, "r");
	if (!p)
		return -1;
	while ((m = fread(out + n, 1, out_len - 1 - n, p)) > 0)
		n += m;
	out[n] = '\0';
	/* Drain what did not fit, so the command is not killed by SIGPIPE. */
	while (fread(full, 1, sizeof(full), p) > 0)
		;
	status = pclose(p);
	err[0] = '\0';
	e = fopen(errpath, "r");
	if (e) {
		n = fread(err, 1, err_len - 1, e);
		err[n] = '\0';
		fclose(e);
	}
	unlink(errpath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Write VAL to the parameter NAME: 0 or -errno. */
static int param_write(const char *name, const char *val)
{
	char path[256];
	int fd, ret = 0;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int param_read(const char *name, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAMS "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

static unsigned long param_ul(const char *name)
{
	char buf[64];

	return param_read(name, buf, sizeof(buf)) ? ~0UL : strtoul(buf, NULL, 10);
}

/* Does the capture at @path hold @text (its META record is plain text)? */
static int capture_has(const char *path, const char *text)
{
	static char buf[1 << 20];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return -1;
	return !!memmem(buf, n, text, strlen(text));
}

static int get_throttle(struct kprof_throttle_config *t)
{
	int fd = open(KP_DEV, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	ret = ioctl(fd, KPROF_IOC_GET_THROTTLE, t);
	close(fd);
	return ret;
}

static int get_config(struct kprof_config *c)
{
	int fd = open(KP_DEV, O_RDONLY), ret;

	if (fd < 0)
		return -1;
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	ret = ioctl(fd, KPROF_IOC_GET_CONFIG, c);
	close(fd);
	return ret;
}

FIXTURE(knobs) {
	char semantics[16];
	unsigned long rate, percent;
};

FIXTURE_SETUP(knobs)
{
	if (access(PARAMS "max_sample_rate", F_OK))
		SKIP(return, "kprof.ko not loaded");
	ASSERT_EQ(0, param_read("throttle_semantics", self->semantics, sizeof(self->semantics)));
	self->rate = param_ul("max_sample_rate");
	self->percent = param_ul("cpu_time_max_percent");
}

/*
 * Back to what the test found, in the sysctl order: the rate can only be
 * written while the percent is neither 0 nor 100.
 */
FIXTURE_TEARDOWN(knobs)
{
	char buf[32];

	if (access(PARAMS "max_sample_rate", F_OK))
		return;
	EXPECT_EQ(0, param_write("throttle_semantics", self->semantics));
	EXPECT_EQ(0, param_write("cpu_time_max_percent", "25"));
	snprintf(buf, sizeof(buf), "%lu", self->rate);
	EXPECT_EQ(0, param_write("max_sample_rate", buf));
	snprintf(buf, sizeof(buf), "%lu", self->percent);
	EXPECT_EQ(0, param_write("cpu_time_max_percent", buf));
}

TEST_F(knobs, parameters_follow_the_sysctl_rules)
{
	struct kprof_throttle_config t;
	struct kprof_cpu_stats st = { .size = sizeof(st) };
	struct kprof_info info;
	struct stat sb;
	char buf[32];
	int fd;

	ASSERT_EQ(0, stat(PARAMS "max_sample_rate", &sb));
	EXPECT_EQ(0644, sb.st_mode & 0777);
	ASSERT_EQ(0, param_write("cpu_time_max_percent", "25"));

	/* The acceptance: 5000 reads back 5000, and is the limit in force. */
	ASSERT_EQ(0, param_write("max_sample_rate", "5000"));
	EXPECT_EQ(5000UL, param_ul("max_sample_rate"));
	ASSERT_EQ(0, get_throttle(&t));
	EXPECT_EQ(5000U, t.max_sample_rate);
	fd = open(KP_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kp_get_info(fd, &info));
	ASSERT_EQ(0, ioctl(fd, KPROF_IOC_GET_STATS, &st));
	close(fd);
	/* Derived as the kernel does: DIV_ROUND_UP(rate, HZ) per tick. */
	EXPECT_EQ((5000ULL + info.hz - 1) / info.hz, st.max_samples_per_tick);
	EXPECT_EQ(5000ULL, st.max_sample_rate);

	EXPECT_EQ(-EINVAL, param_write("max_sample_rate", "0"));
	EXPECT_EQ(-EINVAL, param_write("max_sample_rate", "2147483648"));
	EXPECT_EQ(-EINVAL, param_write("cpu_time_max_percent", "101"));
	EXPECT_EQ(25UL, param_ul("cpu_time_max_percent"));

	/* Percent 0 or 100: the rate cannot be written (perf_proc_update_handler). */
	ASSERT_EQ(0, param_write("cpu_time_max_percent", "0"));
	EXPECT_EQ(0UL, param_ul("cpu_time_max_percent"));
	EXPECT_EQ(-EINVAL, param_write("max_sample_rate", "6000"));
	EXPECT_EQ(5000UL, param_ul("max_sample_rate"));
	ASSERT_EQ(0, param_write("cpu_time_max_percent", "100"));
	EXPECT_EQ(-EINVAL, param_write("max_sample_rate", "6000"));
	ASSERT_EQ(0, param_write("cpu_time_max_percent", "50"));
	EXPECT_EQ(0, param_write("max_sample_rate", "7000"));
	EXPECT_EQ(7000UL, param_ul("max_sample_rate"));
	ASSERT_EQ(0, get_throttle(&t));
	EXPECT_EQ(50U, t.cpu_time_max_percent);

	EXPECT_EQ(0, param_write("throttle_semantics", "gt"));
	ASSERT_EQ(0, param_read("throttle_semantics", buf, sizeof(buf)));
	EXPECT_STREQ("gt", buf);
	ASSERT_EQ(0, get_throttle(&t));
	EXPECT_EQ((__u32)KPROF_THROTTLE_GT, t.semantics);
	EXPECT_EQ(-EINVAL, param_write("throttle_semantics", "bogus"));
	ASSERT_EQ(0, param_read("throttle_semantics", buf, sizeof(buf)));
	EXPECT_STREQ("gt", buf);
	EXPECT_EQ(0, param_write("throttle_semantics", "shadow"));
	EXPECT_EQ(0, param_write("throttle_semantics", "ge"));
}

/* The knobs at insmod, and insmod's freq= as kprofcat's default. */
TEST_F_TIMEOUT(knobs, insmod_parameters, 120)
{
	char out[4096], err[4096], buf[32];
	struct kprof_config c;
	const char *params;

	if (kp_rmmod())
		SKIP(return, "rmmod kprof: %s", strerror(errno));
	params = "max_sample_rate=5000 throttle_semantics=gt cpu_time_max_percent=30";
	EXPECT_EQ(0, kp_insmod_params(params));
	EXPECT_EQ(5000UL, param_ul("max_sample_rate"));
	EXPECT_EQ(30UL, param_ul("cpu_time_max_percent"));
	EXPECT_EQ(0, param_read("throttle_semantics", buf, sizeof(buf)));
	EXPECT_STREQ("gt", buf);
	ASSERT_EQ(0, kp_rmmod());
	EXPECT_EQ(-1, kp_insmod_params("cpu_time_max_percent=0 max_sample_rate=5000"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, kp_insmod_params("throttle_semantics=bogus"));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, kp_insmod_params("cpu_time_max_percent=101"));
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, kp_insmod_params("freq=100"));
	EXPECT_EQ(0, run(KPROFCAT " -d 1 --stats", out, sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(0, get_config(&c));
	EXPECT_EQ(100ULL, c.sample);
	EXPECT_TRUE(c.flags & KPROF_CFG_FREQ);
	/*
	 * Told otherwise, kprofcat does what it was told: its session is its
	 * file's (ABI 5), out of another file's GET_CONFIG, so its capture's
	 * META record says what it configured.
	 */
	EXPECT_EQ(0, run(KPROFCAT " -F 211 -d 1 --stats -o " CAP, out, sizeof(out),
			 err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(1, capture_has(CAP, "\nsample=211\nfreq=1\n")) TH_LOG("META of " CAP);
	unlink(CAP);
	ASSERT_EQ(0, kp_rmmod());
	ASSERT_EQ(0, kp_insmod());
	/* The fixture's teardown writes back what it found before. */
}

TEST_F_TIMEOUT(knobs, kprofcat_sets_knobs_and_lowers_F, 180)
{
	static char out[1 << 16], err[8192];
	char buf[32];

	ASSERT_EQ(0, run(KPROFCAT " --cpu-time-max-percent 25 --max-sample-rate 1000 --throttle-semantics gt -F 100 -d 1 --stats",
			 out, sizeof(out), err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(1000UL, param_ul("max_sample_rate"));
	EXPECT_EQ(0, param_read("throttle_semantics", buf, sizeof(buf)));
	EXPECT_STREQ("gt", buf);
	EXPECT_HAS(out, "knobs at start: max_sample_rate 1000, cpu_time_max_percent 25, throttle_semantics gt");
	EXPECT_EQ(1, run(KPROFCAT " --throttle-semantics bogus -d 1", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "use ge, gt or shadow")) TH_LOG("%s", err);
	EXPECT_EQ(1, run(KPROFCAT " --cpu-time-max-percent 101 -d 1", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "0 to 100")) TH_LOG("%s", err);

	/*
	 * Clock events do not feed the cost controller (KPROF_THROTTLE_F_FEED_CLOCK
	 * off), so the max stays 1000 while these run.
	 */
	EXPECT_EQ(0, run(KPROFCAT " -d 1 --stats", out, sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_HAS(err, "Lowering default frequency rate from 4000 to 1000.");
	EXPECT_EQ(0, run(KPROFCAT " -F 5000 -d 1 --stats -o " CAP, out, sizeof(out), err,
			 sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_HAS(err, "Maximum frequency rate (1000 Hz) exceeded, throttling from 5000 Hz to 1000 Hz");
	EXPECT_NE(NULL, strstr(err, "--strict-freq")) TH_LOG("%s", err);
	/* What kprofcat's own session ran at (ABI 5: not another file's). */
	EXPECT_EQ(1, capture_has(CAP, "\nsample=1000\nfreq=1\n")) TH_LOG("META of " CAP);
	unlink(CAP);
	EXPECT_EQ(1, run(KPROFCAT " -F 5000 --strict-freq -d 1 --stats", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_HAS(err, "Maximum frequency rate (1000 Hz) exceeded: -F 5000 with --strict-freq");
	EXPECT_EQ(0, run(KPROFCAT " -F max -d 1 --stats", out, sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "Using a maximum frequency rate of 1000 Hz")) TH_LOG("%s", err);
	EXPECT_EQ(0, run(KPROFCAT " -q -d 1 --stats", out, sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ("", err);

	/* The plain run with the max at 1000. */
	EXPECT_EQ(0, run(KPROFCAT " -- " SPIN " 1 >/dev/null", out, sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_HAS(err, "Lowering default frequency rate from 4000 to 1000.");
}

/* Throttling and loss are told at the end. */
TEST_F_TIMEOUT(knobs, end_of_run_line_agrees_with_stats, 180)
{
	static char out[1 << 16], err[8192];
	unsigned long long lost = ~0ULL, throttles = ~0ULL, samples;
	unsigned long long ov, sm, full, nested, stopped, thr, thr_ticks;
	const char *p, *all;

	ASSERT_EQ(0, param_write("cpu_time_max_percent", "25"));
	ASSERT_EQ(0, param_write("max_sample_rate", "1000"));
	/* A 10 us period: 100 kHz asked for against 1000/s allowed. */
	ASSERT_EQ(0, run(KPROFCAT " -c 10000 --stats -- " SPIN " 2", out, sizeof(out), err,
			 sizeof(err)))
		TH_LOG("%s", err);
	p = strstr(err, "[ kprofcat: ");
	ASSERT_NE(NULL, p) TH_LOG("%s", err);
	TH_LOG("%s", p);
	EXPECT_EQ(1, sscanf(p, "[ kprofcat: %llu samples", &samples)) TH_LOG("%s", p);
	ASSERT_NE(NULL, strstr(p, "; lost "));
	EXPECT_EQ(1, sscanf(strstr(p, "; lost "), "; lost %llu samples", &lost));
	ASSERT_NE(NULL, strstr(p, " throttles;"));
	/* The count right before " throttles;". */
	for (all = strstr(p, " throttles;"); all > p && all[-1] != ' '; all--)
		;
	EXPECT_EQ(1, sscanf(all, "%llu", &throttles));
	EXPECT_NE(NULL, strstr(p, "max_sample_rate 1000")) TH_LOG("%s", p);
	/* The same run's --stats table: its "all" row has the kernel's totals. */
	all = strstr(out, "\n all ");
	ASSERT_NE(NULL, all) TH_LOG("%s", out);
	ASSERT_EQ(7, sscanf(all, "\n all %llu %llu %llu %llu %llu %llu %llu",
			    &ov, &sm, &full, &nested, &stopped, &thr, &thr_ticks));
	EXPECT_EQ(full + nested + stopped + thr, lost);
	EXPECT_EQ(thr_ticks, throttles);
	TH_LOG("overflows %llu samples %llu lost %llu (throttled %llu) throttles %llu",
	       ov, sm, lost, thr, thr_ticks);
	if (thr)
		EXPECT_NE(NULL, strstr(p, " throttled")) TH_LOG("%s", p);

	EXPECT_EQ(0, run(KPROFCAT " -q -c 10000 -- " SPIN " 1 >/dev/null", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_EQ(NULL, strstr(err, "[ kprofcat")) TH_LOG("%s", err);

	EXPECT_EQ(0, run(KPROFCAT " -F 499 -o /tmp/knobs_test.kpcap -- " SPIN " 1", out,
			 sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "[ kprofcat: Captured and wrote ")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, " /tmp/knobs_test.kpcap (")) TH_LOG("%s", err);
	EXPECT_EQ(NULL, strstr(err, "out of order")) TH_LOG("%s", err);
	unlink("/tmp/knobs_test.kpcap");
}

TEST_F_TIMEOUT(knobs, errors_name_the_value_and_the_limit, 120)
{
	static char out[1 << 16], err[8192];
	struct kprof_info info;
	int fd;

	/* A -p of no process fails, naming it. */
	EXPECT_EQ(1, run(KPROFCAT " -p 999999 -d 1", out, sizeof(out), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "-p 999999: No such process")) TH_LOG("%s", err);
	/* A command that cannot run prints no samples. */
	EXPECT_EQ(127, run(KPROFCAT " -- /nonexistent/cmd", out, sizeof(out), err, sizeof(err)));
	EXPECT_STREQ("", out);
	EXPECT_HAS(err, "cannot run '/nonexistent/cmd': No such file or directory");
	EXPECT_EQ(NULL, strstr(err, "[ kprofcat")) TH_LOG("%s", err);

	/* Out-of-range CPUs, buffers and watermarks fail, naming the limit. */
	fd = open(KP_DEV, O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kp_get_info(fd, &info));
	close(fd);
	if (info.nr_cpu_ids <= 99) {
		EXPECT_EQ(1, run(KPROFCAT " -C 99 -d 1", out, sizeof(out), err, sizeof(err)));
		EXPECT_NE(NULL, strstr(err, "CPU 99 does not exist here")) TH_LOG("%s", err);
	}
	EXPECT_EQ(2, run(KPROFCAT " --buffer-pages 1048576 -d 1", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "limit of 65536 pages")) TH_LOG("%s", err);
	EXPECT_EQ(1, run(KPROFCAT " --watermark 99999999 -d 1", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "--watermark 99999999 is above the")) TH_LOG("%s", err);
	EXPECT_EQ(2, run(KPROFCAT " -e cpu-clock -e task-clock -d 1", out, sizeof(out), err,
			 sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "-e given twice")) TH_LOG("%s", err);
	/* No PMU under TCG: a clean error without a stray strerror. */
	if (run(KPROFCAT " -e cycles -F 100 -d 1 --stats", out, sizeof(out), err,
		sizeof(err)) == 1) {
		EXPECT_NE(NULL, strstr(err, "event 'cycles'")) TH_LOG("%s", err);
		EXPECT_EQ(NULL, strstr(err, "No such file or directory")) TH_LOG("%s", err);
	}
}

/*
 * perf record -p ends when its process does; so does kprofcat -p.  The
 * process spins until kprofcat's capture holds a sample of it (kprofcat
 * sampled it, so its session started while the process lived: a START
 * after the process is gone is ESRCH), then exits on its own.
 */
TEST_F_TIMEOUT(knobs, pid_run_ends_with_its_process, 120)
{
	static const char go[] = "/tmp/knobs_test.go";
	static char out[1 << 16], err[8192];
	pid_t target, releaser;
	char cmd[256];
	int status;

	unlink(go);
	unlink(CAP);
	target = fork();
	ASSERT_LE(0, target);
	if (!target) {
		/* Gone with the test, whatever ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		while (access(go, F_OK))
			;
		_exit(0);
	}
	releaser = fork();
	ASSERT_LE(0, releaser);
	if (!releaser) {
		int ok = !kp_capture_wait_samples(CAP);

		close(open(go, O_CREAT | O_WRONLY, 0600));
		_exit(ok ? 0 : 1);
	}
	/* Without the end it runs into the test's timeout. */
	snprintf(cmd, sizeof(cmd), KPROFCAT " -F 997 -g -p %d -o " CAP " --stats", target);
	EXPECT_EQ(0, run(cmd, out, sizeof(out), err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "[ kprofcat: ")) TH_LOG("%s", err);
	ASSERT_EQ(releaser, waitpid(releaser, &status, 0));
	EXPECT_EQ(0, status) TH_LOG("the capture never held a sample");
	/* If kprofcat failed, the releaser has let the target go. */
	ASSERT_EQ(target, waitpid(target, &status, 0));
	unlink(go);
}

/*
 * Lines of folded stacks in @out whose leaf frame is (@kernel) or is not
 * a kernel frame ("_[k]"), or -1 for a line without a count.
 */
static int leaves(const char *out, int kernel)
{
	const char *line = out, *nl, *sp;
	int n = 0;

	for (; *line; line = nl + 1) {
		nl = strchrnul(line, '\n');
		for (sp = nl; sp > line && sp[-1] != ' '; sp--)
			;
		if (sp == line)
			return -1;
		sp--;	/* the space before the count */
		if ((sp - line >= 4 && !strncmp(sp - 4, "_[k]", 4)) == !!kernel)
			n++;
		if (!*nl)
			break;
	}
	return n;
}

/*
 * The event modifiers reach kprof: :u samples user mode only, :k kernel
 * mode only.  Seen in kprofcat's own samples, its session being its
 * file's (ABI 5), out of another file's GET_CONFIG.
 */
TEST_F_TIMEOUT(knobs, modifier_u_samples_user_mode_only, 120)
{
	static char out[1 << 16], err[8192];

	ASSERT_EQ(0, run(KPROFCAT " -e cpu-clock:u -F 199 --folded -- " SPIN " 1", out,
			 sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_LT(0, leaves(out, 0)) TH_LOG("no user-mode sample: %s", out);
	EXPECT_EQ(0, leaves(out, 1)) TH_LOG("kernel-mode samples with :u: %s", out);
	ASSERT_EQ(0, run(KPROFCAT " -e cpu-clock:k -F 199 -a --folded -- " SPIN " 1", out,
			 sizeof(out), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_EQ(0, leaves(out, 0)) TH_LOG("user-mode samples with :k: %s", out);
}

/* The knobs are root's, as the perf sysctls are. */
TEST_F_TIMEOUT(knobs, knobs_need_root, 60)
{
	int p[2], status;
	char err[4096] = "";
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(p[1], 2);
		close(p[0]);
		if (setgid(65534) || setuid(65534))
			_exit(99);
		execl(KPROFCAT, "kprofcat", "--max-sample-rate", "5000", "-d", "1", (char *)NULL);
		_exit(98);
	}
	close(p[1]);
	/* To EOF: p_err() writes in pieces, a reader gone early is SIGPIPE. */
	while (len < sizeof(err) - 1 && (n = read(p[0], err + len, sizeof(err) - 1 - len)) > 0)
		len += n;
	err[len] = '\0';
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(1, WEXITSTATUS(status)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "--max-sample-rate 5000: permission denied")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "run as root")) TH_LOG("%s", err);
	EXPECT_EQ(self->rate, param_ul("max_sample_rate"));
}

/*
 * Ctrl-C on a -- CMD run: everything written, the end-of-run line, exit 0;
 * also when CMD ignores SIGINT (kprofcat follows with SIGTERM).  ARGV is
 * kprofcat's command line.
 */
static void sigint_run(struct __test_metadata *_metadata, char *const argv[])
{
	char outpath[] = "/tmp/knobs_test.out.XXXXXX", errpath[] = "/tmp/knobs_test.err.XXXXXX";
	static char err[8192];
	int ofd = mkstemp(outpath), efd = mkstemp(errpath), status, i;
	struct stat sb;
	FILE *f;
	pid_t pid;

	ASSERT_LE(0, ofd);
	ASSERT_LE(0, efd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(ofd, 1);
		dup2(efd, 2);
		execv(KPROFCAT, argv);
		_exit(98);
	}
	/* Samples printed: kprofcat runs, its handler is in place. */
	for (i = 0; i < 600; i++) {
		if (!fstat(ofd, &sb) && sb.st_size > 0)
			break;
		kp_sleep_ms(100);
	}
	if (sb.st_size == 0) {
		/* Why: kprofcat's stderr, and whether it still runs. */
		ssize_t n = pread(efd, err, sizeof(err) - 1, 0);

		err[n > 0 ? n : 0] = '\0';
		TH_LOG("no sample printed in 60 s; kprofcat %s; its stderr: %s",
		       waitpid(pid, &status, WNOHANG) == pid ? "had exited" : "still ran",
		       err);
	}
	ASSERT_LT(0, sb.st_size);
	ASSERT_EQ(0, kill(pid, SIGINT));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	f = fopen(errpath, "r");
	ASSERT_NE(NULL, f);
	err[fread(err, 1, sizeof(err) - 1, f)] = '\0';
	fclose(f);
	close(ofd);
	close(efd);
	unlink(outpath);
	unlink(errpath);
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "[ kprofcat: ")) TH_LOG("%s", err);
	EXPECT_EQ(NULL, strstr(err, "was killed by signal")) TH_LOG("%s", err);
}

TEST_F_TIMEOUT(knobs, sigint_on_a_command_run_exits_0, 240)
{
	char *const plain[] = { "kprofcat", "-F", "499", "--", SPIN, "60", NULL };
	char *const deaf[] = { "kprofcat", "-F", "499", "--", "/bin/sh", "-c",
			       "trap '' INT; exec " SPIN " 60", NULL };

	sigint_run(_metadata, plain);
	sigint_run(_metadata, deaf);
}

/* On the terminal the samples go to, no status line. */
TEST_F_TIMEOUT(knobs, no_status_line_on_the_sample_terminal, 60)
{
	static char buf[1 << 20];
	size_t len = 0;
	ssize_t n;
	int master, status;
	pid_t pid;

	pid = forkpty(&master, NULL, NULL, NULL);
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Two status seconds, a few hundred samples: all fit in BUF. */
		execl(KPROFCAT, "kprofcat", "-C", "0", "-F", "99", "-d", "3", (char *)NULL);
		_exit(98);
	}
	while (len < sizeof(buf) - 1 && (n = read(master, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = '\0';
	close(master);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_LT(len, sizeof(buf) - 1) TH_LOG("more output than the test reads");
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("%s", buf);
	EXPECT_EQ(NULL, strstr(buf, "[kprofcat ")) TH_LOG("status line on the sample terminal");
	EXPECT_NE(NULL, strstr(buf, "[ kprofcat: ")) TH_LOG("no end-of-run line");
}

TEST_HARNESS_MAIN
