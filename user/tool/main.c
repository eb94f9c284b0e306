// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - kprofcat's command line: a command table (bpftool style) whose
 * default entry profiles; options become a struct kprof_config and an
 * output format.
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
#include "tool/config.h"
#include "tool/builtin.h"
#include "lib/dev/kparams.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "lib/stream/replay.h"
#include "tool/record.h"
#include "tool/throttle_sim.h"

#define DEFAULT_DEVICE	"/dev/kprof"
#define DEFAULT_FREQ	4000

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
"  -g, --call-graph[=caller|callee]\n"
"                         record kernel and user call chains; with --report,\n"
"                         print each row's call graph (default caller order)\n"
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
"      --weight=period    with --folded: count periods, not samples\n"
"      --report           perf report --stdio: Children/Self by period, Command,\n"
"                         Shared Object, [k]/[.] Symbol; lost and throttle totals\n"
"      --sort KEYS        with --report: comm,dso,sym (default) or a part of it\n"
"      --percent-limit P  with --report: leave out rows under P%%\n"
"      --no-children      with --report: Self only (perf's --no-children)\n"
"  -n, --show-nr-samples  with --report: a Samples column\n"
"      --dso NAME         with --report: only samples whose leaf is in DSO NAME\n"
"      --stats            per-CPU counters; --json for JSON\n"
"      --no-demangle      print C++ symbols as mangled in the ELF file\n"
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
	{ "weight", required_argument, NULL, OPT_WEIGHT },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "strict-freq", no_argument, NULL, OPT_STRICT_FREQ },
	{ "quiet", no_argument, NULL, 'q' },
	{ "max-sample-rate", required_argument, NULL, OPT_MAX_RATE },
	{ "cpu-time-max-percent", required_argument, NULL, OPT_MAX_PERCENT },
	{ "throttle-semantics", required_argument, NULL, OPT_SEMANTICS },
	CLI_READ_LONG_OPTS,
	{ NULL, 0, NULL, 0 },
};

static int parse_u64(const char *opt, const char *s, unsigned long long max,
		     unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || !*out || *out > max) {
		p_err("bad value '%s' for %s: want a number from 1 to %llu", s, opt, max);
		return -EINVAL;
	}
	return 0;
}

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

static int profile(int argc, char **argv, const struct verb *vb)
{
	struct read_opts rd = { 0 };
	struct record_opts o = { .device = DEFAULT_DEVICE, .event = "cpu-clock" };
	unsigned long long v, freq = 0, period = 0;
	enum format fmt = vb->fmt;
	int fmt_given = !!vb->name, json = 0, weight_period = 0, callchain = 0, opt;
	int no_demangle = 0, event_sample = 0, event_given = 0, cpus_given = 0;
	const char *input = NULL;
	static char event_name[64];
	struct output *out = NULL;
	int status;

	o.cfg.size = sizeof(o.cfg);
	config__parse_event(&o.cfg, o.event, &event_sample);
	/* Everything after the first "--" is the command, options or not. */
	for (opt = 1; opt < argc; opt++) {
		if (!strcmp(argv[opt], "--")) {
			if (opt + 1 == argc) {
				p_err("nothing after '--': give the command to profile");
				return 2;
			}
			o.cmd = argv + opt + 1;
			argc = opt;
			break;
		}
	}
	optind = 1;
	while ((opt = getopt_long(argc, argv, "e:F:c:gC:p:ad:o:i:hnm:q", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			if (event_given) {
				p_err("-e given twice ('%s', then '%s'): kprof samples one event per run",
				      o.event, optarg);
				return 2;
			}
			event_given = 1;
			if (config__parse_event(&o.cfg, optarg, &event_sample))
				return 2;
			o.event = optarg;
			rd.record_opt = "-e";
			break;
		case 'F':
			rd.record_opt = "-F";
			if (!strcmp(optarg, "max")) {
				o.freq_src = FREQ_MAX;
				freq = 1;	/* raised to the max at configure time */
				break;
			}
			if (parse_u64("-F", optarg, 0x7fffffff, &freq))
				return 2;
			o.freq_src = FREQ_USER;
			break;
		case 'c':
			if (parse_u64("-c", optarg, ~0ULL >> 1, &period))
				return 2;
			rd.record_opt = "-c";
			break;
		case 'g':
			callchain = 1;
			rd.ro.call_graph = REPORT_CALLER;
			/* perf's "-g caller": the order as the next word. */
			if (!optarg && optind < argc &&
			    (!strcmp(argv[optind], "caller") || !strcmp(argv[optind], "callee")))
				optarg = argv[optind++];
			if (optarg && !strcmp(optarg, "callee")) {
				rd.ro.call_graph = REPORT_CALLEE;
			} else if (optarg && strcmp(optarg, "caller")) {
				p_err("bad value '%s' for --call-graph: use caller or callee", optarg);
				return 2;
			}
			break;
		case 'C':
			if (config__parse_cpus(&o.cfg, optarg))
				return 2;
			rd.sf.cpus_set = 1;
			cpus_given = 1;
			memcpy(rd.sf.cpus, o.cfg.cpumask, sizeof(rd.sf.cpus));
			break;
		case 'p':
			if (parse_u64("-p", optarg, 1 << 22, &v))
				return 2;
			o.pid = v;
			break;
		case 'a':
			o.all = 1;
			rd.record_opt = "-a";
			break;
		case 'd': {
			char *end;

			o.duration = strtod(optarg, &end);
			if (end == optarg || *end || !(o.duration > 0)) {
				p_err("bad value '%s' for --duration: want seconds > 0", optarg);
				return 2;
			}
			break;
		}
		case 'o':
			o.out_path = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case OPT_USER_ONLY:
			o.cfg.flags |= KPROF_CFG_EXCLUDE_KERNEL;
			rd.sf.user_only = 1;
			break;
		case OPT_KERNEL_ONLY:
			o.cfg.flags |= KPROF_CFG_EXCLUDE_USER;
			rd.sf.kernel_only = 1;
			break;
		case 'm':
		case OPT_BUFFER_PAGES:
			if (parse_u64("--buffer-pages", optarg, ~0ULL, &v))
				return 2;
			if (v > KPROF_MAX_BUFFER_PAGES) {
				p_err("--buffer-pages %llu is above kprof.ko's limit of %d pages per CPU buffer: use at most %d",
				      v, KPROF_MAX_BUFFER_PAGES, KPROF_MAX_BUFFER_PAGES);
				return 2;
			}
			if (v & (v - 1)) {
				p_err("--buffer-pages %llu is not a power of two", v);
				return 2;
			}
			o.cfg.buffer_pages = v;
			rd.record_opt = "--buffer-pages";
			break;
		case OPT_WATERMARK:
			if (parse_u64("--watermark", optarg, 1U << 31, &v))
				return 2;
			o.cfg.watermark = v;
			rd.record_opt = "--watermark";
			break;
		case OPT_FOLDED:
		case OPT_REPORT:
		case OPT_STATS:
			if (vb->name) {
				p_err("'kprofcat %s' picks the output: --folded, --report and --stats go with plain kprofcat",
				      vb->name);
				return 2;
			}
			if (fmt_given) {
				p_err("--folded, --report and --stats exclude each other: pick one");
				return 2;
			}
			fmt_given = 1;
			fmt = opt == OPT_FOLDED ? FMT_FOLDED : opt == OPT_REPORT ? FMT_REPORT : FMT_STATS;
			break;
		case OPT_WEIGHT:
			if (strcmp(optarg, "period") && strcmp(optarg, "samples")) {
				p_err("bad value '%s' for --weight: use period or samples", optarg);
				return 2;
			}
			weight_period = !strcmp(optarg, "period");
			break;
		case OPT_JSON:
			json = 1;
			break;
		case OPT_NO_DEMANGLE:
			no_demangle = 1;
			break;
		case OPT_STRICT_FREQ:
			o.strict_freq = 1;
			rd.record_opt = "--strict-freq";
			break;
		case 'q':
			o.quiet = 1;
			p_set_no_warnings(1);
			break;
		case OPT_MAX_RATE:
			o.set_rate = optarg;
			rd.record_opt = "--max-sample-rate";
			break;
		case OPT_MAX_PERCENT:
			o.set_percent = optarg;
			rd.record_opt = "--cpu-time-max-percent";
			break;
		case OPT_SEMANTICS:
			o.set_semantics = optarg;
			rd.record_opt = "--throttle-semantics";
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("kprofcat %s\n", KPROF_VERSION);
			return 0;
		default:
			if (cli_read__option(opt, optarg, &rd))
				return 2;
		}
	}
	if (optind < argc) {
		if (o.cmd) {
			p_err("unexpected argument '%s': a command follows '--', a DEVICE or FILE cannot come with it",
			      argv[optind]);
			return 2;
		}
		if (optind + 1 < argc) {
			p_err("unexpected argument '%s': to profile a command, put it after '--'",
			      argv[optind + 1]);
			return 2;
		}
		if (cli_read__is_file(argv[optind]))
			input = argv[optind];
		else
			o.device = argv[optind];
	}
	if (cli_read__defaults(vb, &o, &input, optind < argc, &rd) ||
	    cli_read__check(&rd, input, fmt, &o, !o.out_path || fmt_given))
		return 2;
	if (freq && period) {
		p_err("-F and -c exclude each other: sample by frequency or by period");
		return 2;
	}
	if (json && fmt != FMT_STATS) {
		p_err("--json only applies to --stats");
		return 2;
	}
	if (weight_period && fmt != FMT_FOLDED) {
		p_err("--weight only applies to --folded");
		return 2;
	}
	if ((o.cfg.flags & KPROF_CFG_EXCLUDE_USER) && (o.cfg.flags & KPROF_CFG_EXCLUDE_KERNEL)) {
		p_err("--user-only and --kernel-only exclude each other");
		return 2;
	}
	if (input && (o.cmd || o.out_path || o.duration > 0)) {
		p_err("-i reads a capture: -- CMD, -o and --duration only apply to recording");
		return 2;
	}
	o.sf = rd.sf;
	if (o.pid && o.cmd) {
		p_err("-p and -- CMD exclude each other");
		return 2;
	}
	if (!input && apply_module_defaults(&o, &freq, &period, event_given, event_sample,
					    cpus_given))
		return 2;
	/* An event's freq= term is a given -F for the max-rate rules. */
	if (event_sample)
		o.freq_src = FREQ_USER;
	/* An event's period= or freq= term wins over -c and -F, as in perf. */
	if (period && !event_sample) {
		o.cfg.sample = period;
	} else if (!event_sample) {
		o.cfg.sample = freq ? freq : DEFAULT_FREQ;
		o.cfg.flags |= KPROF_CFG_FREQ;
	}
	if (callchain) {
		o.cfg.flags |= KPROF_CFG_CALLCHAIN_KERNEL | KPROF_CFG_CALLCHAIN_USER;
		o.cfg.kernel_stack = KPROF_MAX_STACK;
		o.cfg.user_stack = KPROF_MAX_STACK;
	}
	if (!o.cfg.buffer_pages)
		o.cfg.buffer_pages = 64;

	if (input)
		snprintf(event_name, sizeof(event_name), "%s", "unknown");
	else
		snprintf(event_name, sizeof(event_name), "%s", o.event);
	if (!o.out_path || fmt_given) {
		switch (fmt) {
		case FMT_SCRIPT:
			out = output_script__new(stdout, event_name);
			break;
		case FMT_FOLDED:
			out = output_folded__new(stdout, weight_period, event_name);
			break;
		case FMT_REPORT:
			out = output_report__new(stdout, event_name, &rd.ro);
			break;
		case FMT_STATS:
			out = output_stats__new(stdout, json);
			break;
		}
		if (!out) {
			p_err("out of memory");
			return 1;
		}
		out->no_demangle = no_demangle;
	}
	if (input) {
		if (capture__check(input)) {
			output__free(out);
			return 1;
		}
		status = record__replay_filtered(input, out, o.pid, &rd.sf, event_name,
						 sizeof(event_name));
	} else {
		o.out = out;
		status = record__live(&o);
	}
	output__free(out);
	return status;
}

static const struct verb verbs[] = {
	{ "record", FMT_SCRIPT, 1 },
	{ "script", FMT_SCRIPT, 0 },
	{ "report", FMT_REPORT, 0 },
	{ "stat", FMT_STATS, 0 },
};

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const struct verb *verb;	/* or: a mode of profile() */
};

static const struct cmd cmds[] = {
	{ "throttle-sim", throttle_sim_main, NULL },
	{ "convert", convert_main, NULL },
	{ "record", NULL, &verbs[0] },
	{ "script", NULL, &verbs[1] },
	{ "report", NULL, &verbs[2] },
	{ "stat", NULL, &verbs[3] },
	{ NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc > 1) {
		for (c = cmds; c->name; c++)
			if (!strcmp(argv[1], c->name))
				return c->verb ? profile(argc - 1, argv + 1, c->verb) :
				       c->func(argc - 1, argv + 1);
	}
	return profile(argc, argv, &(const struct verb){ NULL, FMT_SCRIPT, 0 });
}
