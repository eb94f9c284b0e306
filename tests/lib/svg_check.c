// SPDX-License-Identifier: GPL-2.0
/*
 * svg_check.c - a small XML checker for kprofcat's flame graphs
 * (svg_check.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_check.h"

struct xp {
	const char *p;
	struct svg *svg;
	struct frame *cur;		/* the frame whose <g> is open */
	char *text;			/* where character data goes (title, label) */
	size_t text_left;
	char stack[32][32];		/* open elements */
	int depth;
};

static int xfail(struct xp *x, const char *why)
{
	snprintf(x->svg->err, sizeof(x->svg->err), "%s at \"%.20s\"", why, x->p);
	return -1;
}

/* One reference after '&' into OUT (1 byte, ASCII only is ever needed here); -1: not one. */
static int xref(struct xp *x, char *out)
{
	static const struct { const char *name; char c; } ents[] = {
		{ "lt;", '<' }, { "gt;", '>' }, { "amp;", '&' },
		{ "quot;", '"' }, { "apos;", '\'' },
	};
	size_t i;

	for (i = 0; i < sizeof(ents) / sizeof(ents[0]); i++) {
		if (!strncmp(x->p, ents[i].name, strlen(ents[i].name))) {
			x->p += strlen(ents[i].name);
			*out = ents[i].c;
			return 0;
		}
	}
	if (*x->p == '#') {
		const char *s = x->p + 1;

		while (isxdigit((unsigned char)*s) || *s == 'x')
			s++;
		if (*s == ';' && s > x->p + 1) {
			x->p = s + 1;
			*out = '?';
			return 0;
		}
	}
	return xfail(x, "a bare '&'");
}

/* Character data up to '<' (END: up to the quote *END instead) into BUF. */
static int xchars(struct xp *x, char end, char *buf, size_t len)
{
	size_t n = 0;
	char c;

	while (*x->p && *x->p != (end ? end : '<')) {
		if (*x->p == '<')
			return xfail(x, "a '<' in an attribute");
		if (*x->p == '&') {
			x->p++;
			if (xref(x, &c))
				return -1;
		} else {
			c = *x->p++;
		}
		if (buf && n + 1 < len)
			buf[n++] = c;
	}
	if (buf && len)
		buf[n] = '\0';
	return *x->p ? 0 : xfail(x, "the end inside text");
}

static int isname(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_' || c == ':' || c == '.';
}

static void xattr(struct xp *x, const char *el, const char *name, const char *v)
{
	struct frame *f = x->cur;

	if (!strcmp(el, "svg") && !strcmp(name, "viewBox"))
		sscanf(v, "0 0 %lf %lf", &x->svg->vb_w, &x->svg->vb_h);
	if (!strcmp(el, "g") && f) {
		if (!strcmp(name, "data-x"))
			f->dx = strtod(v, NULL);
		else if (!strcmp(name, "data-v"))
			f->dv = strtod(v, NULL);
		else if (!strcmp(name, "data-d"))
			f->d = atoi(v);
	}
	if (!strcmp(el, "rect") && f) {
		f->has_rect = 1;
		if (!strcmp(name, "x"))
			f->x = strtod(v, NULL);
		else if (!strcmp(name, "y"))
			f->y = strtod(v, NULL);
		else if (!strcmp(name, "width"))
			f->w = strtod(v, NULL);
		else if (!strcmp(name, "height"))
			f->h = strtod(v, NULL);
	}
}

/* A start tag after '<': name, attributes, '>' or '/>'. */
static int xstart(struct xp *x)
{
	char el[32], name[32], val[256];
	int n = 0, is_frame = 0;

	while (isname(*x->p) && n < 31)
		el[n++] = *x->p++;
	el[n] = '\0';
	if (!n)
		return xfail(x, "no element name");
	if (!strcmp(el, "g") && !strncmp(x->p, " class=\"f\"", 10)) {
		if (x->svg->nr == MAX_FRAMES)
			return xfail(x, "more frames than this test expects");
		x->cur = &x->svg->f[x->svg->nr++];
		is_frame = 1;
	}
	for (;;) {
		while (*x->p == ' ' || *x->p == '\n')
			x->p++;
		if (*x->p == '>' || !strncmp(x->p, "/>", 2))
			break;
		for (n = 0; isname(*x->p) && n < 31; )
			name[n++] = *x->p++;
		name[n] = '\0';
		if (!n || x->p[0] != '=' || x->p[1] != '"')
			return xfail(x, "an attribute not name=\"value\"");
		x->p += 2;
		if (xchars(x, '"', val, sizeof(val)))
			return -1;
		x->p++;
		xattr(x, el, name, val);
	}
	x->svg->scripts += !strcmp(el, "script");
	if (*x->p == '/') {
		x->p += 2;
		if (is_frame)
			x->cur = NULL;
		return 0;
	}
	x->p++;
	if (x->depth == 32)
		return xfail(x, "nested too deep");
	snprintf(x->stack[x->depth++], sizeof(x->stack[0]), "%s", el);
	x->text = NULL;
	if (x->cur && !strcmp(el, "title"))
		x->text = x->cur->title;
	else if (x->cur && !strcmp(el, "text"))
		x->text = x->cur->label;
	x->text_left = sizeof(x->cur->title);
	return 0;
}

static int xend(struct xp *x)
{
	size_t n = strcspn(x->p, ">");

	if (!x->depth || strlen(x->stack[x->depth - 1]) != n ||
	    strncmp(x->p, x->stack[x->depth - 1], n))
		return xfail(x, "an end tag that does not match");
	if (!strcmp(x->stack[x->depth - 1], "g"))
		x->cur = NULL;
	x->depth--;
	x->p += n + 1;
	x->text = NULL;
	return 0;
}

/* Markup after '<': <?..?>, <!--..-->, <![CDATA[..]]>, </end>, <start>. */
static int xmarkup(struct xp *x, int *root_done)
{
	static const struct { const char *open, *close; } skip[] = {
		{ "?", "?>" }, { "!--", "-->" }, { "![CDATA[", "]]>" },
	};
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!strncmp(x->p, skip[i].open, strlen(skip[i].open))) {
			const char *e = strstr(x->p, skip[i].close);

			if (!e || (i == 2 && !x->depth))
				return xfail(x, "an unterminated or misplaced section");
			x->p = e + strlen(skip[i].close);
			return 0;
		}
	}
	if (*x->p == '/') {
		x->p++;
		if (xend(x))
			return -1;
		*root_done = !x->depth;
		return 0;
	}
	if (*root_done)
		return xfail(x, "a second root element");
	return xstart(x);
}

/* 0 if TEXT is well-formed XML; the frames and viewBox into SVG. */
int xml_check(const char *text, struct svg *svg)
{
	struct xp x = { .p = text, .svg = svg };
	int root_done = 0;

	memset(svg, 0, sizeof(*svg));
	while (*x.p) {
		if (*x.p == '<') {
			x.p++;
			if (xmarkup(&x, &root_done))
				return -1;
			continue;
		}
		if (!x.depth) {
			if (!isspace((unsigned char)*x.p))
				return xfail(&x, "text outside the root");
			x.p++;
			continue;
		}
		if (xchars(&x, 0, x.text, x.text ? x.text_left : 0))
			return -1;
	}
	if (x.depth || !root_done)
		return xfail(&x, "unclosed elements");
	return 0;
}
