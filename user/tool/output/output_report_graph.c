// SPDX-License-Identifier: GPL-2.0
/*
 * output_report_graph.c - the report's -g call graphs: a tree of frames
 * per entry, printed as perf report --stdio prints its graphs:
 *
 *	            |
 *	            ---main
 *	               |
 *	               |--66.67%--work
 *	               |          spin
 *	               |
 *	                --33.33%--idle
 *
 * A frame whose only child carries all of its weight continues on the
 * next line, under its name; where the weight splits, each branch says
 * its share of the total, largest first.
 */
#include <stdlib.h>
#include <string.h>

#include "tool/output/output_report_graph.h"

int rgraph__add(struct rnode *root, const uint32_t *path, unsigned int nr, uint64_t weight)
{
	struct rnode *n = root, *c;
	unsigned int i;

	root->weight += weight;
	for (i = 0; i < nr; i++) {
		for (c = n->child; c && c->sym != path[i]; c = c->next)
			;
		if (!c) {
			c = calloc(1, sizeof(*c));
			if (!c)
				return -1;
			c->sym = path[i];
			c->next = n->child;
			n->child = c;
		}
		c->weight += weight;
		n = c;
	}
	return 0;
}

void rgraph__free(struct rnode *root)
{
	struct rnode *c, *next;

	for (c = root->child; c; c = next) {
		next = c->next;
		rgraph__free(c);
		free(c);
	}
	root->child = NULL;
}

static int cmp_weight(const void *a, const void *b)
{
	const struct rnode *x = *(const struct rnode *const *)a;
	const struct rnode *y = *(const struct rnode *const *)b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

static const char *name_of(const struct rsym *syms, uint32_t sym)
{
	return syms[sym].name ? syms[sym].name : "[unknown]";
}

/* After the name of an inline frame, as perf's callchain lines print it. */
static const char *suffix_of(const struct rsym *syms, uint32_t sym)
{
	return syms[sym].inlined ? " (inlined)" : "";
}

/* N's children above the threshold, largest first, in V (caller frees). */
static const struct rnode **shown(const struct rnode *n, double total, double min_pct,
				  size_t *nr)
{
	const struct rnode **v, *c;
	size_t k = 0;

	for (c = n->child; c; c = c->next)
		k++;
	v = malloc((k + 1) * sizeof(*v));
	if (!v)
		return NULL;
	k = 0;
	for (c = n->child; c; c = c->next)
		if (100.0 * c->weight / total >= min_pct)
			v[k++] = c;
	qsort(v, k, sizeof(*v), cmp_weight);
	*nr = k;
	return v;
}

/* PREFIX: what goes before this level's lines ("|" where a branch continues). */
static void print_children(FILE *f, const struct rnode *n, const struct rsym *syms,
			   double total, double min_pct, char *prefix, size_t plen)
{
	const struct rnode **v;
	size_t nr = 0, i;

	v = shown(n, total, min_pct, &nr);
	if (!v)
		return;
	if (nr == 1 && v[0]->weight == n->weight) {
		/* A straight chain: the frame below, under the name above. */
		fprintf(f, "%.*s%s%s\n", (int)plen, prefix, name_of(syms, v[0]->sym),
			suffix_of(syms, v[0]->sym));
		print_children(f, v[0], syms, total, min_pct, prefix, plen);
		free(v);
		return;
	}
	for (i = 0; i < nr; i++) {
		int last = i + 1 == nr;
		char label[32];
		int w = snprintf(label, sizeof(label), "%s--%.2f%%--", last ? " " : "|",
				 100.0 * v[i]->weight / total);
		char *sub;

		fprintf(f, "%.*s|\n", (int)plen, prefix);
		fprintf(f, "%.*s%s%s%s\n", (int)plen, prefix, label, name_of(syms, v[i]->sym),
			suffix_of(syms, v[i]->sym));
		sub = malloc(plen + w + 1);
		if (!sub)
			break;
		memcpy(sub, prefix, plen);
		memset(sub + plen, ' ', w);
		sub[plen] = last ? ' ' : '|';
		print_children(f, v[i], syms, total, min_pct, sub, plen + w);
		free(sub);
	}
	free(v);
}

void rgraph__print(FILE *f, const struct rnode *root, const char *label,
		   const struct rsym *syms, double total, double min_pct)
{
	char prefix[] = "               ";

	fprintf(f, "            |\n            ---%s\n", label);
	print_children(f, root, syms, total, min_pct, prefix, sizeof(prefix) - 1);
	fputc('\n', f);
}
