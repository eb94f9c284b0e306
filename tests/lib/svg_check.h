/* SPDX-License-Identifier: GPL-2.0 */
/*
 * svg_check.h - a small XML checker for the flame graphs kprofcat writes
 * (well-formedness: one root, balanced tags, quoted attributes, only the
 * five entities or character references, no '<' or '&' in text), which
 * also collects the frames: each <g> with its data- attributes, its rect,
 * its title and its label, and the viewBox.
 */
#ifndef KPROF_SVG_CHECK_H
#define KPROF_SVG_CHECK_H

#define MAX_FRAMES 64

struct frame {
	double dx, dv;			/* data-x, data-v */
	int d;				/* data-d */
	double x, y, w, h;		/* its rect */
	int has_rect;
	char title[256];		/* its <title>, unescaped */
	char label[256];		/* its <text>, unescaped */
};

struct svg {
	double vb_w, vb_h;		/* viewBox */
	struct frame f[MAX_FRAMES];
	int nr;
	int scripts;
	char err[128];			/* why it is not well-formed */
};

int xml_check(const char *text, struct svg *svg);

#endif /* KPROF_SVG_CHECK_H */
