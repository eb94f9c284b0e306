// SPDX-License-Identifier: GPL-2.0
/*
 * demo: the program `make demo` profiles.  For SECONDS (default 2) of wall
 * time it alternates between two hot functions reached through different
 * callers: checksum_block (via hash_pass) and mix_block (via mix_pass),
 * about 70/30 natively (perf on an x86-64 host) and closer to 55/45 under
 * QEMU TCG, so the profile has a clear shape:
 * main -> run -> hash_pass -> checksum_block and main -> run -> mix_pass ->
 * mix_block.  Built with frame pointers (tests/Makefile) so kprofcat's
 * user-space walk reaches main.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK 4096

static volatile sig_atomic_t done;
static unsigned char buf[2][BLOCK];

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

/*
 * GCC 12 at -O1 gives a leaf function that uses no stack no frame, even
 * with -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer; a sample in it
 * then unwinds from its caller's frame and the caller (hash_pass, mix_pass)
 * is missing from the chain.  One volatile local in each hot leaf gives it
 * a stack frame, so the frame-pointer walk shows the whole path.
 */
#define FRAME_ANCHOR() volatile int frame_anchor = 0; (void)frame_anchor

static __attribute__((noinline)) unsigned int checksum_block(const unsigned char *p)
{
	unsigned int a = 1, b = 0;
	int i;

	FRAME_ANCHOR();

	for (i = 0; i < BLOCK; i++) {
		a = (a + p[i]) % 65521;
		b = (b + a) % 65521;
	}
	return (b << 16) | a;
}

static __attribute__((noinline)) void mix_block(unsigned char *p, unsigned int seed)
{
	int i;

	FRAME_ANCHOR();

	for (i = 0; i < BLOCK; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] ^= (unsigned char)(seed >> 16);
	}
}

static __attribute__((noinline)) unsigned int hash_pass(void)
{
	return checksum_block(buf[0]) + checksum_block(buf[1]);
}

static __attribute__((noinline)) void mix_pass(unsigned int seed)
{
	mix_block(buf[0], seed);
	mix_block(buf[1], ~seed);
}

static __attribute__((noinline)) unsigned long run(void)
{
	unsigned long rounds = 0;
	unsigned int h = 0;

	while (!done) {
		h ^= hash_pass();
		mix_pass(h);
		rounds++;
	}
	return rounds + h;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 2;

	signal(SIGALRM, on_alarm);
	alarm(seconds ? seconds : 1);
	printf("demo: %lu\n", run());
	return 0;
}
