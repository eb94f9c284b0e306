/* SPDX-License-Identifier: GPL-2.0 */
/*
 * session.h - the pipeline every run shares, live or from a capture:
 * raw records in (per CPU) -> validated, saved (-o), reordered across CPUs
 * -> filtered by process -> symbolized -> the output format.
 */
#ifndef KPROFCAT_SESSION_H
#define KPROFCAT_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "lib/capture/capture.h"
#include "lib/stream/decode.h"
#include "lib/symbols/ksyms.h"
#include "lib/stream/output.h"
#include "lib/symbols/usyms.h"

enum session_filter {
	FILTER_ALL,		/* every process (-a, or no -p / -- CMD) */
	FILTER_PID,		/* -p PID */
	FILTER_TREE,		/* -- CMD: the command and its descendants */
};

/*
 * What to keep of the samples that pass the process filter (-C, --tid,
 * --comm, --user-only, --kernel-only), live and from a capture alike.
 * Zero: everything.  The CPU filter applies to the other records too.
 */
struct sample_filter {
	int cpus_set;
	uint64_t cpus[KPROF_MAX_CPUS / 64];
	int tid_set;
	uint32_t tid;
	const char *comm;	/* NULL: any */
	int user_only;		/* samples taken in user mode only */
	int kernel_only;	/* ... in kernel mode only */
};

struct session_opts {
	struct output *out;		/* NULL: none (-o alone) */
	/*
	 * -o: process history, and the records that pass the filter, in
	 * the order they are emitted.
	 */
	struct capture_writer *cap;
	enum session_filter filter;
	uint32_t pid;
	struct sample_filter sf;
	uint64_t window_ns;		/* reordering window */
	/* Live without side band: snapshot /proc for each new pid. */
	int proc_fallback;
};

struct session;

/* Takes ownership of K (may be NULL: kernel frames are [unknown]). */
struct session *session__new(const struct session_opts *o, struct ksyms *k);
void session__free(struct session *s);
/* A process event (pev_fn): symbolization history, -o, process tree. */
int session__pev(void *s, const struct pev *e);
/*
 * One raw record from CPU's buffer (as the ring returned it).  Unknown
 * types are counted and skipped, malformed ones counted and dropped
 * (-EBADMSG returned so the caller may say where).
 */
int session__record(struct session *s, unsigned int cpu, const void *rec, size_t len);
/*
 * The same for a record that stays readable until it is emitted (a mapped
 * capture's): held without a copy.
 */
int session__record_ref(struct session *s, unsigned int cpu, const void *rec, size_t len);
/* The lowest address of the records session__record_ref() holds, or NULL. */
const void *session__lowest_held(const struct session *s);
/* Emit what fell out of the reordering window (ALL: everything). */
int session__flush(struct session *s, int all);
/* The reordering window from now on (before the first record: for all). */
void session__set_window(struct session *s, uint64_t window_ns);
const struct decode_stats *session__decode_stats(const struct session *s);
uint64_t session__misordered(const struct session *s);
/* Samples dropped by the process filter or SF. */
uint64_t session__filtered(const struct session *s);
uint64_t session__samples_out(const struct session *s);
struct usyms *session__usyms(struct session *s);
/* Into W, a DSO section for the symbols of every DSO a sample hit. */
int session__save_dsos(struct session *s, struct capture_writer *w);

#endif
