// SPDX-License-Identifier: GPL-2.0
/*
 * sideband.c - side-band process history for user-space symbolization.
 *
 * The dummy event's ring buffer is read like any perf ring buffer (tools/
 * lib/perf/mmap.c): acquire-load data_head, copy out records that wrap,
 * release-store data_tail.  With sample_id_all and TID|TIME, every record
 * ends with {u32 pid, tid; u64 time}.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <linux/perf_event.h>

#include "lib/util/print.h"
#include "lib/stream/sideband.h"

#define SB_DATA_PAGES	64

struct sb_ring {
	int fd;
	int hup;	/* its task is gone: poll() would report it for good */
	struct perf_event_mmap_page *pg;
	unsigned char *data;
	uint64_t size;
};

struct sideband {
	struct sb_ring *rings;
	int nr;
	size_t map_len;
	uint64_t lost;
	unsigned char scratch[1 << 16];
};

struct sb_id {
	uint32_t pid, tid;
	uint64_t time;
};

static int sb_open_one(struct sideband *sb, int pid, int cpu, int inherit, int *err)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.mmap = 1,
		.mmap2 = 1,
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.build_id = 1,
		.inherit = inherit,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.watermark = 1,
		.wakeup_watermark = 1,
	};
	struct sb_ring *r = &sb->rings[sb->nr];
	void *map;
	int fd;

	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL) {
		attr.build_id = 0;	/* before 5.12 */
		fd = syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	map = mmap(NULL, sb->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		*err = errno;
		close(fd);
		return -1;
	}
	r->fd = fd;
	r->pg = map;
	r->data = (unsigned char *)map + r->pg->data_offset;
	r->size = r->pg->data_size;
	sb->nr++;
	return 0;
}

struct sideband *sideband__open(int pid)
{
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	struct sideband *sb = calloc(1, sizeof(*sb));
	int cpu, err = 0;

	if (!sb || ncpu < 1)
		goto fail;
	sb->rings = calloc(ncpu, sizeof(*sb->rings));
	if (!sb->rings)
		goto fail;
	sb->map_len = (SB_DATA_PAGES + 1) * sysconf(_SC_PAGESIZE);
	/*
	 * One event per CPU, also for a task: perf refuses to mmap an
	 * inherited per-task (cpu == -1) event, as perf record knows.
	 */
	for (cpu = 0; cpu < ncpu; cpu++)
		if (sb_open_one(sb, pid, cpu, pid >= 0, &err) && err != ENODEV)
			goto fail;
	if (sb->nr)
		return sb;
fail:
	p_warn("no side-band process history (perf_event_open: %s%s): processes that exit before kprofcat reads their /proc/PID/maps will show [unknown] frames",
	       err ? strerror(err) : "out of memory",
	       err == EACCES || err == EPERM ?
	       "; lower kernel.perf_event_paranoid or run as root" : "");
	sideband__close(sb);
	return NULL;
}

void sideband__close(struct sideband *sb)
{
	int i;

	if (!sb)
		return;
	for (i = 0; i < sb->nr; i++) {
		munmap(sb->rings[i].pg, sb->map_len);
		close(sb->rings[i].fd);
	}
	free(sb->rings);
	free(sb);
}

int sideband__pollfds(const struct sideband *sb, struct pollfd *pfds, int max)
{
	int i, n = 0;

	for (i = 0; sb && i < sb->nr && n < max; i++) {
		if (sb->rings[i].hup)
			continue;
		pfds[n].fd = sb->rings[i].fd;
		pfds[n].events = POLLIN;
		pfds[n++].revents = 0;
	}
	return n;
}

void sideband__hangups(struct sideband *sb, const struct pollfd *pfds, int n)
{
	int i, j;

	for (i = 0; sb && i < n; i++) {
		if (!(pfds[i].revents & POLLHUP))
			continue;
		for (j = 0; j < sb->nr; j++)
			if (sb->rings[j].fd == pfds[i].fd)
				sb->rings[j].hup = 1;
	}
}

uint64_t sideband__lost(const struct sideband *sb)
{
	return sb ? sb->lost : 0;
}

static int sb_record(struct sideband *sb, const struct perf_event_header *h, pev_fn fn, void *ctx)
{
	const unsigned char *p = (const unsigned char *)h;
	struct sb_id id;
	struct pev e = { 0 };

	if (h->size < sizeof(*h) + sizeof(id))
		return 0;
	memcpy(&id, p + h->size - sizeof(id), sizeof(id));
	e.time = id.time;
	switch (h->type) {
	case PERF_RECORD_MMAP2: {
		const struct {
			struct perf_event_header h;
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint8_t bid_size, r1;
			uint16_t r2;
			uint8_t bid[20];
			uint32_t prot, flags;
			char filename[];
		} *m = (const void *)p;
		size_t max = h->size - sizeof(id) - sizeof(*m);

		if (h->size < sizeof(*m) + sizeof(id) || !memchr(m->filename, 0, max))
			return 0;
		e.type = PEV_MMAP;
		e.pid = m->pid;
		e.start = m->addr;
		e.len = m->len;
		e.pgoff = m->pgoff;
		e.path = m->filename;
		if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && m->bid_size <= 20) {
			e.bid_len = m->bid_size;
			memcpy(e.build_id, m->bid, m->bid_size);
		}
		return fn(ctx, &e);
	}
	case PERF_RECORD_COMM:
		if (!(h->misc & PERF_RECORD_MISC_COMM_EXEC))
			return 0;
		e.type = PEV_EXEC;
		memcpy(&e.pid, p + sizeof(*h), sizeof(e.pid));
		return fn(ctx, &e);
	case PERF_RECORD_FORK: {
		uint32_t ids[4];	/* pid, ppid, tid, ptid */

		memcpy(ids, p + sizeof(*h), sizeof(ids));
		if (ids[0] == ids[1])
			return 0;	/* a new thread, not a new process */
		e.type = PEV_FORK;
		e.pid = ids[0];
		e.ppid = ids[1];
		return fn(ctx, &e);
	}
	case PERF_RECORD_LOST: {
		uint64_t lost;

		memcpy(&lost, p + sizeof(*h) + 8, sizeof(lost));
		sb->lost += lost;
		return 0;
	}
	}
	return 0;
}

struct pending {
	struct pev e;
	uint64_t order;
	char *path;
};

struct pending_list {
	struct pending *v;
	size_t nr, cap;
};

static int collect(void *ctx, const struct pev *e)
{
	struct pending_list *l = ctx;
	struct pending *p;

	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		p = realloc(l->v, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		l->v = p;
		l->cap = cap;
	}
	p = &l->v[l->nr];
	p->e = *e;
	p->order = l->nr;
	p->path = e->path ? strdup(e->path) : NULL;
	if (e->path && !p->path)
		return -ENOMEM;
	p->e.path = p->path;
	l->nr++;
	return 0;
}

static int pending_cmp(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->e.time != y->e.time)
		return x->e.time < y->e.time ? -1 : 1;
	return x->order < y->order ? -1 : 1;
}

static int read_ring(struct sideband *sb, struct sb_ring *r, pev_fn fn, void *ctx)
{
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail;
	int ret = 0;

	while (tail < head && !ret) {
		struct perf_event_header h;
		uint64_t off = tail & (r->size - 1);
		const void *rec;

		memcpy(&h, r->data + off, sizeof(h));	/* 8-byte aligned: never wraps */
		if (h.size < sizeof(h) || h.size > head - tail)
			break;
		if (off + h.size > r->size) {
			size_t first = r->size - off;

			memcpy(sb->scratch, r->data + off, first);
			memcpy(sb->scratch + first, r->data, h.size - first);
			rec = sb->scratch;
		} else {
			rec = r->data + off;
		}
		ret = sb_record(sb, rec, fn, ctx);
		tail += h.size;
	}
	/* A malformed header: drop what is there rather than spin. */
	if (tail < head && !ret)
		tail = head;
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
	return ret;
}

/*
 * Events of one process land in the rings of the CPUs it ran on (a fork
 * on one CPU, the child's exec and mmaps on another): pass them on in
 * time order, so a fork copies the parent's maps before the child's exec
 * replaces them.
 */
int sideband__read(struct sideband *sb, pev_fn fn, void *ctx)
{
	struct pending_list l = { 0 };
	size_t i;
	int ret = 0;

	for (i = 0; sb && i < (size_t)sb->nr && !ret; i++)
		ret = read_ring(sb, &sb->rings[i], collect, &l);
	if (!ret)
		qsort(l.v, l.nr, sizeof(*l.v), pending_cmp);
	for (i = 0; i < l.nr; i++) {
		if (!ret)
			ret = fn(ctx, &l.v[i].e);
		free(l.v[i].path);
	}
	free(l.v);
	return ret;
}

int sideband__snapshot_pid(uint32_t pid, uint64_t time, pev_fn fn, void *ctx)
{
	char path[64], *buf = NULL;
	size_t cap = 0;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* One read of the whole file: the process may be changing it. */
	{
		size_t len = 0, n;

		cap = 65536;
		buf = malloc(cap + 1);
		while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
			len += n;
			if (len == cap) {
				char *nb = realloc(buf, cap * 2 + 1);

				if (!nb) {
					free(buf);
					buf = NULL;
					break;
				}
				buf = nb;
				cap *= 2;
			}
		}
		if (buf)
			buf[len] = '\0';
	}
	fclose(f);
	if (!buf)
		return -ENOMEM;
	ret = usyms__parse_maps(pid, time, buf, fn, ctx);
	free(buf);
	return ret;
}

int sideband__snapshot_all(pev_fn fn, void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int ret = 0;

	if (!d)
		return -errno;
	while (!ret && (de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid)
			continue;
		ret = sideband__snapshot_pid(pid, 0, fn, ctx);
		if (ret == -ENOENT || ret == -EACCES || ret == -ESRCH)
			ret = 0;	/* gone, or not ours to read */
	}
	closedir(d);
	return ret;
}
