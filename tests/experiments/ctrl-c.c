// SPDX-License-Identifier: GPL-2.0
/*
 * ctrl-c: run a command in a process group of its own and, after SECONDS,
 * send SIGINT to the whole group, as a terminal's Ctrl-C does to its
 * foreground job: for tests/experiments/safety-check, which runs in a
 * guest without a terminal.
 *
 *   ctrl-c SECONDS CMD [ARG...]
 *
 * SIGINT goes back to its default action before CMD runs: a shell that
 * starts a job in the background sets it to ignored, and a shell script
 * cannot trap a signal that was ignored when it started.  Exits with
 * CMD's status (128 + signal when a signal ended it).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned int secs;
	int status;
	pid_t pid;

	secs = argc < 3 ? 0 : strtoul(argv[1], NULL, 10);
	if (!secs) {
		fprintf(stderr, "usage: ctrl-c SECONDS CMD [ARG...]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("ctrl-c: fork");
		return 1;
	}
	if (!pid) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		execvp(argv[2], argv + 2);
		fprintf(stderr, "ctrl-c: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);	/* whichever of the two runs first */
	sleep(secs);
	if (kill(-pid, SIGINT))
		perror("ctrl-c: kill");
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			perror("ctrl-c: waitpid");
			return 1;
		}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
