// SPDX-License-Identifier: GPL-2.0
/*
 * convert.c - the capture's non-record sections every converter needs
 * (META, KALLSYMS, PEV, STATS), and what the samples' user stack snapshots
 * span.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/capture/capture.h"
#include "lib/stream/decode.h"
#include "tool/convert/convert.h"
#include "lib/util/print.h"
#include "lib/util/strmap.h"

/* META "KEY=value" line into BUF (truncated to LEN), or leave BUF alone. */
static void meta_value(const char *meta, size_t mlen, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key);
	const char *p = meta, *end = meta + mlen;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		const char *le = nl ? nl : end;

		if ((size_t)(le - p) > klen && !memcmp(p, key, klen) && p[klen] == '=') {
			size_t n = le - p - klen - 1;

			if (n >= len)
				n = len - 1;
			memcpy(buf, p + klen + 1, n);
			buf[n] = '\0';
			return;
		}
		p = le + 1;
	}
}

static int add_pev(struct convert_input *in, const void *data, size_t len, size_t *cap)
{
	struct pev e;

	if (capture__pev(data, len, &e)) {
		p_err("capture %s: malformed process event", in->path);
		return -EBADMSG;
	}
	if (in->nr_pevs == *cap) {
		size_t ncap = *cap ? 2 * *cap : 256;
		struct pev *n = realloc(in->pevs, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		in->pevs = n;
		*cap = ncap;
	}
	if (e.path) {
		e.path = strdup(e.path);
		if (!e.path)
			return -ENOMEM;
	}
	in->pevs[in->nr_pevs++] = e;
	return 0;
}

/* The stack extent of R's thread, made the first time (TIDS: 1 + its index). */
static struct convert_stack *stack_of(struct convert_input *in, struct strmap *tids,
				      size_t *cap, const struct kp_record *r)
{
	const struct kp_sample *s = &r->sample;
	struct convert_stack *st;
	struct strmap_entry *e;
	char key[24];

	e = strmap__get(tids, key, snprintf(key, sizeof(key), "%u/%u", s->pid, s->tid));
	if (!e)
		return NULL;
	if (e->a)
		return &in->stacks[e->a - 1];
	if (in->nr_stacks == *cap) {
		size_t ncap = *cap ? 2 * *cap : 64;

		st = realloc(in->stacks, ncap * sizeof(*st));
		if (!st)
			return NULL;
		in->stacks = st;
		*cap = ncap;
	}
	st = &in->stacks[in->nr_stacks];
	*st = (struct convert_stack){ .pid = s->pid, .tid = s->tid, .time = r->time,
				      .start = UINT64_MAX };
	e->a = ++in->nr_stacks;
	return st;
}

/*
 * The user stack snapshots of the SAMPLEs in a RECORDS section: their
 * largest size and each thread's extent.  A record that does not decode
 * is left to the replay, which says so; one of impossible size ends the
 * walk, as it ends the replay's.
 */
static int scan_stacks(struct convert_input *in, struct strmap *tids, size_t *cap,
		       unsigned int cpu, const unsigned char *p, size_t len)
{
	const struct kprof_record_header *h;
	struct decode_stats ds = { 0 };
	struct convert_stack *st;
	struct kp_record r;
	uint64_t sp;
	size_t pos;

	for (pos = 0; len - pos >= sizeof(*h); pos += h->size) {
		h = (const void *)(p + pos);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos)
			return 0;
		if (h->type != KPROF_RECORD_SAMPLE || !(h->misc & KPROF_MISC_STACK_USER) ||
		    decode__record(h, h->size, cpu, &r, &ds))
			continue;
		in->stack_user = 1;
		if (r.sample.stack_size > in->stack_user_size)
			in->stack_user_size = r.sample.stack_size;
		if (!r.sample.regs || !r.sample.stack_dyn)
			continue;
		st = stack_of(in, tids, cap, &r);
		if (!st)
			return -ENOMEM;
		if (r.time < st->time)
			st->time = r.time;
		sp = r.sample.regs[KPROF_REG_X86_SP];
		if (sp < st->start)
			st->start = sp;
		if (sp + r.sample.stack_dyn > st->end)
			st->end = sp + r.sample.stack_dyn;
	}
	return 0;
}

int convert__load(const char *path, struct convert_input *in)
{
	struct capture_reader *r;
	uint32_t type, arg;
	const void *data;
	size_t len, cap = 0, stacks_cap = 0;
	struct strmap *tids;
	char num[32];
	int ret;

	memset(in, 0, sizeof(*in));
	in->path = path;
	strcpy(in->event, "unknown");
	if (capture__check(path))
		return -EINVAL;
	r = capture__open(path);
	tids = strmap__new();
	if (!r || !tids) {
		if (r)
			p_err("out of memory reading %s", path);
		capture__close_reader(r);
		strmap__free(tids);
		return r ? -ENOMEM : -EINVAL;
	}
	snprintf(in->writer, sizeof(in->writer), "%s", capture__writer_version(r));
	while ((ret = capture__next(r, &type, &arg, &data, &len)) > 0) {
		switch (type) {
		case KPCAP_META:
			meta_value(data, len, "event", in->event, sizeof(in->event));
			meta_value(data, len, "hostname", in->hostname, sizeof(in->hostname));
			meta_value(data, len, "release", in->release, sizeof(in->release));
			meta_value(data, len, "command", in->command, sizeof(in->command));
			num[0] = '\0';
			meta_value(data, len, "sample", num, sizeof(num));
			in->sample = strtoull(num, NULL, 10);
			num[0] = '\0';
			meta_value(data, len, "freq", num, sizeof(num));
			in->freq = num[0] == '1';
			break;
		case KPCAP_KALLSYMS:
			if (in->kallsyms)
				break;
			in->kallsyms = malloc(len + 1);
			if (!in->kallsyms) {
				ret = -ENOMEM;
				goto out;
			}
			memcpy(in->kallsyms, data, len);
			in->kallsyms[len] = '\0';
			in->kallsyms_len = len;
			break;
		case KPCAP_PEV:
			ret = add_pev(in, data, len, &cap);
			if (ret)
				goto out;
			break;
		case KPCAP_RECORDS:
			ret = scan_stacks(in, tids, &stacks_cap, arg, data, len);
			capture__done(r, data, len);
			if (ret)
				goto out;
			/* fall through */
		case KPCAP_STATS:
			if (arg < KPROF_MAX_CPUS && arg >= in->nr_cpus)
				in->nr_cpus = arg + 1;
			break;
		}
	}
out:
	capture__close_reader(r);
	strmap__free(tids);
	if (ret == -ENOMEM)
		p_err("out of memory reading %s", path);
	if (ret < 0) {
		convert__free(in);
		return ret;
	}
	return 0;
}

void convert__free(struct convert_input *in)
{
	size_t i;

	for (i = 0; i < in->nr_pevs; i++)
		free((char *)in->pevs[i].path);
	free(in->pevs);
	free(in->kallsyms);
	free(in->stacks);
	in->pevs = NULL;
	in->kallsyms = NULL;
	in->stacks = NULL;
	in->nr_pevs = 0;
	in->nr_stacks = 0;
}
