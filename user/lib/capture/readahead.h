/* SPDX-License-Identifier: GPL-2.0 */
/*
 * readahead.h - the capture reader's pages mapped in on another CPU
 * (readahead.c).
 */
#ifndef KPROFCAT_CAPTURE_READAHEAD_H
#define KPROFCAT_CAPTURE_READAHEAD_H

#include <stddef.h>

struct readahead;

/*
 * The thread keeps the pages from the reader's position to READAHEAD_BYTES
 * beyond it mapped, in READAHEAD_STEP pieces, and hears of the reader's
 * position once per READAHEAD_STEP.
 */
#define READAHEAD_STEP	(2UL << 20)
#define READAHEAD_BYTES	(8UL << 20)

/*
 * Start mapping MAP's SIZE bytes in ahead of a reader at AT, which has
 * released those before RELEASED; NULL where a thread is not worth it
 * (less than two windows left) or cannot be had: the reader faults its
 * pages in itself.
 */
struct readahead *readahead__start(const void *map, size_t size, size_t at, size_t released);
/* The reader is at AT (the thread hears of it once per READAHEAD_STEP). */
void readahead__at(struct readahead *ra, size_t at);
/* The reader is done with the pages before END (page-aligned). */
void readahead__release(struct readahead *ra, size_t end);
/*
 * Stop and join the thread (NULL is none): a release it had not taken is
 * dropped, what it mapped ahead stays mapped.
 */
void readahead__stop(struct readahead *ra);

#endif
