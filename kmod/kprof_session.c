// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_session.c - a profiling session: its configuration, its buffers
 * and its per-CPU producers (struct kprof_cpu, one per CPU and session,
 * each the target of one event's overflow handler), and the control
 * operations on it.
 *
 * Every open file of /dev/kprof has at most one session, created by its
 * first SET_CONFIG (with that configuration) or START (with the insmod
 * parameters'), and freed when the file is released.  Only that file
 * reaches it: its ioctls, mmap() and read() act on their own session, so
 * one file's records are never another's to read, and several sessions
 * may sample side by side, up to max_sessions of them at once.
 *
 * Locking: kprof.lock serializes the control path of every session and
 * protects kprof.sessions and the counts.  kprof.map_lock is what ->mmap
 * takes instead (it runs under mmap_lock, and kprof.lock is held while
 * START, STOP and GET_INFO take cpu_hotplug_lock, which perf core orders
 * before mmap_lock: cpu_hotplug_lock -> pmus_lock -> cpuctx_mutex, and
 * perf's ioctls copy to user under cpuctx_mutex; lockdep on the debug
 * kernel found mmap_lock -> kprof.lock -> cpu_hotplug_lock -> ... ->
 * mmap_lock when ->mmap took kprof.lock).  It is a leaf: taken inside
 * kprof.lock or mmap_lock, nothing under it.  A file's session pointer
 * and a session's buffer set change under both; either is enough to
 * read them.
 *
 * Everything here is allocated in process context, before any event of
 * the session exists, so the handler never allocates; it is freed only
 * once the session's events are released and their handlers, irq_works
 * and hrtimers waited for (kprof_events_stop()), and its buffers only
 * when the last mapping and read() drop them (struct kprof_bufs' kref).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "kprof.h"

/**
 * kprof_session_set_bufs() - make @bufs the session's buffer set
 * @s: the session, stopped
 * @bufs: the new set, or NULL to detach the current one
 *
 * Every producer of @s writes to its CPU's buffer of @bufs from the next
 * START on, and that buffer's reader wakeup finds its producer.
 *
 * Context: kprof.lock held, or @s not yet visible to anyone.
 * Return: the set it replaces, whose reference the caller drops once no
 * kprof_poll() can be looking at it (after synchronize_rcu()).
 */
struct kprof_bufs *kprof_session_set_bufs(struct kprof_session *s,
					  struct kprof_bufs *bufs)
{
	struct kprof_bufs *old = s->bufs;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kprof_cpu *c = per_cpu_ptr(s->pcpu, cpu);

		if (old)
			old->cpu[cpu].producer = NULL;
		c->buf = bufs ? &bufs->cpu[cpu] : NULL;
		if (bufs)
			bufs->cpu[cpu].producer = c;
	}
	/* The new set whole before kprof_poll() can load it. */
	smp_store_release(&s->bufs, bufs);
	return old;
}

/*
 * A stopped session with buffers for @cfg, a validated configuration.
 * The buffers are charged to the caller (kprof_bufs_alloc()).  Returns
 * the session or an ERR_PTR().
 */
static struct kprof_session *kprof_session_alloc(const struct kprof_config *cfg)
{
	struct kprof_session *s;
	struct kprof_bufs *bufs;
	unsigned int cpu;
	int ret = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->config = *cfg;
	mutex_init(&s->read_lock);
	init_waitqueue_head(&s->wq);
	if (!zalloc_cpumask_var(&s->cpus, GFP_KERNEL))
		goto free_session;
	kprof_config_cpus(cfg, s->cpus);

	s->pcpu = alloc_percpu(struct kprof_cpu);
	if (!s->pcpu)
		goto free_cpumask;
	for_each_possible_cpu(cpu) {
		struct kprof_cpu *c = per_cpu_ptr(s->pcpu, cpu);

		c->session = s;
		c->cpu = cpu;
		kprof_throttle_init(c);
	}

	bufs = kprof_bufs_alloc(cfg->buffer_pages, cfg->watermark, s->cpus);
	if (IS_ERR(bufs)) {
		ret = PTR_ERR(bufs);
		goto free_pcpu;
	}
	kprof_session_set_bufs(s, bufs);
	return s;

free_pcpu:
	free_percpu(s->pcpu);
free_cpumask:
	free_cpumask_var(s->cpus);
free_session:
	kfree(s);
	return ERR_PTR(ret);
}

/*
 * Free a stopped session @s, no event of it left; its buffers live on
 * while a mapping or a read() holds them.
 */
static void kprof_session_free(struct kprof_session *s)
{
	unsigned int cpu;

	/* Stopped sessions have none in flight; cheap to make sure. */
	for_each_possible_cpu(cpu)
		kprof_throttle_quiesce(per_cpu_ptr(s->pcpu, cpu));
	kprof_bufs_put(kprof_session_set_bufs(s, NULL));
	free_percpu(s->pcpu);
	free_cpumask_var(s->cpus);
	mutex_destroy(&s->read_lock);
	kfree(s);
}

/* @f's new session, from @cfg; kprof.lock held, @f has none. */
static struct kprof_session *kprof_session_create(struct kprof_file *f,
						  const struct kprof_config *cfg)
{
	struct kprof_session *s;

	lockdep_assert_held(&kprof.lock);
	s = kprof_session_alloc(cfg);
	if (IS_ERR(s))
		return s;
	list_add_tail(&s->node, &kprof.sessions);
	mutex_lock(&kprof.map_lock);
	/* Whole before kprof_poll() loads it without a lock. */
	smp_store_release(&f->session, s);
	mutex_unlock(&kprof.map_lock);
	return s;
}

/**
 * kprof_session_configure() - SET_CONFIG: configure the caller's session
 * @f: the caller's file
 * @cfg: the configuration, copied in whole, not yet validated
 *
 * Creates @f's session if it has none.  New buffers for other sizes or
 * more CPUs; for fewer, unless they are mapped: mapped pages cannot
 * change under the reader, and the CPUs dropped keep a buffer nothing
 * writes.
 *
 * Context: process context, kprof.lock not held.
 * Return: 0, -EBUSY while the session runs or for a new size under a
 * mapping, or the errno of the validation or allocation.
 */
int kprof_session_configure(struct kprof_file *f,
			    const struct kprof_config *cfg)
{
	struct kprof_bufs *bufs, *old = NULL;
	struct kprof_session *s;
	cpumask_var_t cpus;
	bool mapped;
	int ret;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;

	mutex_lock(&kprof.lock);
	s = f->session;
	if (s && s->running) {
		ret = -EBUSY;
		goto unlock;
	}
	ret = kprof_config_validate(cfg);
	if (ret)
		goto unlock;
	if (!s) {
		s = kprof_session_create(f, cfg);
		ret = PTR_ERR_OR_ZERO(s);
		goto unlock;
	}

	kprof_config_cpus(cfg, cpus);
	/* No mmap of the set being replaced, between the check and the swap. */
	mutex_lock(&kprof.map_lock);
	mapped = atomic_read(&s->bufs->mapped);
	if (cfg->buffer_pages != s->bufs->pages ||
	    !cpumask_subset(cpus, &s->bufs->cpus) ||
	    (!mapped && !cpumask_equal(cpus, &s->bufs->cpus))) {
		if (mapped) {
			ret = -EBUSY;
			goto unlock_map;
		}
		bufs = kprof_bufs_alloc(cfg->buffer_pages, cfg->watermark,
					cpus);
		if (IS_ERR(bufs)) {
			ret = PTR_ERR(bufs);
			goto unlock_map;
		}
		old = kprof_session_set_bufs(s, bufs);
	} else {
		kprof_bufs_set_watermark(s->bufs, cfg->watermark);
	}
	s->config = *cfg;
unlock_map:
	mutex_unlock(&kprof.map_lock);
unlock:
	mutex_unlock(&kprof.lock);
	free_cpumask_var(cpus);
	if (old) {
		/* kprof_poll() reads s->bufs in an RCU read-side section. */
		synchronize_rcu();
		kprof_bufs_put(old);
	}
	return ret;
}

/**
 * kprof_session_start() - START: start the caller's session
 * @f: the caller's file
 *
 * Creates @f's session from the insmod parameters' configuration if it
 * has none.  Its first START empties the buffers (the file may have
 * written their control pages); later ones carry on (data_head goes on,
 * and losses a STOP could not report become the new run's first, see
 * kprof_counters_reset()): its own reader may be draining them.
 *
 * Context: process context, kprof.lock not held.
 * Return: 0, -EBUSY if the session runs or max_sessions sessions do, or
 * the errno of creating the events.
 */
int kprof_session_start(struct kprof_file *f)
{
	struct kprof_session *s;
	uint max;
	int ret;

	mutex_lock(&kprof.lock);
	s = f->session ?: kprof_session_create(f, &kprof.defconfig);
	if (IS_ERR(s)) {
		ret = PTR_ERR(s);
		goto unlock;
	}
	ret = -EBUSY;
	if (s->running)
		goto unlock;
	max = READ_ONCE(kprof_max_sessions);
	if (kprof.nr_running >= max) {
		/* Any opener may ask: ratelimited. */
		pr_info_ratelimited("START refused: %u sessions sample already, the max_sessions limit (/sys/module/kprof/parameters/max_sessions)\n",
				    max);
		goto unlock;
	}
	if (!s->has_run) {
		/* No read() copies out meanwhile. */
		mutex_lock(&s->read_lock);
		kprof_bufs_reset(s->bufs);
		mutex_unlock(&s->read_lock);
	}
	/* Takes cpu_hotplug_lock: not under kprof.map_lock. */
	ret = kprof_events_start(s, !s->has_run, f->cred, f->pid_ns);
	if (!ret)
		s->has_run = true;
unlock:
	mutex_unlock(&kprof.lock);
	return ret;
}

static void kprof_session_stop_locked(struct kprof_session *s)
{
	lockdep_assert_held(&kprof.lock);
	if (s && s->running)
		kprof_events_stop(s);
}

/**
 * kprof_session_stop() - STOP: stop the caller's session, if it runs
 * @f: the caller's file
 *
 * Context: process context, kprof.lock not held.
 */
void kprof_session_stop(struct kprof_file *f)
{
	mutex_lock(&kprof.lock);
	kprof_session_stop_locked(f->session);
	mutex_unlock(&kprof.lock);
}

/**
 * kprof_session_release() - a file's last reference went: its session too
 * @f: the file; no mapping of it is left (each held it), no read() runs
 *
 * Stops the session and frees it; its records go with it, unread by
 * anyone else.
 *
 * Context: process context, kprof.lock not held.
 */
void kprof_session_release(struct kprof_file *f)
{
	struct kprof_session *s;

	mutex_lock(&kprof.lock);
	s = f->session;
	if (s) {
		kprof_session_stop_locked(s);
		list_del(&s->node);
		mutex_lock(&kprof.map_lock);
		f->session = NULL;
		mutex_unlock(&kprof.map_lock);
		kprof_session_free(s);
	}
	mutex_unlock(&kprof.lock);
}
