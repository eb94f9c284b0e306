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
 *
 * The pass and the reader of a line are in ksyms_scan.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbols/ksyms.h"
#include "lib/symbols/ksyms_scan.h"
#include "lib/util/print.h"
#include "lib/symbols/symtab.h"
#include "lib/util/strmap.h"

#define KERNEL_DSO	"[kernel.kallsyms]"

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
		if (ksyms_parse_line(p, end, &l, &p) != LINE_KEPT)
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
		if (ksyms_parse_line(line, end, &l, &p) != LINE_KEPT || l.addr < at)
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
