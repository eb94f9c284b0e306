// SPDX-License-Identifier: GPL-2.0
/*
 * Hostile input, as syzkaller would send it (tests/lib/kp_fuzz.c), two
 * ways:
 *  - random_sequences: two threads of one process on a few shared files,
 *    a file closed and reopened while the other thread may be inside an
 *    ioctl on it;
 *  - soak: several processes at once, as the users of a shared machine
 *    would be: two root fuzzers and one member of the group= grant (uid
 *    nobody), each forking children that work on the files they inherit
 *    and exec'ing programs that keep a kprof file open across the exec
 *    and read it; a process taking CPUs 2 and 3 offline and online; and
 *    one trying to rmmod kprof (refused while a file or mapping holds it,
 *    reloaded at once when it succeeds).
 *
 * Reproducible: every random choice comes from the seed, printed first
 * and with any failure; KPROF_FUZZ_SEED=N replays one (scheduling aside).
 * Bounded: KPROF_FUZZ_SECONDS (default 20) and KPROF_SOAK_SECONDS
 * (default 30) of operations, each of which returns (files are
 * O_NONBLOCK).  What must hold: no splat (the test bed fails the run on
 * one), no fault in these processes, no process left inside the kernel
 * past the end, and afterwards a clean session on a fresh file whose
 * counters add up (overflows == samples + lost by cause, every CPU).
 */
#include "kprof_test.h"
#include "kprof_throttle.h"
#include "kp_fuzz.h"

#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"

#define FZ_FILES	3
#define FZ_THREADS	2

static double fz_env_seconds(const char *name, double dflt)
{
	const char *s = getenv(name);

	return s ? atof(s) : dflt;
}

static unsigned long long fz_seed(void)
{
	const char *s = getenv("KPROF_FUZZ_SEED");
	unsigned long long seed;

	seed = s ? strtoull(s, NULL, 0) :
		   (unsigned long long)time(NULL) * 2654435761ULL;
	ksft_print_msg("fuzz seed %llu (KPROF_FUZZ_SEED=%llu to replay)\n",
		       seed, seed);
	fflush(stdout);
	return seed;
}

/* Whatever happened, a fresh file runs a clean, conserved session. */
static void fz_clean_session(struct __test_metadata *_metadata,
			     unsigned long long seed)
{
	struct kprof_throttle_config t = {
		.size = sizeof(t),
		.max_sample_rate = KPROF_THROTTLE_DEFAULT_MAX_SAMPLE_RATE,
		.cpu_time_max_percent = 25,
	};
	struct kprof_config cfg;
	struct kp_buffers b;
	int fd;

	memset(&b, 0, sizeof(b));
	fd = kp_open();
	ASSERT_LE(0, fd) TH_LOG("seed %llu: open after: %s", seed,
				strerror(errno));
	/*
	 * The run may have left a delay, the controller off, or a max rate
	 * below this session's (a fuzzer's knobs, or kprof's controller
	 * lowering it): SET_CONFIG refuses a frequency above it.
	 */
	ASSERT_EQ(0, ioctl(fd, KPROF_IOC_SET_THROTTLE, &t))
		TH_LOG("seed %llu: SET_THROTTLE after: %s", seed,
		       strerror(errno));
	kp_cfg_init(&cfg, 500);
	ASSERT_EQ(0, kp_set_config(fd, &cfg))
		TH_LOG("seed %llu: SET_CONFIG after: %s", seed, strerror(errno));
	ASSERT_EQ(0, kp_map(&b, fd)) TH_LOG("seed %llu: %s", seed, b.err);
	ASSERT_EQ(0, kp_start(fd)) TH_LOG("seed %llu: START after: %s", seed,
					  strerror(errno));
	kp_sleep_ms(200);
	ASSERT_EQ(0, kp_stop(fd));
	EXPECT_LE(0, kp_drain(&b)) TH_LOG("seed %llu: %s", seed, b.err);
	EXPECT_EQ(0, kp_check_conserved_all(&b, 1)) TH_LOG("seed %llu: %s",
							   seed, b.err);
	kp_close(fd, &b);
}

static int fz_fds[FZ_FILES];
static volatile int fz_stop;

static void *fz_worker(void *arg)
{
	struct kp_fuzz *z = arg;

	while (!fz_stop)
		kp_fuzz_step(z);
	return NULL;
}

TEST(random_sequences)
{
	static struct kp_fuzz th[FZ_THREADS];
	static pthread_t tid[FZ_THREADS];
	unsigned long long seed;
	double end;
	int i, fd;

	KP_OPEN_OR_SKIP(fd);
	close(fd);
	seed = fz_seed();
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < FZ_FILES; i++) {
		fz_fds[i] = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		ASSERT_LE(0, fz_fds[i]) TH_LOG("seed %llu: open: %s", seed,
					       strerror(errno));
	}
	for (i = 0; i < FZ_THREADS; i++) {
		ASSERT_EQ(0, kp_fuzz_init(&th[i], seed * (i + 1) + 0x9E3779B97F4A7C15ULL,
					  fz_fds, FZ_FILES));
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, fz_worker, &th[i]));
	}
	end = kp_now() + fz_env_seconds("KPROF_FUZZ_SECONDS", 20);
	while (kp_now() < end)
		kp_sleep_ms(100);
	fz_stop = 1;
	for (i = 0; i < FZ_THREADS; i++) {
		pthread_join(tid[i], NULL);
		ksft_print_msg("thread %d: %lu operations, %lu ioctls accepted, %lu mappings, %lu reads\n",
			       i, th[i].ops, th[i].ioctls_ok, th[i].mapped,
			       th[i].reads);
		kp_fuzz_fini(&th[i]);
	}
	fflush(stdout);
	for (i = 0; i < FZ_FILES; i++)
		close(fz_fds[i]);
	fz_clean_session(_metadata, seed);
}

/* The soak. */
#define SOAK_GID	4242
#define SOAK_HP_CPU	2	/* CPUs 2 and 3 go off and on */
#define SOAK_HP_CPUS	2
/* A forked or exec'd child's share of operations before it exits. */
#define SOAK_CHILD_OPS	32
/* How long the rmmod role keeps the fuzzers away from kprof at most. */
#define SOAK_QUIET_MS	3000

enum soak_role {
	SOAK_ROOT_A, SOAK_ROOT_B, SOAK_MEMBER, SOAK_HOTPLUG, SOAK_RMMOD,
	SOAK_ROLES
};

static const char *const soak_role_name[SOAK_ROLES] = {
	"root fuzzer A", "root fuzzer B", "member fuzzer (nobody, group=)",
	"CPU hotplug", "rmmod",
};

/* Each role's tally, in memory shared with the test. */
struct soak_report {
	unsigned long ops, forks, execs, toggles, rmmods, refused;
	char msg[256];		/* what went wrong, when the role fails */
};

/* Shared by the test and every role, through fork. */
struct soak_shared {
	int quiet;		/* the rmmod role asks the fuzzers to let go */
	struct soak_report rep[SOAK_ROLES];
};

static struct soak_shared *soak;
static unsigned long long soak_seed;
static double soak_end;

/* A child that died of a signal is a fault in a fuzzer: the role fails. */
static int soak_reap(pid_t pid, struct soak_report *r, const char *what)
{
	int status;

	if (waitpid(pid, &status, 0) != pid) {
		snprintf(r->msg, sizeof(r->msg), "waitpid(%s): %s", what,
			 strerror(errno));
		return -1;
	}
	if (WIFSIGNALED(status)) {
		snprintf(r->msg, sizeof(r->msg), "%s child died of signal %d",
			 what, WTERMSIG(status));
		return -1;
	}
	if (WEXITSTATUS(status) == 127) {
		snprintf(r->msg, sizeof(r->msg), "%s child: exec /bin/sh failed",
			 what);
		return -1;
	}
	return 0;
}

/*
 * A child shares the files (its mappings are not inherited: kprof maps
 * VM_DONTCOPY) and works on them while the parent goes on with its own.
 */
static int soak_fork(struct kp_fuzz *z, struct soak_report *r)
{
	unsigned int i;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 0;		/* out of processes: not kprof's */
	if (!pid) {
		z->rng ^= (__u64)getpid() << 32;
		for (i = 0; i < SOAK_CHILD_OPS; i++)
			kp_fuzz_step(z);
		_exit(0);
	}
	for (i = 0; i < SOAK_CHILD_OPS / 4; i++)
		kp_fuzz_step(z);
	r->forks++;
	return soak_reap(pid, r, "forked");
}

/*
 * A child opens a file without O_CLOEXEC, works on it alone (exec closes
 * the files it inherited and drops its mappings), and execs a shell that
 * reads it as fd 3 and exits: the file outlives the image that opened it
 * and is released by the exit of another.
 */
static int soak_exec(struct kp_fuzz *z, struct soak_report *r)
{
	unsigned int i;
	int fds[1];
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 0;
	if (!pid) {
		fds[0] = open(KP_DEV, O_RDWR | O_NONBLOCK);
		if (fds[0] < 0)
			_exit(0);	/* rmmod'ed meanwhile */
		z->fds = fds;
		z->nr_fds = 1;
		z->rng ^= (__u64)getpid() << 32;
		for (i = 0; i < SOAK_CHILD_OPS / 4; i++)
			kp_fuzz_step(z);
		/* A reopen may have replaced it with an O_CLOEXEC one. */
		if (fds[0] != 3 && dup2(fds[0], 3) < 0)
			_exit(0);
		if (fcntl(3, F_SETFD, 0))
			_exit(0);
		execl("/bin/sh", "sh", "-c",
		      "exec 2>/dev/null; head -c 65536 <&3 >/dev/null; exit 0",
		      (char *)NULL);
		_exit(127);
	}
	r->execs++;
	return soak_reap(pid, r, "exec'd");
}

static int soak_is_quiet(void)
{
	return __atomic_load_n(&soak->quiet, __ATOMIC_ACQUIRE);
}

/*
 * While the rmmod role asks for quiet, hold no file: only opens that are
 * closed at once, racing the rmmod and the insmod after it.  Then open
 * the files again (or fail to, with kprof gone: the operations get EBADF).
 */
static void soak_let_go(int *fds)
{
	unsigned int i;
	int fd;

	for (i = 0; i < FZ_FILES; i++) {
		close(fds[i]);
		fds[i] = -1;
	}
	while (soak_is_quiet() && kp_now() < soak_end) {
		fd = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
		kp_sleep_ms(2);
	}
	for (i = 0; i < FZ_FILES; i++)
		fds[i] = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

/* Fuzz until the end, one operation in 64 a fork, one an exec. */
static int soak_fuzz(struct soak_report *r, __u64 seed)
{
	int fds[FZ_FILES], ret = 0;
	struct kp_fuzz z;
	unsigned int i;

	for (i = 0; i < FZ_FILES; i++)
		fds[i] = open(KP_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (kp_fuzz_init(&z, seed, fds, FZ_FILES)) {
		snprintf(r->msg, sizeof(r->msg), "kp_fuzz_init: %s",
			 strerror(errno));
		return 1;
	}
	while (!ret && kp_now() < soak_end) {
		if (soak_is_quiet()) {
			soak_let_go(fds);
			continue;
		}
		switch (kp_fuzz_below(&z, 64)) {
		case 0:
			ret = soak_fork(&z, r);
			break;
		case 1:
			ret = soak_exec(&z, r);
			break;
		default:
			kp_fuzz_step(&z);
			break;
		}
	}
	r->ops = z.ops;
	kp_fuzz_fini(&z);
	for (i = 0; i < FZ_FILES; i++)
		close(fds[i]);
	return ret ? 1 : 0;
}

/* kp_as_nobody()'s child: the member fuzzer. */
static int soak_member(char *msg, size_t len)
{
	struct soak_report *r = &soak->rep[SOAK_MEMBER];
	int ret = soak_fuzz(r, soak_seed * 3 + 1);

	snprintf(msg, len, "%s", r->msg);
	return ret;
}

static int soak_hotplug(struct soak_report *r, __u64 seed)
{
	struct kp_fuzz z = { .rng = seed | 1 };
	unsigned int cpu, i;
	int on;

	while (kp_now() < soak_end) {
		cpu = SOAK_HP_CPU + kp_fuzz_below(&z, SOAK_HP_CPUS);
		on = !kp_cpu_online(cpu);
		if (kp_cpu_set_online(cpu, on)) {
			snprintf(r->msg, sizeof(r->msg), "CPU %u %s: %s", cpu,
				 on ? "online" : "offline", strerror(errno));
			break;
		}
		r->toggles++;
		kp_sleep_ms(kp_fuzz_below(&z, 50));
	}
	for (i = 0; i < SOAK_HP_CPUS; i++)
		if (!kp_cpu_online(SOAK_HP_CPU + i) &&
		    kp_cpu_set_online(SOAK_HP_CPU + i, 1) && !r->msg[0])
			snprintf(r->msg, sizeof(r->msg), "CPU %u back online: %s",
				 SOAK_HP_CPU + i, strerror(errno));
	return r->msg[0] ? 1 : 0;
}

/*
 * One rmmod attempt: refused (EWOULDBLOCK, without waiting) while any
 * file or mapping holds the module; when nothing does, it succeeds and
 * the module is loaded again at once with the soak's grant.  1 when it
 * was unloaded and loaded, 0 when refused, -1 on any other outcome.
 */
static int soak_rmmod_once(struct soak_report *r)
{
	char params[32];

	if (kp_rmmod()) {
		if (errno != EWOULDBLOCK && errno != EBUSY) {
			snprintf(r->msg, sizeof(r->msg), "rmmod kprof: %s",
				 strerror(errno));
			return -1;
		}
		r->refused++;
		return 0;
	}
	r->rmmods++;
	snprintf(params, sizeof(params), "group=%d", SOAK_GID);
	if (kp_insmod_params(params)) {
		snprintf(r->msg, sizeof(r->msg), "insmod %s %s after rmmod: %s",
			 kp_ko_path(), params, strerror(errno));
		return -1;
	}
	return 1;
}

/*
 * Attempts now and then, refused while the fuzzers work; one time in
 * eight a quiet window (up to SOAK_QUIET_MS) in which the fuzzers hold no
 * file and attempts follow each other until one gets through.
 */
static int soak_rmmod(struct soak_report *r, __u64 seed)
{
	struct kp_fuzz z = { .rng = seed | 1 };
	double until;
	int ret = 0;

	while (ret >= 0 && kp_now() < soak_end) {
		if (kp_fuzz_below(&z, 8)) {
			ret = soak_rmmod_once(r);
			kp_sleep_ms(kp_fuzz_below(&z, 100));
			continue;
		}
		__atomic_store_n(&soak->quiet, 1, __ATOMIC_RELEASE);
		until = kp_now() + SOAK_QUIET_MS / 1000.0;
		do {
			ret = soak_rmmod_once(r);
			kp_sleep_ms(1);
		} while (!ret && kp_now() < until);
		__atomic_store_n(&soak->quiet, 0, __ATOMIC_RELEASE);
	}
	return ret < 0 ? 1 : 0;
}

static int soak_run_role(enum soak_role role)
{
	struct soak_report *r = &soak->rep[role];
	gid_t gid = SOAK_GID;
	__u64 seed = soak_seed * (role + 1) + 0x9E3779B97F4A7C15ULL;

	switch (role) {
	case SOAK_ROOT_A:
	case SOAK_ROOT_B:
		return soak_fuzz(r, seed);
	case SOAK_MEMBER:
		return kp_as_nobody(&gid, 1, soak_member, r->msg,
				    sizeof(r->msg)) ? 1 : 0;
	case SOAK_HOTPLUG:
		return soak_hotplug(r, seed);
	default:
		return soak_rmmod(r, seed);
	}
}

FIXTURE(soak) {
	int loaded;
};

FIXTURE_SETUP(soak)
{
	unsigned int i;

	self->loaded = 0;
	if (getuid() != 0 || !getenv("KPROF_VM"))
		SKIP(return, "reloads kprof.ko, hotplugs CPUs: test-bed VM only");
	for (i = 0; i < SOAK_HP_CPU + SOAK_HP_CPUS; i++) {
		char path[64];

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/online", i);
		if (!kp_cpu_online(i) || (i >= SOAK_HP_CPU && access(path, W_OK)))
			SKIP(return, "needs CPUs 0-3 online, 2 and 3 hotpluggable (tests/vm/run --cpus 4)");
	}
	KP_LOAD_GRANTED(SOAK_GID);
	self->loaded = 1;
	soak = mmap(NULL, sizeof(*soak), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, soak);
	memset(soak, 0, sizeof(*soak));
}

FIXTURE_TEARDOWN(soak)
{
	unsigned int i;

	for (i = 0; i < SOAK_HP_CPUS; i++)
		if (!kp_cpu_online(SOAK_HP_CPU + i))
			kp_cpu_set_online(SOAK_HP_CPU + i, 1);
	if (!self->loaded)
		return;
	if (kp_module_loaded())
		kp_rmmod();
	kp_insmod();
}

/*
 * Wait for a role that should be ending: each operation returns, so a
 * role still running KP_PROGRESS_MS after the end is stuck in the kernel;
 * its kernel stack is logged and its process group killed.
 */
static int soak_wait(struct __test_metadata *_metadata, pid_t pid,
		     enum soak_role role)
{
	double give_up = soak_end + KP_PROGRESS_MS / 1000.0;
	char path[64], stack[1024];
	int status, fd;
	ssize_t n;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (kp_now() < give_up) {
			kp_sleep_ms(50);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/stack", pid);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? 0 : read(fd, stack, sizeof(stack) - 1);
		stack[n > 0 ? n : 0] = '\0';
		if (fd >= 0)
			close(fd);
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		TH_LOG("%s still running %d ms after the end; kernel stack:\n%s",
		       soak_role_name[role], KP_PROGRESS_MS, stack);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		TH_LOG("%s failed (status 0x%x): %s", soak_role_name[role],
		       status, soak->rep[role].msg);
		return -1;
	}
	return 0;
}

TEST_F_TIMEOUT(soak, processes, 600)
{
	pid_t pid[SOAK_ROLES];
	int role, failed = 0;

	KP_RETURN_IF_SKIPPED();
	soak_seed = fz_seed();
	soak_end = kp_now() + fz_env_seconds("KPROF_SOAK_SECONDS", 30);
	signal(SIGPIPE, SIG_IGN);
	for (role = 0; role < SOAK_ROLES; role++) {
		pid[role] = fork();
		ASSERT_LE(0, pid[role]) TH_LOG("fork: %s", strerror(errno));
		if (!pid[role]) {
			setpgid(0, 0);	/* killed as a group if it hangs */
			_exit(soak_run_role(role));
		}
	}
	for (role = 0; role < SOAK_ROLES; role++) {
		const struct soak_report *r = &soak->rep[role];

		failed |= soak_wait(_metadata, pid[role], role);
		if (role == SOAK_HOTPLUG)
			ksft_print_msg("%s: %lu CPU toggles\n",
				       soak_role_name[role], r->toggles);
		else if (role == SOAK_RMMOD)
			ksft_print_msg("%s: %lu unloads and loads, %lu refused\n",
				       soak_role_name[role], r->rmmods,
				       r->refused);
		else
			ksft_print_msg("%s: %lu operations, %lu forks, %lu execs\n",
				       soak_role_name[role], r->ops, r->forks,
				       r->execs);
	}
	fflush(stdout);
	ASSERT_EQ(0, failed) TH_LOG("seed %llu", soak_seed);
	ASSERT_TRUE(kp_module_loaded());
	fz_clean_session(_metadata, soak_seed);
}

TEST_HARNESS_MAIN
