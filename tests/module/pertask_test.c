// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task sessions (ABI version 6, KPROF_TARGET_TASK in
 * include/uapi/linux/kprof.h): a session samples one task and the tasks
 * it creates, not CPUs.
 *
 * task.only_the_target:  with another process spinning beside it, every
 *                        SAMPLE in the rings is the target's, and every
 *                        CPU's counters account for each overflow once
 *                        (samples + lost by cause, in-band too), so the
 *                        session's overflows are the target's delivered
 *                        plus lost samples: the other process costs the
 *                        session nothing.
 * task.child_is_sampled: a child the target forks after START is sampled
 *                        (its inherited event), the target's too.
 * task.testpmu_nmi:      the same on the NMI PMU stand-in (kprof_testpmu),
 *                        with kprof's per-tick limit at one overflow:
 *                        only the target's and its child's samples,
 *                        THROTTLE records, and every overflow accounted,
 *                        throttled ones included.
 * task.threads_*:        a process with a second thread made before START:
 *                        with KPROF_TARGET_THREADS (kprofcat -p) both
 *                        threads are sampled, without it only the one
 *                        target_pid names.
 * task.main_thread_gone: the same after the main thread's pthread_exit():
 *                        START succeeds and samples the thread left.
 * task.no_such_task:     START of a pid no task has: ESRCH.
 * pid_namespace:         target_pid is of the opener's pid namespace: pid 1
 *                        of a new one targets itself (every SAMPLE is its
 *                        own, pid 1), and its pid in the initial namespace
 *                        names no task there (ESRCH).
 * task.target_exits:     the target exits long before STOP; STOP still
 *                        ends the session whole.
 * kprofcat.cmd_only:     `kprofcat --stats --json -- spin 1` beside the
 *                        spinning process: the session's overflows (total)
 *                        are its delivered samples plus the lost ones, the
 *                        reader got every delivered sample and filtered
 *                        none out (the module took no other process's).
 * kprofcat.pid:          the same for `kprofcat -p PID --duration 1` of a
 *                        two-threaded spinning process.
 * granted.member_*:      a member of the group= grant may sample its own
 *                        (dumpable) process, but START on a process of
 *                        another user (root's), or on its own made
 *                        non-dumpable, is refused with EACCES.
 * Bad target configurations: config_test.
 */
#define _GNU_SOURCE
#include "kprof_test.h"

#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#include "stats_json.h"
#include "testpmu.h"

#define FREQ		1000
#define SPIN_CPU_MS	200	/* CPU time each sampled task spends */
#define GRANT_GID	4242

/* Busy for @ms of this thread's own CPU time, however it is scheduled. */
static void spin_cpu_ms(long ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* A process spinning until killed: the one that must not be sampled. */
static pid_t spinner(void)
{
	pid_t pid = fork();

	if (!pid) {
		/* Gone with the test, whatever ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			;
	}
	return pid;
}

/*
 * A target held until a byte arrives on *@go; then it spins, and with
 * @fork_child forks a child that spins too (its pid written to
 * *@child_pid's pipe), waits for it, and exits.
 */
static pid_t held_target(int *go, int *child_pid, int fork_child)
{
	int g[2], c[2];
	pid_t pid;
	char b;

	if (pipe(g) || pipe(c))
		return -1;
	pid = fork();
	if (pid)
		goto parent;
	close(g[1]);
	close(c[0]);
	if (read(g[0], &b, 1) != 1)
		_exit(2);
	if (fork_child) {
		pid_t kid = fork();

		if (!kid) {
			spin_cpu_ms(SPIN_CPU_MS);
			_exit(0);
		}
		if (write(c[1], &kid, sizeof(kid)) != sizeof(kid))
			_exit(3);
		spin_cpu_ms(SPIN_CPU_MS);
		waitpid(kid, NULL, 0);
	} else {
		spin_cpu_ms(SPIN_CPU_MS);
	}
	_exit(0);
parent:
	close(g[0]);
	close(c[1]);
	*go = g[1];
	*child_pid = c[0];
	return pid;
}

/* What the rings hold, by pid. */
struct tally {
	pid_t target, child;
	__u64 target_samples, child_samples, other_samples;
	pid_t other_pid;
};

static int count_sample(struct kp_buffers *b, struct kp_cpu *c,
			const struct kprof_sample *s)
{
	struct tally *t = b->arg;

	(void)c;
	if ((pid_t)s->pid == t->target) {
		t->target_samples++;
	} else if (t->child && (pid_t)s->pid == t->child) {
		t->child_samples++;
	} else {
		t->other_samples++;
		t->other_pid = s->pid;
	}
	return 0;
}

static void target_cfg(struct kprof_config *cfg, pid_t pid)
{
	kp_cfg_init(cfg, FREQ);
	cfg->target_flags = KPROF_TARGET_TASK;
	cfg->target_pid = pid;
}

FIXTURE(task) {
	int fd;
	pid_t other;
	struct kp_buffers b;
	struct tally t;
};

FIXTURE_SETUP(task)
{
	memset(&self->b, 0, sizeof(self->b));
	memset(&self->t, 0, sizeof(self->t));
	self->other = -1;
	KP_OPEN_OR_SKIP(self->fd);
	self->other = spinner();
	ASSERT_LT(0, self->other) TH_LOG("fork: %s", strerror(errno));
}

FIXTURE_TEARDOWN(task)
{
	if (self->other > 0) {
		kill(self->other, SIGKILL);
		waitpid(self->other, NULL, 0);
	}
	kp_close(self->fd, &self->b);
	/* The perf sysctls as the suite left them, for the tests after. */
	tp_reset_sysctls();
}

/*
 * Configure for @pid (@with, or the clock's default), map, START, release
 * the target, reap it, STOP, drain.
 */
static int run_target_cfg(struct __test_metadata *_metadata, int fd,
			  struct kp_buffers *b, struct tally *t, int fork_child,
			  const struct kprof_config *with)
{
	struct kprof_config cfg;
	int go, kid_fd, status;
	pid_t pid, kid = 0;

	pid = held_target(&go, &kid_fd, fork_child);
	if (pid < 0)
		return -1;
	t->target = pid;
	target_cfg(&cfg, pid);
	if (with) {
		cfg = *with;
		cfg.target_flags = KPROF_TARGET_TASK;
		cfg.target_pid = pid;
	}
	EXPECT_EQ(0, kp_set_config(fd, &cfg)) TH_LOG("SET_CONFIG: %s", strerror(errno));
	EXPECT_EQ(0, kp_map(b, fd)) TH_LOG("%s", b->err);
	EXPECT_EQ(0, kp_start(fd)) TH_LOG("START: %s", strerror(errno));
	if (write(go, "g", 1) != 1)
		return -1;
	close(go);
	if (fork_child && read(kid_fd, &kid, sizeof(kid)) != sizeof(kid))
		return -1;
	close(kid_fd);
	t->child = kid;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	EXPECT_EQ(0, kp_stop(fd)) TH_LOG("STOP: %s", strerror(errno));
	b->on_sample = count_sample;
	b->arg = t;
	if (kp_drain(b) < 0)
		return -1;
	return 0;
}

static int run_target(struct __test_metadata *_metadata, int fd,
		      struct kp_buffers *b, struct tally *t, int fork_child)
{
	return run_target_cfg(_metadata, fd, b, t, fork_child, NULL);
}

TEST_F_TIMEOUT(task, only_the_target, 60)
{
	struct kprof_counters k;
	__u64 overflows = 0, delivered = 0, lost = 0;
	unsigned int cpu;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run_target(_metadata, self->fd, &self->b, &self->t, 0))
		TH_LOG("%s", self->b.err);
	EXPECT_EQ(0ULL, self->t.other_samples)
		TH_LOG("a sample of pid %d, not the target %d", self->t.other_pid,
		       self->t.target);
	EXPECT_LT(0ULL, self->t.target_samples);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
	/* The session's overflows: the target's samples, delivered or lost. */
	for (cpu = 0; cpu < self->b.nr_cpu_ids; cpu++) {
		if (!self->b.cpus[cpu].base)
			continue;
		kp_page_counters(&self->b.cpus[cpu], &k);
		overflows += k.overflows;
		delivered += k.samples;
		lost += kp_lost_total(&k);
	}
	EXPECT_EQ(self->t.target_samples, delivered);
	EXPECT_EQ(overflows, delivered + lost);
	TH_LOG("target %d: %llu overflows, %llu delivered, %llu lost", self->t.target,
	       (unsigned long long)overflows, (unsigned long long)delivered,
	       (unsigned long long)lost);
}

TEST_F_TIMEOUT(task, child_is_sampled, 60)
{
	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, run_target(_metadata, self->fd, &self->b, &self->t, 1))
		TH_LOG("%s", self->b.err);
	EXPECT_EQ(0ULL, self->t.other_samples)
		TH_LOG("a sample of pid %d: neither the target %d nor its child %d",
		       self->t.other_pid, self->t.target, self->t.child);
	EXPECT_LT(0ULL, self->t.target_samples);
	EXPECT_LT(0ULL, self->t.child_samples) TH_LOG("child %d", self->t.child);
	EXPECT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
}

/* Per-CPU NMI samples and THROTTLE records of the session. */
static void nmi_tally(struct kp_buffers *b, __u64 *nmi, __u64 *throttles)
{
	unsigned int cpu;

	*nmi = 0;
	*throttles = 0;
	for (cpu = 0; cpu < b->nr_cpu_ids; cpu++) {
		*nmi += b->cpus[cpu].nmi_samples;
		*throttles += b->cpus[cpu].throttle_recs;
	}
}

TEST_F_TIMEOUT(task, testpmu_nmi, 90)
{
	struct kprof_throttle_config knobs = {
		.size = sizeof(knobs),
		/*
		 * One per tick at HZ 250 (ge: the first overflow of a tick
		 * trips it), so every tick the target overflows in is
		 * throttled, whatever the emulator's speed.
		 */
		.max_sample_rate = 250,
		.cpu_time_max_percent = 25,
	};
	struct kprof_config cfg;
	__u64 nmi, throttles;

	KP_RETURN_IF_SKIPPED();
	if (tp_cfg_init(&cfg, 50000))
		SKIP(return, "no kprof_testpmu (tests/vm/run --testpmu)");
	/*
	 * kprof's throttle is tested, not the kernel's: the stand-in's NMIs
	 * are slow under TCG, and the kernel's controller would lower
	 * kernel.perf_event_max_sample_rate below the frequency the tests
	 * after START with (EINVAL, as perf_event_open() says it).
	 */
	ASSERT_EQ(0, tp_controller_off()) TH_LOG("perf sysctls: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_SET_THROTTLE, &knobs))
		TH_LOG("SET_THROTTLE: %s", strerror(errno));
	ASSERT_EQ(0, run_target_cfg(_metadata, self->fd, &self->b, &self->t, 1, &cfg))
		TH_LOG("%s", self->b.err);
	EXPECT_EQ(0, kp_default_limits(self->fd));
	EXPECT_EQ(0ULL, self->t.other_samples)
		TH_LOG("a sample of pid %d: neither the target %d nor its child %d",
		       self->t.other_pid, self->t.target, self->t.child);
	EXPECT_LT(0ULL, self->t.target_samples);
	EXPECT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
	nmi_tally(&self->b, &nmi, &throttles);
	EXPECT_LT(0ULL, nmi);
	EXPECT_LT(0ULL, throttles);
	TH_LOG("target %llu, child %llu samples (%llu in NMI), %llu THROTTLE records",
	       (unsigned long long)self->t.target_samples,
	       (unsigned long long)self->t.child_samples,
	       (unsigned long long)nmi, (unsigned long long)throttles);
}

/* A second thread, made before START: its tid, then it spins once told. */
static volatile int threads_go;
static int tid_pipe[2];
static int main_gone, go_pipe;	/* the main thread exits: wait on go_pipe */

static void *second_thread(void *arg)
{
	pid_t tid = syscall(SYS_gettid);

	char c;

	(void)arg;
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	if (main_gone) {
		if (read(go_pipe, &c, 1) != 1)
			return NULL;
	} else {
		while (!threads_go)
			usleep(1000);
	}
	spin_cpu_ms(SPIN_CPU_MS);
	return NULL;
}

struct tid_tally {
	pid_t main, second;
	__u64 main_samples, second_samples, other_samples;
};

static int count_tid(struct kp_buffers *b, struct kp_cpu *c,
		     const struct kprof_sample *s)
{
	struct tid_tally *t = b->arg;

	(void)c;
	if ((pid_t)s->tid == t->main)
		t->main_samples++;
	else if ((pid_t)s->tid == t->second)
		t->second_samples++;
	else
		t->other_samples++;
	return 0;
}

/* Is thread @tid of @pid a zombie (exited, its process not)? */
static int thread_zombie(pid_t pid, pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	int z = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		z = p && p[1] == ' ' && p[2] == 'Z';
	}
	fclose(f);
	return z;
}

/*
 * A two-threaded process sampled with @flags; what each thread got.  With
 * @main_exits its main thread calls pthread_exit() before START.
 */
static void run_threads(struct __test_metadata *_metadata, int fd,
			struct kp_buffers *b, __u32 flags, struct tid_tally *t,
			int main_exits)
{
	struct kprof_config cfg;
	int go[2], status;
	pthread_t th;
	pid_t pid;
	char c;

	memset(t, 0, sizeof(*t));
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(tid_pipe));
	main_gone = main_exits;
	go_pipe = go[0];
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/*
		 * Gone with the test, and its byte's pipe closed when the
		 * test's end closes it: a test that fails before writing it
		 * leaves no process holding the device's file.
		 */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(go[1]);
		close(fd);
		if (pthread_create(&th, NULL, second_thread, NULL))
			_exit(2);
		if (main_exits)
			pthread_exit(NULL);	/* the second reads the byte */
		if (read(go[0], &c, 1) != 1)
			_exit(3);
		threads_go = 1;
		spin_cpu_ms(SPIN_CPU_MS);
		pthread_join(th, NULL);
		_exit(0);
	}
	ASSERT_EQ(sizeof(t->second), read(tid_pipe[0], &t->second, sizeof(t->second)));
	t->main = pid;
	while (main_exits && !thread_zombie(pid, pid))
		usleep(1000);
	target_cfg(&cfg, pid);
	cfg.target_flags |= flags;
	ASSERT_EQ(0, kp_set_config(fd, &cfg)) TH_LOG("SET_CONFIG: %s", strerror(errno));
	ASSERT_EQ(0, kp_map(b, fd)) TH_LOG("%s", b->err);
	ASSERT_EQ(0, kp_start(fd)) TH_LOG("START: %s", strerror(errno));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	ASSERT_EQ(0, kp_stop(fd)) TH_LOG("STOP: %s", strerror(errno));
	b->on_sample = count_tid;
	b->arg = t;
	ASSERT_LE(0, kp_drain(b)) TH_LOG("%s", b->err);
	EXPECT_EQ(0, kp_check_conserved_all(b, 1)) TH_LOG("%s", b->err);
	EXPECT_EQ(0ULL, t->other_samples);
	if (!main_exits)
		EXPECT_LT(0ULL, t->main_samples);
	TH_LOG("main %d: %llu samples, second thread %d: %llu", t->main,
	       (unsigned long long)t->main_samples, t->second,
	       (unsigned long long)t->second_samples);
	close(go[0]);
	close(go[1]);
	close(tid_pipe[0]);
	close(tid_pipe[1]);
}

TEST_F_TIMEOUT(task, threads_of_the_process, 60)
{
	struct tid_tally t;

	KP_RETURN_IF_SKIPPED();
	run_threads(_metadata, self->fd, &self->b, KPROF_TARGET_THREADS, &t, 0);
	EXPECT_LT(0ULL, t.second_samples);
}

TEST_F_TIMEOUT(task, threads_not_asked_for, 60)
{
	struct tid_tally t;

	KP_RETURN_IF_SKIPPED();
	run_threads(_metadata, self->fd, &self->b, 0, &t, 0);
	EXPECT_EQ(0ULL, t.second_samples);
}

TEST_F_TIMEOUT(task, main_thread_gone, 60)
{
	struct tid_tally t;

	KP_RETURN_IF_SKIPPED();
	run_threads(_metadata, self->fd, &self->b, KPROF_TARGET_THREADS, &t, 1);
	EXPECT_LT(0ULL, t.second_samples);
	EXPECT_EQ(0ULL, t.main_samples);
}

TEST_F_TIMEOUT(task, no_such_task, 30)
{
	struct kprof_config cfg;
	pid_t pid;

	KP_RETURN_IF_SKIPPED();
	pid = fork();
	if (!pid)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	target_cfg(&cfg, pid);
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	EXPECT_EQ(-1, kp_start(self->fd));
	EXPECT_EQ(ESRCH, errno);
}

TEST_F_TIMEOUT(task, target_exits, 60)
{
	KP_RETURN_IF_SKIPPED();
	/* run_target() reaps the target before STOP. */
	ASSERT_EQ(0, run_target(_metadata, self->fd, &self->b, &self->t, 0))
		TH_LOG("%s", self->b.err);
	kp_sleep_ms(50);
	EXPECT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
}

/* ------------------------------------------------------------------ */

#define NS_COMM		"kp-pertask-ns"

static int ns_sample(struct kp_buffers *b, struct kp_cpu *c,
		     const struct kprof_sample *s)
{
	__u64 *own = b->arg;

	(void)c;
	if (s->pid != 1 || strcmp(s->comm, NS_COMM))
		return kp_fail(b, "a sample of pid %u (%.16s), not of pid 1 " NS_COMM,
			       s->pid, s->comm);
	(*own)++;
	return 0;
}

/* Pid 1 of a new namespace, whose pid outside is @outer. */
static int ns_opener(pid_t outer, char *msg, size_t len)
{
	struct kprof_config cfg;
	struct kp_buffers b;
	__u64 own = 0;
	int fd, e;

	prctl(PR_SET_NAME, NS_COMM);
	fd = kp_open();
	CHILD_EXPECT(fd >= 0, "open: %s", strerror(errno));
	target_cfg(&cfg, 1);
	CHILD_EXPECT(!kp_set_config(fd, &cfg), "SET_CONFIG: %s", strerror(errno));
	CHILD_EXPECT(!kp_map(&b, fd), "%s", b.err);
	CHILD_EXPECT(!kp_start(fd), "START on pid 1: %s", strerror(errno));
	spin_cpu_ms(SPIN_CPU_MS);
	CHILD_EXPECT(!kp_stop(fd), "STOP: %s", strerror(errno));
	b.on_sample = ns_sample;
	b.arg = &own;
	CHILD_EXPECT(kp_drain(&b) >= 0, "%s", b.err);
	CHILD_EXPECT(own > 0, "no sample of pid 1");
	CHILD_EXPECT(!kp_check_conserved_all(&b, 1), "%s", b.err);
	kp_unmap(&b);
	/* Its own pid outside: no task of that number in here (few are). */
	target_cfg(&cfg, outer);
	CHILD_EXPECT(!kp_set_config(fd, &cfg), "SET_CONFIG: %s", strerror(errno));
	e = kp_start(fd) ? errno : 0;
	kp_stop(fd);
	close(fd);
	CHILD_EXPECT(e == ESRCH, "START on the outer pid %d: %s", outer,
		     e ? strerror(e) : "started");
	snprintf(msg, len, "%llu samples of pid 1", (unsigned long long)own);
	return 0;
}

TEST(pid_namespace)
{
	char msg[512];
	int rc;

	if (getuid() != 0 || access(KP_DEV, F_OK))
		SKIP(return, "needs root and kprof loaded");
	rc = kp_in_new_pidns(ns_opener, msg, sizeof(msg));
	ASSERT_EQ(0, rc) TH_LOG("%s", msg);
	TH_LOG("%s", msg);
}

/* ------------------------------------------------------------------ */

#define KPROFCAT	"user/kprofcat"
#define SPIN		"tests/progs/spin"

/*
 * Run kprofcat with --stats --json and @args: its session's overflows are
 * its delivered samples plus the lost ones, all of which the reader got,
 * none filtered out.
 */
static void kprofcat_accounts(struct __test_metadata *_metadata,
			      const char *args)
{
	char out[65536], cmd[512];
	struct stats_json st;
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), KPROFCAT " -F 997 --stats --json %s", args);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	ASSERT_EQ(0, pclose(p)) TH_LOG("%s", out);
	ASSERT_EQ(0, stats_json_parse(out, &st)) TH_LOG("%s", out);
	ASSERT_LT(0, st.samples) TH_LOG("%s", out);
	EXPECT_EQ(st.overflows, st.samples + st.lost) TH_LOG("%s", out);
	EXPECT_EQ(st.samples, st.read) TH_LOG("%s", out);
	EXPECT_EQ(0, st.filtered) TH_LOG("%s", out);
	TH_LOG("%s: overflows %lld = samples %lld + lost %lld; reader %lld, filtered %lld",
	       args, st.overflows, st.samples, st.lost, st.read, st.filtered);
}

TEST_F_TIMEOUT(task, kprofcat_cmd_only, 60)
{
	KP_RETURN_IF_SKIPPED();
	kprofcat_accounts(_metadata, "-- " SPIN " 1");
}

static void *spin_forever(void *arg)
{
	(void)arg;
	for (;;)
		;
	return NULL;
}

TEST_F_TIMEOUT(task, kprofcat_pid, 60)
{
	char args[64];
	pthread_t th;
	pid_t pid;

	KP_RETURN_IF_SKIPPED();
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* Gone with the test, whatever ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pthread_create(&th, NULL, spin_forever, NULL))
			_exit(2);
		spin_forever(NULL);
	}
	snprintf(args, sizeof(args), "-p %d --duration 1", pid);
	kprofcat_accounts(_metadata, args);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* ------------------------------------------------------------------ */

FIXTURE(granted) {
	int loaded;
	pid_t root_proc;
};

FIXTURE_SETUP(granted)
{
	self->loaded = 0;
	self->root_proc = -1;
	if (getuid() != 0 || !getenv("KPROF_VM"))
		SKIP(return, "reloads kprof.ko: test-bed VM only");
	KP_LOAD_GRANTED(GRANT_GID);
	self->loaded = 1;
	self->root_proc = spinner();
	ASSERT_LT(0, self->root_proc) TH_LOG("fork: %s", strerror(errno));
}

FIXTURE_TEARDOWN(granted)
{
	if (self->root_proc > 0) {
		kill(self->root_proc, SIGKILL);
		waitpid(self->root_proc, NULL, 0);
	}
	if (!self->loaded)
		return;
	kp_rmmod();
	kp_insmod();
}

static pid_t victim;

/* errno of START with @pid as the target, 0 if it started (then stopped). */
static int start_err(int fd, pid_t pid)
{
	struct kprof_config cfg;
	int e = 0;

	target_cfg(&cfg, pid);
	if (kp_set_config(fd, &cfg))
		return -errno;
	if (kp_start(fd))
		e = errno;
	else
		kp_stop(fd);
	return e;
}

/* A spinner that made itself non-dumpable before its pid is returned. */
static pid_t undumpable_spinner(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (prctl(PR_SET_DUMPABLE, 0) || write(p[1], "d", 1) != 1)
			_exit(1);
		for (;;)
			;
	}
	close(p[1]);
	if (pid > 0 && read(p[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/*
 * As the member (uid 65534, the grant's group): its own process may be
 * sampled, root's may not.  After setuid() the member is not dumpable
 * (as after any change of credentials), which ptrace's rule would refuse
 * too: it makes itself dumpable again, as a process a user starts is.
 */
static int member_targets(char *msg, size_t len)
{
	pid_t own;
	int fd, e;

	CHILD_EXPECT(!prctl(PR_SET_DUMPABLE, 1), "PR_SET_DUMPABLE: %s",
		     strerror(errno));
	fd = kp_open();
	CHILD_EXPECT(fd >= 0, "open: %s", strerror(errno));
	own = spinner();
	CHILD_EXPECT(own > 0, "fork: %s", strerror(errno));
	e = start_err(fd, own);
	kill(own, SIGKILL);
	waitpid(own, NULL, 0);
	CHILD_EXPECT(!e, "START on its own process %d: %s", own, strerror(e));
	/* Its own, made non-dumpable: ptrace's dumpable rule refuses. */
	own = undumpable_spinner();
	CHILD_EXPECT(own > 0, "fork: %s", strerror(errno));
	e = start_err(fd, own);
	kill(own, SIGKILL);
	waitpid(own, NULL, 0);
	CHILD_EXPECT(e == EACCES, "START on its own non-dumpable process %d: %s",
		     own, e ? strerror(e) : "started");
	e = start_err(fd, victim);
	close(fd);
	CHILD_EXPECT(e == EACCES, "START on root's process %d: %s", victim,
		     e ? strerror(e) : "started");
	return 0;
}

TEST_F_TIMEOUT(granted, member_cannot_target_root, 60)
{
	gid_t grant = GRANT_GID;
	char msg[512];
	int fd;

	KP_RETURN_IF_SKIPPED();
	victim = self->root_proc;
	EXPECT_EQ(0, kp_as_nobody(&grant, 1, member_targets, msg, sizeof(msg)))
		TH_LOG("%s", msg);
	/* Root may: CAP_SYS_PTRACE. */
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	EXPECT_EQ(0, start_err(fd, self->root_proc));
	close(fd);
}

TEST_HARNESS_MAIN
