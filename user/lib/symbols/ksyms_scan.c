// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms_scan.c - reading kallsyms text: the one pass ksyms__new() makes
 * over it (ksyms.c says what it finds), and the reader of one line of any
 * shape, which lookups use too.
 *
 * The pass reads every line of the text, and the ordered part's lines are
 * most of them: so those are read by a fast path that parses nothing it
 * does not need.  A regular line (16 lowercase hex digits, a space, a
 * type, a space) is compared with the last kept one by its address text,
 * as two big-endian words (struct akey), its end is found 32 bytes at a
 * time, and its address is read only where it gets a mark.  Any other
 * line (fewer or uppercase digits, no type, one in the text's last 50
 * bytes) goes to ksyms_parse_line(), the generic reader, and the fast
 * path takes over again at the next line.  Lookups read the ordered part
 * again with ksyms_parse_line(): both readers must see the same symbols
 * in the same text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <gelf.h>

#include "lib/symbols/ksyms_scan.h"
#include "lib/symbols/symtab.h"

/* Longer names are cut (KSYM_NAME_LEN is 512 with its NUL). */
#define KSYM_NAME_MAX	511

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
 * sixteen at once: ksyms_parse_line() reads most addresses so.
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
 * and *V, or 0 if one is not a digit.  No test per digit:
 * ksyms_parse_line() reads most addresses so.
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

int ksyms_parse_line(const char *p, const char *end, struct kline *l, const char **next)
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

/* The key of an address ksyms_parse_line() read (irregular lines'). */
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
 * ksyms_parse_line() without the name or the address (the ordered part
 * needs neither: line_key() compares), for the line at P, 51 bytes at
 * least before END, if it is the regular kind: 16 lowercase digits, a
 * space, a type other than '\n', a space.  Else LINE_IRREGULAR:
 * ksyms_parse_line() says what it is.
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
		kind = ksyms_parse_line(line, end, &l, &p);
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

int ksyms_parse(struct ksyms *k, const char *text, size_t len)
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
		kind = ksyms_parse_line(p, end, &l, &p);
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
