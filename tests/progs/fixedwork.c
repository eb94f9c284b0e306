// SPDX-License-Identifier: GPL-2.0
/*
 * fixedwork: a fixed amount of CPU work with a known profile, for the
 * experiments (tests/experiments/throttle-vs-perf) and the benchmarks
 * (bench/run).
 *
 *   fixedwork [-j JOBS] [-d DEPTH] [-k KIB] [-N NICE] [-u ITERS]
 *             (-n UNITS | -s SECONDS)
 *
 * Each of JOBS processes (fork()ed, default 1) first recurses DEPTH frames
 * deep through descend() (default 1: none), so profilers walking the user
 * stack see chains of about DEPTH + 3 frames, then does units of work.
 * -k KIB puts a frame of KIB KiB, every page of it written, beneath the
 * recursion: the stack then holds at least that much above the stack
 * pointer of every sample, as a program's deeper frames would, so a
 * profiler copying up to that much user stack (perf's --call-graph dwarf)
 * copies all of it instead of stopping at the stack's top.  -N NICE runs
 * the jobs at that nice value (1 to 19), so that a reader sharing their
 * CPU gets it whenever it is runnable.  A
 * unit is 2^20 iterations of an LCG step: 3/4 of them in work_hot(), 1/4
 * in work_cold(), so a profile of the run shows work_hot at about 75% of
 * the user samples and work_cold at about 25%.
 *
 * -u ITERS: units of ITERS iterations on average instead, each unit's
 *           length drawn from ITERS/2 .. 3*ITERS/2 - 1 by a generator with
 *           a fixed seed (so -n UNITS is the same work in every run).  A
 *           profiler throttled to a few samples a tick takes them in a
 *           burst at the tick's start: with units longer than the burst,
 *           each burst falls in one function and the run's shares rest on
 *           its ticks, not its samples; with short units of one length,
 *           a burst's evenly spaced samples can keep one phase of the
 *           unit.  Short units of spread lengths make every sample of a
 *           burst a draw of its own.
 * -n UNITS: every job does UNITS units; the elapsed wall time is the
 *           figure of merit (slowdown under a profiler).
 * -s SECONDS: every job does units until SECONDS have passed (checked
 *           between units, so the loop makes no system calls).
 *
 * stdout, one line: "fixedwork jobs=J depth=D units=U seconds=S" where U is
 * the total over all jobs and S the wall time from before the first fork to
 * after the last job exited.  Built with frame pointers (tests/Makefile).
 */
#include <alloca.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ITERS	(1UL << 20)
#define MAX_JOBS	1024
#define MAX_DEPTH	1000
#define MAX_STACK_KIB	1024

static volatile sig_atomic_t done;
static volatile unsigned long sink;
/* Mean iterations per unit and whether they vary (-u); set before fork. */
static unsigned long work_iters = DEFAULT_ITERS;
static int spread_units;

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

static __attribute__((noinline)) unsigned long work_hot(unsigned long x,
							  unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters / 4 * 3; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static __attribute__((noinline)) unsigned long work_cold(unsigned long x,
							   unsigned long iters)
{
	unsigned long i;

	for (i = 0; i < iters / 4; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x;
}

static __attribute__((noinline)) unsigned long do_units(unsigned long units)
{
	unsigned long x = 1, n, iters = work_iters, rng = 1;

	for (n = 0; units ? n < units : !done; n++) {
		if (spread_units) {
			/* xorshift64: any fixed-seed spread will do. */
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			iters = work_iters / 2 + rng % work_iters;
		}
		x = work_cold(work_hot(x, iters), iters);
	}
	sink = x;
	return n;
}

/* Not a tail call: the frame stays on the stack while the work runs. */
static __attribute__((noinline)) unsigned long descend(unsigned int depth,
							unsigned long units)
{
	unsigned long n;

	if (depth <= 1)
		return do_units(units);
	n = descend(depth - 1, units);
	sink += depth;
	return n;
}

/*
 * The frame stays on the stack while the work runs (the call is not a
 * tail call), and every page of it is written, so all of it is mapped.
 */
static __attribute__((noinline)) unsigned long pad_stack(unsigned long kib,
							 unsigned int depth,
							 unsigned long units)
{
	unsigned char *pad = alloca(kib * 1024);
	unsigned long n;

	memset(pad, 0, kib * 1024);
	n = descend(depth, units);
	sink += pad[n % (kib * 1024)];
	return n;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long parse(const char *opt, const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v == 0 || v > max) {
		fprintf(stderr, "fixedwork: bad value '%s' for %s: want 1..%lu\n",
			s, opt, max);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr, "usage: fixedwork [-j JOBS] [-d DEPTH] [-k KIB] [-N NICE] [-u ITERS]\n"
			"                 (-n UNITS | -s SECONDS)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long jobs = 1, depth = 1, kib = 0, units = 0, seconds = 0;
	unsigned long total = 0, niceness = 0;
	unsigned long *counts, j;
	double t0;
	int opt, status, failed = 0;

	while ((opt = getopt(argc, argv, "j:d:k:N:u:n:s:")) != -1) {
		switch (opt) {
		case 'j':
			jobs = parse("-j", optarg, MAX_JOBS);
			break;
		case 'd':
			depth = parse("-d", optarg, MAX_DEPTH);
			break;
		case 'k':
			kib = parse("-k", optarg, MAX_STACK_KIB);
			break;
		case 'N':
			niceness = parse("-N", optarg, 19);
			break;
		case 'u':
			/* 8 and up: the shortest unit, 4, has one cold step. */
			work_iters = parse("-u", optarg, 1UL << 30);
			if (work_iters < 8) {
				fprintf(stderr, "fixedwork: bad value '%s' for -u: want 8..%lu\n",
					optarg, 1UL << 30);
				return 2;
			}
			spread_units = 1;
			break;
		case 'n':
			units = parse("-n", optarg, 1UL << 40);
			break;
		case 's':
			seconds = parse("-s", optarg, 86400);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !units == !seconds)
		usage();

	/* The jobs inherit it; only root may lower it again. */
	if (niceness && setpriority(PRIO_PROCESS, 0, (int)niceness)) {
		perror("fixedwork: setpriority");
		return 1;
	}
	/* Each job reports its unit count here. */
	counts = mmap(NULL, jobs * sizeof(*counts), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counts == MAP_FAILED) {
		perror("fixedwork: mmap");
		return 1;
	}
	t0 = now();
	for (j = 0; j < jobs; j++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fixedwork: fork");
			return 1;
		}
		if (pid == 0) {
			if (seconds) {
				signal(SIGALRM, on_alarm);
				alarm(seconds);
			}
			counts[j] = kib ? pad_stack(kib, depth, units) :
					  descend(depth, units);
			_exit(0);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			failed = 1;
	for (j = 0; j < jobs; j++)
		total += counts[j];
	printf("fixedwork jobs=%lu depth=%lu units=%lu seconds=%.6f\n",
	       jobs, depth, total, now() - t0);
	return failed;
}
