// SPDX-License-Identifier: GPL-2.0
/*
 * kp_hold.c - load, arm, wait for and release tests/testpmu/kprof_hold.ko.
 */
#define _GNU_SOURCE
#include "kp_hold.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "kp_sys.h"
#include "testpmu.h"

#define HOLD_PARAM	"/sys/module/kprof_hold/parameters/"

/**
 * kp_hold_load() - load kprof_hold.ko probing @symbol
 * @symbol: the function whose callers from kprof it holds
 * @timeout_ms: the longest hold
 *
 * Return: 0, or -1 with errno (ENOENT: the module was not built).
 */
int kp_hold_load(const char *symbol, unsigned int timeout_ms)
{
	char params[128];
	int fd, ret;

	fd = open(KP_HOLD_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	snprintf(params, sizeof(params), "symbol=%s", symbol);
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	if (ret)
		return -1;
	return tp_write_u64(HOLD_PARAM "timeout_ms", timeout_ms);
}

/*
 * The symbol a mutex function has in this kernel: with lockdep, the
 * mutex_lock_*() calls are their _nested() variants.
 */
const char *kp_hold_lock_symbol(const char *lock_fn)
{
	static char name[64];
	char line[256], want[80];
	FILE *f = fopen("/proc/kallsyms", "r");

	snprintf(name, sizeof(name), "%s", lock_fn);
	snprintf(want, sizeof(want), " %s_nested\n", lock_fn);
	if (!f)
		return name;
	while (fgets(line, sizeof(line), f)) {
		char *at = strstr(line, want);

		if (at && at[strlen(want)] == '\0') {
			snprintf(name, sizeof(name), "%s_nested", lock_fn);
			break;
		}
	}
	fclose(f);
	return name;
}

/* Hold @pid at its next call of the probed function from kprof. */
int kp_hold_arm(pid_t pid)
{
	return tp_write_u64(HOLD_PARAM "pid", pid);
}

/* Wait up to @ms for the armed task to be held: 0 once held, else -1. */
int kp_hold_wait(unsigned int ms)
{
	double end = kp_now() + ms / 1000.0;

	while (tp_read_num(HOLD_PARAM "entered") != 1) {
		if (kp_now() > end)
			return -1;
		kp_sleep_ms(1);
	}
	return 0;
}

int kp_hold_release(void)
{
	return tp_write(HOLD_PARAM "release", "1");
}

/* 1 if the last hold ended by its timeout rather than a release. */
int kp_hold_timed_out(void)
{
	return tp_read_num(HOLD_PARAM "timed_out") == 1;
}

/* Release whatever is held and unload the module. */
void kp_hold_unload(void)
{
	kp_hold_release();
	syscall(SYS_delete_module, "kprof_hold", O_NONBLOCK);
}
