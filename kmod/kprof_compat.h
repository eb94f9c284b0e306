/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof_compat.h - the kernel API differences between the kernels kprof
 * builds for (6.1 to 6.12), in one place, each guarded by what the kernel
 * has (kmod/Kbuild greps the headers), never by its version number.
 */
#ifndef _KPROF_COMPAT_H
#define _KPROF_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>

/* 6.2+: device_type.devnode() takes a const struct device. */
#ifdef KPROF_HAVE_CONST_DEVNODE
#define KPROF_DEVNODE_CONST	const
#else
#define KPROF_DEVNODE_CONST
#endif

/* 6.3+: vm_flags is read-only, changed through vm_flags_mod(). */
static inline void kprof_vm_flags_mod(struct vm_area_struct *vma,
				      vm_flags_t set, vm_flags_t clear)
{
#ifdef KPROF_HAVE_VM_FLAGS_MOD
	vm_flags_mod(vma, set, clear);
#else
	vma->vm_flags = (vma->vm_flags | set) & ~clear;
#endif
}

#endif /* _KPROF_COMPAT_H */
