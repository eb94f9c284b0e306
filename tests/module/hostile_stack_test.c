// SPDX-License-Identifier: GPL-2.0
/*
 * User chains of a program whose frame pointers are hostile
 * (tests/progs/hostile_fp), sampled with both callchains on, as
 * `kprofcat -g` samples: a frame that points to itself, a frame pointer
 * into kernel space (directly, or saved in a frame), into an unmapped
 * page, misaligned, or pointing down the stack.  For every sample taken
 * in the program's spin loop the walk must have ended where the
 * kprof_user_chain() rules say, with KPROF_MISC_USER_FAULT exactly when
 * it could not read a frame, and the chain may hold only the loop's IP
 * and the return addresses the program wrote: nothing read from kernel
 * memory, nothing past the walk's end.
 */
#include "kprof_test.h"

#include <signal.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define HOSTILE_RET	0x00007f5a5a5a0000ULL	/* as in hostile_fp.c */
#define HS_CPU		1
#define HS_WANT		20	/* samples in the loop to check */

FIXTURE(hostile) {
	int fd;
	pid_t pid;
	struct kp_buffers b;
};

FIXTURE_VARIANT(hostile) {
	const char *mode;
	__u64 ret;		/* second user frame, 0: none */
	int fault;		/* KPROF_MISC_USER_FAULT expected */
};

FIXTURE_VARIANT_ADD(hostile, loop) { "loop", HOSTILE_RET + 1, 0 };
FIXTURE_VARIANT_ADD(hostile, kernel) { "kernel", 0, 1 };
FIXTURE_VARIANT_ADD(hostile, kernel_next) { "kernel_next", HOSTILE_RET + 2, 1 };
FIXTURE_VARIANT_ADD(hostile, unmapped) { "unmapped", 0, 1 };
FIXTURE_VARIANT_ADD(hostile, misaligned) { "misaligned", 0, 0 };
FIXTURE_VARIANT_ADD(hostile, down) { "down", HOSTILE_RET + 3, 0 };

/* A variant, for the sample checks below. */
typedef const FIXTURE_VARIANT(hostile) hostile_variant;

struct hs_check {
	hostile_variant *v;
	pid_t pid;
	__u64 start, end;
	unsigned long checked;
};

static int hs_on_sample(struct kp_buffers *b, struct kp_cpu *c,
			const struct kprof_sample *s)
{
	struct hs_check *h = b->arg;
	const __u64 *u = s->ips + s->nr_kernel;
	unsigned int want = h->v->ret ? 2 : 1;
	int fault = !!(s->header.misc & KPROF_MISC_USER_FAULT);

	(void)c;
	if ((pid_t)s->tid != h->pid || !(s->header.misc & KPROF_MISC_USER) ||
	    !s->nr_user || u[0] < h->start || u[0] >= h->end)
		return 0;
	h->checked++;
	if (s->nr_kernel)
		return kp_fail(b, "%s: user-mode sample with %u kernel frames",
			       h->v->mode, s->nr_kernel);
	if (s->nr_user != want)
		return kp_fail(b, "%s: %u user frames, want %u (second %#llx)",
			       h->v->mode, s->nr_user, want,
			       s->nr_user > 1 ? (unsigned long long)u[1] : 0ULL);
	if (want == 2 && u[1] != h->v->ret)
		return kp_fail(b, "%s: second user frame %#llx, the program wrote %#llx",
			       h->v->mode, (unsigned long long)u[1],
			       (unsigned long long)h->v->ret);
	if (fault != h->v->fault)
		return kp_fail(b, "%s: USER_FAULT %d, want %d", h->v->mode,
			       fault, h->v->fault);
	if (s->header.misc & KPROF_MISC_USER_TRUNC)
		return kp_fail(b, "%s: USER_TRUNC on a %u-frame chain",
			       h->v->mode, s->nr_user);
	return 0;
}

FIXTURE_SETUP(hostile)
{
	struct kprof_config cfg;

	self->pid = -1;
	memset(&self->b, 0, sizeof(self->b));
	KP_OPEN_OR_SKIP(self->fd);
	if (!kp_cpu_online(HS_CPU))
		SKIP(return, "needs CPU %d", HS_CPU);
	kp_cfg_init(&cfg, 1000);
	kp_cfg_add_cpu(&cfg, HS_CPU);
	cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
	cfg.kernel_stack = KPROF_MAX_STACK;
	cfg.user_stack = KPROF_MAX_STACK;
	ASSERT_EQ(0, kp_set_config(self->fd, &cfg)) TH_LOG("%s", strerror(errno));
	ASSERT_EQ(0, kp_map(&self->b, self->fd)) TH_LOG("%s", self->b.err);
}

FIXTURE_TEARDOWN(hostile)
{
	if (self->pid > 0) {
		kill(self->pid, SIGKILL);
		waitpid(self->pid, NULL, 0);
	}
	kp_close(self->fd, &self->b);
}

TEST_F(hostile, walk_ends_where_it_must)
{
	struct hs_check h = { .v = variant };
	char prog[4096], line[128];
	int pfd[2];
	double end;
	FILE *out;

	KP_RETURN_IF_SKIPPED();
	if (kp_prog_path(prog, sizeof(prog), "hostile_fp"))
		SKIP(return, "hostile_fp not built next to tests/module");
	ASSERT_EQ(0, pipe(pfd));
	self->pid = fork();
	ASSERT_LE(0, self->pid);
	if (!self->pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		kp_pin_self(HS_CPU);
		execl(prog, prog, variant->mode, (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	out = fdopen(pfd[0], "r");
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, fgets(line, sizeof(line), out))
		TH_LOG("hostile_fp %s printed nothing", variant->mode);
	fclose(out);
	ASSERT_EQ(2, sscanf(line, "%llx %llx", (unsigned long long *)&h.start,
			    (unsigned long long *)&h.end));
	h.pid = self->pid;
	self->b.on_sample = hs_on_sample;
	self->b.arg = &h;

	ASSERT_EQ(0, kp_start(self->fd)) TH_LOG("%s", strerror(errno));
	end = kp_now() + KP_PROGRESS_MS / 1000.0;
	while (h.checked < HS_WANT && kp_now() < end) {
		ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
		kp_sleep_ms(20);
	}
	ASSERT_EQ(0, kp_stop(self->fd));
	ASSERT_LE(0, kp_drain(&self->b)) TH_LOG("%s", self->b.err);
	ASSERT_LT(0, h.checked)
		TH_LOG("%s: no sample in the spin loop within %d ms", variant->mode,
		       KP_PROGRESS_MS);
	TH_LOG("%s: %lu samples in the loop checked", variant->mode, h.checked);
	EXPECT_EQ(0, kp_check_conserved_all(&self->b, 1)) TH_LOG("%s", self->b.err);
}

TEST_HARNESS_MAIN
