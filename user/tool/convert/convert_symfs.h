/* SPDX-License-Identifier: GPL-2.0 */
/*
 * convert_symfs.h - a capture's DSO sections as a perf --symfs tree
 * (convert_symfs.c).
 */
#ifndef KPROFCAT_CONVERT_SYMFS_H
#define KPROFCAT_CONVERT_SYMFS_H

/*
 * DIR/<path>: an ELF file with the symbols (at file offsets) and build-id of
 * each DSO section of CAPTURE, for perf --symfs DIR.  -errno after a message.
 */
int convert_symfs__write(const char *capture, const char *dir);

#endif
