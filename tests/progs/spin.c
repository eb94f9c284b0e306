// SPDX-License-Identifier: GPL-2.0
/*
 * spin: burn CPU in user space for SECONDS (default 3), in a fixed call
 * chain main -> spin_outer -> spin_leaf, so a profiler's frame-pointer
 * walk from any sample in the loop passes through main.  Built with frame
 * pointers (tests/Makefile).  The deadline comes from alarm(), so the loop
 * makes no system calls.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static volatile unsigned long sink;

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

static __attribute__((noinline)) unsigned long spin_leaf(unsigned long x)
{
	int i;

	for (i = 0; i < 1000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	return x;
}

static __attribute__((noinline)) void spin_outer(void)
{
	unsigned long x = 1;

	while (!done)
		x = spin_leaf(x);
	sink = x;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 3;

	signal(SIGALRM, on_alarm);
	alarm(seconds ? seconds : 1);
	spin_outer();
	return 0;
}
