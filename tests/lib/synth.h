/* SPDX-License-Identifier: GPL-2.0 */
/*
 * synth.h - synthetic kprof regions and records for kprofcat's host tests:
 * a control page + data area laid out as include/uapi/linux/kprof.h says,
 * and a producer that writes records at data_head exactly as the module
 * does (wrapping at the end of the data area, release store of head).
 */
#ifndef KPROFCAT_SYNTH_H
#define KPROFCAT_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include <linux/kprof.h>

#define SYNTH_DATA_SIZE	4096

struct synth {
	struct kprof_mmap_page *pg;
	unsigned char *data;
	size_t region_size;
};

int synth_init(struct synth *s, unsigned int cpu);
void synth_set_pos(struct synth *s, uint64_t pos);
void synth_put(struct synth *s, const void *rec, size_t len, uint64_t *pos);
void synth_publish(struct synth *s, uint64_t pos);
void synth_write(struct synth *s, const void *rec, size_t len);
size_t synth_sample(void *buf, uint64_t seq, uint64_t time, uint32_t cpu,
		    uint32_t pid, const char *comm, uint16_t misc,
		    const uint64_t *ips, uint16_t nk, uint16_t nu);
size_t synth_lost(void *buf, uint64_t time, uint64_t full);
size_t synth_throttle(void *buf, uint32_t type, uint64_t time);

#endif /* KPROFCAT_SYNTH_H */
