/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kprof.h - private declarations shared by the files of kprof.ko.
 *
 * Who owns what:
 *  - struct kprof_state (one, "kprof") is the global control state: the
 *    mutexes, the throttle knobs (global, as the kernel's sysctls are),
 *    the default configuration (the insmod parameters) and the list and
 *    counts of sessions.  All change under kprof.lock.
 *  - struct kprof_session (kprof_session.c) is everything of one profiling
 *    session: configuration, buffers, cpuhp instance, wait queue, the
 *    owner's credentials and a per-CPU struct kprof_cpu.  One open file
 *    (struct kprof_file) owns it, from its first SET_CONFIG or START to
 *    its release; no other file can reach it.  Changed only under
 *    kprof.lock from ioctl/release, read without the lock by its cpuhp
 *    callbacks and handlers while it runs (frozen then).
 *  - struct kprof_cpu (per session and CPU, the session's lifetime) is
 *    the producer of one CPU: the overflow handler of the session's
 *    events on that CPU and the throttle's deferred work of its event
 *    (irq_work, hrtimer) are its only writers while it is active; the
 *    control path touches it only once the producer is quiesced (before
 *    START, after STOP).  A CPU session has one event per CPU, whose
 *    overflow_handler_context is that CPU's producer.  A per-task session
 *    (KPROF_TARGET_TASK) has one event on its target and the events
 *    inherited from it by the tasks the target creates, all with the
 *    session as overflow_handler_context; they run wherever their tasks
 *    run, and the handler writes the producer of the CPU it runs on.
 *    Either way at most one of a session's events is active on a CPU at
 *    a time (a task's events are active only while it runs), so a
 *    session's handler never nests in itself on a CPU, and its scratch
 *    record is not shared with any other handler, whichever other
 *    session's may interrupt it.
 *  - kprof_cost (per CPU, module lifetime) is the CPU's handler cost
 *    average, shared by every session's event on the CPU, as the
 *    kernel's running_sample_length is shared by every event.
 *  - struct kprof_bufs is the set of per-CPU ring buffers, refcounted: the
 *    device holds one reference, every mapping and every read() in flight
 *    another, so a buffer is freed only when nobody can reach it.
 */
#ifndef _KPROF_H
#define _KPROF_H

#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/pid_namespace.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <asm/local64.h>

#include <linux/kprof.h>
#include "kprof_compat.h"
#include "kprof_throttle.h"

/*
 * The user registers' part of a KPROF_MISC_STACK_USER tail: abi, regs[],
 * size.  Its stack bytes and dyn_size go straight into the ring
 * (kprof_ustack.c), never through scratch.
 */
#define KPROF_USTACK_REGS_SIZE	((2 + KPROF_REGS_USER_NR) * sizeof(__u64))

/*
 * Largest SAMPLE record built in scratch: both chains at full depth and
 * the user registers.
 */
#define KPROF_SAMPLE_MAX_SIZE	(sizeof(struct kprof_sample) + \
				 2 * KPROF_MAX_STACK * sizeof(__u64) + \
				 KPROF_USTACK_REGS_SIZE)

/* Per-CPU counters, in the order of struct kprof_counters. */
enum kprof_counter {
	KPROF_CNT_OVERFLOWS,
	KPROF_CNT_SAMPLES,
	KPROF_CNT_LOST_FULL,
	KPROF_CNT_LOST_NESTED,
	KPROF_CNT_LOST_STOPPED,
	KPROF_CNT_LOST_THROTTLED,
	KPROF_CNT_LOST_RECORDS,
	KPROF_CNT_THROTTLES,
	KPROF_CNT_KERNEL_THROTTLES,
	KPROF_CNT_UNTHROTTLES,
	KPROF_CNT_LOWERINGS,
	KPROF_CNT_HANDLER_NS,
	KPROF_CNT_NMI_SAMPLES,
	KPROF_CNT_WOULD_THROTTLES,
	KPROF_CNT_OWN_THROTTLES,
	KPROF_CNT_LOST_EVENTS,
	KPROF_NR_COUNTERS
};

/*
 * What a LOST record reports, in the order of its fields: overflows lost
 * by cause, then records other than SAMPLE that did not fit, by type.
 */
enum kprof_lost_cause {
	KPROF_LOST_FULL,
	KPROF_LOST_NESTED,
	KPROF_LOST_STOPPED,
	KPROF_LOST_THROTTLED,
	KPROF_NR_LOST_OVERFLOWS,
	KPROF_LOST_THROTTLE_REC = KPROF_NR_LOST_OVERFLOWS,
	KPROF_LOST_UNTHROTTLE_REC,
	KPROF_LOST_LOWERED_REC,
	KPROF_LOST_WOULD_REC,
	KPROF_NR_LOST
};

/* One CPU's ring buffer: control page plus data pages, one vmap() area. */
struct kprof_buf {
	struct kprof_mmap_page	*page;		/* start of the region */
	struct page		**pages;	/* its pages, kprof_region_free() */
	unsigned long		nr_pages;
	void			*data;		/* page + data_offset */
	unsigned long		size;		/* data bytes, power of two */
	unsigned long		watermark;	/* bytes between wakeups */
	local_t			head;		/* reserved bytes, free-running */
	/* head last stored to data_head; written by the outermost writer */
	unsigned long		published;
	local_t			nest;		/* writers between reserve and publish */
	/* head at the last wakeup; poll() reads it (kprof_bufs_readable()) */
	local_t			wakeup_head;
	/* The page's sequence count, kept here: see kprof_counters.c */
	u32			lock_seq;
	struct irq_work		wakeup;		/* wakes readers, never from NMI directly */
	/* The producer writing it, set while it is a session's target. */
	struct kprof_cpu	*producer;
};

struct kprof_bufs {
	struct kref		ref;
	atomic_t		mapped;		/* live VMAs over any region */
	u32			pages;		/* data pages per CPU */
	unsigned long		region_size;	/* == mmap_stride */
	struct cpumask		cpus;		/* CPUs with a region */
	/* What kprof_bufs_charge() charged, given back when freed. */
	struct user_struct	*user;
	unsigned long		locked_pages;	/* to user->locked_vm */
	struct mm_struct	*mm;		/* NULL: nothing pinned */
	unsigned long		pinned_pages;	/* to mm->pinned_vm */
	/* nr_cpu_ids: a control page per possible CPU, data if selected */
	struct kprof_buf	cpu[];
};

struct kprof_session;

struct kprof_cpu {
	struct kprof_session	*session;	/* whose it is, for its life */
	unsigned int		cpu;
	/* Control path (kprof.lock or this CPU's cpuhp callback). */
	struct perf_event	*event;
	struct kprof_buf	*buf;		/* producer's target while active */

	/* Producer. */
	bool			active;		/* sampling: else lost_stopped */
	local_t			nest;		/* handlers running: 0 or 1 */
	local_t			publish_gen;	/* bumped by every handler exit */
	local64_t		count[KPROF_NR_COUNTERS];
	local64_t		pending[KPROF_NR_LOST]; /* not yet in a LOST record */
	local_t			pending_any;	/* 0: every pending[] is 0 */

	/*
	 * kprof's throttle: the handler decides, then defers what cannot be
	 * done from inside an hrtimer callback or an NMI: stopping the event
	 * (thr_stop, irq_work) and restarting it at the next tick (thr_timer,
	 * armed by thr_stop).  The per-tick state is per event, as the
	 * kernel's hw.interrupts: a CPU session's one event's in thr, a
	 * per-task session's events' on this CPU in thr_task, thr_cur the
	 * one of the overflow being handled.  Written only on this CPU; the
	 * CPU's cost average, which every session's event on it shares, is
	 * kprof_cost.  Keys are event addresses, compared, never dereferenced.
	 */
	struct kprof_throttle_ev thr;
	struct kprof_throttle_evs thr_task;
	struct kprof_throttle_ev *thr_cur;
	bool			thr_stopped;	/* kprof stopped the event */
	bool			thr_open;	/* THROTTLE written, no UNTHROTTLE */
	struct irq_work		thr_stop;
	struct hrtimer		thr_timer;
	struct irq_work		thr_msg;	/* "took too long", rate-limited */
	u64			msg_avg;
	u64			msg_allowed;
	u64			msg_rate;

	/*
	 * Call chains are unwound here, then copied after the SAMPLE's
	 * fields, which go straight into the ring; a SAMPLE that wraps the
	 * end of the ring is built here whole and copied in two pieces.
	 */
	u64			scratch[KPROF_SAMPLE_MAX_SIZE / sizeof(u64)];
};

/* One profiling session: see the top and kprof_session.c. */
struct kprof_session {
	struct list_head	node;		/* in kprof.sessions */
	bool			has_run;	/* a START succeeded: buffers carry on */
	/*
	 * Serializes read()'s copies with each other and with START's
	 * emptying of the buffers (taken inside kprof.lock there, without
	 * it in read(), which may fault on user memory under it).
	 */
	struct mutex		read_lock;
	struct kprof_config	config;		/* validated */
	struct perf_event_attr	attr;		/* built at START */
	cpumask_var_t		cpus;		/* CPUs the config selects */
	struct kprof_bufs	*bufs;
	bool			running;
	bool			starting;	/* START creating events */
	/* START's disabled trial events, until the CPUs' events exist */
	struct perf_event	*preflight[2];
	struct hlist_node	hp_node;	/* cpuhp instance while running */
	wait_queue_head_t	wq;		/* readers: poll(), read() */
	/* The owner's, from START until the events are gone (kprof_file). */
	const struct cred	*cred;		/* events are created under it */
	struct pid_namespace	*pid_ns;	/* SAMPLE pids are of this one */
	struct kprof_cpu __percpu *pcpu;	/* the producers, one per CPU */
	/*
	 * A per-task session's events while it runs: its target's, then
	 * with KPROF_TARGET_THREADS those of the target's other threads (the
	 * events inherited from them are the kernel's: they go with their
	 * tasks, or when their parent is released).  NULL otherwise.
	 */
	struct perf_event	**task_events;
	unsigned int		nr_task_events;
};

/* Does @s sample a task and its descendants rather than CPUs? */
static inline bool kprof_session_per_task(const struct kprof_session *s)
{
	return s->config.target_flags & KPROF_TARGET_TASK;
}

struct kprof_state {
	struct mutex		lock;		/* the control path, see kprof_cdev.c */
	/* What ->mmap needs, a leaf lock: see kprof_session.c */
	struct mutex		map_lock;
	struct kprof_throttle_limits limits;	/* knobs, see SET_THROTTLE */
	u32			throttle_flags;	/* KPROF_THROTTLE_F_* */
	struct kprof_config	defconfig;	/* a new session's, validated */
	struct list_head	sessions;	/* every file's session */
	unsigned int		nr_running;	/* sessions with events */
};

/* One open file of /dev/kprof; privilege is decided at open(). */
struct kprof_file {
	bool			admin;		/* CAP_SYS_ADMIN: debug settings */
	atomic_t		mapped;		/* its live VMAs over any region */
	/*
	 * The opener's credentials as kprof_may_open() admitted them (with
	 * CAP_PERFMON for a group member), and its pid namespace.
	 */
	const struct cred	*cred;
	struct pid_namespace	*pid_ns;
	/*
	 * Its session, NULL until its first SET_CONFIG or START; then set
	 * for the file's life, under kprof.lock and kprof.map_lock.
	 */
	struct kprof_session	*session;
};

/*
 * Count @n of @kind for the next LOST record (kprof_buffer_claim_lost()
 * takes them).  The count before the flag: a claim nesting between the
 * two takes the count and leaves the flag set, which costs it one more
 * look later, never a count.
 */
static inline void kprof_pending_add(struct kprof_cpu *c, unsigned int kind,
				     u64 n)
{
	local64_add(n, &c->pending[kind]);
	barrier();
	local_set(&c->pending_any, 1);
}

/* kprof_state.c */
extern struct kprof_state kprof;
extern uint kprof_mlock_kb;	/* the mlock_kb parameter, see kprof_buffer.c */
extern uint kprof_max_sessions;	/* the max_sessions parameter */
DECLARE_PER_CPU(struct kprof_throttle_cpu, kprof_cost);

/* Does any session sample?  Context: kprof.lock held. */
static inline bool kprof_sessions_running(void)
{
	lockdep_assert_held(&kprof.lock);
	return kprof.nr_running;
}

/* kprof_session.c */
struct kprof_bufs *kprof_session_set_bufs(struct kprof_session *s,
					  struct kprof_bufs *bufs);
int kprof_session_configure(struct kprof_file *f,
			    const struct kprof_config *cfg);
int kprof_session_start(struct kprof_file *f);
void kprof_session_stop(struct kprof_file *f);
void kprof_session_release(struct kprof_file *f);

/* kprof_buffer.c */
struct kprof_bufs *kprof_bufs_alloc(u32 pages, u32 watermark,
				    const struct cpumask *cpus);
void kprof_bufs_set_watermark(struct kprof_bufs *bufs, u32 watermark);
void kprof_bufs_reset(struct kprof_bufs *bufs);
void kprof_bufs_get(struct kprof_bufs *bufs);
void kprof_bufs_put(struct kprof_bufs *bufs);
void kprof_buffer_begin(struct kprof_buf *b);
bool kprof_buffer_reserve_rec(struct kprof_cpu *c, u32 size, u64 time,
			      unsigned long *pos);
void *kprof_buffer_at(struct kprof_buf *b, unsigned long pos, u32 size);
void kprof_buffer_copy_at(struct kprof_buf *b, unsigned long pos,
			  const void *src, unsigned long len);
unsigned long kprof_buffer_copy_user_at(struct kprof_buf *b, unsigned long pos,
					const void __user *src,
					unsigned long len);
unsigned long kprof_buffer_room(struct kprof_buf *b);
void kprof_buffer_zero_at(struct kprof_buf *b, unsigned long pos,
			  unsigned long len);
void kprof_buffer_patch_u32(struct kprof_buf *b, unsigned long pos, u32 val);
void kprof_buffer_patch_u16(struct kprof_buf *b, unsigned long pos, u16 val);
bool kprof_buffer_shrink(struct kprof_buf *b, unsigned long end,
			 unsigned long new_end);
void kprof_buffer_wakeup(struct kprof_buf *b);
void kprof_buffer_end(struct kprof_buf *b);
bool kprof_buffer_output(struct kprof_cpu *c, const void *rec, u32 size,
			 u64 time);
bool kprof_buffer_flush_lost(struct kprof_cpu *c);
void kprof_buffer_set_flags(struct kprof_buf *b, u32 set, u32 clear);
bool kprof_bufs_readable(struct kprof_bufs *bufs, bool watermark);
ssize_t kprof_bufs_read(struct kprof_bufs *bufs, char __user *ubuf,
			size_t count);
int kprof_bufs_mmap(struct kprof_bufs *bufs, struct vm_area_struct *vma);

/* kprof_events.c */
int kprof_parse_event(const char *name, u32 *type, u64 *config);
int kprof_config_validate(const struct kprof_config *cfg);
void kprof_config_cpus(const struct kprof_config *cfg, struct cpumask *mask);
int kprof_events_init(void);
void kprof_events_exit(void);
int kprof_events_start(struct kprof_session *s, bool fresh,
		       const struct cred *cred, struct pid_namespace *pid_ns);
void kprof_events_stop(struct kprof_session *s);

/* kprof_ustack.c: the user registers and stack of DWARF call chains */
struct kprof_ustack {
	unsigned long	sp;	/* user stack pointer */
	u32		size;	/* bytes of data[]; 0: none, no dyn_size */
};

unsigned int kprof_ustack_regs(struct pt_regs *regs, u64 *out,
			       struct kprof_ustack *u);
u32 kprof_ustack_size(struct kprof_ustack *u, u32 other, unsigned long room,
		      u32 max_size);
void kprof_ustack_put(struct kprof_buf *b, unsigned long rec,
		      unsigned long pos, const struct kprof_ustack *u);

/* kprof_sample.c */
void kprof_overflow(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs);
void kprof_overflow_task(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs);

/* kprof_target.c */
int kprof_target_start(struct kprof_session *s);
void kprof_target_stop(struct kprof_session *s);

/* kprof_counters.c */
void kprof_counters_fill(struct kprof_counters *dst, struct kprof_cpu *c);
void kprof_counters_publish(struct kprof_cpu *c);
void kprof_counters_stats(struct kprof_session *s, unsigned int cpu,
			  struct kprof_cpu_stats *st);
void kprof_counters_clear_page(struct kprof_buf *b);
void kprof_counters_reset(struct kprof_cpu *c, bool fresh);
void kprof_limits_publish(struct kprof_buf *b);

/* kprof_throttle.c */
bool kprof_throttle_admit(struct kprof_cpu *c, struct perf_event *event,
			  u64 now, enum kprof_throttle_verdict *v,
			  bool *ktripped);
void kprof_throttle_feed(struct kprof_cpu *c, u64 cost_ns, u64 now);
void kprof_throttle_after(struct kprof_cpu *c, struct perf_event *event,
			  enum kprof_throttle_verdict v, bool ktripped, u64 now);
void kprof_throttle_end(struct kprof_cpu *c, struct perf_event *event);
int kprof_throttle_check_event(struct perf_event *event, u32 type);
void kprof_throttle_init_cpus(void);
void kprof_throttle_init(struct kprof_cpu *c);
void kprof_throttle_reset_cost(unsigned int cpu);
void kprof_throttle_reset(struct kprof_cpu *c);
void kprof_throttle_quiesce(struct kprof_cpu *c);

/* kprof_cdev.c */
int kprof_cdev_init(kgid_t group);
void kprof_cdev_exit(void);

/* kprof_knobs.c: which fields of a request kprof_knobs_set() writes */
#define KPROF_KNOB_SEMANTICS	BIT(0)
#define KPROF_KNOB_PERCENT	BIT(1)
#define KPROF_KNOB_RATE		BIT(2)
#define KPROF_KNOB_FLAGS	BIT(3)
int kprof_knobs_set(const struct kprof_throttle_config *t, u32 fields,
		    const struct kprof_file *f);
int kprof_knobs_init(void);
void kprof_knobs_exit(void);

#endif /* _KPROF_H */
