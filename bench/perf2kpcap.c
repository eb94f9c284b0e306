// SPDX-License-Identifier: GPL-2.0
/*
 * perf2kpcap: turn a perf.data into a kprofcat capture holding the same
 * samples, so bench/run can time `kprofcat -i` and `perf script` on the
 * same input.
 *
 *   perf report -D -i perf.data | perf2kpcap [-k KALLSYMS] [-e EVENT] OUT.kpcap
 *
 * Reads perf's raw dump (perf report -D) of a recording made with
 * --sample-cpu and -g (frame-pointer call chains) or --call-graph dwarf:
 * each PERF_RECORD_SAMPLE
 * becomes a KPROF_RECORD_SAMPLE with the same time, CPU, pid/tid, comm,
 * IP, period and call chain (perf's PERF_CONTEXT_KERNEL/USER markers split
 * it into kprof's kernel and user chains) and, from a DWARF recording,
 * the user registers and stack snapshot (KPROF_MISC_STACK_USER); MMAP2
 * and FORK records become
 * the capture's process events, so user frames symbolize through the same
 * ELF files; KALLSYMS (default /proc/kallsyms) is the kernel symbol
 * snapshot.  EVENT (default cpu-clock) names the recorded event in the
 * capture, as kprofcat's outputs show it: the dump does not say which it
 * was.  Prints "samples=N kernel_frames=K user_frames=U stacks=S" on
 * stdout (S: samples with a stack snapshot).
 *
 * The registers come from the dump's "user regs" lines, one per register
 * of the recorded mask, named as perf names PERF_REG_X86_*.  The stack
 * bytes are not printed as such: the "ustack: size DYN, offset 0xOFF" line
 * gives where, in the event, perf's STACK_USER part starts (its size
 * word), and -D prints every event whole in hex ("raw event" lines) just
 * before its parsed lines, so the bytes are read there, exactly as perf
 * parsed them.  That is sound: the dump is perf's own parse of perf.data
 * (its byte order, its sample_type offsets), and no other part of this
 * tool reads perf.data.
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "lib/capture/capture.h"
#include "lib/symbols/usyms.h"

#define PERF_CONTEXT_KERNEL	((uint64_t)-128)
#define PERF_CONTEXT_USER	((uint64_t)-512)
#define PERF_CONTEXT_MAX	((uint64_t)-4095)
#define MAX_FRAMES		(2 * KPROF_MAX_STACK)
#define MAX_CPUS		KPROF_MAX_CPUS
#define MAX_EVENT		65536
#define MAX_RECORD		65528	/* the largest multiple of 8 in a __u16 */

/* PERF_REG_X86_* names as perf report -D prints them, by bit number. */
static const char *const reg_names[] = {
	"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
	"DS", "ES", "FS", "GS", "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15",
};

struct pending {
	int valid;
	uint32_t cpu, pid, tid, user;
	uint64_t time, ip, period;
	uint16_t nr_kernel, nr_user;
	uint64_t kips[KPROF_MAX_STACK], uips[KPROF_MAX_STACK];
	int ctx;		/* 0 none, 1 kernel, 2 user */
	char comm[KPROF_COMM_LEN];
	int stack;		/* the DWARF tail: regs and stack below */
	uint64_t abi, regs[KPROF_REGS_USER_NR];
	uint64_t stack_size, stack_dyn;
	unsigned char stack_data[MAX_EVENT];
};

/* The current event's bytes, from -D's "raw event" hex lines. */
static unsigned char raw[MAX_EVENT];
static size_t raw_len;

/*
 * Records are gathered per CPU and written 256 KiB at a time, one RECORDS
 * section per CPU, as kprofcat's own captures hold them (it drains one
 * CPU's ring at a time): perf.data interleaves CPUs record by record.  A
 * buffer is written out before its oldest record is FLUSH_AGE_NS older
 * than the newest record seen, well inside the reader's 200 ms reordering
 * window, so a quiet CPU's records are never late.  Records of equal time
 * keep perf.data's order (perf script's, and the reader's for ties): a
 * buffer holding one with the time of the record at hand is written first.
 */
#define SECTION_BYTES	(256 * 1024)
#define MAX_RECS	(SECTION_BYTES / 8)
#define FLUSH_AGE_NS	(50 * 1000000ULL)

struct cpubuf {
	unsigned char *buf;
	size_t len;
	uint64_t first;		/* time of its oldest record */
	uint64_t *times;	/* of its records, in order */
	size_t nr;
	int sorted;		/* TIMES ascending */
};

static uint64_t newest;
static uint32_t cpus_seen;	/* highest CPU + 1 */

static struct capture_writer *cap;
static struct cpubuf cpubufs[MAX_CPUS];
static uint64_t seq[MAX_CPUS];
static unsigned long long nr_samples, nr_kframes, nr_uframes, nr_stacks;

static void die(const char *msg)
{
	fprintf(stderr, "perf2kpcap: %s\n", msg);
	exit(1);
}

static void write_cpu(uint32_t cpu)
{
	struct cpubuf *b = &cpubufs[cpu];

	if (b->len && capture__write(cap, KPCAP_RECORDS, cpu, b->buf, b->len))
		die("writing a record failed");
	b->len = 0;
	b->nr = 0;
	b->sorted = 1;
}

/* Whether B holds a record stamped T. */
static int holds_time(const struct cpubuf *b, uint64_t t)
{
	size_t lo = 0, hi = b->nr, i;

	if (!b->nr || (b->sorted && (t < b->times[0] || t > b->times[b->nr - 1])))
		return 0;
	if (!b->sorted) {
		for (i = 0; i < b->nr; i++)
			if (b->times[i] == t)
				return 1;
		return 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (b->times[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->nr && b->times[lo] == t;
}

static void put_record(uint32_t cpu, uint64_t time, const void *rec, size_t size)
{
	struct cpubuf *b = &cpubufs[cpu];
	uint32_t i;

	if (!b->buf) {
		b->buf = malloc(SECTION_BYTES);
		b->times = malloc(MAX_RECS * sizeof(*b->times));
		if (!b->buf || !b->times)
			die("out of memory");
		b->sorted = 1;
		if (cpu >= cpus_seen)
			cpus_seen = cpu + 1;
	}
	for (i = 0; i < cpus_seen; i++)
		if (i != cpu && holds_time(&cpubufs[i], time))
			write_cpu(i);
	if (b->len + size > SECTION_BYTES)
		write_cpu(cpu);
	if (!b->len)
		b->first = time;
	if (b->nr && time < b->times[b->nr - 1])
		b->sorted = 0;
	b->times[b->nr++] = time;
	memcpy(b->buf + b->len, rec, size);
	b->len += size;
	if (time > newest)
		newest = time;
	for (i = 0; i < cpus_seen; i++)
		if (cpubufs[i].len && cpubufs[i].first + FLUSH_AGE_NS < newest)
			write_cpu(i);
}

static void flush_cpus(void)
{
	uint32_t cpu;

	for (cpu = 0; cpu < cpus_seen; cpu++) {
		write_cpu(cpu);
		free(cpubufs[cpu].buf);
		free(cpubufs[cpu].times);
		cpubufs[cpu].buf = NULL;
	}
}

/*
 * The DWARF tail after the frames at OUT (kprof.h); returns its bytes.
 * The stack is cut as perf cuts it, to a record of at most MAX_RECORD
 * bytes (FIXED: the bytes before the tail).
 */
static size_t put_stack(const struct pending *p, unsigned char *out, size_t fixed)
{
	uint64_t size = p->stack_size, dyn = p->stack_dyn, *w = (uint64_t *)out;
	size_t nregs = p->abi ? KPROF_REGS_USER_NR : 0;
	size_t head = fixed + (1 + nregs + 2) * 8;

	if (size && head + size > MAX_RECORD)
		size = (MAX_RECORD - head) & ~7ULL;
	if (dyn > size)
		dyn = size;
	*w++ = p->abi;
	memcpy(w, p->regs, nregs * 8);
	w += nregs;
	*w++ = size;
	if (!size)
		return (w - (uint64_t *)out) * 8;
	memcpy(w, p->stack_data, dyn);
	memset((unsigned char *)w + dyn, 0, size - dyn);
	w += size / 8;
	*w++ = dyn;
	return (w - (uint64_t *)out) * 8;
}

static void flush(struct pending *p)
{
	static union {
		struct kprof_sample s;
		uint64_t w[MAX_RECORD / 8];
	} r;
	size_t size;

	if (!p->valid)
		return;
	p->valid = 0;
	if (p->cpu >= MAX_CPUS)
		die("CPU number out of range");
	memset(&r.s, 0, sizeof(r.s));
	size = sizeof(r.s) + (p->nr_kernel + p->nr_user) * 8;
	r.s.header.type = KPROF_RECORD_SAMPLE;
	r.s.header.misc = p->user ? KPROF_MISC_USER : 0;
	if (p->stack) {
		r.s.header.misc |= KPROF_MISC_STACK_USER;
		size += put_stack(p, (unsigned char *)r.w + size, size);
		nr_stacks++;
	}
	r.s.header.size = size;
	r.s.seq = ++seq[p->cpu];
	r.s.time = p->time;
	r.s.cpu = p->cpu;
	r.s.pid = p->pid;
	r.s.tid = p->tid;
	memcpy(r.s.comm, p->comm, sizeof(r.s.comm) - 1);
	r.s.ip = p->ip;
	r.s.period = p->period;
	r.s.nr_kernel = p->nr_kernel;
	r.s.nr_user = p->nr_user;
	memcpy(r.s.ips, p->kips, p->nr_kernel * 8);
	memcpy(r.s.ips + p->nr_kernel, p->uips, p->nr_user * 8);
	put_record(p->cpu, p->time, &r, size);
	nr_samples++;
	nr_kframes += p->nr_kernel;
	nr_uframes += p->nr_user;
}

/* "CPU TIME 0xOFF [0xSIZE]: PERF_RECORD_SAMPLE(IP, 0xMISC): PID/TID: 0xIP period: P addr: A" */
static void parse_sample(struct pending *p, const char *line)
{
	const char *s = strstr(line, "PERF_RECORD_SAMPLE(IP, ");
	unsigned int misc;

	memset(p, 0, offsetof(struct pending, stack_data));
	if (sscanf(line, "%" SCNu32 " %" SCNu64, &p->cpu, &p->time) != 2 ||
	    sscanf(s, "PERF_RECORD_SAMPLE(IP, %x): %" SCNu32 "/%" SCNu32 ": %" SCNx64
		   " period: %" SCNu64, &misc, &p->pid, &p->tid, &p->ip, &p->period) != 5) {
		fprintf(stderr, "perf2kpcap: cannot parse: %s", line);
		exit(1);
	}
	p->user = (misc & 7) == 2;	/* PERF_RECORD_MISC_USER */
	strcpy(p->comm, "unknown");
	p->valid = 1;
}

/* ".....  N: ADDR" */
static void parse_frame(struct pending *p, const char *line)
{
	const char *c = strchr(line, ':');
	uint64_t a;

	if (!p->valid || !c)
		return;
	a = strtoull(c + 1, NULL, 16);
	if (a == PERF_CONTEXT_KERNEL)
		p->ctx = 1;
	else if (a == PERF_CONTEXT_USER)
		p->ctx = 2;
	else if (a >= PERF_CONTEXT_MAX)
		return;
	else if (p->ctx == 1 && p->nr_kernel < KPROF_MAX_STACK)
		p->kips[p->nr_kernel++] = a;
	else if (p->ctx == 2 && p->nr_user < KPROF_MAX_STACK)
		p->uips[p->nr_user++] = a;
}

/* ". ... raw event: size N bytes" starts an event, ".  OFF:  XX XX ..." its bytes. */
static void parse_raw(const char *line)
{
	static size_t raw_total;
	unsigned int off, byte, i;
	const char *c;
	int n = 0;

	c = strstr(line, "raw event: size ");
	if (c) {
		raw_total = strtoul(c + 16, NULL, 10);
		if (raw_total > MAX_EVENT)
			die("an event larger than perf writes");
		raw_len = 0;
		return;
	}
	if (sscanf(line, ".  %x: %n", &off, &n) != 1 || !n || off != raw_len)
		return;
	/* "XX " per byte, 16 a line; the ASCII column after them. */
	for (c = line + n, i = 0; i < 16 && raw_len < raw_total; i++, c += 3) {
		if (sscanf(c, "%2x", &byte) != 1)
			die("cannot parse a raw event line");
		raw[raw_len++] = byte;
	}
}

/* "... user regs: mask 0xM ABI 64-bit" */
static void parse_regs_head(struct pending *p, const char *line)
{
	if (!p->valid)
		return;
	p->stack = 1;
	p->abi = strstr(line, "ABI 64-bit") ? KPROF_SAMPLE_REGS_ABI_64 :
		 KPROF_SAMPLE_REGS_ABI_NONE;
}

/* ".... NAME 0xVALUE": kept if NAME is one of KPROF_REGS_USER_MASK's. */
static void parse_reg(struct pending *p, const char *line)
{
	char name[8];
	uint64_t v;
	unsigned int bit, idx = 0;

	if (!p->valid || sscanf(line, ".... %7s %" SCNx64, name, &v) != 2)
		return;
	for (bit = 0; bit < sizeof(reg_names) / sizeof(reg_names[0]); bit++) {
		if (!(KPROF_REGS_USER_MASK & (1ULL << bit)))
			continue;
		if (!strcmp(name, reg_names[bit])) {
			p->regs[idx] = v;
			return;
		}
		idx++;
	}
}

/* "... ustack: size DYN, offset 0xOFF": the bytes from the raw event. */
static void parse_ustack(struct pending *p, const char *line)
{
	uint64_t dyn, size;
	unsigned int off;

	if (!p->valid || sscanf(line, "... ustack: size %" SCNu64 ", offset 0x%x", &dyn, &off) != 2)
		die("cannot parse a ustack line");
	p->stack = 1;
	if ((size_t)off + 8 > raw_len)
		die("the ustack offset is past the raw event (perf report -D without its hex?)");
	memcpy(&size, raw + off, 8);
	if (size && (size > MAX_EVENT || off + 16 + size > raw_len || dyn > size))
		die("the ustack sizes do not fit the raw event");
	p->stack_size = size;
	p->stack_dyn = size ? dyn : 0;
	memcpy(p->stack_data, raw + off + 8, p->stack_dyn);
}

/*
 * "CPU TIME 0xOFF [0xSIZE]: PERF_RECORD_MMAP2 PID/TID:
 *  [0xSTART(0xLEN) @ 0xPGOFF ...]: PROT PATH", one line
 */
static void parse_mmap2(const char *line)
{
	const char *s = strstr(line, "PERF_RECORD_MMAP2 "), *path;
	struct pev e = { .type = PEV_MMAP };
	unsigned int cpu, tid;
	char *nl;

	if (sscanf(line, "%u %" SCNu64, &cpu, &e.time) != 2 ||
	    sscanf(s, "PERF_RECORD_MMAP2 %" SCNu32 "/%u: [%" SCNx64 "(%" SCNx64 ") @ %" SCNx64,
		   &e.pid, &tid, &e.start, &e.len, &e.pgoff) != 5)
		return;
	path = strstr(s, "]: ");
	if (!path || !strstr(path, "x"))
		return;
	path = strchr(path + 3, ' ');
	if (!path)
		return;
	path++;
	nl = strchr(path, '\n');
	if (nl)
		*nl = '\0';
	/*
	 * Only executable mappings matter for symbols: "r-xp", and "rwxp",
	 * as node 20's V8 keeps its JIT code space (node 18's flips it to r-x).
	 */
	if (!strstr(s, "]: r-x") && !strstr(s, "]: --x") && !strstr(s, "]: rwx"))
		return;
	e.path = path;
	if (capture__write_pev(cap, &e))
		die("writing a process event failed");
}

/* "CPU TIME ... PERF_RECORD_FORK(CHILD:CTID):(PARENT:PTID)" */
static void parse_fork(const char *line)
{
	const char *s = strstr(line, "PERF_RECORD_FORK(");
	struct pev e = { .type = PEV_FORK };
	unsigned int cpu, ctid, ptid;

	if (sscanf(line, "%u %" SCNu64, &cpu, &e.time) != 2 ||
	    sscanf(s, "PERF_RECORD_FORK(%" SCNu32 ":%u):(%" SCNu32 ":%u)",
		   &e.pid, &ctid, &e.ppid, &ptid) != 4)
		return;
	if (e.pid != ctid)	/* a thread, not a process */
		return;
	if (capture__write_pev(cap, &e))
		die("writing a process event failed");
}

static char *slurp(const char *path, size_t *len)
{
	size_t cap_ = 1 << 20, n = 0, r;
	char *buf = malloc(cap_);
	FILE *f = fopen(path, "r");

	if (!f || !buf)
		return NULL;
	while ((r = fread(buf + n, 1, cap_ - n, f)) > 0) {
		n += r;
		if (n == cap_) {
			cap_ *= 2;
			buf = realloc(buf, cap_);
			if (!buf)
				return NULL;
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

int main(int argc, char **argv)
{
	const char *kallsyms = "/proc/kallsyms", *event = "cpu-clock", *outp;
	struct pending *p = calloc(1, sizeof(*p));
	char *line = NULL, *ks, meta[256];
	size_t cap_len = 0, klen;
	ssize_t n;
	int c, mlen, bad = 0;

	while ((c = getopt(argc, argv, "k:e:")) != -1) {
		if (c == 'k')
			kallsyms = optarg;
		else if (c == 'e')
			event = optarg;
		else
			bad = 1;
	}
	mlen = snprintf(meta, sizeof(meta),
			"event=%s\ncommand=perf2kpcap (converted from perf.data)\n", event);
	if (bad || optind != argc - 1 || strchr(event, '\n') || mlen >= (int)sizeof(meta)) {
		fprintf(stderr,
			"usage: perf report -D -i perf.data | perf2kpcap [-k KALLSYMS] [-e EVENT] OUT\n");
		return 2;
	}
	outp = argv[optind];
	if (!p)
		die("out of memory");
	ks = slurp(kallsyms, &klen);
	if (!ks) {
		fprintf(stderr, "perf2kpcap: %s: %s\n", kallsyms, strerror(errno));
		return 1;
	}
	cap = capture__create(outp);
	if (!cap)
		return 1;
	if (capture__write(cap, KPCAP_META, 0, meta, mlen) ||
	    capture__write(cap, KPCAP_KALLSYMS, 0, ks, klen))
		die("writing the header sections failed");
	free(ks);

	while ((n = getline(&line, &cap_len, stdin)) > 0) {
		if (!strncmp(line, "..... ", 6)) {	/* ".....  N: ADDR" */
			parse_frame(p, line);
			continue;
		}
		if (!strncmp(line, ".  ", 3) || !strncmp(line, ". ... raw event: ", 17)) {
			parse_raw(line);
			continue;
		}
		if (!strncmp(line, ".... ", 5)) {
			parse_reg(p, line);
			continue;
		}
		if (!strncmp(line, "... user regs: ", 15)) {
			parse_regs_head(p, line);
			continue;
		}
		if (!strncmp(line, "... ustack: ", 12)) {
			parse_ustack(p, line);
			continue;
		}
		if (!strncmp(line, " ... thread: ", 13)) {	/* COMM:TID */
			char *c = line + 13, *e = strrchr(c, ':');

			if (p->valid && e) {
				*e = '\0';
				snprintf(p->comm, sizeof(p->comm), "%s", c);
			}
			continue;
		}
		if (line[0] < '0' || line[0] > '9')
			continue;
		if (strstr(line, "PERF_RECORD_SAMPLE(")) {
			flush(p);
			parse_sample(p, line);
		} else if (strstr(line, "PERF_RECORD_MMAP2 ")) {
			flush(p);
			parse_mmap2(line);
		} else if (strstr(line, "PERF_RECORD_FORK(")) {
			flush(p);
			parse_fork(line);
		}
	}
	flush(p);
	flush_cpus();
	free(line);
	if (capture__close(cap))
		return 1;
	printf("samples=%llu kernel_frames=%llu user_frames=%llu stacks=%llu\n",
	       nr_samples, nr_kframes, nr_uframes, nr_stacks);
	return 0;
}
