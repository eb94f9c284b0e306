// SPDX-License-Identifier: GPL-2.0
/*
 * session.c - glue between the reader, the symbolizers and the outputs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stream/framecache.h"
#include "lib/stream/merge.h"
#include "lib/util/print.h"
#include "lib/stream/session.h"
#include "lib/stream/sideband.h"
#include "lib/stream/pidmap.h"
#include "lib/unwind/unwind.h"

#define MERGE_MAX_HELD		(1U << 20)
/* Cache lines of a stack snapshot prefetched from SP up: its first KiB. */
#define STACK_PREFETCH_LINES	16

struct session {
	struct session_opts o;
	struct ksyms *ksyms;
	struct usyms *usyms;
	struct merge *merge;
	struct framecache *fc;
	struct unwind *unwind;	/* user chains of samples with a stack snapshot */
	struct decode_stats dst;
	struct pidmap *tree;	/* FILTER_TREE: pids in the tree */
	struct pidmap *seen;	/* proc_fallback: pid -> hash of its comm */
	struct pidmap *newest;	/* proc_fallback: pid -> its newest sample's time */
	uint64_t filtered;
	uint64_t samples_out;
	int err;
};

struct session *session__new(const struct session_opts *o, struct ksyms *k)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->o = *o;
	s->ksyms = k;
	s->usyms = usyms__new();
	s->merge = merge__new(o->window_ns, MERGE_MAX_HELD);
	s->fc = framecache__new();
	s->unwind = s->usyms ? unwind__new(s->usyms) : NULL;
	s->tree = pidmap__new();
	s->seen = pidmap__new();
	s->newest = pidmap__new();
	if (!s->usyms || !s->merge || !s->fc || !s->unwind || !s->tree || !s->seen || !s->newest) {
		session__free(s);
		return NULL;
	}
	/* Demangling is display only: captures keep the raw names. */
	if (o->out && o->out->no_demangle)
		usyms__set_demangle(s->usyms, 0);
	if (o->filter == FILTER_TREE && !pidmap__get(s->tree, o->pid, 1)) {
		session__free(s);
		return NULL;
	}
	return s;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	ksyms__free(s->ksyms);
	usyms__free(s->usyms);
	merge__free(s->merge);
	framecache__free(s->fc);
	unwind__free(s->unwind);
	pidmap__free(s->tree);
	pidmap__free(s->seen);
	pidmap__free(s->newest);
	free(s);
}

static int in_tree(struct session *s, uint32_t pid)
{
	return !!pidmap__get(s->tree, pid, 0);
}

int session__pev(void *ctx, const struct pev *e)
{
	struct session *s = ctx;
	int ret;

	if (s->o.cap) {
		ret = capture__write_pev(s->o.cap, e);
		if (ret)
			return ret;
	}
	if (e->type == PEV_FORK && s->o.filter == FILTER_TREE && in_tree(s, e->ppid) &&
	    !pidmap__get(s->tree, e->pid, 1))
		return -ENOMEM;
	return usyms__apply(s->usyms, e);
}

/* Parent of PID from /proc/PID/stat, 0 if unknown. */
static uint32_t proc_ppid(uint32_t pid)
{
	char path[64], buf[512], *p;
	unsigned int ppid = 0;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may hold anything */
	if (!p || sscanf(p + 1, " %*c %u", &ppid) != 1)
		return 0;
	return ppid;
}

/*
 * Without side band: read /proc/PID/maps the first time a pid shows up,
 * and again when its comm changes (an exec: its old maps end there).
 */
static void first_sight(struct session *s, const struct kp_sample *smp)
{
	uint64_t *e = pidmap__get(s->seen, smp->pid, 1);
	uint64_t *newest = pidmap__get(s->newest, smp->pid, 1);
	uint64_t comm_hash = 1469598103934665603ULL, exec_time;
	uint32_t pid = smp->pid, p = pid;
	const char *c;
	int depth;

	for (c = smp->comm; *c; c++)
		comm_hash = (comm_hash ^ (unsigned char)*c) * 1099511628211ULL;
	comm_hash |= 1;		/* never 0, the value of a new entry */
	if (!e || !newest || !pid)
		return;
	exec_time = *newest + 1;
	if (smp->time > *newest)
		*newest = smp->time;
	if (*e == comm_hash)
		return;
	if (*e) {
		/*
		 * The exec came after the newest sample under the old comm:
		 * the new image's maps date from there, so that its samples
		 * read in before this one (other CPUs' rings) resolve too.
		 */
		struct pev ex = { .type = PEV_EXEC, .pid = pid, .time = exec_time };

		*e = comm_hash;	/* (session__pev() changes s->tree, never s->seen) */
		session__pev(s, &ex);
		sideband__snapshot_pid(pid, exec_time, session__pev, s);
		return;
	}
	*e = comm_hash;
	sideband__snapshot_pid(pid, 0, session__pev, s);
	if (s->o.filter != FILTER_TREE)
		return;
	for (depth = 0; depth < 64 && p > 1; depth++) {
		p = proc_ppid(p);
		if (p == s->o.pid) {
			pidmap__get(s->tree, pid, 1);
			return;
		}
	}
}

/*
 * A snapshot's first stack bytes, from SP up, on their way to the cache:
 * the unwinder reads return addresses there when the record leaves the
 * merge window, and would wait for each one from memory, the record's
 * pages being read for the first time by then (on an xz capture, an
 * eighth of the reader's time).  Prefetched here, when the record is
 * taken in, they arrive while the records ahead of it are printed.
 * Inlined by force: GCC 12 takes a function of prefetches alone for a
 * const one, whose calls it drops.
 */
static inline __attribute__((always_inline)) void prefetch_stack(const struct kp_record *r)
{
	const struct kp_sample *smp = &r->sample;
	unsigned int i;

	if (r->type != KPROF_RECORD_SAMPLE || !smp->stack)
		return;
	for (i = 0; i < STACK_PREFETCH_LINES && i * 64 < smp->stack_dyn; i++)
		__builtin_prefetch(smp->stack + i * 64);
}

static int record(struct session *s, unsigned int cpu, const void *rec, size_t len, int ref)
{
	struct kp_record r;
	int ret;

	ret = decode__record(rec, len, cpu, &r, &s->dst);
	if (ret)
		return ret < 0 ? ret : 0;
	if (r.type == KPROF_RECORD_SAMPLE && s->o.proc_fallback)
		first_sight(s, &r.sample);
	prefetch_stack(&r);
	if (ref)
		return merge__push_ref(s->merge, r.time, cpu, rec, len);
	return merge__push(s->merge, r.time, cpu, rec, len);
}

int session__record(struct session *s, unsigned int cpu, const void *rec, size_t len)
{
	return record(s, cpu, rec, len, 0);
}

int session__record_ref(struct session *s, unsigned int cpu, const void *rec, size_t len)
{
	return record(s, cpu, rec, len, 1);
}

const void *session__lowest_held(const struct session *s)
{
	return merge__lowest_ref(s->merge);
}

/*
 * The user chain of SMP: its ips[] after the kernel chain, or, when it
 * carries a stack snapshot, the chain unwound from it into UIPS.
 */
static const uint64_t *user_chain(struct session *s, const struct kp_record *r,
				  uint64_t *uips, unsigned int *nr)
{
	const struct kp_sample *smp = &r->sample;
	struct unwind_sample us;

	if (!(r->misc & KPROF_MISC_STACK_USER)) {
		*nr = smp->nr_user;
		return smp->ips + smp->nr_kernel;
	}
	us.pid = smp->pid;
	us.time = r->time;
	us.regs = smp->regs;
	us.stack = smp->stack;
	us.stack_len = smp->stack_dyn;
	*nr = unwind__chain(s->unwind, &us, uips, KPROF_MAX_STACK);
	return uips;
}

/*
 * Whether the user frames of R get the inline frames perf adds: perf does
 * for the frames it unwinds from a stack snapshot (unwind_entry()), never
 * for frame-pointer chains, and not with --no-inline.
 */
static int wants_inlines(const struct session *s, const struct kp_record *r)
{
	return s->o.out && s->o.out->inlines && (r->misc & KPROF_MISC_STACK_USER);
}

/*
 * The key of a call chain in the frame cache: process, maps, mode, inline
 * frames or not, addresses.
 */
static unsigned int chain_key(const struct session *s, const struct kp_record *r, uint32_t gen,
			      const uint64_t *uips, unsigned int nu, uint64_t *key)
{
	const struct kp_sample *smp = &r->sample;
	unsigned int nk = smp->nr_kernel;

	key[0] = smp->pid | (uint64_t)gen << 32;
	key[1] = (r->misc & KPROF_MISC_USER ? 2 : 0) | (wants_inlines(s, r) ? 4 : 0) |
		 (uint64_t)nk << 16 | (uint64_t)nu << 32;
	if (!nk && !nu) {
		key[2] = smp->ip;
		return 3;
	}
	memcpy(key + 2, smp->ips, nk * sizeof(*key));
	memcpy(key + 2 + nk, uips, nu * sizeof(*key));
	return 2 + nk + nu;
}

/*
 * The frames of sample R: a call chain seen before comes whole from the
 * frame cache (*OUT points there), otherwise each frame is made in F.
 */
static int build_frames(struct session *s, const struct kp_record *r,
			struct out_frame *f, const struct out_frame **out, unsigned int *nr)
{
	const struct kp_sample *smp = &r->sample;
	int ret = 0, unstable = 0, inl = wants_inlines(s, r);
	uint32_t gen = usyms__generation(s->usyms, smp->pid);
	unsigned int i, n = 0, nu, nkey, got = 0;
	uint64_t key[2 + OUT_MAX_FRAMES], uips_buf[KPROF_MAX_STACK], since = 0, frame_since;
	const struct out_frame *cached;
	const uint64_t *uips;

	framecache__trim(s->fc);
	*out = f;
	uips = user_chain(s, r, uips_buf, &nu);
	nkey = chain_key(s, r, gen, uips, nu, key);
	cached = framecache__stack_find(s->fc, key, nkey, r->time, nr);
	if (cached) {
		*out = cached;
		return 0;
	}
	if (!smp->nr_kernel && !nu) {
		if (r->misc & KPROF_MISC_USER) {
			ret = framecache__user(s->fc, s->usyms, smp->pid, gen, r->time,
					       smp->ip, 0, f, OUT_MAX_FRAMES, &got, &since);
			n = got;
		} else {
			ret = framecache__kernel(s->fc, s->ksyms, smp->ip, &f[n++]);
		}
	} else {
		for (i = 0; i < smp->nr_kernel && ret >= 0; i++)
			ret = framecache__kernel(s->fc, s->ksyms, smp->ips[i], &f[n++]);
		/* (Inline frames past the array's end are cut, like too deep chains.) */
		for (i = 0; i < nu && ret >= 0 && n < OUT_MAX_FRAMES; i++) {
			ret = framecache__user(s->fc, s->usyms, smp->pid, gen, r->time,
					       uips[i], inl, &f[n], OUT_MAX_FRAMES - n, &got,
					       &frame_since);
			n += got;
			unstable |= ret > 0;
			if (frame_since > since)
				since = frame_since;
		}
	}
	unstable |= ret > 0;
	*nr = n;
	if (ret < 0)
		return ret;
	/* Not kept: without memory for it, the frames in F do. */
	if (!unstable) {
		cached = framecache__stack_add(s->fc, key, nkey, since, f, n);
		if (cached)
			*out = cached;
	}
	return 0;
}

/* Whether sample R passes the process filter and the sample filter. */
static int keep_sample(struct session *s, const struct kp_record *r)
{
	const struct sample_filter *sf = &s->o.sf;
	const struct kp_sample *smp = &r->sample;

	if ((s->o.filter == FILTER_PID && smp->pid != s->o.pid) ||
	    (s->o.filter == FILTER_TREE && !in_tree(s, smp->pid)))
		return 0;
	if (sf->tid_set && smp->tid != sf->tid)
		return 0;
	if (sf->comm && strcmp(smp->comm, sf->comm))
		return 0;
	if (sf->user_only && !(r->misc & KPROF_MISC_USER))
		return 0;
	if (sf->kernel_only && (r->misc & KPROF_MISC_USER))
		return 0;
	return 1;
}

static int emit(void *ctx, unsigned int cpu, const void *rec, size_t len)
{
	struct session *s = ctx;
	struct out_frame frames[OUT_MAX_FRAMES];
	const struct out_frame *f = frames;
	struct kp_record r;
	struct decode_stats scratch;
	unsigned int nr = 0;

	/* Decoded (and counted) once already, on the way in. */
	memset(&scratch, 0, sizeof(scratch));
	if (decode__record(rec, len, cpu, &r, &scratch))
		return 0;
	if (s->o.sf.cpus_set && (cpu >= KPROF_MAX_CPUS ||
				 !(s->o.sf.cpus[cpu / 64] & (1ULL << (cpu % 64))))) {
		s->filtered += r.type == KPROF_RECORD_SAMPLE;
		return 0;
	}
	if (r.type == KPROF_RECORD_SAMPLE && !keep_sample(s, &r)) {
		s->filtered++;
		return 0;
	}
	if (s->o.cap && capture__add_record(s->o.cap, cpu, rec, len))
		return -1;
	if (r.type != KPROF_RECORD_SAMPLE)
		return s->o.out ? output__event(s->o.out, &r) : 0;
	s->samples_out++;
	/* A capture needs the symbols of every DSO samples hit. */
	if ((s->o.cap || (s->o.out && s->o.out->needs_frames)) &&
	    build_frames(s, &r, frames, &f, &nr)) {
		p_err("out of memory");
		return -ENOMEM;
	}
	return s->o.out ? output__sample(s->o.out, &r, f, nr) : 0;
}

int session__flush(struct session *s, int all)
{
	int ret = merge__flush(s->merge, all, emit, s);

	if (ret)
		p_err("writing the output%s failed", s->o.cap ? " or the capture file" : "");
	return ret;
}

void session__set_window(struct session *s, uint64_t window_ns)
{
	s->o.window_ns = window_ns;
	merge__set_window(s->merge, window_ns);
}

const struct decode_stats *session__decode_stats(const struct session *s)
{
	return &s->dst;
}

uint64_t session__misordered(const struct session *s)
{
	return merge__misordered(s->merge);
}

uint64_t session__filtered(const struct session *s)
{
	return s->filtered;
}

uint64_t session__samples_out(const struct session *s)
{
	return s->samples_out;
}

struct usyms *session__usyms(struct session *s)
{
	return s->usyms;
}

static int write_dso(void *w, const void *blob, size_t len)
{
	return capture__write(w, KPCAP_DSO, 0, blob, len);
}

int session__save_dsos(struct session *s, struct capture_writer *w)
{
	return usyms__save_dsos(s->usyms, write_dso, w);
}
