// SPDX-License-Identifier: GPL-2.0
/*
 * output_report.c - perf report --stdio, for kprof's samples.
 *
 * Samples are weighted by their period, as perf report weighs them.
 * While they stream in, only their distinct stacks are kept (the comm and
 * the frames' symbol ids, with the summed period and count), so the work
 * at the end is per distinct stack.  Then each stack adds to the entries
 * its frames fall in (the --sort keys, comm,dso,sym by default): Self for
 * the leaf's entry, Children for every entry the stack passes through,
 * once per stack (recursion counts once).  Rows are sorted by Children,
 * then Self (by Self alone with --no-children), cut at --percent-limit;
 * -g prints each row's call graph (output_report_graph.c): its callees
 * down to the leaves (caller order, perf's default) or its callers up to
 * the roots (callee order).  The header carries the totals the records
 * carry in-band: samples, period, lost by cause, throttles, lowerings.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/stream/output.h"
#include "tool/output/output_report_graph.h"
#include "lib/util/print.h"
#include "lib/util/strmap.h"

#define MAX_KEYS	3

enum sort_key { KEY_COMM, KEY_DSO, KEY_SYM };

struct entry {
	uint64_t children, self, samples, mark;
	char *comm;
	uint32_t sym;		/* a symbol of the entry's (the first seen) */
	struct rnode graph;
};

struct report {
	struct output o;
	const char *event;
	struct report_opts ro;
	enum sort_key keys[MAX_KEYS];
	unsigned int nr_keys;
	/* Key: 1 + comm length, comm, then put_id()s; a: period, b: count. */
	struct strmap *stacks;
	struct rsym *syms;	/* by sym_id */
	uint32_t nr_syms;
	struct out_totals tot;
	struct entry *entries;
	size_t nr_entries, cap_entries;
};

static const char *const key_names[] = { "comm", "dso", "sym" };

int output_report__parse_sort(const char *sort, struct report_opts *ro)
{
	char buf[64], *tok, *save;
	unsigned int n = 0, k;

	if (strlen(sort) >= sizeof(buf))
		goto bad;
	memcpy(buf, sort, strlen(sort) + 1);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < MAX_KEYS && strcmp(tok, key_names[k]); k++)
			;
		if (k == MAX_KEYS || n == MAX_KEYS)
			goto bad;
		ro->keys[n++] = k;
	}
	if (!n)
		goto bad;
	ro->nr_keys = n;
	return 0;
bad:
	p_err("bad --sort '%s': use comm, dso and sym, comma-separated (default comm,dso,sym)",
	      sort);
	return -1;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* The name of F's symbol id, kept the first time it shows. */
static int note_sym(struct report *rp, const struct out_frame *f)
{
	struct rsym *s;

	if (f->sym_id >= rp->nr_syms) {
		uint32_t n = rp->nr_syms ? rp->nr_syms : 1024;

		while (n <= f->sym_id)
			n *= 2;
		s = realloc(rp->syms, n * sizeof(*s));
		if (!s)
			return -1;
		memset(s + rp->nr_syms, 0, (n - rp->nr_syms) * sizeof(*s));
		rp->syms = s;
		rp->nr_syms = n;
	}
	s = &rp->syms[f->sym_id];
	if (s->path)
		return 0;
	s->name = f->sym ? strdup(f->sym) : NULL;
	s->path = strdup(f->dso);
	s->dso = s->path ? (char *)base(s->path) : NULL;
	s->kernel = f->kernel;
	s->inlined = f->inlined;
	return s->path && (!f->sym || s->name) ? 0 : -1;
}

/*
 * A symbol id as 1-6 bytes, none of them 0 (strmap keys are strings):
 * 6 bits a byte, plus 1, bit 7 set on all but the last.
 */
static char *put_id(char *p, uint32_t id)
{
	do {
		*p++ = (char)((1 + (id & 0x3f)) | (id > 0x3f ? 0x80 : 0));
		id >>= 6;
	} while (id);
	return p;
}

static const char *get_id(const char *p, uint32_t *id)
{
	unsigned int shift = 0;
	unsigned char c;

	*id = 0;
	do {
		c = (unsigned char)*p++;
		*id |= (uint32_t)((c & 0x7f) - 1) << shift;
		shift += 6;
	} while (c & 0x80);
	return p;
}

static int dso_matches(const struct report *rp, const struct out_frame *f)
{
	return !strcmp(f->dso, rp->ro.dso) || !strcmp(base(f->dso), rp->ro.dso);
}

/*
 * Where every frame at the sample's address is inlined (debug info names
 * the outermost function otherwise than the symbol table, a .constprop
 * clone say), the symbol the address lies in, as a frame before them:
 * it is the row perf report gives the sample's Self.  1 if made, in OUTER.
 */
static int outer_frame(const struct out_frame *f, unsigned int nr, struct out_frame *outer)
{
	unsigned int i;

	if (!f[0].inlined)
		return 0;
	for (i = 1; i < nr && f[i].addr == f[0].addr; i++)
		if (!f[i].inlined)
			return 0;
	*outer = f[0];
	outer->inlined = 0;
	outer->sym = f[0].outer;
	outer->sym_id = f[0].outer_id;
	return 1;
}

static int report_sample(struct output *o, const struct kp_record *r,
			 const struct out_frame *f, unsigned int nr)
{
	struct report *rp = (struct report *)o;
	char key[KPROF_COMM_LEN + 2 + (OUT_MAX_FRAMES + 1) * 6], *p;
	struct out_frame outer;
	struct strmap_entry *e;
	unsigned int i;

	if (!nr || (rp->ro.dso && !dso_matches(rp, &f[0])))
		return 0;
	/* Its length first: a comm may hold any byte but NUL. */
	i = strlen(r->sample.comm);
	key[0] = (char)(1 + i);
	memcpy(key + 1, r->sample.comm, i);
	p = key + 1 + i;
	if (outer_frame(f, nr, &outer)) {
		if (note_sym(rp, &outer))
			return -1;
		p = put_id(p, outer.sym_id);
	}
	for (i = 0; i < nr; i++) {
		if (note_sym(rp, &f[i]))
			return -1;
		p = put_id(p, f[i].sym_id);
	}
	e = strmap__get(rp->stacks, key, p - key);
	if (!e)
		return -1;
	e->a += r->sample.period;
	e->b++;
	out_totals__sample(&rp->tot, r);
	return 0;
}

static int report_event(struct output *o, const struct kp_record *r)
{
	out_totals__event(&((struct report *)o)->tot, r);
	return 0;
}

/* The entry (its index) of symbol SYM in a stack of COMM: the --sort fields. */
static long entry_of(struct report *rp, struct strmap *map, const char *comm, uint32_t sym)
{
	const struct rsym *s = &rp->syms[sym];
	struct strmap_entry *e;
	struct entry *en;
	char key[512];
	unsigned int k;
	size_t n = 0;

	for (k = 0; k < rp->nr_keys; k++) {
		if (rp->keys[k] == KEY_COMM)
			n += snprintf(key + n, sizeof(key) - n, "%s\x01", comm);
		else if (rp->keys[k] == KEY_DSO)
			n += snprintf(key + n, sizeof(key) - n, "%s\x01", s->path);
		else	/* a symbol is its name in its DSO */
			n += snprintf(key + n, sizeof(key) - n, "%s\x01%s\x01%d%d\x01",
				      s->name ? s->name : "", s->path, s->kernel, s->inlined);
		if (n >= sizeof(key))
			n = sizeof(key) - 1;
	}
	e = strmap__get(map, key, n);
	if (!e)
		return -1;
	if (e->a)
		return e->a - 1;
	if (rp->nr_entries == rp->cap_entries) {
		size_t c = rp->cap_entries ? 2 * rp->cap_entries : 256;

		en = realloc(rp->entries, c * sizeof(*en));
		if (!en)
			return -1;
		rp->entries = en;
		rp->cap_entries = c;
	}
	en = &rp->entries[rp->nr_entries];
	memset(en, 0, sizeof(*en));
	en->comm = strdup(comm);
	en->sym = sym;
	en->graph.sym = sym;
	if (!en->comm)
		return -1;
	e->a = ++rp->nr_entries;
	return e->a - 1;
}

/*
 * -g: the path below entry IDX[I] in its graph.  Caller order: from the
 * entry's outermost frame down to the leaf; callee order: from its
 * innermost up to the root.  Without children, rows are leaves: their
 * graph is their callers'.
 */
static unsigned int graph_path(const struct report *rp, const long *idx, const uint32_t *ids,
			       unsigned int nr, unsigned int i, uint32_t *path)
{
	unsigned int j, k = 0;

	if (rp->ro.call_graph == REPORT_CALLER && !rp->ro.no_children) {
		for (j = nr; j-- > i;)
			if (idx[j] == idx[i])
				break;
		while (j-- > 0)
			path[k++] = ids[j];
	} else {
		for (j = i + 1; j < nr; j++)
			path[k++] = ids[j];
	}
	return k;
}

/* Stack number NO (1-based): add it to the entries its frames fall in. */
static int add_stack(struct report *rp, struct strmap *map, const struct strmap_entry *st,
		     uint64_t no)
{
	uint32_t ids[OUT_MAX_FRAMES + 1], path[OUT_MAX_FRAMES + 1];
	size_t clen = (unsigned char)st->key[0] - 1;
	const char *p = st->key + 1 + clen;
	long idx[OUT_MAX_FRAMES + 1];
	char comm[KPROF_COMM_LEN + 1];
	unsigned int nr = 0, i, k, leaf, first, last;
	struct entry *e;

	memcpy(comm, st->key + 1, clen);
	comm[clen] = '\0';
	while (*p && nr < sizeof(ids) / sizeof(ids[0]))
		p = get_id(p, &ids[nr++]);
	/*
	 * The sample's own symbol is its first frame not inlined: perf report
	 * keeps Self on the symbol the code was inlined into (al->sym), and
	 * inline frames count as callers only.  Without children only that
	 * entry counts.
	 */
	if (!nr)
		return 0;
	for (leaf = 0; leaf + 1 < nr && rp->syms[ids[leaf]].inlined; leaf++)
		;
	first = rp->ro.no_children ? leaf : 0;
	last = rp->ro.no_children ? leaf + 1 : nr;
	for (i = first; i < last; i++) {
		idx[i] = entry_of(rp, map, comm, ids[i]);
		if (idx[i] < 0)
			return -1;
	}
	for (i = first; i < last; i++) {
		e = &rp->entries[idx[i]];
		if (i == leaf) {
			e->self += st->a;
			e->samples += st->b;
		}
		if (e->mark == no)	/* recursion: once per stack */
			continue;
		e->mark = no;
		e->children += st->a;
		if (!rp->ro.call_graph)
			continue;
		k = graph_path(rp, idx, ids, nr, i, path);
		if (rgraph__add(&e->graph, path, k, st->a))
			return -1;
	}
	return 0;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c;

	if (x->children != y->children)
		return x->children > y->children ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	c = strcmp(x->comm, y->comm);
	return c ? c : (x->sym > y->sym) - (x->sym < y->sym);
}

/* Column K's text for entry E. */
static const char *column(const struct report *rp, const struct entry *e, unsigned int k,
			  char *buf, size_t len)
{
	const struct rsym *s = &rp->syms[e->sym];

	switch (rp->keys[k]) {
	case KEY_COMM:
		return e->comm;
	case KEY_DSO:
		return s->dso;
	default:
		snprintf(buf, len, "[%c] %s%s", s->kernel ? 'k' : '.', s->name ? s->name : "[unknown]",
			 s->inlined ? " (inlined)" : "");
		return buf;
	}
}

/* The graph's root: the row's symbol, or its first column without one. */
static const char *graph_label(const struct report *rp, const struct entry *e, char *buf,
			       size_t len)
{
	unsigned int k;

	for (k = 0; k < rp->nr_keys; k++)
		if (rp->keys[k] == KEY_SYM)
			return column(rp, e, k, buf, len) + 4;	/* without "[k] " */
	return column(rp, e, 0, buf, len);
}

static void print_header(struct report *rp, const int *width)
{
	static const char *const titles[] = { "Command", "Shared Object", "Symbol" };
	const struct out_totals *t = &rp->tot;
	FILE *f = rp->o.f;
	unsigned int k;
	int i;

	fprintf(f, "# Total Lost Samples: %llu (full %llu, nested %llu, stopped %llu, throttled %llu)\n#\n",
		(unsigned long long)out_totals__lost(t), (unsigned long long)t->lost_full,
		(unsigned long long)t->lost_nested, (unsigned long long)t->lost_stopped,
		(unsigned long long)t->lost_throttled);
	fprintf(f, "# Samples: %llu of event '%s'%s%s\n", (unsigned long long)t->samples,
		rp->event, rp->ro.dso ? ", in DSO " : "", rp->ro.dso ? rp->ro.dso : "");
	fprintf(f, "# Event count (approx.): %llu\n", (unsigned long long)t->period);
	fprintf(f, "# Throttles: %llu, rate lowerings: %llu\n#\n",
		(unsigned long long)t->throttles, (unsigned long long)t->lowerings);
	fprintf(f, rp->ro.no_children ? "# Overhead" : "# Children      Self");
	if (rp->ro.show_samples)
		fprintf(f, "    Samples");
	for (k = 0; k < rp->nr_keys; k++)
		fprintf(f, "  %-*s", k + 1 < rp->nr_keys ? width[k] : 0, titles[rp->keys[k]]);
	fprintf(f, rp->ro.no_children ? "\n# ........" : "\n# ........  ........");
	if (rp->ro.show_samples)
		fprintf(f, "  .........");
	for (k = 0; k < rp->nr_keys; k++) {
		fputs("  ", f);
		for (i = 0; i < width[k]; i++)
			fputc('.', f);
	}
	fputs("\n#\n", f);
}

static int report_finish(struct output *o, const struct out_summary *s)
{
	struct report *rp = (struct report *)o;
	double total = rp->tot.period ? (double)rp->tot.period : 1.0;
	struct strmap *map = strmap__new();
	struct strmap_entry **st = NULL;
	int width[MAX_KEYS], ret = -1;
	size_t nr, i, shown = 0;
	unsigned int k;
	char buf[512];

	(void)s;
	st = strmap__entries(rp->stacks, &nr);
	if (!map || !st)
		goto out;
	for (i = 0; i < nr; i++)
		if (add_stack(rp, map, st[i], i + 1))
			goto out;
	qsort(rp->entries, rp->nr_entries, sizeof(*rp->entries), cmp_entry);
	for (k = 0; k < rp->nr_keys; k++)
		width[k] = rp->keys[k] == KEY_COMM ? 7 : rp->keys[k] == KEY_DSO ? 13 : 6;
	for (i = 0; i < rp->nr_entries; i++)
		for (k = 0; k < rp->nr_keys; k++) {
			int w = strlen(column(rp, &rp->entries[i], k, buf, sizeof(buf)));

			width[k] = w > width[k] ? w : width[k];
		}
	print_header(rp, width);
	for (i = 0; i < rp->nr_entries; i++) {
		const struct entry *e = &rp->entries[i];
		double pct = 100.0 * (rp->ro.no_children ? e->self : e->children) / total;

		if (pct < rp->ro.percent_limit)
			continue;
		shown++;
		if (rp->ro.no_children)
			fprintf(o->f, "%9.2f%%", 100.0 * e->self / total);
		else
			fprintf(o->f, "%9.2f%% %8.2f%%", 100.0 * e->children / total,
				100.0 * e->self / total);
		if (rp->ro.show_samples)
			fprintf(o->f, "  %9llu", (unsigned long long)e->samples);
		for (k = 0; k < rp->nr_keys; k++)
			fprintf(o->f, "  %-*s", k + 1 < rp->nr_keys ? width[k] : 0,
				column(rp, e, k, buf, sizeof(buf)));
		fputc('\n', o->f);
		if (rp->ro.call_graph && e->graph.child)
			rgraph__print(o->f, &e->graph, graph_label(rp, e, buf, sizeof(buf)),
				      rp->syms, total, REPORT_GRAPH_MIN_PCT);
	}
	if (shown < rp->nr_entries)
		fprintf(o->f, "#\n# %zu entries below --percent-limit %g%% not shown\n",
			rp->nr_entries - shown, rp->ro.percent_limit);
	ret = 0;
out:
	free(st);
	strmap__free(map);
	if (ret)
		p_err("out of memory");
	return ret || fflush(o->f) || ferror(o->f) ? -1 : 0;
}

static void report_free(struct output *o)
{
	struct report *rp = (struct report *)o;
	size_t i;

	for (i = 0; i < rp->nr_entries; i++) {
		rgraph__free(&rp->entries[i].graph);
		free(rp->entries[i].comm);
	}
	for (i = 0; i < rp->nr_syms; i++) {
		free(rp->syms[i].name);
		free(rp->syms[i].path);
	}
	free(rp->entries);
	free(rp->syms);
	strmap__free(rp->stacks);
	free(rp);
}

static const struct output_ops report_ops = {
	.sample = report_sample,
	.event = report_event,
	.finish = report_finish,
	.free = report_free,
};

struct output *output_report__new(FILE *f, const char *event, const struct report_opts *ro)
{
	struct report *rp = calloc(1, sizeof(*rp));
	unsigned int k;

	if (!rp)
		return NULL;
	rp->stacks = strmap__new();
	if (!rp->stacks) {
		free(rp);
		return NULL;
	}
	if (ro)
		rp->ro = *ro;
	if (!rp->ro.nr_keys) {
		rp->ro.nr_keys = MAX_KEYS;
		for (k = 0; k < MAX_KEYS; k++)
			rp->ro.keys[k] = k;
	}
	rp->nr_keys = rp->ro.nr_keys;
	for (k = 0; k < rp->nr_keys; k++)
		rp->keys[k] = rp->ro.keys[k];
	rp->o.ops = &report_ops;
	rp->o.f = f;
	rp->o.needs_frames = 1;
	rp->event = event;
	return &rp->o;
}
