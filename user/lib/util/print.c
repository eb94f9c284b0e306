// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - the one place kprofcat's diagnostics are formatted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/util/print.h"

static int quiet, no_warnings;

void p_set_quiet(int q)
{
	quiet = q;
}

void p_set_no_warnings(int q)
{
	no_warnings = q;
}

static void p_vprint(const char *kind, const char *fmt, va_list ap)
{
	if (quiet || (no_warnings && (!kind || strcmp(kind, "error"))))
		return;
	/*
	 * With 2>&1 both streams share one pipe: what stdout's buffer holds
	 * goes first, or a message can land inside a line it already wrote
	 * in part (a folded line cut in two, its count lost to a parser).
	 */
	fflush(stdout);
	fputs("kprofcat: ", stderr);
	if (kind)
		fprintf(stderr, "%s: ", kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	p_vprint("error", fmt, ap);
	va_end(ap);
}

void p_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	p_vprint("warning", fmt, ap);
	va_end(ap);
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	p_vprint(NULL, fmt, ap);
	va_end(ap);
}
