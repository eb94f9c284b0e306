/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * kprof: a per-CPU sampling profiler with its own ring buffers.
 *
 * This header is the only ABI between kprof.ko and its readers (kprofcat).
 * Everything in it is ABI unless a comment says otherwise.  Structures that
 * cross the ioctl boundary start with a __u32 'size' and are size-versioned
 * like perf_event_attr: userspace sets 'size' to sizeof() of the struct it
 * was built against; the kernel accepts any size >= the first published
 * size (the _VER0 constants), requires bytes it does not know to be zero
 * (-E2BIG otherwise), and copies out min(user size, kernel size) bytes, the
 * remainder of a larger user struct zeroed.  Reserved fields must be zero
 * on input (-EINVAL) and are zero on output.
 *
 * Device model
 * ------------
 * Every open file of /dev/kprof (struct file: dup()s and fork()s share
 * it) has its own profiling session, which samples one event on a set of
 * CPUs and writes each CPU's records into that CPU's own ring buffer of
 * the session.  Configure with KPROF_IOC_SET_CONFIG while stopped, then
 * KPROF_IOC_START / KPROF_IOC_STOP.  Records are read either by mmap()ing
 * each CPU's buffer (preferred, see "mmap layout") or with read(), which is
 * refused (-EBUSY) while any buffer of the session is mapped.
 *
 * Sessions (since ABI version 5): a file's session is created by its
 * first SET_CONFIG (with that configuration) or START (with the module
 * parameters' configuration, GET_CONFIG before either), and lives until
 * the file's last reference goes, which stops it and frees its buffers
 * (a mapping holds its file).  Every ioctl, mmap(), read() and poll()
 * acts on the caller's own session only: no file can stop, reconfigure,
 * map or read another's, nor see its counters.  Several sessions sample
 * side by side, each with its own events, buffers and counters, up to
 * the max_sessions module parameter (admin-set, default 4) at once:
 * START beyond it fails with EBUSY and a kernel log line naming the
 * limit.  What is shared: the throttle knobs (SET_THROTTLE, global like
 * the kernel's perf sysctls: a change applies to every session at once,
 * running ones too, and is the administrator's) and
 * each CPU's handler time budget (the cost average the knobs limit is
 * one per CPU, fed by every session's handler on it).  Up to version 4
 * one session per machine existed and the starting file owned it.
 *
 * Per-task sessions (since ABI version 6, KPROF_TARGET_TASK): the
 * session's event follows one task and the tasks it creates (inherited
 * at fork, as perf's per-task events are) instead of sitting on CPUs;
 * whichever CPU such a task overflows on, the record goes to that CPU's
 * ring of the session, and the session's counters count its overflows
 * only.  Starting one needs, besides the right to open the device, ptrace
 * read access to the task (PTRACE_MODE_READ_REALCREDS with the opener's
 * credentials), which perf_event_open() asks of a per-task event: a
 * member of the group= grant cannot sample another user's process.
 *
 * Privilege is decided at open() from the opener's credentials: it needs
 * CAP_PERFMON (or CAP_SYS_ADMIN), what perf_event_open() needs for
 * CPU-wide sampling of every task and of the kernel at any
 * perf_event_paranoid level of 0 and above, or membership of the group the
 * module was loaded with (group=GID, which also makes the node root:GID
 * 0660; without it the node is root's, 0600).  Otherwise EACCES.  Every
 * opener may therefore see kernel addresses: records carry them as they
 * are.  Changing the throttle knobs (SET_THROTTLE), the debug setting
 * among them (cpu_time_max_percent 0 or 100, the cost controller off),
 * needs CAP_SYS_ADMIN at open() (EPERM).
 */
#ifndef _UAPI_LINUX_KPROF_H
#define _UAPI_LINUX_KPROF_H

#include <linux/types.h>
#include <linux/ioctl.h>

/*
 * ABI version of the mmap layout, the records and the ioctls.  A reader
 * built for version V works with a kernel whose control page says
 * compat_version <= V <= version.
 */
#define KPROF_ABI_VERSION		6
#define KPROF_ABI_COMPAT_VERSION	1

#define KPROF_COMM_LEN			16
#define KPROF_MAX_STACK			127	/* per chain (kernel, user) */
#define KPROF_MAX_CPUS			1024	/* size of the config cpumask */
/* Largest kprof_config.buffer_pages (256 MiB per CPU with 4 KiB pages). */
#define KPROF_MAX_BUFFER_PAGES		65536

/* ------------------------------------------------------------------ */
/* mmap layout                                                         */
/* ------------------------------------------------------------------ */
/*
 * Each CPU c in [0, nr_cpu_ids) has one region of mmap_stride bytes
 * (KPROF_IOC_GET_INFO), starting at file offset c * mmap_stride:
 *
 *	offset 0			struct kprof_mmap_page (one page)
 *	offset data_offset		data_size bytes of records
 *
 * A region must be mapped whole, in one mmap(MAP_SHARED) call without
 * PROT_EXEC, at its exact offset: other sizes, offsets, MAP_PRIVATE,
 * PROT_EXEC, mremap() and partial munmap() are refused (EINVAL).  The
 * control page may be mapped writable; only data_tail is read back by the
 * kernel, and it is never trusted (see below).  Regions of CPUs that are
 * not possible, or that the configuration does not select (they have no
 * buffer), return ENODEV.
 *
 * Memory ordering (the producer side is described once, in
 * kmod/kprof_buffer.c, kprof_buffer_publish()):
 *
 *	kernel (producer, one CPU)		reader (consumer)
 *	write record bytes			head = smp_load_acquire(&pg->data_head)
 *	smp_store_release(&pg->data_head)	read records in [tail, head)
 *						smp_store_release(&pg->data_tail, new)
 *	tail = READ_ONCE(pg->data_tail)
 *	(only outermost writer, see above)
 *
 * The reader must load data_head with acquire semantics (C11
 * __atomic_load_n(..., __ATOMIC_ACQUIRE)) before reading record bytes, and
 * must store data_tail with release semantics after it has finished reading
 * them, so the kernel does not overwrite bytes still being read.  head and
 * tail are free-running byte counters; the byte at counter x lives at
 * data_offset + (x & (data_size - 1)).  A record may wrap past the end of
 * the data area: readers copy it out in two pieces.
 *
 * The kernel clamps data_tail into [head - data_size, head] before using it,
 * so a garbage tail can make the reader lose or re-read its own data, never
 * make the kernel write outside the buffer.
 */

struct kprof_mmap_page {
	__u32	version;		/* KPROF_ABI_VERSION */
	__u32	compat_version;		/* KPROF_ABI_COMPAT_VERSION */
	__u32	size;			/* bytes of this struct the kernel fills */
	__u32	cpu;			/* CPU of this region */
	__u64	data_offset;		/* offset of the data area in the region */
	__u64	data_size;		/* bytes, power of two */
	__u32	flags;			/* KPROF_PAGE_* */

	/*
	 * Sequence count of counters and avg_ns, as perf_event_mmap_page's
	 * lock: odd while the kernel writes them, bumped again after.  The
	 * counters are published lazily (at each reader wakeup, at the end
	 * of a throttle, at GET_STATS and at STOP), so they may lag the
	 * records while sampling runs, and are final after KPROF_IOC_STOP
	 * returns.  Every publication is one snapshot taken between two
	 * overflows, in which overflows == samples + lost_full + lost_nested
	 * + lost_stopped + lost_throttled.  A reader sees one snapshot whole
	 * only with this loop (C11 atomics):
	 *
	 *	for (;;) {
	 *		seq = __atomic_load_n(&pg->lock, __ATOMIC_ACQUIRE);
	 *		if (!(seq & 1)) {
	 *			copy counters and avg_ns, each __u64 with
	 *			__atomic_load_n(..., __ATOMIC_RELAXED);
	 *			__atomic_thread_fence(__ATOMIC_ACQUIRE);
	 *			if (__atomic_load_n(&pg->lock,
	 *					    __ATOMIC_RELAXED) == seq)
	 *				break;
	 *		}
	 *		pause;	// the kernel is writing: retry
	 *	}
	 *
	 * The kernel's side: WRITE_ONCE(lock, odd), smp_wmb(), the fields,
	 * smp_wmb(), WRITE_ONCE(lock, even), by one writer at a time per page
	 * (kmod/kprof_counters.c).  A write section is a few dozen stores,
	 * so the loop ends at once unless the reader is preempted in it.
	 * The throttle limits below are not covered: each is one __u64.
	 */
	__u32	lock;
	struct kprof_counters {
		__u64	overflows;	/* overflow-handler invocations seen */
		__u64	samples;	/* SAMPLE records committed */
		__u64	lost_full;	/* buffer had no room */
		__u64	lost_nested;	/* handler entered inside itself */
		__u64	lost_stopped;	/* arrived while stopping */
		__u64	lost_throttled;	/* arrived while throttled */
		__u64	lost_records;	/* sum of LOST records written */
		__u64	throttles;	/* throttled ticks: THROTTLE records */
		__u64	kernel_throttles; /* of those, the kernel's limit tripped */
		__u64	unthrottles;	/* UNTHROTTLE records: throttles ended */
		__u64	lowerings;	/* RATE_LOWERED records */
		__u64	handler_ns;	/* sum of measured handler cost */
		__u64	nmi_samples;	/* samples taken in NMI context */
		__u64	would_throttles; /* shadow: WOULD_THROTTLE records */
		__u64	own_throttles;	/* of throttles, kprof's own limit tripped */
		__u64	lost_events;	/* THROTTLE, UNTHROTTLE, WOULD_THROTTLE,
					 * RATE_LOWERED records that did not fit
					 */
		__u64	__reserved[16];
	} counters;

	/*
	 * Throttle state of this CPU, published with the counters (at a
	 * wakeup, a throttle restart, STOP; the CPU that lowered the limits
	 * right after its handler), so a lowering on another CPU shows here
	 * at this CPU's next publication.  KPROF_IOC_GET_STATS reads the
	 * current limits.
	 */
	__u64	max_sample_rate;
	__u64	max_samples_per_tick;
	__u64	allowed_ns;		/* perf_sample_allowed_ns equivalent */
	__u64	avg_ns;			/* running average handler cost,
					 * under lock with the counters
					 */

	__u8	__reserved1[1024 - 40 - 32 * 8 - 4 * 8];

	/* Offset 1024: own cache lines, as in perf_event_mmap_page. */
	__u64	data_head;		/* written by the kernel (release) */
	__u64	data_tail;		/* written by the reader (release) */
	__u8	__reserved2[1024 - 16];
};

#define KPROF_PAGE_ONLINE	(1U << 0)	/* CPU has a live event */
#define KPROF_PAGE_RUNNING	(1U << 1)	/* sampling started */

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */
/*
 * Every record starts with this header; size includes the header and is a
 * multiple of 8.  Readers must skip types they do not know by 'size'
 * and must reject a size < 8, not a multiple of 8, or larger than
 * data_size.
 */
struct kprof_record_header {
	__u32	type;			/* enum kprof_record_type */
	__u16	misc;			/* KPROF_MISC_* */
	__u16	size;
};

/* header.misc bits */
#define KPROF_MISC_USER			(1U << 0)	/* sample IP in user mode */
#define KPROF_MISC_NMI			(1U << 1)	/* taken in NMI context */
#define KPROF_MISC_USER_FAULT		(1U << 2)	/* user walk ended on a fault */
#define KPROF_MISC_KERNEL_TRUNC		(1U << 3)	/* kernel chain hit max depth */
#define KPROF_MISC_USER_TRUNC		(1U << 4)	/* user chain hit max depth */
#define KPROF_MISC_STACK_USER		(1U << 5)	/* SAMPLE: user regs and stack follow */
/* THROTTLE: which limit(s) tripped at the overflow that began it */
#define KPROF_MISC_THROTTLE_OWN		(1U << 6)	/* kprof's per-tick limit */
#define KPROF_MISC_THROTTLE_KERNEL	(1U << 7)	/* the kernel's */

enum kprof_record_type {
	/*
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64	seq;		// per-CPU overflow number, from 1;
	 *				// gaps are overflows not delivered
	 *	__u64	time;		// local_clock() ns (perf's clock)
	 *	__u32	cpu;
	 *	__u32	pid;		// tgid, in the pid namespace of the
	 *				// starting file's opener; 0 for the
	 *				// idle task and tasks outside it
	 *	__u32	tid;
	 *	__u32	cost_ns;	// this handler's cost, entry to
	 *				// commit and wakeup
	 *	char	comm[16];	// always NUL-terminated
	 *	__u64	ip;
	 *	__u64	period;
	 *	__u16	nr_kernel;	// kernel frames, leaf first
	 *	__u16	nr_user;	// user frames, leaf first
	 *	__u32	tick;		// low 32 bits of the throttle's
	 *				// tick of this overflow (see
	 *				// THROTTLE)
	 *	__u64	ips[nr_kernel + nr_user];
	 * };
	 * The kernel chain starts with the interrupted IP when it was in
	 * the kernel; the user chain starts with the user-mode IP.
	 *
	 * With KPROF_MISC_STACK_USER (DWARF call chains: every SAMPLE of
	 * a configuration with KPROF_CFG_CALLCHAIN_DWARF has it), the user
	 * registers and a copy of the user stack follow ips[], laid out as
	 * perf's PERF_SAMPLE_REGS_USER then PERF_SAMPLE_STACK_USER:
	 *	__u64	abi;		// KPROF_SAMPLE_REGS_ABI_*; NONE:
	 *				// no regs[], size 0
	 *	__u64	regs[popcount(KPROF_REGS_USER_MASK)];
	 *				// the task's user registers, in
	 *				// PERF_REG_X86_* order (below)
	 *	__u64	size;		// bytes of data[], a multiple of 8;
	 *				// 0: no data[] and no dyn_size
	 *	char	data[size];	// the user stack from regs' sp up
	 *	__u64	dyn_size;	// bytes of data[] really read
	 *				// (<= size); the bytes past it are
	 *				// zero and mean nothing
	 * The registers are those perf_get_regs_user() gives: the
	 * interrupted ones for a sample in user mode; in kernel mode the
	 * task's saved user registers (task_pt_regs()), of which, in NMI
	 * context, BX and R12-R15 read as ~0 (perf's rule: the entry code
	 * an NMI interrupts may not have saved them yet), and abi NONE
	 * when the NMI hit while the entry code was saving them.  Kernel
	 * threads, user workers (io_uring's, vhost's) and 32-bit tasks
	 * have abi NONE.  size is user_stack_size, clamped as perf clamps
	 * its dump: so that header.size <= 65528 (a __u16 multiple of 8),
	 * and to the top of the user address space above sp; and, unlike
	 * perf, which loses a sample that does not fit, to the room left
	 * in the ring at the overflow (so a sample is lost to a full ring
	 * only when not even its registers fit); and, unlike perf, which
	 * keeps size and reports dyn_size, to the bytes read, rounded up
	 * to 8, when the copy stops short (the stack's mapping ends less
	 * than size above sp, as in most tasks): header.size shrinks with
	 * it, and a sample whose stack could not be read at all has size
	 * 0.  The copy is the handler's
	 * (copy_from_user_nmi(): a page not present is not faulted in) and
	 * its cost is in cost_ns.  The sample is kept whatever the copy
	 * read.  Readers unwind the user
	 * chain from regs and data[], in place of the ips[] user part.
	 */
	KPROF_RECORD_SAMPLE		= 1,

	/*
	 * Overflows not delivered since the previous LOST record, by cause,
	 * and the other records that did not fit (lost_events, by type), so
	 * that THROTTLE/UNTHROTTLE pairing stays recoverable.  Written
	 * in-band right before the next record that fits, with that record's
	 * time, and by STOP; losses still pending at START (the STOP flush
	 * did not fit and nothing was read since) are the session's: its
	 * next START carries them into the new run (its first overflows,
	 * lost by cause).
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64	time;
	 *	__u64	full, nested, stopped, throttled;
	 *	__u32	throttle;	// THROTTLE records not written
	 *	__u32	unthrottle;	// UNTHROTTLE records not written
	 *	__u32	lowered;	// RATE_LOWERED records not written
	 *	__u32	would;		// WOULD_THROTTLE records not written
	 * };
	 */
	KPROF_RECORD_LOST		= 2,

	/*
	 * A throttle of this CPU began (THROTTLE) or ended (UNTHROTTLE).
	 * One THROTTLE per throttled tick, whatever tripped: header.misc
	 * says which limit(s) did at that overflow, kprof's own
	 * (KPROF_MISC_THROTTLE_OWN) and/or the kernel's per-tick limit
	 * (KPROF_MISC_THROTTLE_KERNEL, detected through the event's
	 * hw.interrupts).  It follows the overflow that tripped (and its
	 * SAMPLE: it is delivered) and is ended by one UNTHROTTLE once
	 * every limit that holds the CPU has let go, unless sampling stops
	 * first: unthrottles <= throttles.  The kernel restarts its
	 * throttled event at its next tick without telling kprof: a throttle
	 * the kernel held ends at the first overflow after that restart,
	 * whose UNTHROTTLE has that overflow's time and comes before its
	 * SAMPLE.  tick and interrupts are kprof's count in the throttle's
	 * ticks: for PMU events the kernel's own per-CPU tick count
	 * (perf_throttled_seq, seen as the event's hw.interrupts_seq), the
	 * ticks the kernel's limit counts in; for clock events (cpu-clock,
	 * task-clock), which kprof restarts itself, local_clock() / TICK_NSEC.
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64	time;
	 *	__u64	seq;		// overflow number at the change
	 *	__u64	tick;		// the throttle's tick, see above
	 *	__u64	interrupts;	// interrupts counted in this tick
	 * };
	 */
	KPROF_RECORD_THROTTLE		= 3,
	KPROF_RECORD_UNTHROTTLE		= 4,
	/* 5: reserved, never written. */

	/*
	 * The cost controller lowered the rate (perf_sample_event_took()).
	 * struct {
	 *	struct kprof_record_header header;
	 *	__u64	time;
	 *	__u64	avg_ns;			// average before the margin
	 *	__u64	old_allowed_ns;
	 *	__u64	max_samples_per_tick;	// new
	 *	__u64	max_sample_rate;	// new
	 * };
	 */
	KPROF_RECORD_RATE_LOWERED	= 6,

	/*
	 * Shadow semantics only: the per-tick limit would have stopped the
	 * event here (ge rule), once per tick; the event keeps running.
	 * Same layout as THROTTLE.
	 */
	KPROF_RECORD_WOULD_THROTTLE	= 7,

	KPROF_RECORD_MAX,
};

struct kprof_sample {
	struct kprof_record_header header;
	__u64	seq;
	__u64	time;
	__u32	cpu;
	__u32	pid;
	__u32	tid;
	__u32	cost_ns;
	char	comm[KPROF_COMM_LEN];
	__u64	ip;
	__u64	period;
	__u16	nr_kernel;
	__u16	nr_user;
	__u32	tick;
	__u64	ips[];
};

/*
 * The user registers of a KPROF_MISC_STACK_USER sample, as perf's
 * sample_regs_user for --call-graph dwarf on x86-64 (PERF_REGS_MASK:
 * every PERF_REG_X86_* of x86-64 but the segment registers DS, ES, FS,
 * GS): regs[] holds the registers whose bit is set, lowest bit first:
 * AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 ... R15.  The unwinder needs
 * IP, SP and BP at least; the others may be CFA rules' inputs.
 */
#define KPROF_REGS_USER_MASK		0xff0fffULL
#define KPROF_REGS_USER_NR		20	/* popcount(KPROF_REGS_USER_MASK) */
/* PERF_REG_X86_* bit numbers, and the index in regs[] of those below 12. */
#define KPROF_REG_X86_BP		6
#define KPROF_REG_X86_SP		7
#define KPROF_REG_X86_IP		8
/* abi: perf's enum perf_sample_regs_abi. */
#define KPROF_SAMPLE_REGS_ABI_NONE	0
#define KPROF_SAMPLE_REGS_ABI_64	2

struct kprof_lost {
	struct kprof_record_header header;
	__u64	time;
	__u64	full;
	__u64	nested;
	__u64	stopped;
	__u64	throttled;
	__u32	throttle;
	__u32	unthrottle;
	__u32	lowered;
	__u32	would;
};

struct kprof_throttle_event {
	struct kprof_record_header header;
	__u64	time;
	__u64	seq;
	__u64	tick;
	__u64	interrupts;
};

struct kprof_rate_lowered {
	struct kprof_record_header header;
	__u64	time;
	__u64	avg_ns;
	__u64	old_allowed_ns;
	__u64	max_samples_per_tick;
	__u64	max_sample_rate;
};

/* ------------------------------------------------------------------ */
/* ioctl                                                               */
/* ------------------------------------------------------------------ */

#define KPROF_IOC_MAGIC		0xB9

/* Sampling configuration.  Values mirror perf_event_attr where they can. */
struct kprof_config {
	__u32	size;		/* sizeof(struct kprof_config) */
	__u32	type;		/* PERF_TYPE_HARDWARE, HW_CACHE, RAW, or
				 * SOFTWARE (cpu-clock, task-clock)
				 */
	__u64	config;		/* PERF_COUNT_* or raw code */
	__u64	sample;		/* period, or frequency with KPROF_CFG_FREQ */
	__u64	flags;		/* KPROF_CFG_* */
	__u32	precise_ip;	/* 0..3, as perf_event_attr.precise_ip */
	__u16	kernel_stack;	/* max kernel frames, <= KPROF_MAX_STACK */
	__u16	user_stack;	/* max user frames, <= KPROF_MAX_STACK */
	__u32	buffer_pages;	/* data pages per CPU, power of two, >= 1 */
	__u32	watermark;	/* wake readers after this many bytes;
				 * 0: half the data area, also the most used
				 */
	__u64	cpumask[KPROF_MAX_CPUS / 64]; /* CPUs to sample; all zero: all */
	__u64	config1;	/* perf_event_attr.config1, the PMU's to read */
	__u64	config2;	/* perf_event_attr.config2 */
	/*
	 * With KPROF_CFG_CALLCHAIN_DWARF: bytes of user stack each SAMPLE
	 * copies, as perf_event_attr.sample_stack_user: a multiple of 8,
	 * 8 to 65528.  0 without the flag.
	 */
	__u32	user_stack_size;
	__u32	__reserved0;	/* must be 0 */
	/*
	 * Since ABI version 6, in what was __reserved[0] (zero: the CPUs
	 * of cpumask, as before).  With KPROF_TARGET_TASK in target_flags
	 * the session samples one task and its descendants instead of
	 * CPUs, as perf_event_open(pid, cpu -1) with attr.inherit does:
	 * target_pid (> 0, in the pid namespace of the file's opener) names
	 * the task, resolved at START; tasks it creates from then on
	 * (threads and forked children, theirs too) inherit the event.  Its
	 * samples on any CPU go to that CPU's ring, so every possible CPU
	 * has one and cpumask must be all zero.
	 */
	__u32	target_flags;	/* KPROF_TARGET_* */
	__s32	target_pid;	/* 0 without KPROF_TARGET_TASK */
	__u64	__reserved[4];
};

#define KPROF_CONFIG_SIZE_VER0	(8 + 8 + 8 + 8 + 4 + 2 + 2 + 4 + 4 + \
				 KPROF_MAX_CPUS / 8 + 64)

#define KPROF_CFG_FREQ			(1ULL << 0)
#define KPROF_CFG_EXCLUDE_USER		(1ULL << 1)
#define KPROF_CFG_EXCLUDE_KERNEL	(1ULL << 2)
#define KPROF_CFG_CALLCHAIN_KERNEL	(1ULL << 3)
#define KPROF_CFG_CALLCHAIN_USER	(1ULL << 4)
/*
 * DWARF call chains (perf's --call-graph dwarf): every SAMPLE carries
 * the user registers and user_stack_size bytes of user stack
 * (KPROF_MISC_STACK_USER, see KPROF_RECORD_SAMPLE), for the reader to
 * unwind.  Independent of CALLCHAIN_USER, whose frame-pointer walk it
 * replaces for such readers, as perf's exclude_callchain_user does.
 */
#define KPROF_CFG_CALLCHAIN_DWARF	(1ULL << 5)
#define KPROF_CFG_ALL			((1ULL << 6) - 1)

/* kprof_config.target_flags */
#define KPROF_TARGET_TASK		(1U << 0)	/* target_pid and descendants */
/*
 * With KPROF_TARGET_TASK: also every other thread of target_pid's process
 * that exists at START, and what each creates (perf record -p); without
 * it, the one task target_pid names (perf record -t) and what it creates.
 */
#define KPROF_TARGET_THREADS		(1U << 1)
#define KPROF_TARGET_ALL		((1U << 2) - 1)
/* Largest user_stack_size: perf's, the most a __u16 record size holds. */
#define KPROF_MAX_USER_STACK_SIZE	65528

/* Throttle knobs, mirroring the perf sysctls but independent of them. */
struct kprof_throttle_config {
	__u32	size;
	__u32	semantics;		/* enum kprof_throttle_semantics */
	__u32	max_sample_rate;	/* like perf_event_max_sample_rate */
	__u32	cpu_time_max_percent;	/* like perf_cpu_time_max_percent */
	__u32	__reserved0;		/* must be 0 */
	__u32	flags;			/* KPROF_THROTTLE_F_* */
	__u64	__reserved[4];
};

#define KPROF_THROTTLE_CONFIG_SIZE_VER0	56

/*
 * Which overflows feed their cost to the cost controller.  By default
 * those in NMI context (PMU events), as the kernel feeds
 * perf_sample_event_took() from its PMI handler only; hrtimer clock
 * events (cpu-clock, task-clock) do not, as in the kernel.  FEED_CLOCK
 * feeds them too, for experiments on machines without a PMU.
 */
#define KPROF_THROTTLE_F_FEED_CLOCK	(1U << 0)
#define KPROF_THROTTLE_F_ALL		((1U << 1) - 1)

enum kprof_throttle_semantics {
	KPROF_THROTTLE_GE	= 0,	/* interrupts >= max (current kernels) */
	KPROF_THROTTLE_GT	= 1,	/* before f51972e6: first unchecked, > */
	KPROF_THROTTLE_SHADOW	= 2,	/* never stop, record where it would */
};

/* Global description, for mapping. */
struct kprof_info {
	__u32	size;
	__u32	version;		/* KPROF_ABI_VERSION */
	__u32	nr_cpu_ids;
	__u32	page_size;
	__u64	mmap_stride;		/* bytes per CPU region */
	__u64	data_size;		/* bytes of data per CPU */
	__u32	hz;			/* kernel HZ */
	__u32	flags;			/* KPROF_INFO_* */
	__u64	tick_nsec;
	__u64	online_mask[KPROF_MAX_CPUS / 64]; /* CPUs with an event */
	__u64	__reserved[8];
};

#define KPROF_INFO_SIZE_VER0	(48 + KPROF_MAX_CPUS / 8 + 64)

#define KPROF_INFO_RUNNING	(1U << 0)

/* Per-CPU statistics. */
struct kprof_cpu_stats {
	__u32	size;
	__u32	cpu;			/* in */
	struct kprof_counters counters;
	__u64	max_sample_rate;
	__u64	max_samples_per_tick;
	__u64	allowed_ns;
	__u64	avg_ns;
	__u64	__reserved[4];
};

#define KPROF_CPU_STATS_SIZE_VER0	(8 + 32 * 8 + 8 * 8)

/*
 * ioctl semantics (errnos other than the size rules at the top):
 *
 * Commands are matched on direction, type and number; their size bits are
 * ignored, the struct's own 'size' field governs (a newer, larger struct
 * still reaches its handler).  Unknown commands: ENOTTY.  Output structs
 * get 'size' = the kernel's sizeof().
 *
 * SET_CONFIG: of the caller's session, created if it has none.  EBUSY
 * while it runs, and when buffer_pages changes or a CPU without a buffer is selected while any
 * region is mapped (new buffers are zeroed; the mmap layout changes).
 * Buffers exist for the selected CPUs only, on each CPU's NUMA node,
 * offline ones included; CPUs dropped from the selection while mapped
 * keep theirs until the next SET_CONFIG made while nothing is mapped.
 * Their memory is charged as perf charges its ring buffers: to the user,
 * up to the mlock_kb module parameter (perf_event_mlock_kb's default,
 * 516) KiB per online CPU, and beyond that to the caller's RLIMIT_MEMLOCK
 * unless it has CAP_IPC_LOCK: EPERM when that is exceeded, as perf's
 * mmap() gives.
 * EINVAL: unknown flags, both EXCLUDE flags, reserved non-zero, sample 0,
 * frequency above the max_sample_rate knob (SET_THROTTLE), period with
 * bit 63, precise_ip > 3, stack depth > KPROF_MAX_STACK or 0 with its
 * CALLCHAIN flag, user_stack_size with CALLCHAIN_DWARF 0, not a multiple
 * of 8 or > KPROF_MAX_USER_STACK_SIZE, and not 0 without it (as
 * perf_event_open() checks sample_stack_user), buffer_pages 0, not a
 * power of two or > 65536,
 * watermark > data size, a cpumask bit >= nr_cpu_ids or of a CPU that is
 * not possible, PERF_TYPE_HARDWARE config >= PERF_COUNT_HW_MAX,
 * PERF_TYPE_HW_CACHE config with a cache, op or result perf does not
 * know or bits above 23 (both types: no PMU type in the upper half),
 * target_flags with a bit KPROF_TARGET_ALL does not have,
 * KPROF_TARGET_TASK with target_pid <= 0 or with a cpumask bit set,
 * target_pid not 0 or KPROF_TARGET_THREADS without it.
 * ENOENT: software config >= PERF_COUNT_SW_MAX.  EOPNOTSUPP, with a
 * kernel log line naming the PMU: every type but HARDWARE, HW_CACHE and
 * RAW (the CPU's core PMU) and the cpu-clock and task-clock software
 * events: tracepoints, breakpoints, other software events and any PMU of
 * a dynamic type (kprobe, uprobe, uncore, ...), which kprof cannot tell
 * apart before creating an event.  This is perf_event_open()'s errno for
 * a PMU that cannot sample.  Hardware and raw events are checked by the
 * PMU driver at START.
 *
 * START: of the caller's session, created with the module parameters'
 * configuration if it has none.  EBUSY while it runs, or while
 * max_sessions sessions run (a kernel log line names the limit).
 * Creates the event of every selected online CPU, under the credentials
 * of the opener of the file (with CAP_PERFMON for a member of
 * the group= grant), so the PMU's and the LSMs' checks judge the opener;
 * if one fails (ENOENT or EOPNOTSUPP for a hardware event without a PMU,
 * EACCES from such a check, ...) the others are released, its errno is
 * returned and nothing runs.  Counters restart at 0 (seq at 1, after any
 * carried losses).  The session's first successful START empties its
 * buffers (data_head and data_tail back to 0); later ones continue them
 * (data_head carries on), since its own reader may be draining them
 * through its mapping meanwhile.  Selected CPUs that are offline get
 * their event when they come online.
 * A per-task session (KPROF_TARGET_TASK) resolves target_pid in the pid
 * namespace of the file's opener: ESRCH if no such task (or it is
 * exiting), EACCES without ptrace read access to it (checked, as
 * perf_event_open() does, under the task's exec_update_lock, so an
 * exec() that changes its credentials comes before or after both the
 * check and the event; EINTR if a signal interrupts that wait).  Its
 * events (one, or one per thread with KPROF_TARGET_THREADS, each thread
 * checked) are created under the opener's credentials; no CPU hotplug
 * concerns them.  Tasks the target created before START are not sampled
 * (but for the threads KPROF_TARGET_THREADS adds), nor a thread that
 * appears while START walks the process (as with perf record -p).
 *
 * STOP: of the caller's session; returns 0, also when not running or
 * without a session.  Counters are final on return and the last LOST
 * record is in the buffer.  Sampling also stops when the last reference
 * to the file goes (a mapping holds its file).
 *
 * GET_INFO: mmap_stride, data_size, RUNNING and online_mask of the
 * caller's session; without one, the layout its first START would give.
 *
 * GET_STATS: the counters of the caller's session (zero without one);
 * avg_ns is the CPU's, shared by every session.  EINVAL for a CPU that
 * is not possible.
 *
 * SET_THROTTLE: applied like the sysctl writes, in this order: semantics
 * (EINVAL > KPROF_THROTTLE_SHADOW), cpu_time_max_percent (EINVAL > 100),
 * max_sample_rate (EINVAL when 0 or > INT_MAX, or while the percent is 0
 * or 100); a field equal to the current value is not written.  Reserved
 * non-zero or unknown flags: EINVAL.  Then EPERM for any change, unless
 * the file was opened with CAP_SYS_ADMIN (a request that repeats the
 * values in force changes nothing and succeeds): the knobs are every
 * session's, and a change applies at once to every session, running or
 * not, its control pages included, as a write of the perf sysctls
 * reaches every event.
 *
 * read(): whole records of the caller's session, CPU by CPU; 0 without
 * a session; EBUSY while any region of it is mapped;
 * EINVAL if the next record does not fit in the buffer; blocks until data
 * arrives while running (EAGAIN with O_NONBLOCK); 0 once stopped and
 * drained.  poll(): while running, EPOLLIN when a buffer holds at least
 * 'watermark' unread bytes, as perf's poll() waits for its watermark
 * wakeup (a reader that wants fresher data polls with a timeout or sets
 * a smaller watermark), or holds unread bytes before the head of the
 * last wakeup (perf's poll() reports every wakeup); once stopped,
 * EPOLLIN while any record is left, then EPOLLHUP.  Readers are woken
 * when 'watermark' bytes arrived past the later of the last wakeup and
 * data_tail, so a reader that drained between wakeups is woken as soon
 * as it has 'watermark' bytes to read, and at STOP.  A watermark above
 * half the data area acts as half: a full ring may hold less than one
 * set near its size.
 *
 * mmap(): the caller's session's regions only; ENODEV before it has a
 * session (SET_CONFIG or START first); a page offset past the last CPU's
 * region: EINVAL.  poll(): EPOLLHUP without a session.
 */
#define KPROF_IOC_ABI_VERSION	_IOR(KPROF_IOC_MAGIC, 0, __u32)
#define KPROF_IOC_GET_INFO	_IOWR(KPROF_IOC_MAGIC, 1, struct kprof_info)
#define KPROF_IOC_SET_CONFIG	_IOW(KPROF_IOC_MAGIC, 2, struct kprof_config)
#define KPROF_IOC_GET_CONFIG	_IOWR(KPROF_IOC_MAGIC, 3, struct kprof_config)
#define KPROF_IOC_START		_IO(KPROF_IOC_MAGIC, 4)
#define KPROF_IOC_STOP		_IO(KPROF_IOC_MAGIC, 5)
#define KPROF_IOC_GET_STATS	_IOWR(KPROF_IOC_MAGIC, 6, struct kprof_cpu_stats)
#define KPROF_IOC_SET_THROTTLE	_IOW(KPROF_IOC_MAGIC, 7, struct kprof_throttle_config)
#define KPROF_IOC_GET_THROTTLE	_IOWR(KPROF_IOC_MAGIC, 8, struct kprof_throttle_config)

#endif /* _UAPI_LINUX_KPROF_H */
