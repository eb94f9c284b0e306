// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - live recording: the loop of `kprofcat record` and of plain
 * kprofcat on the device (fork/exec of CMD, signals, the status line).
 *
 * Live: configure and map /dev/kprof, open the side band, fork CMD (held
 * on a pipe until kprof runs, so its first instructions are sampled), then
 * poll: side band first (so maps are known before the samples that need
 * them leave the reordering window), then every CPU buffer, then emit what
 * left the window.  After the stop, whatever the kernel wrote last (the
 * final LOST records) is drained and everything is emitted.
 *
 * -o alone takes the raw path (record_raw.h): the loop only moves
 * record bytes from the rings to the file, as perf record does.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "lib/capture/capture.h"
#include "lib/dev/kdev.h"
#include "tool/runlimits.h"
#include "lib/util/print.h"
#include "tool/record.h"
#include "tool/record_raw.h"
#include "lib/stream/session.h"
#include "lib/stream/sideband.h"

#define WINDOW_NS	(200 * 1000000ULL)
#define POLL_MS		50
/*
 * The longest a round sleeps otherwise (live_poll_timeout()): how late
 * live output may come for a target that fills no buffer to its
 * watermark.  Once a second on the profiled CPUs; every 50 ms moved the
 * profiled tasks' context switches measurably.
 */
#define SLEEP_MAX_MS	1000
#define MAX_POLLFDS	(KPROF_MAX_CPUS + 2)

/* The signal that asked kprofcat to stop (SIGINT, SIGTERM), 0 if none. */
static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	stop_requested = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * FILTER: the process filter -i is to apply ("filter=pid:N" or
 * "filter=tree:N"), for raw captures that hold every process's records.
 */
static int write_meta(struct capture_writer *w, const struct record_opts *o,
		      enum session_filter filter, uint32_t pid, unsigned int nr_cpus)
{
	struct utsname u;
	char meta[4096], fl[64] = "";
	int n;

	uname(&u);
	if (filter != FILTER_ALL)
		snprintf(fl, sizeof(fl), "filter=%s:%u\n",
			 filter == FILTER_PID ? "pid" : "tree", pid);
	n = snprintf(meta, sizeof(meta),
		     "event=%s\nsample=%llu\nfreq=%d\nhostname=%s\nrelease=%s\ncommand=%s\nnr_cpus=%u\n%s",
		     o->event, (unsigned long long)o->cfg.sample,
		     !!(o->cfg.flags & KPROF_CFG_FREQ), u.nodename, u.release,
		     o->cmd ? o->cmd[0] : "", nr_cpus, fl);
	return capture__write(w, KPCAP_META, 0, meta,
			      n < (int)sizeof(meta) ? n : (int)sizeof(meta) - 1);
}

/*
 * CMD is held until kprof runs.  When kprofcat's stdout carries the
 * profile, CMD's stdout goes to kprofcat's stderr so the two streams
 * never interleave (the parsers reading the profile would choke).
 * *EXEC_ERR is read once CMD is released: EOF when the exec succeeded
 * (the pipe is close-on-exec), else the exec's errno.
 */
static pid_t spawn_held(char **cmd, int stdout_to_stderr, int *go, int *exec_err)
{
	int p[2], e[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(e, O_CLOEXEC)) {
		p_err("pipe: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		p_err("fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		close(e[0]);
		close(e[1]);
		return -1;
	}
	if (!pid) {
		char c;
		int err;

		close(p[1]);
		close(e[0]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		/* EOF instead of the byte: kprofcat gave up before starting. */
		if (read(p[0], &c, 1) != 1)
			_exit(127);
		if (stdout_to_stderr && dup2(2, 1) < 0)
			_exit(127);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(e[1], &err, sizeof(err)) != sizeof(err))
			_exit(127);
		_exit(127);
	}
	close(p[0]);
	close(e[1]);
	*go = p[1];
	*exec_err = e[0];
	return pid;
}

/*
 * A pidfd of CMD or of -p's process, readable once it has exited, so that
 * the loop's poll() ends with it, as perf record's SIGCHLD ends its own;
 * -1 where the kernel has none (before 5.3), and the loop then looks
 * every POLL_MS (live_poll_timeout()).
 */
static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

/* PID has exited: it is gone, or a zombie its parent has not reaped. */
static int pid_gone(pid_t pid)
{
	char path[64], buf[512], *paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return kill(pid, 0) && errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	/* "PID (COMM) S ...": the state follows the last ')'. */
	paren = strrchr(buf, ')');
	return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* Released CMD: 0 once it runs, else the errno of its exec. */
static int exec_result(int fd)
{
	int err = 0;
	ssize_t n;

	do
		n = read(fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == sizeof(err) ? err : 0;
}

static int on_record(void *s, unsigned int cpu, const void *rec, size_t len)
{
	return session__record(s, cpu, rec, len);
}

static void status_line(struct kdev *d, double t0, double *last, unsigned long long *last_samples)
{
	unsigned long long samples, lost, throttled;
	double t = now();

	if (t - *last < 1.0)
		return;
	kdev__totals(d, &samples, &lost, &throttled);
	fprintf(stderr, "\r\033[K[kprofcat %.0fs] %.0f samples/s, %llu lost, %llu throttled",
		t - t0, (samples - *last_samples) / (t - *last), lost, throttled);
	*last = t;
	*last_samples = samples;
}

/*
 * Stop CMD with SIG; one that outlives it for a second gets SIGTERM, then
 * SIGKILL, so kprofcat never waits forever on a CMD that ignores SIGINT.
 * Returns the mask (1 << signal) of what was sent; *STATUS gets CMD's end.
 */
static int stop_child(pid_t child, int sig, int *status)
{
	static const int then[] = { 0, SIGTERM, SIGKILL };
	int sent = 0, i, ms;

	for (i = 0; i < 3; i++) {
		int s = i ? then[i] : sig;

		if (i && s == sig)
			continue;
		kill(child, s);
		sent |= 1 << s;
		for (ms = 0; ms < 1000; ms += 10) {
			if (waitpid(child, status, WNOHANG) == child)
				return sent;
			usleep(10000);
		}
	}
	waitpid(child, status, 0);
	return sent;
}

/* A live run's state, from the device's opening to the exit status. */
struct live {
	struct record_opts *o;
	struct kdev *d;
	struct capture_writer *cap;
	struct sideband *sb;
	struct session *s;
	struct session_opts so;
	struct kprof_cpu_stats *stats;
	struct out_summary sum;
	struct kprof_throttle_config knobs;
	struct output null_out;
	struct raw rw;
	struct pollfd pfds[MAX_POLLFDS];
	int raw;		/* the raw path: -o alone, with side band */
	int tty;		/* the status line goes to stderr */
	pid_t child;		/* CMD, 0 if none or reaped */
	int child_fd;		/* its pidfd until reaped, -1: none */
	int pid_fd;		/* -p's process's pidfd, -1: none */
	int go, exec_err;	/* CMD's release pipe and exec-error pipe, -1: closed */
	int child_status;
	int stop_sig;		/* the signals kprofcat sent CMD, as a mask */
	double t0, last_status;
	unsigned long long last_samples;
};

/* The filters, the side band, the capture's META and the raw path's buffers. */
static int live_filters(struct live *l)
{
	struct record_opts *o = l->o;

	if (o->pid && !o->all)
		l->sb = sideband__open(o->pid);
	else if (l->child && !o->all)
		l->sb = sideband__open(l->child);
	else
		l->sb = sideband__open(-1);
	l->so.cap = l->cap;
	l->so.sf = o->sf;
	l->so.proc_fallback = !l->sb;
	if (o->pid && !o->all) {
		/* Per task, the module samples what PID creates too. */
		l->so.filter = o->per_task ? FILTER_TREE : FILTER_PID;
		l->so.pid = o->pid;
	} else if (l->child && !o->all) {
		l->so.filter = FILTER_TREE;
		l->so.pid = l->child;
	}
	/* Without side band, new pids need /proc reads as they show up. */
	l->raw = l->cap && !o->out && l->sb;
	if (l->cap && write_meta(l->cap, o, l->raw ? l->so.filter : FILTER_ALL, l->so.pid,
				 kdev__nr_cpus(l->d)))
		return -1;
	if (l->raw) {
		l->so.cap = NULL;
		l->so.out = &l->null_out;
		l->rw.cap = l->cap;
	}
	return 0;
}

/* The kernel symbols, the session, and what was mapped before we listened. */
static int live_session(struct live *l)
{
	struct ksyms *k = ksyms__load("/proc/kallsyms");
	size_t klen;
	const char *ktext = k ? ksyms__text(k, &klen) : NULL;

	if (l->cap && ktext && capture__write(l->cap, KPCAP_KALLSYMS, 0, ktext, klen)) {
		ksyms__free(k);
		return -1;
	}
	/*
	 * The raw path resolves no kernel address: the symbols are in the
	 * capture now, and its DSO pass looks for user DSOs only.  Their
	 * text and table (some 20 MB) are not kept for the run: held, they
	 * are memory the kernel's THP work (huge-page faults, khugepaged
	 * collapsing what they left in small pages) runs on the profiled
	 * CPUs for, seen in system-wide profiles as khugepaged samples.
	 */
	if (l->raw) {
		ksyms__free(k);
		k = ksyms__new("", 0);
		if (!k) {
			p_err("out of memory");
			return -1;
		}
	}
	l->s = session__new(&l->so, k);
	if (!l->s) {
		ksyms__free(k);
		p_err("out of memory");
		return -1;
	}
	l->rw.s = l->s;
	if (l->so.filter == FILTER_ALL)
		sideband__snapshot_all(l->raw ? record_raw__pev : session__pev,
				       l->raw ? (void *)&l->rw : l->s);
	else
		sideband__snapshot_pid(l->so.pid, 0, l->raw ? record_raw__pev : session__pev,
				       l->raw ? (void *)&l->rw : l->s);
	return 0;
}

/* Everything up to the start of sampling; -1: nothing to stop yet. */
static int live_setup(struct live *l)
{
	struct record_opts *o = l->o;

	if (runlimits__fit_freq(l->d, o) || kdev__knobs(l->d, &l->knobs))
		return -1;
	l->sum.knobs = &l->knobs;
	/* Held before SET_CONFIG: a per-task session names its pid. */
	if (o->cmd) {
		l->child = spawn_held(o->cmd, !!o->out, &l->go, &l->exec_err);
		if (l->child < 0) {
			l->child = 0;
			return -1;
		}
		l->child_fd = pidfd_of(l->child);
	}
	if (o->pid)
		l->pid_fd = pidfd_of(o->pid);
	/*
	 * No transparent huge pages for this process (after CMD's fork: the
	 * setting is inherited and kept across exec).  Its few megabytes
	 * gain nothing from them, and khugepaged, with the default
	 * max_ptes_none, collapses any 2 MiB range of them that has one
	 * page in use: a 2 MiB clear and copy on the profiled CPUs in the
	 * middle of the run, seen in system-wide profiles as khugepaged
	 * samples that perf record's runs do not have.
	 */
	prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
	if (o->per_task) {
		/* -p: every thread of PID's process, as perf record -p. */
		o->cfg.target_flags = KPROF_TARGET_TASK |
				      (o->pid ? KPROF_TARGET_THREADS : 0);
		o->cfg.target_pid = o->pid ? o->pid : l->child;
		/* The module's default CPUs are for CPU sessions. */
		memset(o->cfg.cpumask, 0, sizeof(o->cfg.cpumask));
	}
	if (kdev__configure(l->d, &o->cfg, o->event))
		return -1;
	if (o->out_path) {
		l->cap = capture__create(o->out_path);
		if (!l->cap)
			return -1;
	}
	if (live_filters(l) || live_session(l))
		return -1;
	return 0;
}

/*
 * Release the held CMD now that kprof samples.  0: running; -1: the
 * release failed (stop and report); 127: it could not be run, nothing was
 * kept (no samples printed, no capture left).
 */
static int live_release(struct live *l)
{
	int ret;

	if (write(l->go, "g", 1) != 1) {
		p_err("cannot release '%s': %s", l->o->cmd[0], strerror(errno));
		return -1;
	}
	close(l->go);
	l->go = -1;
	ret = exec_result(l->exec_err);
	l->exec_err = -1;
	if (!ret)
		return 0;
	/* Nothing it ran is worth printing: no samples, no capture. */
	p_err("cannot run '%s': %s", l->o->cmd[0], strerror(ret));
	kdev__stop(l->d);
	waitpid(l->child, NULL, 0);
	l->child = 0;
	if (l->cap) {
		capture__close(l->cap);
		l->cap = NULL;
		unlink(l->o->out_path);
	}
	return 127;
}

/* Whether the run is over: --duration, CMD's end, -p's process gone. */
static int live_done(struct live *l)
{
	if (l->o->duration > 0 && now() - l->t0 >= l->o->duration)
		return 1;
	if (l->child && waitpid(l->child, &l->child_status, WNOHANG) == l->child) {
		l->child = 0;
		/* Readable for good now: out of the poll set. */
		if (l->child_fd >= 0)
			close(l->child_fd);
		l->child_fd = -1;
		return 1;
	}
	/* perf record -p ends when its process does. */
	return l->o->pid && pid_gone(l->o->pid);
}

/*
 * How long a round's poll() may sleep: as perf record's, until a buffer
 * holds its watermark, a process event comes or the process ends, so
 * that the reader wakes on the CPUs it profiles hardly more often than
 * perf's (every wakeup there moves the profiled tasks' context switches,
 * which the per-task throttle counts per event); at most SLEEP_MAX_MS,
 * less for what needs a clock: the end of --duration, the status line,
 * and an end no pidfd reports.
 */
static int live_poll_timeout(const struct live *l)
{
	double left;
	int ms = SLEEP_MAX_MS;

	if (l->tty || (l->child && l->child_fd < 0) ||
	    (l->o->pid && l->pid_fd < 0))
		ms = POLL_MS;
	if (l->o->duration > 0) {
		left = l->o->duration - (now() - l->t0);
		left = left > 0 ? left * 1000 + 1 : 0;
		if (left < ms)
			ms = (int)left;
	}
	return ms;
}

/*
 * A round's wait: poll() on the device, the pidfd of CMD or of -p's
 * process, and the side band (live_poll_timeout()).  0, or 1 after a
 * poll() error, reported.
 */
static int live_poll(struct live *l)
{
	int n = 0, sb;

	l->pfds[n].fd = kdev__fd(l->d);
	l->pfds[n].events = POLLIN;
	l->pfds[n++].revents = 0;
	if (l->child_fd >= 0) {
		l->pfds[n].fd = l->child_fd;
		l->pfds[n].events = POLLIN;
		l->pfds[n++].revents = 0;
	}
	if (l->pid_fd >= 0) {
		l->pfds[n].fd = l->pid_fd;
		l->pfds[n].events = POLLIN;
		l->pfds[n++].revents = 0;
	}
	sb = sideband__pollfds(l->sb, l->pfds + n, MAX_POLLFDS - n);
	if (poll(l->pfds, n + sb, live_poll_timeout(l)) < 0 && errno != EINTR) {
		p_err("poll: %s", strerror(errno));
		return 1;
	}
	/* CMD's own side band hangs up as it exits, before it can be reaped. */
	sideband__hangups(l->sb, l->pfds + n, sb);
	return 0;
}

/*
 * CMD ended during the round's poll(): the loop stops sampling before it
 * drains (live_stop()), as perf record disables its events when SIGCHLD
 * ends its loop, so kprofcat's own writing of what is left is not
 * sampled as part of the run.
 */
static int live_child_ended(const struct live *l)
{
	return l->child_fd >= 0 && (l->pfds[1].revents & POLLIN);
}

/*
 * One round of the raw path: sleep until a buffer holds its watermark or
 * a process event comes (record_raw.h), then drain.
 */
static int live_raw_round(struct live *l)
{
	int ret;

	if (live_poll(l))
		return 1;
	if (live_child_ended(l))
		return 0;
	ret = sideband__read(l->sb, record_raw__pev, &l->rw);
	if (!ret)
		ret = kdev__read_spans(l->d, record_raw__span, &l->rw);
	return ret ? -1 : 0;
}

/* One round of the session path: poll, side band, buffers, emit. */
static int live_round(struct live *l)
{
	int ret;

	if (live_poll(l))
		return 1;
	if (live_child_ended(l))
		return 0;
	ret = sideband__read(l->sb, session__pev, l->s);
	if (!ret)
		ret = kdev__read(l->d, on_record, l->s);
	if (!ret)
		ret = session__flush(l->s, 0);
	return ret ? -1 : 0;
}

/*
 * Until a stop: 0 when the run ended (a stop, its end, or a poll error,
 * reported), -1 when reading or emitting failed.
 */
static int live_loop(struct live *l)
{
	int ret;

	l->t0 = now();
	l->last_status = l->t0;
	while (!stop_requested) {
		if (live_done(l))
			break;
		ret = l->raw ? live_raw_round(l) : live_round(l);
		if (ret < 0)
			return -1;
		if (ret > 0)
			break;
		if (l->tty)
			status_line(l->d, l->t0, &l->last_status, &l->last_samples);
	}
	return 0;
}

/* Stop sampling and CMD, then drain and emit what is left; -1 on failure. */
static int live_stop(struct live *l)
{
	int ret;

	kdev__stop(l->d);
	/* Erased for what follows: warnings, then the end-of-run line. */
	if (l->tty)
		fputs("\r\033[K", stderr);
	if (l->child) {
		/*
		 * Stopped early (Ctrl-C, kill, --duration): do not leave CMD
		 * behind.  It gets the signal kprofcat got (SIGTERM for
		 * --duration); dying of it is the stop that was asked for.
		 */
		l->stop_sig = stop_child(l->child, stop_requested ? stop_requested : SIGTERM,
					 &l->child_status);
		l->child = 0;
	}
	if (l->raw) {
		ret = sideband__read(l->sb, record_raw__pev, &l->rw);
		if (!ret)
			ret = kdev__read_spans(l->d, record_raw__span, &l->rw);
		if (!ret)
			ret = record_raw__dso_pass(l->cap, l->o->out_path, l->s);
	} else {
		ret = sideband__read(l->sb, session__pev, l->s);
		if (!ret)
			ret = kdev__read(l->d, on_record, l->s);
		if (!ret)
			ret = session__flush(l->s, 1);
	}
	return ret ? -1 : 0;
}

/* The per-CPU counters into the summary (and the capture); -1: no memory. */
static int live_stats(struct live *l, int *status)
{
	unsigned int cpu;

	l->stats = calloc(kdev__nr_cpus(l->d) + 1, sizeof(*l->stats));
	if (!l->stats)
		return -1;
	for (cpu = 0; cpu < kdev__nr_cpus(l->d); cpu++) {
		kdev__stats(l->d, cpu, &l->stats[cpu]);
		if (l->cap && l->stats[cpu].size &&
		    capture__write(l->cap, KPCAP_STATS, cpu, &l->stats[cpu], sizeof(l->stats[cpu])))
			*status = 1;
	}
	l->sum.cpu = l->stats;
	l->sum.nr_cpu = kdev__nr_cpus(l->d);
	l->sum.decode = session__decode_stats(l->s);
	l->sum.misordered = session__misordered(l->s);
	l->sum.bad_sizes = kdev__bad_sizes(l->d);
	l->sum.discarded = kdev__discarded(l->d);
	l->sum.filtered = session__filtered(l->s);
	l->sum.sideband_lost = sideband__lost(l->sb);
	l->sum.seconds = now() - l->t0;
	return 0;
}

/* The output's summary, the warnings, the capture's end; STATUS so far. */
static int live_finish(struct live *l, int status)
{
	struct record_opts *o = l->o;

	if (o->out && output__finish(o->out, &l->sum))
		status = 1;
	/* -o alone prints nothing: nothing came out of order. */
	if (l->sum.misordered && o->out)
		p_warn("%llu records arrived later than the %llu ms reordering window and were printed out of order",
		       (unsigned long long)l->sum.misordered, WINDOW_NS / 1000000);
	if (l->sum.sideband_lost)
		p_warn("the side band lost %llu process events: some frames may be [unknown]",
		       (unsigned long long)l->sum.sideband_lost);
	if (l->cap) {
		if (session__save_dsos(l->s, l->cap))
			status = 1;
		if (capture__close(l->cap))
			status = 1;
		l->cap = NULL;
	}
	if (!status && !o->quiet)
		runlimits__end_of_run(o, &l->sum, session__samples_out(l->s), kdev__bytes(l->d));
	return status;
}

/* CMD's own end is kprofcat's exit status, as perf record's. */
static int live_child_status(const struct live *l, int status)
{
	int cs = l->child_status, sent = l->stop_sig;
	char **cmd = l->o->cmd;

	if (cmd && WIFEXITED(cs) && WEXITSTATUS(cs))
		p_warn("'%s' exited with status %d", cmd[0], WEXITSTATUS(cs));
	else if (cmd && WIFSIGNALED(cs) && !(sent & (1 << WTERMSIG(cs))))
		p_warn("'%s' was killed by signal %d (%s)", cmd[0], WTERMSIG(cs),
		       strsignal(WTERMSIG(cs)));
	if (!status && WIFEXITED(cs))
		status = WEXITSTATUS(cs);
	else if (!status && WIFSIGNALED(cs) && !(sent & (1 << WTERMSIG(cs))))
		status = 128 + WTERMSIG(cs);
	return status;
}

static void live_free(struct live *l)
{
	if (l->go >= 0)
		close(l->go);	/* the held child sees EOF and exits 127 */
	if (l->exec_err >= 0)
		close(l->exec_err);
	if (l->child)
		waitpid(l->child, NULL, 0);
	if (l->child_fd >= 0)
		close(l->child_fd);
	if (l->pid_fd >= 0)
		close(l->pid_fd);
	if (l->cap)
		capture__close(l->cap);
	free(l->stats);
	session__free(l->s);
	sideband__close(l->sb);
	kdev__close(l->d);
}

/* From the start of sampling to the exit status. */
static int live_run(struct live *l)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int status = 1, ret;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (kdev__start(l->d, l->o->event))
		return 1;
	ret = l->child ? live_release(l) : 0;
	if (ret > 0)
		return ret;
	if (!ret && !live_loop(l))
		status = 0;
	if (live_stop(l))
		status = 1;
	if (live_stats(l, &status))
		return status;
	status = live_finish(l, status);
	return live_child_status(l, status);
}

int record__live(struct record_opts *o)
{
	struct live l = {
		.o = o,
		.so = { .out = o->out, .window_ns = WINDOW_NS },
		.null_out = { .ops = &record_raw__null_ops, .needs_frames = 1 },
		/* Not on the terminal the samples go to: the two would glue. */
		.tty = isatty(2) && !o->quiet && !(o->out && isatty(1)),
		.go = -1,
		.exec_err = -1,
		.child_fd = -1,
		.pid_fd = -1,
	};
	int status = 1;

	if (o->pid && kill(o->pid, 0) && errno == ESRCH) {
		p_err("-p %d: No such process", o->pid);
		return 1;
	}
	if (runlimits__set_knobs(o))
		return 1;
	l.d = kdev__open(o->device);
	if (!l.d)
		return 1;
	l.t0 = now();
	l.last_status = l.t0;
	if (!live_setup(&l))
		status = live_run(&l);
	live_free(&l);
	return status;
}
