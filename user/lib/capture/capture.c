// SPDX-License-Identifier: GPL-2.0
/*
 * capture.c - write and read capture files (format in capture.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <linux/kprof.h>

#include "lib/capture/capture.h"
#include "lib/capture/readahead.h"
#include "lib/symbols/usyms.h"
#include "lib/util/print.h"

#define REC_BUF_SIZE	(256 * 1024)

struct capture_writer {
	FILE *f;
	char *path;
	int err;
	unsigned int rec_cpu;
	size_t rec_len;
	unsigned char *rec_buf;
	/* The ORDER section's figure, over the RECORDS written so far. */
	uint64_t newest;
	struct kpcap_order order;
	int timed;		/* a record with a time was written */
};

/*
 * Payloads are read in place from the mapped file (kallsyms' megabytes
 * are parsed from there, the records unwound there); section headers
 * with pread(), so that a pass over the metadata maps none of the
 * records in.
 */
struct capture_reader {
	char *path;
	int fd;
	const unsigned char *map;
	size_t size, pos;
	size_t start;		/* of the first section */
	size_t done;		/* bytes before it are released */
	char writer[17];
	struct capture_cut cut;	/* where the file ends short of END */
	int records;		/* capture__reading_records() */
	struct readahead *ahead;	/* while it is on */
};

static void put(struct capture_writer *w, const void *p, size_t len)
{
	if (!w->err && len && fwrite(p, 1, len, w->f) != len)
		w->err = errno ? errno : EIO;
}

struct capture_writer *capture__create(const char *path)
{
	struct kpcap_header h = { .version = KPCAP_VERSION,
				  .header_size = sizeof(h),
				  .abi_version = KPROF_ABI_VERSION };
	struct capture_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->rec_buf = malloc(REC_BUF_SIZE);
	w->path = strdup(path);
	w->f = fopen(path, "w");
	if (!w->f || !w->rec_buf || !w->path) {
		p_err("cannot create capture file %s: %s", path, strerror(errno));
		if (w->f)
			fclose(w->f);
		free(w->rec_buf);
		free(w->path);
		free(w);
		return NULL;
	}
	memcpy(h.magic, KPCAP_MAGIC, sizeof(h.magic));
	strncpy(h.writer, KPROF_VERSION, sizeof(h.writer));
	put(w, &h, sizeof(h));
	return w;
}

/* N bytes at OFF of the records that lie in A then B. */
static void span_read(const unsigned char *a, size_t alen, const unsigned char *b,
		      size_t off, void *dst, size_t n)
{
	size_t first = off < alen ? alen - off : 0;

	if (first > n)
		first = n;
	if (first)
		memcpy(dst, a + off, first);
	if (n > first)
		memcpy((unsigned char *)dst + first, b + (off + first - alen), n - first);
}

/* The time of a record of TYPE and SIZE bytes sits at which offset; 0: none. */
static size_t time_offset(uint32_t type, size_t size)
{
	size_t at;

	switch (type) {
	case KPROF_RECORD_SAMPLE:
		at = offsetof(struct kprof_sample, time);
		break;
	case KPROF_RECORD_LOST:
	case KPROF_RECORD_THROTTLE:
	case KPROF_RECORD_UNTHROTTLE:
	case KPROF_RECORD_WOULD_THROTTLE:
	case KPROF_RECORD_RATE_LOWERED:
		/* Every fixed-layout record has its time right after the header. */
		at = sizeof(struct kprof_record_header);
		break;
	default:
		return 0;
	}
	return size >= at + sizeof(uint64_t) ? at : 0;
}

/*
 * The ORDER figures over the records of one RECORDS section (A then B),
 * as the reader's pass finds them (replay.c); up to a record of
 * impossible size, where the reader ends the section too.
 */
static void note_order(struct capture_writer *w, const unsigned char *a, size_t alen,
		       const unsigned char *b, size_t blen)
{
	size_t pos, len = alen + blen, at;
	struct kprof_record_header h;
	uint64_t t;

	for (pos = 0; len - pos >= sizeof(h); pos += h.size) {
		span_read(a, alen, b, pos, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > len - pos)
			break;
		at = time_offset(h.type, h.size);
		if (!at)
			continue;
		span_read(a, alen, b, pos + at, &t, sizeof(t));
		w->timed = 1;
		if (t > w->newest)
			w->newest = t;
		else if (w->newest - t > w->order.late)
			w->order.late = w->newest - t;
	}
}

static int section(struct capture_writer *w, uint32_t type, uint32_t arg,
		   const void *a, size_t alen, const void *b, size_t blen)
{
	struct kpcap_section s = { .type = type, .arg = arg, .size = alen + blen };
	static const unsigned char zeros[8];

	if (type == KPCAP_RECORDS)
		note_order(w, a, alen, b, blen);
	put(w, &s, sizeof(s));
	put(w, a, alen);
	put(w, b, blen);
	put(w, zeros, (8 - (alen + blen) % 8) % 8);
	return -w->err;
}

static int flush_records(struct capture_writer *w)
{
	int ret = 0;

	if (w->rec_len)
		ret = section(w, KPCAP_RECORDS, w->rec_cpu, w->rec_buf, w->rec_len, NULL, 0);
	w->rec_len = 0;
	return ret;
}

int capture__write(struct capture_writer *w, uint32_t type, uint32_t arg,
		   const void *data, size_t len)
{
	flush_records(w);
	return section(w, type, arg, data, len, NULL, 0);
}

int capture__add_record(struct capture_writer *w, unsigned int cpu,
			const void *rec, size_t len)
{
	if ((w->rec_len && w->rec_cpu != cpu) || w->rec_len + len > REC_BUF_SIZE)
		flush_records(w);
	w->rec_cpu = cpu;
	memcpy(w->rec_buf + w->rec_len, rec, len);
	w->rec_len += len;
	return -w->err;
}

int capture__add_records(struct capture_writer *w, unsigned int cpu,
			 const void *a, size_t alen, const void *b, size_t blen)
{
	flush_records(w);
	if (!alen && !blen)
		return -w->err;
	return section(w, KPCAP_RECORDS, cpu, a, alen, b, blen);
}

int capture__write_pev(struct capture_writer *w, const struct pev *e)
{
	struct kpcap_pev d = { .type = e->type, .pid = e->pid, .ppid = e->ppid,
			       .bid_len = e->bid_len, .time = e->time,
			       .start = e->start, .len = e->len, .pgoff = e->pgoff };

	memcpy(d.build_id, e->build_id, e->bid_len);
	flush_records(w);
	return section(w, KPCAP_PEV, 0, &d, sizeof(d), e->path ? e->path : "",
		       (e->path ? strlen(e->path) : 0) + 1);
}

int capture__sync(struct capture_writer *w)
{
	flush_records(w);
	if (fflush(w->f) && !w->err)
		w->err = errno;
	return -w->err;
}

int capture__close(struct capture_writer *w)
{
	int err;

	flush_records(w);
	if (w->timed)
		section(w, KPCAP_ORDER, 0, &w->order, sizeof(w->order), NULL, 0);
	section(w, KPCAP_END, 0, NULL, 0, NULL, 0);
	if (fclose(w->f) && !w->err)
		w->err = errno;
	err = w->err;
	if (err)
		p_err("writing capture file %s failed: %s", w->path, strerror(err));
	free(w->rec_buf);
	free(w->path);
	free(w);
	return -err;
}

int capture__check(const char *path)
{
	char magic[8];
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		err = errno;
		p_err("cannot read capture file %s: %s%s", path, strerror(err),
		      err == EACCES ? " (read it as its owner or root)" : "");
		if (fd >= 0)
			close(fd);
		return -err;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		p_err("%s is a directory, not a capture file (captures are written with kprofcat -o FILE)",
		      path);
		return -EISDIR;
	}
	n = read(fd, magic, sizeof(magic));
	err = errno;
	close(fd);
	if (n < 0) {
		p_err("cannot read capture file %s: %s", path, strerror(err));
		return -err;
	}
	if (n == 0) {
		p_err("%s is empty, not a kprofcat capture (did its recording write nothing?)",
		      path);
		return -EINVAL;
	}
	if (n != sizeof(magic) || memcmp(magic, KPCAP_MAGIC, sizeof(magic))) {
		p_err("%s is not a kprofcat capture: it does not start with \"" KPCAP_MAGIC
		      "\" (captures are written with kprofcat -o FILE)", path);
		return -EINVAL;
	}
	return 0;
}

struct capture_reader *capture__open(const char *path)
{
	struct capture_reader *r = calloc(1, sizeof(*r));
	struct kpcap_header h;
	struct stat st;
	void *map;
	int fd;

	if (!r)
		return NULL;
	r->fd = -1;
	r->path = strdup(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		p_err("cannot open capture file %s: %s", path, strerror(errno));
		goto fail_fd;
	}
	if ((size_t)st.st_size < sizeof(h)) {
		p_err("%s is not a kprofcat capture file (no KPROFCAP header)", path);
		goto fail_fd;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	r->fd = fd;
	fd = -1;
	if (map == MAP_FAILED) {
		p_err("cannot map capture file %s: %s", path, strerror(errno));
		goto fail_fd;
	}
	r->map = map;
	r->size = st.st_size;
	madvise(map, st.st_size, MADV_SEQUENTIAL);
	memcpy(&h, r->map, sizeof(h));
	if (memcmp(h.magic, KPCAP_MAGIC, sizeof(h.magic))) {
		p_err("%s is not a kprofcat capture file (no KPROFCAP header)", path);
		goto fail;
	}
	if (h.version != KPCAP_VERSION || h.header_size < sizeof(h)) {
		p_err("%s is a version %u capture file; this kprofcat reads version %u",
		      path, h.version, KPCAP_VERSION);
		goto fail;
	}
	if (h.abi_version < KPCAP_OLDEST_ABI || h.abi_version > KPROF_ABI_VERSION) {
		p_err("%s holds kprof ABI version %u records; this kprofcat reads versions %u to %u",
		      path, h.abi_version, KPCAP_OLDEST_ABI, KPROF_ABI_VERSION);
		goto fail;
	}
	if (h.header_size > r->size) {
		p_err("capture file %s is truncated or corrupt (header of %u bytes)", path,
		      h.header_size);
		goto fail;
	}
	r->pos = h.header_size;
	r->start = r->pos;
	memcpy(r->writer, h.writer, sizeof(h.writer));
	return r;
fail_fd:
	if (fd >= 0)
		close(fd);
fail:
	capture__close_reader(r);
	return NULL;
}

void capture__close_reader(struct capture_reader *r)
{
	if (!r)
		return;
	readahead__stop(r->ahead);
	if (r->map)
		munmap((void *)r->map, r->size);
	if (r->fd >= 0)
		close(r->fd);
	free(r->path);
	free(r);
}

const char *capture__writer_version(const struct capture_reader *r)
{
	return r->writer;
}

int capture__rewind(struct capture_reader *r)
{
	r->pos = r->start;
	memset(&r->cut, 0, sizeof(r->cut));
	capture__reading_records(r, 0);
	/* What the pass before read is dropped too. */
	madvise((void *)r->map, r->size, MADV_DONTNEED);
	r->done = 0;
	return 0;
}

/* The file ends inside the section at r->pos (or right before it). */
static void cut_short(struct capture_reader *r, const struct kpcap_section *s, size_t have)
{
	r->cut.at = r->pos;
	r->cut.type = s ? s->type : 0;
	r->cut.arg = s ? s->arg : 0;
	r->cut.want = s ? s->size : 0;
	r->cut.have = have;
	r->cut.size = r->size;
	r->pos = r->size;
}

int capture__next(struct capture_reader *r, uint32_t *type, uint32_t *arg,
		  const void **data, size_t *len)
{
	struct kpcap_section s;
	size_t padded, left;

	if (r->cut.size)
		return 0;
	left = r->size - r->pos;
	if (left < sizeof(s)) {
		cut_short(r, NULL, left);
		return 0;
	}
	if (r->records) {
		memcpy(&s, r->map + r->pos, sizeof(s));
	} else if (pread(r->fd, &s, sizeof(s), r->pos) != (ssize_t)sizeof(s)) {
		p_err("reading capture file %s failed: %s", r->path, strerror(errno));
		return -EIO;
	}
	if (s.type == KPCAP_END)
		return 0;
	left -= sizeof(s);
	padded = (s.size + 7) & ~7ULL;
	if (s.size > left) {
		/*
		 * Cut short (a killed recording): the whole records of a
		 * RECORDS section are still there; the caller stops at the
		 * partial one.  Any other section is useless in part.
		 */
		if (s.type != KPCAP_RECORDS || !left) {
			cut_short(r, &s, left);
			return 0;
		}
		*type = s.type;
		*arg = s.arg;
		*len = left;
		*data = r->map + r->pos + sizeof(s);
		cut_short(r, &s, left);
		return 1;
	}
	*type = s.type;
	*arg = s.arg;
	*len = s.size;
	*data = r->map + r->pos + sizeof(s);
	r->pos += sizeof(s) + (padded < left ? padded : left);
	if (r->ahead)
		readahead__at(r->ahead, r->pos);
	return 1;
}

void capture__reading_records(struct capture_reader *r, int on)
{
	r->records = on;
	if (!on) {
		readahead__stop(r->ahead);
		r->ahead = NULL;
	} else if (!r->ahead) {
		r->ahead = readahead__start(r->map, r->size, r->pos, r->done);
	}
}

size_t capture__offset(const struct capture_reader *r, const void *data)
{
	return (const unsigned char *)data - r->map;
}

int capture__cut(const struct capture_reader *r, struct capture_cut *c)
{
	*c = r->cut;
	return r->cut.size != 0;
}

void capture__done(struct capture_reader *r, const void *data, size_t len)
{
	size_t page = sysconf(_SC_PAGESIZE);
	size_t end = ((const unsigned char *)data - r->map + len) & ~(page - 1);

	/*
	 * Whole pages only: the one DATA ends in may hold the next section.
	 * In steps of 2 MiB, not a system call per section; with the
	 * read-ahead thread, of its window: a drop then also flushes the TLB
	 * of the other thread's CPU (an interrupt, and in a VM an exit), and
	 * four times fewer of them cost less than the 6 MiB they leave mapped.
	 */
	if (end >= r->done + (r->ahead ? READAHEAD_BYTES : 2U << 20)) {
		if (r->ahead)
			readahead__release(r->ahead, end);
		else
			madvise((void *)(r->map + r->done), end - r->done, MADV_DONTNEED);
		r->done = end;
	}
}

int capture__pev(const void *data, size_t len, struct pev *e)
{
	struct kpcap_pev d;
	const char *path = (const char *)data + sizeof(d);

	if (len < sizeof(d) + 1 || path[len - sizeof(d) - 1] != '\0')
		return -EBADMSG;
	memcpy(&d, data, sizeof(d));
	if (d.bid_len > USYMS_BUILD_ID_MAX)
		return -EBADMSG;
	memset(e, 0, sizeof(*e));
	e->type = d.type;
	e->pid = d.pid;
	e->ppid = d.ppid;
	e->bid_len = d.bid_len;
	e->time = d.time;
	e->start = d.start;
	e->len = d.len;
	e->pgoff = d.pgoff;
	memcpy(e->build_id, d.build_id, d.bid_len);
	e->path = path;
	return 0;
}
