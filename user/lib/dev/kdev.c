// SPDX-License-Identifier: GPL-2.0
/*
 * kdev.c - the /dev/kprof control path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "lib/dev/kdev.h"
#include "lib/util/parse.h"
#include "lib/util/print.h"
#include "lib/dev/ring.h"

struct kdev {
	int fd;
	char *path;
	struct kprof_info info;
	struct ring **rings;	/* by CPU; NULL where the CPU has no region */
	void **maps;
	unsigned int nr;
	size_t stride;
	unsigned long long bytes;	/* of records handed to kdev__read()'s FN */
	int target_pid;		/* the configured KPROF_TARGET_TASK pid, 0: CPUs */
};

/* The first ABI version with one session per open file. */
#define KDEV_ABI_SESSIONS	5

struct kdev *kdev__open(const char *path)
{
	struct kdev *d = calloc(1, sizeof(*d));
	__u32 version = 0;

	if (!d)
		return NULL;
	d->path = strdup(path);
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		int e = errno;

		if (e == ENOENT || e == ENXIO || e == ENODEV)
			p_err("no %s: load the module first (insmod kmod/kprof.ko)", path);
		else if (e == EACCES || e == EPERM)
			p_err("%s: permission denied: kprof samples every task and the kernel, which needs CAP_PERFMON (as perf does for CPU-wide sampling), or membership of the group kprof.ko was loaded with (insmod kprof.ko group=GID)",
			      path);
		else if (e == EBUSY)
			p_err("%s is busy: another kprofcat is reading it", path);
		else
			p_err("cannot open %s: %s", path, strerror(e));
		goto fail;
	}
	if (ioctl(d->fd, KPROF_IOC_ABI_VERSION, &version)) {
		p_err("%s does not answer KPROF_IOC_ABI_VERSION (%s): is it a kprof device?",
		      path, strerror(errno));
		goto fail;
	}
	/*
	 * Version 4 and older have one session per machine, owned by the
	 * file that started it: another kprofcat's records could be in the
	 * buffers, and a second kprofcat gets EBUSY.  Refused, by name.
	 */
	if (version < KDEV_ABI_SESSIONS) {
		p_err("ABI mismatch: %s speaks kprof ABI version %u, an older kprof.ko with one profiling session per machine; kprofcat needs version %u (one session per open file): load the kprof.ko built from the same tree as kprofcat",
		      path, version, KPROF_ABI_VERSION);
		goto fail;
	}
	if (version < KPROF_ABI_VERSION) {
		p_err("ABI mismatch: %s speaks kprof ABI version %u, kprofcat was built for version %u: load the kprof.ko built from the same tree as kprofcat",
		      path, version, KPROF_ABI_VERSION);
		goto fail;
	}
	/*
	 * A newer module is fine if its control pages say it is compatible
	 * with us: checked for every CPU when mapping (ring__new).
	 */
	return d;
fail:
	kdev__close(d);
	return NULL;
}

static void unmap(struct kdev *d)
{
	unsigned int i;

	for (i = 0; i < d->nr; i++) {
		ring__free(d->rings[i]);
		if (d->maps[i])
			munmap(d->maps[i], d->stride);
	}
	free(d->rings);
	free(d->maps);
	d->rings = NULL;
	d->maps = NULL;
	d->nr = 0;
}

void kdev__close(struct kdev *d)
{
	if (!d)
		return;
	unmap(d);
	if (d->fd >= 0)
		close(d->fd);
	free(d->path);
	free(d);
}

static void event_error(const char *what, const char *event, int e)
{
	if (e == EOPNOTSUPP && !strcmp(what, "KPROF_IOC_SET_CONFIG"))
		p_err("event '%s' refused: kprof samples the CPU's core PMU (hardware, cache and raw events, cpu/.../) and cpu-clock or task-clock only; tracepoints, kprobes, uprobes, breakpoints, other software events and PMUs of a dynamic type are perf's (kprof.ko's kernel log names the PMU)",
		      event);
	else if (e == ENOENT || e == EOPNOTSUPP || e == ENODEV)
		p_err("event '%s' is not supported here (no PMU provides it): without a hardware PMU (e.g. under QEMU TCG) use a software event such as cpu-clock",
		      event);
	else if (e == EBUSY && !strcmp(what, "KPROF_IOC_START"))
		p_err("%s: kprof is busy: as many sessions as kprof.ko's max_sessions limit are recording (see /sys/module/kprof/parameters/max_sessions and 'dmesg'): wait for one to stop, or have root raise the limit",
		      what);
	else if (e == EBUSY)
		p_err("%s: kprof is busy: this session is running", what);
	else if (e == EPERM && !strcmp(what, "KPROF_IOC_SET_CONFIG"))
		p_err("%s: the buffers exceed your locked-memory allowance (kprof.ko's mlock_kb per CPU, then RLIMIT_MEMLOCK): use fewer --buffer-pages or CPUs, or raise 'ulimit -l'",
		      what);
	else if (e == EACCES || e == EPERM)
		p_err("%s: permission denied for event '%s': the PMU driver refused it (%s)",
		      what, event, strerror(e));
	else if (e == E2BIG)
		p_err("%s: the module is older than kprofcat and rejects fields it does not know: load the kprof.ko built with this kprofcat",
		      what);
	else if (e == EINVAL)
		p_err("%s: the module rejected the configuration of '%s' (EINVAL) although it passed kprofcat's checks of -F, -C, --buffer-pages and --watermark against the module's limits: see 'dmesg', and report it",
		      what, event);
	else
		p_err("%s failed for event '%s': %s", what, event, strerror(e));
}

static int map_all(struct kdev *d)
{
	unsigned int cpu;

	d->info.size = sizeof(d->info);
	if (ioctl(d->fd, KPROF_IOC_GET_INFO, &d->info)) {
		p_err("KPROF_IOC_GET_INFO on %s: %s", d->path, strerror(errno));
		return -errno;
	}
	if (d->info.nr_cpu_ids > KPROF_MAX_CPUS || !d->info.mmap_stride) {
		p_err("%s reports an impossible layout (%u CPUs, stride %llu)", d->path,
		      d->info.nr_cpu_ids, (unsigned long long)d->info.mmap_stride);
		return -EINVAL;
	}
	d->nr = d->info.nr_cpu_ids;
	d->stride = d->info.mmap_stride;
	d->rings = calloc(d->nr, sizeof(*d->rings));
	d->maps = calloc(d->nr, sizeof(*d->maps));
	if (!d->rings || !d->maps)
		return -ENOMEM;
	for (cpu = 0; cpu < d->nr; cpu++) {
		void *m = mmap(NULL, d->stride, PROT_READ | PROT_WRITE, MAP_SHARED, d->fd,
			       (off_t)cpu * d->stride);

		if (m == MAP_FAILED) {
			if (errno == ENODEV)
				continue;	/* not a possible CPU */
			p_err("mapping the buffer of CPU %u of %s: %s", cpu, d->path,
			      strerror(errno));
			return -errno;
		}
		d->maps[cpu] = m;
		d->rings[cpu] = ring__new(m, d->stride);
		if (!d->rings[cpu])
			return -errno;
	}
	return 0;
}

/*
 * The highest -F that SET_CONFIG and perf_event_open() accept: the lower
 * of kprof's own max_sample_rate (GET_THROTTLE, which the module checks)
 * and kernel.perf_event_max_sample_rate, which the module cannot read (the
 * kernel does not export it).
 */
int kdev__max_freq(struct kdev *d, unsigned long long *max, const char **knob)
{
	struct kprof_throttle_config t = { .size = sizeof(t) };
	unsigned long long krate = 0;
	FILE *f;

	if (ioctl(d->fd, KPROF_IOC_GET_THROTTLE, &t)) {
		p_err("KPROF_IOC_GET_THROTTLE on %s: %s", d->path, strerror(errno));
		return -errno;
	}
	*max = t.max_sample_rate;
	*knob = "/sys/module/kprof/parameters/max_sample_rate (kprofcat --max-sample-rate)";
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (!f)
		return 0;	/* no perf sysctls: nothing to compare */
	if (fscanf(f, "%llu", &krate) == 1 && krate < *max) {
		*max = krate;
		*knob = "/proc/sys/kernel/perf_event_max_sample_rate";
	}
	fclose(f);
	return 0;
}

int kdev__knobs(struct kdev *d, struct kprof_throttle_config *t)
{
	memset(t, 0, sizeof(*t));
	t->size = sizeof(*t);
	if (ioctl(d->fd, KPROF_IOC_GET_THROTTLE, t)) {
		p_err("KPROF_IOC_GET_THROTTLE on %s: %s", d->path, strerror(errno));
		return -errno;
	}
	return 0;
}

/*
 * The CPUs that exist here, as the kernel says (cpu_possible_mask), of the
 * KPROF_MAX_CPUS a config can name.  Where the file cannot tell (missing,
 * unreadable, or listing CPUs a config cannot name), the module decides.
 */
static int cpu_possible(unsigned int cpu)
{
	__u64 possible[KPROF_MAX_CPUS / 64];
	char buf[4096];
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f)
		return 1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return 1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	if (parse__cpu_list(buf, possible, KPROF_MAX_CPUS))
		return 1;
	return !!(possible[cpu / 64] & (1ULL << (cpu % 64)));
}

/*
 * What kprof_config_validate() would refuse, named with the module's own
 * limits (GET_INFO, the UAPI's constants), before SET_CONFIG: -EINVAL
 * after a message naming the value, the limit and the fix.
 */
static int check_config(struct kdev *d, const struct kprof_config *c)
{
	struct kprof_info info = { .size = sizeof(info) };
	unsigned long long data_size;
	unsigned int cpu;

	if (ioctl(d->fd, KPROF_IOC_GET_INFO, &info)) {
		p_err("KPROF_IOC_GET_INFO on %s: %s", d->path, strerror(errno));
		return -errno;
	}
	for (cpu = 0; cpu < KPROF_MAX_CPUS; cpu++) {
		if (!(c->cpumask[cpu / 64] & (1ULL << (cpu % 64))))
			continue;
		if (cpu >= info.nr_cpu_ids || !cpu_possible(cpu)) {
			p_err("-C: CPU %u does not exist here: this kernel has CPUs 0 to %u (nr_cpu_ids %u, /sys/devices/system/cpu/possible): pick CPUs from that range",
			      cpu, info.nr_cpu_ids - 1, info.nr_cpu_ids);
			return -EINVAL;
		}
	}
	if (c->buffer_pages > KPROF_MAX_BUFFER_PAGES) {
		p_err("--buffer-pages %u is above kprof.ko's limit of %u pages per CPU: use at most %u",
		      c->buffer_pages, KPROF_MAX_BUFFER_PAGES, KPROF_MAX_BUFFER_PAGES);
		return -EINVAL;
	}
	data_size = (unsigned long long)c->buffer_pages * info.page_size;
	if (c->watermark > data_size) {
		p_err("--watermark %u is above the %llu-byte buffer (--buffer-pages %u of %u bytes), the module's limit: use at most %llu (above half, %llu, acts as half), or more --buffer-pages",
		      c->watermark, data_size, c->buffer_pages, info.page_size, data_size,
		      data_size / 2);
		return -EINVAL;
	}
	return 0;
}

int kdev__configure(struct kdev *d, const struct kprof_config *c, const char *event)
{
	int ret;

	ret = check_config(d, c);
	if (ret)
		return ret;
	/* New buffer sizes cannot be set under a mapping. */
	unmap(d);
	if (ioctl(d->fd, KPROF_IOC_SET_CONFIG, c)) {
		if (errno == EINVAL && c->target_flags)
			p_err("KPROF_IOC_SET_CONFIG: the module rejected target_pid %d (target_flags %#x): a per-task session needs a pid above 0 and no -C CPUs",
			      c->target_pid, c->target_flags);
		else
			event_error("KPROF_IOC_SET_CONFIG", event, errno);
		return -errno;
	}
	d->target_pid = (c->target_flags & KPROF_TARGET_TASK) ? c->target_pid : 0;
	ret = map_all(d);
	if (ret)
		unmap(d);
	return ret;
}

int kdev__start(struct kdev *d, const char *event)
{
	if (ioctl(d->fd, KPROF_IOC_START)) {
		if (d->target_pid && errno == ESRCH)
			p_err("KPROF_IOC_START: target_pid %d: no such process (it exited, or is not in the pid namespace /dev/kprof was opened in)",
			      d->target_pid);
		else if (d->target_pid && errno == EACCES)
			p_err("KPROF_IOC_START: target_pid %d: permission denied: sampling a process needs ptrace read access to it, as perf_event_open() requires of a per-task event (the same user and a process that did not change its ids, or CAP_SYS_PTRACE); kprof.ko's group= grant does not extend to other users' processes",
			      d->target_pid);
		/* SET_CONFIG took kprof's fields: the PMU's event_init refused. */
		else if (errno == EINVAL)
			p_err("KPROF_IOC_START: the PMU refused event '%s' (EINVAL from its event_init: check its config terms)",
			      event);
		else if (errno == EOPNOTSUPP)
			p_err("KPROF_IOC_START: event '%s' refused (%s): no PMU here can count it (under QEMU TCG use cpu-clock), or kprof cannot throttle it safely (AMD IBS, where a precise hardware event goes, with -F: use -c); kprof.ko's kernel log names the reason",
			      event, strerror(errno));
		else
			event_error("KPROF_IOC_START", event, errno);
		return -errno;
	}
	return 0;
}

int kdev__stop(struct kdev *d)
{
	if (ioctl(d->fd, KPROF_IOC_STOP)) {
		p_err("KPROF_IOC_STOP: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

int kdev__fd(const struct kdev *d)
{
	return d->fd;
}

unsigned int kdev__nr_cpus(const struct kdev *d)
{
	return d->nr;
}

int kdev__read(struct kdev *d, kdev_record_fn fn, void *ctx)
{
	unsigned int cpu;
	int ret = 0;

	for (cpu = 0; cpu < d->nr && !ret; cpu++) {
		struct ring *r = d->rings[cpu];
		const void *rec;
		size_t len;
		int err;

		if (!r)
			continue;
		err = ring__read_init(r);
		if (err == -EAGAIN)
			continue;
		while (!err && (err = ring__read_event(r, &rec, &len)) == 0) {
			ret = fn(ctx, cpu, rec, len);
			d->bytes += len;
			if (ret == -EBADMSG) {
				p_warn("CPU %u: malformed record of type %u (size %zu) skipped",
				       cpu, *(const __u32 *)rec, len);
				ret = 0;
			}
			if (ret)
				break;
			ring__consume(r);
		}
		if (err == -EBADMSG)
			p_warn("CPU %u: record with an impossible size in the buffer: dropping the rest of what the kernel published",
			       cpu);
		ring__read_done(r);
	}
	return ret;
}

int kdev__read_spans(struct kdev *d, kdev_span_fn fn, void *ctx)
{
	unsigned int cpu;
	int ret = 0;

	for (cpu = 0; cpu < d->nr && !ret; cpu++) {
		struct ring *r = d->rings[cpu];
		const void *p1, *p2;
		size_t n1, n2;
		int err;

		if (!r)
			continue;
		err = ring__read_init(r);
		if (err == -EAGAIN)
			continue;
		if (!err)
			err = ring__read_span(r, &p1, &n1, &p2, &n2);
		if (!err) {
			ret = fn(ctx, cpu, p1, n1, p2, n2);
			d->bytes += n1 + n2;
			/* -EAGAIN, or -EBADMSG where a bad record ended the span */
			err = ring__read_span(r, &p1, &n1, &p2, &n2);
		}
		if (err == -EBADMSG)
			p_warn("CPU %u: record with an impossible size in the buffer: dropping the rest of what the kernel published",
			       cpu);
		ring__read_done(r);
	}
	return ret;
}

int kdev__stats(struct kdev *d, unsigned int cpu, struct kprof_cpu_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->cpu = cpu;
	if (ioctl(d->fd, KPROF_IOC_GET_STATS, out)) {
		int e = errno;

		memset(out, 0, sizeof(*out));
		return -e;
	}
	return 0;
}

void kdev__totals(const struct kdev *d, unsigned long long *samples,
		  unsigned long long *lost, unsigned long long *throttled)
{
	unsigned int cpu;

	*samples = *lost = *throttled = 0;
	for (cpu = 0; cpu < d->nr; cpu++) {
		struct kprof_counters c;
		__u64 avg_ns;

		if (!d->rings[cpu])
			continue;
		/* One publication's counters: samples + lost is overflows. */
		ring__counters(d->rings[cpu], &c, &avg_ns);
		*samples += c.samples;
		*lost += c.lost_full + c.lost_nested + c.lost_stopped +
			 c.lost_throttled;
		/* Throttled ticks, each once whichever limit(s) tripped. */
		*throttled += c.throttles;
	}
}

unsigned long long kdev__bad_sizes(const struct kdev *d)
{
	unsigned long long n = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < d->nr; cpu++)
		if (d->rings[cpu])
			n += ring__bad_records(d->rings[cpu]);
	return n;
}

unsigned long long kdev__discarded(const struct kdev *d)
{
	unsigned long long n = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < d->nr; cpu++)
		if (d->rings[cpu])
			n += ring__discarded_bytes(d->rings[cpu]);
	return n;
}

unsigned long long kdev__bytes(const struct kdev *d)
{
	return d->bytes;
}
