// SPDX-License-Identifier: GPL-2.0
/*
 * sysloop: spend SECONDS (default 3) mostly in the kernel, by reading
 * /dev/zero in 64 KiB chunks and calling getppid(), so a profiler sees
 * kernel-mode samples whose callchains come from system calls.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t done;
static char buf[65536];

static void on_alarm(int sig)
{
	(void)sig;
	done = 1;
}

static __attribute__((noinline)) int sys_loop(int fd)
{
	while (!done) {
		if (read(fd, buf, sizeof(buf)) < 0)
			return 1;
		getppid();
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int seconds = argc > 1 ? (unsigned int)atoi(argv[1]) : 3;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0) {
		perror("sysloop: /dev/zero");
		return 1;
	}
	signal(SIGALRM, on_alarm);
	alarm(seconds ? seconds : 1);
	return sys_loop(fd);
}
