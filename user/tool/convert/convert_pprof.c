// SPDX-License-Identifier: GPL-2.0
/*
 * convert_pprof.c - a capture as a gzipped profile.proto (pprof), the
 * format go tool pprof, Pyroscope, Parca and Cloud Profiler ingest.
 *
 * The encoder is protobuf-c's, generated at build time by protoc-c from
 * the profile.proto Debian ships with golang-github-google-pprof-dev: the
 * schema is pprof's own, not a copy, and protobuf-c does the wire format;
 * zlib's gzip stream wraps it, as pprof expects.
 *
 * Content, from the samples `kprofcat -i` symbolizes:
 *	sample_type	samples/count and cpu/nanoseconds (the period: ns
 *			for cpu-clock and task-clock; other events get
 *			EVENT/count instead); period_type likewise, period
 *			the capture's sampling period (for a clock sampled
 *			with -F: 1e9 / freq; other events with -F: 0)
 *	sample		one per distinct (stack, pid, tid, comm, cpu),
 *			location_id leaf first, values summed; labels pid,
 *			tid, cpu and comm, all strings (decimal numbers):
 *			Pyroscope and Parca make series of string labels
 *			only, and pprof drops a numeric label of 0 (CPU 0,
 *			the idle task's pid) that has no unit
 *	location	one per (DSO, address): the address is what kprofcat
 *			prints (user: the offset in the DSO, kernel: the
 *			address), with one line naming the function;
 *			frames kprofcat could not symbolize get no line
 *	function	one per (name, DSO); filename is the DSO path
 *	mapping		one per DSO, with its build-id (hex) from the
 *			capture's process history; has_functions once
 *			kprofcat named one of its frames (without it pprof
 *			re-symbolizes every frame of the mapping from the
 *			file at that path on the reading machine, whatever
 *			build that is; a server with the DSO, by build-id,
 *			may still name a mapping kprofcat named nothing in);
 *			memory_start/limit span
 *			the addresses used and file_offset = memory_start,
 *			so address - memory_start + file_offset is the
 *			address itself.  Kernel frames are marked as perf
 *			and pprof's perf_to_profile mark them: their
 *			mapping is "[kernel.kallsyms]" (modules: "[name]").
 *	duration_nanos	first to last sample; time_nanos stays 0: kprof
 *			stamps with local_clock(), not wall-clock time.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "tool/convert/convert_pprof.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "profile.pb-c.h"
#include "lib/stream/replay.h"
#include "lib/util/strmap.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__ValueType ValueType;

#define NR_LABELS	4

struct vec {
	void **v;
	size_t n, cap;
};

struct pprof_out {
	struct output o;	/* first: record__replay drives it */
	const struct convert_input *in;
	int err;
	struct vec strings, samples, locations, functions, mappings;
	struct strmap *str_ids, *sample_ids, *loc_ids, *func_ids, *map_ids, *bids;
	uint64_t *map_lo, *map_hi;	/* per mapping, indexed by id - 1 */
	size_t map_cap;
	uint64_t first, last;
	int64_t k_pid, k_tid, k_cpu, k_comm;
};

/* Append P; -ENOMEM (P NULL, or no room: P is not freed). */
static int vec_push(struct vec *v, void *p)
{
	if (!p)
		return -ENOMEM;
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 64;
		void **n = realloc(v->v, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		v->v = n;
		v->cap = cap;
	}
	v->v[v->n++] = p;
	return 0;
}

/* Index of S in the string table, added if new; -1 on ENOMEM. */
static int64_t str_id(struct pprof_out *p, const char *s)
{
	struct strmap_entry *e = strmap__get(p->str_ids, s, strlen(s));

	if (!e)
		goto nomem;
	if (!e->a) {
		char *c = strdup(s);

		if (vec_push(&p->strings, c)) {
			free(c);
			goto nomem;
		}
		e->a = p->strings.n;
	}
	return e->a - 1;
nomem:
	p->err = ENOMEM;
	return -1;
}

static char *bid_hex(const struct pev *e, char *buf)
{
	uint32_t i;

	for (i = 0; i < e->bid_len; i++)
		sprintf(buf + 2 * i, "%02x", e->build_id[i]);
	buf[2 * e->bid_len] = '\0';
	return buf;
}

static uint64_t mapping_id(struct pprof_out *p, const struct out_frame *f)
{
	struct strmap_entry *e = strmap__get(p->map_ids, f->dso, strlen(f->dso));
	Mapping *m;
	size_t i;

	if (!e)
		goto nomem;
	if (!e->a) {
		struct strmap_entry *b = strmap__get(p->bids, f->dso, strlen(f->dso));

		m = malloc(sizeof(*m));
		if (!b || vec_push(&p->mappings, m)) {
			free(m);
			goto nomem;
		}
		perftools__profiles__mapping__init(m);
		m->id = p->mappings.n;
		m->filename = str_id(p, f->dso);
		/* b->a: 1 + index of the PEV with this path's build-id */
		if (b->a) {
			char hex[2 * USYMS_BUILD_ID_MAX + 1];

			m->build_id = str_id(p, bid_hex(&p->in->pevs[b->a - 1], hex));
		}
		if (p->mappings.n > p->map_cap) {
			size_t cap = 2 * p->mappings.n;
			uint64_t *lo = realloc(p->map_lo, cap * sizeof(*lo));
			uint64_t *hi = lo ? realloc(p->map_hi, cap * sizeof(*hi)) : NULL;

			if (lo)
				p->map_lo = lo;
			if (!hi)
				goto nomem;
			p->map_hi = hi;
			p->map_cap = cap;
		}
		p->map_lo[m->id - 1] = UINT64_MAX;
		p->map_hi[m->id - 1] = 0;
		e->a = m->id;
	}
	i = e->a - 1;
	if (f->addr < p->map_lo[i])
		p->map_lo[i] = f->addr;
	if (f->addr >= p->map_hi[i])
		p->map_hi[i] = f->addr + 1;
	if (f->sym)
		((Mapping *)p->mappings.v[i])->has_functions = 1;
	return e->a;
nomem:
	p->err = ENOMEM;
	return 0;
}

/* M's entry for the key "A\0B" (names may be long: C++ templates). */
static struct strmap_entry *get2(struct strmap *m, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *key = malloc(la + lb + 2);
	struct strmap_entry *e;

	if (!key)
		return NULL;
	memcpy(key, a, la + 1);
	memcpy(key + la + 1, b, lb + 1);
	e = strmap__get(m, key, la + lb + 1);
	free(key);
	return e;
}

static uint64_t function_id(struct pprof_out *p, const struct out_frame *f)
{
	struct strmap_entry *e = get2(p->func_ids, f->sym, f->dso);
	Function *fn;

	if (!e)
		goto nomem;
	if (!e->a) {
		fn = malloc(sizeof(*fn));
		if (vec_push(&p->functions, fn)) {
			free(fn);
			goto nomem;
		}
		perftools__profiles__function__init(fn);
		fn->id = p->functions.n;
		fn->name = str_id(p, f->sym);
		fn->system_name = fn->name;
		fn->filename = str_id(p, f->dso);
		e->a = fn->id;
	}
	return e->a;
nomem:
	p->err = ENOMEM;
	return 0;
}

static uint64_t location_id(struct pprof_out *p, const struct out_frame *f)
{
	char addr[24];
	struct strmap_entry *e;
	Location *l;

	snprintf(addr, sizeof(addr), "%llx", (unsigned long long)f->addr);
	e = get2(p->loc_ids, addr, f->dso);
	if (!e)
		goto nomem;
	if (!e->a) {
		l = malloc(sizeof(*l));
		if (vec_push(&p->locations, l)) {
			free(l);
			goto nomem;
		}
		perftools__profiles__location__init(l);
		l->id = p->locations.n;
		l->mapping_id = mapping_id(p, f);
		l->address = f->addr;
		if (f->sym) {
			Line *ln = malloc(sizeof(*ln));

			l->line = malloc(sizeof(*l->line));
			if (!ln || !l->line) {
				free(ln);
				goto nomem;
			}
			perftools__profiles__line__init(ln);
			ln->function_id = function_id(p, f);
			l->line[0] = ln;
			l->n_line = 1;
		}
		e->a = l->id;
	}
	return e->a;
nomem:
	p->err = ENOMEM;
	return 0;
}

static void free_sample(void *x)
{
	Sample *s = x;

	free(s->location_id);
	free(s->value);
	if (s->label)
		free(s->label[0]);	/* one allocation for all labels */
	free(s->label);
	free(s);
}

static Sample *new_sample(struct pprof_out *p, const uint64_t *ids, unsigned int nr,
			  const struct kp_sample *s)
{
	Sample *smp = calloc(1, sizeof(*smp));
	Label *lb = calloc(NR_LABELS, sizeof(*lb));
	unsigned int i;
	char num[16];

	if (!smp || !lb)
		goto nomem;
	perftools__profiles__sample__init(smp);
	smp->label = malloc(NR_LABELS * sizeof(*smp->label));
	if (!smp->label)
		goto nomem;
	for (i = 0; i < NR_LABELS; i++) {
		perftools__profiles__label__init(&lb[i]);
		smp->label[i] = &lb[i];
	}
	lb = NULL;		/* owned by smp->label[0] now */
	smp->n_label = NR_LABELS;
	smp->location_id = malloc(nr * sizeof(*ids) + 1);
	smp->value = calloc(2, sizeof(*smp->value));
	if (!smp->location_id || !smp->value)
		goto nomem;
	memcpy(smp->location_id, ids, nr * sizeof(*ids));
	smp->n_location_id = nr;
	smp->n_value = 2;
	snprintf(num, sizeof(num), "%u", s->pid);
	smp->label[0]->key = p->k_pid;
	smp->label[0]->str = str_id(p, num);
	snprintf(num, sizeof(num), "%u", s->tid);
	smp->label[1]->key = p->k_tid;
	smp->label[1]->str = str_id(p, num);
	snprintf(num, sizeof(num), "%u", s->cpu);
	smp->label[2]->key = p->k_cpu;
	smp->label[2]->str = str_id(p, num);
	smp->label[3]->key = p->k_comm;
	smp->label[3]->str = str_id(p, s->comm);
	if (vec_push(&p->samples, smp))
		goto nomem;
	return smp;
nomem:
	if (smp)
		free_sample(smp);
	free(lb);
	p->err = ENOMEM;
	return NULL;
}

static int pprof_sample(struct output *o, const struct kp_record *r,
			const struct out_frame *f, unsigned int nr)
{
	struct pprof_out *p = (struct pprof_out *)o;
	const struct kp_sample *s = &r->sample;
	uint64_t ids[2 * KPROF_MAX_STACK + 1];
	char key[sizeof(ids) * 3 + 128];
	struct strmap_entry *e;
	unsigned int i;
	size_t n;
	Sample *smp;

	if (!p->first || s->time < p->first)
		p->first = s->time;
	if (s->time > p->last)
		p->last = s->time;
	n = snprintf(key, sizeof(key), "%u %u %u %s|", s->pid, s->tid, s->cpu, s->comm);
	for (i = 0; i < nr && i < sizeof(ids) / sizeof(ids[0]); i++) {
		ids[i] = location_id(p, &f[i]);
		n += snprintf(key + n, sizeof(key) - n, "%llx,", (unsigned long long)ids[i]);
	}
	if (p->err)
		return -1;
	e = strmap__get(p->sample_ids, key, n);
	if (!e)
		goto nomem;
	if (!e->a) {
		if (!new_sample(p, ids, i, s))
			return -1;
		e->a = p->samples.n;
	}
	smp = p->samples.v[e->a - 1];
	smp->value[0] += 1;
	smp->value[1] += s->period;
	return 0;
nomem:
	p->err = ENOMEM;
	return -1;
}

static void pprof_free(struct output *o)
{
	(void)o;
}

static const struct output_ops pprof_ops = {
	.sample = pprof_sample,
	.free = pprof_free,
};

/* Path -> 1 + index of the first PEV_MMAP giving its build-id. */
static int index_build_ids(struct pprof_out *p)
{
	size_t i;

	for (i = 0; i < p->in->nr_pevs; i++) {
		const struct pev *e = &p->in->pevs[i];
		struct strmap_entry *b;

		if (e->type != PEV_MMAP || !e->bid_len || !e->path)
			continue;
		b = strmap__get(p->bids, e->path, strlen(e->path));
		if (!b)
			return -ENOMEM;
		if (!b->a)
			b->a = i + 1;
	}
	return 0;
}

static int write_gzip(const char *out, const void *buf, size_t len)
{
	gzFile gz = gzopen(out, "wb9");
	int ok;

	if (!gz) {
		p_err("cannot create %s: %s", out, strerror(errno ? errno : ENOMEM));
		return -EIO;
	}
	ok = !len || gzwrite(gz, buf, len) == (int)len;
	if (gzclose(gz) != Z_OK || !ok) {
		p_err("writing %s failed", out);
		return -EIO;
	}
	return 0;
}

static int pack_and_write(struct pprof_out *p, const char *out)
{
	const struct convert_input *in = p->in;
	int clock = !strcmp(in->event, "cpu-clock") || !strcmp(in->event, "task-clock");
	ValueType vt[2], pt, *vts[2] = { &vt[0], &vt[1] };
	Profile prof;
	unsigned char *buf;
	size_t i, len;
	int ret;

	perftools__profiles__profile__init(&prof);
	perftools__profiles__value_type__init(&vt[0]);
	perftools__profiles__value_type__init(&vt[1]);
	perftools__profiles__value_type__init(&pt);
	vt[0].type = str_id(p, "samples");
	vt[0].unit = str_id(p, "count");
	vt[1].type = str_id(p, clock ? "cpu" : in->event);
	vt[1].unit = str_id(p, clock ? "nanoseconds" : "count");
	pt = vt[1];
	for (i = 0; i < p->mappings.n; i++) {
		Mapping *m = p->mappings.v[i];

		m->memory_start = p->map_lo[i];
		m->memory_limit = p->map_hi[i];
		m->file_offset = p->map_lo[i];
	}
	if (p->err)
		return -ENOMEM;
	prof.n_sample_type = 2;
	prof.sample_type = vts;
	prof.n_sample = p->samples.n;
	prof.sample = (Sample **)p->samples.v;
	prof.n_mapping = p->mappings.n;
	prof.mapping = (Mapping **)p->mappings.v;
	prof.n_location = p->locations.n;
	prof.location = (Location **)p->locations.v;
	prof.n_function = p->functions.n;
	prof.function = (Function **)p->functions.v;
	prof.n_string_table = p->strings.n;
	prof.string_table = (char **)p->strings.v;
	prof.duration_nanos = p->last - p->first;
	prof.period_type = &pt;
	/* -F: a clock's period is 1 s / freq; other events' is not known. */
	if (in->freq)
		prof.period = clock && in->sample ? 1000000000 / in->sample : 0;
	else
		prof.period = in->sample;
	len = perftools__profiles__profile__get_packed_size(&prof);
	buf = malloc(len + 1);
	if (!buf)
		return -ENOMEM;
	perftools__profiles__profile__pack(&prof, buf);
	ret = write_gzip(out, buf, len);
	free(buf);
	return ret;
}

static void vec_free(struct vec *v, void (*fn)(void *))
{
	size_t i;

	for (i = 0; i < v->n; i++)
		fn(v->v[i]);
	free(v->v);
}

static void free_location(void *x)
{
	Location *l = x;

	if (l->n_line)
		free(l->line[0]);
	free(l->line);
	free(l);
}

int convert_pprof__write(const struct convert_input *in, const char *out, int pid)
{
	struct pprof_out p = { .o = { .ops = &pprof_ops, .needs_frames = 1 }, .in = in };
	char event[64];
	int status = 1;

	p.str_ids = strmap__new();
	p.sample_ids = strmap__new();
	p.loc_ids = strmap__new();
	p.func_ids = strmap__new();
	p.map_ids = strmap__new();
	p.bids = strmap__new();
	if (!p.str_ids || !p.sample_ids || !p.loc_ids || !p.func_ids || !p.map_ids ||
	    !p.bids || index_build_ids(&p))
		goto nomem;
	/* The string table starts with "", as pprof requires. */
	str_id(&p, "");
	p.k_pid = str_id(&p, "pid");
	p.k_tid = str_id(&p, "tid");
	p.k_cpu = str_id(&p, "cpu");
	p.k_comm = str_id(&p, "comm");
	if (p.err)
		goto nomem;
	if (record__replay(in->path, &p.o, pid, event, sizeof(event)))
		goto out;
	if (p.err)
		goto nomem;
	status = pack_and_write(&p, out);
	if (status == -ENOMEM)
		goto nomem;
	status = status ? 1 : 0;
	goto out;
nomem:
	p_err("out of memory converting %s to pprof", in->path);
out:
	vec_free(&p.strings, free);
	vec_free(&p.samples, free_sample);
	vec_free(&p.locations, free_location);
	vec_free(&p.functions, free);
	vec_free(&p.mappings, free);
	free(p.map_lo);
	free(p.map_hi);
	strmap__free(p.str_ids);
	strmap__free(p.sample_ids);
	strmap__free(p.loc_ids);
	strmap__free(p.func_ids);
	strmap__free(p.map_ids);
	strmap__free(p.bids);
	return status;
}
