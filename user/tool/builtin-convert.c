// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-convert.c - `kprofcat convert --to-perf-data|--to-pprof OUT -i CAP`:
 * the command line; the converters are in convert/.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/util/print.h"
#include "tool/builtin.h"
#include "tool/convert/convert.h"
#include "tool/convert/convert_perf.h"
#include "tool/convert/convert_pprof.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: kprofcat convert --to-perf-data OUT -i CAPTURE [-p PID]\n"
		"       kprofcat convert --to-pprof OUT -i CAPTURE [-p PID]\n"
		"\n"
		"Writes the samples `kprofcat -i CAPTURE` prints in another format:\n"
		"  --to-perf-data OUT  perf.data for perf report / perf script; the capture's\n"
		"                      kernel symbols go to OUT.kallsyms and its DSO symbols\n"
		"                      to OUT.symfs/: perf report -i OUT --kallsyms\n"
		"                      OUT.kallsyms --symfs OUT.symfs names what kprofcat -i\n"
		"                      names, on any machine\n"
		"  --to-pprof OUT      gzipped profile.proto for go tool pprof, Pyroscope, Parca\n"
		"  -i, --input FILE    the capture (kprofcat -o FILE)\n"
		"  -p, --pid PID       keep only samples of process PID\n"
		"  -h, --help          this text\n");
}

enum { OPT_PERF_DATA = 256, OPT_PPROF };

static const struct option long_opts[] = {
	{ "to-perf-data", required_argument, NULL, OPT_PERF_DATA },
	{ "to-pprof", required_argument, NULL, OPT_PPROF },
	{ "input", required_argument, NULL, 'i' },
	{ "pid", required_argument, NULL, 'p' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int convert_main(int argc, char **argv)
{
	const char *input = NULL, *out = NULL;
	struct convert_input in;
	int opt, to = 0, status;
	unsigned long pid = 0;
	char *end;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "i:p:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_PERF_DATA:
		case OPT_PPROF:
			if (to) {
				p_err("--to-perf-data and --to-pprof exclude each other: convert once per format");
				return 2;
			}
			to = opt;
			out = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'p':
			errno = 0;
			pid = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || !pid || pid > (1UL << 22)) {
				p_err("bad value '%s' for -p: want a process id from 1 to %lu",
				      optarg, 1UL << 22);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'kprofcat convert --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		p_err("unexpected argument '%s': give the capture with -i", argv[optind]);
		return 2;
	}
	if (!to || !input) {
		p_err("convert needs an output format (--to-perf-data OUT or --to-pprof OUT) and -i CAPTURE");
		return 2;
	}
	if (convert__load(input, &in))
		return 1;
	if (to == OPT_PERF_DATA)
		status = convert_perf__write(&in, out, pid, argc, argv);
	else
		status = convert_pprof__write(&in, out, pid);
	convert__free(&in);
	return status;
}
