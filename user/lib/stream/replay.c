// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - a capture file (-i) through the session, as if live.
 *
 * Two passes: the first reads everything but the records (META,
 * kallsyms, process history, DSO symbols, end-of-run counters, ORDER) so
 * the symbols are complete before the first sample; the second feeds the
 * records, each checked first (capture_check.c): a record of impossible
 * fields is counted and dropped, one of impossible size ends its section.
 * A file without ORDER (cut short, or an older writer's) gets a pass over
 * the records' times in between, for the merge window ORDER would give.
 * A file without END (the recording was killed) yields every whole record
 * before the cut, and says what is missing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/capture/capture.h"
#include "lib/capture/capture_check.h"
#include "lib/util/print.h"
#include "lib/stream/decode.h"
#include "lib/stream/replay.h"
#include "lib/stream/session.h"

struct replay {
	const char *path;
	struct capture_reader *r;
	struct session_opts so;
	struct session *s;
	struct capture_check chk;
	int has_kallsyms;
	int has_order;
	struct kpcap_order order;
	int pid_given;
	uint32_t meta_cpus, stats_cpus;
	struct kprof_cpu_stats *stats;
	uint64_t partial;	/* bytes of the record the file was cut in */
};

/* VALUE of "KEY=" in META, as a string in BUF; NULL without one. */
static const char *meta_value(const char *meta, size_t len, const char *key, char *buf,
			      size_t buf_len)
{
	size_t klen = strlen(key), n = 0;
	const char *p = meta, *end = meta + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);

		if (!nl)
			nl = end;
		if ((size_t)(nl - p) > klen && !memcmp(p, key, klen) && p[klen] == '=') {
			p += klen + 1;
			n = nl - p < (long)buf_len - 1 ? (size_t)(nl - p) : buf_len - 1;
			memcpy(buf, p, n);
			buf[n] = '\0';
			return buf;
		}
		p = nl + 1;
	}
	return NULL;
}

static int replay_meta(struct replay *rp, const char *data, size_t len, char *event,
		       size_t event_len)
{
	char v[64], kind[8];
	unsigned int fpid;

	if (event_len > 1)
		meta_value(data, len, "event", event, event_len);
	if (meta_value(data, len, "nr_cpus", v, sizeof(v)))
		rp->meta_cpus = strtoul(v, NULL, 10);
	if (meta_value(data, len, "freq", v, sizeof(v)) && !strcmp(v, "0") &&
	    meta_value(data, len, "sample", v, sizeof(v))) {
		rp->chk.fixed_period = 1;
		rp->chk.period = strtoull(v, NULL, 10);
	}
	/*
	 * A raw capture holds every process's records and says which ones
	 * the recording was about; -p wins.  META comes first: the session
	 * rebuilt lost nothing.
	 */
	if (!meta_value(data, len, "filter", v, sizeof(v)) || rp->pid_given)
		return 0;
	if (sscanf(v, "%7[a-z]:%u", kind, &fpid) != 2 ||
	    (strcmp(kind, "pid") && strcmp(kind, "tree"))) {
		p_err("capture %s: malformed filter '%s' in its META section", rp->path, v);
		return -EBADMSG;
	}
	rp->so.filter = strcmp(kind, "pid") ? FILTER_TREE : FILTER_PID;
	rp->so.pid = fpid;
	session__free(rp->s);
	rp->s = session__new(&rp->so, NULL);
	return rp->s ? 0 : -ENOMEM;
}

static int replay_stats(struct replay *rp, uint32_t cpu, const void *data, size_t len)
{
	struct kprof_cpu_stats *ns;

	if (cpu >= KPROF_MAX_CPUS)
		return 0;
	if (cpu >= rp->stats_cpus) {
		ns = realloc(rp->stats, (cpu + 1) * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		memset(ns + rp->stats_cpus, 0, (cpu + 1 - rp->stats_cpus) * sizeof(*ns));
		rp->stats = ns;
		rp->stats_cpus = cpu + 1;
	}
	memcpy(&rp->stats[cpu], data, len < sizeof(*ns) ? len : sizeof(*ns));
	rp->stats[cpu].size = sizeof(*ns);
	return 0;
}

/*
 * Pass 0: how late the capture's records come, in ns: the most a record's
 * time lies before the newest of the records ahead of it in the file.  The
 * recorder reads every CPU each round, so records come within a round of
 * each other; but a CPU that stops between stamping its records and
 * publishing them (an emulated CPU waiting for its turn on the host's
 * emulator thread) hands them over rounds later.  -i holds records that
 * long and 1 ns more, so that it prints them in time order, as perf
 * script sorts a file: a record is printed once it is more than LATE
 * older than the newest one read, and every record read after it is at
 * most LATE older than that one, so newer than it.  No longer: what it
 * holds stays in the cache and in memory (the mapped records it points
 * at).  Pass 2 rejects what this pass skips, and its records are among
 * these: their lateness is this one's at most.
 */
static uint64_t replay_lateness(struct replay *rp)
{
	struct decode_stats st = { 0 };
	uint64_t newest = 0, late = 0;
	uint32_t type, arg;
	struct kp_record r;
	const void *data;
	size_t len, pos;

	capture__reading_records(rp->r, 1);
	while (capture__next(rp->r, &type, &arg, &data, &len) > 0) {
		if (type != KPCAP_RECORDS)
			continue;
		for (pos = 0; len - pos >= sizeof(struct kprof_record_header);) {
			const struct kprof_record_header *h =
				(const void *)((const char *)data + pos);

			if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos)
				break;
			if (!decode__record(h, h->size, arg, &r, &st)) {
				if (r.time > newest)
					newest = r.time;
				else if (newest - r.time > late)
					late = newest - r.time;
			}
			pos += h->size;
		}
		capture__done(rp->r, data, len);
	}
	capture__reading_records(rp->r, 0);
	return late;
}

/* ORDER: the window the records need; without it, a pass finds it. */
static int replay_order(struct replay *rp, const void *data, size_t len)
{
	if (len < sizeof(rp->order)) {
		p_warn("capture %s: ORDER section of %zu bytes, not %zu: ignored (the records are read once more for their order)",
		       rp->path, len, sizeof(rp->order));
		return 0;
	}
	memcpy(&rp->order, data, sizeof(rp->order));
	rp->has_order = 1;
	return 0;
}

/* Pass 1: everything but the records. */
static int replay_metadata(struct replay *rp, char *event, size_t event_len)
{
	uint32_t type, arg;
	const void *data;
	size_t len;
	struct ksyms *k;
	struct pev e;
	int ret;

	while ((ret = capture__next(rp->r, &type, &arg, &data, &len)) > 0) {
		ret = 0;
		switch (type) {
		case KPCAP_META:
			ret = replay_meta(rp, data, len, event, event_len);
			break;
		case KPCAP_KALLSYMS:
			/* It comes before any process event: the rebuilt session lost nothing. */
			if (rp->has_kallsyms)
				break;
			rp->has_kallsyms = 1;
			k = ksyms__new(data, len);
			if (!k)
				return -ENOMEM;
			session__free(rp->s);
			rp->s = session__new(&rp->so, k);
			ret = rp->s ? 0 : -ENOMEM;
			break;
		case KPCAP_PEV:
			if (capture__pev(data, len, &e) || session__pev(rp->s, &e)) {
				p_err("capture %s: malformed process event", rp->path);
				ret = -EBADMSG;
			}
			break;
		case KPCAP_DSO:
			if (usyms__load_dso(session__usyms(rp->s), data, len)) {
				p_err("capture %s: malformed DSO symbol section", rp->path);
				ret = -EBADMSG;
			}
			break;
		case KPCAP_STATS:
			ret = replay_stats(rp, arg, data, len);
			break;
		case KPCAP_ORDER:
			ret = replay_order(rp, data, len);
			break;
		}
		if (ret)
			return ret;
	}
	return ret;
}

static void reject(struct replay *rp, unsigned int cpu, const void *rec, const char *why)
{
	if (!rp->chk.rejected++)
		snprintf(rp->chk.first, sizeof(rp->chk.first), "CPU %u record at byte %zu: %s",
			 cpu, capture__offset(rp->r, rec), why);
}

/* One RECORDS section (LEN bytes there; CUT: the file ends in it). */
static int replay_section(struct replay *rp, unsigned int cpu, const unsigned char *p,
			  size_t len, int cut)
{
	const char *why;
	size_t pos = 0;

	while (pos < len) {
		const struct kprof_record_header *h = (const void *)(p + pos);
		int ret;

		if (len - pos < sizeof(*h) || h->size > len - pos) {
			if (cut) {	/* the record the recording was killed in */
				rp->partial = len - pos;
				break;
			}
		}
		if (len - pos < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 ||
		    h->size > len - pos) {
			why = "an impossible size";
			goto reject_section;
		}
		why = capture_check__record(&rp->chk, cpu, h, h->size);
		if (why) {
			reject(rp, cpu, h, why);
		} else {
			rp->chk.records++;
			ret = session__record_ref(rp->s, cpu, h, h->size);
			if (ret && ret != -EBADMSG)
				return ret;
		}
		pos += h->size;
	}
	return session__flush(rp->s, 0);

reject_section:
	/* Where the next record starts is unknown: the section ends here. */
	reject(rp, cpu, p + pos, why);
	rp->chk.skipped_bytes += len - pos;
	return session__flush(rp->s, 0);
}

/* Pass 2: the records. */
static int replay_records(struct replay *rp)
{
	struct capture_cut cut;
	uint32_t type, arg;
	const void *data, *low;
	size_t len;
	int ret;

	rp->chk.nr_cpus = rp->meta_cpus ? rp->meta_cpus :
			  rp->stats_cpus ? rp->stats_cpus : KPROF_MAX_CPUS;
	if (capture__rewind(rp->r))
		return -EIO;
	capture__reading_records(rp->r, 1);
	while ((ret = capture__next(rp->r, &type, &arg, &data, &len)) > 0) {
		if (type != KPCAP_RECORDS)
			continue;
		ret = replay_section(rp, arg, data, len, capture__cut(rp->r, &cut));
		if (ret)
			return ret;
		/* The window holds records in place: the file is done up to the oldest. */
		low = session__lowest_held(rp->s);
		if (low)
			capture__done(rp->r, low, 0);
		else
			capture__done(rp->r, data, len);
	}
	return ret ? ret : session__flush(rp->s, 1);
}

static const char *section_name(uint32_t type)
{
	static const char *const names[] = {
		[KPCAP_META] = "META", [KPCAP_KALLSYMS] = "KALLSYMS", [KPCAP_PEV] = "PEV",
		[KPCAP_RECORDS] = "RECORDS", [KPCAP_DSO] = "DSO", [KPCAP_STATS] = "STATS",
		[KPCAP_END] = "END", [KPCAP_ORDER] = "ORDER",
	};

	return type < sizeof(names) / sizeof(names[0]) && names[type] ? names[type] : "unknown";
}

/* What the replay had to leave out, on stderr. */
static void replay_warnings(struct replay *rp)
{
	struct capture_cut c;

	if (rp->chk.rejected)
		p_warn("capture %s: %llu records rejected as corrupt (%llu bytes after impossible sizes skipped), %llu read; the first: %s",
		       rp->path, (unsigned long long)rp->chk.rejected,
		       (unsigned long long)rp->chk.skipped_bytes,
		       (unsigned long long)rp->chk.records, rp->chk.first);
	if (!rp->has_kallsyms && rp->chk.kernel_samples)
		p_warn("capture %s has no kallsyms section: the kernel frames of %llu samples print as [unknown] (/proc/kallsyms was unreadable when it was recorded: record as root, or with kernel.kptr_restrict=0)",
		       rp->path, (unsigned long long)rp->chk.kernel_samples);
	if (rp->has_order && session__misordered(rp->s))
		p_warn("capture %s: %llu records arrived later than its ORDER section allows (%llu ns) and print out of time order: was the file changed after it was written?",
		       rp->path, (unsigned long long)session__misordered(rp->s),
		       (unsigned long long)rp->order.late);
	if (!capture__cut(rp->r, &c))
		return;
	if (c.type == KPCAP_RECORDS)
		p_warn("capture %s is cut short (no END section: was the recording killed?): it ends %llu bytes into a RECORDS section of CPU %u that should hold %llu; read the %llu whole records before the cut, lost the %llu bytes of the record cut in two and the %llu bytes never written; the end-of-run counters (STATS) and DSO symbol sections are missing",
		       rp->path, (unsigned long long)c.have, c.arg, (unsigned long long)c.want,
		       (unsigned long long)rp->chk.records, (unsigned long long)rp->partial,
		       (unsigned long long)(c.want - c.have));
	else if (c.type)
		p_warn("capture %s is cut short (no END section: was the recording killed?): it ends %llu bytes into a %s section of %llu bytes; read the %llu whole records before the cut; what came after was never written",
		       rp->path, (unsigned long long)c.have, section_name(c.type),
		       (unsigned long long)c.want, (unsigned long long)rp->chk.records);
	else
		p_warn("capture %s is cut short (no END section: was the recording killed?): it ends at byte %llu%s; read the %llu whole records before the cut; what came after was never written",
		       rp->path, (unsigned long long)c.at,
		       c.have ? " inside a section header" : ", between sections",
		       (unsigned long long)rp->chk.records);
}

int record__replay_filtered(const char *path, struct output *out, int pid,
			    const struct sample_filter *sf, char *event, size_t event_len)
{
	struct replay rp = { .path = path, .pid_given = !!pid };
	struct out_summary sum = { 0 };
	int status = 1;

	rp.so.out = out;
	if (sf)
		rp.so.sf = *sf;
	if (pid) {
		rp.so.filter = FILTER_PID;
		rp.so.pid = pid;
	}
	rp.r = capture__open(path);
	if (!rp.r)
		return 1;
	rp.s = session__new(&rp.so, NULL);
	if (!rp.s || replay_metadata(&rp, event, event_len) < 0)
		goto out;
	if (!rp.has_order) {
		if (capture__rewind(rp.r))
			goto out;
		rp.order.late = replay_lateness(&rp);
	}
	session__set_window(rp.s, rp.order.late + 1);
	if (replay_records(&rp) < 0)
		goto out;
	replay_warnings(&rp);
	sum.cpu = rp.stats;
	sum.nr_cpu = rp.stats_cpus;
	sum.decode = session__decode_stats(rp.s);
	sum.misordered = session__misordered(rp.s);
	sum.filtered = session__filtered(rp.s);
	if (output__finish(out, &sum))
		goto out;
	status = 0;
out:
	free(rp.stats);
	session__free(rp.s);
	capture__close_reader(rp.r);
	return status;
}

int record__replay(const char *path, struct output *out, int pid,
		   char *event, size_t event_len)
{
	return record__replay_filtered(path, out, pid, NULL, event, event_len);
}
