// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - /proc/kallsyms lookup.
 *
 * The symbols perf 6.1 keeps (types T, W, D, B in either case), with its
 * choice among aliases and its symbol ends (symtab.h): kallsyms has no
 * sizes, so a symbol ends where the next one starts, and the last one of
 * the core kernel or of a module a page on.  Those rules look at a
 * symbol's neighbours in address order only, and kallsyms lists the core
 * kernel's symbols in that order already: so that part is not made into
 * a table at all.  One pass checks the order and marks every
 * MARK_STRIDE-th kept line; a lookup finds the lines around its address
 * from the nearest mark, and puts them, with their neighbours from the
 * rest, in a table of a few symbols that the rules run on as they would
 * on the whole.  The rest (from the first line out of order on: modules'
 * symbols, listed as each module's symbol table has them) is a table
 * sorted once.  Names are read in the text itself (a capture's mapped
 * section, or what ksyms__load() read): only those resolved are copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <gelf.h>

#include "lib/symbols/ksyms.h"
#include "lib/util/print.h"
#include "lib/symbols/symtab.h"
#include "lib/util/strmap.h"

#define KERNEL_DSO	"[kernel.kallsyms]"
/* Longer names are cut (KSYM_NAME_LEN is 512 with its NUL). */
#define KSYM_NAME_MAX	511

/* Kept lines between marks: a lookup reads two strides of lines or so. */
#define MARK_STRIDE	32

/* A kept line of the ordered part, where a scan may start. */
struct kmark {
	uint64_t addr;
	size_t off;		/* of the line in the text */
};

struct ksyms {
	char *text;		/* what ksyms__load() read; NULL from ksyms__new() */
	size_t len;
	const char *src;	/* the text parsed: its names are the symbols' */
	size_t ordered;		/* its lines before this offset are in address order */
	struct kmark *marks;	/* every MARK_STRIDE-th kept line of those */
	size_t nr_marks;
	struct symtab *rest;	/* the kept lines after them, sorted, not fixed up */
	/* The names and DSOs resolved, NUL-terminated (a memo: see ksyms__resolve()). */
	struct strmap *resolved;
	int hidden;
};

/* A kept line: a symbol of size zero. */
struct kline {
	uint64_t addr;
	const char *name;	/* "name" or "name\t[module]", in the text */
	size_t len;
	int binding;
};

/* kallsyms2elf_binding() */
static int ksym_binding(char type)
{
	if (type == 'W')
		return STB_WEAK;
	return type >= 'A' && type <= 'Z' ? STB_GLOBAL : STB_LOCAL;
}

/* Hex digit values, 16 for anything else. */
static unsigned char hexval[256];

static void hexval_init(void)
{
	unsigned int c;

	if (hexval['1'])
		return;
	for (c = 0; c < 256; c++)
		hexval[c] = c >= '0' && c <= '9' ? c - '0' :
			    (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : 16;
}

/* strtoull(S, END, 16) for kallsyms' fixed-width addresses, up to LIMIT. */
static unsigned long long parse_hex(const char *s, const char *limit, const char **end)
{
	unsigned long long v = 0;

	for (; s < limit && hexval[(unsigned char)*s] < 16; s++)
		v = v << 4 | hexval[(unsigned char)*s];
	*end = s;
	return v;
}

#ifdef __SSE2__
/*
 * The 16 hex digits at S (a 64-bit kernel's addresses, all of them): 1
 * and *V, or 0 if one is not a digit (as hexval[]: 0-9, a-f, A-F).  All
 * sixteen at once: a pass over a hundred thousand lines is mostly this.
 */
static int hex16(const char *s, uint64_t *v)
{
	__m128i c = _mm_loadu_si128((const __m128i *)s);
	__m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
	__m128i l = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
	/* Unsigned x <= max as min(x, max) == x. */
	__m128i is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
	__m128i is_l = _mm_cmpeq_epi8(_mm_min_epu8(l, _mm_set1_epi8(5)), l);
	__m128i n, pairs;

	if (_mm_movemask_epi8(_mm_or_si128(is_d, is_l)) != 0xffff)
		return 0;
	n = _mm_or_si128(_mm_and_si128(is_d, d),
			 _mm_andnot_si128(is_d, _mm_add_epi8(l, _mm_set1_epi8(10))));
	/* Each 16-bit lane, digits a then b: a << 4 | b in its low byte. */
	pairs = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(n, 4), _mm_srli_epi16(n, 8)),
			      _mm_set1_epi16(0xff));
	/* The first digit the highest: the eight bytes in reverse. */
	*v = __builtin_bswap64((uint64_t)_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)));
	return 1;
}
#else
/*
 * The 16 hex digits at S (a 64-bit kernel's addresses, all of them): 1
 * and *V, or 0 if one is not a digit.  No test per digit: a pass over a
 * hundred thousand lines is mostly this.
 */
static int hex16(const char *s, uint64_t *v)
{
	unsigned int i, d, bad = 0;
	uint64_t x = 0;

#pragma GCC unroll 16
	for (i = 0; i < 16; i++) {
		d = hexval[(unsigned char)s[i]];
		bad |= d;
		x = x << 4 | (d & 15);
	}
	*v = x;
	return !(bad & 16);
}
#endif

/* symbol_type__filter(): the types perf keeps, in either case. */
static int kept_type(char type)
{
	switch (type & ~0x20) {
	case 'T': case 'W': case 'D': case 'B':
		return 1;
	}
	return 0;
}

enum { LINE_BAD, LINE_SKIPPED, LINE_KEPT };

/*
 * The line at P (up to END): what it is, the symbol in *L when kept; *NEXT
 * is where the next line starts.  An address, a type and a name make a
 * line: 12 bytes at least.  '$' names are ARM mapping symbols.
 */
static int parse_line(const char *p, const char *end, struct kline *l, const char **next)
{
	const char *nl = memchr(p, '\n', end - p), *e;

	if (!nl)
		nl = end;
	*next = nl + 1;
	if (nl - p > 16 && p[16] == ' ' && hex16(p, &l->addr))
		e = p + 16;
	else
		l->addr = parse_hex(p, nl, &e);
	if (e == p || *e != ' ' || e + 3 > nl || e[2] != ' ')
		return LINE_BAD;
	if (!kept_type(e[1]) || (e + 3 < nl && e[3] == '$'))
		return LINE_SKIPPED;
	l->name = e + 3;
	l->len = nl - l->name;
	if (l->len > KSYM_NAME_MAX)
		l->len = KSYM_NAME_MAX;
	l->binding = ksym_binding(e[1]);
	return LINE_KEPT;
}

static int add_mark(struct ksyms *k, uint64_t addr, size_t off, size_t *cap)
{
	if (k->nr_marks == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct kmark *m = realloc(k->marks, ncap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		k->marks = m;
		*cap = ncap;
	}
	k->marks[k->nr_marks].addr = addr;
	k->marks[k->nr_marks++].off = off;
	return 0;
}

/*
 * One pass over TEXT: the ordered part's extent and marks, the rest into
 * its table, sorted.  -ENOMEM.
 */
static int ksyms_parse(struct ksyms *k, const char *text, size_t len)
{
	const char *p, *line, *end = text + len;
	size_t seen = 0, kept = 0, cap = 0;
	uint64_t last = 0;
	struct kline l;
	int kind;

	hexval_init();
	k->src = text;
	k->ordered = len;
	k->hidden = 1;
	for (p = text; p < end; ) {
		line = p;
		kind = parse_line(line, end, &l, &p);
		if (kind == LINE_BAD)
			continue;
		seen++;
		if (l.addr)
			k->hidden = 0;
		if (kind != LINE_KEPT)
			continue;
		if (k->ordered == len && (!kept || l.addr >= last)) {
			if (kept++ % MARK_STRIDE == 0 && add_mark(k, l.addr, line - text, &cap))
				return -ENOMEM;
			last = l.addr;
			continue;
		}
		if (k->ordered == len)
			k->ordered = line - text;
		if (symtab__add_len(k->rest, l.addr, 0, l.binding, l.name, l.len))
			return -ENOMEM;
	}
	if (!seen)
		k->hidden = 0;
	return symtab__commit(k->rest) < 0 ? -ENOMEM : 0;
}

struct ksyms *ksyms__new(const char *text, size_t len)
{
	struct ksyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->rest = symtab__new_in(text);
	k->resolved = strmap__new();
	if (!k->rest || !k->resolved || ksyms_parse(k, text, len)) {
		ksyms__free(k);
		return NULL;
	}
	return k;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *k;
	size_t len = 0, cap = 1 << 20, n;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "r");

	if (!f || !buf) {
		p_warn("cannot read %s (%s): kernel frames will be [unknown]",
		       path, f ? strerror(ENOMEM) : strerror(errno));
		if (f)
			fclose(f);
		free(buf);
		return ksyms__new("", 0);
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	k = ksyms__new(buf, len);
	if (!k) {
		free(buf);
		return NULL;
	}
	/* Kept for ksyms__text(): a live run saves it in its capture. */
	k->text = buf;
	k->len = len;
	if (k->hidden) {
		FILE *kr = fopen("/proc/sys/kernel/kptr_restrict", "r");
		int val = -1;

		if (kr) {
			if (fscanf(kr, "%d", &val) != 1)
				val = -1;
			fclose(kr);
		}
		p_warn("kernel address maps (%s) are restricted (kernel.kptr_restrict=%d): kernel frames will be [unknown]; run as root or set /proc/sys/kernel/kptr_restrict to 0",
		       path, val);
	}
	return k;
}

void ksyms__free(struct ksyms *k)
{
	if (!k)
		return;
	strmap__free(k->resolved);
	symtab__free(k->rest);
	free(k->marks);
	free(k->text);
	free(k);
}

/*
 * The LEN bytes at S as a string that lives as long as K: the same one
 * every time (K is const to its users: this only remembers).  NULL on
 * -ENOMEM.
 */
static const char *resolved(const struct ksyms *k, const char *s, size_t len)
{
	struct strmap_entry *e = strmap__get(k->resolved, s, len);

	return e ? e->key : NULL;
}

/*
 * Where a scan of the ordered part for ADDR starts: the last mark at or
 * below it (STRICT: below it), or the text's start.
 */
static const char *scan_start(const struct ksyms *k, uint64_t addr, int strict)
{
	size_t lo = 0, hi = k->nr_marks, mid;

	while (lo < hi) {	/* the first mark past ADDR */
		mid = lo + (hi - lo) / 2;
		if (k->marks[mid].addr < addr || (!strict && k->marks[mid].addr == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return k->src + (lo ? k->marks[lo - 1].off : 0);
}

/* The first symbol of the rest past ADDR (STRICT), or at or past it. */
static size_t rest_from(const struct ksyms *k, uint64_t addr, int strict)
{
	size_t lo = 0, hi = symtab__count(k->rest), mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (symtab__sym(k->rest, mid)->start < addr ||
		    (strict && symtab__sym(k->rest, mid)->start == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_rest(struct symtab *t, const struct ksyms *k, size_t i)
{
	const struct symtab_sym *r = symtab__sym(k->rest, i);

	return symtab__add_len(t, r->start, 0, r->binding, symtab__name(k->rest, r), r->len);
}

/*
 * The symbols around ADDR in address order (file order among equal
 * addresses, as perf's sort leaves them) into T: those of the highest
 * address at or below it, then the next one past them, from both parts.
 * The rules (symtab.h) give those exactly what they give them in the
 * whole table: an end depends on the next symbol alone, the choice among
 * aliases on the aliases alone.  0, or -ENOENT, -ENOMEM.
 */
static int around(const struct ksyms *k, uint64_t addr, struct symtab *t)
{
	const char *p, *line, *end = k->src + k->ordered;
	struct kline l, next = { 0 };
	int has = 0, has_next = 0, err = 0;
	size_t r_hi = rest_from(k, addr, 1), r_lo, i;
	uint64_t at = 0;

	/* The ordered part: the highest address at or below ADDR, and the next line. */
	for (p = scan_start(k, addr, 0); p < end; ) {
		if (parse_line(p, end, &l, &p) != LINE_KEPT)
			continue;
		if (l.addr > addr) {
			next = l;
			has_next = 1;
			break;
		}
		at = l.addr;
		has = 1;
	}
	if (r_hi && (!has || symtab__sym(k->rest, r_hi - 1)->start > at)) {
		at = symtab__sym(k->rest, r_hi - 1)->start;
		has = 2;	/* the rest's only */
	}
	if (!has)
		return -ENOENT;
	/* Its aliases in the ordered part (they come first in the file)... */
	for (p = scan_start(k, at, 1); has == 1 && p < end && !err; ) {
		line = p;
		if (parse_line(line, end, &l, &p) != LINE_KEPT || l.addr < at)
			continue;
		if (l.addr > at)
			break;
		err = symtab__add_len(t, l.addr, 0, l.binding, l.name, l.len);
	}
	/* ... then in the rest, and the next symbol of either. */
	r_lo = rest_from(k, at, 0);
	for (i = r_lo; i < r_hi && !err; i++)
		err = add_rest(t, k, i);
	if (!err && r_hi < symtab__count(k->rest) &&
	    (!has_next || symtab__sym(k->rest, r_hi)->start < next.addr))
		err = add_rest(t, k, r_hi);
	else if (!err && has_next)
		err = symtab__add_len(t, next.addr, 0, next.binding, next.name, next.len);
	if (err || symtab__commit(t) < 0)
		return -ENOMEM;
	return 0;
}

int ksyms__resolve(const struct ksyms *k, uint64_t addr, const char **name,
		   uint64_t *off, const char **dso)
{
	const struct symtab_sym *s = NULL;
	const char *n, *tab, *mod = KERNEL_DSO;
	struct symtab *t;
	int ret;

	*dso = KERNEL_DSO;
	if (k->hidden)
		return -ENOENT;
	t = symtab__new_in(k->src);
	if (!t)
		return -ENOMEM;
	ret = around(k, addr, t);
	if (!ret) {
		/* perf's symbols__fixup_end() and _duplicate() on those, then its find. */
		symtab__fixup_end(t, 1);
		symtab__fixup_duplicate(t);
		s = symtab__find(t, addr);
		ret = s ? 0 : -ENOENT;
	}
	if (ret)
		goto out;
	/* "name\t[module]": the name, and the DSO perf prints. */
	n = symtab__name(t, s);
	tab = memchr(n, '\t', s->len);
	if (tab && tab + 1 < n + s->len && tab[1] == '[')
		mod = resolved(k, tab + 1, n + s->len - (tab + 1));
	n = resolved(k, n, tab ? (size_t)(tab - n) : s->len);
	ret = -ENOMEM;
	if (!n || !mod)
		goto out;
	*dso = mod;
	*name = n;
	*off = addr - s->start;
	ret = 0;
out:
	symtab__free(t);
	return ret;
}

const char *ksyms__text(const struct ksyms *k, size_t *len)
{
	*len = k->len;
	return k->text ? k->text : "";
}
