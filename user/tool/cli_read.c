// SPDX-License-Identifier: GPL-2.0
/*
 * cli_read.c - the command line's reading side (cli_read.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tool/cli_read.h"
#include "lib/util/parse.h"
#include "lib/util/print.h"

int cli_read__option(int opt, const char *arg, struct read_opts *r)
{
	unsigned long long v;
	char *end;

	switch (opt) {
	case OPT_TID:
		if (parse__u64(arg, 10, &v) || v >= 1 << 22) {
			p_err("bad value '%s' for --tid: want a thread id below %u", arg, 1U << 22);
			return -1;
		}
		r->sf.tid_set = 1;
		r->sf.tid = v;
		r->filter_opt = "--tid";
		return 0;
	case OPT_COMM:
		r->sf.comm = arg;
		r->filter_opt = "--comm";
		return 0;
	case OPT_DSO:
		r->ro.dso = arg;
		r->report_opt = "--dso";
		return 0;
	case OPT_SORT:
		r->report_opt = "--sort";
		return output_report__parse_sort(arg, &r->ro);
	case OPT_PERCENT_LIMIT:
		r->report_opt = "--percent-limit";
		r->ro.percent_limit = strtod(arg, &end);
		if (end == arg || *end || !(r->ro.percent_limit >= 0) ||
		    r->ro.percent_limit > 100) {
			p_err("bad value '%s' for --percent-limit: want a percentage from 0 to 100",
			      arg);
			return -1;
		}
		return 0;
	case OPT_NO_CHILDREN:
		r->ro.no_children = 1;
		r->report_opt = "--no-children";
		return 0;
	case 'n':
		r->ro.show_samples = 1;
		r->report_opt = "-n";
		return 0;
	}
	fprintf(stderr, "Try 'kprofcat --help'.\n");
	return -1;
}

int cli_read__is_file(const char *arg)
{
	struct stat st;

	if (stat(arg, &st))
		return errno != ENOENT || strncmp(arg, "/dev/", 5);
	return !S_ISCHR(st.st_mode);
}

/* "Nothing says to record": no FILE, DEVICE, -- CMD, -o, --duration or recording option. */
int cli_read__defaults(const struct verb *vb, struct record_opts *o, const char **input,
		       int positional, const struct read_opts *rd)
{
	if (!vb->name)
		return 0;
	if (vb->record) {
		if (*input) {
			p_err("'kprofcat record' writes a capture: to read one, use kprofcat script|report|stat -i FILE");
			return -1;
		}
		if (!o->out_path)
			o->out_path = DEFAULT_CAPTURE;
		return 0;
	}
	if (!*input && !positional && !o->cmd && !o->out_path && !(o->duration > 0) &&
	    !rd->record_opt)
		*input = DEFAULT_CAPTURE;
	return 0;
}

int cli_read__check(const struct read_opts *rd, const char *input, enum format fmt,
		    const struct record_opts *o, int has_output)
{
	if (rd->report_opt && fmt != FMT_REPORT) {
		p_err("%s only applies to --report (kprofcat report)", rd->report_opt);
		return -1;
	}
	if (input && rd->record_opt) {
		p_err("-i reads a capture: %s only applies to recording", rd->record_opt);
		return -1;
	}
	if (input && rd->ro.call_graph && fmt != FMT_REPORT) {
		p_err("-g with -i only applies to --report (its call graphs): the capture holds the call chains it was recorded with");
		return -1;
	}
	if (rd->filter_opt && o->out_path && !has_output) {
		p_err("%s filters what is read: with -o alone, give it when reading the capture (kprofcat -i %s %s ...)",
		      rd->filter_opt, o->out_path, rd->filter_opt);
		return -1;
	}
	return 0;
}
