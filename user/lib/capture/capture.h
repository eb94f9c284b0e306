/* SPDX-License-Identifier: GPL-2.0 */
/*
 * capture.h - kprofcat capture files (-o FILE writes one, -i FILE reads).
 *
 * Format, version 2 (all integers little-endian, as the records are):
 *
 *	struct kpcap_header	64 bytes: magic "KPROFCAP", version (2),
 *				header_size (64), abi_version (the
 *				KPROF_ABI_VERSION the records follow), flags
 *				(0), writer (the writing kprofcat's project
 *				version, NUL-padded; zeros in files written
 *				before it had one: old readers ignore it, as
 *				they never looked at these reserved bytes),
 *				reserved (0)
 *	sections, each:
 *		struct kpcap_section { u32 type; u32 arg; u64 size; }
 *		size bytes of payload, then zeros up to a multiple of 8
 *	the END section last
 *
 * Section types (readers skip types they do not know):
 *	META (1)	text, "key=value" lines: event, sample, freq (0:
 *			sample is the period of every sample), hostname,
 *			release, command, nr_cpus (the device's CPU count:
 *			records of a CPU at or past it are corrupt; files
 *			before it: the STATS sections' count), and filter
 *			("pid:N" or "tree:N")
 *			when RECORDS hold every process's records and -i
 *			is to keep only those of the recorded process(es)
 *	KALLSYMS (2)	/proc/kallsyms as read at the start of the run
 *	PEV (3)		one process event (struct kpcap_pev + NUL-terminated
 *			path): /proc/PID/maps snapshot lines (time 0) and
 *			side-band mmap (with build-id)/exec/fork history
 *	RECORDS (4)	arg = CPU; kprof records exactly as read from that
 *			CPU's ring buffer (unknown types included)
 *	DSO (5)		symbol snapshot of one DSO that samples hit: path,
 *			build-id and the raw symbols perf's choice starts
 *			from (see dso_blob.c), so the capture symbolizes the same
 *			on any machine (version 1 held a PT_LOAD table and
 *			symbols already chosen)
 *	STATS (6)	arg = CPU; struct kprof_cpu_stats at the end of the run
 *	END (7)		empty; a file without it was cut short: a reader
 *			reads every whole record before the cut, and says
 *			what is missing
 *	ORDER (8)	struct kpcap_order, written right before END: how
 *			far the records arrive out of time order, for the
 *			reader's merge window, so that it need not read
 *			every record twice; a file without it (cut short,
 *			or from an older writer) is read with that pass
 *
 * A reader refuses files of another version.
 */
#ifndef KPROFCAT_CAPTURE_H
#define KPROFCAT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#define KPCAP_MAGIC	"KPROFCAP"
#define KPCAP_VERSION	2

enum kpcap_type {
	KPCAP_META = 1,
	KPCAP_KALLSYMS = 2,
	KPCAP_PEV = 3,
	KPCAP_RECORDS = 4,
	KPCAP_DSO = 5,
	KPCAP_STATS = 6,
	KPCAP_END = 7,
	KPCAP_ORDER = 8,
};

/*
 * The oldest kprof ABI whose records a capture may hold: version 4 added
 * the DWARF configuration, not a record (version 3's records already had
 * KPROF_MISC_STACK_USER's tail), so version 3 captures read as they are.
 */
#define KPCAP_OLDEST_ABI	3

struct kpcap_header {
	char magic[8];
	uint32_t version;
	uint32_t header_size;
	uint32_t abi_version;
	uint32_t flags;
	char writer[16];	/* KPROF_VERSION of the writer, NUL-padded */
	uint64_t reserved[3];
};

struct kpcap_section {
	uint32_t type;
	uint32_t arg;
	uint64_t size;
};

/*
 * ORDER's payload.  late: the most any record is older than the newest
 * record before it in the file (ns), over every record of the RECORDS
 * sections whose time the writer could read (a record too short for its
 * time, or of a type without one, is not counted: the reader skips or
 * rejects those too, so its own pass would never find more).  A reader
 * that meets records later than that (a file edited since) prints them
 * out of time order, counts them as misordered and says so.  Readers
 * take the fields they know of a longer payload (a newer writer's).
 */
struct kpcap_order {
	uint64_t late;
};

struct kpcap_pev {
	uint32_t type, pid, ppid, bid_len;
	uint64_t time, start, len, pgoff;
	unsigned char build_id[24];
	/* char path[], NUL-terminated, for PEV_MMAP */
};

struct capture_writer;
struct capture_reader;
struct pev;

struct capture_writer *capture__create(const char *path);
int capture__write(struct capture_writer *w, uint32_t type, uint32_t arg,
		   const void *data, size_t len);
/* Buffered: consecutive records of one CPU share a RECORDS section. */
int capture__add_record(struct capture_writer *w, unsigned int cpu,
			const void *rec, size_t len);
/*
 * Records of CPU that lie in two pieces (a ring's span, see
 * ring__read_span()): one RECORDS section of A then B, written from where
 * they are, without a copy.
 */
int capture__add_records(struct capture_writer *w, unsigned int cpu,
			 const void *a, size_t alen, const void *b, size_t blen);
int capture__write_pev(struct capture_writer *w, const struct pev *e);
/* Push buffered records and stdio buffers to the file (to read it back). */
int capture__sync(struct capture_writer *w);
/* Write END and close; -errno (the file is incomplete) on any error. */
int capture__close(struct capture_writer *w);

struct capture_reader *capture__open(const char *path);
void capture__close_reader(struct capture_reader *r);
/* Start over at the first section (memory as capture__done() leaves it). */
int capture__rewind(struct capture_reader *r);
/*
 * Next section: 1 and TYPE/ARG/DATA/LEN, 0 at END or where the file was
 * cut short (capture__cut() tells which), -errno when reading fails.
 * DATA points into the mapped file, valid until the reader is closed.  A
 * RECORDS section the file ends in comes with the bytes that are there
 * (LEN short of its size): its last record may be partial.
 */
int capture__next(struct capture_reader *r, uint32_t *type, uint32_t *arg,
		  const void **data, size_t *len);
/*
 * Whether the caller reads the payload of every RECORDS section from now
 * on (a pass over the records): then capture__next() takes section
 * headers from the mapped file, a page it maps anyway, not from a read()
 * each; otherwise it reads them, and maps no record it skips.
 */
void capture__reading_records(struct capture_reader *r, int on);
/*
 * Done, for now, with the file up to the end of DATA (a section
 * capture__next() returned): its pages leave this process's memory (they
 * come back from the file if read again).
 */
void capture__done(struct capture_reader *r, const void *data, size_t len);
/* The file offset of DATA, a pointer into a RECORDS section. */
size_t capture__offset(const struct capture_reader *r, const void *data);
/* Where a file without END ends (a recording killed before it closed). */
struct capture_cut {
	uint64_t size;		/* of the file; 0: not cut (END was read) */
	uint64_t at;		/* offset of the section the file ends in */
	uint32_t type, arg;	/* its header; type 0: the file ends between sections */
	uint64_t want, have;	/* its payload size, and the bytes of it there */
};

/* 1 and where (C) if the sections read so far ended short of END, else 0. */
int capture__cut(const struct capture_reader *r, struct capture_cut *c);
/* PEV payload to a struct pev (path points into DATA).  -EBADMSG. */
int capture__pev(const void *data, size_t len, struct pev *e);
/* The writer's version from the header ("" when it predates it). */
const char *capture__writer_version(const struct capture_reader *r);
/*
 * Whether PATH can be read as a capture: 0, or -errno after a message
 * saying what is wrong (ENOENT, EACCES, EISDIR, ..., EINVAL: not a
 * capture).
 */
int capture__check(const char *path);

#endif
