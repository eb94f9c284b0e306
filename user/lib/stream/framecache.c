// SPDX-License-Identifier: GPL-2.0
/*
 * framecache.c - open-addressing tables of frames and of (symbol, DSO)
 * ids, lines in a chunked arena (pointers stay valid until a restart).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/fmt.h"
#include "lib/stream/framecache.h"

#define KERNEL_PID	0xffffffffU	/* key of kernel frames */
#define HIDDEN_PID	0xfffffffeU	/* kernel frames not to look up */
#define CHUNK		(1U << 20)
/*
 * Hashes of chains seen once: 4 Ki slots at first, doubled when half
 * used up to 64 Ki (512 KiB), as a table's slots are touched all over.
 */
#define SEEN_FIRST	(1U << 12)
#define SEEN_MAX	(1U << 16)
/* Frame slots: 1 Ki at first, doubled when half full. */
#define TAB_FIRST	(1U << 10)

/*
 * A slot of the frame table: the key and the entry it is in, apart, so
 * that a probe touches 16 bytes a slot, and the table's pages (calloc()'s
 * zero pages, each read before written: two page faults) are few.
 */
struct slot {
	uint64_t addr;
	uint32_t pid;
	uint32_t idx;		/* ents[idx - 1]; 0: a free slot */
};

/* The frames of a slot; entries are added back to back, dropped all at once by a trim. */
struct entry {
	uint32_t gen;
	uint64_t since;		/* F holds for samples from this time on */
	uint32_t inl;		/* the answer with inline frames (framecache__user()) */
	uint32_t nr;		/* frames: F alone (1), else MORE[NR] */
	const struct out_frame *more;	/* in the arena */
	struct out_frame f;
};

struct symkey {
	const char *sym, *dso;
	uint32_t kind, id;	/* kernel | inlined << 1 */
	int used;
};

struct chunk {
	struct chunk *next;
	size_t used;
	char data[];
};

/* A whole call chain: its key, then its frames, then their lines. */
struct stack {
	uint64_t hash;
	uint64_t since;		/* the frames hold for samples from this time on */
	uint32_t nkey, nr;
	uint64_t key[];
};

struct framecache {
	struct slot *tab;
	uint32_t cap, nr;	/* slots; entries in use */
	struct entry *ents;
	uint32_t ents_cap;
	struct stack **stacks;
	uint32_t stacks_cap, nr_stacks;
	struct chunk *stack_chunks;
	size_t stack_bytes;
	uint64_t *seen;			/* by hash */
	uint32_t seen_slots, nr_seen;
	struct symkey *keys;
	uint32_t keys_cap, nr_ids;
	struct chunk *chunks;
	size_t bytes;
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

struct framecache *framecache__new(void)
{
	struct framecache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->cap = TAB_FIRST;
	c->tab = calloc(c->cap, sizeof(*c->tab));
	c->keys_cap = 1024;
	c->keys = calloc(c->keys_cap, sizeof(*c->keys));
	c->seen_slots = SEEN_FIRST;
	c->seen = calloc(c->seen_slots, sizeof(*c->seen));
	if (!c->tab || !c->keys || !c->seen) {
		framecache__free(c);
		return NULL;
	}
	return c;
}

static void free_list(struct chunk **list, size_t *bytes)
{
	while (*list) {
		struct chunk *n = (*list)->next;

		free(*list);
		*list = n;
	}
	*bytes = 0;
}

static void free_chunks(struct framecache *c)
{
	free_list(&c->chunks, &c->bytes);
}

void framecache__free(struct framecache *c)
{
	if (!c)
		return;
	free_chunks(c);
	free_list(&c->stack_chunks, &c->stack_bytes);
	free(c->stacks);
	free(c->seen);
	free(c->tab);
	free(c->ents);
	free(c->keys);
	free(c);
}

static char *chunk_alloc(struct chunk **list, size_t *bytes, size_t len)
{
	struct chunk *ch = *list;

	len = (len + 7) & ~(size_t)7;
	if (!ch || ch->used + len > CHUNK) {
		size_t size = len > CHUNK ? len : CHUNK;

		ch = malloc(sizeof(*ch) + size);
		if (!ch)
			return NULL;
		ch->used = 0;
		/* A long line gets a chunk of its own, behind the current one. */
		if (len > CHUNK && *list) {
			ch->next = (*list)->next;
			(*list)->next = ch;
		} else {
			ch->next = *list;
			*list = ch;
		}
		*bytes += size;
	}
	ch->used += len;
	return ch->data + ch->used - len;
}

static char *arena_alloc(struct framecache *c, size_t len)
{
	return chunk_alloc(&c->chunks, &c->bytes, len);
}

/*
 * The id of (SYM, DSO, KIND: kernel | inlined << 1); names are the symbol
 * tables' (and inline.c's interned) own strings.
 */
static int sym_id(struct framecache *c, const char *sym, const char *dso, uint32_t kind,
		  uint32_t *id)
{
	uint32_t i, mask;

	if ((c->nr_ids + 1) * 2 > c->keys_cap) {
		uint32_t ncap = c->keys_cap * 2, j;
		struct symkey *nk = calloc(ncap, sizeof(*nk));

		if (!nk)
			return -ENOMEM;
		for (j = 0; j < c->keys_cap; j++) {
			struct symkey *k = &c->keys[j];

			if (!k->used)
				continue;
			i = mix((uintptr_t)k->sym ^ mix((uintptr_t)k->dso + k->kind)) &
			    (ncap - 1);
			while (nk[i].used)
				i = (i + 1) & (ncap - 1);
			nk[i] = *k;
		}
		free(c->keys);
		c->keys = nk;
		c->keys_cap = ncap;
	}
	mask = c->keys_cap - 1;
	i = mix((uintptr_t)sym ^ mix((uintptr_t)dso + kind)) & mask;
	while (c->keys[i].used) {
		struct symkey *k = &c->keys[i];

		if (k->sym == sym && k->dso == dso && k->kind == kind) {
			*id = k->id;
			return 0;
		}
		i = (i + 1) & mask;
	}
	c->keys[i] = (struct symkey){ .sym = sym, .dso = dso, .kind = kind,
				      .id = c->nr_ids++, .used = 1 };
	*id = c->keys[i].id;
	return 0;
}

/*
 * "\t%16llx %s+0x%llx (%s)\n", or "[unknown]" without offset; an inline
 * frame "(inlined)" for the DSO (sample__fprintf_callchain()).
 */
static int make_line(struct framecache *c, struct out_frame *f)
{
	size_t sym_len = f->sym ? strlen(f->sym) : 0, dso_len = strlen(f->dso);
	char *line, *p;

	/* Tab, 16+ hex digits, " ", name, "+0x" and 16 digits, " (", dso, ")\n". */
	line = arena_alloc(c, 1 + 16 + 1 + sym_len + 9 + 3 + 16 + 2 + dso_len + 2);
	if (!line)
		return -ENOMEM;
	p = line;
	*p++ = '\t';
	p = fmt_hex_pad(p, f->addr, 16);
	*p++ = ' ';
	if (f->sym) {
		p = fmt_str(p, f->sym, sym_len);
		p = fmt_hex(fmt_str(p, "+0x", 3), f->off);
	} else {
		p = fmt_str(p, "[unknown]", 9);
	}
	if (f->inlined) {
		p = fmt_str(p, " (inlined)\n", 11);
	} else {
		p = fmt_str(p, " (", 2);
		p = fmt_str(p, f->dso, dso_len);
		p = fmt_str(p, ")\n", 2);
	}
	f->line = line;
	f->line_len = p - line;
	if (sym_id(c, f->sym, f->dso, f->kernel | f->inlined << 1, &f->sym_id))
		return -ENOMEM;
	if (!f->inlined) {
		f->outer = f->sym;
		f->outer_id = f->sym_id;
		return 0;
	}
	return sym_id(c, f->outer, f->dso, f->kernel, &f->outer_id);
}

void framecache__trim(struct framecache *c)
{
	if (c->stack_bytes >= FRAMECACHE_MAX_BYTES) {
		memset(c->stacks, 0, c->stacks_cap * sizeof(*c->stacks));
		c->nr_stacks = 0;
		free_list(&c->stack_chunks, &c->stack_bytes);
	}
	if (c->bytes < FRAMECACHE_MAX_BYTES)
		return;
	memset(c->tab, 0, c->cap * sizeof(*c->tab));
	c->nr = 0;
	free_chunks(c);
}

/* Two lanes (even and odd words): half the multiply chain's latency. */
static uint64_t hash_key(const uint64_t *key, unsigned int n)
{
	uint64_t a = 0x9e3779b97f4a7c15ULL, b = 0xc2b2ae3d27d4eb4fULL;
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2) {
		a = (a ^ key[i]) * 0xff51afd7ed558ccdULL;
		b = (b ^ key[i + 1]) * 0xc4ceb9fe1a85ec53ULL;
	}
	if (i < n)
		a = (a ^ key[i]) * 0xff51afd7ed558ccdULL;
	return mix(a ^ (b >> 1) ^ n);
}

static struct out_frame *stack_frames(struct stack *st)
{
	return (struct out_frame *)(st->key + st->nkey);
}

const struct out_frame *framecache__stack_find(struct framecache *c, const uint64_t *key,
					       unsigned int nkey, uint64_t time, unsigned int *nr)
{
	uint64_t h = hash_key(key, nkey);
	uint32_t i, mask = c->stacks_cap - 1;
	struct stack *st;

	if (!c->stacks_cap)
		return NULL;
	for (i = h & mask; (st = c->stacks[i]); i = (i + 1) & mask) {
		if (st->hash == h && st->nkey == nkey &&
		    !memcmp(st->key, key, nkey * sizeof(*key))) {
			if (time < st->since)
				return NULL;
			*nr = st->nr;
			return stack_frames(st);
		}
	}
	return NULL;
}

static int stacks_grow(struct framecache *c)
{
	uint32_t ncap = c->stacks_cap ? c->stacks_cap * 2 : 1024, j;
	struct stack **nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (j = 0; j < c->stacks_cap; j++) {
		struct stack *st = c->stacks[j];
		uint32_t i;

		if (!st)
			continue;
		for (i = st->hash & (ncap - 1); nt[i]; i = (i + 1) & (ncap - 1))
			;
		nt[i] = st;
	}
	free(c->stacks);
	c->stacks = nt;
	c->stacks_cap = ncap;
	return 0;
}

/* Twice the slots for the hashes seen once, those kept that still fit. */
static void seen_grow(struct framecache *c)
{
	uint32_t n = c->seen_slots * 2, j;
	uint64_t *s = calloc(n, sizeof(*s));

	if (!s)
		return;
	c->nr_seen = 0;
	for (j = 0; j < c->seen_slots; j++) {
		uint64_t h = c->seen[j], *slot = &s[h & (n - 1)];

		if (!h)
			continue;
		c->nr_seen += !*slot;
		*slot = h;
	}
	free(c->seen);
	c->seen = s;
	c->seen_slots = n;
}

/*
 * Whether the chain hashed H was seen before; if not, it is now.  A slot
 * may be shared: a chain whose slot another took waits for a later
 * sighting.
 */
static int seen_before(struct framecache *c, uint64_t h)
{
	uint64_t *s = &c->seen[h & (c->seen_slots - 1)];

	if (*s == h)
		return 1;
	c->nr_seen += !*s;
	*s = h;
	if (c->nr_seen * 2 > c->seen_slots && c->seen_slots < SEEN_MAX)
		seen_grow(c);
	return 0;
}

const struct out_frame *framecache__stack_add(struct framecache *c, const uint64_t *key,
					      unsigned int nkey, uint64_t since,
					      const struct out_frame *f, unsigned int nr)
{
	size_t text = 0, size;
	struct out_frame *sf;
	struct stack *st;
	unsigned int i;
	uint32_t j;
	char *p;

	uint64_t h = hash_key(key, nkey);

	/* The first sighting only leaves its hash. */
	if (!seen_before(c, h))
		return NULL;
	if ((c->nr_stacks + 1) * 2 > c->stacks_cap && stacks_grow(c))
		return NULL;
	for (i = 0; i < nr; i++)
		text += f[i].line_len;
	size = sizeof(*st) + nkey * sizeof(*key) + nr * sizeof(*f) + text;
	st = (struct stack *)chunk_alloc(&c->stack_chunks, &c->stack_bytes, size);
	if (!st)
		return NULL;
	st->hash = h;
	st->since = since;
	st->nkey = nkey;
	st->nr = nr;
	memcpy(st->key, key, nkey * sizeof(*key));
	sf = stack_frames(st);
	/* The lines back to back, so the script output copies them at once. */
	p = (char *)(sf + nr);
	for (i = 0; i < nr; i++) {
		sf[i] = f[i];
		sf[i].line = p;
		p = fmt_str(p, f[i].line, f[i].line_len);
	}
	for (j = st->hash & (c->stacks_cap - 1); c->stacks[j]; j = (j + 1) & (c->stacks_cap - 1))
		;
	c->stacks[j] = st;
	c->nr_stacks++;
	return sf;
}

static int grow(struct framecache *c)
{
	uint32_t ncap = c->cap * 2, j;
	struct slot *nt = calloc(ncap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	for (j = 0; j < c->cap; j++) {
		struct slot *e = &c->tab[j];
		uint32_t i;

		if (!e->idx)
			continue;
		i = mix(e->addr ^ ((uint64_t)e->pid << 40)) & (ncap - 1);
		while (nt[i].idx)
			i = (i + 1) & (ncap - 1);
		nt[i] = *e;
	}
	free(c->tab);
	c->tab = nt;
	c->cap = ncap;
	return 0;
}

/* The slot of (PID, ADDR): in use (its entry in *E) or free for it; NULL: no room. */
static struct slot *slot(struct framecache *c, uint32_t pid, uint64_t addr, struct entry **e)
{
	uint32_t i, mask;

	*e = NULL;
	if ((c->nr + 1) * 2 > c->cap && grow(c))
		return NULL;
	mask = c->cap - 1;
	i = mix(addr ^ ((uint64_t)pid << 40)) & mask;
	while (c->tab[i].idx) {
		if (c->tab[i].addr == addr && c->tab[i].pid == pid) {
			*e = &c->ents[c->tab[i].idx - 1];
			return &c->tab[i];
		}
		i = (i + 1) & mask;
	}
	return &c->tab[i];
}

/* The entry of slot S, for (PID, ADDR): its own, or a new one; NULL: no memory. */
static struct entry *claim(struct framecache *c, struct slot *s, uint32_t pid, uint64_t addr)
{
	if (s->idx)
		return &c->ents[s->idx - 1];
	if (c->nr == c->ents_cap) {
		uint32_t ncap = c->ents_cap ? c->ents_cap * 2 : TAB_FIRST / 2;
		struct entry *n = realloc(c->ents, ncap * sizeof(*n));

		if (!n)
			return NULL;
		c->ents = n;
		c->ents_cap = ncap;
	}
	s->addr = addr;
	s->pid = pid;
	s->idx = ++c->nr;
	return &c->ents[s->idx - 1];
}

static void fill_user(const struct usym *r, struct out_frame *f)
{
	f->addr = r->addr;
	f->kernel = 0;
	f->inlined = 0;
	f->sym = r->name;
	f->outer = r->name;
	f->off = r->off;
	f->dso = r->dso;
	f->line = NULL;
	f->line_len = 0;
}

/*
 * The frames of R in F (at most ROOM): with INL, one per name
 * usyms__inlines() gives, the symbol's own where the name is its own,
 * else R's alone.  How many, or -ENOMEM.
 */
static int make_frames(struct framecache *c, struct usyms *u, const struct usym *r, int inl,
		       struct out_frame *f, unsigned int room)
{
	const char *const *names;
	unsigned int i, n = inl ? usyms__inlines(u, r, &names) : 0;

	if (!n) {
		fill_user(r, f);
		return make_line(c, f) ? -ENOMEM : 1;
	}
	if (n > room)
		n = room;
	for (i = 0; i < n; i++) {
		fill_user(r, &f[i]);
		if (strcmp(names[i], r->name)) {
			f[i].sym = names[i];
			f[i].inlined = 1;
		}
		if (make_line(c, &f[i]))
			return -ENOMEM;
	}
	return n;
}

/* Keep F[NR] in slot S for (PID, GEN, ADDR, INL), over what it held. */
static void keep_user(struct framecache *c, struct slot *s, uint32_t pid,
		      uint32_t gen, uint64_t addr, int inl, uint64_t since,
		      const struct out_frame *f, unsigned int nr)
{
	struct out_frame *more = NULL;
	struct entry *e;

	if (nr > 1) {
		more = (struct out_frame *)arena_alloc(c, nr * sizeof(*f));
		if (!more)
			return;
		memcpy(more, f, nr * sizeof(*f));
	}
	e = claim(c, s, pid, addr);
	if (!e)
		return;
	e->gen = gen;
	e->since = since;
	e->inl = inl;
	e->nr = nr;
	e->more = more;
	e->f = f[0];
}

int framecache__user(struct framecache *c, struct usyms *u, uint32_t pid, uint32_t gen,
		     uint64_t time, uint64_t addr, int inl, struct out_frame *f,
		     unsigned int room, unsigned int *nr, uint64_t *since)
{
	struct entry *e;
	struct slot *s;
	struct usym r;
	int n;

	s = slot(c, pid, addr, &e);
	if (e && e->gen == gen && time >= e->since && e->inl == (uint32_t)inl) {
		*nr = e->nr < room ? e->nr : room;
		if (e->nr > 1)
			memcpy(f, e->more, *nr * sizeof(*f));
		else
			*f = e->f;
		*since = e->since;
		return 0;
	}
	usyms__resolve(u, pid, time, addr, &r);
	*since = r.since;
	n = make_frames(c, u, &r, inl, f, room);
	if (n < 0)
		return n;
	*nr = n;
	/*
	 * Not kept: an answer a later sample may not share (several maps
	 * over ADDR, or its one map made after this sample).
	 */
	if (!r.stable)
		return 1;
	/* Nor for generation 0, a pid without maps yet: its frames are all [unknown]. */
	if (s && gen)
		keep_user(c, s, pid, gen, addr, inl, *since, f, n);
	return 0;
}

int framecache__kernel(struct framecache *c, const struct ksyms *k, uint64_t addr,
		       struct out_frame *f)
{
	uint32_t pid = !k ? HIDDEN_PID : KERNEL_PID;
	struct entry *e;
	struct slot *s;

	s = slot(c, pid, addr, &e);
	if (e) {
		*f = e->f;
		return 0;
	}
	f->addr = addr;
	f->kernel = 1;
	f->inlined = 0;
	f->sym = NULL;
	f->off = 0;
	f->dso = "[kernel.kallsyms]";
	if (addr && pid == KERNEL_PID && ksyms__resolve(k, addr, &f->sym, &f->off, &f->dso))
		f->sym = NULL;
	if (make_line(c, f))
		return -ENOMEM;
	e = s ? claim(c, s, pid, addr) : NULL;
	if (!e)
		return 0;
	e->gen = 1;
	e->since = 0;
	e->nr = 1;
	e->f = *f;
	return 0;
}
