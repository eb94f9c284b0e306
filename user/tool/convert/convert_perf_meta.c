// SPDX-License-Identifier: GPL-2.0
/*
 * convert_perf_meta.c - what perf.data holds besides the records: MMAPs
 * for the kernel and its modules (from the capture's kallsyms: perf needs
 * a map to look a kernel address up) and the feature sections perf report
 * reads (BUILD_ID, HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CMDLINE,
 * EVENT_DESC; tools/perf/util/header.c writes and reads them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool/convert/convert_perf_meta.h"
#include "tool/convert/perf_out.h"
#include "lib/util/print.h"

/* perf's own (tools/perf/util/event.h): build_id_rec.size is valid */
#define PERF_RECORD_MISC_BUILD_ID_SIZE	(1 << 15)

struct build_id_rec {
	struct perf_event_header header;
	int32_t pid;
	uint8_t data[20];
	uint8_t size;
	uint8_t res1;
	uint16_t res2;
	/* char filename[], padded to NAME_ALIGN */
};

struct kmap {
	char name[64];		/* "" for the kernel itself */
	uint64_t start, end;
};

static int kmap_cmp(const void *a, const void *b)
{
	const struct kmap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The kernel's [_text, its highest symbol + a page) and each module's
 * [lowest, highest text symbol + a page), clipped at the next module.
 * Returns the count in *NR.
 */
static struct kmap *kallsyms_maps(const char *text, size_t len, size_t *nr)
{
	const char *p = text, *end = text + len;
	struct kmap *m = calloc(1, sizeof(*m)), *n;
	size_t cap = 1, i;

	if (!m)
		return NULL;
	*nr = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p);
		char line[512], name[256], mod[64];
		unsigned long long addr;
		size_t l = (nl ? nl : end) - p;
		char t;
		int k;

		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, p, l);
		line[l] = '\0';
		p = nl ? nl + 1 : end;
		mod[0] = '\0';
		k = sscanf(line, "%llx %c %255s [%63[^]]]", &addr, &t, name, mod);
		if (k < 3 || !addr)
			continue;
		if (k == 3) {
			/* kallsyms does not always list _end: the last symbol then. */
			if (!strcmp(name, "_text"))
				m[0].start = addr;
			if (addr + 4096 > m[0].end)
				m[0].end = addr + 4096;
			continue;
		}
		/*
		 * A module's map spans its text: its other symbols may be
		 * offsets in the per-CPU area ('a'), far below the module,
		 * and a map stretched down to one would cover the kernel's
		 * (perf takes maps as disjoint).
		 */
		if (t != 't' && t != 'T')
			continue;
		for (i = 1; i < *nr && strcmp(m[i].name, mod); i++)
			;
		if (i == *nr) {
			if (*nr == cap) {
				n = realloc(m, 2 * cap * sizeof(*m));
				if (!n) {
					free(m);
					return NULL;
				}
				m = n;
				cap *= 2;
			}
			memset(&m[i], 0, sizeof(m[i]));
			snprintf(m[i].name, sizeof(m[i].name), "%s", mod);
			m[i].start = addr;
			(*nr)++;
		}
		if (addr < m[i].start)
			m[i].start = addr;
		if (addr + 4096 > m[i].end)
			m[i].end = addr + 4096;
	}
	qsort(m + 1, *nr - 1, sizeof(*m), kmap_cmp);
	for (i = 1; i + 1 < *nr; i++)
		if (m[i].end > m[i + 1].start)
			m[i].end = m[i + 1].start;
	return m;
}

int perf_out__kernel_maps(struct perf_out *p)
{
	const struct convert_input *in = p->in;
	struct sample_id id = { .pid = HOST_PID, .tid = HOST_PID };
	struct { uint32_t pid, tid; uint64_t start, len, pgoff; } mm;
	struct kmap *m;
	size_t nr, i;
	char name[96];

	if (!in->kallsyms) {
		p_warn("capture %s has no kallsyms: kernel frames stay [unknown] in perf",
		       in->path);
		return 0;
	}
	m = kallsyms_maps(in->kallsyms, in->kallsyms_len, &nr);
	if (!m)
		return -ENOMEM;
	if (!m[0].start || m[0].end <= m[0].start) {
		p_warn("capture %s: kallsyms without _text (kptr_restrict?): kernel frames stay [unknown] in perf",
		       in->path);
		free(m);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		mm.pid = HOST_PID;
		mm.tid = 0;
		mm.start = m[i].start;
		mm.len = m[i].end - m[i].start;
		/* perf relocates kallsyms by the _text address in pgoff. */
		mm.pgoff = i ? 0 : m[0].start;
		if (i)
			snprintf(name, sizeof(name), "[%s]", m[i].name);
		else
			snprintf(name, sizeof(name), "[kernel.kallsyms]_text");
		perf_out__record(p, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL, &mm, sizeof(mm),
				 name, 8, &id);
	}
	free(m);
	return -p->err;
}

static void put_string(struct perf_out *p, const char *s)
{
	uint32_t len = align_up(strlen(s) + 1, NAME_ALIGN);

	perf_out__put(p, &len, sizeof(len));
	perf_out__put(p, s, strlen(s));
	perf_out__zeros(p, len - strlen(s));
}

static void feat_build_ids(struct perf_out *p)
{
	const struct convert_input *in = p->in;
	struct strmap *seen = strmap__new();
	size_t i;

	if (!seen) {
		p->err = ENOMEM;
		return;
	}
	for (i = 0; i < in->nr_pevs; i++) {
		const struct pev *e = &in->pevs[i];
		struct build_id_rec b = { .pid = (int32_t)HOST_PID };
		struct strmap_entry *s;
		size_t len;

		if (e->type != PEV_MMAP || !e->bid_len || !e->path || !*e->path)
			continue;
		s = strmap__get(seen, e->path, strlen(e->path));
		if (!s) {
			p->err = ENOMEM;
			break;
		}
		if (s->a++)
			continue;
		len = align_up(strlen(e->path) + 1, NAME_ALIGN);
		b.header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE;
		b.header.size = sizeof(b) + len;
		memcpy(b.data, e->build_id, e->bid_len);
		b.size = e->bid_len;
		perf_out__put(p, &b, sizeof(b));
		perf_out__put(p, e->path, strlen(e->path));
		perf_out__zeros(p, len - strlen(e->path));
	}
	strmap__free(seen);
}

static void feat_write(struct perf_out *p, int feat, int nr, char **cmdline)
{
	const struct convert_input *in = p->in;
	char buf[64];
	uint32_t u[2];
	int i;

	switch (feat) {
	case FEAT_BUILD_ID:
		feat_build_ids(p);
		break;
	case FEAT_HOSTNAME:
		put_string(p, in->hostname);
		break;
	case FEAT_OSRELEASE:
		put_string(p, in->release);
		break;
	case FEAT_VERSION:
		snprintf(buf, sizeof(buf), "kprofcat %s", KPROF_VERSION);
		put_string(p, buf);
		break;
	case FEAT_ARCH:
		/* kprof.ko is x86-64 only (kmod/kprof_nmi.c); records carry no arch. */
		put_string(p, "x86_64");
		break;
	case FEAT_NRCPUS:
		u[1] = in->nr_cpus > p->max_cpu + 1 ? in->nr_cpus : p->max_cpu + 1;
		u[0] = u[1];
		perf_out__put(p, u, sizeof(u));
		break;
	case FEAT_CMDLINE:
		u[0] = nr + 1;
		perf_out__put(p, u, sizeof(u[0]));
		put_string(p, "kprofcat");
		for (i = 0; i < nr; i++)
			put_string(p, cmdline[i]);
		break;
	case FEAT_EVENT_DESC:
		u[0] = 1;
		u[1] = sizeof(p->attr);
		perf_out__put(p, u, sizeof(u));
		perf_out__put(p, &p->attr, sizeof(p->attr));
		u[0] = 0;	/* ids: none (one event) */
		perf_out__put(p, u, sizeof(u[0]));
		put_string(p, in->event);
		break;
	}
}

static const int features[] = {
	FEAT_BUILD_ID, FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH,
	FEAT_NRCPUS, FEAT_CMDLINE, FEAT_EVENT_DESC,
};

#define NR_FEATURES	(sizeof(features) / sizeof(features[0]))

void perf_out__features(struct perf_out *p, struct file_header *h, int nr, char **cmdline)
{
	struct file_section sec[NR_FEATURES];
	long start = p->data_start + p->data_size;
	size_t i;

	/* The section table first, then the contents; the table is redone at the end. */
	memset(sec, 0, sizeof(sec));
	perf_out__put(p, sec, sizeof(sec));
	for (i = 0; i < NR_FEATURES; i++) {
		sec[i].offset = ftell(p->f);
		feat_write(p, features[i], nr, cmdline);
		sec[i].size = ftell(p->f) - sec[i].offset;
		h->features[features[i] / 64] |= 1ULL << (features[i] % 64);
	}
	if (!p->err && fseek(p->f, start, SEEK_SET))
		p->err = errno;
	perf_out__put(p, sec, sizeof(sec));
}
