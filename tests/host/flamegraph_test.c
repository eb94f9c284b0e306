// SPDX-License-Identifier: GPL-2.0
/*
 * flamegraph_test: --flamegraph FILE.svg from synthetic captures (-i).
 * The SVG is parsed by a small XML checker (tests/lib/svg_check.c:
 * well-formedness: one root, balanced tags, quoted attributes, only the
 * five entities or character references, no '<' or '&' in text) and by
 * xmllint when it is installed; its frames are then checked against the capture: the root's
 * children sum to the samples (to the periods with --weight=period), each
 * frame lies in its parent and in the view box, its geometry follows from
 * its values, C++ names with < > & are escaped, nothing is fetched from
 * elsewhere, the same stacks give the same bytes whatever their order in
 * the capture, and frames too narrow to draw are left out and counted.
 * The script runs in node (when installed) against a stand-in for the
 * DOM: hover, a click's zoom, search and its share.  From the command
 * line: the file is written (an older, longer one replaced whole), and
 * the errors name the problem and the fix.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "expect.h"

#include "lib/capture/capture.h"
#include "lib/stream/output.h"
#include "lib/stream/replay.h"
#include "lib/util/print.h"
#include "tool/output/output_flamegraph.h"
#include "svg_check.h"
#include "synth.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffff81002000 T vfs_read\n"
	"ffffffff81003000 T std::map<int, std::pair<a&b, c> >::find\n"
	"ffffffff81004000 T say\"it's\"\n";

#define SYSCALL	0xffffffff81001010ULL
#define READ	0xffffffff81002010ULL
#define TMPL	0xffffffff81003010ULL
#define QUOTE	0xffffffff81004010ULL
#define NR_SAMPLES 60

/* Sample I's period: different for each, so that weights by period differ from counts. */
static uint64_t period_of(int i)
{
	return 1000 + 7 * i;
}

/*
 * NR_SAMPLES kernel samples on 2 CPUs: comm "a" when i % 3 == 0, else
 * "b c"; stacks by i % 4 (leaf first): read+syscall, tmpl+read+syscall,
 * syscall alone, quote+syscall.  REVERSED: the same samples, last first.
 */
static int write_capture(const char *path, int reversed)
{
	static const char meta[] = "event=cpu-clock\nsample=4000\nfreq=1\nnr_cpus=2\n";
	static const uint64_t stacks[4][3] = {
		{ READ, SYSCALL }, { TMPL, READ, SYSCALL }, { SYSCALL }, { QUOTE, SYSCALL },
	};
	static const uint16_t depth[4] = { 2, 3, 1, 2 };
	struct capture_writer *w = capture__create(path);
	unsigned char buf[256];
	int k;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1) ||
	    capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (k = 0; k < NR_SAMPLES; k++) {
		int i = reversed ? NR_SAMPLES - 1 - k : k;
		size_t n = synth_sample(buf, k + 1, 1000000000ULL + k * 1000, i % 2, 100 + i % 3,
					i % 3 ? "b c" : "a", 0, stacks[i % 4], depth[i % 4], 0);

		((struct kprof_sample *)buf)->period = period_of(i);
		if (capture__add_record(w, i % 2, buf, n))
			return -1;
	}
	return capture__close(w);
}

/* ---- running the writer ---- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = n >= 0 ? calloc(1, n + 1) : NULL;
	if (text)
		len = fread(text, 1, n, f);
	fclose(f);
	if (text && len != (size_t)n) {
		free(text);
		text = NULL;
	}
	return text;
}

/* The flame graph of capture CAP into SVG_PATH, through the library; its text. */
static char *flamegraph(const char *cap, const char *svg_path, int weight_period)
{
	char event[64] = "unknown";
	struct output *o = output_flamegraph__open(svg_path, weight_period, event);
	int status;

	if (!o)
		return NULL;
	status = record__replay(cap, o, 0, event, sizeof(event));
	output__free(o);
	return status ? NULL : slurp(svg_path);
}

FIXTURE(fg) {
	char dir[64];
	char cap[128], rev[128], svg[128];
	uint64_t samples_a, period_a, period;
};

FIXTURE_SETUP(fg)
{
	int i;

	snprintf(self->dir, sizeof(self->dir), "/tmp/kprofcat-flame-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->cap, sizeof(self->cap), "%s/c.kpcap", self->dir);
	snprintf(self->rev, sizeof(self->rev), "%s/rev.kpcap", self->dir);
	snprintf(self->svg, sizeof(self->svg), "%s/f.svg", self->dir);
	ASSERT_EQ(0, write_capture(self->cap, 0));
	ASSERT_EQ(0, write_capture(self->rev, 1));
	self->samples_a = 0;
	self->period_a = 0;
	self->period = 0;
	for (i = 0; i < NR_SAMPLES; i++) {
		self->period += period_of(i);
		if (i % 3 == 0) {
			self->samples_a++;
			self->period_a += period_of(i);
		}
	}
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(fg)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

static const struct frame *find(const struct svg *s, const char *title_start, int depth)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (s->f[i].d == depth && !strncmp(s->f[i].title, title_start, strlen(title_start)))
			return &s->f[i];
	return NULL;
}

/*
 * The frames against TOTAL: the root has it all; depth 1 (the comms) sums
 * to it, in values and in px; every frame lies inside its parent's span
 * and inside the view box; each rect is where its values put it.  The
 * writer prints px with 3 decimals: each differs from the exact figure
 * by at most 0.0005, so a sum of N by N * 0.0005.
 */
static void check_frames(struct __test_metadata *_metadata, const struct svg *s, double total)
{
	const double fw = FLAME_WIDTH - 2 * FLAME_PAD;
	double sum_v = 0, sum_w = 0;
	int i, j, nr1 = 0;

	ASSERT_GT(s->nr, 1);
	ASSERT_EQ(FLAME_WIDTH, s->vb_w);
	ASSERT_GT(s->vb_h, 0);
	EXPECT_EQ(0, s->f[0].d);
	EXPECT_EQ(total, s->f[0].dv);
	for (i = 0; i < s->nr; i++) {
		const struct frame *f = &s->f[i];
		int parent = f->d == 0;

		ASSERT_TRUE(f->has_rect);
		EXPECT_TRUE(f->x >= 0 && f->y >= 0 && f->x + f->w <= s->vb_w + 0.0005 &&
			    f->y + f->h <= s->vb_h) TH_LOG("frame %s outside the view box",
							   f->title);
		EXPECT_LE(fabs(f->x - (FLAME_PAD + f->dx * fw / total)), 0.0005)
			TH_LOG("%s", f->title);
		EXPECT_LE(fabs(f->w - f->dv * fw / total), 0.0005) TH_LOG("%s", f->title);
		EXPECT_GT(f->dv, 0);
		if (f->d == 1) {
			sum_v += f->dv;
			sum_w += f->w;
			nr1++;
		}
		for (j = 0; j < s->nr && !parent; j++)
			parent = s->f[j].d == f->d - 1 && s->f[j].dx <= f->dx &&
				 f->dx + f->dv <= s->f[j].dx + s->f[j].dv;
		EXPECT_TRUE(parent) TH_LOG("frame %s lies in no frame below it", f->title);
		/* Frames of a level do not overlap. */
		for (j = 0; j < i; j++)
			if (s->f[j].d == f->d)
				EXPECT_TRUE(s->f[j].dx + s->f[j].dv <= f->dx ||
					    f->dx + f->dv <= s->f[j].dx);
	}
	EXPECT_EQ(total, sum_v);
	EXPECT_LE(fabs(sum_w - fw), nr1 * 0.0005 + 1 / 1e9);
}

TEST_F(fg, widths_sum_to_the_samples_and_frames_stay_in_the_box)
{
	char *text = flamegraph(self->cap, self->svg, 0), want[64];
	struct svg s;
	const struct frame *a, *f;

	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, xml_check(text, &s)) TH_LOG("not well-formed XML: %s", s.err);
	EXPECT_EQ(1, s.scripts);
	check_frames(_metadata, &s, NR_SAMPLES);
	/* The comms, "b c" as folded spells it; under "a" the stacks of its samples. */
	snprintf(want, sizeof(want), "a (%llu samples,", (unsigned long long)self->samples_a);
	a = find(&s, want, 1);
	ASSERT_NE(NULL, a) TH_LOG("no frame '%s'", want);
	snprintf(want, sizeof(want), "b_c (%llu samples,",
		 (unsigned long long)(NR_SAMPLES - self->samples_a));
	EXPECT_NE(NULL, find(&s, want, 1)) TH_LOG("no frame '%s'", want);
	snprintf(want, sizeof(want), "do_syscall_64_[k] (%llu samples, %.2f%%)",
		 (unsigned long long)self->samples_a, 100.0 * self->samples_a / NR_SAMPLES);
	f = find(&s, want, 2);
	ASSERT_NE(NULL, f) TH_LOG("no frame '%s'", want);
	EXPECT_EQ(a->dx, f->dx);
	/* The template ends the stacks of i % 4 == 1: 15 samples, 5 of them a's (i % 12 == 9). */
	EXPECT_NE(NULL, find(&s, "std::map<int, std::pair<a&b, c> >::find_[k] (10 samples,", 4));
	EXPECT_NE(NULL, find(&s, "std::map<int, std::pair<a&b, c> >::find_[k] (5 samples,", 4));
	EXPECT_NE(NULL, find(&s, "say\"it's\"_[k] (", 3));
	free(text);
}

TEST_F(fg, weight_period_sums_the_periods)
{
	char *text = flamegraph(self->cap, self->svg, 1), want[64];
	struct svg s;

	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, xml_check(text, &s)) TH_LOG("not well-formed XML: %s", s.err);
	check_frames(_metadata, &s, self->period);
	snprintf(want, sizeof(want), "a (period %llu,", (unsigned long long)self->period_a);
	EXPECT_NE(NULL, find(&s, want, 1)) TH_LOG("no frame '%s'", want);
	free(text);
}

TEST_F(fg, names_are_escaped_and_nothing_is_fetched)
{
	char *text = flamegraph(self->cap, self->svg, 0), *p;
	struct svg s;
	int i;

	ASSERT_NE(NULL, text);
	EXPECT_HAS(text, "std::map&lt;int, std::pair&lt;a&amp;b, c&gt; &gt;::find_[k]");
	EXPECT_NE(NULL, strstr(text, "say&quot;it&apos;s&quot;_[k]"));
	EXPECT_EQ(NULL, strstr(text, "<a&b"));
	/* The one URL is the SVG namespace's name, which nothing fetches. */
	p = strstr(text, "http");
	ASSERT_NE(NULL, p);
	EXPECT_EQ(0, strncmp(p - 7, "xmlns=\"http://www.w3.org/2000/svg\"", 34));
	EXPECT_EQ(NULL, strstr(p + 1, "http"));
	EXPECT_EQ(NULL, strstr(text, "href"));
	EXPECT_EQ(NULL, strstr(text, "url("));
	EXPECT_EQ(NULL, strstr(text, "@import"));
	/* Labels are the name or its start and "..": never more than fits. */
	ASSERT_EQ(0, xml_check(text, &s));
	for (i = 0; i < s.nr; i++) {
		size_t fit = (size_t)((s.f[i].w - 6) / (12 * 0.59));
		size_t len = strlen(s.f[i].label);

		EXPECT_LE(len, fit) TH_LOG("label '%s' in %.1f px", s.f[i].label, s.f[i].w);
		if (len)
			EXPECT_TRUE(!strncmp(s.f[i].title, s.f[i].label, len) ||
				    (len > 2 && !strcmp(s.f[i].label + len - 2, "..") &&
				     !strncmp(s.f[i].title, s.f[i].label, len - 2)));
	}
	free(text);
}

TEST_F(fg, xmllint_accepts_it)
{
	char *text = flamegraph(self->cap, self->svg, 0), cmd[256];

	ASSERT_NE(NULL, text);
	free(text);
	if (system("command -v xmllint >/dev/null 2>&1"))
		SKIP(return, "no xmllint (libxml2-utils); the checker above parsed it");
	snprintf(cmd, sizeof(cmd), "xmllint --noout %s", self->svg);
	EXPECT_EQ(0, system(cmd));
}

TEST_F(fg, the_same_stacks_give_the_same_bytes)
{
	char other[160];
	char *a = flamegraph(self->cap, self->svg, 0), *b, *c;

	snprintf(other, sizeof(other), "%s/g.svg", self->dir);
	b = flamegraph(self->cap, other, 0);
	c = flamegraph(self->rev, other, 0);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ(a, b);
	/* Samples in the other order: other tokens and hash order, the same graph. */
	EXPECT_STREQ(a, c);
	free(a);
	free(b);
	free(c);
}

/*
 * NR_WIDE samples of comm "a\x01\xff" (a control character and a byte
 * that is not UTF-8, which XML admits neither of) in do_syscall_64, one of
 * "rare" in vfs_read under it: 1180 px / NR_WIDE is under 0.1 px, so
 * rare's 3 frames go.
 */
#define NR_WIDE 12000

static int write_wide_capture(const char *path)
{
	static const char meta[] = "event=cpu-clock\nsample=4000\nfreq=1\nnr_cpus=1\n";
	static const uint64_t ips[2] = { READ, SYSCALL };
	struct capture_writer *w = capture__create(path);
	unsigned char buf[256];
	int i;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1) ||
	    capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (i = 0; i <= NR_WIDE; i++) {
		int rare = i == NR_WIDE / 2;
		size_t n = synth_sample(buf, i + 1, 1000000000ULL + i * 1000, 0, 100,
					rare ? "rare" : "a\x01\xff", 0,
					rare ? ips : ips + 1, 2 - !rare, 0);

		if (capture__add_record(w, 0, buf, n))
			return -1;
	}
	return capture__close(w);
}

TEST_F(fg, frames_under_a_tenth_of_a_pixel_are_left_out_and_counted_and_bad_bytes_replaced)
{
	char cap[160], *text;
	struct svg s;
	double sum = 0;
	int i;

	snprintf(cap, sizeof(cap), "%s/wide.kpcap", self->dir);
	ASSERT_EQ(0, write_wide_capture(cap));
	text = flamegraph(cap, self->svg, 0);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, xml_check(text, &s)) TH_LOG("not well-formed XML: %s", s.err);
	EXPECT_NE(NULL, strstr(text, "; 3 frames narrower than 0.1 px left out</text>"));
	EXPECT_EQ(NULL, find(&s, "rare (", 1));
	EXPECT_NE(NULL, find(&s, "a?? (12000 samples, ", 1));
	ASSERT_EQ(3, s.nr);
	/* The root keeps the whole: its drawn children are the rest. */
	EXPECT_EQ(NR_WIDE + 1, s.f[0].dv);
	for (i = 0; i < s.nr; i++)
		if (s.f[i].d == 1)
			sum += s.f[i].dv;
	EXPECT_EQ(NR_WIDE, sum);
	free(text);
	if (!system("command -v xmllint >/dev/null 2>&1")) {
		snprintf(cap, sizeof(cap), "xmllint --noout %s", self->svg);
		EXPECT_EQ(0, system(cap));
	}
}

/* ---- the script, in node with a stand-in for the DOM ---- */

/*
 * A stand-in for the few DOM calls the script makes, over the frames of
 * the SVG (argv[2]) as the writer prints them; then a hover, a click on
 * comm "a", two searches and Reset Zoom, each printing what it left.
 */
static const char dom_js[] =
"const fs = require('fs');\n"
"const svg = fs.readFileSync(process.argv[2], 'utf8');\n"
"const script = svg.match(/<script[^>]*><!\\[CDATA\\[([\\s\\S]*?)\\]\\]><\\/script>/)[1];\n"
"const unesc = s => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '\"')\n"
"  .replace(/&apos;/g, \"'\").replace(/&amp;/g, '&');\n"
"function el(attrs, text) {\n"
"  const e = { a: Object.assign({}, attrs), textContent: text || '', cls: new Set(),\n"
"    getAttribute(n) { return this.a[n]; }, setAttribute(n, v) { this.a[n] = String(v); },\n"
"    addEventListener(t, f) { this['on' + t] = f; } };\n"
"  e.classList = { toggle(c, on) { if (on) e.cls.add(c); else e.cls.delete(c); } };\n"
"  e.firstChild = { nodeValue: text };\n"
"  return e;\n"
"}\n"
"const gs = [], h = {};\n"
"const re = /<g class=\"f\" data-x=\"(\\d+)\" data-v=\"(\\d+)\" data-d=\"(\\d+)\"><title>(.*?)<\\/title>/.source +\n"
"  /<rect x=\"([\\d.]+)\"[^>]* width=\"([\\d.]+)\"[^>]* fill=\"([^\"]+)\"\\/><text x=\"([\\d.]+)\"[^>]*>(.*?)<\\/text>/.source;\n"
"for (const m of svg.matchAll(new RegExp(re, 'g'))) {\n"
"  const g = el({ 'data-x': m[1], 'data-v': m[2], 'data-d': m[3] }), t = el({}, unesc(m[4]));\n"
"  const r = el({ x: m[5], width: m[6], fill: m[7] }), tx = el({ x: m[8] }, unesc(m[9]));\n"
"  g.querySelector = s => ({ title: t, rect: r, text: tx })[s];\n"
"  g.closest = r.closest = () => g;\n"
"  gs.push(g);\n"
"}\n"
"const ids = { details: el({}, ' '), matched: el({}, ' '), unzoom: el({}), search: el({}, 'Search') };\n"
"const doc = { getElementById: id => ids[id], querySelectorAll: () => gs,\n"
"  addEventListener: (t, f) => { h[t] = f; } };\n"
"let answer = null;\n"
"const api = (new Function('document', 'prompt', 'alert', script +\n"
"  '\\ninit({});\\nreturn { fr: fr };'))(doc, () => answer, m => console.log('alert ' + m));\n"
"const fr = api.fr, visible = () => fr.filter(e => !e.g.cls.has('hide')).length;\n"
"const a = fr.find(e => e.name === 'a');\n"
"h.mouseover({ target: a.r });\n"
"console.log('hover ' + ids.details.firstChild.nodeValue);\n"
"h.click({ target: a.r });\n"
"const bc = fr.find(e => e.name === 'b_c');\n"
"console.log('zoom ' + a.r.a.x + ' ' + a.r.a.width + ' ' + fr[0].g.cls.has('p') + ' ' +\n"
"  bc.g.cls.has('hide') + ' ' + visible() + ' ' + ids.unzoom.cls.has('hide'));\n"
"answer = 'vfs_read';\n"
"h.keydown({ key: 'f', ctrlKey: true, preventDefault() {} });\n"
"console.log('matched ' + ids.matched.textContent);\n"
"answer = 'read|find';\n"
"h.keydown({ key: '/', preventDefault() {} });\n"
"console.log('nested ' + ids.matched.textContent);\n"
"h.keydown({ key: 'Escape' });\n"
"console.log('cleared [' + ids.matched.textContent + '] ' + fr.every(e => e.r.a.fill === e.fill));\n"
"ids.unzoom.onclick();\n"
"console.log('unzoom ' + visible() + ' ' + fr[0].g.cls.has('p') + ' ' + a.r.a.width);\n";

TEST_F(fg, the_script_zooms_and_searches)
{
	char *text = flamegraph(self->cap, self->svg, 0), js[160], cmd[512], want[128];
	char *out;
	struct svg s;
	FILE *f;
	int i, under_a = 0;

	ASSERT_NE(NULL, text);
	free(text);
	if (system("command -v node >/dev/null 2>&1"))
		SKIP(return, "no node: the script is left unrun");
	snprintf(js, sizeof(js), "%s/dom.js", self->dir);
	f = fopen(js, "w");
	ASSERT_NE(NULL, f);
	fputs(dom_js, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "node %s %s >%s/node.txt 2>&1", js, self->svg, self->dir);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "%s/node.txt", self->dir);
	out = slurp(cmd);
	ASSERT_NE(NULL, out);
	text = slurp(self->svg);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, xml_check(text, &s));
	free(text);
	/* Zoomed into "a": it and the 4 frames above it, the root dimmed under it. */
	for (i = 0; i < s.nr; i++)
		under_a += s.f[i].d > 1 && s.f[i].dx < self->samples_a;
	snprintf(want, sizeof(want), "hover a (%llu samples, %.2f%%)\n",
		 (unsigned long long)self->samples_a, 100.0 * self->samples_a / NR_SAMPLES);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "zoom %d.000 %d.000 true true %d false\n",
		 FLAME_PAD, FLAME_WIDTH - 2 * FLAME_PAD, 2 + under_a);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("want '%s' in:\n%s", want, out);
	/*
	 * vfs_read: the stacks of i % 4 == 0 or 1, half the samples; the
	 * template inside counts once.
	 */
	EXPECT_NE(NULL, strstr(out, "matched Matched: 50.00%\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "nested Matched: 50.00%\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "cleared [ ] true\n")) TH_LOG("%s", out);
	snprintf(want, sizeof(want), "unzoom %d false %.3f\n", s.nr,
		 (FLAME_WIDTH - 2 * FLAME_PAD) * (double)self->samples_a / NR_SAMPLES);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("want '%s' in:\n%s", want, out);
	free(out);
}

/* ---- from the command line ---- */

struct result {
	int status;
	char err[4096];
};

/* user/kprofcat of the tree this test was built from (tests/Makefile). */
static int kprofcat(char *path, size_t len)
{
	snprintf(path, len, "%s/user/kprofcat", KPROF_TREE);
	return access(path, X_OK);
}

static void run(struct result *r, const char *dir, const char *args)
{
	char bin[512], cmd[2048], errp[128];
	FILE *f;
	size_t n = 0;

	r->status = -1;
	r->err[0] = '\0';
	if (kprofcat(bin, sizeof(bin)))
		return;
	snprintf(errp, sizeof(errp), "%s/err.txt", dir);
	snprintf(cmd, sizeof(cmd), "cd %s && %s %s >out.txt 2>%s", dir, bin, args, errp);
	r->status = system(cmd);
	r->status = WIFEXITED(r->status) ? WEXITSTATUS(r->status) : -1;
	f = fopen(errp, "r");
	if (f) {
		n = fread(r->err, 1, sizeof(r->err) - 1, f);
		fclose(f);
	}
	r->err[n] = '\0';
}

TEST_F(fg, the_command_line_writes_it_and_refuses_what_cannot_work)
{
	char bin[512], path[192], *lib, *cli, *out;
	struct result r;
	struct stat st;
	FILE *f;
	int i;

	if (kprofcat(bin, sizeof(bin)))
		SKIP(return, "no user/kprofcat (make user first)");
	lib = flamegraph(self->cap, self->svg, 0);
	ASSERT_NE(NULL, lib);
	/* An older, longer file is replaced whole. */
	snprintf(path, sizeof(path), "%s/cli.svg", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	for (i = 0; i < 20000; i++)
		fputs("old text\n", f);
	fclose(f);
	run(&r, self->dir, "-i c.kpcap --flamegraph cli.svg");
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_HAS(r.err, "flame graph cli.svg: 60 samples of cpu-clock");
	cli = slurp(path);
	ASSERT_NE(NULL, cli);
	EXPECT_STREQ(lib, cli);
	snprintf(path, sizeof(path), "%s/out.txt", self->dir);
	out = slurp(path);
	ASSERT_NE(NULL, out);
	EXPECT_STREQ("", out);
	free(out);

	run(&r, self->dir, "-i c.kpcap --flamegraph cli.svg --folded");
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "exclude each other: pick one")) TH_LOG("%s", r.err);
	run(&r, self->dir, "report --flamegraph cli.svg");
	EXPECT_EQ(2, r.status);
	EXPECT_NE(NULL, strstr(r.err, "'kprofcat report' picks the output")) TH_LOG("%s", r.err);
	run(&r, self->dir, "-i c.kpcap --report --weight=period");
	EXPECT_HAS(r.err, "--weight only applies to --folded and --flamegraph");
	run(&r, self->dir, "-i c.kpcap --flamegraph /nonexistent/f.svg");
	EXPECT_EQ(1, r.status);
	EXPECT_HAS(r.err, "cannot write the flame graph to /nonexistent/f.svg: No such file or directory: give --flamegraph the path of a file you can write");
	/* A run that fails leaves an older file as it was and makes none. */
	run(&r, self->dir, "-i nosuch.kpcap --flamegraph cli.svg");
	EXPECT_EQ(1, r.status);
	snprintf(path, sizeof(path), "%s/cli.svg", self->dir);
	free(cli);
	cli = slurp(path);
	ASSERT_NE(NULL, cli);
	EXPECT_STREQ(lib, cli);
	run(&r, self->dir, "-i nosuch.kpcap --flamegraph new.svg");
	EXPECT_EQ(1, r.status);
	snprintf(path, sizeof(path), "%s/new.svg", self->dir);
	EXPECT_NE(0, stat(path, &st));
	free(cli);
	free(lib);
}

TEST_HARNESS_MAIN
