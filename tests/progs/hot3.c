// SPDX-License-Identifier: GPL-2.0
/*
 * hot3: a profile with a known shape, for kprofcat's acceptance test.
 * For SECONDS (default 2, fractions allowed) it repeats rounds of the same
 * loop body run 6, 3 and 1 units long in three functions reached through
 * different callers, so ~60/30/10% of its CPU time is spent in:
 *
 *	main -> run -> stage_a -> hot_a			60%
 *	main -> run -> stage_b -> mix_b -> hot_b	30%
 *	main -> run -> stage_c -> hot_c			10%
 *
 * Built by tests/Makefile with -O1 -g -fno-omit-frame-pointer
 * -mno-omit-leaf-frame-pointer: noipa keeps gcc from inlining, cloning or
 * merging the functions, and the loop carries a dependency through a
 * multiply so it cannot be folded away or vectorized.
 *
 * The 60/30/10 split is one of instructions; an emulator need not run
 * equal instructions in equal time (a retranslated block, a page of
 * translations flushed), and a profiler's samples follow time.  So hot3
 * times each stage (CLOCK_MONOTONIC, the vDSO: no system call) and prints
 * the split it really had, for the tests to compare the samples with:
 *
 *	hot3: R rounds, stage seconds A B C
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define UNIT	20000UL		/* iterations per unit: ~0.1 ms native */

#define HOT_FN	__attribute__((noipa))

static unsigned long long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * gcc 12 sets up no frame pointer in a leaf function that needs no stack,
 * -mno-omit-leaf-frame-pointer notwithstanding, and a frame-pointer walk
 * from such a leaf skips its caller.  The hot functions end with a call so
 * they are not leaves and every sample in them shows the whole chain.
 */
static HOT_FN unsigned long long fold(unsigned long long x)
{
	return x ^ (x >> 29);
}

#define LOOP(x, n)							\
	do {								\
		unsigned long i_;					\
		for (i_ = 0; i_ < (n); i_++)				\
			x = x * 6364136223846793005ULL + 1442695040888963407ULL; \
	} while (0)

static HOT_FN unsigned long long hot_a(unsigned long long x, unsigned long n)
{
	LOOP(x, n);
	return fold(x) + 1;
}

static HOT_FN unsigned long long hot_b(unsigned long long x, unsigned long n)
{
	LOOP(x, n);
	return fold(x) + 1;
}

static HOT_FN unsigned long long hot_c(unsigned long long x, unsigned long n)
{
	LOOP(x, n);
	return fold(x) + 1;
}

static HOT_FN unsigned long long stage_a(unsigned long long x)
{
	return hot_a(x, 6 * UNIT);
}

static HOT_FN unsigned long long mix_b(unsigned long long x)
{
	return hot_b(x ^ 0x9e3779b97f4a7c15ULL, 3 * UNIT);
}

static HOT_FN unsigned long long stage_b(unsigned long long x)
{
	return mix_b(x);
}

static HOT_FN unsigned long long stage_c(unsigned long long x)
{
	return hot_c(x, 1 * UNIT);
}

/* Rounds until @seconds passed; @spent gets each stage's wall time. */
static HOT_FN unsigned long run(double seconds, double spent[3])
{
	double t = now(), end = t + seconds, t1;
	unsigned long rounds = 0;
	unsigned long long x = 1;

	do {
		x = stage_a(x);
		t1 = now();
		spent[0] += t1 - t;
		t = t1;
		x = stage_b(x);
		t1 = now();
		spent[1] += t1 - t;
		t = t1;
		x = stage_c(x);
		t1 = now();
		spent[2] += t1 - t;
		t = t1;
		rounds++;
	} while (t < end);
	sink = x;
	return rounds;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	double spent[3] = { 0 };
	unsigned long rounds;

	if (!(seconds > 0)) {
		fprintf(stderr, "usage: hot3 [SECONDS]\n");
		return 2;
	}
	rounds = run(seconds, spent);
	printf("hot3: %lu rounds, stage seconds %.6f %.6f %.6f\n", rounds,
	       spent[0], spent[1], spent[2]);
	return sink == 42;	/* never: keeps the result alive */
}
