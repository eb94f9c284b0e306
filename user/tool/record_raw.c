// SPDX-License-Identifier: GPL-2.0
/*
 * record_raw.c - the raw path of a live run (record_raw.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kprof.h>

#include "lib/capture/capture.h"
#include "lib/stream/session.h"
#include "lib/util/print.h"
#include "tool/record_raw.h"

int record_raw__span(void *ctx, unsigned int cpu, const void *p1, size_t len1,
		     const void *p2, size_t len2)
{
	struct raw *r = ctx;

	return capture__add_records(r->cap, cpu, p1, len1, p2, len2);
}

/* Side band: into the capture, and into the session for the DSO pass. */
int record_raw__pev(void *ctx, const struct pev *e)
{
	struct raw *r = ctx;
	int ret = capture__write_pev(r->cap, e);

	return ret ? ret : session__pev(r->s, e);
}

static int null_sample(struct output *o, const struct kp_record *r,
		       const struct out_frame *f, unsigned int nr)
{
	(void)o;
	(void)r;
	(void)f;
	(void)nr;
	return 0;
}

static void null_free(struct output *o)
{
	(void)o;
}

/* An output that wants frames (so the session looks them up) and drops them. */
const struct output_ops record_raw__null_ops = { .sample = null_sample, .free = null_free };

static int replay_records(struct session *s, unsigned int cpu, const unsigned char *p, size_t len)
{
	size_t pos = 0;

	while (pos < len) {
		const struct kprof_record_header *h = (const void *)(p + pos);
		int ret;

		if (len - pos < sizeof(*h) || h->size < sizeof(*h) || h->size % 8 ||
		    h->size > len - pos) {
			p_err("capture: CPU %u record at offset %zu has an impossible size",
			      cpu, pos);
			return -EBADMSG;
		}
		ret = session__record(s, cpu, h, h->size);
		if (ret && ret != -EBADMSG)
			return ret;
		pos += h->size;
	}
	return session__flush(s, 0);
}

/*
 * The DSO pass: read back the RECORDS sections written so far (the file
 * has no END yet, so its end is the end of the file) through the session.
 */
int record_raw__dso_pass(struct capture_writer *cap, const char *path, struct session *s)
{
	struct kpcap_header h;
	struct kpcap_section sec;
	unsigned char *buf = NULL;
	size_t cap_len = 0;
	int ret = -EIO;
	FILE *f;

	if (capture__sync(cap))
		return -EIO;
	f = fopen(path, "r");
	if (!f) {
		p_err("cannot read back %s: %s", path, strerror(errno));
		return -errno;
	}
	if (fread(&h, 1, sizeof(h), f) != sizeof(h) || fseek(f, h.header_size, SEEK_SET))
		goto out;
	while (fread(&sec, 1, sizeof(sec), f) == sizeof(sec)) {
		size_t padded = (sec.size + 7) & ~7ULL;

		if (sec.type != KPCAP_RECORDS) {
			if (fseek(f, padded, SEEK_CUR))
				goto out;
			continue;
		}
		if (padded > cap_len) {
			unsigned char *b = realloc(buf, padded);

			if (!b)
				goto out;
			buf = b;
			cap_len = padded;
		}
		if (fread(buf, 1, padded, f) != padded)
			goto out;
		ret = replay_records(s, sec.arg, buf, sec.size);
		if (ret)
			goto out;
	}
	ret = feof(f) ? session__flush(s, 1) : -EIO;
out:
	if (ret == -EIO)
		p_err("reading back %s for its DSO symbols failed", path);
	free(buf);
	fclose(f);
	return ret;
}
