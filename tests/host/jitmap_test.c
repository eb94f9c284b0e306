// SPDX-License-Identifier: GPL-2.0
/*
 * jitmap_test: frames in a process's anonymous executable memory (JIT
 * code) are named through its /tmp/perf-PID.map, as perf names them: the
 * map's own "START SIZE name" lines (hex with or without 0x, names with
 * blanks), looked up at the frame's address itself, the DSO printed as the
 * map's path.  The session that records the capture reads the map; the map
 * is then deleted, so kprofcat -i can only name the frames from the copy
 * the capture keeps.  With perf installed, perf script on the converted
 * file, with the map back in place, names the same frames.  A JIT writes
 * its map as it compiles: a frame the map did not name yet is named once
 * the map has grown, and names handed out before stay valid.  Last, real
 * samples: perf record of progs/jitspin, code generated at run time and
 * named in its map as JITs do, turned into a capture by perf2kpcap (as
 * tests/host/convert-check does): kprofcat -i prints every JIT frame of
 * every sample as perf script prints it.  And the same with a real JIT:
 * Debian's node, whose V8 writes the map with --perf-basic-prof, running
 * progs/jithot.js.
 *
 * The pid is the test's own, so the map written is one no other process
 * owns.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kselftest_harness.h"

#include "lib/capture/capture.h"
#include "lib/symbols/ksyms.h"
#include "lib/stream/session.h"
#include "lib/symbols/usyms.h"
#include "lib/util/print.h"
#include "cmd_output.h"
#include "synth.h"

#define JIT_START	0x7f1000000000ULL
#define JIT_LEN		0x10000ULL
#define NR_SAMPLES	3

/* The lines, and each frame as perf script prints it (%s: the map's path). */
static const char map_text[] =
	"7f1000000100 40 jit_hot\n"
	"0x7f1000000200 0x20 LazyCompile:*spin /srv/app.js:12\n";
static const char *const want_fmt[] = {
	" 7f1000000110 jit_hot+0x10 (%s)\n",
	" 7f1000000205 LazyCompile:*spin /srv/app.js:12+0x5 (%s)\n",
	" 7f1000000300 [unknown] (%s)\n",
};

static int write_map(const char *path, const char *mode, const char *text)
{
	FILE *f = fopen(path, mode);

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

FIXTURE(jit) {
	char map[64];
	char cap[64];
	char kprofcat[PATH_MAX];
	uint32_t pid;
};

FIXTURE_SETUP(jit)
{
	int fd;

	snprintf(self->kprofcat, sizeof(self->kprofcat), "%s/user/kprofcat", KPROF_TREE);
	ASSERT_EQ(0, access(self->kprofcat, X_OK)) TH_LOG("build user/kprofcat first");
	self->pid = getpid();
	snprintf(self->map, sizeof(self->map), "/tmp/perf-%u.map", self->pid);
	strcpy(self->cap, "/tmp/kprofcat-jitmap-XXXXXX");
	fd = mkstemp(self->cap);
	ASSERT_LE(0, fd);
	close(fd);
	p_set_quiet(1);
}

FIXTURE_TEARDOWN(jit)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s.data %s.data.kallsyms %s.data.symfs %s.d",
		 self->map, self->cap, self->cap, self->cap, self->cap, self->cap);
	if (system(cmd))
		TH_LOG("cleaning up %s failed", self->cap);
}

/* A capture of NR_SAMPLES samples of pid, each through the three frames. */
static int record(const char *cap, uint32_t pid)
{
	struct pev anon = { .type = PEV_MMAP, .pid = pid, .start = JIT_START,
			    .len = JIT_LEN, .path = "//anon" };
	uint64_t ips[] = { 0x7f1000000110ULL, 0x7f1000000205ULL, 0x7f1000000300ULL };
	struct session_opts so = { .window_ns = 1000000 };
	struct capture_writer *w = capture__create(cap);
	unsigned char buf[512];
	struct session *s;
	int i, ret;

	if (!w || capture__write(w, KPCAP_META, 0, "event=cpu-clock\n", 16))
		return -1;
	so.cap = w;
	s = session__new(&so, ksyms__new("", 0));
	if (!s)
		return -1;
	ret = session__pev(s, &anon);
	for (i = 0; i < NR_SAMPLES && !ret; i++) {
		size_t n = synth_sample(buf, i + 1, (i + 1) * 1000000ULL, 0, pid, "jitted",
					KPROF_MISC_USER, ips, 0, 3);

		ret = session__record(s, 0, buf, n);
	}
	if (!ret)
		ret = session__flush(s, 1);
	if (!ret)
		ret = session__save_dsos(s, w);
	session__free(s);
	return capture__close(w) || ret;
}

/* Every frame of want_fmt NR_SAMPLES times in what CMD prints. */
static void expect_frames(struct __test_metadata *_metadata, const char *cmd,
			  const char *map)
{
	char *txt = cmd_output(cmd);
	char want[256];
	unsigned int i;

	ASSERT_NE(NULL, txt) TH_LOG("%s failed", cmd);
	for (i = 0; i < sizeof(want_fmt) / sizeof(want_fmt[0]); i++) {
		snprintf(want, sizeof(want), want_fmt[i], map);
		EXPECT_EQ(NR_SAMPLES, count_occurrences(txt, want))
			TH_LOG("want %d of '%s' from %s:\n%s", NR_SAMPLES, want, cmd, txt);
	}
	free(txt);
}

TEST_F(jit, frames_named_from_the_map_and_from_the_capture)
{
	char cmd[3 * PATH_MAX];

	ASSERT_EQ(0, write_map(self->map, "w", map_text));
	ASSERT_EQ(0, record(self->cap, self->pid));
	ASSERT_EQ(0, unlink(self->map));

	snprintf(cmd, sizeof(cmd), "%s -i %s", self->kprofcat, self->cap);
	expect_frames(_metadata, cmd, self->map);

	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf) for the converted file: make deps");
	ASSERT_EQ(0, write_map(self->map, "w", map_text));
	snprintf(cmd, sizeof(cmd), "%s convert --to-perf-data %s.data -i %s 2>/dev/null",
		 self->kprofcat, self->cap, self->cap);
	ASSERT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "perf script -i %s.data --symfs %s.data.symfs -F ip,sym,symoff,dso 2>/dev/null",
		 self->cap, self->cap);
	expect_frames(_metadata, cmd, self->map);
}

TEST_F(jit, map_read_again_once_it_grows)
{
	struct pev anon = { .type = PEV_MMAP, .pid = self->pid, .start = JIT_START,
			    .len = JIT_LEN, .path = "//anon" };
	const char *first_line_end = strchr(map_text, '\n') + 1;
	char first[64];
	struct usyms *u = usyms__new();
	struct usym r;
	const char *hot;

	ASSERT_NE(NULL, u);
	snprintf(first, sizeof(first), "%.*s", (int)(first_line_end - map_text), map_text);
	ASSERT_EQ(0, write_map(self->map, "w", first));
	ASSERT_EQ(0, usyms__apply(u, &anon));
	ASSERT_EQ(0, usyms__resolve(u, self->pid, 1, 0x7f1000000110ULL, &r));
	hot = r.name;
	ASSERT_STREQ("jit_hot", hot);
	/* Not in the map yet: unnamed, and not an answer to keep. */
	ASSERT_EQ(-ENOENT, usyms__resolve(u, self->pid, 2, 0x7f1000000205ULL, &r));
	EXPECT_EQ(0, r.stable);
	ASSERT_EQ(0, write_map(self->map, "a", first_line_end));
	ASSERT_EQ(0, usyms__resolve(u, self->pid, 3, 0x7f1000000205ULL, &r));
	EXPECT_STREQ("LazyCompile:*spin /srv/app.js:12", r.name);
	EXPECT_EQ(5, r.off);
	EXPECT_STREQ("jit_hot", hot);
	usyms__free(u);
}

/* OUTPUT/REL, beside this test's OUTPUT/host/jitmap_test; -1: not built. */
static int test_output(char *buf, size_t len, const char *rel)
{
	char self_exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	if (n <= 0)
		return -1;
	self_exe[n] = '\0';
	snprintf(buf, len, "%s/../%s", dirname(self_exe), rel);
	return access(buf, X_OK);
}

/*
 * perf record (cpu-clock every 250 us, -g) of the command ARGS into
 * CAP.data, turned into the capture CAP by perf2kpcap (as
 * tests/host/convert-check does), while the JIT's map is still there;
 * *OUT: what the command printed.  1: perf cannot sample here, -1: the
 * command or the conversion failed (*OUT NULL if the command did).
 */
static int perf_capture(const char *cap, const char *args, char **out)
{
	char p2k[PATH_MAX], cmd[4 * PATH_MAX];

	*out = NULL;
	if (test_output(p2k, sizeof(p2k), "tools/perf2kpcap"))
		return -1;
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -g -o %s.data -- true 2>/dev/null",
		 cap);
	if (system(cmd))
		return 1;
	snprintf(cmd, sizeof(cmd), "%s.data", cap);
	unlink(cmd);
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -c 250000 -g --sample-cpu -o %s.data -- %s 2>/dev/null",
		 cap, args);
	*out = cmd_output(cmd);
	if (!*out)
		return -1;
	snprintf(cmd, sizeof(cmd), "perf report -D -i %s.data 2>/dev/null | %s %s >/dev/null",
		 cap, p2k, cap);
	return system(cmd) ? -1 : 0;
}

/* Each sample's frames in a JIT map, as one printer printed them. */
struct jit_samples {
	char *lines;	/* a line a sample: those frames, " | " between */
	int samples;	/* runs of frame lines (lines starting with a tab) */
	int with_jit;	/* samples with a frame in the map */
	int frames;	/* frames in the map */
};

/* TXT's samples, each the frames that end in " (MAP)"; -1: no memory. */
static int jit_by_sample(const char *txt, const char *map, struct jit_samples *js)
{
	char want[80], *o;
	const char *line, *nl;
	size_t wl;
	int in_sample = 0, jit = 0;

	snprintf(want, sizeof(want), " (%s)", map);
	wl = strlen(want);
	memset(js, 0, sizeof(*js));
	js->lines = malloc(2 * strlen(txt) + 2);
	o = js->lines;
	if (!o)
		return -1;
	for (line = txt; *line; line = *nl ? nl + 1 : nl) {
		size_t l;

		nl = line + strcspn(line, "\n");
		l = nl - line;
		if (line[0] != '\t') {
			if (in_sample)
				*o++ = '\n';
			in_sample = 0;
			jit = 0;
			continue;
		}
		js->samples += !in_sample;
		in_sample = 1;
		if (l < wl || memcmp(line + l - wl, want, wl))
			continue;
		line += strspn(line, "\t ");
		o += sprintf(o, "%s%.*s", jit ? " | " : "", (int)(nl - line), line);
		js->with_jit += !jit;
		js->frames++;
		jit = 1;
	}
	if (in_sample)
		*o++ = '\n';
	*o = '\0';
	return 0;
}

/* How many samples' lines of A and B differ; the first is printed. */
static int samples_differing(const char *a, const char *b)
{
	int n = 0, i = 0;

	while (*a || *b) {
		size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");

		if (la != lb || memcmp(a, b, la)) {
			if (!n++)
				ksft_print_msg("sample %d: perf script '%.*s', kprofcat -i '%.*s'\n",
					       i, (int)la, a, (int)lb, b);
		}
		a += la + !!a[la];
		b += lb + !!b[lb];
		i++;
	}
	fflush(stdout);
	return n;
}

/*
 * kprofcat -i CAP and perf script on CAP.data, with MAP in place, each
 * sample's frames in MAP: into *K and *P; 0 if both printed.
 */
static int both_printers(const char *kprofcat, const char *cap, const char *map,
			 struct jit_samples *k, struct jit_samples *p)
{
	char cmd[3 * PATH_MAX], *kp, *pf;
	int ret;

	snprintf(cmd, sizeof(cmd), "%s -i %s", kprofcat, cap);
	kp = cmd_output(cmd);
	snprintf(cmd, sizeof(cmd), "perf script -i %s.data -F ip,sym,symoff,dso 2>/dev/null", cap);
	pf = cmd_output(cmd);
	ret = !kp || !pf || jit_by_sample(kp, map, k) || jit_by_sample(pf, map, p);
	free(kp);
	free(pf);
	return ret;
}

TEST_F(jit, perf_record_of_a_jit_reads_as_perf_script)
{
	char prog[PATH_MAX], args[PATH_MAX + 8], *out;
	struct jit_samples k, p;
	int ret;

	ASSERT_EQ(0, test_output(prog, sizeof(prog), "progs/jitspin"))
		TH_LOG("make tests builds %s", prog);
	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf): make deps");
	snprintf(args, sizeof(args), "%s 1", prog);
	ret = perf_capture(self->cap, args, &out);
	if (ret > 0)
		SKIP(return, "perf record cannot sample here (perf_event_paranoid?)");
	ASSERT_NE(NULL, out) TH_LOG("%s failed under perf record", args);
	/* jitspin prints its map's path; the teardown removes it. */
	ASSERT_EQ(1, sscanf(out, "%63s", self->map));
	free(out);
	ASSERT_EQ(0, ret) TH_LOG("make tests builds tools/perf2kpcap");
	ASSERT_EQ(0, both_printers(self->kprofcat, self->cap, self->map, &k, &p));
	ksft_print_msg("jitspin: %d samples, %d with frames in %s, %d frames; kprofcat -i: %d, %d, %d\n",
		       p.samples, p.with_jit, self->map, p.frames, k.samples, k.with_jit, k.frames);
	fflush(stdout);	/* the harness's child ends with _exit() */
	ASSERT_LT(0, p.frames) TH_LOG("perf script printed no frame in %s", self->map);
	EXPECT_LT(0, count_occurrences(p.lines, " jit_spin_a+0x"));
	EXPECT_LT(0, count_occurrences(p.lines, " LazyCompile:*spin_b /srv/b.js:7+0x"));
	EXPECT_EQ(p.samples, k.samples);
	EXPECT_EQ(0, samples_differing(p.lines, k.lines));
	free(p.lines);
	free(k.lines);
}

/*
 * Debian's node (nodejs), V8 naming its code in /tmp/perf-PID.map
 * (--perf-basic-prof; --interpreted-frames-native-stack gives interpreted
 * functions code of their own to name), running progs/jithot.js: every
 * sample's frames in that map, as kprofcat -i and perf script print them,
 * the same, and hot() compiled and named among them.
 */
TEST_F(jit, node_perf_basic_prof_reads_as_perf_script)
{
	const char *js = KPROF_TREE "/tests/progs/jithot.js";
	char args[PATH_MAX + 80], hot[PATH_MAX + 8], dir[80], *out, *ver;
	struct jit_samples k, p;
	int ret, hot_p, hot_k;

	if (system("command -v node >/dev/null"))
		SKIP(return, "no node (Debian's nodejs): make deps");
	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf): make deps");
	ver = cmd_output("node --version");
	ASSERT_NE(NULL, ver) TH_LOG("node --version failed");
	ver[strcspn(ver, "\n")] = '\0';
	/* V8 also writes isolate-*-v8.log, where node runs: in CAP.d. */
	snprintf(dir, sizeof(dir), "%s.d", self->cap);
	ASSERT_EQ(0, mkdir(dir, 0700));
	ASSERT_EQ(0, chdir(dir));
	snprintf(args, sizeof(args), "node --perf-basic-prof --interpreted-frames-native-stack %s 1.5",
		 js);
	ret = perf_capture(self->cap, args, &out);
	if (ret > 0)
		SKIP(free(ver); return, "perf record cannot sample here (perf_event_paranoid?)");
	ASSERT_NE(NULL, out) TH_LOG("%s failed under perf record", args);
	/* jithot.js prints node's map's path; the teardown removes it. */
	ASSERT_EQ(1, sscanf(out, "%63s", self->map)) TH_LOG("node printed '%s'", out);
	free(out);
	ASSERT_EQ(0, ret) TH_LOG("make tests builds tools/perf2kpcap");
	ASSERT_EQ(0, both_printers(self->kprofcat, self->cap, self->map, &k, &p));
	/* "LazyCompile:*hot JS:2" (node 18), "JS:*hot JS:2:13" (node 20) */
	snprintf(hot, sizeof(hot), "hot %s:", js);
	hot_p = count_occurrences(p.lines, hot);
	hot_k = count_occurrences(k.lines, hot);
	ksft_print_msg("node %s: %d samples, %d with frames in %s, %d frames, %d in hot(); kprofcat -i: %d, %d, %d, %d\n",
		       ver, p.samples, p.with_jit, self->map, p.frames, hot_p,
		       k.samples, k.with_jit, k.frames, hot_k);
	fflush(stdout);
	free(ver);
	ASSERT_LT(0, p.frames) TH_LOG("perf script printed no frame in %s", self->map);
	EXPECT_LT(0, hot_p) TH_LOG("perf script named no frame of hot() (%s)", hot);
	EXPECT_EQ(p.samples, k.samples);
	EXPECT_EQ(p.frames, k.frames);
	EXPECT_EQ(hot_p, hot_k);
	EXPECT_EQ(0, samples_differing(p.lines, k.lines));
	free(p.lines);
	free(k.lines);
}

TEST_HARNESS_MAIN
