// SPDX-License-Identifier: GPL-2.0
/*
 * capture_test: what -i makes of a damaged capture.  Each record field
 * kprof would never write (a CPU past the recorded count, frames that do
 * not fill the size, a kernel frame in user space, ...) is rejected and
 * counted on stderr while the good records around it print; a capture cut
 * short (the recording killed before END) yields every whole record before
 * the cut and says how much was lost; a capture without kallsyms says so;
 * -i's sample filters (-C, --tid, --comm, --user-only, --kernel-only) keep
 * what they name.  A sample's user registers and stack snapshot
 * (KPROF_MISC_STACK_USER) are accepted when they fill it as kprof.h lays
 * them out, and rejected, by the capture check and the decoder alike,
 * when their sizes disagree.  A capture larger than the reader's
 * read-ahead prints every record, with its ORDER section and without.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "expect.h"

#include "lib/capture/capture.h"
#include "lib/capture/capture_check.h"
#include "lib/capture/readahead.h"
#include "lib/stream/decode.h"
#include "lib/stream/output.h"
#include "lib/util/print.h"
#include "lib/stream/replay.h"
#include "lib/stream/session.h"
#include "synth.h"

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T do_syscall_64\n";

#define KIP	0xffffffff81001010ULL
#define UIP	0x401000ULL
#define NR_SAMPLES 40

/*
 * A capture of 2 CPUs (fixed period 1003009): NR_SAMPLES samples, odd
 * ones on CPU 1, every fourth in user mode, tid 1000 + i % 3, comm "a"
 * or "b" (i % 2), each with a kernel frame; then a LOST record on CPU 0.
 * PATCH, when set, edits sample BAD before it is written.
 */
struct synth_cap {
	int kallsyms;
	int bad;
	void (*patch)(struct kprof_sample *s);
};

static int write_capture(const char *path, const struct synth_cap *sc)
{
	static const char meta[] = "event=cpu-clock\nsample=1003009\nfreq=0\nnr_cpus=2\n";
	struct capture_writer *w = capture__create(path);
	unsigned char buf[256];
	uint64_t ips[2] = { KIP, UIP };
	size_t n;
	int i;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1))
		return -1;
	if (sc->kallsyms && capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (i = 0; i < NR_SAMPLES; i++) {
		int user = i % 4 == 0;
		struct kprof_sample *s = (void *)buf;

		n = synth_sample(buf, i + 1, 1000000000ULL + i * 1000, i % 2, 1000 + i % 3,
				 i % 2 ? "b" : "a", user ? KPROF_MISC_USER : 0,
				 user ? ips + 1 : ips, !user, user);
		s->tid = 1000 + i % 3;
		if (sc->patch && i == sc->bad)
			sc->patch(s);
		if (capture__add_record(w, i % 2, buf, n))
			return -1;
	}
	n = synth_lost(buf, 2000000000ULL, 5);
	if (capture__add_record(w, 0, buf, n))
		return -1;
	return capture__close(w);
}

struct replayed {
	char *out;
	char err[4096];
	int status;
	int samples;
};

/* Replay PATH as perf-script text, with stderr (the warnings) kept. */
static void replay(const char *path, const struct sample_filter *sf, struct replayed *r)
{
	char event[64] = "x", errpath[] = "/tmp/kprofcat-capture-err-XXXXXX";
	int saved = dup(2), fd = mkstemp(errpath);
	size_t len = 0;
	struct output *o;
	ssize_t n;
	FILE *f;
	char *p;

	r->out = NULL;
	f = open_memstream(&r->out, &len);
	o = output_script__new(f, event);
	fflush(stderr);
	dup2(fd, 2);
	p_set_quiet(0);
	r->status = record__replay_filtered(path, o, 0, sf, event, sizeof(event));
	p_set_quiet(1);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	output__free(o);
	fclose(f);
	n = pread(fd, r->err, sizeof(r->err) - 1, 0);
	r->err[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(errpath);
	r->samples = 0;
	for (p = r->out; (p = strstr(p, " cpu-clock: \n")); p++)
		r->samples++;
}

FIXTURE(cap) {
	char path[64];
};

FIXTURE_SETUP(cap)
{
	int fd;

	snprintf(self->path, sizeof(self->path), "/tmp/kprofcat-capture-XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_GE(fd, 0);
	close(fd);
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(cap)
{
	unlink(self->path);
}

static void bad_cpu(struct kprof_sample *s)
{
	s->cpu = 268435457;	/* 0x10000001: CPU 1 with one high bit flipped */
}

static void bad_cpu_of_other_buffer(struct kprof_sample *s)
{
	s->cpu ^= 1;
}

static void bad_frames(struct kprof_sample *s)
{
	s->nr_kernel = 3;	/* more frames than the size holds */
}

static void bad_kernel_frame(struct kprof_sample *s)
{
	s->ips[0] = 0x1000;
}

static void bad_pid(struct kprof_sample *s)
{
	s->pid = 0x10000001;
}

static void bad_period(struct kprof_sample *s)
{
	s->period = 0x100000000f4e01ULL;
}

static void bad_reserved(struct kprof_sample *s)
{
	s->header.misc |= 1U << 15;	/* no KPROF_MISC_* bit */
}

static void bad_comm(struct kprof_sample *s)
{
	memset(s->comm, 'x', sizeof(s->comm));
}

static void bad_ip_mode(struct kprof_sample *s)
{
	s->ip = 0x401000;	/* a kernel-mode sample at a user address */
}

static void bad_size(struct kprof_sample *s)
{
	s->header.size = 12;	/* not a multiple of 8: the section ends here */
}

FIXTURE(corrupt) {
	char path[64];
};

FIXTURE_SETUP(corrupt)
{
	int fd;

	snprintf(self->path, sizeof(self->path), "/tmp/kprofcat-capture-XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_GE(fd, 0);
	close(fd);
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(corrupt)
{
	unlink(self->path);
}

FIXTURE_VARIANT(corrupt) {
	void (*patch)(struct kprof_sample *s);
	const char *why;
	int lost;	/* samples lost with it */
};

FIXTURE_VARIANT_ADD(corrupt, cpu) {
	.patch = bad_cpu,
	.why = "CPU 268435457 in the buffer of CPU 1",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, cpu_of_other_buffer) {
	.patch = bad_cpu_of_other_buffer,
	.why = "CPU 0 in the buffer of CPU 1",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, frames) {
	.patch = bad_frames,
	.why = "3 kernel + 0 user frames do not fill its 88 bytes",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, kernel_frame) {
	.patch = bad_kernel_frame,
	.why = "kernel frame 0, 0x1000, is not a kernel address",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, pid) {
	.patch = bad_pid,
	.why = "pid 268435457 / tid 1002 beyond PID_MAX_LIMIT",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, period) {
	.patch = bad_period,
	.why = "period 4503599628373505, recorded with -c 1003009",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, reserved) {
	.patch = bad_reserved,
	.why = "reserved bits set",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, comm) {
	.patch = bad_comm,
	.why = "comm not NUL-terminated",
	.lost = 1,
};

FIXTURE_VARIANT_ADD(corrupt, ip_mode) {
	.patch = bad_ip_mode,
	.why = "IP 0x401000 is not a kernel address",
	.lost = 1,
};

/* Each sample is a section of its own: a bad size costs its section only. */
FIXTURE_VARIANT_ADD(corrupt, size) {
	.patch = bad_size,
	.why = "an impossible size",
	.lost = 1,
};

TEST_F(corrupt, records_are_rejected_and_counted)
{
	struct synth_cap sc = { .kallsyms = 1, .bad = 5, .patch = variant->patch };
	struct replayed r;
	char where[64];

	ASSERT_EQ(0, write_capture(self->path, &sc));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(NR_SAMPLES - variant->lost, r.samples) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.err, ": 1 records rejected as corrupt")) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.err, variant->why)) TH_LOG("%s", r.err);
	/* Sample 5 is the sixth section after the header, META and KALLSYMS. */
	snprintf(where, sizeof(where), "CPU 1 record at byte %zu: ",
		 sizeof(struct kpcap_header) + 16 + 48 + 16 + 64 + 5 * (16 + 88) + 16);
	EXPECT_NE(NULL, strstr(r.err, where)) TH_LOG("%s", r.err);
	EXPECT_EQ(NULL, strstr(r.out, "[268435457]")) TH_LOG("%s", r.out);
	free(r.out);
}

TEST_F(cap, a_sound_capture_replays_without_a_word)
{
	struct synth_cap sc = { .kallsyms = 1 };
	struct replayed r;

	ASSERT_EQ(0, write_capture(self->path, &sc));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(NR_SAMPLES, r.samples);
	EXPECT_STREQ("", r.err);
	EXPECT_NE(NULL, strstr(r.out, " do_syscall_64+0x10 ([kernel.kallsyms])\n"));
	free(r.out);
}

/* Set the header's abi_version of the capture at PATH: 0, or -1. */
static int set_abi_version(const char *path, uint32_t v)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pwrite(fd, &v, sizeof(v), offsetof(struct kpcap_header, abi_version));
	close(fd);
	return n == (ssize_t)sizeof(v) ? 0 : -1;
}

/*
 * Captures of every ABI whose records are this kprofcat's replay; one of
 * an older or a newer ABI is refused with both versions named.
 */
TEST_F(cap, the_record_abi_is_checked)
{
	static const uint32_t bad[] = { KPCAP_OLDEST_ABI - 1, KPROF_ABI_VERSION + 1 };
	struct synth_cap sc = { .kallsyms = 1 };
	struct replayed r;
	char want[128];
	size_t i;
	uint32_t v;

	ASSERT_EQ(0, write_capture(self->path, &sc));
	for (v = KPCAP_OLDEST_ABI; v <= KPROF_ABI_VERSION; v++) {
		ASSERT_EQ(0, set_abi_version(self->path, v));
		replay(self->path, NULL, &r);
		EXPECT_EQ(0, r.status) TH_LOG("ABI %u: %s", v, r.err);
		EXPECT_EQ(NR_SAMPLES, r.samples) TH_LOG("ABI %u", v);
		free(r.out);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(0, set_abi_version(self->path, bad[i]));
		replay(self->path, NULL, &r);
		EXPECT_NE(0, r.status) TH_LOG("ABI %u", bad[i]);
		EXPECT_EQ(0, r.samples) TH_LOG("ABI %u", bad[i]);
		snprintf(want, sizeof(want), "holds kprof ABI version %u records; this kprofcat reads versions %u to %u",
			 bad[i], KPCAP_OLDEST_ABI, KPROF_ABI_VERSION);
		EXPECT_HAS(r.err, want);
		free(r.out);
	}
}

/*
 * CPU 0's 20 samples 25 ms apart from 6 s, then CPU 1's 20 from 6.005 s,
 * 1 ms apart: CPU 1's first comes 470 ms after CPU 0's last, older.
 */
#define LATE_NS	470000000ULL

static int write_late_capture(const char *path)
{
	static const char meta[] = "event=cpu-clock\nsample=1003009\nfreq=0\nnr_cpus=2\n";
	struct capture_writer *w = capture__create(path);
	uint64_t ips[1] = { KIP }, t;
	unsigned char buf[256];
	size_t len;
	int i;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1) ||
	    capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (i = 0; i < NR_SAMPLES; i++) {
		int cpu = i >= NR_SAMPLES / 2;

		t = cpu ? 6005000000ULL + (i - NR_SAMPLES / 2) * 1000000ULL :
			  6000000000ULL + i * 25000000ULL;
		len = synth_sample(buf, i + 1, t, cpu, 1000, "a", 0, ips, 1, 0);
		if (capture__add_record(w, cpu, buf, len))
			return -1;
	}
	return capture__close(w);
}

/* How many samples of R's text print before an older one; -1: none printed. */
static int out_of_order(const struct replayed *r)
{
	double last = 0, secs;
	int n = 0, bad = 0;
	const char *p;

	for (p = r->out; (p = strstr(p, "] ")); p += 2, n++) {
		secs = strtod(p + 2, NULL);
		bad += secs < last;
		last = secs;
	}
	return n ? bad : -1;
}

/*
 * The records of one CPU come in one section, the next CPU's after it, as
 * when a reader stalled mid-handler hands its records over late: -i
 * prints the samples in time order, as perf script does.
 */
TEST_F(cap, late_records_print_in_time_order)
{
	struct replayed r;

	ASSERT_EQ(0, write_late_capture(self->path));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(NR_SAMPLES, r.samples);
	EXPECT_EQ(0, out_of_order(&r)) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.err, "out of order")) TH_LOG("%s", r.err);
	free(r.out);
}

/* The sections of PATH: the type and payload of the last but one (before END). */
static int before_end(const char *path, uint32_t *type, struct kpcap_order *o)
{
	struct capture_reader *rd = capture__open(path);
	uint32_t t, arg, prev = 0;
	const void *data;
	size_t len;
	int ret;

	if (!rd)
		return -1;
	while ((ret = capture__next(rd, &t, &arg, &data, &len)) > 0) {
		prev = t;
		if (t == KPCAP_ORDER && len == sizeof(*o))
			memcpy(o, data, len);
	}
	capture__close_reader(rd);
	*type = prev;
	return ret;
}

/*
 * The file's last sections, ORDER then END (24 + 16 bytes), replaced by
 * an ORDER of LEN bytes at PAYLOAD (none: LEN 0) and END.
 */
static int retail(const char *path, const void *payload, uint32_t len)
{
	struct kpcap_section s = { .type = KPCAP_ORDER, .size = len }, end = { .type = KPCAP_END };
	static const unsigned char zeros[8];
	struct stat st;
	int fd = open(path, O_RDWR), ok;
	off_t at;

	if (fd < 0 || fstat(fd, &st))
		return -1;
	at = st.st_size - sizeof(s) - sizeof(struct kpcap_order) - sizeof(end);
	ok = !ftruncate(fd, at);
	if (len)
		ok = ok && pwrite(fd, &s, sizeof(s), at) == sizeof(s) &&
		     pwrite(fd, payload, len, at + sizeof(s)) == len &&
		     pwrite(fd, zeros, -len & 7, at + sizeof(s) + len) == (-len & 7);
	at += len ? sizeof(s) + ((len + 7) & ~7U) : 0;
	ok = ok && pwrite(fd, &end, sizeof(end), at) == sizeof(end);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * The writer's ORDER section, right before END, holds how much older than
 * the newest record before it a record comes at most: the reader's merge
 * window, so it need not read the records twice.
 */
TEST_F(cap, the_order_section_says_how_late_records_come)
{
	struct kpcap_order o = { 0 };
	uint32_t type;

	ASSERT_EQ(0, write_late_capture(self->path));
	ASSERT_EQ(0, before_end(self->path, &type, &o));
	EXPECT_EQ(KPCAP_ORDER, type);
	EXPECT_EQ(LATE_NS, o.late);
}

/*
 * A file without ORDER (an older writer's, or cut short) is read with a
 * pass over the records' times: the same text, in time order, no word.
 */
TEST_F(cap, a_capture_without_order_prints_the_same)
{
	struct replayed with, without;

	ASSERT_EQ(0, write_late_capture(self->path));
	replay(self->path, NULL, &with);
	ASSERT_EQ(0, retail(self->path, NULL, 0));
	replay(self->path, NULL, &without);
	EXPECT_EQ(0, without.status) TH_LOG("%s", without.err);
	EXPECT_STREQ(with.out, without.out);
	EXPECT_STREQ("", without.err);
	EXPECT_EQ(0, out_of_order(&without));
	free(with.out);
	free(without.out);
}

static size_t stack_sample(uint64_t *buf, uint64_t abi, uint64_t size, uint64_t dyn,
			   unsigned int extra);

/* Samples of 8 KiB stacks enough for three read-ahead windows. */
#define BIG_SAMPLES	(3 * READAHEAD_BYTES / 8192)

static int write_big_capture(const char *path)
{
	static const char meta[] = "event=cpu-clock\nsample=1003009\nfreq=0\nnr_cpus=1\n";
	struct capture_writer *w = capture__create(path);
	static uint64_t buf[2048];
	struct kprof_sample *s = (void *)buf;
	size_t len, i;

	if (!w || capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1) ||
	    capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1))
		return -1;
	for (i = 0; i < BIG_SAMPLES; i++) {
		len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 8192 - 512, 4096, 0);
		s->time = 1000 + i;
		if (capture__add_record(w, 0, buf, len))
			return -1;
	}
	return capture__close(w);
}

/*
 * Past two read-ahead windows, a thread maps the file's pages ahead of
 * the reader (readahead.c): every record prints, in order, with ORDER
 * and without it (the same text), when the thread stops after the pass
 * over the times and starts again over the rewound file.
 */
TEST_F(cap, a_capture_past_the_read_ahead_prints_every_record)
{
	struct replayed with, without;
	struct stat st;

	ASSERT_EQ(0, write_big_capture(self->path));
	ASSERT_EQ(0, stat(self->path, &st));
	ASSERT_LT(2 * READAHEAD_BYTES, (size_t)st.st_size);
	replay(self->path, NULL, &with);
	EXPECT_EQ(0, with.status) TH_LOG("%s", with.err);
	EXPECT_EQ(BIG_SAMPLES, with.samples);
	ASSERT_EQ(0, retail(self->path, NULL, 0));
	replay(self->path, NULL, &without);
	EXPECT_EQ(0, without.status) TH_LOG("%s", without.err);
	EXPECT_STREQ(with.out, without.out);
	free(with.out);
	free(without.out);
}

/*
 * ORDER understating how late records come (a file changed after it was
 * written): every sample still prints, those out of order are counted and
 * the warning names ORDER; a payload too short is ignored, with a word,
 * for the pass.
 */
TEST_F(cap, a_wrong_order_section_is_told)
{
	struct kpcap_order low = { .late = LATE_NS / 2 };
	struct replayed r;

	ASSERT_EQ(0, write_late_capture(self->path));
	ASSERT_EQ(0, retail(self->path, &low, sizeof(low)));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(NR_SAMPLES, r.samples);
	EXPECT_LT(0, out_of_order(&r));
	EXPECT_NE(NULL, strstr(r.err, "later than its ORDER section allows (235000000 ns)"))
		TH_LOG("%s", r.err);
	free(r.out);

	ASSERT_EQ(0, write_late_capture(self->path));
	ASSERT_EQ(0, retail(self->path, &low, 4));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(0, out_of_order(&r));
	EXPECT_NE(NULL, strstr(r.err, "ORDER section of 4 bytes, not 8: ignored"))
		TH_LOG("%s", r.err);
	free(r.out);
}

TEST_F(cap, no_kallsyms_is_told)
{
	struct synth_cap sc = { 0 };
	struct replayed r;

	ASSERT_EQ(0, write_capture(self->path, &sc));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(NR_SAMPLES, r.samples);
	/* The 30 samples not in user mode have a kernel frame. */
	EXPECT_HAS(r.err, "has no kallsyms section: the kernel frames of 30 samples print as [unknown]");
	free(r.out);
}

/*
 * Cut the file at every length from the end of its first RECORDS section
 * to its full size: each cut replays, prints every whole record before it
 * and warns.  A sound record is in the output exactly when its last byte is
 * in the file.
 */
TEST_F(cap, a_cut_capture_yields_every_whole_record)
{
	struct synth_cap sc = { .kallsyms = 1 };
	size_t rec = sizeof(struct kprof_sample) + 8;	/* every sample has one frame */
	size_t sec = sizeof(struct kpcap_section);
	struct replayed r;
	struct stat st;
	off_t full, first, cut;

	ASSERT_EQ(0, write_capture(self->path, &sc));
	ASSERT_EQ(0, stat(self->path, &st));
	full = st.st_size;
	/* Header, META (48 bytes), KALLSYMS (padded to 64), then the records. */
	first = sizeof(struct kpcap_header) + sec + 48 + sec + 64;
	ASSERT_EQ(0, truncate(self->path, full - sec));	/* END gone */
	for (cut = full - sec; cut >= first; cut -= 37) {
		int whole;

		ASSERT_EQ(0, truncate(self->path, cut));
		replay(self->path, NULL, &r);
		EXPECT_EQ(0, r.status) TH_LOG("cut at %lld: %s", (long long)cut, r.err);
		/*
		 * The writer keeps a CPU's consecutive records in one section;
		 * they alternate here, so each record is a section of its own:
		 * whole = sections complete before the cut (a record fills
		 * its section: no padding).
		 */
		whole = (cut - first) / (sec + rec);
		if (whole > NR_SAMPLES)
			whole = NR_SAMPLES;
		EXPECT_EQ(whole, r.samples)
			TH_LOG("cut at %lld of %lld", (long long)cut, (long long)full);
		EXPECT_HAS(r.err, "is cut short (no END section: was the recording killed?)");
		EXPECT_EQ(NULL, strstr(r.err, "rejected")) TH_LOG("%s", r.err);
		free(r.out);
	}
}

TEST_F(cap, the_cut_warning_says_how_much_is_lost)
{
	struct synth_cap sc = { .kallsyms = 1 };
	size_t rec = sizeof(struct kprof_sample) + 8;
	size_t sec = sizeof(struct kpcap_section);
	off_t first = sizeof(struct kpcap_header) + sec + 48 + sec + 64;
	struct replayed r;
	char want[256];

	ASSERT_EQ(0, write_capture(self->path, &sc));
	/* 3 whole samples, then 40 bytes into the fourth's section (CPU 1). */
	ASSERT_EQ(0, truncate(self->path, first + 3 * (sec + rec) + sec + 40));
	replay(self->path, NULL, &r);
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(3, r.samples);
	snprintf(want, sizeof(want),
		 "it ends 40 bytes into a RECORDS section of CPU 1 that should hold %zu; read the 3 whole records before the cut, lost the 40 bytes of the record cut in two and the %zu bytes never written",
		 rec, rec - 40);
	EXPECT_NE(NULL, strstr(r.err, want)) TH_LOG("%s", r.err);
	free(r.out);
}

TEST_F(cap, sample_filters_keep_what_they_name)
{
	struct synth_cap sc = { .kallsyms = 1 };
	struct sample_filter sf;
	struct replayed r;

	ASSERT_EQ(0, write_capture(self->path, &sc));
	memset(&sf, 0, sizeof(sf));
	sf.cpus_set = 1;
	sf.cpus[0] = 2;		/* -C 1: the odd samples */
	replay(self->path, &sf, &r);
	EXPECT_EQ(NR_SAMPLES / 2, r.samples);
	EXPECT_EQ(NULL, strstr(r.out, "[000]")) TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "LOST")) TH_LOG("CPU 0's LOST record passed -C 1");
	free(r.out);

	memset(&sf, 0, sizeof(sf));
	sf.tid_set = 1;
	sf.tid = 1001;		/* i % 3 == 1: 13 of 40 */
	replay(self->path, &sf, &r);
	EXPECT_EQ(13, r.samples);
	EXPECT_EQ(NULL, strstr(r.out, "/1000 ")) TH_LOG("%s", r.out);
	free(r.out);

	memset(&sf, 0, sizeof(sf));
	sf.comm = "a";		/* the even samples */
	replay(self->path, &sf, &r);
	EXPECT_EQ(NR_SAMPLES / 2, r.samples);
	EXPECT_EQ(NULL, strstr(r.out, "\nb ")) TH_LOG("%s", r.out);
	free(r.out);

	memset(&sf, 0, sizeof(sf));
	sf.user_only = 1;	/* every fourth */
	replay(self->path, &sf, &r);
	EXPECT_EQ(NR_SAMPLES / 4, r.samples);
	EXPECT_EQ(NULL, strstr(r.out, "do_syscall_64")) TH_LOG("%s", r.out);
	free(r.out);

	memset(&sf, 0, sizeof(sf));
	sf.kernel_only = 1;
	replay(self->path, &sf, &r);
	EXPECT_EQ(NR_SAMPLES - NR_SAMPLES / 4, r.samples);
	free(r.out);
}

/*
 * Random damage (a fixed seed: the same 300 files every run): 4 bytes
 * flipped anywhere past the kallsyms section.  Every replay ends (no
 * crash) with success or an error naming the malformed section, and
 * whatever prints is what kprof could have written: CPUs of
 * the 2 recorded, a first frame at a kernel or a user address.
 */
TEST_F(cap, flipped_bytes_never_print_impossible_fields)
{
	struct synth_cap sc = { .kallsyms = 1 };
	off_t first = sizeof(struct kpcap_header) + 16 + 48 + 16 + 64;
	unsigned int seed = 16, round, k;
	struct replayed r;
	struct stat st;
	char *p;
	int fd;

	for (round = 0; round < 300; round++) {
		ASSERT_EQ(0, write_capture(self->path, &sc));
		ASSERT_EQ(0, stat(self->path, &st));
		fd = open(self->path, O_RDWR);
		ASSERT_GE(fd, 0);
		for (k = 0; k < 4; k++) {
			off_t at = first + rand_r(&seed) % (st.st_size - first);
			unsigned char c;

			ASSERT_EQ(1, pread(fd, &c, 1, at));
			c ^= 1 << (rand_r(&seed) % 8);
			ASSERT_EQ(1, pwrite(fd, &c, 1, at));
		}
		close(fd);
		replay(self->path, NULL, &r);
		/*
		 * A flip may turn a section into a malformed one of another
		 * type: refused by name.
		 */
		EXPECT_TRUE(!r.status || (r.status == 1 && strstr(r.err, ": malformed ")))
			TH_LOG("round %u: status %d: %s", round, r.status, r.err);
		for (p = r.out; (p = strstr(p, " cpu-clock: \n")); p++) {
			const char *line = p;

			while (line > r.out && line[-1] != '\n')
				line--;
			if (!strstr(line, " [000] ") && !strstr(line, " [001] ")) {
				EXPECT_TRUE(0)
					TH_LOG("round %u printed %.*s", round, (int)(p - line),
					       line);
				break;
			}
			/*
			 * The first frame: a kernel address (ff.. .. .. ..) or a
			 * user one (below 2^56: "%16llx" starts with 2 spaces).
			 */
			EXPECT_TRUE(!strncmp(p + 13, "\tff", 3) || !strncmp(p + 13, "\t  ", 3))
				TH_LOG("round %u: a first frame neither kernel nor user: %.40s",
				       round, p + 13);
		}
		free(r.out);
	}
}

/* Clear CLEAR of the header's misc bits, and make its size SIZE. */
static void set_misc_size(uint64_t *buf, uint16_t clear, size_t size)
{
	struct kprof_record_header h;

	memcpy(&h, buf, sizeof(h));
	h.misc &= ~clear;
	h.size = size;
	memcpy(buf, &h, sizeof(h));
}

/*
 * A user-mode sample on CPU 0 with one user frame and the DWARF tail: ABI,
 * KPROF_REGS_USER_NR registers when ABI is not NONE, SIZE, SIZE bytes of
 * stack and DYN (no stack nor DYN when SIZE is 0), then EXTRA more words.
 * Returns the record's length.
 */
static size_t stack_sample(uint64_t *buf, uint64_t abi, uint64_t size, uint64_t dyn,
			   unsigned int extra)
{
	uint64_t ip = UIP, *p;
	size_t len = synth_sample(buf, 1, 1000, 0, 1000, "a",
				  KPROF_MISC_USER | KPROF_MISC_STACK_USER, &ip, 0, 1);
	unsigned int i;

	p = buf + len / 8;
	*p++ = abi;
	for (i = 0; abi && i < KPROF_REGS_USER_NR; i++)
		*p++ = 0x7ffc00001000ULL + i;
	*p++ = size;
	if (size) {
		memset(p, 0xab, (size + 7) & ~7ULL);
		p += (size + 7) / 8;
		*p++ = dyn;
	}
	for (i = 0; i < extra; i++)
		*p++ = 0;
	len = (p - buf) * 8;
	set_misc_size(buf, 0, len);
	return len;
}

/* What the capture check says of the record, and whether decode takes it. */
static const char *check_tail(uint64_t *buf, size_t len, int *decoded)
{
	struct capture_check c = { .nr_cpus = 1 };
	struct decode_stats st = { 0 };
	struct kp_record r;

	*decoded = !decode__record(buf, len, 0, &r, &st);
	if (*decoded && (!r.sample.regs || r.sample.regs[KPROF_REG_X86_SP] != 0x7ffc00001007ULL))
		*decoded = 2;	/* decoded, but the registers are not where they were put */
	return capture_check__record(&c, 0, buf, len);
}

TEST(stack_user_tails_that_fill_the_record_pass)
{
	static uint64_t buf[8192];
	struct capture_check c = { .nr_cpus = 1 };
	struct decode_stats st = { 0 };
	struct kp_record r;
	size_t len;
	int dec;

	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 8192, 4600, 0);
	EXPECT_EQ(NULL, check_tail(buf, len, &dec));
	EXPECT_EQ(1, dec);
	ASSERT_EQ(0, decode__record(buf, len, 0, &r, &st));
	EXPECT_EQ(4600, r.sample.stack_dyn);
	EXPECT_EQ(0xab, r.sample.stack[8191]);
	/* A stack that could not be read: dyn_size 0. */
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 64, 0, 0);
	EXPECT_EQ(NULL, check_tail(buf, len, &dec));
	EXPECT_EQ(1, dec);
	/* No registers (a kernel thread) and no stack. */
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_NONE, 0, 0, 0);
	EXPECT_EQ(NULL, capture_check__record(&c, 0, buf, len));
	ASSERT_EQ(0, decode__record(buf, len, 0, &r, &st));
	EXPECT_EQ(NULL, r.sample.regs);
	EXPECT_EQ(0, r.sample.stack_dyn);
}

TEST(stack_user_tails_whose_sizes_disagree_are_rejected)
{
	static uint64_t buf[8192];
	size_t len;
	int dec;

	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 64, 72, 0);
	EXPECT_STREQ("72 bytes of user stack read of 64 copied", check_tail(buf, len, &dec));
	EXPECT_EQ(0, dec);
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 64, 64, 1);	/* a word too many */
	EXPECT_STREQ("a 64-byte user stack in 80 bytes", check_tail(buf, len, &dec));
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 60, 60, 0);	/* not words */
	EXPECT_STREQ("a 60-byte user stack in 72 bytes", check_tail(buf, len, &dec));
	EXPECT_EQ(0, dec);
	/* A size beyond the record. */
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 64, 64, 0);
	buf[len / 8 - 10] = 4096;
	EXPECT_STREQ("a 4096-byte user stack in 72 bytes", check_tail(buf, len, &dec));
	EXPECT_EQ(0, dec);
	len = stack_sample(buf, 1, 64, 64, 0);		/* PERF_SAMPLE_REGS_ABI_32 */
	EXPECT_STREQ("user registers of abi 1", check_tail(buf, len, &dec));
	EXPECT_EQ(0, dec);
	/* Cut short in the registers. */
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 0, 0, 0);
	set_misc_size(buf, 0, len - 16);
	EXPECT_STREQ("no room for the user registers", check_tail(buf, len - 16, &dec));
	EXPECT_EQ(0, dec);
	/* The tail without its misc bit: bytes the frames do not fill. */
	len = stack_sample(buf, KPROF_SAMPLE_REGS_ABI_64, 64, 64, 0);
	set_misc_size(buf, KPROF_MISC_STACK_USER, len);
	EXPECT_NE(NULL, strstr(check_tail(buf, len, &dec), "do not fill"));
}

TEST_HARNESS_MAIN
