// SPDX-License-Identifier: GPL-2.0
/*
 * DWARF call chain capture (KPROF_CFG_CALLCHAIN_DWARF), in the test-bed
 * VM.  The refusals of bad user_stack_size requests are config_test's.
 *
 * - records: cpu-clock at 1 kHz on CPUs 0 and 1 while tests/progs/stackpat
 *   (no frame pointers) spins on CPU 0 below a known pattern on its
 *   stack, CPU 1 mostly idle.  Every SAMPLE carries the tail, its size
 *   adding up; size <= the request, dyn_size <= size, the bytes past
 *   dyn_size zero; stackpat's user-mode samples have ABI_64 registers
 *   whose IP is the sample's, and those in the spin (stack_leaf) a stack
 *   copy that holds the pattern where stackpat says it lies (pattern -
 *   SP) in each of its bytes; the idle task's samples
 *   (a kernel thread) have abi NONE and no stack.
 * - records_testpmu: the same on the PMU stand-in (tests/testpmu/), every
 *   sample taken in NMI context, where a kernel-mode sample's BX and
 *   R12-R15 read as ~0, perf's rule.
 * - small_ring: 65528 bytes asked of a 16 KiB ring: each copy is clamped
 *   to the room left, no record is larger than the ring, and samples
 *   still arrive, every overflow accounted for.
 * - kprofcat: `kprofcat --call-graph dwarf -- stackpat 3`: of stackpat's
 *   samples with a user chain in the program (not only in the dynamic
 *   loader, before main), at least 95% reach its entry (main,
 *   __libc_start_call_main or _start), which a frame-pointer walk of code
 *   without frame pointers does not give; the same of Debian's own perl
 *   running a loop (a distribution's binary, no frame pointers).
 */
#include "kprof_test.h"
#include "testpmu.h"

#include <limits.h>
#include <signal.h>

#include "kselftest_harness.h"

#define RUN_SECONDS	3
#define FREQ		1000
#define KPROFCAT	"user/kprofcat"
#define PERL		"/usr/bin/perl"

struct tally {
	pid_t pid;
	__u64 want_size;		/* user_stack_size asked for */
	__u64 pattern, words;		/* from stackpat's stdout */
	__u64 leaf_lo, leaf_hi;		/* stack_leaf's code, the spin */

	__u64 samples, no_tail, size_above, dyn_above, not_zeroed;
	__u64 max_size, max_record, data_size;
	__u64 target, target_no_regs, target_user, ip_bad, target_copied;
	__u64 leaf, pattern_ok, pattern_bad, pattern_short;
	__u64 idle, idle_regs;
	__u64 nmi, nmi_partial_bad;	/* NMI kernel-mode regs not perf's */
};

static int on_sample(struct kp_buffers *b, struct kp_cpu *c,
		     const struct kprof_sample *s)
{
	struct tally *t = b->arg;
	struct kp_stack_user u;
	__u64 i, off;

	(void)c;
	t->samples++;
	if (s->header.misc & KPROF_MISC_NMI)
		t->nmi++;
	if (s->header.size > t->max_record)
		t->max_record = s->header.size;
	if (!(s->header.misc & KPROF_MISC_STACK_USER) || kp_sample_tail(s, &u)) {
		t->no_tail++;
		return 0;
	}
	if (u.size > t->want_size)
		t->size_above++;
	if (u.size > t->max_size)
		t->max_size = u.size;
	if (u.dyn_size > u.size)
		t->dyn_above++;
	for (i = u.dyn_size; i < u.size; i++)
		if (u.data[i]) {
			t->not_zeroed++;
			break;
		}
	/* The idle task: a kernel thread, no user context. */
	if (s->pid == 0) {
		t->idle++;
		if (u.abi != KPROF_SAMPLE_REGS_ABI_NONE || u.size)
			t->idle_regs++;
		return 0;
	}
	if ((pid_t)s->tid != t->pid)
		return 0;
	t->target++;
	/*
	 * In kernel mode, an exiting task has no mm left: no regs then; in
	 * NMI, perf's rule: BX and R12-R15 are ~0 (BX is regs[1], R12 the
	 * 17th register).
	 */
	if (!(s->header.misc & KPROF_MISC_USER)) {
		if (u.regs && (s->header.misc & KPROF_MISC_NMI) &&
		    (u.regs[1] != ~0ULL || u.regs[16] != ~0ULL))
			t->nmi_partial_bad++;
		return 0;
	}
	t->target_user++;
	if (u.abi != KPROF_SAMPLE_REGS_ABI_64) {
		t->target_no_regs++;
		return 0;
	}
	if (u.regs[KPROF_REG_X86_IP] != s->ip)
		t->ip_bad++;
	if (u.dyn_size)
		t->target_copied++;
	/*
	 * The pattern is whole while stack_leaf spins below it (stackpat
	 * printed it first, and records are read after that line).
	 */
	if (!t->pattern || s->ip < t->leaf_lo || s->ip >= t->leaf_hi)
		return 0;
	t->leaf++;
	off = t->pattern - u.regs[KPROF_REG_X86_SP];
	if (t->pattern < u.regs[KPROF_REG_X86_SP] ||
	    off + 8 * t->words > u.dyn_size) {
		t->pattern_short++;
		return 0;
	}
	for (i = 0; i < t->words; i++) {
		__u64 w;

		memcpy(&w, u.data + off + 8 * i, 8);
		if (w != (0x6b70726f66000000ULL | i)) {
			t->pattern_bad++;
			return 0;
		}
	}
	t->pattern_ok++;
	return 0;
}

/* stackpat on CPU 0, its stdout into *@out_fd. */
static pid_t spawn(const char *path, int *out_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char secs[8];
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(126);
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		snprintf(secs, sizeof(secs), "%d", RUN_SECONDS);
		execl(path, path, secs, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	*out_fd = p[0];
	return pid;
}

/* stackpat's "pattern 0xADDR WORDS leaf 0xLO 0xHI" once it is there; 0 if not yet. */
static int read_pattern(int fd, char *buf, size_t len, size_t *have,
			struct tally *t)
{
	ssize_t n;

	if (t->pattern)
		return 0;
	n = read(fd, buf + *have, len - 1 - *have);
	if (n > 0)
		*have += n;
	buf[*have] = '\0';
	if (!strchr(buf, '\n'))
		return 0;
	if (sscanf(buf, "pattern %llx %llu leaf %llx %llx", &t->pattern,
		   &t->words, &t->leaf_lo, &t->leaf_hi) != 4 || !t->words ||
	    t->leaf_hi <= t->leaf_lo)
		return -1;
	return 0;
}

FIXTURE(dwarf) {
	int fd, out_fd;
	struct kp_buffers b;
	struct tally t;
	char prog[PATH_MAX];
};

FIXTURE_VARIANT(dwarf) {
	__u32 user_stack_size;
	__u32 buffer_pages;
	int testpmu;		/* on the PMU stand-in (NMI), not cpu-clock */
};

FIXTURE_VARIANT_ADD(dwarf, records) {
	.user_stack_size = 8192,
	.buffer_pages = 64,
};

FIXTURE_VARIANT_ADD(dwarf, records_testpmu) {
	.user_stack_size = 8192,
	.buffer_pages = 64,
	.testpmu = 1,
};

FIXTURE_VARIANT_ADD(dwarf, small_ring) {
	.user_stack_size = KPROF_MAX_USER_STACK_SIZE,
	.buffer_pages = 4,
};

FIXTURE_SETUP(dwarf)
{
	struct kprof_config cfg, now;
	int rc;

	self->out_fd = -1;
	KP_OPEN_OR_SKIP(self->fd);
	if (!kp_cpu_online(0) || !kp_cpu_online(1))
		SKIP(return, "needs CPUs 0 and 1 online");
	if (kp_prog_path(self->prog, sizeof(self->prog), "stackpat"))
		SKIP(return, "stackpat not built next to tests/module");
	rc = tp_freq_cfg_init(&cfg, variant->testpmu, FREQ);
	if (rc > 0)
		SKIP(return, "no %s (load it: tests/vm/run --testpmu)", TP_SYSFS);
	ASSERT_EQ(0, rc) TH_LOG("relaxing the limits: %s", strerror(errno));
	kp_cfg_add_cpu(&cfg, 0);
	kp_cfg_add_cpu(&cfg, 1);
	cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_DWARF;
	cfg.kernel_stack = KPROF_MAX_STACK;
	cfg.user_stack_size = variant->user_stack_size;
	cfg.buffer_pages = variant->buffer_pages;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("SET_CONFIG: %s",
							   strerror(errno));
	/* The request reads back as given. */
	memset(&now, 0, sizeof(now));
	now.size = sizeof(now);
	ASSERT_EQ(0, ioctl(self->fd, KPROF_IOC_GET_CONFIG, &now));
	ASSERT_EQ(variant->user_stack_size, now.user_stack_size);
	ASSERT_EQ(cfg.flags, now.flags);
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
	self->t.want_size = variant->user_stack_size;
	self->t.data_size = self->b.data_size;
	self->b.on_sample = on_sample;
	self->b.arg = &self->t;
}

FIXTURE_TEARDOWN(dwarf)
{
	if (self->t.pid > 0) {
		kill(self->t.pid, SIGKILL);
		waitpid(self->t.pid, NULL, 0);
	}
	if (self->out_fd >= 0)
		close(self->out_fd);
	if (self->fd >= 0) {
		kp_stop(self->fd);
		kp_unmap(&self->b);
		close(self->fd);
	}
	if (variant->testpmu)
		tp_reset_sysctls();
}

TEST_F_TIMEOUT(dwarf, capture, 90)
{
	struct tally *t = &self->t;
	char line[128];
	size_t have = 0;
	int status;

	KP_RETURN_IF_SKIPPED();
	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("START: %s", strerror(errno));
	t->pid = spawn(self->prog, &self->out_fd);
	ASSERT_LT(0, t->pid);
	ASSERT_EQ(0, fcntl(self->out_fd, F_SETFL, O_NONBLOCK));
	for (;;) {
		pid_t done = waitpid(t->pid, &status, WNOHANG);

		ASSERT_EQ(0, read_pattern(self->out_fd, line, sizeof(line), &have, t))
			TH_LOG("stackpat printed '%s'", line);
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
		if (done == t->pid)
			break;
		ASSERT_EQ(0, done);
		kp_sleep_ms(20);
	}
	t->pid = 0;
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_EQ(0, kp_stop(self->fd)) TH_LOG("STOP: %s", strerror(errno));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);

	TH_LOG("%llu samples (largest record %llu, largest copy %llu of %llu asked); stackpat %llu (%llu user, %llu with stack bytes, %llu in stack_leaf; pattern %llu found, %llu wrong, %llu not copied whole; %llu without regs, %llu IP mismatches); idle %llu (%llu with regs)",
	       t->samples, t->max_record, t->max_size, t->want_size,
	       t->target, t->target_user, t->target_copied, t->leaf, t->pattern_ok,
	       t->pattern_bad, t->pattern_short, t->target_no_regs, t->ip_bad,
	       t->idle, t->idle_regs);
	ASSERT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
	ASSERT_NE(0ULL, t->pattern) TH_LOG("stackpat never printed its pattern");

	/* Every sample has the tail, within the rules of kprof.h. */
	EXPECT_EQ(0ULL, t->no_tail);
	EXPECT_EQ(0ULL, t->size_above);
	EXPECT_EQ(0ULL, t->dyn_above);
	EXPECT_EQ(0ULL, t->not_zeroed);
	EXPECT_GE(t->data_size, t->max_record);
	/* The stand-in overflows in NMI, the clock never. */
	EXPECT_EQ(variant->testpmu ? t->samples : 0, t->nmi);
	EXPECT_EQ(0ULL, t->nmi_partial_bad);
	/* The idle task: no user registers, no stack. */
	EXPECT_LT(0ULL, t->idle);
	EXPECT_EQ(0ULL, t->idle_regs);
	/* Fewer and the ratios below say nothing: fail, do not pass. */
	ASSERT_LE(100ULL, t->target_user);
	EXPECT_EQ(0ULL, t->target_no_regs);
	EXPECT_EQ(0ULL, t->ip_bad);
	EXPECT_EQ(0ULL, t->pattern_bad);
	if (t->want_size <= 8192) {
		/* The pattern lies within 8 KiB of stack_leaf's SP. */
		ASSERT_LE(100ULL, t->leaf);
		EXPECT_EQ(t->leaf, t->pattern_ok);
	} else {
		/* Clamped to the room: never the 65528 asked, some bytes still. */
		EXPECT_GT(t->want_size, t->max_size);
		EXPECT_LT(0ULL, t->target_copied);
	}
}

/* What a sample's user frames (script text) say. */
struct chain {
	int user;		/* frames outside the kernel */
	int loader;		/* the outermost of them is the dynamic loader's */
	int entry;		/* a frame of main, __libc_start_call_main, _start */
};

/* One frame line, "\t ADDR SYM+OFF (DSO)", into C. */
static void chain_frame(struct chain *c, const char *line)
{
	static const char *const entries[] = {
		"main", "__libc_start_call_main", "_start",
	};
	const char *dso = strrchr(line, '(');
	char sym[256];
	unsigned int i;

	if (!dso || strstr(dso, "[kernel.kallsyms]"))
		return;
	c->user++;
	c->loader = !!strstr(dso, "/ld-linux");
	if (sscanf(line, " %*s %255[^+ ]", sym) != 1)
		return;
	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(sym, entries[i]))
			c->entry = 1;
}

/*
 * The samples of COMM in perf script TEXT, those that have a user chain
 * in the program, and those of them whose chain reaches its entry.  A
 * chain whose outermost frame is the dynamic loader's (a sample before it
 * hands over to the program, in the loader or in what it calls, such as
 * libc's __libc_early_init) has no main to reach, and Debian's loader has
 * no symbol for its own entry; a sample without user frames (an exiting
 * task's, after its mm is gone) has no chain.
 */
static void script_entries(char *text, const char *comm, unsigned long *total,
			   unsigned long *all, unsigned long *entry)
{
	size_t clen = strlen(comm);
	struct chain c = { 0 };
	int in = 0;
	char *line, *nl;

	*total = 0;
	*all = 0;
	*entry = 0;
	for (line = text; line && *line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (line[0] == '\t' || line[0] == ' ') {
			if (in)
				chain_frame(&c, line);
			continue;
		}
		if (in && c.user && !c.loader) {
			(*all)++;
			*entry += c.entry;
		}
		memset(&c, 0, sizeof(c));
		in = !strncmp(line, comm, clen) && line[clen] == ' ';
		*total += in;
	}
	if (in && c.user && !c.loader) {
		(*all)++;
		*entry += c.entry;
	}
}

/*
 * The output of kprofcat CMD (perf script text) in *OUT (caller frees), or
 * -1 when it failed (status in *STATUS).
 */
static int kprofcat_text(const char *cmd, char **out, int *status)
{
	size_t len = 0, n;
	FILE *p = popen(cmd, "r");

	*out = NULL;
	if (!p)
		return -1;
	for (;;) {
		char *grown = realloc(*out, len + 65536);

		if (!grown) {
			pclose(p);
			return -1;
		}
		*out = grown;
		n = fread(*out + len, 1, 65535, p);
		len += n;
		if (!n)
			break;
	}
	(*out)[len] = '\0';
	*status = pclose(p);
	return WIFEXITED(*status) && WEXITSTATUS(*status) == 0 ? 0 : -1;
}

/*
 * `kprofcat --call-graph dwarf -- PROG ARGS` (at most RUN_SECONDS of
 * work): at least 95% of COMM's samples with a user chain in the program
 * reach its entry, and there are 100 of them at least (1 kHz for seconds,
 * with no lowering of the rate).
 */
static void reaches_the_entry(struct __test_metadata *_metadata, const char *prog,
			      const char *args, const char *comm)
{
	char cmd[2 * PATH_MAX];
	unsigned long total, all, entry;
	int status = 0, fd, ret;
	char *out;

	fd = kp_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, kp_no_lowering(fd)) TH_LOG("SET_THROTTLE: %s", strerror(errno));
	/*
	 * 4 MiB buffers: a copy is cut to the room left, and a cut stack
	 * ends its chain early; the reader, slowed with the kernel, must not
	 * make room scarce.
	 */
	snprintf(cmd, sizeof(cmd),
		 KPROFCAT " -q -e cpu-clock -F 997 -m 1024 --call-graph dwarf -- %s %s 2>/dev/null",
		 prog, args);
	ret = kprofcat_text(cmd, &out, &status);
	EXPECT_EQ(0, kp_default_limits(fd));
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("%s: status %#x", cmd, status);
	script_entries(out, comm, &total, &all, &entry);
	TH_LOG("%s: %lu samples, %lu with a user chain in the program, %lu of them reaching main, __libc_start_call_main or _start",
	       comm, total, all, entry);
	free(out);
	ASSERT_LE(100UL, all);
	EXPECT_GE(entry * 100, all * 95);
}

TEST(kprofcat_reaches_the_entry)
{
	char prog[PATH_MAX], args[16];

	if (access(KP_DEV, F_OK))
		SKIP(return, "no %s (kprof.ko not loaded)", KP_DEV);
	if (kp_prog_path(prog, sizeof(prog), "stackpat"))
		SKIP(return, "stackpat not built next to tests/module");
	snprintf(args, sizeof(args), "%d", RUN_SECONDS);
	reaches_the_entry(_metadata, prog, args, "stackpat");
}

/*
 * Debian's own perl (tests/vm/run puts the host's in the guest), built
 * without frame pointers: its -e loop runs RUN_SECONDS.
 */
TEST(kprofcat_reaches_perls_entry)
{
	char args[128];

	if (access(KP_DEV, F_OK))
		SKIP(return, "no %s (kprof.ko not loaded)", KP_DEV);
	if (access(PERL, X_OK))
		SKIP(return, "no %s in this system", PERL);
	snprintf(args, sizeof(args),
		 "-e 'my ($s, $t) = (0, time + %d); while (time < $t) { $s += sqrt($_) for 1 .. 1000 }'",
		 RUN_SECONDS);
	reaches_the_entry(_metadata, PERL, args, "perl");
}

TEST_HARNESS_MAIN
