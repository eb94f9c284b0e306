/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record_raw.h - the raw path of a live run (-o without an output, side
 * band available).  The live loop writes what each ring holds into the
 * capture as the kernel wrote it, straight from the mapping (a RECORDS
 * section per ring and drain, as perf record pushes its chunks): no
 * decoding, reordering, filtering, symbolizing or /proc reads per sample,
 * no copy in kprofcat.  The process filter goes into META and -i applies
 * it.  After the stop, one pass over the records written looks up every
 * sampled user frame, so the DSO symbol sections cover what samples hit
 * (perf record's build-id pass does the same).
 *
 * Wakeups: unless --watermark says otherwise, every buffer's watermark
 * is half of it (the module's default, as perf record's rings), and the
 * loop sleeps in poll() on the device, CMD's pidfd and the side band
 * until a buffer holds it, CMD ends, a process event comes, or a second
 * passes (live_poll_timeout(); --duration is checked between rounds).
 * Half is left for the reader's scheduling latency; each wakeup is a
 * context switch on a profiled CPU, in the part of a tick that is
 * sampled, so the fewer the less the reader shows in the profile.
 */
#ifndef KPROFCAT_RECORD_RAW_H
#define KPROFCAT_RECORD_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/capture/capture.h"
#include "lib/stream/output.h"
#include "lib/stream/session.h"

struct raw {
	struct capture_writer *cap;
	struct session *s;
};

/* A ring's records into the capture as they lie (kdev__read_spans()'s callback). */
int record_raw__span(void *ctx, unsigned int cpu, const void *p1, size_t len1,
		     const void *p2, size_t len2);
/* Side band: into the capture, and into the session for the DSO pass. */
int record_raw__pev(void *ctx, const struct pev *e);
/* An output that wants frames (so the session looks them up) and drops them. */
extern const struct output_ops record_raw__null_ops;
/*
 * The DSO pass over the capture PATH that CAP writes: its RECORDS sections
 * so far through S, whose user symbols then cover every sampled frame.
 */
int record_raw__dso_pass(struct capture_writer *cap, const char *path, struct session *s);

#endif
