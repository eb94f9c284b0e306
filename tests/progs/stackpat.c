// SPDX-License-Identifier: GPL-2.0
/*
 * stackpat: burn CPU in user space for SECONDS (default 3) below a known
 * pattern on the stack, in code built without frame pointers
 * (tests/Makefile), for the DWARF call chain tests: a sample's stack copy
 * must hold the pattern where it lies, and its user chain, unwound from
 * .eh_frame, must reach main through stack_outer -> stack_mid ->
 * stack_pattern -> stack_leaf.  Prints the pattern's address and length
 * and stack_leaf's code ("pattern 0xADDR WORDS leaf 0xLO 0xHI") on stdout
 * before it spins.  The deadline comes
 * from alarm(), so the loop makes no system calls.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Word I of the pattern: "kprof" and I. */
#define PATTERN(i)	(0x6b70726f66000000UL | (i))
#define PATTERN_WORDS	256

static volatile sig_atomic_t done;
static volatile unsigned long sink;

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

/*
 * In a section of its own, whose bounds the linker gives
 * (__start_/__stop_), so the tests tell samples of the spin from those
 * taken while the pattern is written or after it is left behind.
 */
extern const char __start_stackpat_leaf[], __stop_stackpat_leaf[];

static __attribute__((noinline, section("stackpat_leaf")))
unsigned long stack_leaf(unsigned long x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

/* The pattern lives in this frame while stack_leaf runs below it. */
static __attribute__((noinline)) unsigned long stack_pattern(unsigned long x)
{
	volatile unsigned long pat[PATTERN_WORDS];
	int i;

	for (i = 0; i < PATTERN_WORDS; i++)
		pat[i] = PATTERN(i);
	printf("pattern %p %d leaf %p %p\n", (void *)pat, PATTERN_WORDS,
	       (void *)__start_stackpat_leaf, (void *)__stop_stackpat_leaf);
	fflush(stdout);
	while (!done)
		x = stack_leaf(x);
	return x + pat[x % PATTERN_WORDS];
}

static __attribute__((noinline)) unsigned long stack_mid(unsigned long x)
{
	return stack_pattern(x + 1) * 3;
}

static __attribute__((noinline)) unsigned long stack_outer(unsigned long x)
{
	return stack_mid(x * 5) + 7;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 3;

	signal(SIGALRM, on_alarm);
	alarm(seconds ? seconds : 1);
	sink = stack_outer(1);
	return 0;
}
