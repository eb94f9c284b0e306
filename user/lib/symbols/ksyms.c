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
 * sixteen at once: parse_line() reads most addresses so.
 */
static inline int hex16(const char *s, uint64_t *v)
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
 * and *V, or 0 if one is not a digit.  No test per digit: parse_line()
 * reads most addresses so.
 */
static inline int hex16(const char *s, uint64_t *v)
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
static const unsigned char kept_types[256] = {
	['T'] = 1, ['t'] = 1, ['W'] = 1, ['w'] = 1, ['D'] = 1, ['d'] = 1, ['B'] = 1, ['b'] = 1,
};

static inline int kept_type(char type)
{
	return kept_types[(unsigned char)type];
}

#ifdef __SSE2__
/* The '\n's among the 32 bytes at P, a bit each. */
static inline unsigned int nl_mask(const char *p)
{
	const __m128i nl = _mm_set1_epi8('\n');
	unsigned int lo, hi;

	lo = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
	hi = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(p + 16)), nl));
	return lo | hi << 16;
}

/*
 * The first '\n' from P on, or END: 32 bytes at a time while there are
 * that many (a call to memchr() per line cost as much as the rest of the
 * line), then byte by byte: a call would take regular_run()'s registers.
 */
static inline const char *find_nl(const char *p, const char *end)
{
	unsigned int m;

	for (; end - p >= 32; p += 32) {
		m = nl_mask(p);
		if (m)
			return p + __builtin_ctz(m);
	}
	while (p < end && *p != '\n')
		p++;
	return p;
}

/* find_nl() where the 32 bytes at P are known to be there: no bounds check first. */
static inline const char *find_nl32(const char *p, const char *end)
{
	unsigned int m = nl_mask(p);

	return m ? p + __builtin_ctz(m) : find_nl(p + 32, end);
}
#else
static inline const char *find_nl(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', end - p);

	return nl ? nl : end;
}

static inline const char *find_nl32(const char *p, const char *end)
{
	return find_nl(p, end);
}
#endif

enum { LINE_BAD, LINE_SKIPPED, LINE_KEPT, LINE_IRREGULAR };

/*
 * The line at P (up to END): what it is, the symbol in *L when kept; *NEXT
 * is where the next line starts.  An address, a type and a name make a
 * line: 12 bytes at least.  '$' names are ARM mapping symbols.
 */
static int parse_line(const char *p, const char *end, struct kline *l, const char **next)
{
	const char *nl = find_nl(p, end), *e;

	*next = nl + 1;
	if (nl - p > 16 && p[16] == ' ' && hex16(p, &l->addr))
		e = p + 16;
	else
		l->addr = parse_hex(p, nl, &e);
	if (e == p || e + 3 > nl || *e != ' ' || e[2] != ' ')
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
 * An address as its 16 lowercase hex digits read as two big-endian
 * words: those order as the numbers they write ('0'-'9' are below
 * 'a'-'f'), so the ordered part's lines are compared without parsing.
 */
struct akey {
	uint64_t hi, lo;
};

/* Eight '0's: address 0's words, the lowest key. */
#define AKEY_ZERO	0x3030303030303030ULL

static inline int akey_below(struct akey a, struct akey b)
{
	return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static inline int akey_zero(struct akey a)
{
	return a.hi == AKEY_ZERO && a.lo == AKEY_ZERO;
}

static inline uint64_t be64(const char *s)
{
	uint64_t v;

	memcpy(&v, s, sizeof(v));
	return __builtin_bswap64(v);
}

/* The key of a regular line (regular_line()) at P. */
static inline struct akey line_key(const char *p)
{
	struct akey key = { be64(p), be64(p + 8) };

	return key;
}

/* X's low 32 bits as eight lowercase hex digits, the first the highest byte. */
static uint64_t digits8(uint64_t x)
{
	x &= 0xffffffff;
	x = (x | x << 16) & 0x0000ffff0000ffffULL;
	x = (x | x << 8) & 0x00ff00ff00ff00ffULL;
	x = (x | x << 4) & 0x0f0f0f0f0f0f0f0fULL;
	/* '0' + n, and 'a' - '0' - 10 more where n > 9 (n + 6 carries into bit 4). */
	return x + AKEY_ZERO +
	       ((x + 0x0606060606060606ULL) >> 4 & 0x0101010101010101ULL) * ('a' - '0' - 10);
}

/* The key of an address parse_line() read (irregular lines'). */
static struct akey addr_key(uint64_t addr)
{
	struct akey key = { digits8(addr >> 32), digits8(addr) };

	return key;
}

#ifdef __SSE2__
/* The 16 bytes at S are lowercase hex digits. */
static inline int lower16(const char *s)
{
	__m128i c = _mm_loadu_si128((const __m128i *)s);
	__m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
	__m128i l = _mm_sub_epi8(c, _mm_set1_epi8('a'));

	/* Bit 7 set, saturating, past the range: D past 9, L past 5. */
	d = _mm_adds_epu8(d, _mm_set1_epi8(0x80 - 10));
	l = _mm_adds_epu8(l, _mm_set1_epi8(0x80 - 6));
	return !_mm_movemask_epi8(_mm_and_si128(d, l));
}
#else
/* The 16 bytes at S are lowercase hex digits. */
static inline int lower16(const char *s)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		if ((unsigned char)(s[i] - '0') > 9 && (unsigned char)(s[i] - 'a') > 5)
			return 0;
	return 1;
}
#endif

/*
 * parse_line() without the name or the address (the ordered part needs
 * neither: line_key() compares), for the line at P, 51 bytes at least
 * before END, if it is the regular kind: 16 lowercase digits, a space, a
 * type other than '\n', a space.  Else LINE_IRREGULAR: parse_line() says
 * what it is.
 */
static inline int regular_line(const char *p, const char *end, const char **next)
{
	if (p[16] != ' ' || p[18] != ' ' || !lower16(p))
		return LINE_IRREGULAR;
	*next = find_nl32(p + 19, end) + 1;
	if (kept_type(p[17]))
		return p[19] == '$' ? LINE_SKIPPED : LINE_KEPT;
	return p[17] == '\n' ? LINE_IRREGULAR : LINE_SKIPPED;
}

/* ksyms_parse()'s pass so far. */
struct pass {
	struct akey last;	/* the ordered part's last kept line's */
	size_t kept, cap;	/* its kept lines, room for its marks */
	int seen, nonzero;	/* a line not bad, an address not 0: not hidden */
};

/*
 * The regular lines (regular_line()) from P on, up to a kept one out of
 * order or due a mark there is no room for: where they stop (END, or a
 * line parse_ordered() reads).  The pass over a kernel's lines is this
 * loop: without a call in it, its state stays in registers.
 */
static const char *regular_run(struct ksyms *k, struct pass *s, const char *p,
			       const char *end)
{
	/* Lines from LIMIT on have less than regular_line()'s 51 bytes. */
	const char *start = p, *limit = end - p > 50 ? end - 50 : p, *next;
	struct akey key, last = s->last;
	size_t kept = s->kept;
	int kind, nonzero = 0;
	uint64_t addr;

	for (; p < limit; p = next) {
		kind = regular_line(p, end, &next);
		if (kind == LINE_IRREGULAR)
			break;
		key = line_key(p);
		if (kind == LINE_SKIPPED) {
			nonzero |= !akey_zero(key);
			continue;
		}
		if (akey_below(key, last))
			break;
		/* An address is read at marks only; add_mark() makes room. */
		if (kept % MARK_STRIDE == 0) {
			if (k->nr_marks == s->cap || !hex16(p, &addr))
				break;
			k->marks[k->nr_marks].addr = addr;
			k->marks[k->nr_marks++].off = p - k->src;
		}
		last = key;
		kept++;
	}
	/* Of kept lines in order, the last is 0 only if all are. */
	if (nonzero || !akey_zero(last))
		s->nonzero = 1;
	if (p != start)
		s->seen = 1;
	s->last = last;
	s->kept = kept;
	return p;
}

/* The ordered part of TEXT: its extent and marks.  -ENOMEM. */
static int parse_ordered(struct ksyms *k, struct pass *s, const char *text, size_t len)
{
	const char *p = text, *line, *end = text + len;
	struct akey key;
	struct kline l;
	int kind;

	/* Each line regular_run() stops at, of whatever kind, read whole. */
	while ((line = regular_run(k, s, p, end)) < end) {
		kind = parse_line(line, end, &l, &p);
		if (kind == LINE_BAD)
			continue;
		s->seen = 1;
		if (l.addr)
			s->nonzero = 1;
		if (kind != LINE_KEPT)
			continue;
		key = addr_key(l.addr);
		if (akey_below(key, s->last)) {
			k->ordered = line - text;
			break;
		}
		s->last = key;
		if (s->kept++ % MARK_STRIDE == 0 && add_mark(k, l.addr, line - text, &s->cap))
			return -ENOMEM;
	}
	return 0;
}

/*
 * One pass over TEXT: the ordered part's extent and marks, the rest into
 * its table, sorted.  -ENOMEM.
 */
static int ksyms_parse(struct ksyms *k, const char *text, size_t len)
{
	struct pass s = { .last = { AKEY_ZERO, AKEY_ZERO } };
	const char *p, *end = text + len;
	struct kline l;
	int kind;

	hexval_init();
	k->src = text;
	k->ordered = len;
	if (parse_ordered(k, &s, text, len))
		return -ENOMEM;
	for (p = text + k->ordered; p < end; ) {
		kind = parse_line(p, end, &l, &p);
		if (kind == LINE_BAD)
			continue;
		s.seen = 1;
		if (l.addr)
			s.nonzero = 1;
		if (kind == LINE_KEPT &&
		    symtab__add_len(k->rest, l.addr, 0, l.binding, l.name, l.len))
			return -ENOMEM;
	}
	k->hidden = s.seen && !s.nonzero;
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
