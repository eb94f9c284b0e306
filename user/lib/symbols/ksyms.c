// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - /proc/kallsyms lookup.
 *
 * The symbols perf 6.1 keeps (types T, W, D, B in either case), with its
 * choice among aliases and its symbol ends (symtab.h): kallsyms has no
 * sizes, so a symbol ends where the next one starts, and the last one of
 * the core kernel or of a module a page on.  The table names its symbols
 * in the text itself (a capture's mapped section, or what ksyms__load()
 * read): of a hundred thousand names, only those resolved are copied.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gelf.h>

#include "lib/symbols/ksyms.h"
#include "lib/util/print.h"
#include "lib/symbols/symtab.h"
#include "lib/util/strmap.h"

#define KERNEL_DSO	"[kernel.kallsyms]"
/* Longer names are cut (KSYM_NAME_LEN is 512 with its NUL). */
#define KSYM_NAME_MAX	511

struct ksyms {
	char *text;		/* what ksyms__load() read; NULL from ksyms__new() */
	size_t len;
	struct symtab *tab;	/* names "name\t[module]" in the text */
	/* The names and DSOs resolved, NUL-terminated (a memo: see ksyms__resolve()). */
	struct strmap *resolved;
	int hidden;
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

/* symbol_type__filter(): the types perf keeps, in either case. */
static int kept_type(char type)
{
	switch (type & ~0x20) {
	case 'T': case 'W': case 'D': case 'B':
		return 1;
	}
	return 0;
}

/* The kept symbols of TEXT into K's table, in file order; -ENOMEM. */
static int ksyms_parse(struct ksyms *k, const char *text, size_t len)
{
	const char *p, *end = text + len;
	size_t seen = 0;

	hexval_init();
	/* A line holds an address, a type and a name: 12 bytes at least. */
	if (symtab__reserve(k->tab, len / 12 + 1, 0))
		return -ENOMEM;
	k->hidden = 1;
	for (p = text; p < end; ) {
		const char *nl = memchr(p, '\n', end - p), *line = p, *e;
		unsigned long long addr;
		size_t n;

		if (!nl)
			nl = end;
		p = nl + 1;
		addr = parse_hex(line, nl, &e);
		if (e == line || *e != ' ' || e + 3 > nl || e[2] != ' ')
			continue;
		seen++;
		if (addr)
			k->hidden = 0;
		/* '$' names are ARM mapping symbols. */
		if (!kept_type(e[1]) || e[3] == '$')
			continue;
		n = nl - (e + 3);
		if (n > KSYM_NAME_MAX)
			n = KSYM_NAME_MAX;
		if (symtab__add_len(k->tab, addr, 0, ksym_binding(e[1]), e + 3, n))
			return -ENOMEM;
	}
	if (!seen)
		k->hidden = 0;
	return 0;
}

/*
 * As perf 6.1 loads kallsyms: every T/W/D/B symbol (either case) in file
 * order with size zero, symbols__fixup_end() (kallsyms flavour), then
 * symbols__fixup_duplicate().
 */
struct ksyms *ksyms__new(const char *text, size_t len)
{
	struct ksyms *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->tab = symtab__new_in(text);
	k->resolved = strmap__new();
	if (!k->tab || !k->resolved || ksyms_parse(k, text, len) ||
	    symtab__commit(k->tab) < 0)
		goto fail;
	symtab__fixup_end(k->tab, 1);
	symtab__fixup_duplicate(k->tab);
	return k;
fail:
	ksyms__free(k);
	return NULL;
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
	symtab__free(k->tab);
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

int ksyms__resolve(const struct ksyms *k, uint64_t addr, const char **name,
		   uint64_t *off, const char **dso)
{
	const struct symtab_sym *s;
	const char *n, *tab, *mod = KERNEL_DSO;

	*dso = KERNEL_DSO;
	if (k->hidden)
		return -ENOENT;
	s = symtab__find(k->tab, addr);
	if (!s)
		return -ENOENT;
	/* "name\t[module]": the name, and the DSO perf prints. */
	n = symtab__name(k->tab, s);
	tab = memchr(n, '\t', s->len);
	if (tab && tab + 1 < n + s->len && tab[1] == '[')
		mod = resolved(k, tab + 1, n + s->len - (tab + 1));
	n = resolved(k, n, tab ? (size_t)(tab - n) : s->len);
	if (!n || !mod)
		return -ENOMEM;
	*dso = mod;
	*name = n;
	*off = addr - s->start;
	return 0;
}

const char *ksyms__text(const struct ksyms *k, size_t *len)
{
	*len = k->len;
	return k->text ? k->text : "";
}
