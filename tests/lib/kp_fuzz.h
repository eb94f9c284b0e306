/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kp_fuzz.h - hostile operations on /dev/kprof, as syzkaller would send
 * them, for fuzz_test: random kprof ioctl numbers and sizes up to 4 KiB,
 * random and mutated structs, bad pointers, random mmap() offsets,
 * lengths, protections and flags, read() of random sizes, START, STOP and
 * SET_CONFIG interleaved, and a file replaced while another thread may be
 * inside an ioctl on it.  Every choice comes from the generator's seed.
 */
#ifndef KP_FUZZ_H
#define KP_FUZZ_H

#include <linux/types.h>

#define KP_FUZZ_ARG_SIZE	4096

struct kp_fuzz {
	__u64 rng;
	/* The files the operations pick from; a reopen replaces one. */
	int *fds;
	unsigned int nr_fds;
	unsigned long ops, mapped, reads, ioctls_ok;
	/*
	 * KP_FUZZ_ARG_SIZE bytes right below a PROT_NONE page: what the
	 * kernel copies out past a pointer near its end faults (EFAULT)
	 * instead of overwriting this program.
	 */
	unsigned char *arg;
};

int kp_fuzz_init(struct kp_fuzz *z, __u64 seed, int *fds, unsigned int nr_fds);
void kp_fuzz_fini(struct kp_fuzz *z);
__u64 kp_fuzz_below(struct kp_fuzz *z, __u64 n);
int kp_fuzz_fd(struct kp_fuzz *z);
void kp_fuzz_step(struct kp_fuzz *z);

#endif /* KP_FUZZ_H */
