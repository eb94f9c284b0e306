// SPDX-License-Identifier: GPL-2.0
/*
 * report_test: --report as perf report --stdio prints it, on synthetic
 * kernel stacks whose every share is known: the header's totals from the
 * in-band records (lost by cause, throttles, lowerings), Children/Self
 * by period, the Command / Shared Object / Symbol columns with [k] and
 * [.] (dots as wide as each column), --sort, --percent-limit,
 * --no-children with -n, --dso, and the -g graphs in caller and callee
 * order.
 */
#include <stdio.h>

#include "kselftest_harness.h"
#include "expect.h"

#include "lib/symbols/ksyms.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "lib/stream/session.h"
#include "synth.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T main_fn\n"
	"ffffffff81002000 T work_fn\n"
	"ffffffff81003000 T spin_fn\n"
	"ffffffff81004000 T idle_fn\n"
	"ffffffff81005000 T other_fn\n";

#define MAIN	0xffffffff81001010ULL
#define WORK	0xffffffff81002010ULL
#define SPIN	0xffffffff81003010ULL
#define IDLE	0xffffffff81004010ULL
#define OTHER	0xffffffff81005010ULL

/*
 * Period 100 each: "hot" main->work->spin three times and main->idle
 * once, "cold" other->spin once (500 in all); one LOST (full 7, nested 1,
 * a THROTTLE record not written), two THROTTLEs and one RATE_LOWERED.
 */
static char *report(const struct report_opts *ro)
{
	static const uint64_t s1[] = { SPIN, WORK, MAIN }, s2[] = { IDLE, MAIN },
			      s3[] = { SPIN, OTHER };
	struct session_opts so = { .window_ns = 1000000 };
	struct out_summary sum = { 0 };
	struct kprof_rate_lowered low = { .header = { .type = KPROF_RECORD_RATE_LOWERED,
						      .size = sizeof(low) } };
	unsigned char buf[256];
	char *text = NULL;
	size_t len, n;
	struct session *s;
	struct kprof_lost *l = (void *)buf;
	FILE *f = open_memstream(&text, &len);
	int i, t = 1;

	so.out = output_report__new(f, "cpu-clock", ro);
	s = session__new(&so, ksyms__new(kallsyms, sizeof(kallsyms) - 1));
	if (!s)
		return NULL;
	for (i = 0; i < 3; i++) {
		n = synth_sample(buf, t, 1000 * t, 0, 10, "hot", 0, s1, 3, 0);
		((struct kprof_sample *)buf)->period = 100;
		session__record(s, 0, buf, n);
		t++;
	}
	n = synth_sample(buf, t, 1000 * t, 0, 10, "hot", 0, s2, 2, 0);
	((struct kprof_sample *)buf)->period = 100;
	session__record(s, 0, buf, n);
	t++;
	n = synth_sample(buf, t, 1000 * t, 0, 20, "cold", 0, s3, 2, 0);
	((struct kprof_sample *)buf)->period = 100;
	session__record(s, 0, buf, n);
	n = synth_lost(buf, 10000, 7);
	l->nested = 1;
	l->throttle = 1;
	session__record(s, 0, buf, n);
	n = synth_throttle(buf, KPROF_RECORD_THROTTLE, 11000);
	session__record(s, 0, buf, n);
	n = synth_throttle(buf, KPROF_RECORD_THROTTLE, 12000);
	session__record(s, 0, buf, n);
	low.time = 13000;
	session__record(s, 0, &low, sizeof(low));
	if (session__flush(s, 1))
		return NULL;
	sum.decode = session__decode_stats(s);
	if (output__finish(so.out, &sum))
		return NULL;
	session__free(s);
	output__free(so.out);
	fclose(f);
	return text;
}

TEST(header_carries_the_in_band_totals)
{
	static const char head[] =
		"# Total Lost Samples: 8 (full 7, nested 1, stopped 0, throttled 0)\n"
		"#\n"
		"# Samples: 5 of event 'cpu-clock'\n"
		"# Event count (approx.): 500\n"
		"# Throttles: 3, rate lowerings: 1\n"
		"#\n"
		"# Children      Self  Command  Shared Object      Symbol\n"
		"# ........  ........  .......  .................  ............\n"
		"#\n";
	char *t;

	p_set_quiet(1);
	t = report(NULL);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, strncmp(t, head, strlen(head))) TH_LOG("got:\n%s", t);
	free(t);
}

TEST(children_and_self_by_period_with_perfs_columns)
{
	static const char rows[] =
		"    80.00%     0.00%  hot      [kernel.kallsyms]  [k] main_fn\n"
		"    60.00%    60.00%  hot      [kernel.kallsyms]  [k] spin_fn\n"
		"    60.00%     0.00%  hot      [kernel.kallsyms]  [k] work_fn\n"
		"    20.00%    20.00%  cold     [kernel.kallsyms]  [k] spin_fn\n"
		"    20.00%    20.00%  hot      [kernel.kallsyms]  [k] idle_fn\n"
		"    20.00%     0.00%  cold     [kernel.kallsyms]  [k] other_fn\n";
	char *t = report(NULL);

	ASSERT_NE(NULL, t);
	EXPECT_NE(NULL, strstr(t, "#\n    80.00%")) TH_LOG("%s", t);
	EXPECT_NE(NULL, strstr(t, rows)) TH_LOG("got:\n%s", t);
	free(t);
}

TEST(sort_picks_and_orders_the_columns)
{
	struct report_opts ro = { 0 };
	char *t;

	ASSERT_EQ(0, output_report__parse_sort("comm", &ro));
	t = report(&ro);
	ASSERT_NE(NULL, t);
	EXPECT_HAS(t, "# Children      Self  Command\n# ........  ........  .......\n#\n"
		      "    80.00%    80.00%  hot\n    20.00%    20.00%  cold\n");
	free(t);
	ASSERT_EQ(0, output_report__parse_sort("sym,comm", &ro));
	t = report(&ro);
	ASSERT_NE(NULL, t);
	EXPECT_NE(NULL, strstr(t, "    60.00%    60.00%  [k] spin_fn   hot\n")) TH_LOG("%s", t);
	free(t);
	p_set_quiet(1);
	EXPECT_EQ(-1, output_report__parse_sort("comm,pid", &ro));
	EXPECT_EQ(-1, output_report__parse_sort("", &ro));
}

TEST(percent_limit_leaves_out_rows_and_says_so)
{
	struct report_opts ro = { .percent_limit = 50 };
	char *t = report(&ro);

	ASSERT_NE(NULL, t);
	EXPECT_HAS(t, "[k] work_fn\n#\n# 3 entries below --percent-limit 50% not shown\n");
	EXPECT_EQ(NULL, strstr(t, "idle_fn")) TH_LOG("%s", t);
	free(t);
}

TEST(no_children_with_samples_is_perfs_self_report)
{
	struct report_opts ro = { .no_children = 1, .show_samples = 1 };
	char *t = report(&ro);

	ASSERT_NE(NULL, t);
	EXPECT_HAS(t,
		   "# Overhead    Samples  Command  Shared Object      Symbol\n"
		   "# ........  .........  .......  .................  ...........\n#\n"
		   "    60.00%          3  hot      [kernel.kallsyms]  [k] spin_fn\n"
		   "    20.00%          1  cold     [kernel.kallsyms]  [k] spin_fn\n"
		   "    20.00%          1  hot      [kernel.kallsyms]  [k] idle_fn\n");
	EXPECT_EQ(NULL, strstr(t, "main_fn")) TH_LOG("%s", t);
	free(t);
}

TEST(dso_keeps_the_samples_whose_leaf_is_in_it)
{
	struct report_opts ro = { .dso = "[kernel.kallsyms]" };
	char *t = report(&ro);

	ASSERT_NE(NULL, t);
	EXPECT_NE(NULL, strstr(t, "# Samples: 5 of event 'cpu-clock', in DSO [kernel.kallsyms]\n"));
	free(t);
	ro.dso = "libc.so.6";
	t = report(&ro);
	ASSERT_NE(NULL, t);
	EXPECT_NE(NULL, strstr(t, "# Samples: 0 of event 'cpu-clock', in DSO libc.so.6\n"));
	EXPECT_EQ(NULL, strstr(t, "%  ")) TH_LOG("%s", t);
	free(t);
}

TEST(g_caller_graphs_go_down_to_the_leaves)
{
	struct report_opts ro = { .call_graph = REPORT_CALLER };
	char *t = report(&ro);

	ASSERT_NE(NULL, t);
	EXPECT_HAS(t,
		   "    80.00%     0.00%  hot      [kernel.kallsyms]  [k] main_fn\n"
		   "            |\n"
		   "            ---main_fn\n"
		   "               |\n"
		   "               |--60.00%--work_fn\n"
		   "               |          spin_fn\n"
		   "               |\n"
		   "                --20.00%--idle_fn\n"
		   "\n"
		   "    60.00%    60.00%  hot      [kernel.kallsyms]  [k] spin_fn\n"
		   "    60.00%     0.00%  hot      [kernel.kallsyms]  [k] work_fn\n"
		   "            |\n"
		   "            ---work_fn\n"
		   "               spin_fn\n"
		   "\n");
	free(t);
}

TEST(g_callee_graphs_go_up_to_the_roots)
{
	struct report_opts ro = { .call_graph = REPORT_CALLEE, .no_children = 1 };
	char *t = report(&ro);

	ASSERT_NE(NULL, t);
	EXPECT_HAS(t,
		   "    60.00%  hot      [kernel.kallsyms]  [k] spin_fn\n"
		   "            |\n"
		   "            ---spin_fn\n"
		   "               work_fn\n"
		   "               main_fn\n"
		   "\n"
		   "    20.00%  cold     [kernel.kallsyms]  [k] spin_fn\n"
		   "            |\n"
		   "            ---spin_fn\n"
		   "               other_fn\n"
		   "\n");
	free(t);
}

/*
 * Symbol ids past 63, 4095 and more (the report keys stacks by their
 * ids, 6 bits a byte): 42 samples of 100 distinct frames each, 4200
 * symbols, every one of them a row with 1/42 of the period.
 */
/* A row of --report's output for one of many symbols: callers, and the leaf. */
#define ROW_CHILD "\n     2.38%     0.00%  many     [kernel.kallsyms]  [k] fn_"
#define ROW_LEAF "\n     2.38%     2.38%  many     [kernel.kallsyms]  [k] fn_"

TEST(many_symbols_keep_their_rows)
{
	struct session_opts so = { .window_ns = 1000000 };
	size_t klen = 0, len, n;
	char *ks = NULL, *text = NULL, *p;
	uint64_t ips[100];
	unsigned char buf[1024];
	struct session *s;
	FILE *kf = open_memstream(&ks, &klen), *f = open_memstream(&text, &len);
	int i, j, rows = 0, leaves = 0;

	ASSERT_NE(NULL, kf);
	ASSERT_NE(NULL, f);
	for (i = 0; i < 4200; i++)
		fprintf(kf, "%llx T fn_%d\n", 0xffffffff81000000ULL + 0x100ULL * i, i);
	fclose(kf);
	so.out = output_report__new(f, "cpu-clock", NULL);
	s = session__new(&so, ksyms__new(ks, klen));
	ASSERT_NE(NULL, s);
	for (i = 0; i < 42; i++) {
		for (j = 0; j < 100; j++)	/* fn_(100 i) (the leaf) to fn_(100 i + 99) */
			ips[j] = 0xffffffff81000010ULL + 0x100ULL * (100 * i + j);
		n = synth_sample(buf, i + 1, 1000 + i, 0, 10, "many", 0, ips, 100, 0);
		ASSERT_EQ(0, session__record(s, 0, buf, n));
	}
	ASSERT_EQ(0, session__flush(s, 1));
	ASSERT_EQ(0, output__finish(so.out,
				    &(struct out_summary){ .decode = session__decode_stats(s) }));
	session__free(s);
	output__free(so.out);
	fclose(f);
	for (p = strstr(text, ROW_CHILD); p; p = strstr(p + 1, ROW_CHILD))
		rows++;
	for (p = strstr(text, ROW_LEAF); p; p = strstr(p + 1, ROW_LEAF))
		leaves++;
	EXPECT_EQ(4200 - 42, rows);
	EXPECT_EQ(42, leaves);
	EXPECT_HAS(text, "     2.38%     2.38%  many     [kernel.kallsyms]  [k] fn_4100\n");
	EXPECT_HAS(text, "     2.38%     0.00%  many     [kernel.kallsyms]  [k] fn_4199\n");
	free(text);
	free(ks);
}

/*
 * A user frame F (SYM in /bin/x at ADDR) with its id, or an inline frame
 * of function SYM inlined into OUTER.
 */
static struct out_frame ufr(uint64_t addr, const char *sym, uint32_t id, const char *outer,
			    uint32_t outer_id)
{
	return (struct out_frame){ .addr = addr, .sym = sym, .dso = "/bin/x", .sym_id = id,
				   .inlined = !!outer, .outer = outer ? outer : sym,
				   .outer_id = outer ? outer_id : id };
}

/*
 * Inline frames count as callers, marked "(inlined)" as perf report marks
 * them; Self goes to the symbol the address lies in: the next frame's
 * where debug info names it as the symbol table does (mix inlined into
 * run), else the symbol's own row (step inlined into walk.constprop.0,
 * named "walk" in debug info, which has no frame line of its own).
 */
TEST(inline_frames_are_callers_and_self_stays_on_the_symbol)
{
	static const char rows[] =
		"   100.00%     0.00%  hot      x              [.] main\n"
		"    50.00%    50.00%  hot      x              [.] run\n"
		"    50.00%    50.00%  hot      x              [.] walk.constprop.0\n"
		"    50.00%     0.00%  hot      x              [.] mix (inlined)\n"
		"    50.00%     0.00%  hot      x              [.] step (inlined)\n"
		"    50.00%     0.00%  hot      x              [.] walk (inlined)\n";
	struct out_frame a[] = { ufr(0x1010, "mix", 1, "run", 2), ufr(0x1010, "run", 2, NULL, 0),
				 ufr(0x3000, "main", 3, NULL, 0) };
	struct out_frame b[] = { ufr(0x2010, "step", 4, "walk.constprop.0", 6),
				 ufr(0x2010, "walk", 5, "walk.constprop.0", 6),
				 ufr(0x3000, "main", 3, NULL, 0) };
	struct kp_record r = { .type = KPROF_RECORD_SAMPLE, .time = 1 };
	struct out_summary sum = { 0 };
	struct output *o;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	ASSERT_NE(NULL, f);
	o = output_report__new(f, "cpu-clock", NULL);
	ASSERT_NE(NULL, o);
	r.sample.period = 100;
	strcpy(r.sample.comm, "hot");
	ASSERT_EQ(0, output__sample(o, &r, a, 3));
	ASSERT_EQ(0, output__sample(o, &r, b, 3));
	ASSERT_EQ(0, output__finish(o, &sum));
	output__free(o);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, rows)) TH_LOG("got:\n%s", text);
	free(text);
}

TEST_HARNESS_MAIN
