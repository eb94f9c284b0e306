// SPDX-License-Identifier: GPL-2.0
/*
 * dso_blob.c - a DSO's snapshot (see dso.h): its raw symbols as a capture
 * saves them, read back into a DSO, or read in place by the converters.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/symbols/dso.h"
#include "lib/symbols/dso_internal.h"

/*
 * Blob: struct dso_blob, the path (path_len bytes, NUL included), nraw
 * struct rawsym, names_len bytes of names; each part padded to 8 bytes.
 */
struct dso_blob {
	uint32_t state;		/* DSO_LOADED or DSO_FAILED */
	uint32_t path_len;
	uint32_t bid_len;
	uint32_t nraw;
	uint32_t names_len;
	uint32_t reserved;
	unsigned char bid[24];
};

#define PAD8(x)	(((x) + 7) & ~(size_t)7)

int dso__save(const struct dso *d, int (*write)(void *ctx, const void *blob, size_t len),
	      void *ctx)
{
	struct dso_blob b = { 0 };
	size_t len, pos;
	char *buf;
	int ret;

	b.state = d->state;
	b.path_len = strlen(d->path) + 1;
	b.bid_len = d->bid_len;
	memcpy(b.bid, d->bid, d->bid_len);
	if (d->state == DSO_LOADED) {
		b.nraw = d->nraw;
		b.names_len = d->names_len;
	}
	len = sizeof(b) + PAD8(b.path_len) + (size_t)b.nraw * sizeof(struct rawsym) +
	      PAD8(b.names_len);
	buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, &b, sizeof(b));
	pos = sizeof(b);
	memcpy(buf + pos, d->path, b.path_len);
	pos += PAD8(b.path_len);
	if (b.nraw)
		memcpy(buf + pos, d->raw, b.nraw * sizeof(struct rawsym));
	pos += b.nraw * sizeof(struct rawsym);
	if (b.names_len)
		memcpy(buf + pos, d->names, b.names_len);
	ret = write(ctx, buf, len);
	free(buf);
	return ret;
}

const char *dso__blob_path(const void *blob, size_t len)
{
	const char *p = blob;
	struct dso_blob b;

	if (len < sizeof(b))
		return NULL;
	memcpy(&b, blob, sizeof(b));
	if (!b.path_len || b.path_len > 4096 || len < sizeof(b) + b.path_len ||
	    p[sizeof(b) + b.path_len - 1] != '\0')
		return NULL;
	return p + sizeof(b);
}

/*
 * Check BLOB's layout: 0 with its header in *B and *SYMS at its raw
 * symbols (its names follow them), or -EBADMSG.
 */
static int blob_check(const void *blob, size_t len, struct dso_blob *b,
		      const unsigned char **syms)
{
	const unsigned char *p = blob;
	size_t pos, need;
	uint32_t i;

	if (!dso__blob_path(blob, len))
		return -EBADMSG;
	memcpy(b, p, sizeof(*b));
	if ((b->state != DSO_LOADED && b->state != DSO_FAILED) ||
	    b->bid_len > DSO_BUILD_ID_MAX || b->nraw > (1U << 24) || b->names_len > (1U << 28))
		return -EBADMSG;
	pos = sizeof(*b) + PAD8(b->path_len);
	need = pos + (size_t)b->nraw * sizeof(struct rawsym) + b->names_len;
	if (len < need || (b->names_len && p[need - 1] != '\0'))
		return -EBADMSG;
	for (i = 0; i < b->nraw; i++) {
		struct rawsym r;

		memcpy(&r, p + pos + (size_t)i * sizeof(r), sizeof(r));
		if (r.name >= b->names_len || r.batch >= NR_BATCHES)
			return -EBADMSG;
	}
	*syms = p + pos;
	return 0;
}

int dso__blob_view(const void *blob, size_t len, struct dso_blob_view *v)
{
	const unsigned char *p = blob, *syms;
	struct dso_blob b;

	if (blob_check(blob, len, &b, &syms))
		return -EBADMSG;
	v->path = (const char *)p + sizeof(b);
	v->build_id = p + offsetof(struct dso_blob, bid);
	v->build_id_len = b.bid_len;
	v->loaded = b.state == DSO_LOADED;
	v->nr = b.nraw;
	v->syms = syms;
	v->names = (const char *)syms + (size_t)b.nraw * sizeof(struct rawsym);
	return 0;
}

void dso__blob_sym(const struct dso_blob_view *v, uint32_t i, struct dso_blob_sym *s)
{
	struct rawsym r;

	memcpy(&r, (const unsigned char *)v->syms + (size_t)i * sizeof(r), sizeof(r));
	s->start = r.start;
	s->size = r.size;
	s->name = v->names + r.name;
	s->binding = r.binding;
	s->plt = r.batch == BATCH_PLT;
}

int dso__load_blob(struct dso *d, const void *blob, size_t len)
{
	const unsigned char *syms;
	struct dso_blob b;
	size_t raw_len;

	if (blob_check(blob, len, &b, &syms))
		return -EBADMSG;
	raw_len = (size_t)b.nraw * sizeof(struct rawsym);
	dso_clear(d);
	d->state = DSO_FAILED;
	d->from_blob = 1;
	d->bid_len = b.bid_len;
	memcpy(d->bid, b.bid, b.bid_len);
	d->raw = malloc(raw_len + 1);
	d->names = malloc(b.names_len + 1);
	if (!d->raw || !d->names)
		return -ENOMEM;
	memcpy(d->raw, syms, raw_len);
	memcpy(d->names, syms + raw_len, b.names_len);
	d->raw_cap = b.nraw;
	d->nraw = d->raw_cap;
	d->names_cap = b.names_len;
	d->names_len = d->names_cap;
	d->state = b.state;
	return 0;
}
