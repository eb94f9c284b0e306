// SPDX-License-Identifier: GPL-2.0
/*
 * convert_test: `kprofcat convert` on a synthetic capture whose every kprof
 * record type is known, read back by the real clients: perf report --stats
 * counts one PERF_RECORD_LOST per LOST record, one THROTTLE per THROTTLE
 * record, whichever limit tripped, one UNTHROTTLE per UNTHROTTLE, and
 * nothing for RATE_LOWERED and WOULD_THROTTLE (convert_perf.c's mapping);
 * perf script names the kernel frames from OUT.kallsyms, the user frames
 * of a DSO this machine does not have from OUT.symfs, and lists the
 * build-ids (a DSO path with ".." is not written); go tool pprof reads the
 * pprof file's samples, labels, kernel marks and build-ids.  Also: the
 * capture header carries the writer's version, a header without one still
 * reads, and bad invocations fail with a message instead of writing a file.
 *
 * The real-capture checks (frames, report shares against kprofcat's own)
 * are tests/host/convert-check.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kprof.h>

#include "kselftest_harness.h"

#include "lib/capture/capture.h"
#include "lib/symbols/usyms.h"
#include "lib/util/print.h"
#include "cmd_output.h"
#include "synth.h"

/*
 * user/kprofcat and the VERSION file of the tree this test was built from
 * (KPROF_TREE, from tests/Makefile).
 */
static char kprofcat[PATH_MAX], version[64];

static int find_paths(void)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(kprofcat, sizeof(kprofcat), "%s/user/kprofcat", KPROF_TREE);
	snprintf(path, sizeof(path), "%s/VERSION", KPROF_TREE);
	f = fopen(path, "r");
	if (!f || !fgets(version, sizeof(version), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	version[strcspn(version, "\n")] = '\0';
	return access(kprofcat, X_OK);
}

static const char kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T kfunc_leaf\n"
	"ffffffff81002000 T kfunc_caller\n"
	"ffffffff81003000 T kfunc_end\n"
	"ffffffffc0001000 t mod_func\t[kmodx]\n"
	/* A module's per-CPU variable: an offset in the per-CPU area, not text. */
	"0000000000038620 a kmodx_pcpu\t[kmodx]\n";

#define BUILD_ID	"\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67\x89\xab\xcd\xef\x01\x23\x45\x67"
#define BUILD_ID_HEX	"0123456789abcdef0123456789abcdef01234567"
#define BUILD_ID_LATE	"\x76\x54\x32\x10\x76\x54\x32\x10\x76\x54\x32\x10\x76\x54\x32\x10\x76\x54\x32\x10"

/* What the capture holds, by record type (written below). */
#define NR_SAMPLES	20
#define NR_LOST		3
#define NR_THROTTLE	3	/* two of kprof's limit, one of the kernel's */
#define NR_UNTHROTTLE	3	/* one per throttle */

/*
 * A DSO symbol section as kprofcat -o writes it (dso_blob.c: header,
 * path padded to 8, raw symbols, names): one function synth_func at file
 * offset 0x1200 (0x100 bytes, global, from .symtab).
 */
static void add_dso(struct capture_writer *w, const char *path, const char *build_id)
{
	struct {
		uint32_t state, path_len, bid_len, nraw, names_len, reserved;
		unsigned char bid[24];
	} h = { .state = 1, .path_len = strlen(path) + 1, .bid_len = 20, .nraw = 1,
		.names_len = sizeof("synth_func") };
	struct { uint64_t start, size; uint32_t name; uint16_t binding, batch; } sym = {
		0x1200, 0x100, 0, 1 /* STB_GLOBAL */, 0 /* .symtab */ };
	unsigned char b[512] = { 0 };
	size_t pos = sizeof(h);

	memcpy(h.bid, build_id, 20);
	memcpy(b, &h, sizeof(h));
	memcpy(b + pos, path, h.path_len);
	pos += (h.path_len + 7) & ~7UL;
	memcpy(b + pos, &sym, sizeof(sym));
	pos += sizeof(sym);
	memcpy(b + pos, "synth_func", h.names_len);
	capture__write(w, KPCAP_DSO, 0, b, pos + h.names_len);
}

static void add(struct capture_writer *w, unsigned int cpu, const void *rec)
{
	const struct kprof_record_header *h = rec;

	capture__add_record(w, cpu, rec, h->size);
}

static void throttle(struct capture_writer *w, uint32_t type, uint64_t t)
{
	struct kprof_throttle_event e = { .header = { .type = type, .size = sizeof(e) },
					  .time = t, .seq = t, .tick = t / 4000000 };

	add(w, 0, &e);
}

/* A capture of one process (pid 4242, comm "synth") on CPU 0. */
static int write_capture(const char *path)
{
	struct capture_writer *w = capture__create(path);
	static const char meta[] = "event=cpu-clock\nsample=1000000\nfreq=0\nhostname=synthhost\n"
				   "release=6.1.0-synth\ncommand=synth\n";
	union {
		struct kprof_sample s;
		unsigned char b[sizeof(struct kprof_sample) + 4 * 8];
	} r;
	struct kprof_lost lost = { .header = { .type = KPROF_RECORD_LOST, .size = sizeof(lost) },
				   .full = 2, .throttled = 1 };
	struct kprof_rate_lowered low = {
		.header = { .type = KPROF_RECORD_RATE_LOWERED, .size = sizeof(low) } };
	/* A mapping of a DSO that is on no machine: its build-id still travels. */
	struct pev mm = { .type = PEV_MMAP, .pid = 4242, .bid_len = 20, .start = 0x7f0000000000ULL,
			  .len = 0x10000, .path = "/nonexistent/libsynth.so" };
	uint64_t t = 1000000000;
	int i;

	if (!w)
		return -1;
	memcpy(mm.build_id, BUILD_ID, 20);
	capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1);
	capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1);
	capture__write_pev(w, &mm);
	add_dso(w, mm.path, BUILD_ID);
	/* A path that would leave OUT.symfs: never written. */
	add_dso(w, "/a/../../../../../../tmp/kprofcat-convert-escape", BUILD_ID);
	for (i = 0; i < NR_SAMPLES; i++) {
		memset(&r, 0, sizeof(r));
		r.s.header.type = KPROF_RECORD_SAMPLE;
		r.s.header.size = sizeof(r);
		r.s.seq = i + 1;
		r.s.time = t += 1000000;
		r.s.pid = 4242;
		r.s.tid = 4243;
		strcpy(r.s.comm, "synth");
		r.s.ip = 0xffffffff81001010ULL;
		r.s.period = 1000000;
		r.s.nr_kernel = 3;
		r.s.ips[0] = 0xffffffff81001010ULL;	/* kfunc_leaf+0x10 */
		r.s.ips[1] = 0xffffffff81002020ULL;	/* kfunc_caller+0x20 */
		r.s.ips[2] = 0xffffffffc0001004ULL;	/* mod_func+0x4 */
		r.s.nr_user = 1;
		r.s.ips[3] = 0x7f0000001234ULL;	/* libsynth.so, offset 0x1234 */
		add(w, 0, &r);
		if (i < NR_LOST) {
			lost.time = t + 1;
			add(w, 0, &lost);
		}
		if (i == 5 || i == 10) {
			throttle(w, KPROF_RECORD_THROTTLE, t + 2);
			throttle(w, KPROF_RECORD_UNTHROTTLE, t + 3);
		}
		if (i == 15) {
			throttle(w, KPROF_RECORD_THROTTLE, t + 2);
			throttle(w, KPROF_RECORD_UNTHROTTLE, t + 3);
			throttle(w, KPROF_RECORD_WOULD_THROTTLE, t + 4);
			low.time = t + 5;
			add(w, 0, &low);
		}
	}
	return capture__close(w);
}

#define NR_EARLY	5	/* samples before liblate.so is mapped */

/*
 * Pid 4242 again, its samples' user chains one frame in libsynth.so (mapped
 * since ever) and one in liblate.so, mapped between the NR_EARLY-th sample
 * and the next: the frame-pointer walk of code without frame pointers
 * yields such addresses, and before the mapping they are no code of it.
 */
static int write_late_capture(const char *path)
{
	struct capture_writer *w = capture__create(path);
	static const char meta[] = "event=cpu-clock\nsample=1003009\nfreq=0\nhostname=synthhost\n"
				   "release=6.1.0-synth\ncommand=synth\n";
	/*
	 * libsynth.so: synth_func+0x34, then past its symbols (unnamed);
	 * liblate.so, once mapped: synth_func+0x34.
	 */
	static const uint64_t ips[] = { 0x7f0000001234ULL, 0x7f0000005000ULL,
					0x7f0000101234ULL };
	unsigned char buf[sizeof(struct kprof_sample) + sizeof(ips)];
	struct pev mm = { .type = PEV_MMAP, .pid = 4242, .bid_len = 20, .start = 0x7f0000000000ULL,
			  .len = 0x10000, .path = "/nonexistent/libsynth.so" };
	struct pev late = { .type = PEV_MMAP, .pid = 4242, .bid_len = 20,
			    .start = 0x7f0000100000ULL, .len = 0x10000,
			    .path = "/nonexistent/liblate.so" };
	uint64_t t = 1000000000;
	int i;

	if (!w)
		return -1;
	memcpy(mm.build_id, BUILD_ID, 20);
	memcpy(late.build_id, BUILD_ID_LATE, 20);
	late.time = t + NR_EARLY * 1000000ULL + 500000;
	capture__write(w, KPCAP_META, 0, meta, sizeof(meta) - 1);
	capture__write(w, KPCAP_KALLSYMS, 0, kallsyms, sizeof(kallsyms) - 1);
	capture__write_pev(w, &mm);
	capture__write_pev(w, &late);
	add_dso(w, mm.path, BUILD_ID);
	add_dso(w, late.path, BUILD_ID_LATE);
	for (i = 0; i < NR_SAMPLES; i++) {
		t += 1000000;
		synth_sample(buf, i + 1, t, 0, 4242, "synth", KPROF_MISC_USER, ips, 0, 3);
		add(w, 0, buf);
	}
	return capture__close(w);
}

/* COUNT of "KIND events: COUNT" in the first (aggregated) block, 0 if absent. */
static long stat_count(const char *stats, const char *kind)
{
	char key[64];
	const char *p;

	snprintf(key, sizeof(key), " %s events:", kind);
	p = strstr(stats, key);
	return p ? strtol(p + strlen(key), NULL, 10) : 0;
}

FIXTURE(conv) {
	char cap[64];
	char out[80];
};

FIXTURE_SETUP(conv)
{
	int fd;

	strcpy(self->cap, "/tmp/kprofcat-convert-XXXXXX");
	fd = mkstemp(self->cap);
	ASSERT_GE(fd, 0);
	close(fd);
	snprintf(self->out, sizeof(self->out), "%s.out", self->cap);
	p_set_quiet(1);
	ASSERT_EQ(0, find_paths()) TH_LOG("build user/kprofcat first");
	ASSERT_EQ(0, write_capture(self->cap));
}

FIXTURE_TEARDOWN(conv)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s.kallsyms %s.symfs", self->cap, self->out,
		 self->out, self->out);
	if (system(cmd))
		TH_LOG("cleaning up %s failed", self->cap);
}

TEST_F(conv, perf_stats_count_lost_and_throttles)
{
	char cmd[2 * PATH_MAX], *st;

	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf): make deps");
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s -i %s", kprofcat, self->out,
		 self->cap);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "perf report -i %s --stats 2>/dev/null", self->out);
	st = cmd_output(cmd);
	ASSERT_NE(NULL, st);
	EXPECT_EQ(NR_SAMPLES, stat_count(st, "SAMPLE"));
	EXPECT_EQ(NR_LOST, stat_count(st, "LOST"));
	/* WOULD_THROTTLE and RATE_LOWERED are dropped. */
	EXPECT_EQ(NR_THROTTLE, stat_count(st, "THROTTLE"));
	EXPECT_EQ(NR_UNTHROTTLE, stat_count(st, "UNTHROTTLE"));
	free(st);
}

TEST_F(conv, perf_script_and_buildids_from_the_converted_file)
{
	char cmd[2 * PATH_MAX], *txt;

	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf): make deps");
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s -i %s", kprofcat, self->out,
		 self->cap);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "perf script -i %s --kallsyms %s.kallsyms -F comm,pid,tid,ip,sym,symoff,dso 2>/dev/null",
		 self->out, self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, "synth  4242/4243"));
	EXPECT_NE(NULL, strstr(txt, "ffffffff81001010 kfunc_leaf+0x10 ([kernel.kallsyms])"));
	EXPECT_NE(NULL, strstr(txt, "ffffffff81002020 kfunc_caller+0x20 ([kernel.kallsyms])"));
	EXPECT_NE(NULL, strstr(txt, "ffffffffc0001004 mod_func+0x4 ([kmodx])"));
	/* perf cannot read /nonexistent/libsynth.so ... */
	EXPECT_NE(NULL, strstr(txt, "1234 [unknown] (/nonexistent/libsynth.so)"));
	free(txt);
	/* ... but OUT.symfs has kprofcat's symbols for it, as kprofcat -i prints them. */
	snprintf(cmd, sizeof(cmd), "perf script -i %s --kallsyms %s.kallsyms --symfs %s.symfs -F ip,sym,symoff,dso 2>/dev/null",
		 self->out, self->out, self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, "1234 synth_func+0x34 (/nonexistent/libsynth.so)"));
	free(txt);
	snprintf(cmd, sizeof(cmd), "%s -i %s", kprofcat, self->cap);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, "1234 synth_func+0x34 (/nonexistent/libsynth.so)"));
	free(txt);
	EXPECT_NE(0, access("/tmp/kprofcat-convert-escape", F_OK));
	snprintf(cmd, sizeof(cmd), "perf buildid-list -i %s 2>/dev/null", self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, BUILD_ID_HEX " /nonexistent/libsynth.so"));
	free(txt);
	snprintf(cmd, sizeof(cmd), "perf report -i %s --header-only 2>/dev/null", self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, "# hostname : synthhost"));
	EXPECT_NE(NULL, strstr(txt, "# os release : 6.1.0-synth"));
	snprintf(cmd, sizeof(cmd), "# perf version : kprofcat %s\n", version);
	EXPECT_NE(NULL, strstr(txt, cmd));
	free(txt);
}

/*
 * A frame in a DSO mapped after the sample: [unknown] in both, as perf takes
 * maps in time order; from the mapping on, its symbol in both.  The samples
 * share one call chain, so kprofcat's chain cache must not serve the later
 * answer to the earlier samples or the other way round.
 */
TEST_F(conv, a_frame_before_its_mapping_is_unknown_to_both)
{
	static const char *const unmapped = "7f0000101234 [unknown] ([unknown])";
	static const char *const mapped = "1234 synth_func+0x34 (/nonexistent/liblate.so)";
	char cmd[2 * PATH_MAX], *txt;

	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf): make deps");
	ASSERT_EQ(0, write_late_capture(self->cap));
	snprintf(cmd, sizeof(cmd), "%s -i %s", kprofcat, self->cap);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_EQ(NR_EARLY, count_occurrences(txt, unmapped)) TH_LOG("%s", txt);
	EXPECT_EQ(NR_SAMPLES - NR_EARLY, count_occurrences(txt, mapped)) TH_LOG("%s", txt);
	free(txt);
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s -i %s", kprofcat, self->out,
		 self->cap);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "perf script -i %s --kallsyms %s.kallsyms --symfs %s.symfs -F ip,sym,symoff,dso 2>/dev/null",
		 self->out, self->out, self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_EQ(NR_EARLY, count_occurrences(txt, unmapped)) TH_LOG("%s", txt);
	EXPECT_EQ(NR_SAMPLES - NR_EARLY, count_occurrences(txt, mapped)) TH_LOG("%s", txt);
	free(txt);
}

/*
 * libsynth.so holds a named frame and an unnamed one: its mapping still says
 * it has functions, or pprof would symbolize all its frames again from
 * whatever file is at that path on the reading machine.
 */
TEST_F(conv, pprof_keeps_kprofcats_names_beside_an_unnamed_frame)
{
	char cmd[2 * PATH_MAX], *txt;

	if (system("command -v go >/dev/null"))
		SKIP(return, "no go (golang-go): make deps");
	ASSERT_EQ(0, write_late_capture(self->cap));
	snprintf(cmd, sizeof(cmd), "%s convert --to-pprof %s -i %s", kprofcat, self->out,
		 self->cap);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "HOME=/tmp GOCACHE=/tmp/kprofcat-gocache go tool pprof -symbolize=none -raw %s 2>/dev/null",
		 self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, "/nonexistent/libsynth.so " BUILD_ID_HEX " [FN]"))
		TH_LOG("%s", txt);
	free(txt);
}

TEST_F(conv, pprof_has_samples_and_labels)
{
	char cmd[2 * PATH_MAX], *txt;

	if (system("command -v go >/dev/null"))
		SKIP(return, "no go (golang-go): make deps");
	snprintf(cmd, sizeof(cmd), "%s convert --to-pprof %s -i %s", kprofcat, self->out,
		 self->cap);
	ASSERT_EQ(0, system(cmd));
	/* go wants a writable HOME/GOCACHE; -raw prints samples with their labels. */
	snprintf(cmd, sizeof(cmd), "HOME=/tmp GOCACHE=/tmp/kprofcat-gocache go tool pprof -raw %s 2>/dev/null",
		 self->out);
	txt = cmd_output(cmd);
	ASSERT_NE(NULL, txt);
	EXPECT_NE(NULL, strstr(txt, "samples/count cpu/nanoseconds"));
	/* All 20 samples share one stack and labels: one row, 20 x 1 ms. */
	EXPECT_NE(NULL, strstr(txt, "20   20000000:"));
	EXPECT_NE(NULL, strstr(txt, "comm:[synth]"));
	EXPECT_NE(NULL, strstr(txt, "pid:[4242]"));
	EXPECT_NE(NULL, strstr(txt, "tid:[4243]"));
	EXPECT_NE(NULL, strstr(txt, "cpu:[0]"));
	/* Kernel frames are marked by their mapping, as perf_to_profile does. */
	EXPECT_NE(NULL, strstr(txt, "0xffffffff81001010 M=1 kfunc_leaf [kernel.kallsyms]"));
	EXPECT_NE(NULL, strstr(txt, "0xffffffffc0001004 M=2 mod_func [kmodx]"));
	EXPECT_NE(NULL, strstr(txt, "/nonexistent/libsynth.so " BUILD_ID_HEX));
	free(txt);
}

TEST_F(conv, refuses_bad_invocations_without_writing)
{
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s -i /etc/hostname 2>/dev/null",
		 kprofcat, self->out);
	EXPECT_EQ(1, WEXITSTATUS(system(cmd)));
	EXPECT_NE(0, access(self->out, F_OK));
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s 2>/dev/null", kprofcat, self->out);
	EXPECT_EQ(2, WEXITSTATUS(system(cmd)));
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s --to-pprof %s -i %s 2>/dev/null",
		 kprofcat, self->out, self->out, self->cap);
	EXPECT_EQ(2, WEXITSTATUS(system(cmd)));
	EXPECT_NE(0, access(self->out, F_OK));
}

TEST_F(conv, header_carries_the_writer_version)
{
	struct capture_reader *r = capture__open(self->cap);
	struct kpcap_header h;
	FILE *f;

	ASSERT_NE(NULL, r);
	EXPECT_STREQ(version, capture__writer_version(r));
	capture__close_reader(r);
	/* A file from before the version field (zeros there) still reads. */
	f = fopen(self->cap, "r+");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fread(&h, sizeof(h), 1, f));
	memset(h.writer, 0, sizeof(h.writer));
	ASSERT_EQ(0, fseek(f, 0, SEEK_SET));
	ASSERT_EQ(1, fwrite(&h, sizeof(h), 1, f));
	fclose(f);
	r = capture__open(self->cap);
	ASSERT_NE(NULL, r);
	EXPECT_STREQ("", capture__writer_version(r));
	capture__close_reader(r);
}

TEST_HARNESS_MAIN
