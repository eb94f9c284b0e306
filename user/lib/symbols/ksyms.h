/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms.h - kernel symbols from /proc/kallsyms (modules included), read
 * once, or from the snapshot saved in a capture.
 */
#ifndef KPROFCAT_KSYMS_H
#define KPROFCAT_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

/*
 * Parse kallsyms TEXT, which must outlive the table: its names are read
 * there (not copied).  NULL on -ENOMEM only.
 */
struct ksyms *ksyms__new(const char *text, size_t len);
/*
 * Read PATH (normally /proc/kallsyms); warns, as perf does, when
 * kptr_restrict hides the addresses.  NULL with a message on failure.
 */
struct ksyms *ksyms__load(const char *path);
void ksyms__free(struct ksyms *k);

/*
 * Resolve ADDR: 0 and the function NAME, OFF from its start and DSO
 * ("[kernel.kallsyms]" or "[module]"), strings that live as long as K;
 * -ENOENT if no symbol covers it, -ENOMEM (*DSO is still set).
 */
int ksyms__resolve(const struct ksyms *k, uint64_t addr, const char **name,
		   uint64_t *off, const char **dso);
/* The text ksyms__load() read, for saving in a capture ("" otherwise). */
const char *ksyms__text(const struct ksyms *k, size_t *len);

#endif
