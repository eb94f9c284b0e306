// SPDX-License-Identifier: GPL-2.0
/*
 * kp_capture.c - a kprofcat capture as it is being written (kp_capture.h).
 */
#include "kp_capture.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/kprof.h>

/* user/lib/capture/capture.h: the file header's size, section types. */
#define CAP_HEADER	64
#define SEC_RECORDS	4
#define SEC_END		7

long kp_capture_samples(const char *path, int *cut)
{
	const struct kprof_record_header *h;
	struct { uint32_t type, arg; uint64_t size; } sec;
	size_t pos = CAP_HEADER, end, r;
	const unsigned char *m;
	long n = 0;
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || st.st_size < CAP_HEADER)
		return -1;
	m = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED || memcmp(m, "KPROFCAP", 8))
		return -1;
	*cut = 1;
	while (st.st_size - pos >= sizeof(sec)) {
		memcpy(&sec, m + pos, sizeof(sec));
		pos += sizeof(sec);
		if (sec.type == SEC_END) {
			*cut = 0;
			break;
		}
		end = sec.size < st.st_size - pos ? pos + sec.size : (size_t)st.st_size;
		for (r = pos; sec.type == SEC_RECORDS && end - r >= sizeof(*h); r += h->size) {
			h = (const void *)(m + r);
			if (h->size < sizeof(*h) || h->size > end - r)
				break;
			n += h->type == KPROF_RECORD_SAMPLE;
		}
		pos += (sec.size + 7) & ~7ULL;
		if (pos > (size_t)st.st_size)
			break;
	}
	munmap((void *)m, st.st_size);
	return n;
}

int kp_capture_wait_samples(const char *path)
{
	int i, cut;

	for (i = 0; i < 1500; i++) {
		if (kp_capture_samples(path, &cut) > 0)
			return 0;
		usleep(20000);
	}
	return -1;
}
