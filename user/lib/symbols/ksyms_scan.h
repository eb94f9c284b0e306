/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms_scan.h - what ksyms.c (the table's life and its lookups) and
 * ksyms_scan.c (the pass over kallsyms text that fills the table, and the
 * reader of one line) share: the table's layout, and that reader, which
 * lookups run over the ordered part's lines.  Nothing else includes it.
 *
 * Neither this header nor ksyms_scan.c includes ksyms.h: scripts/layering
 * counts ksyms.c and ksyms.h as one node, which includes this header, so
 * that would be a circle.
 */
#ifndef KPROFCAT_KSYMS_SCAN_H
#define KPROFCAT_KSYMS_SCAN_H

#include <stddef.h>
#include <stdint.h>

struct strmap;
struct symtab;

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

enum { LINE_BAD, LINE_SKIPPED, LINE_KEPT, LINE_IRREGULAR };

/**
 * ksyms_parse_line() - read the line at @p, of any shape
 * @p: the line's start
 * @end: the text's end
 * @l: the symbol, when the line is kept
 * @next: where the next line starts
 *
 * An address, a type and a name make a line: 12 bytes at least.  '$'
 * names are ARM mapping symbols.
 *
 * Return: what the line is: LINE_BAD, LINE_SKIPPED or LINE_KEPT.
 */
int ksyms_parse_line(const char *p, const char *end, struct kline *l, const char **next);

/**
 * ksyms_parse() - the one pass over kallsyms text that fills @k
 * @k: the table, with no marks yet and its rest an empty symtab over @text
 * @text: the text, which outlives @k: its names are the symbols'
 * @len: its length
 *
 * The ordered part's extent and marks, the rest into its table, sorted;
 * @k->hidden when there are lines and all their addresses are 0
 * (kptr_restrict hides them).
 *
 * Return: 0, or -ENOMEM.
 */
int ksyms_parse(struct ksyms *k, const char *text, size_t len);

#endif
