// SPDX-License-Identifier: GPL-2.0
/*
 * convert.c - the capture's non-record sections every converter needs
 * (META, KALLSYMS, PEV, STATS), and whether the samples carry user stack
 * snapshots.
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

/*
 * The user stack snapshots of the SAMPLEs in a RECORDS section.  A record
 * that does not decode is left to the replay, which says so; one of
 * impossible size ends the walk, as it ends the replay's.
 */
static void scan_stacks(struct convert_input *in, unsigned int cpu, const unsigned char *p,
			size_t len)
{
	const struct kprof_record_header *h;
	struct decode_stats st = { 0 };
	struct kp_record r;
	size_t pos;

	for (pos = 0; len - pos >= sizeof(*h); pos += h->size) {
		h = (const void *)(p + pos);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos)
			return;
		if (h->type != KPROF_RECORD_SAMPLE || !(h->misc & KPROF_MISC_STACK_USER) ||
		    decode__record(h, h->size, cpu, &r, &st))
			continue;
		in->stack_user = 1;
		if (r.sample.stack_size > in->stack_user_size)
			in->stack_user_size = r.sample.stack_size;
	}
}

int convert__load(const char *path, struct convert_input *in)
{
	struct capture_reader *r;
	uint32_t type, arg;
	const void *data;
	size_t len, cap = 0;
	char num[32];
	int ret;

	memset(in, 0, sizeof(*in));
	in->path = path;
	strcpy(in->event, "unknown");
	if (capture__check(path))
		return -EINVAL;
	r = capture__open(path);
	if (!r)
		return -EINVAL;
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
			scan_stacks(in, arg, data, len);
			capture__done(r, data, len);
			/* fall through */
		case KPCAP_STATS:
			if (arg < KPROF_MAX_CPUS && arg >= in->nr_cpus)
				in->nr_cpus = arg + 1;
			break;
		}
	}
out:
	capture__close_reader(r);
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
	in->pevs = NULL;
	in->kallsyms = NULL;
	in->nr_pevs = 0;
}
