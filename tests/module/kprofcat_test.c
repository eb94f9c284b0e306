// SPDX-License-Identifier: GPL-2.0
/*
 * kprofcat_test: kprofcat end to end, in the test-bed VM (cwd = repo,
 * kprof.ko loaded, root):
 *  - `kprofcat -e cpu-clock -F 997 -g --folded -- tests/progs/hot3 3`:
 *    hot_a/hot_b/hot_c shares within 5 points of 60/30/10, and their
 *    stacks reach main through the right callers;
 *  - the default output passes the stackcollapse-perf, speedscope and
 *    Firefox Profiler line grammars (tests/lib/grammar.c);
 *  - a capture (-o) replays (-i) to the same text, also once the profiled
 *    binary is gone (symbols come from the capture); with $KPROF_EXPORT
 *    (tests/vm/run's export channel) the capture and that text go to the
 *    host, where tests/vm/replay-check replays it with the host's kprofcat;
 *  - a process that lives < 50 ms from spawn to reaping (tests/progs/
 *    shortlived: static, no libc), while kprofcat is stopped, is
 *    symbolized with its whole caller chain (side band only), and
 *    kprofcat's capture holds as many samples as its session counted; a
 *    machine too slow to run it in 50 ms SKIPs, saying how long;
 *  - a recording killed with SIGKILL (no END section) replays: every whole
 *    SAMPLE record in the file is printed, none rejected, and stderr says
 *    the capture was cut short;
 *  - errors: unknown event, bad option, a hardware event without a PMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/kprof.h>

#include "kselftest_harness.h"

#include "grammar.h"
#include "hot3_tally.h"
#include "kp_capture.h"
#include "stall_witness.h"

#define KPROFCAT	"user/kprofcat"
#define HOT3		"tests/progs/hot3"
#define SHORTLIVED	"tests/progs/shortlived"
/* What the guest hands the host (tests/vm/run --export, $KPROF_EXPORT). */
#define EXPORT_DIR	"/tmp/kprofcat-export"
/* The commands of shortlived's recording, by samples. */
#define TOP_COMMANDS "awk '{ n = $NF; sub(/;.*/, \"\"); s[$0] += n } END { for (c in s) print s[c], c }' /tmp/kprofcat_short.out | sort -rn | head -n 8"

/*
 * Run CMD with sh, stdout into *OUT (malloc'd), stderr into *ERR; a CMD
 * that stalls is reported while it runs (stall_witness.h).
 */
static int run(const char *cmd, char **out, char **err)
{
	char full[1024], errpath[] = "/tmp/kprofcat_test.err.XXXXXX";
	size_t len, n;
	FILE *p, *e;
	int fd = mkstemp(errpath), status;

	if (fd < 0)
		return -1;
	close(fd);
	snprintf(full, sizeof(full), "%s 2>%s", cmd, errpath);
	p = popen(full, "r");
	if (!p)
		return -1;
	*out = stall_witness_read(p, cmd, &len);
	status = pclose(p);
	if (!*out)
		*out = calloc(1, 1);
	e = fopen(errpath, "r");
	*err = calloc(1, 8192);
	if (e) {
		n = fread(*err, 1, 8191, e);
		(*err)[n] = '\0';
		fclose(e);
	}
	unlink(errpath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void need_device(struct __test_metadata *_metadata)
{
	if (access("/dev/kprof", F_OK))
		SKIP(return, "no /dev/kprof (kprof.ko not loaded)");
}

/*
 * Throttle knobs for tests about kprofcat, not throttling.  kprof's
 * lowered max rate persists while it stays loaded (as perf's sysctl does),
 * and under TCG on a loaded host the handler's measured cost swings: an
 * earlier test may leave the max rate below the -F the next one asks for,
 * which the module then refuses.  So each test starts, as after a fresh
 * insmod, from the default max rate (PERCENT < 0 keeps the percent) or
 * also sets the CPU-time percent (0: no lowering at all, as perf allows).
 * SAVED gets the old knobs.  The sysctl rules: the rate first, while the
 * percent still allows writing it.
 */
static int relax_throttle(struct kprof_throttle_config *saved, int percent)
{
	struct kprof_throttle_config t;
	int fd = open("/dev/kprof", O_RDONLY), ret = -1;

	if (fd < 0)
		return -1;
	memset(saved, 0, sizeof(*saved));
	saved->size = sizeof(*saved);
	if (ioctl(fd, KPROF_IOC_GET_THROTTLE, saved))
		goto out;
	t = *saved;
	t.max_sample_rate = 100000;
	if (ioctl(fd, KPROF_IOC_SET_THROTTLE, &t))
		goto out;
	ret = 0;
	if (percent >= 0) {
		t.cpu_time_max_percent = percent;
		ret = ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);
	}
out:
	close(fd);
	return ret;
}

static int restore_throttle(const struct kprof_throttle_config *saved)
{
	struct kprof_throttle_config t = *saved;
	int fd = open("/dev/kprof", O_RDONLY), ret;

	if (fd < 0)
		return -1;
	t.max_sample_rate = 100000;
	ret = ioctl(fd, KPROF_IOC_SET_THROTTLE, &t);	/* the percent back */
	if (!ret)
		ret = ioctl(fd, KPROF_IOC_SET_THROTTLE, saved);
	close(fd);
	return ret;
}

/*
 * Every test: the default max rate to start from, and a timeout for
 * profiling seconds and replaying or exporting MBs under TCG on a loaded
 * host (the harness's default, 30 s, can be changed for fixture tests only).
 */
FIXTURE(kprofcat) {};
FIXTURE_SETUP(kprofcat)
{
	struct kprof_throttle_config saved;

	if (!access("/dev/kprof", F_OK))
		ASSERT_EQ(0, relax_throttle(&saved, -1)) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(kprofcat) {}

TEST_F_TIMEOUT(kprofcat, hot3_shares_and_callers, 120)
{
	unsigned long a, b, c, a_chain, b_chain, c_chain;
	struct hot3_tally t;
	char *out, *err;
	double total, want[3];

	need_device(_metadata);
	ASSERT_EQ(0, run(KPROFCAT " -e cpu-clock -F 997 -g --folded -- " HOT3 " 3", &out, &err))
		TH_LOG("%s", err);
	/* hot3's stdout goes to stderr while the samples take stdout. */
	ASSERT_EQ(0, hot3_stage_shares(err, want)) TH_LOG("%s", err);
	hot3_tally(out, &t);
	a = t.n[0];
	b = t.n[1];
	c = t.n[2];
	a_chain = t.chain[0];
	b_chain = t.chain[1];
	c_chain = t.chain[2];
	total = a + b + c;
	/* Fewer and the share check below says nothing: fail, do not pass. */
	ASSERT_GT(total, 100) TH_LOG("only %.0f samples in hot functions; stderr: %s", total, err);
	hot3_check_shares(&t, want);
	/* Samples in a prologue lose one caller; nearly all reach main. */
	EXPECT_GE(a_chain * 100, a * 95);
	EXPECT_GE(b_chain * 100, b * 95);
	EXPECT_GE(c_chain * 100, c * 95);
	free(out);
	free(err);
}

TEST_F_TIMEOUT(kprofcat, default_output_passes_the_parsers_grammars, 60)
{
	struct grammar_result g;
	char *out, *err;

	need_device(_metadata);
	ASSERT_EQ(0, run(KPROFCAT " -e cpu-clock -F 997 -g -- " HOT3 " 1", &out, &err))
		TH_LOG("%s", err);
	ASSERT_EQ(0, grammar_check(out, &g)) TH_LOG("%s", g.err);
	TH_LOG("%lu samples, %lu frames, %lu comment blocks", g.samples, g.frames, g.comments);
	/* Enough lines that the grammar check is not vacuous (no rate assumed). */
	EXPECT_GT(g.samples, 50);
	free(out);
	free(err);
}

TEST_F_TIMEOUT(kprofcat, capture_replays_to_the_same_text_without_the_binary, 120)
{
	char *out1, *out2, *out3, *err, cmd[512];

	need_device(_metadata);
	ASSERT_EQ(0, run("cp " HOT3 " /tmp/hot3.copy && " KPROFCAT
			 " -F 997 -g -o /tmp/kprofcat_test.cap -- /tmp/hot3.copy 1", &out1, &err))
		TH_LOG("%s", err);
	free(out1);
	free(err);
	ASSERT_EQ(0, run(KPROFCAT " -i /tmp/kprofcat_test.cap", &out1, &err)) TH_LOG("%s", err);
	free(err);
	EXPECT_NE(NULL, strstr(out1, " hot_a+0x")) TH_LOG("no hot_a frame in the replay");
	ASSERT_EQ(0, unlink("/tmp/hot3.copy"));
	if (getenv("KPROF_EXPORT")) {
		struct timespec t0, t1;
		FILE *f;

		/*
		 * The host replays the capture and compares with out1.  The
		 * export channel is a serial port (~250 KB/s under TCG):
		 * gzip shrinks the 4 MB, mostly kallsyms, to under 1 MB.
		 */
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(0, system("rm -rf " EXPORT_DIR " && mkdir -p " EXPORT_DIR "/kprofcat"));
		f = fopen(EXPORT_DIR "/kprofcat/hot3.txt", "w");
		ASSERT_NE(NULL, f);
		ASSERT_EQ(strlen(out1), fwrite(out1, 1, strlen(out1), f));
		ASSERT_EQ(0, fclose(f));
		snprintf(cmd, sizeof(cmd), "cd %s/kprofcat && gzip hot3.txt && gzip -c /tmp/kprofcat_test.cap >hot3.cap.gz && tar -C %s -cf - kprofcat >\"$KPROF_EXPORT\"",
			 EXPORT_DIR, EXPORT_DIR);
		ASSERT_EQ(0, run(cmd, &out2, &err)) TH_LOG("%s", err);
		free(out2);
		free(err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ASSERT_EQ(0, system("rm -rf " EXPORT_DIR));
		TH_LOG("exported the capture and its text to the host (%s) in %.1f s",
		       getenv("KPROF_EXPORT"),
		       t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	ASSERT_EQ(0, run(KPROFCAT " -i /tmp/kprofcat_test.cap", &out2, &err)) TH_LOG("%s", err);
	free(err);
	EXPECT_STREQ(out1, out2);
	/* And the positional FILE form reads captures too. */
	ASSERT_EQ(0, run(KPROFCAT " /tmp/kprofcat_test.cap", &out3, &err)) TH_LOG("%s", err);
	EXPECT_STREQ(out1, out3);
	unlink("/tmp/kprofcat_test.cap");
	free(out1);
	free(out2);
	free(out3);
	free(err);
}

/*
 * Samples of COMM in folded TEXT (N entries in WANT[], each a pattern):
 * ALL of them, and in COUNT[i] those whose stack starts with WANT[i]
 * (after "COMM;") or, for a WANT[i] starting with ';', contains it.
 */
static unsigned long count_stacks(char *text, const char *comm, const char *const *want,
				  unsigned long *count, int n)
{
	char *line, *save = NULL;
	size_t clen = strlen(comm);
	unsigned long all = 0;
	int i;

	memset(count, 0, n * sizeof(*count));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		unsigned long v;

		if (!sp || strncmp(line, comm, clen) || line[clen] != ';')
			continue;
		v = strtoul(sp + 1, NULL, 10);
		all += v;
		for (i = 0; i < n; i++)
			if (want[i][0] == ';' ? !!strstr(line, want[i]) :
			    !strncmp(line + clen + 1, want[i], strlen(want[i])))
				count[i] += v;
	}
	return all;
}

/*
 * @cpu's counters as kprofcat saved them in capture @cap (its STATS
 * section, GET_STATS of its own session after STOP), read back with
 * `kprofcat -i CAP --stats`: overflows, samples and the lost causes.
 * -1 if kprofcat fails or prints no row for @cpu.
 */
static int capture_counters(const char *cap, int cpu, struct kprof_counters *k)
{
	char cmd[256], *out, *err, *line, *save = NULL;
	int ret = -1;

	snprintf(cmd, sizeof(cmd), KPROFCAT " -i %s --stats", cap);
	if (run(cmd, &out, &err) == 0) {
		for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			int c;

			if (sscanf(line, "%d %llu %llu %llu %llu %llu %llu", &c, &k->overflows,
				   &k->samples, &k->lost_full, &k->lost_nested, &k->lost_stopped,
				   &k->lost_throttled) == 7 && c == cpu) {
				ret = 0;
				break;
			}
		}
	}
	free(out);
	free(err);
	return ret;
}

/* Milliseconds from @t0 to @t1 (CLOCK_MONOTONIC). */
static double ms_between(const struct timespec *t0, const struct timespec *t1)
{
	return (t1->tv_sec - t0->tv_sec) * 1e3 + (t1->tv_nsec - t0->tv_nsec) / 1e6;
}

/*
 * Not a child of kprofcat (-a, spawned from here) and, kprofcat being
 * stopped meanwhile, gone before kprofcat could read its /proc/PID/maps:
 * only the side band's exec/mmap history can name its functions.
 * kprofcat records a capture (-o: records as they come, symbols from the
 * side band's history at its end) and the stacks are read back from it
 * (-i --folded).  Lifetime: posix_spawn to waitpid, which bounds exec to
 * exit from above.  -F 4000 gives ~80 samples in its 20 ms (TCG's timers
 * fire late on a busy host: 8 to 38 were seen at 2 kHz), far below
 * kprof's default limits (100 kHz, 400 per tick at HZ 250).  It is
 * spawned from, and runs on, the one CPU kprofcat samples (CPU 1), kprofcat
 * itself on CPU 0: sampling idle CPUs, migrating the new process and
 * sharing its CPU with the reader cost the emulated machine as much as the
 * process itself (glibc-static version under TCG: 52-60 ms unpinned with
 * all CPUs sampled, 28-32 ms pinned).  The side band, which names its
 * functions, is recorded on every CPU either way.  (Each TEST runs in its
 * own process: the affinity set here ends with it.)
 */
TEST_F_TIMEOUT(kprofcat, process_exiting_within_50ms_is_symbolized, 60)
{
	static const char cap[] = "/tmp/kprofcat_short.kpcap";
	char *const argv[] = { "shortlived", "20", NULL };
	struct kprof_throttle_config saved;
	static const char *const want[] = {
		"_start;", "[unknown]",
		";_start;start_c;main;sl_run;sl_spin_a", ";_start;start_c;main;sl_run;sl_spin_b",
	};
	unsigned long all, n[4];
	struct kprof_counters k;
	struct timespec t0, t1;
	struct rusage ru;
	cpu_set_t set, reader;
	double wait_ms;
	char *out, *err;
	pid_t rec, prog;
	int status, target, cut;
	long records;
	char cpu[16];
	double ms;

	need_device(_metadata);
	ASSERT_EQ(0, relax_throttle(&saved, 0))
		TH_LOG("KPROF_IOC_[GS]ET_THROTTLE: %s", strerror(errno));
	target = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	snprintf(cpu, sizeof(cpu), "%d", target);
	CPU_ZERO(&set);
	CPU_SET(target, &set);
	CPU_ZERO(&reader);
	CPU_SET(0, &reader);
	unlink(cap);
	rec = fork();
	ASSERT_GE(rec, 0);
	if (!rec) {
		if (target && sched_setaffinity(0, sizeof(reader), &reader))
			_exit(126);
		/* Ended by SIGINT below; the 30 s only end an orphan. */
		execl(KPROFCAT, "kprofcat", "-q", "-a", "-C", cpu, "-F", "4000", "-g",
		      "--duration", "30", "-o", cap, (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/*
	 * Until the capture holds a SAMPLE: its session samples one CPU
	 * only, and kprofcat opens its side band before it starts kprof, so
	 * from then on both record on that CPU.  Only kprofcat can tell (its
	 * session belongs to its own file).  At -F 4000 with call chains a
	 * RECORDS section fills kprofcat's stdio buffer within milliseconds.
	 * A fixed 2 s sleep was not enough with 1 vCPU, where kprofcat's
	 * start-up (kallsyms, /proc snapshot) took longer.
	 */
	ASSERT_EQ(0, kp_capture_wait_samples(cap))
		TH_LOG("kprofcat never delivered a sample on CPU %d", target);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	wait_ms = ms_between(&t0, &t1);
	/*
	 * The reader stopped (as if not scheduled) from before the spawn
	 * until after the reaping: it cannot see the process alive, so
	 * /proc/PID/maps is no help, only the side band is.  kprof and the
	 * side band keep recording into their buffers meanwhile: kprofcat's
	 * session is its file's, which only kprofcat can stop or close, and
	 * a stopped kprofcat does neither.
	 */
	ASSERT_EQ(0, kill(rec, SIGSTOP));
	ASSERT_EQ(rec, waitpid(rec, &status, WUNTRACED));
	ASSERT_TRUE(WIFSTOPPED(status));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* posix_spawn: vfork-style, no page tables copied. */
	ASSERT_EQ(0, posix_spawn(&prog, SHORTLIVED, NULL, NULL, argv, environ));
	ASSERT_EQ(prog, wait4(prog, &status, 0, &ru));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/*
	 * The session spans the process's whole life: its owner is stopped
	 * and is told to end it only now (a --duration could run out while
	 * this test waits for the first sample: its speed is the host's).
	 */
	ASSERT_EQ(0, kill(rec, SIGCONT));
	ASSERT_EQ(0, kill(rec, SIGINT));
	ms = ms_between(&t0, &t1);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("status %#x", status);
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("kprofcat: status %#x", status);
	ASSERT_EQ(0, restore_throttle(&saved))
		TH_LOG("restoring the throttle knobs: %s", strerror(errno));
	/*
	 * The capture holds every sample the session delivered on the CPU:
	 * the kernel's count (the STATS section) is its SAMPLE records.
	 */
	ASSERT_EQ(0, capture_counters(cap, target, &k))
		TH_LOG("no counters of CPU %d in %s", target, cap);
	records = kp_capture_samples(cap, &cut);
	TH_LOG("CPU %d: overflows %llu samples %llu lost full %llu nested %llu stopped %llu throttled %llu; the capture holds %ld SAMPLE records%s",
	       target, k.overflows, k.samples, k.lost_full, k.lost_nested, k.lost_stopped,
	       k.lost_throttled, records, cut ? " and no END" : "");
	EXPECT_EQ(0, cut);
	EXPECT_EQ((long)k.samples, records);
	ASSERT_EQ(0, run(KPROFCAT " -i /tmp/kprofcat_short.kpcap --folded >/tmp/kprofcat_short.out",
			 &out, &err)) TH_LOG("%s", err);
	free(out);
	free(err);
	unlink(cap);
	ASSERT_EQ(0, run(TOP_COMMANDS, &out, &err));
	TH_LOG("commands in kprofcat's output, by samples:\n%s", out);
	free(out);
	free(err);
	ASSERT_EQ(0, run("grep '^shortlived;' /tmp/kprofcat_short.out || true", &out, &err));
	unlink("/tmp/kprofcat_short.out");
	TH_LOG("kprofcat's first sample on CPU %d seen after %.1f ms; shortlived lived %.1f ms (spawn to waitpid); it ran %.1f ms user, %.1f ms system, %ld voluntary and %ld involuntary switches; its stacks:\n%s",
	       target, wait_ms, ms,
	       ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
	       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3, ru.ru_nvcsw,
	       ru.ru_nivcsw, out);
	if (ms >= 50) {
		free(out);
		free(err);
		SKIP(return,
		     "shortlived lived %.1f ms, not < 50 ms: this machine cannot prove the claim",
		     ms);
	}
	/*
	 * Its samples: in its code (the stack starts at its entry point,
	 * _start, symbolized), in the kernel alone (its execve and exit), or
	 * unsymbolized (the stack starts "[unknown]"), which must stay rare;
	 * those in the spin loops must show the whole chain up from _start.
	 */
	all = count_stacks(out, "shortlived", want, n, 4);
	TH_LOG("lifetime %.1f ms: %lu samples, %lu in its code, %lu unsymbolized, %lu in _start;start_c;main;sl_run;sl_spin_a, %lu in ...;sl_spin_b",
	       ms, all, n[0], n[1], n[2], n[3]);
	/*
	 * sl_spin_a spins 12 ms and sl_spin_b 8 ms of guest time, 48 and 32
	 * periods of 4 kHz.  A timer that expires while one spins interrupts
	 * it before its next instruction, even when the vCPU was stalled
	 * meanwhile (the interrupt is pending when it resumes), so each
	 * shows at least one sample, whatever the emulator's speed; more are
	 * only logged.
	 */
	EXPECT_GE(n[2], 1);
	EXPECT_GE(n[3], 1);
	EXPECT_LE(n[1] * 10, n[0]) TH_LOG("too many samples with unsymbolized user frames");
	free(out);
	free(err);
}

/*
 * A recording killed with SIGKILL never writes its END, STATS or DSO
 * sections, and the RECORDS section it was writing is cut where the
 * kernel's page cache holds the last write.  kprofcat -i must print
 * every whole sample before the cut (the file says how many), reject
 * none of these real records, and say the capture is cut short.  The
 * recording is killed once the file holds 1000 whole samples (counted in
 * the file, so whatever the machine's speed; at -F 1000 on 2 CPUs about
 * half a second of sampling); hot3 keeps the CPUs busy meanwhile.
 */
TEST_F_TIMEOUT(kprofcat, killed_recording_reads_to_the_cut, 120)
{
	static const char cap[] = "/tmp/kprofcat_killed.kpcap";
	struct kprof_throttle_config saved;
	char cmd[256], *out, *err;
	pid_t rec, load;
	struct stat st;
	long want, got;
	int i, cut = 0, status;

	need_device(_metadata);
	ASSERT_EQ(0, relax_throttle(&saved, 0))
		TH_LOG("KPROF_IOC_[GS]ET_THROTTLE: %s", strerror(errno));
	unlink(cap);
	load = fork();
	ASSERT_GE(load, 0);
	if (!load) {
		execl(HOT3, "hot3", "20", (char *)NULL);
		_exit(127);
	}
	rec = fork();
	ASSERT_GE(rec, 0);
	if (!rec) {
		if (!freopen("/dev/null", "w", stderr))
			_exit(126);
		execl(KPROFCAT, "kprofcat", "-F", "1000", "-g", "-o", cap, (char *)NULL);
		_exit(127);
	}
	for (i = 0; i < 600 && kp_capture_samples(cap, &cut) < 1000; i++)
		usleep(100 * 1000);
	ASSERT_EQ(0, kill(rec, SIGKILL));
	ASSERT_EQ(rec, waitpid(rec, &status, 0));
	kill(load, SIGKILL);
	waitpid(load, NULL, 0);
	ASSERT_EQ(0, restore_throttle(&saved))
		TH_LOG("restoring the throttle knobs: %s", strerror(errno));
	ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("status %#x", status);
	ASSERT_EQ(0, stat(cap, &st));
	want = kp_capture_samples(cap, &cut);
	TH_LOG("killed after %.1f s: %lld bytes, %ld whole samples, %s", i / 10.0,
	       (long long)st.st_size, want, cut ? "no END" : "END present");
	ASSERT_GE(want, 1000) TH_LOG("the recording never got 1000 samples into its file");
	ASSERT_EQ(1, cut);

	snprintf(cmd, sizeof(cmd), KPROFCAT " -i %s >/tmp/kprofcat_killed.txt", cap);
	ASSERT_EQ(0, run(cmd, &out, &err)) TH_LOG("%s", err);
	TH_LOG("kprofcat -i said: %s", err);
	EXPECT_NE(NULL, strstr(err, "is cut short (no END section: was the recording killed?)"));
	EXPECT_EQ(NULL, strstr(err, "rejected")) TH_LOG("real records rejected: %s", err);
	free(out);
	free(err);
	ASSERT_EQ(0, run("grep -c ' cpu-clock: $' /tmp/kprofcat_killed.txt", &out, &err));
	got = strtol(out, NULL, 10);
	EXPECT_EQ(want, got);
	free(out);
	free(err);
	unlink("/tmp/kprofcat_killed.txt");
	unlink(cap);
}

TEST_F_TIMEOUT(kprofcat, errors_name_the_problem, 60)
{
	char *out, *err;

	need_device(_metadata);
	EXPECT_EQ(2, run(KPROFCAT " -e no-such-event --duration 1", &out, &err));
	EXPECT_NE(NULL, strstr(err, "unknown event 'no-such-event'")) TH_LOG("%s", err);
	free(out);
	free(err);
	EXPECT_EQ(2, run(KPROFCAT " --frobnicate", &out, &err));
	free(out);
	free(err);
	EXPECT_EQ(1, run(KPROFCAT " /dev/no-such-kprof --duration 1", &out, &err));
	EXPECT_NE(NULL, strstr(err, "insmod kmod/kprof.ko")) TH_LOG("%s", err);
	free(out);
	free(err);
	/*
	 * Under TCG there is no PMU: a clean error, not a hang or an oops.
	 * A low -F: the default 4000 may exceed a max_sample_rate that
	 * earlier tests' throttling lowered, which fails first.
	 */
	if (run(KPROFCAT " -e cycles -F 100 --duration 1 --stats", &out, &err) == 1)
		EXPECT_NE(NULL, strstr(err, "event 'cycles'")) TH_LOG("%s", err);
	free(out);
	free(err);
}

TEST_F_TIMEOUT(kprofcat, stats_json, 60)
{
	char *out, *err;

	need_device(_metadata);
	ASSERT_EQ(0, run(KPROFCAT " -F 997 --stats --json --duration 1", &out, &err))
		TH_LOG("%s", err);
	EXPECT_EQ(0, strncmp(out, "{\"cpus\":[{\"cpu\":0,\"overflows\":", 30)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"reader\":{\"seconds\":"));
	free(out);
	free(err);
}

TEST_HARNESS_MAIN
