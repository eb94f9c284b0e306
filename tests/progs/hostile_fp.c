// SPDX-License-Identifier: GPL-2.0
/*
 * hostile_fp MODE: spin forever in user space with a frame pointer (rbp)
 * a profiler's frame-pointer walk must not trust, for
 * tests/module/hostile_stack_test.  Prints the spin loop's address range
 * first ("START END\n"), then spins until killed; no system call after.
 *
 *   loop        rbp -> a frame whose saved rbp is itself
 *   kernel      rbp = a kernel text address
 *   kernel_next rbp -> a frame whose saved rbp is a kernel address
 *   unmapped    rbp = an unmapped page
 *   misaligned  rbp = a frame's address + 3
 *   down        rbp -> a frame whose saved rbp is lower on the "stack"
 *
 * Frames hold return addresses HOSTILE_RET + n, user-looking values a
 * walk may report; nothing else may appear in a chain.  x86-64 only.
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define HOSTILE_RET	0x00007f5a5a5a0000UL

extern const char hostile_spin_start[], hostile_spin_end[];

static unsigned long frames[4][2] __attribute__((aligned(16)));

static __attribute__((noinline, noreturn)) void spin_with_bp(unsigned long bp)
{
	asm volatile("mov %0, %%rbp\n\t"
		     ".globl hostile_spin_start\n"
		     "hostile_spin_start:\n\t"
		     "jmp hostile_spin_start\n\t"
		     ".globl hostile_spin_end\n"
		     "hostile_spin_end:\n\t"
		     : : "r"(bp) : "memory");
	__builtin_unreachable();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned long bp;
	void *page;

	if (!strcmp(mode, "loop")) {
		frames[0][0] = (unsigned long)frames[0];
		frames[0][1] = HOSTILE_RET + 1;
		bp = (unsigned long)frames[0];
	} else if (!strcmp(mode, "kernel")) {
		bp = 0xffffffff81000000UL;
	} else if (!strcmp(mode, "kernel_next")) {
		frames[1][0] = 0xffff888000000000UL;
		frames[1][1] = HOSTILE_RET + 2;
		bp = (unsigned long)frames[1];
	} else if (!strcmp(mode, "unmapped")) {
		page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED || munmap(page, 4096))
			return 1;
		bp = (unsigned long)page;
	} else if (!strcmp(mode, "misaligned")) {
		bp = (unsigned long)frames[2] + 3;
	} else if (!strcmp(mode, "down")) {
		frames[3][0] = (unsigned long)frames[3] - 64;
		frames[3][1] = HOSTILE_RET + 3;
		bp = (unsigned long)frames[3];
	} else {
		fprintf(stderr, "usage: hostile_fp loop|kernel|kernel_next|unmapped|misaligned|down\n");
		return 2;
	}
	printf("%lx %lx\n", (unsigned long)hostile_spin_start,
	       (unsigned long)hostile_spin_end);
	fflush(stdout);
	spin_with_bp(bp);
}
