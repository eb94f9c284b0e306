// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - /proc/kallsyms lookup.
 *
 * Text symbols only (types t/T/w/W).  kallsyms has no sizes: as perf does,
 * a symbol ends where the next one starts; the last symbol of the core
 * kernel or of a module is not extended past its [module] group.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"
#include "print.h"

#define KERNEL_DSO	"[kernel.kallsyms]"

struct ksym {
	uint64_t addr;
	const char *name;
	const char *dso;	/* "[kernel.kallsyms]" or "[module]" */
};

struct ksyms {
	char *text;
	size_t len;
	char *names;		/* parsed copy: NUL-terminated names and dsos */
	struct ksym *syms;
	size_t nr;
	int hidden;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

struct ksyms *ksyms__new(const char *text, size_t len)
{
	struct ksyms *k = calloc(1, sizeof(*k));
	size_t cap = 0, seen = 0;
	char *p, *line, *save = NULL;

	if (!k)
		return NULL;
	k->text = malloc(len + 1);
	/* Names become "name\0[dso]\0": at most one byte longer per line. */
	k->names = malloc(2 * len + 2);
	if (!k->text || !k->names)
		goto fail;
	memcpy(k->text, text, len);
	k->text[len] = '\0';
	k->len = len;
	memcpy(k->names, text, len);
	k->names[len] = '\0';
	p = k->names;
	k->hidden = 1;
	for (line = strtok_r(p, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end, *type, *name, *mod;
		unsigned long long addr = strtoull(line, &end, 16);

		if (end == line || *end != ' ')
			continue;
		type = end + 1;
		if (type[0] == '\0' || type[1] != ' ')
			continue;
		seen++;
		if (addr)
			k->hidden = 0;
		if (!strchr("tTwW", type[0]))
			continue;
		name = type + 2;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			/* "[module]" is kept as it is: it is the DSO perf prints. */
		}
		if (k->nr == cap) {
			size_t ncap = cap ? cap * 2 : 4096;
			struct ksym *s = realloc(k->syms, ncap * sizeof(*s));

			if (!s)
				goto fail;
			k->syms = s;
			cap = ncap;
		}
		k->syms[k->nr].addr = addr;
		k->syms[k->nr].name = name;
		k->syms[k->nr].dso = mod && *mod == '[' ? mod : KERNEL_DSO;
		k->nr++;
	}
	if (!seen)
		k->hidden = 0;
	qsort(k->syms, k->nr, sizeof(*k->syms), ksym_cmp);
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
	free(buf);
	if (k && k->hidden) {
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
	free(k->syms);
	free(k->names);
	free(k->text);
	free(k);
}

int ksyms__resolve(const struct ksyms *k, uint64_t addr, const char **name,
		   uint64_t *off, const char **dso)
{
	size_t lo = 0, hi = k->nr;
	const struct ksym *s;

	*dso = KERNEL_DSO;
	if (k->hidden)
		return -ENOENT;
	while (lo < hi) {		/* first symbol with addr > ADDR */
		size_t mid = lo + (hi - lo) / 2;

		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	s = &k->syms[lo - 1];
	*dso = s->dso;
	/*
	 * The last symbol of a group has no end: accept it only if the next
	 * symbol belongs to the same group, or within 64 KiB of it (longer
	 * functions are rare; an address further away is not this symbol).
	 */
	if ((lo == k->nr || strcmp(k->syms[lo].dso, s->dso)) && addr - s->addr >= 65536)
		return -ENOENT;
	*name = s->name;
	*off = addr - s->addr;
	return 0;
}

int ksyms__hidden(const struct ksyms *k)
{
	return k->hidden;
}

size_t ksyms__count(const struct ksyms *k)
{
	return k->nr;
}

const char *ksyms__text(const struct ksyms *k, size_t *len)
{
	*len = k->len;
	return k->text;
}
