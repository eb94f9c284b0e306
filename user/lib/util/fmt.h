/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fmt.h - the few printf conversions the outputs need, as plain stores:
 * each writes at P and returns the end, producing exactly what printf
 * would for the conversion named.
 */
#ifndef KPROFCAT_FMT_H
#define KPROFCAT_FMT_H

#include <stdint.h>
#include <string.h>

/* Digits of V in BASE into the end of BUF[24]; returns their start. */
static inline char *fmt__digits(char *buf_end, uint64_t v, unsigned int base)
{
	static const char hex[] = "0123456789abcdef";

	do {
		*--buf_end = hex[v % base];
		v /= base;
	} while (v);
	return buf_end;
}

/* %*llx / %*llu (WIDTH, right-aligned with spaces) and %llx / %llu. */
static inline char *fmt__num(char *p, uint64_t v, unsigned int base, unsigned int width,
			     char pad)
{
	char buf[24], *d = fmt__digits(buf + sizeof(buf), v, base);
	unsigned int n = buf + sizeof(buf) - d;

	while (width > n) {
		*p++ = pad;
		width--;
	}
	memcpy(p, d, n);
	return p + n;
}

static inline char *fmt_hex(char *p, uint64_t v)
{
	return fmt__num(p, v, 16, 0, ' ');
}

static inline char *fmt_hex_pad(char *p, uint64_t v, unsigned int width)
{
	return fmt__num(p, v, 16, width, ' ');
}

static inline char *fmt_u(char *p, uint64_t v)
{
	return fmt__num(p, v, 10, 0, ' ');
}

/* %*u */
static inline char *fmt_u_pad(char *p, uint64_t v, unsigned int width)
{
	return fmt__num(p, v, 10, width, ' ');
}

/* %0*u */
static inline char *fmt_u_zpad(char *p, uint64_t v, unsigned int width)
{
	return fmt__num(p, v, 10, width, '0');
}

/* %-*u */
static inline char *fmt_u_left(char *p, uint64_t v, unsigned int width)
{
	char *s = p;

	p = fmt_u(p, v);
	while ((unsigned int)(p - s) < width)
		*p++ = ' ';
	return p;
}

static inline char *fmt_str(char *p, const char *s, size_t len)
{
	memcpy(p, s, len);
	return p + len;
}

#endif
