// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfod_test: with DEBUGINFOD_URLS set, kprofcat names the frames of
 * a stripped program from the debug file a debuginfod server hands out,
 * as perf names them with that file in its build-id cache.
 *
 * Each test strips a copy of progs/hot3 (strip --strip-all: no .symtab,
 * the build-id kept, no .gnu_debuglink) and puts its split debug file
 * (objcopy --only-keep-debug) in a directory of its own, which only
 * Debian's debuginfod, run on 127.0.0.1, serves.  Samples come from perf
 * record of the stripped copy (cpu-clock: no PMU, no module), turned into
 * a kprofcat capture by perf2kpcap.  Each kprofcat gets a libdebuginfod
 * cache of its own (DEBUGINFOD_CACHE_PATH), so nothing is found there
 * that this test did not fetch; perf records into a build-id cache of
 * its own (perf --buildid-dir DIR, never ~/.debug), where the debug file
 * then takes the stripped program's place (buildid-cache --remove, --add).
 *
 *	server up: every frame line of every sample as perf script prints
 *	it (framediff), hot3's frames named;
 *	DEBUGINFOD_URLS unset, the server up: hot3's frames [unknown];
 *	server down (nothing listens on the port), or silent (a socket that
 *	accepts and never answers, DEBUGINFOD_TIMEOUT=2): exit 0, one
 *	warning, hot3's frames [unknown], back within a bound derived from
 *	the configured timeout;
 *	a capture written by a session while the server is up (as kprofcat
 *	-o writes one), read with -i after the server and the client's
 *	cache are gone, DEBUGINFOD_URLS unset: the frames named.
 */
#include <arpa/inet.h>
#include <libgen.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"

#include "lib/capture/capture.h"
#include "lib/symbols/ksyms.h"
#include "lib/stream/session.h"
#include "lib/symbols/usyms.h"
#include "lib/util/print.h"
#include "cmd_output.h"
#include "synth.h"

#define SILENT_TIMEOUT	2	/* DEBUGINFOD_TIMEOUT for the silent server, s */
#define READY_WAIT	60	/* how long the server may take to index, s */

static char tests_dir[PATH_MAX], user_dir[PATH_MAX], kprofcat[PATH_MAX + 32];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A TCP socket on 127.0.0.1, port in *PORT; LISTEN: accepting connections. */
static int local_socket(int listening, int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len) || (listening && listen(fd, 16))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

/* A port nothing listens on (bound, then let go). */
static int free_port(void)
{
	int port, fd = local_socket(0, &port);

	if (fd < 0)
		return -1;
	close(fd);
	return port;
}

FIXTURE(dbgd) {
	char dir[64];
	char bid[48];		/* the stripped program's build-id, hex */
	pid_t server;
	int port;
};

/* The stripped program's build-id, in hex (readelf -n). */
static int read_build_id(const char *dir, char *bid, size_t len)
{
	char cmd[PATH_MAX], *out;
	size_t n;

	snprintf(cmd, sizeof(cmd), "readelf -n %s/hot3 | sed -n 's/.*Build ID: //p'", dir);
	out = cmd_output(cmd);
	if (!out)
		return -1;
	n = strspn(out, "0123456789abcdef");
	if (n >= 16 && n < len)
		snprintf(bid, len, "%.*s", (int)n, out);
	free(out);
	return n >= 16 && n < len ? 0 : -1;
}

FIXTURE_SETUP(dbgd)
{
	ASSERT_EQ(0, cmd_dirs(tests_dir, sizeof(tests_dir), user_dir, sizeof(user_dir)));
	snprintf(kprofcat, sizeof(kprofcat), "%s/kprofcat", user_dir);
	ASSERT_EQ(0, access(kprofcat, X_OK)) TH_LOG("build user/kprofcat first");
	snprintf(self->dir, sizeof(self->dir), "/tmp/kprofcat-dbgd-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	self->server = 0;
	/* Not a skip: without the server nothing here would be tested. */
	ASSERT_EQ(0, cmd_run("command -v debuginfod debuginfod-find perf objcopy strip >/dev/null"))
		TH_LOG("no debuginfod, elfutils, perf or binutils: scripts/deps --quick installs them");
	/* The stripped program, and its debug file where only the server looks. */
	ASSERT_EQ(0, cmd_run("mkdir %s/srv && cp %s/progs/hot3 %s/hot3.full && objcopy --only-keep-debug %s/hot3.full %s/srv/hot3.debug && strip --strip-all -o %s/hot3 %s/hot3.full && rm %s/hot3.full",
			     self->dir, tests_dir, self->dir, self->dir, self->dir, self->dir,
			     self->dir, self->dir));
	ASSERT_NE(0, cmd_run("nm %s/hot3 2>/dev/null | grep -q hot_a", self->dir));
	ASSERT_EQ(0, read_build_id(self->dir, self->bid, sizeof(self->bid)));
	if (cmd_run("perf --buildid-dir %s/perfcache record -q -e cpu-clock -c 250000 -g --sample-cpu -o %s/perf.data -- %s/hot3 0.5 >/dev/null 2>%s/record.err",
		    self->dir, self->dir, self->dir, self->dir)) {
		cmd_run("cat %s/record.err >&2", self->dir);
		SKIP(return, "perf record failed (kernel.perf_event_paranoid?)");
	}
	ASSERT_EQ(0, cmd_run("perf report -D -i %s/perf.data 2>/dev/null | %s/tools/perf2kpcap %s/c.kpcap >/dev/null",
			     self->dir, tests_dir, self->dir));
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(dbgd)
{
	if (self->server > 0) {
		kill(self->server, SIGTERM);
		waitpid(self->server, NULL, 0);
	}
	if (cmd_run("rm -rf %s", self->dir))
		TH_LOG("could not remove %s", self->dir);
}

/* Whether the server hands out the debug file (a fresh client cache each time). */
static int served(const char *dir, int port, const char *bid)
{
	return !cmd_run("rm -rf %s/probe && DEBUGINFOD_TIMEOUT=5 DEBUGINFOD_CACHE_PATH=%s/probe DEBUGINFOD_URLS=http://127.0.0.1:%d debuginfod-find debuginfo %s >/dev/null 2>&1",
		    dir, dir, port, bid);
}

/*
 * debuginfod over DIR/srv on a free port (in *PORT), once it serves the
 * debug file of BID: its pid, or -1.  It listens on every address (0.188
 * has no option to choose one); the tests ask it on 127.0.0.1.
 */
static pid_t start_server(struct __test_metadata *_metadata, const char *dir,
			  const char *bid, int *port)
{
	char port_s[16], db[PATH_MAX], srv[PATH_MAX];
	double until = now() + READY_WAIT;
	pid_t pid;

	*port = free_port();
	if (*port < 0)
		return -1;
	snprintf(port_s, sizeof(port_s), "%d", *port);
	snprintf(db, sizeof(db), "%s/db.sqlite", dir);
	snprintf(srv, sizeof(srv), "%s/srv", dir);
	pid = fork();
	if (!pid) {
		/* Gone with the test, even one the harness kills. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execlp("debuginfod", "debuginfod", "-F", "-p", port_s, "-d", db, srv, NULL);
		_exit(127);
	}
	while (pid > 0 && !served(dir, *port, bid)) {
		if (now() > until || waitpid(pid, NULL, WNOHANG)) {
			TH_LOG("debuginfod on port %d did not serve %s", *port, bid);
			kill(pid, SIGTERM);
			waitpid(pid, NULL, 0);
			return -1;
		}
		usleep(100 * 1000);
	}
	return pid;
}

/*
 * kprofcat -i of the fixture's capture with ENV (env(1) arguments): its
 * output in DIR/NAME.txt, its messages in DIR/NAME.err; the exit status,
 * and the time it took in *SECS.
 */
static int kprofcat_read(const char *dir, const char *env, const char *cap,
			 const char *name, double *secs)
{
	double t = now();
	int ret;

	ret = cmd_run("env -u DEBUGINFOD_URLS -u DEBUGINFOD_TIMEOUT DEBUGINFOD_CACHE_PATH=%s/%s.cache %s %s -i %s >%s/%s.txt 2>%s/%s.err",
		      dir, name, env, kprofcat, cap, dir, name, dir, name);
	if (secs)
		*secs = now() - t;
	return ret;
}

/* How many lines of DIR/FILE hold PATTERN (grep -c). */
static int lines_with(const char *dir, const char *file, const char *pattern)
{
	char cmd[2 * PATH_MAX], *out;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "grep -c -e '%s' %s/%s || true", pattern, dir, file);
	out = cmd_output(cmd);
	if (out && sscanf(out, "%d", &n) != 1)
		n = -1;
	free(out);
	return n;
}

/*
 * hot3's frames, none named from its debug file: there are some, and
 * each prints [unknown] or a PLT entry (NAME@plt, which perf too
 * synthesizes from the stripped program's own .rela.plt and .dynsym).
 */
static void expect_unnamed(struct __test_metadata *_metadata, const char *dir,
			   const char *file)
{
	char frame[128], unknown[128], plt[128];
	int n;

	snprintf(frame, sizeof(frame), " (%s/hot3)$", dir);
	snprintf(unknown, sizeof(unknown), " \\[unknown\\] (%s/hot3)$", dir);
	snprintf(plt, sizeof(plt), "@plt+0x[0-9a-f]* (%s/hot3)$", dir);
	n = lines_with(dir, file, frame);
	EXPECT_LT(100, n);
	EXPECT_EQ(n, lines_with(dir, file, unknown) + lines_with(dir, file, plt)) {
		cmd_run("grep -e '%s' %s/%s | grep -v -e '%s' -e '%s' | sort | uniq -c >&2",
			frame, dir, file, unknown, plt);
	}
}

TEST_F(dbgd, frames_named_as_perf_names_them)
{
	unsigned long long na, nb, fa, fb, diff, reordered;
	char env[128], line[256] = "", path[PATH_MAX];
	FILE *f;

	self->server = start_server(_metadata, self->dir, self->bid, &self->port);
	ASSERT_LT(0, self->server);
	snprintf(env, sizeof(env), "DEBUGINFOD_URLS=http://127.0.0.1:%d", self->port);
	snprintf(path, sizeof(path), "%s/c.kpcap", self->dir);
	ASSERT_EQ(0, kprofcat_read(self->dir, env, path, "k", NULL));
	/* Fetched into kprofcat's own cache. */
	snprintf(path, sizeof(path), "%s/k.cache/%s/debuginfo", self->dir, self->bid);
	EXPECT_EQ(0, access(path, R_OK));
	/* The debug file in place of the stripped program perf record cached. */
	ASSERT_EQ(0, cmd_run("perf --buildid-dir %s/perfcache buildid-cache --remove %s/hot3 && perf --buildid-dir %s/perfcache buildid-cache --add %s/srv/hot3.debug",
			     self->dir, self->dir, self->dir, self->dir));
	ASSERT_EQ(0, cmd_run("perf --buildid-dir %s/perfcache script -i %s/perf.data >%s/p.txt 2>/dev/null",
			     self->dir, self->dir, self->dir));
	snprintf(line, sizeof(line), " hot_a+0x[0-9a-f]* (%s/hot3)$", self->dir);
	ASSERT_LT(0, lines_with(self->dir, "p.txt", line)) TH_LOG("perf named no hot_a");
	EXPECT_LT(0, lines_with(self->dir, "k.txt", line));
	ASSERT_EQ(0, cmd_run("%s/tools/framediff %s/k.txt %s/p.txt >%s/diff 2>%s/diff.err",
			     tests_dir, self->dir, self->dir, self->dir, self->dir));
	snprintf(path, sizeof(path), "%s/diff", self->dir);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	ASSERT_EQ(6, sscanf(line, "samples=%llu/%llu frames=%llu/%llu differing=%llu reordered=%llu",
			    &na, &nb, &fa, &fb, &diff, &reordered)) {
		TH_LOG("framediff said: %s", line);
	}
	TH_LOG("%s", line);
	ASSERT_GT(nb, 0);
	EXPECT_EQ(nb, na);
	EXPECT_EQ(fb, fa);
	EXPECT_EQ(0, diff) {
		cmd_run("head -40 %s/diff.err >&2", self->dir);
	}
}

TEST_F(dbgd, without_debuginfod_urls_frames_unnamed)
{
	char path[PATH_MAX];

	self->server = start_server(_metadata, self->dir, self->bid, &self->port);
	ASSERT_LT(0, self->server);
	snprintf(path, sizeof(path), "%s/c.kpcap", self->dir);
	ASSERT_EQ(0, kprofcat_read(self->dir, "", path, "k", NULL));
	expect_unnamed(_metadata, self->dir, "k.txt");
	EXPECT_EQ(0, lines_with(self->dir, "k.err", "debuginfod"));
}

/*
 * Exit 0, hot3's frames [unknown], one warning about debuginfod, in at
 * most BOUND seconds.
 */
static void expect_gave_up(struct __test_metadata *_metadata, const char *dir,
			   const char *env, double bound)
{
	char path[PATH_MAX];
	double secs;

	snprintf(path, sizeof(path), "%s/c.kpcap", dir);
	ASSERT_EQ(0, kprofcat_read(dir, env, path, "k", &secs));
	TH_LOG("%s: %.2f s", env, secs);
	expect_unnamed(_metadata, dir, "k.txt");
	EXPECT_EQ(1, lines_with(dir, "k.err", "warning: debuginfod")) {
		cmd_run("cat %s/k.err >&2", dir);
	}
	EXPECT_LT(secs, bound);
}

/*
 * Refused connections fail at once, so the bound is kprofcat's time to
 * read the capture alone: well under a second here, 20 s of slack for a
 * loaded host.
 */
TEST_F(dbgd, server_down_one_warning)
{
	char env[128];

	snprintf(env, sizeof(env), "DEBUGINFOD_URLS=http://127.0.0.1:%d", free_port());
	expect_gave_up(_metadata, self->dir, env, 20);
}

/*
 * A server that accepts and never answers: the one query waits
 * SILENT_TIMEOUT s (the progress callback, polled at least once a second,
 * ends it within SILENT_TIMEOUT + 1 s), and no other is made.  Bound:
 * that, and the same 20 s for the rest; below both the 30 s default and
 * libdebuginfod's own 90 s, so only the configured timeout passes.
 */
TEST_F(dbgd, silent_server_bounded_wait)
{
	int port, fd = local_socket(1, &port);
	char env[128];

	ASSERT_LE(0, fd);
	snprintf(env, sizeof(env), "DEBUGINFOD_URLS=http://127.0.0.1:%d DEBUGINFOD_TIMEOUT=%d",
		 port, SILENT_TIMEOUT);
	expect_gave_up(_metadata, self->dir, env, SILENT_TIMEOUT + 1 + 20);
	close(fd);
}

/* The file offset of hot3's function NAME, from the debug file. */
static uint64_t offset_of(const char *dir, const char *name)
{
	char cmd[PATH_MAX], *out;
	unsigned long long off = 0;

	snprintf(cmd, sizeof(cmd), "nm %s/srv/hot3.debug | sed -n 's/ t %s$//p'", dir, name);
	out = cmd_output(cmd);
	if (!out || sscanf(out, "%llx", &off) != 1)
		off = 0;
	free(out);
	return off;
}

#define BASE	0x555555554000ULL

/*
 * A capture as kprofcat -o writes one: a session's records and process
 * events, then the symbols of every DSO a sample hit.  One sample per
 * function of FNS, at its start + 4, in hot3 mapped at BASE.
 */
static int record(const char *dir, const char *cap, const char *const *fns, int n)
{
	char path[PATH_MAX];
	struct pev m = { .type = PEV_MMAP, .pid = 4242, .start = BASE, .len = 0x10000,
			 .path = path };
	struct session_opts so = { .window_ns = 1000000 };
	struct capture_writer *w = capture__create(cap);
	unsigned char buf[512];
	struct session *s;
	int i, ret;

	snprintf(path, sizeof(path), "%s/hot3", dir);
	if (!w || capture__write(w, KPCAP_META, 0, "event=cpu-clock\n", 16))
		return -1;
	so.cap = w;
	s = session__new(&so, ksyms__new("", 0));
	if (!s)
		return -1;
	ret = session__pev(s, &m);
	for (i = 0; i < n && !ret; i++) {
		uint64_t ip = BASE + offset_of(dir, fns[i]) + 4;
		size_t len = synth_sample(buf, i + 1, (i + 1) * 1000000ULL, 0, 4242, "hot3",
					  KPROF_MISC_USER, &ip, 0, 1);

		ret = session__record(s, 0, buf, len);
	}
	if (!ret)
		ret = session__flush(s, 1);
	if (!ret)
		ret = session__save_dsos(s, w);
	session__free(s);
	return capture__close(w) || ret;
}

TEST_F(dbgd, capture_keeps_the_symbols)
{
	static const char *const fns[] = { "hot_a", "hot_b", "hot_c", "stage_a" };
	char url[64], cache[PATH_MAX], cap[PATH_MAX], want[128];
	unsigned int i;

	self->server = start_server(_metadata, self->dir, self->bid, &self->port);
	ASSERT_LT(0, self->server);
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		ASSERT_NE(0, offset_of(self->dir, fns[i]));
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", self->port);
	snprintf(cache, sizeof(cache), "%s/rec.cache", self->dir);
	snprintf(cap, sizeof(cap), "%s/rec.kpcap", self->dir);
	/* The recording session asks the server (this process's environment). */
	ASSERT_EQ(0, setenv("DEBUGINFOD_URLS", url, 1));
	ASSERT_EQ(0, setenv("DEBUGINFOD_CACHE_PATH", cache, 1));
	ASSERT_EQ(0, record(self->dir, cap, fns, sizeof(fns) / sizeof(fns[0])));
	ASSERT_EQ(0, unsetenv("DEBUGINFOD_URLS"));
	/* Elsewhere: no server, no cache. */
	kill(self->server, SIGTERM);
	waitpid(self->server, NULL, 0);
	self->server = 0;
	ASSERT_EQ(0, cmd_run("rm -rf %s", cache));
	ASSERT_EQ(0, kprofcat_read(self->dir, "", cap, "k", NULL));
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		snprintf(want, sizeof(want), " %s+0x4 (%s/hot3)$", fns[i], self->dir);
		EXPECT_EQ(1, lines_with(self->dir, "k.txt", want)) {
			cmd_run("cat %s/k.txt %s/k.err >&2", self->dir, self->dir);
		}
	}
	EXPECT_EQ(0, lines_with(self->dir, "k.err", "debuginfod"));
}

TEST_HARNESS_MAIN
