/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_report_graph.h - the report's call graphs (output_report_graph.c)
 * and the symbol table they print from, filled by the report's table
 * (output_report.c).
 */
#ifndef KPROFCAT_OUTPUT_REPORT_GRAPH_H
#define KPROFCAT_OUTPUT_REPORT_GRAPH_H

#include <stdint.h>
#include <stdio.h>

/* A symbol (out_frame.sym_id): its name, DSO and mode, as printed. */
struct rsym {
	char *name;		/* NULL: not seen yet */
	char *dso;		/* basename, as perf report prints it */
	char *path;		/* the DSO as the frame names it */
	int kernel;
	int inlined;		/* a function inlined at the address (out_frame) */
};

/* A node of a call graph: one frame on the way from (or to) an entry. */
struct rnode {
	uint32_t sym;
	uint64_t weight;
	struct rnode *child, *next;
};

/* Add WEIGHT along PATH (NR sym ids) below ROOT; -1 on -ENOMEM. */
int rgraph__add(struct rnode *root, const uint32_t *path, unsigned int nr, uint64_t weight);
/*
 * Print ROOT's graph perf report's way ("---LABEL", "|--12.50%--"),
 * shares of TOTAL, branches under MIN_PCT percent of it left out.
 */
void rgraph__print(FILE *f, const struct rnode *root, const char *label,
		   const struct rsym *syms, double total, double min_pct);
void rgraph__free(struct rnode *root);

#endif
