// SPDX-License-Identifier: GPL-2.0
/*
 * symtab.c - perf's symbol choice (see symtab.h; the rules are those of
 * tools/perf/util/symbol.c in Linux 6.1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "lib/symbols/symtab.h"

struct symtab {
	struct symtab_sym *syms;	/* sorted by start, stable */
	size_t nr, cap;
	struct symtab_sym *batch;	/* queued by symtab__add() */
	size_t nbatch, batch_cap;
	char *names;
	size_t names_len, names_cap;
	const char *text;	/* the names, not ours: symtab__new_in() */
};

struct symtab *symtab__new(void)
{
	return calloc(1, sizeof(struct symtab));
}

struct symtab *symtab__new_in(const char *text)
{
	struct symtab *t = symtab__new();

	if (t)
		t->text = text;
	return t;
}

void symtab__free(struct symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->batch);
	free(t->names);
	free(t);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t ncap = *cap ? *cap : 64;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*p, ncap * size);
	if (!n)
		return -ENOMEM;
	*p = n;
	*cap = ncap;
	return 0;
}

int symtab__reserve(struct symtab *t, size_t nr, size_t names)
{
	if (grow((void **)&t->batch, &t->batch_cap, t->nbatch + nr, sizeof(*t->batch)) ||
	    (!t->text && grow((void **)&t->names, &t->names_cap, t->names_len + names, 1)))
		return -ENOMEM;
	return 0;
}

/* The offset of NAME (LEN bytes) in T's names, copied there unless in place. */
static int name_offset(struct symtab *t, const char *name, size_t len, uint32_t *off)
{
	if (t->text) {
		if ((size_t)(name - t->text) > UINT32_MAX)
			return -ENOMEM;
		*off = name - t->text;
		return 0;
	}
	if (grow((void **)&t->names, &t->names_cap, t->names_len + len + 1, 1) ||
	    t->names_len + len + 1 > UINT32_MAX)
		return -ENOMEM;
	memcpy(t->names + t->names_len, name, len);
	t->names[t->names_len + len] = '\0';
	*off = t->names_len;
	t->names_len += len + 1;
	return 0;
}

int symtab__add_len(struct symtab *t, uint64_t start, uint64_t size, int binding,
		    const char *name, size_t len)
{
	struct symtab_sym *s;
	uint32_t off;

	if (len >= 1U << 30 ||
	    grow((void **)&t->batch, &t->batch_cap, t->nbatch + 1, sizeof(*t->batch)) ||
	    name_offset(t, name, len, &off))
		return -ENOMEM;
	s = &t->batch[t->nbatch++];
	s->start = start;
	/* symbol__new(): a symbol of size zero ends where it starts. */
	s->end = start + size;
	s->name = off;
	s->len = len;
	s->binding = binding;
	return 0;
}

int symtab__add(struct symtab *t, uint64_t start, uint64_t size, int binding,
		const char *name)
{
	return symtab__add_len(t, start, size, binding, name, strlen(name));
}

/*
 * X goes before Y: by start, then by name, which is stable: names are
 * appended (or lie in the text) in insertion order.
 */
static int before(const struct symtab_sym *x, const struct symtab_sym *y)
{
	return x->start < y->start || (x->start == y->start && x->name < y->name);
}

static int by_start(const void *a, const void *b)
{
	return before(a, b) ? -1 : before(b, a);
}

/*
 * Runs WIDTH long of SRC, merged two by two into DST (N entries): from the
 * left run where neither goes before the other, so equal entries keep
 * their order, as in glibc's merge sort behind qsort().
 */
static void merge_pass(const struct symtab_sym *src, struct symtab_sym *dst, size_t n,
		       size_t width)
{
	size_t lo, mid, hi, i, j, k;

	for (lo = 0; lo < n; lo = hi) {
		mid = lo + width < n ? lo + width : n;
		hi = mid + width < n ? mid + width : n;
		i = lo;
		j = mid;
		k = lo;
		/* Runs already in order, as most of a symbol table's are: one copy. */
		if (mid < hi && before(&src[mid], &src[mid - 1])) {
			while (i < mid && j < hi)
				dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
		}
		memcpy(dst + k, src + i, (mid - i) * sizeof(*dst));
		k += mid - i;
		memcpy(dst + k, src + j, (hi - j) * sizeof(*dst));
	}
}

/*
 * The batch in by_start()'s order, as qsort() leaves it, with the
 * comparison inline: qsort() calls by_start() through a pointer and
 * copies entries by their size, 8 million instructions for the symbol
 * tables a perl profile reads (libc's debug file among them).
 */
static void sort_batch(struct symtab *t)
{
	struct symtab_sym *tmp = malloc(t->nbatch * sizeof(*tmp)), *src = t->batch, *dst = tmp;
	struct symtab_sym *swap;
	size_t width;

	if (!tmp) {
		qsort(t->batch, t->nbatch, sizeof(*t->batch), by_start);
		return;
	}
	for (width = 1; width < t->nbatch; width *= 2) {
		merge_pass(src, dst, t->nbatch, width);
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != t->batch)
		memcpy(t->batch, src, t->nbatch * sizeof(*src));
	free(tmp);
}

int symtab__commit(struct symtab *t)
{
	size_t i = t->nr, j = t->nbatch, k = t->nr + t->nbatch;
	int n = t->nbatch;

	/* kallsyms and most symbol tables come sorted already. */
	for (j = 1; j < t->nbatch && t->batch[j - 1].start <= t->batch[j].start; j++)
		;
	if (j < t->nbatch)
		sort_batch(t);
	if (!t->nr) {		/* the first batch is the table: no copy */
		free(t->syms);
		t->syms = t->batch;
		t->cap = t->batch_cap;
		t->nr = t->nbatch;
		goto done;
	}
	if (grow((void **)&t->syms, &t->cap, k, sizeof(*t->syms)))
		return -ENOMEM;
	j = t->nbatch;
	/* Merge from the end; on equal starts the table's symbols go first. */
	while (j) {
		if (i && t->syms[i - 1].start > t->batch[j - 1].start)
			t->syms[--k] = t->syms[--i];
		else
			t->syms[--k] = t->batch[--j];
	}
	t->nr += t->nbatch;
	free(t->batch);
done:
	t->nbatch = 0;
	t->batch = NULL;
	t->batch_cap = 0;
	return n;
}

static uint64_t page_after(uint64_t x)
{
	return ((x + 4095) & ~4095ULL) + 4096;
}

/* A kallsyms name "name\t[module]" is a module's. */
static int module_sym(const struct symtab *t, const struct symtab_sym *s)
{
	return !!memchr(symtab__name(t, s), '[', s->len);
}

void symtab__fixup_end(struct symtab *t, int kallsyms)
{
	int prev_mod, curr_mod = kallsyms && t->nr && module_sym(t, &t->syms[0]);
	size_t i;

	for (i = 1; i < t->nr; i++) {
		struct symtab_sym *prev = &t->syms[i - 1], *curr = &t->syms[i];

		/* Each name looked at once: kallsyms has a hundred thousand. */
		prev_mod = curr_mod;
		curr_mod = kallsyms && module_sym(t, curr);
		if (prev->end != prev->start)
			continue;
		if (prev_mod != curr_mod)
			prev->end = ((prev->end + 4096 + 4095) & ~4095ULL);
		else
			prev->end = curr->start;
	}
	if (t->nr && t->syms[t->nr - 1].end == t->syms[t->nr - 1].start)
		t->syms[t->nr - 1].end = page_after(t->syms[t->nr - 1].start);
}

static size_t underscores(const char *s, size_t len)
{
	size_t n = 0;

	while (n < len && s[n] == '_')
		n++;
	return n;
}

static int has_prefix(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/* choose_best_symbol(): whether A (before B in the table) stays. */
static int keep_first(const struct symtab *t, const struct symtab_sym *a,
		      const struct symtab_sym *b)
{
	const char *na = symtab__name(t, a), *nb = symtab__name(t, b);
	int aw = a->binding == STB_WEAK, bw = b->binding == STB_WEAK;
	int ag = a->binding == STB_GLOBAL, bg = b->binding == STB_GLOBAL;
	uint64_t as = a->end - a->start, bs = b->end - b->start;
	size_t au, bu;

	if (!bs && as)
		return 1;
	if (!as && bs)
		return 0;
	if (aw != bw)
		return bw;
	if (ag != bg)
		return ag;
	au = underscores(na, a->len);
	bu = underscores(nb, b->len);
	if (au != bu)
		return au < bu;
	if (a->len != b->len)
		return a->len > b->len;
	/* arch__choose_best_symbol(): avoid the "SyS" syscall aliases. */
	return !has_prefix(na, a->len, "SyS") && !has_prefix(na, a->len, "compat_SyS");
}

void symtab__fixup_duplicate(struct symtab *t)
{
	size_t i, n = 0;

	for (i = 0; i < t->nr; i++) {
		if (n && t->syms[n - 1].start == t->syms[i].start) {
			if (!keep_first(t, &t->syms[n - 1], &t->syms[i]))
				t->syms[n - 1] = t->syms[i];
			continue;
		}
		t->syms[n++] = t->syms[i];
	}
	t->nr = n;
}

const struct symtab_sym *symtab__find(const struct symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;
	const struct symtab_sym *s;

	while (lo < hi) {	/* first symbol starting after ADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->syms[lo - 1];
	if (addr < s->end || addr == s->start)
		return s;
	return NULL;
}

const char *symtab__name(const struct symtab *t, const struct symtab_sym *s)
{
	return (t->text ? t->text : t->names) + s->name;
}

size_t symtab__count(const struct symtab *t)
{
	return t->nr;
}

const struct symtab_sym *symtab__sym(const struct symtab *t, size_t i)
{
	return &t->syms[i];
}
