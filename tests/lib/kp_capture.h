/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kp_capture.h - a kprofcat capture (-o FILE) as it is being written,
 * read from its format (user/lib/capture/capture.h) without kprofcat's
 * reader: how in-guest tests see that kprofcat samples, which only
 * kprofcat's own file can tell (its session is its own).
 */
#ifndef KPROF_TEST_KP_CAPTURE_H
#define KPROF_TEST_KP_CAPTURE_H

/*
 * The whole SAMPLE records in capture @path: sections up to the end of
 * the file, and in the RECORDS section the file ends in, the records that
 * end before it.  *@cut: whether the file lacks END.  -1: not a capture.
 */
long kp_capture_samples(const char *path, int *cut);

/*
 * Until capture @path holds a SAMPLE record: 0, or -1 after 30 s (a
 * recorder that never starts; progress, not a rate).
 */
int kp_capture_wait_samples(const char *path);

#endif
