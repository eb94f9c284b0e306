// SPDX-License-Identifier: GPL-2.0
/*
 * jitspin: burn CPU for SECONDS (default 1) in code generated at run time,
 * as a JIT does: two copies of a small x86-64 loop in anonymous memory
 * (written, then made read+execute with mprotect(), as W^X JITs do),
 * named in /tmp/perf-PID.map the way JITs write it, one line with bare hex
 * and one with 0x and a name holding blanks (node's style).  The map is
 * left behind, as JITs leave it: perf reads it after the run.  Prints the
 * map's path on stdout, for the test that removes it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

/* A function with a frame pointer, so a walk from its loop reaches main. */
static const unsigned char spin_code[] = {
	0x55,				/* push %rbp */
	0x48, 0x89, 0xe5,		/* mov %rsp,%rbp */
	0xb9, 0x00, 0x00, 0x01, 0x00,	/* mov $0x10000,%ecx */
	0xff, 0xc9,			/* 1: dec %ecx */
	0x75, 0xfc,			/* jnz 1b */
	0x5d,				/* pop %rbp */
	0xc3,				/* ret */
};

#define SECOND_AT	0x40

typedef void (*jit_fn)(void);

static volatile sig_atomic_t done;

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

static int write_map(const unsigned char *code, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%lx %zx jit_spin_a\n", (unsigned long)code, sizeof(spin_code));
	fprintf(f, "0x%lx 0x%zx LazyCompile:*spin_b /srv/b.js:7\n",
		(unsigned long)code + SECOND_AT, sizeof(spin_code));
	return fclose(f);
}

int main(int argc, char **argv)
{
	unsigned int secs = argc > 1 ? atoi(argv[1]) : 1;
	unsigned char *code;
	jit_fn a, b;
	char path[64];

	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, spin_code, sizeof(spin_code));
	memcpy(code + SECOND_AT, spin_code, sizeof(spin_code));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC) || write_map(code, path, sizeof(path)))
		return 1;
	printf("%s\n", path);
	fflush(stdout);
	a = (jit_fn)code;
	b = (jit_fn)(code + SECOND_AT);
	signal(SIGALRM, on_alarm);
	alarm(secs ? secs : 1);
	while (!done) {
		a();
		b();
	}
	return 0;
}
