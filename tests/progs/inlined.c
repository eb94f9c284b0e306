// SPDX-License-Identifier: GPL-2.0
/*
 * inlined: a function inlined into another, for inline_test.  mix() is
 * always inlined into run(), and run() never into main(); the hidden label
 * kp_inline_mark sits inside mix()'s inlined body, so its address is one
 * where the debug info says mix was inlined into run (perf script prints
 * "mix+OFF (inlined)" there, then run's own line).  Hidden, the label is
 * no symbol of perf's (nor kprofcat's): the address stays run's.
 *
 * Run, it loops for SECONDS (default 1) so that a profiler sees it.
 */
#include <stdlib.h>
#include <time.h>

static inline __attribute__((always_inline)) unsigned long mix(unsigned long x)
{
	__asm__ volatile(".globl kp_inline_mark\n\t.hidden kp_inline_mark\n"
			 "kp_inline_mark: nop");
	return x * 6364136223846793005UL + 1442695040888963407UL;
}

__attribute__((noinline, noipa)) unsigned long run(unsigned long x, long n)
{
	while (n-- > 0)
		x = mix(x) ^ (x >> 7);
	return x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1;
	struct timespec t0, t;
	unsigned long x = 1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		x = run(x, 1000000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	return (int)(x & 1);
}
