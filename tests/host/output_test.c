// SPDX-License-Identifier: GPL-2.0
/*
 * output_test: the whole pipeline on synthetic records (kernel frames from
 * a kallsyms text, user frames from this very test binary, resolved through
 * /proc/self/maps and libdwfl): exact perf-script lines, the stackcollapse-
 * perf / speedscope / Firefox Profiler line grammars on everything printed,
 * folded stacks, the report, and a capture written with -o semantics that
 * replays (-i) to the same text.
 */
#include <stdio.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "expect.h"

#include "lib/capture/capture.h"
#include "grammar.h"
#include "lib/symbols/ksyms.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "lib/stream/replay.h"
#include "lib/stream/session.h"
#include "lib/stream/sideband.h"
#include "synth.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n"
	"ffffffff81002000 t asm_sysvec_apic_timer_interrupt\n"
	"ffffffff81003000 D some_data\n"
	"ffffffffc0001000 t kprof_overflow\t[kprof]\n"
	"ffffffffc0001100 t kprof_other\t[kprof]\n";

__attribute__((noinline, used)) int target_leaf(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline, used)) int target_caller(int x)
{
	return target_leaf(x) + 2;
}

struct run {
	char *text;
	size_t len;
	FILE *f;
	struct output *out;
	struct session *s;
};

enum fmt { SCRIPT, FOLDED, REPORT };

static int start(struct run *r, enum fmt fmt, struct capture_writer *cap)
{
	struct session_opts so = { .window_ns = 1000000, .cap = cap };

	r->f = open_memstream(&r->text, &r->len);
	if (!r->f)
		return -1;
	r->out = fmt == SCRIPT ? output_script__new(r->f, "cpu-clock") :
		 fmt == FOLDED ? output_folded__new(r->f, 0, "cpu-clock") :
		 output_report__new(r->f, "cpu-clock", NULL);
	so.out = r->out;
	r->s = session__new(&so, ksyms__new(kallsyms, sizeof(kallsyms) - 1));
	if (!r->out || !r->s)
		return -1;
	if (cap && capture__write(cap, KPCAP_META, 0, "event=cpu-clock\n", 16))
		return -1;
	if (cap && capture__write(cap, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	return sideband__snapshot_pid(getpid(), 0, session__pev, r->s);
}

static int feed(struct run *r)
{
	uint64_t ips[8];
	unsigned char buf[512];
	size_t n;

	/* Kernel frames (one of a module), then user frames of this binary. */
	ips[0] = 0xffffffff81001010ULL;
	ips[1] = 0xffffffffc0001008ULL;
	ips[2] = (uintptr_t)target_leaf + 2;
	ips[3] = (uintptr_t)target_caller + 5;
	n = synth_sample(buf, 1, 1000002000, 1, 4242, "hot 3", 0, ips, 2, 2);
	if (session__record(r->s, 1, buf, n))
		return -1;
	n = synth_lost(buf, 1000003000, 7);
	if (session__record(r->s, 0, buf, n))
		return -1;
	n = synth_throttle(buf, KPROF_RECORD_THROTTLE, 1000004000);
	if (session__record(r->s, 0, buf, n))
		return -1;
	/* User only, an address nothing maps, no comm; CPU 0 but earlier. */
	ips[0] = (uintptr_t)target_leaf;
	ips[1] = 0x1234;
	n = synth_sample(buf, 2, 1000001000, 0, getpid(), "", KPROF_MISC_USER, ips, 0, 2);
	if (session__record(r->s, 0, buf, n))
		return -1;
	/* No call chain: the IP alone, in a kernel address nothing covers. */
	n = synth_sample(buf, 3, 1000005000, 0, 0, "swapper/0", 0, ips, 0, 0);
	((struct kprof_sample *)buf)->ip = 0xffffffff90000000ULL;
	if (session__record(r->s, 0, buf, n))
		return -1;
	return session__flush(r->s, 1);
}

static int finish(struct run *r)
{
	struct out_summary sum = { .decode = session__decode_stats(r->s) };
	int ret = output__finish(r->out, &sum);

	fclose(r->f);
	output__free(r->out);
	session__free(r->s);
	return ret;
}

TEST(script_lines_are_perfs)
{
	struct run r;
	char exe[4096], want[8192];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ASSERT_GT(n, 0);
	exe[n] = '\0';
	p_set_quiet(1);
	ASSERT_EQ(0, start(&r, SCRIPT, NULL));
	ASSERT_EQ(0, feed(&r));
	ASSERT_EQ(0, finish(&r));
	/* In time order across CPUs: the CPU 0 sample at ...001 comes first. */
	snprintf(want, sizeof(want),
		 "# ========\n# kprofcat: event cpu-clock\n# ========\n#\n\n"
		 ":%u %5u/%-5u [000]     1.000001:    1003009 cpu-clock: \n",
		 getpid(), getpid(), getpid());
	ASSERT_EQ(0, strncmp(want, r.text, strlen(want))) TH_LOG("got:\n%s", r.text);
	EXPECT_NE(NULL, strstr(r.text, " target_leaf+0x0 (")) TH_LOG("%s", r.text);
	EXPECT_NE(NULL, strstr(r.text, "\t            1234 [unknown] ([unknown])\n"));
	/* pid 4242 has no maps: its user frames are [unknown], raw addresses. */
	snprintf(want, sizeof(want),
		 "\nhot 3  4242/4242  [001]     1.000002:    1003009 cpu-clock: \n"
		 "\tffffffff81001010 do_syscall_64+0x10 ([kernel.kallsyms])\n"
		 "\tffffffffc0001008 kprof_overflow+0x8 ([kprof])\n"
		 "\t%16llx [unknown] ([unknown])\n\t%16llx [unknown] ([unknown])\n\n",
		 (unsigned long long)(uintptr_t)target_leaf + 2,
		 (unsigned long long)(uintptr_t)target_caller + 5);
	EXPECT_NE(NULL, strstr(r.text, want)) TH_LOG("%s", r.text);
	EXPECT_HAS(r.text, "\n# kprof LOST cpu=0 time=1.000003 full=7 nested=0 stopped=0 throttled=0\n\n");
	EXPECT_HAS(r.text, "\n# kprof THROTTLE cpu=0 time=1.000004 seq=7 tick=250 interrupts=3\n\n");
	EXPECT_NE(NULL, strstr(r.text, "\nswapper/0     0/0     [000]     1.000005:    1003009 cpu-clock: \n"
				       "\tffffffff90000000 [unknown] ([kernel.kallsyms])\n\n"));
	snprintf(want, sizeof(want), " target_leaf+0x0 (%s)\n", exe);
	EXPECT_NE(NULL, strstr(r.text, want)) TH_LOG("DSO path %s missing:\n%s", exe, r.text);
	free(r.text);
}

TEST(script_output_passes_the_parsers_grammars)
{
	struct grammar_result g;
	struct run r;

	p_set_quiet(1);
	ASSERT_EQ(0, start(&r, SCRIPT, NULL));
	ASSERT_EQ(0, feed(&r));
	ASSERT_EQ(0, finish(&r));
	ASSERT_EQ(0, grammar_check(r.text, &g)) TH_LOG("%s", g.err);
	EXPECT_EQ(3, g.samples);
	EXPECT_EQ(7, g.frames);
	EXPECT_EQ(3, g.comments);	/* header, LOST, THROTTLE */
	free(r.text);
}

TEST(grammar_checker_rejects_what_the_parsers_would)
{
	static const char *const bad[] = {
		/* a comment first line that is not perf's header */
		"# LOST\n\nx 1/1 [000] 1.0: 1 cpu-clock: \n\tff f (k)\n\n",
		/* comment with a bare number: speedscope takes it for an event */
		"# ========\n\n# lost 5 samples\n\n",
		/* frame without a DSO */
		"# ========\n\nx 1/1 [000] 1.0: 1 cpu-clock: \n\tffff func\n\n",
		/* no blank line after the last sample */
		"# ========\n\nx 1/1 [000] 1.0: 1 cpu-clock: \n\tff f (k)\n",
		/* header without pid */
		"# ========\n\nx [000] 1.0: 1 cpu-clock: \n\tff f (k)\n\n",
		/* two event names */
		"x 1/1 [000] 1.0: 1 a: \n\tff f (k)\n\nx 1/1 [000] 1.0: 1 b: \n\tff f (k)\n\n",
	};
	static const char good[] = "x y 1/1 [000] 1.000001: 1 cpu-clock: \n\tff f+0x1 (k)\n\n";
	struct grammar_result g;
	char buf[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		EXPECT_NE(0, grammar_check(buf, &g)) TH_LOG("accepted bad[%zu]", i);
	}
	snprintf(buf, sizeof(buf), "%s", good);
	EXPECT_EQ(0, grammar_check(buf, &g)) TH_LOG("%s", g.err);
}

TEST(folded_is_root_first_with_kernel_suffix)
{
	struct run r;

	p_set_quiet(1);
	ASSERT_EQ(0, start(&r, FOLDED, NULL));
	ASSERT_EQ(0, feed(&r));
	ASSERT_EQ(0, finish(&r));
	EXPECT_HAS(r.text, "hot_3;[unknown];[unknown];kprof_overflow_[k];do_syscall_64_[k] 1\n");
	EXPECT_NE(NULL, strstr(r.text, "swapper/0;[unknown]_[k] 1\n")) TH_LOG("%s", r.text);
	{
		char want[64];

		snprintf(want, sizeof(want), ":%u;[unknown];target_leaf 1\n", getpid());
		EXPECT_NE(NULL, strstr(r.text, want)) TH_LOG("%s", r.text);
	}
	free(r.text);
}

TEST(report_counts_children_and_self)
{
	struct run r;

	p_set_quiet(1);
	ASSERT_EQ(0, start(&r, REPORT, NULL));
	ASSERT_EQ(0, feed(&r));
	ASSERT_EQ(0, finish(&r));
	EXPECT_HAS(r.text, "# Total Lost Samples: 7 (full 7, nested 0, stopped 0, throttled 0)\n");
	EXPECT_NE(NULL, strstr(r.text, "# Samples: 3 of event 'cpu-clock'\n")) TH_LOG("%s", r.text);
	EXPECT_NE(NULL, strstr(r.text, "# Throttles: 1, rate lowerings: 0\n")) TH_LOG("%s", r.text);
	EXPECT_HAS(r.text, "    33.33%    33.33%  hot 3      [kernel.kallsyms]  [k] do_syscall_64\n");
	/* An unknown user frame is a caller in two samples (of two comms), leaf in none. */
	EXPECT_HAS(r.text, "    33.33%     0.00%  hot 3      [unknown]          [.] [unknown]\n");
	free(r.text);
}

/* Samples of pids 100, 101, 200, 201, 300 through a session filtering FILTER/PID. */
static int filtered_text(enum session_filter filter, uint32_t pid, char **text, uint64_t *filtered)
{
	static const uint32_t pids[] = { 100, 101, 200, 201, 300 };
	struct session_opts so = { .window_ns = 1000000, .filter = filter, .pid = pid };
	struct pev fork1 = { .type = PEV_FORK, .pid = 101, .ppid = 100, .time = 1 };
	struct pev fork2 = { .type = PEV_FORK, .pid = 201, .ppid = 200, .time = 1 };
	unsigned char buf[256];
	struct session *s;
	size_t len, i, n;
	uint64_t ip = 0xffffffff81001010ULL;
	FILE *f = open_memstream(text, &len);
	int ret = -1;

	if (!f)
		return -1;
	so.out = output_script__new(f, "cpu-clock");
	s = so.out ? session__new(&so, ksyms__new(kallsyms, sizeof(kallsyms) - 1)) : NULL;
	if (!s || session__pev(s, &fork1) || session__pev(s, &fork2))
		goto out;
	for (i = 0; i < sizeof(pids) / sizeof(pids[0]); i++) {
		n = synth_sample(buf, i + 1, 1000000000 + i, 0, pids[i], "p", 0, &ip, 1, 0);
		if (session__record(s, 0, buf, n))
			goto out;
	}
	if (session__flush(s, 1) || output__finish(so.out, &(struct out_summary){ 0 }))
		goto out;
	*filtered = session__filtered(s);
	ret = 0;
out:
	session__free(s);
	output__free(so.out);
	fclose(f);
	return ret;
}

TEST(process_filters_keep_the_pid_or_its_tree)
{
	uint64_t filtered = 0;
	char *text = NULL;

	p_set_quiet(1);
	/* -- CMD: the command (100) and what it forked (101), nothing else. */
	ASSERT_EQ(0, filtered_text(FILTER_TREE, 100, &text, &filtered));
	EXPECT_NE(NULL, strstr(text, "p   100/100   [000]")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "p   101/101   [000]")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "/200 ")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "/201 ")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "/300 ")) TH_LOG("%s", text);
	EXPECT_EQ(3, filtered);
	free(text);
	/* -p: that process only, not its children. */
	ASSERT_EQ(0, filtered_text(FILTER_PID, 200, &text, &filtered));
	EXPECT_NE(NULL, strstr(text, "p   200/200   [000]")) TH_LOG("%s", text);
	EXPECT_EQ(NULL, strstr(text, "/201 ")) TH_LOG("%s", text);
	EXPECT_EQ(4, filtered);
	free(text);
}

TEST(capture_replays_to_the_same_text)
{
	char path[] = "/tmp/kprofcat-capture-XXXXXX";
	struct capture_writer *w;
	struct run live;
	char *replayed = NULL, event[64] = "";
	size_t len = 0;
	struct output *out;
	FILE *f;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	close(fd);
	p_set_quiet(1);
	w = capture__create(path);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, start(&live, SCRIPT, w));
	ASSERT_EQ(0, feed(&live));
	ASSERT_EQ(0, session__save_dsos(live.s, w));
	ASSERT_EQ(0, finish(&live));
	ASSERT_EQ(0, capture__close(w));

	f = open_memstream(&replayed, &len);
	ASSERT_NE(NULL, f);
	out = output_script__new(f, event);
	ASSERT_NE(NULL, out);
	ASSERT_EQ(0, record__replay(path, out, 0, event, sizeof(event)));
	output__free(out);
	fclose(f);
	EXPECT_STREQ("cpu-clock", event);
	EXPECT_STREQ(live.text, replayed);
	free(live.text);
	free(replayed);
	unlink(path);
}

TEST(capture_refuses_other_versions_and_tells_truncation)
{
	char path[] = "/tmp/kprofcat-capture-XXXXXX";
	struct capture_cut cut;
	struct capture_writer *w;
	struct kpcap_header h;
	uint32_t type, arg;
	const void *data;
	size_t len;
	struct capture_reader *r;
	FILE *f;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	close(fd);
	p_set_quiet(1);
	w = capture__create(path);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, capture__write(w, KPCAP_META, 0, "event=x\n", 8));
	ASSERT_EQ(0, capture__close(w));
	r = capture__open(path);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(1, capture__next(r, &type, &arg, &data, &len));
	EXPECT_EQ(KPCAP_META, type);
	EXPECT_EQ(8, len);
	EXPECT_EQ(0, capture__next(r, &type, &arg, &data, &len));
	capture__close_reader(r);

	/* Cut off the END section: the end, and capture__cut() says where. */
	ASSERT_EQ(0, truncate(path, sizeof(h) + 16 + 8));
	r = capture__open(path);
	ASSERT_NE(NULL, r);
	EXPECT_EQ(1, capture__next(r, &type, &arg, &data, &len));
	EXPECT_EQ(0, capture__cut(r, &cut));
	EXPECT_EQ(0, capture__next(r, &type, &arg, &data, &len));
	EXPECT_EQ(1, capture__cut(r, &cut));
	EXPECT_EQ(sizeof(h) + 16 + 8, cut.at);
	EXPECT_EQ(0, cut.type);
	capture__close_reader(r);

	/* Version 2. */
	f = fopen(path, "r+");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fread(&h, sizeof(h), 1, f));
	h.version = KPCAP_VERSION + 1;
	rewind(f);
	ASSERT_EQ(1, fwrite(&h, sizeof(h), 1, f));
	fclose(f);
	EXPECT_EQ(NULL, capture__open(path));
	unlink(path);
}

/*
 * --stats: per CPU, samples, lost by cause, throttles by cause (kprof's
 * own, the kernel's, shadow would-throttles), lowerings, the limits in
 * force and the average cost, in the table and in JSON.  Every counter
 * gets a distinct value so a swapped or missing column shows.
 */
static void stats_input(struct kprof_cpu_stats cpu[2], struct decode_stats *d)
{
	memset(cpu, 0, 2 * sizeof(*cpu));
	memset(d, 0, sizeof(*d));
	cpu[0].size = sizeof(cpu[0]);
	cpu[0].cpu = 0;
	cpu[0].counters = (struct kprof_counters){
		.overflows = 1000, .samples = 900, .lost_full = 11,
		.lost_nested = 12, .lost_stopped = 13, .lost_throttled = 64,
		.lost_records = 100, .throttles = 21, .kernel_throttles = 22,
		.unthrottles = 42, .lowerings = 5, .handler_ns = 900 * 2500,
		.nmi_samples = 7, .would_throttles = 23,
	};
	cpu[0].max_sample_rate = 40000;
	cpu[0].max_samples_per_tick = 160;
	cpu[0].allowed_ns = 3125;
	cpu[0].avg_ns = 2600;
	cpu[1] = cpu[0];
	cpu[1].cpu = 1;
	cpu[1].counters.samples = 800;
	cpu[1].counters.would_throttles = 33;
	cpu[1].avg_ns = 2700;
	d->records[KPROF_RECORD_SAMPLE] = 1700;
	d->records[KPROF_RECORD_WOULD_THROTTLE] = 56;
}

static char *stats_text(int json)
{
	struct kprof_cpu_stats cpu[2];
	struct decode_stats d;
	struct out_summary sum = { .cpu = cpu, .nr_cpu = 2, .decode = &d };
	struct output *o;
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	stats_input(cpu, &d);
	o = output_stats__new(f, json);
	if (!o || output__finish(o, &sum)) {
		fclose(f);
		free(text);
		return NULL;
	}
	output__free(o);
	fclose(f);
	return text;
}

#define STATS_HEAD " cpu  overflows    samples lost:full   nested  stopped throttled throttles kthrottle    would  unthrot lowerings      nmi     avg_ns ctl_avg_ns     max_rate per_tick\n"

TEST(stats_table_shows_every_cause)
{
	char *t = stats_text(0);

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, strncmp(STATS_HEAD, t, strlen(STATS_HEAD))) TH_LOG("got:\n%s", t);
	/* avg_ns: handler_ns / samples; ctl_avg_ns: the controller's average. */
	EXPECT_HAS(t,
		   "\n   0       1000        900        11       12       13        64        21        22       23       42         5        7       2500       2600        40000      160\n");
	EXPECT_HAS(t,
		   "\n   1       1000        800        11       12       13        64        21        22       33       42         5        7       2812       2700        40000      160\n");
	EXPECT_HAS(t,
		   "\n all       2000       1700        22       24       26       128        42        44       56       84        10       14       2647          -            -        -\n");
	EXPECT_NE(NULL, strstr(t, ", 56 WOULD_THROTTLE, 0 RATE_LOWERED records;"))
		TH_LOG("got:\n%s", t);
	free(t);
}

#define STATS_JSON_HEAD "{\"cpus\":[{\"cpu\":0,\"overflows\":1000,\"samples\":900,\"lost_full\":11,\"lost_nested\":12,\"lost_stopped\":13,\"lost_throttled\":64,\"lost_records\":100,\"throttles\":21,\"kernel_throttles\":22,\"unthrottles\":42,\"lowerings\":5,\"handler_ns\":2250000,\"nmi_samples\":7,\"would_throttles\":23,\"own_throttles\":0,\"lost_events\":0,\"avg_handler_ns\":2500,\"max_sample_rate\":40000,\"max_samples_per_tick\":160,\"allowed_ns\":3125,\"avg_ns\":2600},"

TEST(stats_json_has_the_same_fields)
{
	char *t = stats_text(1);

	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, strncmp(STATS_JSON_HEAD, t, 340))
		TH_LOG("got:\n%s", t);
	EXPECT_NE(NULL, strstr(t, "\"total\":{\"overflows\":2000,\"samples\":1700,"))
		TH_LOG("got:\n%s", t);
	EXPECT_NE(NULL, strstr(t, "\"would_throttles\":56,"));
	EXPECT_NE(NULL, strstr(t, "\"unthrottle_records\":0,\"would_throttle_records\":56,"))
		TH_LOG("got:\n%s", t);
	free(t);
}

TEST_HARNESS_MAIN
