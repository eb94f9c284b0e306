// SPDX-License-Identifier: GPL-2.0
/*
 * usyms.c - user-space symbolization.
 *
 * A sample address is mapped like perf does: the mapping [start, end) of
 * the process that covers it at the sample's time gives the file offset
 * (addr - start + pgoff, which is also what perf script prints), and the
 * DSO's symbols, read and chosen as perf does (dso.c), give name and
 * offset.  Like perf, every frame is looked up at its own address (no
 * "return address - 1").  An executable mapping without a file (JIT code)
 * is the process's JIT map instead, at the address itself (perfmap.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbols/debuginfod.h"
#include "lib/symbols/dso.h"
#include "lib/symbols/perfmap.h"
#include "lib/symbols/usyms.h"

#define HASH_BITS	10
#define HASH_SIZE	(1U << HASH_BITS)
#define TIME_FOREVER	UINT64_MAX

struct dso_node {
	struct dso_node *next;
	struct dso *dso;
};

struct umap {
	uint64_t start, end, pgoff;
	uint64_t time, until;	/* valid in [time, until) */
	struct dso *dso;
	int jit;		/* DSO is the JIT map: addresses as they are */
};

struct proc {
	struct proc *next;
	uint32_t pid;
	uint32_t gen;		/* bumped on every change of the maps */
	struct umap *maps;
	size_t nr, cap;
};

struct usyms {
	struct dso_node *dsos[HASH_SIZE];
	struct proc *procs[HASH_SIZE];
	int demangle;
	struct debuginfod *dbgd;	/* NULL: DEBUGINFOD_URLS unset */
	/*
	 * Build-ids learned for DSOs (any process's map, a snapshot): what
	 * every process's maps of those files answer changes with them.
	 */
	uint32_t learned;
};

static unsigned int hash_str(const char *s)
{
	unsigned int h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h & (HASH_SIZE - 1);
}

struct usyms *usyms__new(void)
{
	struct usyms *u = calloc(1, sizeof(struct usyms));

	if (u) {
		u->demangle = 1;
		u->dbgd = debuginfod__new();
	}
	return u;
}

void usyms__set_demangle(struct usyms *u, int on)
{
	u->demangle = on;
}

void usyms__free(struct usyms *u)
{
	unsigned int i;

	if (!u)
		return;
	for (i = 0; i < HASH_SIZE; i++) {
		while (u->dsos[i]) {
			struct dso_node *n = u->dsos[i];

			u->dsos[i] = n->next;
			dso__free(n->dso);
			free(n);
		}
		while (u->procs[i]) {
			struct proc *p = u->procs[i];

			u->procs[i] = p->next;
			free(p->maps);
			free(p);
		}
	}
	debuginfod__free(u->dbgd);
	free(u);
}

static struct dso *dso_find(struct usyms *u, const char *path, int create)
{
	unsigned int h = hash_str(path);
	struct dso_node *n;

	for (n = u->dsos[h]; n; n = n->next)
		if (!strcmp(dso__path(n->dso), path))
			return n->dso;
	if (!create)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->dso = dso__new(path);
	if (!n->dso) {
		free(n);
		return NULL;
	}
	dso__set_debuginfod(n->dso, u->dbgd);
	n->next = u->dsos[h];
	u->dsos[h] = n;
	return n->dso;
}

static struct proc *proc_find(struct usyms *u, uint32_t pid, int create)
{
	unsigned int h = pid & (HASH_SIZE - 1);
	struct proc *p;

	for (p = u->procs[h]; p; p = p->next)
		if (p->pid == pid)
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->gen = 1;
	p->next = u->procs[h];
	u->procs[h] = p;
	return p;
}

uint32_t usyms__generation(const struct usyms *u, uint32_t pid)
{
	const struct proc *p = proc_find((struct usyms *)u, pid, 0);

	/* Both only grow: the sum changes whenever either does. */
	return p ? p->gen + u->learned : 0;
}

static int proc_add(struct proc *p, const struct umap *m)
{
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct umap *maps = realloc(p->maps, cap * sizeof(*maps));

		if (!maps)
			return -ENOMEM;
		p->maps = maps;
		p->cap = cap;
	}
	p->maps[p->nr++] = *m;
	return 0;
}

int usyms__apply(struct usyms *u, const struct pev *e)
{
	struct proc *p = proc_find(u, e->pid, 1), *parent;
	char jit[PERFMAP_PATH_MAX];
	struct umap m;
	size_t i;

	if (!p)
		return -ENOMEM;
	p->gen++;
	switch (e->type) {
	case PEV_MMAP:
		m.start = e->start;
		m.end = e->start + e->len;
		m.pgoff = e->pgoff;
		m.time = e->time;
		m.until = TIME_FOREVER;
		m.jit = perfmap__covers(e->path);
		if (m.jit)
			perfmap__path(e->pid, jit);
		m.dso = dso_find(u, m.jit ? jit : e->path, 1);
		if (!m.dso)
			return -ENOMEM;
		if (dso__expect_build_id(m.dso, e->build_id, e->bid_len))
			u->learned++;
		/* A new mapping replaces what it overlaps. */
		for (i = 0; i < p->nr; i++) {
			struct umap *o = &p->maps[i];

			if (o->until == TIME_FOREVER && o->start < m.end &&
			    m.start < o->end && o->time <= m.time)
				o->until = m.time;
		}
		return proc_add(p, &m);
	case PEV_EXEC:
		for (i = 0; i < p->nr; i++)
			if (p->maps[i].until == TIME_FOREVER)
				p->maps[i].until = e->time;
		return 0;
	case PEV_FORK:
		parent = proc_find(u, e->ppid, 0);
		if (!parent || parent == p)
			return 0;
		/* The child starts with what the parent had mapped then. */
		for (i = 0; i < parent->nr; i++) {
			if (parent->maps[i].time > e->time || parent->maps[i].until <= e->time)
				continue;
			if (proc_add(p, &parent->maps[i]))
				return -ENOMEM;
		}
		return 0;
	}
	return -EINVAL;
}

/*
 * Where an answer of proc_lookup() holds: at the addresses covered by the
 * same maps and the times on the same side of each one's making and end,
 * it compares the same maps the same way.
 */
struct reach {
	unsigned int covers;	/* maps of P (at any time) over ADDR */
	uint64_t lo, hi;	/* the addresses around ADDR held by the same maps */
	uint64_t from, to;	/* the times around TIME no such map is made or ends at */
};

/* Narrow R's times to the side of X (a map's making or end) TIME lies on. */
static void narrow_times(struct reach *r, uint64_t time, uint64_t x)
{
	if (x <= time && x > r->from)
		r->from = x;
	if (x > time && x < r->to)
		r->to = x;
}

/*
 * The map of P over ADDR at TIME, as perf keeps them: the one mapped last
 * at or before TIME, even if an exec or a later mapping ended it since
 * (perf drops a map only where a new one overlaps it, and a task's user
 * registers still point into the old image until exec's last step).  A
 * map made after TIME is never the answer: an address only seems to lie
 * in it when a frame-pointer walk went through code built without frame
 * pointers, and perf, which takes maps in time order, has no map there.
 * R (struct reach) tells where the same answer holds.
 */
static const struct umap *proc_lookup(const struct proc *p, uint64_t time, uint64_t addr,
				      struct reach *r)
{
	const struct umap *best = NULL, *ended = NULL;
	size_t i;

	r->covers = 0;
	r->lo = 0;
	r->hi = UINT64_MAX;
	r->from = 0;
	r->to = UINT64_MAX;
	for (i = 0; i < p->nr; i++) {
		const struct umap *m = &p->maps[i];

		if (addr < m->start || addr >= m->end) {
			if (m->end <= addr && m->end > r->lo)
				r->lo = m->end;
			if (m->start > addr && m->start < r->hi)
				r->hi = m->start;
			continue;
		}
		if (m->start > r->lo)
			r->lo = m->start;
		if (m->end < r->hi)
			r->hi = m->end;
		r->covers++;
		narrow_times(r, time, m->time);
		narrow_times(r, time, m->until);
		if (m->time > time)
			continue;
		if (time < m->until) {
			if (!best || m->time >= best->time)
				best = m;
		} else if (!ended || m->time >= ended->time) {
			ended = m;
		}
	}
	return best ? best : ended;
}

int usyms__resolve(struct usyms *u, uint32_t pid, uint64_t time, uint64_t addr,
		   struct usym *r)
{
	struct proc *p = proc_find(u, pid, 0);
	const struct umap *m = NULL;
	struct reach reach = { 0 };

	r->name = NULL;
	r->off = 0;
	r->addr = addr;
	r->dso = "[unknown]";
	r->obj = NULL;
	if (p)
		m = proc_lookup(p, time, addr, &reach);
	/*
	 * No map over ADDR: none at any time.  One, already made: it from
	 * its start on (ended, it is still the last one there).
	 */
	r->stable = !reach.covers || (reach.covers == 1 && m);
	r->since = m ? m->time : 0;
	if (!m)
		return -ENOENT;
	r->addr = m->jit ? addr : addr - m->start + m->pgoff;
	r->dso = dso__path(m->dso);
	r->obj = m->dso;
	if (!dso__resolve(m->dso, r->addr, u->demangle, &r->name, &r->off))
		return 0;
	/* A JIT map may name it once the JIT has written more of it. */
	if (m->jit)
		r->stable = 0;
	return -ENOENT;
}

unsigned int usyms__inlines(struct usyms *u, const struct usym *r, const char *const **names)
{
	if (!r->name || !r->obj)
		return 0;
	return dso__inlines(r->obj, r->addr, u->demangle, names);
}

int usyms__map(struct usyms *u, uint32_t pid, uint64_t time, uint64_t addr,
	       struct usym_map *m)
{
	struct proc *p = proc_find(u, pid, 0);
	const struct umap *um = NULL;
	struct reach reach;

	if (p)
		um = proc_lookup(p, time, addr, &reach);
	if (!um)
		return -ENOENT;
	m->lo = reach.lo;
	m->hi = reach.hi;
	m->from = reach.from;
	m->to = reach.to;
	m->start = um->start;
	m->end = um->end;
	m->pgoff = um->pgoff;
	m->path = dso__path(um->dso);
	m->jit = um->jit;
	m->build_id_len = dso__build_id(um->dso, &m->build_id);
	return 0;
}

int usyms__parse_maps(uint32_t pid, uint64_t time, char *text,
		      int (*fn)(void *ctx, const struct pev *e), void *ctx)
{
	char *line, *save = NULL;
	int ret;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, pgoff, inode;
		char perms[8], *deleted;
		struct pev e = { .type = PEV_MMAP, .pid = pid, .time = time };
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n",
			   &start, &end, perms, &pgoff, &inode, &n) < 5 || !n)
			continue;
		if (!strchr(perms, 'x') || end <= start)
			continue;
		e.start = start;
		e.len = end - start;
		e.pgoff = pgoff;
		e.path = line + n;
		deleted = strstr(line + n, " (deleted)");
		if (deleted && !deleted[10])
			*deleted = '\0';
		if (!*e.path)
			e.path = "//anon";
		ret = fn(ctx, &e);
		if (ret)
			return ret;
	}
	return 0;
}

int usyms__save_dsos(struct usyms *u,
		     int (*write)(void *ctx, const void *blob, size_t len), void *ctx)
{
	struct dso_node *n;
	unsigned int i;
	int ret;

	for (i = 0; i < HASH_SIZE; i++)
		for (n = u->dsos[i]; n; n = n->next) {
			if (!dso__used(n->dso))
				continue;	/* never needed */
			ret = dso__save(n->dso, write, ctx);
			if (ret)
				return ret;
		}
	return 0;
}

int usyms__load_dso(struct usyms *u, const void *blob, size_t len)
{
	const char *path = dso__blob_path(blob, len);
	struct dso *d;

	if (!path)
		return -EBADMSG;
	d = dso_find(u, path, 1);
	if (!d)
		return -ENOMEM;
	u->learned++;	/* the snapshot's build-id, if D expects none */
	return dso__load_blob(d, blob, len);
}
