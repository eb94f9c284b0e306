// SPDX-License-Identifier: GPL-2.0
/*
 * shortlived: a process that lives well under 50 ms, for kprofcat's "a
 * process that exits within 50 ms of starting is still symbolized" test.
 * It spins MS milliseconds (argv[1], an integer, default 20) of wall time,
 * 60% in sl_spin_a and 40% in sl_spin_b, both reached as
 * start_c -> main -> sl_run -> sl_spin_*, then exits.
 *
 * Static and without libc (tests/Makefile: -static -nostdlib; its own
 * _start and raw system calls).  Under QEMU TCG a dynamic program spends
 * tens of milliseconds in the loader, and even a static glibc one 10-17 ms
 * in libc's start-up (IRELATIVE ifunc resolution, tunables, TLS, stdio) and
 * its exit, which with 20 ms of work leaves no margin below 50 ms on a
 * loaded host.  Without libc, exec to main is the kernel's execve alone.
 * None of this makes it easier to symbolize: its one executable mapping is
 * known only from the exec's side-band mmap event, the process being gone
 * before kprofcat could read /proc/PID/maps.  Frame pointers as in every
 * tests/progs program; noipa keeps the functions apart, and the spinners
 * end with a call so they are not frameless leaves (see hot3.c).
 */
#define SL_FN	__attribute__((noipa))

#define SYS_CLOCK_GETTIME	228
#define SYS_EXIT_GROUP		231
#define CLOCK_MONOTONIC		1

struct ts {
	long sec, nsec;
};

static unsigned long long sink;

static long sys2(long nr, long a, long b)
{
	long ret;

	asm volatile ("syscall" : "=a" (ret) : "a" (nr), "D" (a), "S" (b)
		      : "rcx", "r11", "memory");
	return ret;
}

static SL_FN long now_us(void)
{
	struct ts t;

	sys2(SYS_CLOCK_GETTIME, CLOCK_MONOTONIC, (long)&t);
	return t.sec * 1000000 + t.nsec / 1000;
}

static SL_FN unsigned long long fold(unsigned long long x)
{
	return x ^ (x >> 29);
}

/* ~1000 dependent multiplies between clock reads: samples land here. */
static SL_FN void sl_spin_a(long until)
{
	unsigned long long x = sink | 1;
	unsigned long i;

	while (now_us() < until) {
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		x = fold(x);
	}
	sink = x;
}

static SL_FN void sl_spin_b(long until)
{
	unsigned long long x = sink | 3;
	unsigned long i;

	while (now_us() < until) {
		for (i = 0; i < 1000; i++)
			x = x * 2862933555777941757ULL + 3037000493ULL;
		x = fold(x);
	}
	sink = x;
}

/* Each its share from its own start: a late sl_spin_a never starves b. */
static SL_FN void sl_run(long ms)
{
	sl_spin_a(now_us() + ms * 600);
	sl_spin_b(now_us() + ms * 400);
}

SL_FN int main(int argc, char **argv)
{
	long ms = 0;
	const char *p;

	if (argc < 2)
		ms = 20;
	else
		for (p = argv[1]; *p >= '0' && *p <= '9'; p++)
			ms = ms * 10 + *p - '0';
	sl_run(ms);
	return sink == 42;	/* keeps the work observable */
}

/*
 * Called by _start with the initial stack: argc, argv[].  The loop keeps
 * the address after the exit_group syscall inside start_c, so samples
 * taken during the exit still symbolize.
 */
__attribute__((noreturn, used)) void start_c(long *sp)
{
	int status = main((int)sp[0], (char **)(sp + 1));

	for (;;)
		sys2(SYS_EXIT_GROUP, status, 0);
}

/*
 * %rbp = 0 ends frame-pointer walks; the ABI wants %rsp 16-byte aligned.
 * A function symbol with a size, so the root frame symbolizes too.
 */
asm(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xor %ebp, %ebp\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n"
	".size _start, . - _start\n");
