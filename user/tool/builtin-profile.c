// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-profile.c - plain kprofcat and its perf verbs (record, script,
 * report, stat): options, from a table of handlers, become a struct
 * kprof_config and an output format; then a live run or a replay.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <linux/kprof.h>

#include "lib/capture/capture.h"
#include "tool/cli_read.h"
#include "lib/dev/config.h"
#include "tool/builtin.h"
#include "lib/dev/kparams.h"
#include "lib/stream/output.h"
#include "lib/util/parse.h"
#include "lib/util/print.h"
#include "lib/stream/replay.h"
#include "lib/symbols/dbgcache.h"
#include "tool/output/output_flamegraph.h"
#include "tool/record.h"

#define DEFAULT_DEVICE	"/dev/kprof"
#define DEFAULT_FREQ	4000
/* --call-graph dwarf's stack dump size, perf record's default. */
#define DEFAULT_USER_STACK_SIZE	8192

/* struct prof's callchain: what -g/--call-graph records. */
enum { CALLCHAIN_NONE, CALLCHAIN_FP, CALLCHAIN_DWARF };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kprofcat [OPTIONS] [DEVICE|FILE] [-- CMD [ARG...]]\n"
		"       kprofcat record|script|report|stat [OPTIONS] ...  (perf's verbs, see below)\n"
		"       kprofcat throttle-sim [OPTIONS]      (see kprofcat throttle-sim --help)\n"
		"       kprofcat convert --to-perf-data|--to-pprof OUT -i FILE  (see kprofcat convert --help)\n"
		"\n"
		"Streams kprof samples from DEVICE (default " DEFAULT_DEVICE ") until Ctrl-C, --duration,\n"
		"or until CMD exits; or reads a capture FILE written with -o.\n"
		"\n"
		"Sampling:\n"
		"  -e, --event EVENT      cpu-clock (default), task-clock, cycles, instructions,\n"
		"                         cache-references, cache-misses, branches, branch-misses,\n"
		"                         ref-cycles, rNNNN (raw, hex), or a PMU as perf spells\n"
		"                         it: NAME// or NAME/config=0x..,config1=..,period=N/\n"
		"                         (NAME from /sys/bus/event_source/devices); EVENT:u or\n"
		"                         EVENT:k samples user or kernel mode only; given once\n"
		"  -F, --freq HZ|max      samples per second per CPU (default %d, or kprof.ko's\n"
		"                         freq= from insmod); above the max rate in force it\n"
		"                         is lowered with a warning, max takes the max\n"
		"      --strict-freq      -F above the max rate is an error instead\n"
		"  -c, --count PERIOD     one sample every PERIOD events (instead of -F)\n"
		"  -g, --call-graph[=caller|callee|fp|dwarf[,SIZE]]\n"
		"                         record kernel and user call chains; with --report,\n"
		"                         print each row's call graph (default caller order);\n"
		"                         user chains by frame pointers (fp, the default) or,\n"
		"                         for code built without them, dwarf: the user registers\n"
		"                         and SIZE bytes of stack per sample (default 8192, a\n"
		"                         multiple of 8 up to 65528), unwound by kprofcat\n"
		"  -C, --cpu LIST         CPUs to sample, e.g. 0,2-3 (default all)\n"
		"  -p, --pid PID          keep only samples of process PID (ends when it does)\n"
		"  -a, --all-cpus         with -- CMD: keep samples of every process\n"
		"      --user-only        exclude kernel mode\n"
		"      --kernel-only      exclude user mode\n"
		"  -m, --buffer-pages N   data pages per CPU buffer (power of two, at most %d)\n"
		"      --watermark BYTES  wake the reader after this many bytes\n"
		"  -d, --duration SEC     stop after SEC seconds\n"
		"  -q, --quiet            no status line, end-of-run line or warnings\n"
		"Throttle knobs (kprof.ko's, system-wide like the perf sysctls: root only):\n"
		"      --max-sample-rate N        like kernel.perf_event_max_sample_rate\n"
		"      --cpu-time-max-percent N   like kernel.perf_cpu_time_max_percent (0..100)\n"
		"      --throttle-semantics S     per-tick limit: ge, gt or shadow\n"
		"Files:\n"
		"  -o, --output FILE      save a capture (records, kallsyms, maps, symbols)\n"
		"  -i, --input FILE       read a capture instead of the device; -C, -p, --tid,\n"
		"                         --comm, --user-only, --kernel-only filter its samples\n"
		"      --tid TID          keep only samples of thread TID\n"
		"      --comm COMM        keep only samples of threads named COMM\n"
		"Output (default: perf script text):\n"
		"      --folded           folded stacks, comm;root;...;leaf COUNT\n"
		"      --flamegraph FILE  an interactive SVG flame graph in FILE (- for stdout):\n"
		"                         hover for a frame's share, click to zoom, Search or\n"
		"                         Ctrl-F to highlight; self-contained, opens offline\n"
		"      --weight=period    with --folded or --flamegraph: count periods, not samples\n"
		"      --report           perf report --stdio: Children/Self by period, Command,\n"
		"                         Shared Object, [k]/[.] Symbol; lost and throttle totals\n"
		"      --sort KEYS        with --report: comm,dso,sym (default) or a part of it\n"
		"      --percent-limit P  with --report: leave out rows under P%%\n"
		"      --no-children      with --report: Self only (perf's --no-children)\n"
		"  -n, --show-nr-samples  with --report: a Samples column\n"
		"      --dso NAME         with --report: only samples whose leaf is in DSO NAME\n"
		"      --stats            per-CPU counters; --json for JSON\n"
		"      --no-demangle      print C++ symbols as mangled in the ELF file\n"
		"      --no-inline        no inline frames in DWARF call chains (perf's --no-inline)\n"
		"      --no-debug-cache   read inline info from compressed debug files as they are,\n"
		"                         without the inflated copies in ~/.cache/kprofcat/debug\n"
		"  -h, --help             this text\n"
		"      --version          print kprofcat's version (the project's, as modinfo kprof.ko)\n"
		"perf's verbs:\n"
		"  record                 kprofcat -o " DEFAULT_CAPTURE " (unless -o is given)\n"
		"  script, report, stat   kprofcat, --report, --stats; without -i, FILE, DEVICE\n"
		"                         or -- CMD they read " DEFAULT_CAPTURE "\n",
		DEFAULT_FREQ, KPROF_MAX_BUFFER_PAGES);
}

enum {
	OPT_USER_ONLY = 256, OPT_KERNEL_ONLY, OPT_BUFFER_PAGES, OPT_WATERMARK,
	OPT_FOLDED, OPT_WEIGHT, OPT_REPORT, OPT_STATS, OPT_JSON, OPT_NO_DEMANGLE,
	OPT_VERSION, OPT_STRICT_FREQ, OPT_MAX_RATE, OPT_MAX_PERCENT, OPT_SEMANTICS,
	OPT_FLAMEGRAPH, OPT_NO_INLINE, OPT_NO_DEBUG_CACHE,
};

static const struct option long_opts[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "freq", required_argument, NULL, 'F' },
	{ "count", required_argument, NULL, 'c' },
	{ "call-graph", optional_argument, NULL, 'g' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "pid", required_argument, NULL, 'p' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "output", required_argument, NULL, 'o' },
	{ "input", required_argument, NULL, 'i' },
	{ "user-only", no_argument, NULL, OPT_USER_ONLY },
	{ "kernel-only", no_argument, NULL, OPT_KERNEL_ONLY },
	{ "buffer-pages", required_argument, NULL, OPT_BUFFER_PAGES },
	{ "watermark", required_argument, NULL, OPT_WATERMARK },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "flamegraph", required_argument, NULL, OPT_FLAMEGRAPH },
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "no-inline", no_argument, NULL, OPT_NO_INLINE },
	{ "no-debug-cache", no_argument, NULL, OPT_NO_DEBUG_CACHE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "strict-freq", no_argument, NULL, OPT_STRICT_FREQ },
	{ "quiet", no_argument, NULL, 'q' },
	{ "max-sample-rate", required_argument, NULL, OPT_MAX_RATE },
	{ "cpu-time-max-percent", required_argument, NULL, OPT_MAX_PERCENT },
	{ "throttle-semantics", required_argument, NULL, OPT_SEMANTICS },
	/* The reading options (cli_read__option()). */
	{ "tid", required_argument, NULL, OPT_TID },
	{ "comm", required_argument, NULL, OPT_COMM },
	{ "dso", required_argument, NULL, OPT_DSO },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT_LIMIT },
	{ "no-children", no_argument, NULL, OPT_NO_CHILDREN },
	{ "show-nr-samples", no_argument, NULL, 'n' },
	{ NULL, 0, NULL, 0 },
};

/*
 * What insmod set (kparams.h) stands in for the options not given: -F/-c
 * (unless the event has a period or freq term), -e, -C, --buffer-pages,
 * --watermark, --user-only/--kernel-only.  callchain, kernel_stack,
 * user_stack and precise_ip are -g's and kprofcat's own.
 */
static int apply_module_defaults(struct record_opts *o, unsigned long long *freq,
				 unsigned long long *period, int event_given, int event_sample,
				 int cpus_given)
{
	static struct kparams_defaults d;
	int sample;

	if (kparams__defaults(&d))
		return 0;
	if (!event_given && d.event[0]) {
		if (config__parse_event(&o->cfg, d.event, &sample)) {
			p_err("kprof.ko's event=%s (from insmod): give -e", d.event);
			return -1;
		}
		o->event = d.event;
	}
	if (!*freq && !*period && !event_sample) {
		if (d.period)
			*period = d.period;
		else if (d.freq)
			*freq = d.freq;	/* lowered like kprofcat's default */
	}
	if (!cpus_given && d.cpus[0] && config__parse_cpus(&o->cfg, d.cpus))
		return -1;
	if (!o->cfg.buffer_pages)
		o->cfg.buffer_pages = d.buffer_pages;
	if (!o->cfg.watermark)
		o->cfg.watermark = d.watermark;
	if (!(o->cfg.flags & (KPROF_CFG_EXCLUDE_USER | KPROF_CFG_EXCLUDE_KERNEL))) {
		if (d.exclude_user)
			o->cfg.flags |= KPROF_CFG_EXCLUDE_USER;
		if (d.exclude_kernel)
			o->cfg.flags |= KPROF_CFG_EXCLUDE_KERNEL;
	}
	return 0;
}

/* What the command line of plain kprofcat and its perf verbs gathers. */
struct prof {
	const struct verb *vb;
	int argc;
	char **argv;
	struct read_opts rd;
	struct record_opts o;
	unsigned long long freq, period;
	enum format fmt;
	int fmt_given, json, weight_period, callchain, no_demangle, no_inline;
	int event_sample, event_given, cpus_given;
	const char *input;
	const char *flame_path;	/* --flamegraph FILE */
};

/* What an option's handler says: go on, stop with status 2, or stop with 0. */
enum { OPT_OK, OPT_ERR, OPT_EXIT };

static int opt_event(struct prof *p, int opt, char *arg)
{
	(void)opt;
	if (p->event_given) {
		p_err("-e given twice ('%s', then '%s'): kprof samples one event per run",
		      p->o.event, arg);
		return OPT_ERR;
	}
	p->event_given = 1;
	if (config__parse_event(&p->o.cfg, arg, &p->event_sample))
		return OPT_ERR;
	p->o.event = arg;
	return OPT_OK;
}

static int opt_freq(struct prof *p, int opt, char *arg)
{
	(void)opt;
	if (!strcmp(arg, "max")) {
		p->o.freq_src = FREQ_MAX;
		p->freq = 1;	/* raised to the max at configure time */
		return OPT_OK;
	}
	if (parse__option("-F", arg, 1, 0x7fffffff, &p->freq))
		return OPT_ERR;
	p->o.freq_src = FREQ_USER;
	return OPT_OK;
}

static int opt_count(struct prof *p, int opt, char *arg)
{
	(void)opt;
	return parse__option("-c", arg, 1, ~0ULL >> 1, &p->period) ? OPT_ERR : OPT_OK;
}

/* A word --call-graph takes as its value when given apart, as perf does. */
static int call_graph_word(const char *s)
{
	return !strcmp(s, "caller") || !strcmp(s, "callee") || !strcmp(s, "fp") ||
	       !strcmp(s, "dwarf") || !strncmp(s, "dwarf,", 6);
}

/*
 * dwarf[,SIZE]: perf record's rules for the stack dump size (default
 * 8192, a multiple of 8 up to 65528), each refusal naming the one broken.
 */
static int parse_dwarf_size(const char *arg, __u32 *size)
{
	unsigned long long v;

	*size = DEFAULT_USER_STACK_SIZE;
	if (!arg[5])
		return 0;
	if (parse__u64(arg + 6, 0, &v) || !v || v % 8 || v > KPROF_MAX_USER_STACK_SIZE) {
		p_err("bad size '%s' in --call-graph %s: the stack dump size is a multiple of 8, from 8 to %d",
		      arg + 6, arg, KPROF_MAX_USER_STACK_SIZE);
		return -1;
	}
	*size = v;
	return 0;
}

/*
 * -g, --call-graph[=MODE]: kernel and user call chains.  MODE is the
 * report's order (caller, callee) or how user chains are recorded (fp:
 * frame pointers, the default; dwarf[,SIZE]: registers and SIZE bytes of
 * stack per sample, unwound by kprofcat).  perf's "-g caller" and
 * "--call-graph dwarf": the mode may be the next word.
 */
static int opt_call_graph(struct prof *p, int opt, char *arg)
{
	(void)opt;
	if (!p->callchain)
		p->callchain = CALLCHAIN_FP;
	if (!p->rd.ro.call_graph)
		p->rd.ro.call_graph = REPORT_CALLER;
	if (!arg && optind < p->argc && call_graph_word(p->argv[optind]))
		arg = p->argv[optind++];
	if (!arg || !strcmp(arg, "caller")) {
		p->rd.ro.call_graph = REPORT_CALLER;
	} else if (!strcmp(arg, "callee")) {
		p->rd.ro.call_graph = REPORT_CALLEE;
	} else if (!strcmp(arg, "fp")) {
		p->callchain = CALLCHAIN_FP;
		p->rd.record_opt = "--call-graph fp";
	} else if (!strcmp(arg, "dwarf") || !strncmp(arg, "dwarf,", 6)) {
		if (parse_dwarf_size(arg, &p->o.cfg.user_stack_size))
			return OPT_ERR;
		p->callchain = CALLCHAIN_DWARF;
		p->rd.record_opt = "--call-graph dwarf";
	} else {
		p_err("bad value '%s' for --call-graph: use caller or callee (the report's order), fp or dwarf[,SIZE] (how user call chains are recorded)",
		      arg);
		return OPT_ERR;
	}
	return OPT_OK;
}

static int opt_cpu(struct prof *p, int opt, char *arg)
{
	(void)opt;
	if (config__parse_cpus(&p->o.cfg, arg))
		return OPT_ERR;
	p->rd.sf.cpus_set = 1;
	p->cpus_given = 1;
	memcpy(p->rd.sf.cpus, p->o.cfg.cpumask, sizeof(p->rd.sf.cpus));
	return OPT_OK;
}

static int opt_pid(struct prof *p, int opt, char *arg)
{
	unsigned long long v;

	(void)opt;
	if (parse__option("-p", arg, 1, 1 << 22, &v))
		return OPT_ERR;
	p->o.pid = v;
	return OPT_OK;
}

static int opt_duration(struct prof *p, int opt, char *arg)
{
	char *end;

	(void)opt;
	p->o.duration = strtod(arg, &end);
	if (end == arg || *end || !(p->o.duration > 0)) {
		p_err("bad value '%s' for --duration: want seconds > 0", arg);
		return OPT_ERR;
	}
	return OPT_OK;
}

static int opt_buffer_pages(struct prof *p, int opt, char *arg)
{
	unsigned long long v;

	(void)opt;
	if (parse__option("--buffer-pages", arg, 1, ~0ULL, &v))
		return OPT_ERR;
	if (v > KPROF_MAX_BUFFER_PAGES) {
		p_err("--buffer-pages %llu is above kprof.ko's limit of %d pages per CPU buffer: use at most %d",
		      v, KPROF_MAX_BUFFER_PAGES, KPROF_MAX_BUFFER_PAGES);
		return OPT_ERR;
	}
	if (v & (v - 1)) {
		p_err("--buffer-pages %llu is not a power of two", v);
		return OPT_ERR;
	}
	p->o.cfg.buffer_pages = v;
	return OPT_OK;
}

static int opt_watermark(struct prof *p, int opt, char *arg)
{
	unsigned long long v;

	(void)opt;
	if (parse__option("--watermark", arg, 1, 1U << 31, &v))
		return OPT_ERR;
	p->o.cfg.watermark = v;
	return OPT_OK;
}

/* --folded, --flamegraph, --report, --stats: the output, where the verb leaves it open. */
static int opt_format(struct prof *p, int opt, char *arg)
{
	if (p->vb->name) {
		p_err("'kprofcat %s' picks the output: --folded, --flamegraph, --report and --stats go with plain kprofcat",
		      p->vb->name);
		return OPT_ERR;
	}
	if (p->fmt_given) {
		p_err("--folded, --flamegraph, --report and --stats exclude each other: pick one (for several, save a capture with -o and read it once per output with -i)");
		return OPT_ERR;
	}
	p->fmt_given = 1;
	p->fmt = opt == OPT_FOLDED ? FMT_FOLDED : opt == OPT_FLAMEGRAPH ? FMT_FLAMEGRAPH :
		 opt == OPT_REPORT ? FMT_REPORT : FMT_STATS;
	if (opt == OPT_FLAMEGRAPH)
		p->flame_path = arg;
	return OPT_OK;
}

static int opt_weight(struct prof *p, int opt, char *arg)
{
	(void)opt;
	if (strcmp(arg, "period") && strcmp(arg, "samples")) {
		p_err("bad value '%s' for --weight: use period or samples", arg);
		return OPT_ERR;
	}
	p->weight_period = !strcmp(arg, "period");
	return OPT_OK;
}

/* The options that only set a flag or keep their argument. */
static int opt_flag(struct prof *p, int opt, char *arg)
{
	switch (opt) {
	case 'a':
		p->o.all = 1;
		break;
	case 'o':
		p->o.out_path = arg;
		break;
	case 'i':
		p->input = arg;
		break;
	case OPT_USER_ONLY:
		p->o.cfg.flags |= KPROF_CFG_EXCLUDE_KERNEL;
		p->rd.sf.user_only = 1;
		break;
	case OPT_KERNEL_ONLY:
		p->o.cfg.flags |= KPROF_CFG_EXCLUDE_USER;
		p->rd.sf.kernel_only = 1;
		break;
	case OPT_JSON:
		p->json = 1;
		break;
	case OPT_NO_DEMANGLE:
		p->no_demangle = 1;
		break;
	case OPT_NO_INLINE:
		p->no_inline = 1;
		break;
	case OPT_NO_DEBUG_CACHE:
		dbgcache__disable();
		break;
	case OPT_STRICT_FREQ:
		p->o.strict_freq = 1;
		break;
	case 'q':
		p->o.quiet = 1;
		p_set_no_warnings(1);
		break;
	case OPT_MAX_RATE:
		p->o.set_rate = arg;
		break;
	case OPT_MAX_PERCENT:
		p->o.set_percent = arg;
		break;
	case OPT_SEMANTICS:
		p->o.set_semantics = arg;
		break;
	}
	return OPT_OK;
}

static int opt_info(struct prof *p, int opt, char *arg)
{
	(void)p;
	(void)arg;
	if (opt == 'h')
		usage(stdout);
	else
		printf("kprofcat %s\n", KPROF_VERSION);
	return OPT_EXIT;
}

/*
 * Each option's handler, as perf's option tables and bpftool's command
 * table pair a name with its function.  RECORD_OPT: the option names a
 * recording setting, which reading a capture refuses (cli_read__check()).
 * The options not here are the reading options of cli_read.h.
 */
static const struct opt_handler {
	int opt;
	int (*fn)(struct prof *p, int opt, char *arg);
	const char *record_opt;
} opt_handlers[] = {
	{ 'e', opt_event, "-e" },
	{ 'F', opt_freq, "-F" },
	{ 'c', opt_count, "-c" },
	{ 'g', opt_call_graph, NULL },
	{ 'C', opt_cpu, NULL },
	{ 'p', opt_pid, NULL },
	{ 'a', opt_flag, "-a" },
	{ 'd', opt_duration, NULL },
	{ 'o', opt_flag, NULL },
	{ 'i', opt_flag, NULL },
	{ OPT_USER_ONLY, opt_flag, NULL },
	{ OPT_KERNEL_ONLY, opt_flag, NULL },
	{ 'm', opt_buffer_pages, "--buffer-pages" },
	{ OPT_BUFFER_PAGES, opt_buffer_pages, "--buffer-pages" },
	{ OPT_WATERMARK, opt_watermark, "--watermark" },
	{ OPT_FOLDED, opt_format, NULL },
	{ OPT_FLAMEGRAPH, opt_format, NULL },
	{ OPT_REPORT, opt_format, NULL },
	{ OPT_STATS, opt_format, NULL },
	{ OPT_WEIGHT, opt_weight, NULL },
	{ OPT_JSON, opt_flag, NULL },
	{ OPT_NO_DEMANGLE, opt_flag, NULL },
	{ OPT_NO_INLINE, opt_flag, NULL },
	{ OPT_NO_DEBUG_CACHE, opt_flag, NULL },
	{ OPT_STRICT_FREQ, opt_flag, "--strict-freq" },
	{ 'q', opt_flag, NULL },
	{ OPT_MAX_RATE, opt_flag, "--max-sample-rate" },
	{ OPT_MAX_PERCENT, opt_flag, "--cpu-time-max-percent" },
	{ OPT_SEMANTICS, opt_flag, "--throttle-semantics" },
	{ 'h', opt_info, NULL },
	{ OPT_VERSION, opt_info, NULL },
};

/* One option through its handler, or cli_read__option(); OPT_*. */
static int prof_option(struct prof *p, int opt, char *arg)
{
	size_t i;
	int ret;

	for (i = 0; i < sizeof(opt_handlers) / sizeof(opt_handlers[0]); i++) {
		if (opt_handlers[i].opt != opt)
			continue;
		ret = opt_handlers[i].fn(p, opt, arg);
		if (ret == OPT_OK && opt_handlers[i].record_opt)
			p->rd.record_opt = opt_handlers[i].record_opt;
		return ret;
	}
	return cli_read__option(opt, arg, &p->rd) ? OPT_ERR : OPT_OK;
}

/* Everything after the first "--" is the command, options or not. */
static int prof_split_cmd(struct prof *p)
{
	int i;

	for (i = 1; i < p->argc; i++) {
		if (!strcmp(p->argv[i], "--")) {
			if (i + 1 == p->argc) {
				p_err("nothing after '--': give the command to profile");
				return -1;
			}
			p->o.cmd = p->argv + i + 1;
			p->argc = i;
			break;
		}
	}
	return 0;
}

/* The one positional argument: a capture FILE or a DEVICE. */
static int prof_positional(struct prof *p)
{
	if (optind >= p->argc)
		return 0;
	if (p->o.cmd) {
		p_err("unexpected argument '%s': a command follows '--', a DEVICE or FILE cannot come with it",
		      p->argv[optind]);
		return -1;
	}
	if (optind + 1 < p->argc) {
		p_err("unexpected argument '%s': to profile a command, put it after '--'",
		      p->argv[optind + 1]);
		return -1;
	}
	if (cli_read__is_file(p->argv[optind]))
		p->input = p->argv[optind];
	else
		p->o.device = p->argv[optind];
	return 0;
}

/* The options that exclude or need each other; -1 after a message. */
static int prof_check(struct prof *p)
{
	struct record_opts *o = &p->o;

	if (cli_read__defaults(p->vb, o, &p->input, optind < p->argc, &p->rd) ||
	    cli_read__check(&p->rd, p->input, p->fmt, o, !o->out_path || p->fmt_given))
		return -1;
	if (p->freq && p->period) {
		p_err("-F and -c exclude each other: sample by frequency or by period");
		return -1;
	}
	if (p->json && p->fmt != FMT_STATS) {
		p_err("--json only applies to --stats");
		return -1;
	}
	if (p->weight_period && p->fmt != FMT_FOLDED && p->fmt != FMT_FLAMEGRAPH) {
		p_err("--weight only applies to --folded and --flamegraph");
		return -1;
	}
	if ((o->cfg.flags & KPROF_CFG_EXCLUDE_USER) && (o->cfg.flags & KPROF_CFG_EXCLUDE_KERNEL)) {
		p_err("--user-only and --kernel-only exclude each other");
		return -1;
	}
	if (p->input && (o->cmd || o->out_path || o->duration > 0)) {
		p_err("-i reads a capture: -- CMD, -o and --duration only apply to recording");
		return -1;
	}
	o->sf = p->rd.sf;
	if (o->pid && o->cmd) {
		p_err("-p and -- CMD exclude each other");
		return -1;
	}
	o->per_task = (o->cmd || o->pid) && !o->all && !p->cpus_given;
	return 0;
}

/* The sampling configuration from the options and insmod's defaults. */
static int prof_sampling(struct prof *p)
{
	struct record_opts *o = &p->o;

	if (!p->input && apply_module_defaults(o, &p->freq, &p->period, p->event_given,
					       p->event_sample, p->cpus_given))
		return -1;
	/* An event's freq= term is a given -F for the max-rate rules. */
	if (p->event_sample)
		o->freq_src = FREQ_USER;
	/* An event's period= or freq= term wins over -c and -F, as in perf. */
	if (p->period && !p->event_sample) {
		o->cfg.sample = p->period;
	} else if (!p->event_sample) {
		o->cfg.sample = p->freq ? p->freq : DEFAULT_FREQ;
		o->cfg.flags |= KPROF_CFG_FREQ;
	}
	if (p->callchain) {
		o->cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL;
		o->cfg.kernel_stack = KPROF_MAX_STACK;
	}
	/*
	 * DWARF: the user chain is unwound from the stack copy, so the
	 * frame-pointer walk is not asked for, as perf's --call-graph dwarf
	 * sets exclude_callchain_user.
	 */
	if (p->callchain == CALLCHAIN_DWARF) {
		o->cfg.flags |= KPROF_CFG_CALLCHAIN_DWARF;
	} else if (p->callchain) {
		o->cfg.flags |= KPROF_CFG_CALLCHAIN_USER;
		o->cfg.user_stack = KPROF_MAX_STACK;
		o->cfg.user_stack_size = 0;
	}
	if (!o->cfg.buffer_pages)
		o->cfg.buffer_pages = 64;
	return 0;
}

/* The output the format asks for, on stdout (--flamegraph: its FILE); NULL after a message. */
static struct output *prof_output(struct prof *p, const char *event_name)
{
	struct output *out = NULL;

	switch (p->fmt) {
	case FMT_FLAMEGRAPH:
		out = output_flamegraph__open(p->flame_path, p->weight_period, event_name);
		if (!out)
			return NULL;	/* it said why */
		break;
	case FMT_SCRIPT:
		out = output_script__new(stdout, event_name);
		break;
	case FMT_FOLDED:
		out = output_folded__new(stdout, p->weight_period, event_name);
		break;
	case FMT_REPORT:
		out = output_report__new(stdout, event_name, &p->rd.ro);
		break;
	case FMT_STATS:
		out = output_stats__new(stdout, p->json);
		break;
	}
	if (!out) {
		p_err("out of memory");
		return NULL;
	}
	out->no_demangle = p->no_demangle;
	out->inlines = !p->no_inline;
	return out;
}

int profile_main(int argc, char **argv, const struct verb *vb)
{
	struct prof p = {
		.vb = vb, .argc = argc, .argv = argv,
		.o = { .device = DEFAULT_DEVICE, .event = "cpu-clock" },
		.fmt = vb->fmt, .fmt_given = !!vb->name,
	};
	static char event_name[64];
	struct output *out = NULL;
	int status, opt, ret;

	p.o.cfg.size = sizeof(p.o.cfg);
	config__parse_event(&p.o.cfg, p.o.event, &p.event_sample);
	if (prof_split_cmd(&p))
		return 2;
	optind = 1;
	while ((opt = getopt_long(p.argc, argv, "e:F:c:gC:p:ad:o:i:hnm:q", long_opts,
				  NULL)) != -1) {
		ret = prof_option(&p, opt, optarg);
		if (ret != OPT_OK)
			return ret == OPT_EXIT ? 0 : 2;
	}
	if (prof_positional(&p) || prof_check(&p) || prof_sampling(&p))
		return 2;

	snprintf(event_name, sizeof(event_name), "%s", p.input ? "unknown" : p.o.event);
	if (!p.o.out_path || p.fmt_given) {
		out = prof_output(&p, event_name);
		if (!out)
			return 1;
	}
	if (p.input) {
		if (capture__check(p.input)) {
			output__free(out);
			return 1;
		}
		status = record__replay_filtered(p.input, out, p.o.pid, &p.rd.sf, event_name,
						 sizeof(event_name));
	} else {
		p.o.out = out;
		status = record__live(&p.o);
	}
	output__free(out);
	return status;
}
