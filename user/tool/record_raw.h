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
 * Pacing: kprof's poll() reports a buffer once it holds its watermark
 * (half of it by default), which leaves only the other half for the
 * reader's scheduling latency, and a smaller watermark means a wakeup
 * (irq_work, then a context switch) per few records on every CPU.
 * The loop sleeps instead until its fullest buffer should be an eighth
 * full at the rate it last saw, at most RAW_MAX_SLEEP (RAW_IDLE_SLEEP
 * when nothing came, so a burst after a quiet spell finds room).
 */
#ifndef KPROFCAT_RECORD_RAW_H
#define KPROFCAT_RECORD_RAW_H

#include <stddef.h>
#include <stdint.h>

#include "lib/capture/capture.h"
#include "lib/stream/output.h"
#include "lib/stream/session.h"

/* The shortest nap (a shorter one is none), and the first, before any rate is seen. */
#define RAW_MIN_SLEEP	0.0005

struct raw {
	struct capture_writer *cap;
	struct session *s;
	uint64_t *bytes;	/* per CPU, since the last pacing decision */
	unsigned int nr;
};

/* A ring's records into the capture as they lie (kdev__read_spans()'s callback). */
int record_raw__span(void *ctx, unsigned int cpu, const void *p1, size_t len1,
		     const void *p2, size_t len2);
/* Side band: into the capture, and into the session for the DSO pass. */
int record_raw__pev(void *ctx, const struct pev *e);
/* Seconds to sleep before the next drain; DT: seconds since the last. */
double record_raw__pace(struct raw *r, uint64_t data_size, double dt);
/* An output that wants frames (so the session looks them up) and drops them. */
extern const struct output_ops record_raw__null_ops;
/*
 * The DSO pass over the capture PATH that CAP writes: its RECORDS sections
 * so far through S, whose user symbols then cover every sampled frame.
 */
int record_raw__dso_pass(struct capture_writer *cap, const char *path, struct session *s);

#endif
