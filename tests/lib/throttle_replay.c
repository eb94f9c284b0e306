// SPDX-License-Identifier: GPL-2.0
/*
 * throttle_replay.c - a throttle test run's samples replayed through
 * `kprofcat throttle-sim` (throttle_replay.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kprof_throttle.h"
#include "throttle_replay.h"

/* kprofcat of this tree (<root>/user/kprofcat), else the one on PATH. */
void tt_kprofcat(char *buf, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(buf, len, "%s/../../user/kprofcat",
					     self) < len && !access(buf, X_OK))
				return;
		}
	}
	snprintf(buf, len, "kprofcat");
}

/*
 * Run the real `kprofcat throttle-sim` (the pinned CLI, not the header
 * in-process) with the module's knobs (max_sample_rate @rate, 25%) and
 * @sem on CPU @t's recorded (time, cost) pairs: its SAMPLE records in
 * stream order; with @ticks each with the tick the module counted
 * it in (PMU events: the kernel's ticks, which time cannot give).
 * Parses lower, throttle and unthrottle lines into @out.  0, or -1 with
 * @err set.
 */
int tt_throttle_sim(const struct tt_cpu *t, const char *sem, int rate,
		    bool ticks, struct tt_sim *out, char *err, size_t errlen)
{
	char path[] = "/tmp/throttle_replay.pairs.XXXXXX";
	char kc[4096], cmd[8192], line[512];
	int fd, status;
	FILE *f;
	size_t i;

	fd = mkstemp(path);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < t->n; i++)
		if (t->r[i].type == KPROF_RECORD_SAMPLE && t->r[i].period && ticks)
			fprintf(f, "%llu %llu %llu\n", t->r[i].time, t->r[i].cost,
				t->r[i].tick);
		else if (t->r[i].type == KPROF_RECORD_SAMPLE)
			fprintf(f, "%llu %llu\n", t->r[i].time, t->r[i].cost);
	if (fclose(f)) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	tt_kprofcat(kc, sizeof(kc));
	snprintf(cmd, sizeof(cmd),
		 "%s throttle-sim --hz %d --max-sample-rate %d --cpu-time-max-percent %d --semantics %s < %s",
		 kc, TT_HZ, rate, KPROF_THROTTLE_DEFAULT_CPU_TIME_MAX_PERCENT,
		 sem, path);
	f = popen(cmd, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", cmd, strerror(errno));
		unlink(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		struct tt_sim_line x = { 0 };

		if (sscanf(line, "lower t=%llu avg=%llu allowed=%llu max_samples_per_tick=%llu max_sample_rate=%llu",
			   &x.t, &x.avg, &x.allowed, &x.max, &x.rate) == 5)
			x.kind = 'l';
		else if (sscanf(line, "throttle t=%llu tick=%llu interrupts=%llu",
				&x.t, &x.tick, &x.interrupts) == 3)
			x.kind = 't';
		else if (sscanf(line, "unthrottle t=%llu", &x.t) == 1)
			x.kind = 'u';
		else
			continue;	/* would-throttle, summary */
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 256;
			struct tt_sim_line *p = realloc(out->l, cap * sizeof(*p));

			if (!p)
				break;
			out->l = p;
			out->cap = cap;
		}
		out->l[out->n++] = x;
	}
	status = pclose(f);
	unlink(path);
	if (status) {
		snprintf(err, errlen, "'%s' exited with status %#x", cmd, status);
		return -1;
	}
	return 0;
}

/* The @i-th line of @kind in @s, or NULL. */
const struct tt_sim_line *tt_sim_nth(const struct tt_sim *s, char kind,
				     size_t i)
{
	size_t j;

	for (j = 0; j < s->n; j++)
		if (s->l[j].kind == kind && !i--)
			return &s->l[j];
	return NULL;
}

size_t tt_sim_count(const struct tt_sim *s, char kind)
{
	size_t j, n = 0;

	for (j = 0; j < s->n; j++)
		n += s->l[j].kind == kind;
	return n;
}
