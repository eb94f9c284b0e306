// SPDX-License-Identifier: GPL-2.0
/*
 * output_flamegraph.c - --flamegraph FILE.svg: the folded stacks (stacks.c)
 * as one self-contained SVG flame graph, in the manner of flamegraph.pl:
 * a frame per node of the stacks' tree, root ("all") at the bottom, its
 * width its samples (or summed periods), children in name order; colour
 * by a hash of the name.  Inline CSS and script, nothing fetched: hover
 * shows a frame and its share (a <title>, and the status line), a click
 * zooms into it, Search (or Ctrl-F, "/") highlights the frames a regular
 * expression matches and shows their share.
 *
 * Each frame is a <g class="f"> with its place in the graph's values:
 * data-x (the values left of it), data-v (its own), data-d (its depth);
 * the script zooms from these, and tests check the geometry against them.
 * The output depends on the stacks alone, never on hash order: the same
 * capture gives the same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "tool/output/output_flamegraph.h"
#include "tool/output/output_flamegraph_script.h"
#include "tool/output/stacks.h"

#define FRAME_H		16	/* px per level */
#define FONT_SIZE	12
#define FONT_WIDTH	0.59	/* of FONT_SIZE: a monospace glyph's advance */
#define TOP		60	/* px above the frames: title, subtitle, controls */
#define BOTTOM		34	/* px below: the status line */

struct flame {
	struct output o;
	const char *path;
	/* The file is ours (not stdout); we made it; it is written. */
	int own, created, done;
	const char *event;
	struct out_totals tot;
	struct stacks st;
};

/* A node of the stacks' tree, in depth-first order. */
struct fnode {
	uint32_t tok;		/* ~0: the root */
	uint32_t depth;		/* the root 0, comm 1, the outermost frame 2, ... */
	uint64_t x, v;		/* the values left of it, and its own */
};

struct tree {
	struct fnode *n;
	size_t nr;
	uint32_t max_depth;	/* of the frames drawn */
	size_t hidden;		/* frames narrower than FLAME_MIN_WIDTH */
};

static int flame_sample(struct output *o, const struct kp_record *r,
			const struct out_frame *f, unsigned int nr)
{
	struct flame *fl = (struct flame *)o;

	if (stacks__add(&fl->st, r, f, nr))
		return -1;
	out_totals__sample(&fl->tot, r);
	return 0;
}

static int flame_event(struct output *o, const struct kp_record *r)
{
	out_totals__event(&((struct flame *)o)->tot, r);
	return 0;
}

static int cmp_text(const void *a, const void *b, void *text)
{
	const char **t = text;

	return strcmp(t[*(const uint32_t *)a], t[*(const uint32_t *)b]);
}

/* Stacks compare token by token in name order (RANK), a prefix first. */
static int cmp_stack(const void *a, const void *b, void *rank)
{
	const struct fstack *x = *(struct fstack *const *)a, *y = *(struct fstack *const *)b;
	const uint32_t *rk = rank;
	uint32_t i;

	for (i = 0; i < x->n && i < y->n; i++)
		if (x->tok[i] != y->tok[i])
			return rk[x->tok[i]] < rk[y->tok[i]] ? -1 : 1;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* The stacks in depth-first name order; NULL: -ENOMEM. */
static struct fstack **sorted_stacks(const struct stacks *sk)
{
	struct fstack **v = stacks__list(sk);
	uint32_t *order = malloc((sk->nr_tok + 1) * sizeof(*order));
	uint32_t *rank = malloc((sk->nr_tok + 1) * sizeof(*rank));
	uint32_t i;

	if (!v || !order || !rank) {
		free(v);
		v = NULL;
		goto out;
	}
	for (i = 0; i < sk->nr_tok; i++)
		order[i] = i;
	qsort_r(order, sk->nr_tok, sizeof(*order), cmp_text, sk->tok_text);
	for (i = 0; i < sk->nr_tok; i++)
		rank[order[i]] = i;
	qsort_r(v, sk->nr_stacks, sizeof(*v), cmp_stack, rank);
out:
	free(order);
	free(rank);
	return v;
}

/*
 * The tree from the sorted stacks: stacks that share a prefix are
 * neighbours, so a node opens where a stack leaves its predecessor's path
 * and its x is the sum of the stacks before it.  -ENOMEM or 0.
 */
static int build_tree(struct tree *t, struct fstack **v, size_t nr)
{
	size_t path[STACKS_MAX_TOKENS + 1], cap = 1, i;
	uint64_t cum = 0;
	uint32_t j, same;

	for (i = 0; i < nr; i++)
		cap += v[i]->n;
	t->n = calloc(cap, sizeof(*t->n));
	if (!t->n)
		return -ENOMEM;
	t->n[0].tok = ~0U;
	t->nr = 1;
	path[0] = 0;
	for (i = 0; i < nr; i++) {
		for (same = 0; i && same < v[i]->n && same < v[i - 1]->n &&
		     v[i]->tok[same] == v[i - 1]->tok[same]; same++)
			;
		for (j = same; j < v[i]->n; j++) {
			t->n[t->nr] = (struct fnode){
				.tok = v[i]->tok[j], .depth = j + 1, .x = cum,
			};
			path[j + 1] = t->nr++;
		}
		for (j = 0; j <= v[i]->n; j++)
			t->n[path[j]].v += v[i]->count;
		cum += v[i]->count;
	}
	return 0;
}

static double px(uint64_t v, uint64_t total)
{
	return total ? (double)v * (FLAME_WIDTH - 2 * FLAME_PAD) / total : 0;
}

/* Which frames are drawn (wide enough), and the depth of the deepest. */
static void measure_tree(struct tree *t)
{
	size_t i;

	for (i = 0; i < t->nr; i++) {
		if (px(t->n[i].v, t->n[0].v) < FLAME_MIN_WIDTH)
			t->hidden++;
		else if (t->n[i].depth > t->max_depth)
			t->max_depth = t->n[i].depth;
	}
}

/*
 * Bytes of the UTF-8 sequence at S, or 0 if it is not a valid one
 * (overlong, a surrogate, beyond U+10FFFF: XML parsers refuse them).
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 && s[0] >= 0xc2 ? 2 :
		   (s[0] & 0xf0) == 0xe0 ? 3 : (s[0] & 0xf8) == 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	size_t i;

	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/*
 * At most MAX characters of S as XML text: the five markup characters as
 * entities, control characters and bytes that are not UTF-8 as '?'
 * (XML 1.0 admits neither).  Returns the characters written.
 */
static size_t xml_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, n;

	for (; *p && chars < max; p += n, chars++) {
		n = utf8_len(p);
		if (*p == '<')
			fputs("&lt;", f);
		else if (*p == '>')
			fputs("&gt;", f);
		else if (*p == '&')
			fputs("&amp;", f);
		else if (*p == '"')
			fputs("&quot;", f);
		else if (*p == '\'')
			fputs("&apos;", f);
		else if (!n || (*p < 0x20 && *p != '\t'))
			fputc('?', f);
		else
			fwrite(p, 1, n, f);
		if (!n)
			n = 1;
	}
	return chars;
}

/* Characters of S as xml_text() counts them. */
static size_t xml_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t chars = 0, n;

	for (; *p; p += n ? n : 1, chars++)
		n = utf8_len(p);
	return chars;
}

/* Deterministic colour of NAME: hue by FNV-1a, kernel frames orange, others warm. */
static void colour(const char *name, unsigned int rgb[3])
{
	size_t len = strlen(name);
	uint32_t h = 2166136261U;
	const char *p;

	for (p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 16777619U;
	if (len > 4 && !strcmp(name + len - 4, "_[k]")) {
		rgb[0] = 190 + (h & 0xff) * 65 / 255;
		rgb[1] = 90 + (h >> 8 & 0xff) * 65 / 255;
		rgb[2] = (h >> 16 & 0xff) * 40 / 255;
	} else {
		rgb[0] = 205 + (h & 0xff) * 50 / 255;
		rgb[1] = (h >> 8 & 0xff) * 230 / 255;
		rgb[2] = (h >> 16 & 0xff) * 55 / 255;
	}
}

/* NAME as fits W px (as the script's place() fits it): whole, cut with "..", or nothing. */
static void label(FILE *f, const char *name, double w)
{
	double fit = (w - 6) / (FONT_SIZE * FONT_WIDTH);
	size_t n = fit < 3 ? 0 : (size_t)fit;

	if (n < 3)
		return;
	if (xml_chars(name) <= n) {
		xml_text(f, name, n);
		return;
	}
	xml_text(f, name, n - 2);
	fputs("..", f);
}

static void write_frame(struct flame *fl, const struct tree *t, const struct fnode *nd)
{
	const char *name = nd->depth ? fl->st.tok_text[nd->tok] : "all";
	uint64_t total = t->n[0].v;
	double x = FLAME_PAD + px(nd->x, total), w = px(nd->v, total);
	unsigned int y = TOP + (t->max_depth - nd->depth) * FRAME_H, rgb[3];
	FILE *f = fl->o.f;

	colour(name, rgb);
	fprintf(f, "<g class=\"f\" data-x=\"%llu\" data-v=\"%llu\" data-d=\"%u\"><title>",
		(unsigned long long)nd->x, (unsigned long long)nd->v, nd->depth);
	xml_text(f, name, (size_t)-1);
	if (fl->st.weight_period)
		fprintf(f, " (period %llu, %.2f%%)", (unsigned long long)nd->v,
			100.0 * nd->v / total);
	else
		fprintf(f, " (%llu sample%s, %.2f%%)", (unsigned long long)nd->v,
			nd->v == 1 ? "" : "s", 100.0 * nd->v / total);
	fprintf(f, "</title><rect x=\"%.3f\" y=\"%u\" width=\"%.3f\" height=\"%u\" rx=\"2\"",
		x, y, w, FRAME_H - 1);
	fprintf(f, " fill=\"rgb(%u,%u,%u)\"/>", rgb[0], rgb[1], rgb[2]);
	fprintf(f, "<text x=\"%.3f\" y=\"%u\">", x + 3, y + FRAME_H - 4);
	label(f, name, w);
	fputs("</text></g>\n", f);
}

static unsigned int svg_height(const struct tree *t)
{
	return TOP + (t->max_depth + 1) * FRAME_H + BOTTOM;
}

/* The document up to the frames: its size, style, script, title and controls. */
static void write_head(struct flame *fl, const struct tree *t)
{
	unsigned int h = svg_height(t);
	FILE *f = fl->o.f;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\"",
		FLAME_WIDTH, h, FLAME_WIDTH, h);
	fputs(" xmlns=\"http://www.w3.org/2000/svg\" onload=\"init(evt)\">\n", f);
	fprintf(f, "<style type=\"text/css\"><![CDATA[\n%s]]></style>\n", flame_style);
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\nvar W = %u, PAD = %u, CW = %g;\n",
		FLAME_WIDTH, FLAME_PAD, FONT_SIZE * FONT_WIDTH);
	fprintf(f, "%s]]></script>\n", flame_script);
	fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#f8f8f8\"/>\n",
		FLAME_WIDTH, h);
	fprintf(f, "<text id=\"title\" x=\"%u\" y=\"24\">Flame Graph: ", FLAME_WIDTH / 2);
	xml_text(f, fl->event, (size_t)-1);
	fprintf(f, "</text>\n<text id=\"subtitle\" x=\"%u\" y=\"42\">", FLAME_WIDTH / 2);
	if (fl->st.weight_period)
		fprintf(f, "%llu samples, widths by period (%llu in all)",
			(unsigned long long)fl->tot.samples, (unsigned long long)t->n[0].v);
	else
		fprintf(f, "widths by samples (%llu in all)", (unsigned long long)t->n[0].v);
	if (t->hidden)
		fprintf(f, "; %zu frames narrower than %g px left out", t->hidden, FLAME_MIN_WIDTH);
	fprintf(f, "</text>\n<text id=\"unzoom\" class=\"btn hide\" x=\"%u\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\">Search</text>\n"
		"<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n"
		"<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n",
		FLAME_PAD, FLAME_WIDTH - FLAME_PAD, FLAME_PAD, h - 12,
		FLAME_WIDTH - FLAME_PAD, h - 12);
}

static void write_svg(struct flame *fl, const struct tree *t)
{
	size_t i;

	write_head(fl, t);
	fputs("<g id=\"frames\">\n", fl->o.f);
	for (i = 0; t->n[0].v && i < t->nr; i++)
		if (px(t->n[i].v, t->n[0].v) >= FLAME_MIN_WIDTH)
			write_frame(fl, t, &t->n[i]);
	fputs("</g>\n</svg>\n", fl->o.f);
}

/*
 * Flush, cut what an older file had beyond the new text, close; -1 after
 * a message.  (Opened without O_TRUNC: a run that fails keeps the old file.)
 */
static int flame_close(struct flame *fl)
{
	FILE *f = fl->o.f;
	struct stat st;
	int err = fflush(f) || ferror(f) ? (errno ? errno : EIO) : 0;

	if (!err && fl->own && !fstat(fileno(f), &st) && S_ISREG(st.st_mode) &&
	    ftruncate(fileno(f), ftello(f)))
		err = errno;
	if (fl->own) {
		if (fclose(f) && !err)
			err = errno;
		fl->o.f = NULL;
	}
	if (err) {
		p_err("cannot write the flame graph to %s: %s: make room or give --flamegraph another FILE",
		      fl->path, strerror(err));
		return -1;
	}
	fl->done = 1;
	return 0;
}

static int flame_finish(struct output *o, const struct out_summary *s)
{
	struct flame *fl = (struct flame *)o;
	struct fstack **v = sorted_stacks(&fl->st);
	struct tree t = { 0 };
	int ret = -1;

	(void)s;
	if (!v || build_tree(&t, v, fl->st.nr_stacks)) {
		p_err("out of memory making the flame graph");
		goto out;
	}
	measure_tree(&t);
	write_svg(fl, &t);
	if (flame_close(fl))
		goto out;
	if (!fl->tot.samples)
		p_warn("no samples: the flame graph %s is empty", fl->path);
	p_info("flame graph %s: %llu samples of %s (period %llu), %zu frames; lost %llu",
	       fl->path, (unsigned long long)fl->tot.samples, fl->event,
	       (unsigned long long)fl->tot.period, t.nr - t.hidden,
	       (unsigned long long)out_totals__lost(&fl->tot));
	ret = 0;
out:
	free(t.n);
	free(v);
	return ret;
}

static void flame_free(struct output *o)
{
	struct flame *fl = (struct flame *)o;

	if (fl->own && fl->o.f)
		fclose(fl->o.f);
	/* A file we made and never finished says nothing: remove it. */
	if (fl->created && !fl->done)
		unlink(fl->path);
	stacks__exit(&fl->st);
	free(fl);
}

static const struct output_ops flame_ops = {
	.sample = flame_sample,
	.event = flame_event,
	.finish = flame_finish,
	.free = flame_free,
};

struct output *output_flamegraph__new(FILE *f, const char *path, int weight_period,
				      const char *event)
{
	struct flame *fl = calloc(1, sizeof(*fl));

	if (!fl)
		return NULL;
	if (stacks__init(&fl->st, weight_period)) {
		stacks__exit(&fl->st);
		free(fl);
		return NULL;
	}
	fl->o.ops = &flame_ops;
	fl->o.f = f;
	fl->o.needs_frames = 1;
	fl->path = path;
	fl->event = event;
	return &fl->o;
}

/* PATH for writing without truncating it ("-": stdout); NULL after a message. */
static FILE *open_svg(const char *path, int *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	FILE *f;

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("cannot write the flame graph to %s: %s: give --flamegraph the path of a file you can write",
		      path, strerror(errno));
		return NULL;
	}
	f = fdopen(fd, "w");
	if (!f) {
		p_err("cannot write the flame graph to %s: %s", path, strerror(errno));
		close(fd);
		if (*created)
			unlink(path);
	}
	return f;
}

struct output *output_flamegraph__open(const char *path, int weight_period, const char *event)
{
	int stdout_ = !strcmp(path, "-"), created = 0;
	FILE *f = stdout_ ? stdout : open_svg(path, &created);
	struct flame *fl;

	if (!f)
		return NULL;
	fl = (struct flame *)output_flamegraph__new(f, stdout_ ? "standard output" : path,
						    weight_period, event);
	if (!fl) {
		p_err("out of memory");
		if (!stdout_)
			fclose(f);
		if (created)
			unlink(path);
		return NULL;
	}
	fl->own = !stdout_;
	fl->created = created;
	return &fl->o;
}
