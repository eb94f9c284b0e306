// SPDX-License-Identifier: GPL-2.0
/*
 * convert_perf.c - a capture as a perf.data file (format:
 * tools/perf/Documentation/perf.data-file-format.txt), for perf report and
 * perf script.
 *
 * Layout: the file header, one attr (the capture's event; sample_type
 * IP|TID|TIME|CPU|PERIOD|CALLCHAIN, and REGS_USER|STACK_USER when a sample
 * of the capture has a user stack snapshot; sample_id_all, so every other
 * record ends with pid/tid, time and CPU), the data section, then the feature
 * sections BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CMDLINE
 * and EVENT_DESC.  perf sorts records by time (its ordered events), so the
 * process history is written first and the samples after it.
 *
 * What each kprof record becomes:
 *	SAMPLE		PERF_RECORD_SAMPLE: callchain PERF_CONTEXT_KERNEL,
 *			kernel chain, PERF_CONTEXT_USER, user chain, as perf
 *			records it; a sample without chains gets its IP as
 *			the one frame.  A sample with a user stack snapshot
 *			(DWARF call chains) is written as perf --call-graph
 *			dwarf records it: the kernel chain alone, then
 *			PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER,
 *			from which perf script unwinds the user chain itself
 *			(from the DSOs the MMAP2s name, on this machine or
 *			found by build-id).  Before the first sample of a thread,
 *			and whenever its comm differs from the last one
 *			written, a PERF_RECORD_COMM (perf takes the comm
 *			from there, kprof from each sample).
 *	LOST		PERF_RECORD_LOST, lost = full + nested + stopped +
 *			throttled.
 *	THROTTLE	PERF_RECORD_THROTTLE: one per throttled tick,
 *			whichever limit(s) tripped (header.misc says which;
 *			perf has no field for it, kprofcat -i shows it), so
 *			perf's THROTTLE count is the throttles counter.
 *	UNTHROTTLE	PERF_RECORD_UNTHROTTLE.
 *	RATE_LOWERED	dropped: perf has no record for it (the kernel only
 *			logs its own lowering to dmesg).
 *	WOULD_THROTTLE	dropped: shadow-mode diagnostics, no perf record.
 * Process history (PEV):
 *	MMAP		PERF_RECORD_MMAP2 with the build-id (misc
 *			PERF_RECORD_MISC_MMAP_BUILD_ID) when the capture has
 *			one; /proc/PID/maps snapshot lines at time 0.  With
 *			DWARF samples, one more per segment of the file when
 *			the file is here (convert_perf_maps.c: perf's unwinder
 *			reads the CFI through them).
 *	FORK		PERF_RECORD_FORK (tid = pid, ptid = ppid).
 *	EXEC		no record: perf has none that ends a process's maps;
 *			the MMAP2s of the new image replace the old ones
 *			where they overlap.
 * Captures hold no exit events, so the file has no PERF_RECORD_EXIT.
 *
 * Kernel: a PERF_RECORD_MMAP "[kernel.kallsyms]_text" from _text to the last
 * kernel symbol and one per module ("[name]") over its kallsyms range
 * (convert_perf_meta.c), from the capture's kallsyms snapshot, which is
 * also written to OUT.kallsyms: perf reads the
 * kernel symbols of another machine with --kallsyms OUT.kallsyms.  The
 * kernel's build-id is not in the capture, so the BUILD_ID section lists
 * only the user DSOs; perf looks those up by build-id and path as usual,
 * or, with --symfs OUT.symfs, in the files convert_symfs.c makes from the
 * capture's DSO sections (what kprofcat -i symbolizes with).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/dev/config.h"
#include "tool/convert/convert_perf.h"
#include "tool/convert/convert_perf_maps.h"
#include "tool/convert/convert_perf_meta.h"
#include "tool/convert/convert_symfs.h"
#include "tool/convert/perf_out.h"
#include "lib/util/print.h"
#include "lib/stream/replay.h"

/* ---------------------------------------------------------------- */
/* Process history                                                   */

static int write_pev(struct perf_out *p, struct perf_maps *maps, const struct pev *e)
{
	struct sample_id id = { .pid = e->pid, .tid = e->pid, .time = e->time };

	if (e->type == PEV_MMAP) {
		/*
		 * Every segment only for perf's unwinder (DWARF samples):
		 * otherwise the executable map alone, as perf record maps
		 * (a data segment mapped would name a frame-pointer walk's
		 * stray address that kprofcat and perf record leave unknown).
		 */
		if (p->attr.sample_type & PERF_SAMPLE_STACK_USER)
			return perf_maps__write(maps, p, e);
		perf_out__mmap2(p, e, e->start, e->len, e->pgoff, PROT_READ | PROT_EXEC);
		return 0;
	}
	if (e->type == PEV_FORK) {
		struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fk = {
			.pid = e->pid, .ppid = e->ppid, .tid = e->pid, .ptid = e->ppid,
			.time = e->time };

		perf_out__record(p, PERF_RECORD_FORK, 0, &fk, sizeof(fk), NULL, 0, &id);
	}
	return 0;
}

/*
 * A thread's stack as far as its snapshots reach, as an anonymous map at
 * its first one.  The capture has no map of stacks; perf's unwinder has
 * the process's, and where a chain outgrows the snapshot it reads the next
 * return address from that map, as 0 (from no map, it stops there): its
 * chain then ends in a frame at -1, which kprofcat's unwinder prints too.
 */
static void write_stack(struct perf_out *p, const struct convert_stack *st)
{
	struct pev e = { .type = PEV_MMAP, .pid = st->pid, .time = st->time, .path = "[stack]" };
	uint64_t start = st->start & ~4095ULL, end = (st->end + 4095) & ~4095ULL;

	perf_out__mmap2(p, &e, start, end - start, start, PROT_READ | PROT_WRITE);
}

/* The process history, before every sample. */
static int write_history(struct perf_out *p)
{
	struct perf_maps *maps = perf_maps__new();
	size_t i;
	int ret = maps ? 0 : -ENOMEM;

	for (i = 0; i < p->in->nr_pevs && !ret; i++)
		ret = write_pev(p, maps, &p->in->pevs[i]);
	for (i = 0; i < p->in->nr_stacks && !ret; i++)
		write_stack(p, &p->in->stacks[i]);
	perf_maps__free(maps);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Records                                                           */

static int comm_changed(struct perf_out *p, const struct kp_sample *s)
{
	uint64_t h = 1469598103934665603ULL;
	struct strmap_entry *e;
	char key[16];
	const char *c;
	int n;

	for (c = s->comm; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	h |= 1;		/* a new entry holds 0 */
	n = snprintf(key, sizeof(key), "%u", s->tid);
	e = strmap__get(p->comms, key, n);
	if (!e) {
		p->err = ENOMEM;
		return 0;
	}
	if (e->a == h)
		return 0;
	e->a = h;
	return 1;
}

/*
 * The call chain of sample S into CHAIN; returns its length.  With a
 * stack snapshot the user part is perf's to unwind, as in a perf DWARF
 * recording (exclude_callchain_user): a sample in user mode has none.
 */
static unsigned int perf_chain(const struct kp_record *r, int unwound, uint64_t *chain)
{
	const struct kp_sample *s = &r->sample;
	unsigned int n = 0, i, nr_user = unwound ? 0 : s->nr_user;
	int user = !!(r->misc & KPROF_MISC_USER);

	if (!s->nr_kernel && !nr_user && !(unwound && user)) {
		chain[n++] = user ? PERF_CONTEXT_USER : PERF_CONTEXT_KERNEL;
		chain[n++] = s->ip;
	}
	if (s->nr_kernel)
		chain[n++] = PERF_CONTEXT_KERNEL;
	for (i = 0; i < s->nr_kernel; i++)
		chain[n++] = s->ips[i];
	if (nr_user)
		chain[n++] = PERF_CONTEXT_USER;
	for (i = 0; i < nr_user; i++)
		chain[n++] = s->ips[s->nr_kernel + i];
	return n;
}

/*
 * PERF_SAMPLE_REGS_USER and PERF_SAMPLE_STACK_USER of sample S, as the
 * kernel writes them (kprof.h's layout is theirs): abi, regs, size, stack,
 * dyn_size; a sample without a snapshot has neither (abi 0, size 0).
 */
static size_t stack_user_len(const struct kp_sample *s)
{
	size_t regs = s->regs ? KPROF_REGS_USER_NR * sizeof(uint64_t) : 0;

	if (!s->stack_size)
		return 2 * sizeof(uint64_t) + regs;
	return 3 * sizeof(uint64_t) + regs + s->stack_size;
}

static void put_stack_user(struct perf_out *p, const struct kp_sample *s)
{
	uint64_t abi = s->regs ? KPROF_SAMPLE_REGS_ABI_64 : KPROF_SAMPLE_REGS_ABI_NONE;

	perf_out__put(p, &abi, sizeof(abi));
	perf_out__put(p, s->regs, s->regs ? KPROF_REGS_USER_NR * sizeof(uint64_t) : 0);
	perf_out__put(p, &s->stack_size, sizeof(s->stack_size));
	if (!s->stack_size)
		return;
	perf_out__put(p, s->stack, s->stack_size);
	perf_out__put(p, &s->stack_dyn, sizeof(s->stack_dyn));
}

static int perf_sample(struct output *o, const struct kp_record *r,
		       const struct out_frame *f, unsigned int nr)
{
	struct perf_out *p = (struct perf_out *)o;
	const struct kp_sample *s = &r->sample;
	uint64_t chain[2 * KPROF_MAX_STACK + 4];
	int dwarf = !!(p->attr.sample_type & PERF_SAMPLE_STACK_USER);
	unsigned int n;
	struct {
		uint64_t ip;
		uint32_t pid, tid;
		uint64_t time;
		uint32_t cpu, res;
		uint64_t period, nr;
	} body;
	struct perf_event_header h;
	int user = !!(r->misc & KPROF_MISC_USER);
	size_t tail;

	(void)f;
	(void)nr;
	if (s->cpu > p->max_cpu)
		p->max_cpu = s->cpu;
	if (comm_changed(p, s)) {
		struct sample_id id = { .pid = s->pid, .tid = s->tid, .time = s->time,
					.cpu = s->cpu };
		struct { uint32_t pid, tid; } c = { s->pid, s->tid };

		perf_out__record(p, PERF_RECORD_COMM, 0, &c, sizeof(c), s->comm, 8, &id);
	}
	n = perf_chain(r, dwarf && (r->misc & KPROF_MISC_STACK_USER), chain);
	body.ip = s->ip;
	body.pid = s->pid;
	body.tid = s->tid;
	body.time = s->time;
	body.cpu = s->cpu;
	body.res = 0;
	body.period = s->period;
	body.nr = n;
	h.type = PERF_RECORD_SAMPLE;
	h.misc = user ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	/*
	 * It fits in h.size's 16 bits: the kprof record it comes from did,
	 * with a longer fixed part and the user chain besides.
	 */
	tail = dwarf ? stack_user_len(s) : 0;
	h.size = sizeof(h) + sizeof(body) + n * sizeof(uint64_t) + tail;
	perf_out__put(p, &h, sizeof(h));
	perf_out__put(p, &body, sizeof(body));
	perf_out__put(p, chain, n * sizeof(uint64_t));
	if (dwarf)
		put_stack_user(p, s);
	p->data_size += h.size;
	return p->err ? -1 : 0;
}

static int perf_event(struct output *o, const struct kp_record *r)
{
	struct perf_out *p = (struct perf_out *)o;
	struct sample_id id = { .pid = HOST_PID, .tid = HOST_PID, .time = r->time,
				.cpu = r->cpu };

	if (r->cpu > p->max_cpu)
		p->max_cpu = r->cpu;
	switch (r->type) {
	case KPROF_RECORD_LOST: {
		struct { uint64_t id, lost; } l = { 0, r->lost.full + r->lost.nested +
						    r->lost.stopped + r->lost.throttled };

		perf_out__record(p, PERF_RECORD_LOST, 0, &l, sizeof(l), NULL, 0, &id);
		p->lost++;
		break;
	}
	case KPROF_RECORD_THROTTLE:
	case KPROF_RECORD_UNTHROTTLE: {
		struct { uint64_t time, id, stream_id; } t = { r->time, 0, 0 };

		perf_out__record(p, r->type == KPROF_RECORD_UNTHROTTLE ? PERF_RECORD_UNTHROTTLE :
			   PERF_RECORD_THROTTLE, 0, &t, sizeof(t), NULL, 0, &id);
		if (r->type != KPROF_RECORD_UNTHROTTLE)
			p->throttles++;
		break;
	}
	default:	/* RATE_LOWERED, WOULD_THROTTLE: see the top */
		break;
	}
	return p->err ? -1 : 0;
}

static void perf_free(struct output *o)
{
	(void)o;
}

static const struct output_ops perf_ops = {
	.sample = perf_sample,
	.event = perf_event,
	.free = perf_free,
};

/* ---------------------------------------------------------------- */

static void setup_attr(struct perf_out *p)
{
	const struct convert_input *in = p->in;
	struct kprof_config cfg = { .size = sizeof(cfg) };
	struct perf_event_attr *a = &p->attr;
	int sample_given = 0;	/* the capture's own sample wins */

	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	/*
	 * Unknown names (older captures) and PMUs by name (NAME/TERMS/: their
	 * type is the recording machine's sysfs', not this one's): cpu-clock's
	 * numbers, the capture's name.
	 */
	if (!strcmp(in->event, "unknown") || strchr(in->event, '/') ||
	    config__parse_event(&cfg, in->event, &sample_given)) {
		cfg.type = PERF_TYPE_SOFTWARE;
		cfg.config = PERF_COUNT_SW_CPU_CLOCK;
	}
	a->type = cfg.type;
	a->config = cfg.config;
	a->sample_period = in->sample;
	a->freq = in->freq;
	a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	/* Samples with a snapshot are written as perf --call-graph dwarf writes them. */
	if (in->stack_user) {
		a->sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
		a->sample_regs_user = KPROF_REGS_USER_MASK;
		a->sample_stack_user = in->stack_user_size;
		a->exclude_callchain_user = 1;
	}
	a->sample_id_all = 1;
	a->mmap = 1;
	a->mmap2 = 1;
	a->comm = 1;
	a->task = 1;
	a->build_id = 1;
	a->sample_max_stack = KPROF_MAX_STACK;
}

static int write_kallsyms_file(const struct convert_input *in, const char *out)
{
	char *path;
	FILE *f;
	int ret = 0;

	if (!in->kallsyms)
		return 0;
	if (asprintf(&path, "%s.kallsyms", out) < 0)
		return -ENOMEM;
	f = fopen(path, "w");
	if (!f || fwrite(in->kallsyms, 1, in->kallsyms_len, f) != in->kallsyms_len) {
		p_err("cannot write %s: %s", path, strerror(errno));
		ret = -EIO;
	}
	if (f && fclose(f) && !ret) {
		p_err("cannot write %s: %s", path, strerror(errno));
		ret = -EIO;
	}
	free(path);
	return ret;
}

static int write_symfs(const struct convert_input *in, const char *out)
{
	char *dir;
	int ret;

	if (asprintf(&dir, "%s.symfs", out) < 0)
		return -ENOMEM;
	ret = convert_symfs__write(in->path, dir);
	free(dir);
	return ret;
}

int convert_perf__write(const struct convert_input *in, const char *out, int pid,
			int nr, char **cmdline)
{
	struct perf_out p = { .o = { .ops = &perf_ops }, .in = in, .path = out };
	struct file_header h = { .magic = PERF_MAGIC2, .size = sizeof(h) };
	struct file_attr fa;
	char event[64];
	int status;

	setup_attr(&p);
	p.comms = strmap__new();
	p.f = fopen(out, "w");
	if (!p.f || !p.comms) {
		p_err("cannot create %s: %s", out, p.f ? "out of memory" : strerror(errno));
		goto fail;
	}
	/* Header, attrs, data, features. */
	perf_out__put(&p, &h, sizeof(h));
	memset(&fa, 0, sizeof(fa));
	fa.attr = p.attr;
	h.attr_size = sizeof(fa);
	h.attrs.offset = sizeof(h);
	h.attrs.size = sizeof(fa);
	perf_out__put(&p, &fa, sizeof(fa));
	p.data_start = sizeof(h) + sizeof(fa);
	if (perf_out__kernel_maps(&p))
		goto fail;
	if (write_history(&p))
		p.err = ENOMEM;
	if (p.err)
		goto write_err;
	status = record__replay(in->path, &p.o, pid, event, sizeof(event));
	if (status)
		goto fail;
	h.data.offset = p.data_start;
	h.data.size = p.data_size;
	perf_out__features(&p, &h, nr, cmdline);
	if (!p.err && fseek(p.f, 0, SEEK_SET))
		p.err = errno;
	perf_out__put(&p, &h, sizeof(h));
	if (p.err)
		goto write_err;
	if (fclose(p.f)) {
		p.f = NULL;
		p.err = errno;
		goto write_err;
	}
	p.f = NULL;
	strmap__free(p.comms);
	if (write_kallsyms_file(in, out) || write_symfs(in, out))
		return 1;
	return 0;
write_err:
	p_err("writing %s failed: %s", out, strerror(p.err));
fail:
	if (p.f)
		fclose(p.f);
	strmap__free(p.comms);
	return 1;
}
