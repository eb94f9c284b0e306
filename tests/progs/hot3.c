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
 * times each stage of each round (CLOCK_MONOTONIC, the vDSO: no system
 * call) and prints the split it really had, for the tests to compare the
 * samples with:
 *
 *	hot3: R rounds, stage seconds A B C (wall A' B' C')
 *
 * A is stage A's time summed over the rounds that took at most 3 times
 * the median round, A' over all of them.  On a loaded host the emulator's
 * thread is descheduled while the guest clock runs on: a round that spans
 * such a stall takes long by the wall, but a profiler's timer fires once
 * when the vCPU resumes, so the stall adds one sample, not its length's
 * worth (a 1.5 s stall in stage A of a 6 s run makes a 60/30/10 split
 * about 72/22/7 by the wall, the samples staying 60/30/10).  Whole rounds
 * are left out, not the long stages of each: a round holds many timer
 * interrupts, a short stage seldom one, so a per-stage cut would keep the
 * interrupts' cost in the long stages only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Each round's time per stage, grown as the rounds go. */
struct rounds {
	double *t[3];
	unsigned long n, cap;
};

static int rounds_add(struct rounds *r, const double d[3])
{
	int k;

	if (r->n == r->cap) {
		unsigned long cap = r->cap ? 2 * r->cap : 4096;

		for (k = 0; k < 3; k++) {
			double *t = realloc(r->t[k], cap * sizeof(*t));

			if (!t)
				return -1;
			r->t[k] = t;
		}
		r->cap = cap;
	}
	for (k = 0; k < 3; k++)
		r->t[k][r->n] = d[k];
	r->n++;
	return 0;
}

/* Rounds until @seconds passed, each stage's time of each in @r. */
static HOT_FN int run(double seconds, struct rounds *r)
{
	double t = now(), end = t + seconds, t1, d[3];
	unsigned long long x = 1;

	do {
		x = stage_a(x);
		t1 = now();
		d[0] = t1 - t;
		t = t1;
		x = stage_b(x);
		t1 = now();
		d[1] = t1 - t;
		t = t1;
		x = stage_c(x);
		t1 = now();
		d[2] = t1 - t;
		t = t1;
		if (rounds_add(r, d))
			return -1;
	} while (t < end);
	sink = x;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Each stage's time over the rounds of at most 3 median rounds, into
 * @kept, and over all of them, into @wall.  Returns -1 without memory.
 */
static int stage_times(const struct rounds *r, double kept[3], double wall[3])
{
	double *total = malloc(r->n * sizeof(*total)), cut;
	unsigned long i;
	int k;

	if (!total)
		return -1;
	for (i = 0; i < r->n; i++)
		total[i] = r->t[0][i] + r->t[1][i] + r->t[2][i];
	qsort(total, r->n, sizeof(*total), cmp_double);
	cut = 3 * total[r->n / 2];
	free(total);
	for (k = 0; k < 3; k++) {
		kept[k] = 0;
		wall[k] = 0;
	}
	for (i = 0; i < r->n; i++) {
		double round = r->t[0][i] + r->t[1][i] + r->t[2][i];

		for (k = 0; k < 3; k++) {
			wall[k] += r->t[k][i];
			if (round <= cut)
				kept[k] += r->t[k][i];
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;
	double wall[3], kept[3];
	struct rounds r;
	int k;

	if (!(seconds > 0)) {
		fprintf(stderr, "usage: hot3 [SECONDS]\n");
		return 2;
	}
	memset(&r, 0, sizeof(r));
	if (run(seconds, &r)) {
		perror("hot3: keeping each round's times");
		return 1;
	}
	if (stage_times(&r, kept, wall)) {
		perror("hot3: sorting the rounds");
		return 1;
	}
	for (k = 0; k < 3; k++)
		free(r.t[k]);
	printf("hot3: %lu rounds, stage seconds %.6f %.6f %.6f (wall %.6f %.6f %.6f)\n",
	       r.n, kept[0], kept[1], kept[2], wall[0], wall[1], wall[2]);
	return sink == 42;	/* never: keeps the result alive */
}
