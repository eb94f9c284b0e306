// SPDX-License-Identifier: GPL-2.0
/*
 * kprof_session.c - a profiling session's state: its configuration, its
 * buffers and its per-CPU producers (struct kprof_cpu, one per CPU and
 * session, each the target of one event's overflow handler).
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
#include <linux/percpu.h>
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

/**
 * kprof_session_alloc() - a stopped session with buffers for @cfg
 * @cfg: a validated configuration
 *
 * The buffers are charged to the caller (kprof_bufs_alloc()).
 *
 * Context: process context, may sleep.
 * Return: the session, or an ERR_PTR().
 */
struct kprof_session *kprof_session_alloc(const struct kprof_config *cfg)
{
	struct kprof_session *s;
	struct kprof_bufs *bufs;
	unsigned int cpu;
	int ret = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return ERR_PTR(-ENOMEM);
	s->config = *cfg;
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

/**
 * kprof_session_free() - free a stopped session
 * @s: the session; no event of it exists any more
 *
 * Its buffers live on while a mapping or a read() holds them.
 *
 * Context: process context, kprof.lock held or @s no longer visible.
 */
void kprof_session_free(struct kprof_session *s)
{
	unsigned int cpu;

	/* Stopped sessions have none in flight; cheap to make sure. */
	for_each_possible_cpu(cpu)
		kprof_throttle_quiesce(per_cpu_ptr(s->pcpu, cpu));
	kprof_bufs_put(kprof_session_set_bufs(s, NULL));
	free_percpu(s->pcpu);
	free_cpumask_var(s->cpus);
	kfree(s);
}
