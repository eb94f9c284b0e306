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
 * every sample as perf script prints it.
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

static int write_dso(void *w, const void *blob, size_t len)
{
	return capture__write(w, KPCAP_DSO, 0, blob, len);
}

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

	snprintf(cmd, sizeof(cmd), "rm -rf %s %s %s.data %s.data.kallsyms %s.data.symfs",
		 self->map, self->cap, self->cap, self->cap, self->cap);
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
		ret = usyms__save_dsos(session__usyms(s), write_dso, w);
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

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of TXT that end in " (MAP)", sorted, one string; NULL: none. */
static char *jit_frames(char *txt, const char *map)
{
	char want[80], **lines = NULL, *line, *save = NULL, *out;
	size_t n = 0, len = 1, i;

	snprintf(want, sizeof(want), " (%s)", map);
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);

		if (l < strlen(want) || strcmp(line + l - strlen(want), want))
			continue;
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		if (!lines)
			return NULL;
		lines[n++] = line;
		len += l + 1;
	}
	if (!n)
		return NULL;
	qsort(lines, n, sizeof(*lines), cmp_line);
	out = calloc(1, len);
	for (i = 0; out && i < n; i++)
		strcat(strcat(out, lines[i]), "\n");
	free(lines);
	return out;
}

TEST_F(jit, perf_record_of_a_jit_reads_as_perf_script)
{
	char self_exe[PATH_MAX], prog[PATH_MAX + 32], p2k[PATH_MAX + 32], cmd[4 * PATH_MAX];
	char *out, *kp, *pf, *kp_frames, *pf_frames, *dir;
	ssize_t n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);

	ASSERT_LT(0, n);
	self_exe[n] = '\0';
	/* OUTPUT/host/jitmap_test: OUTPUT/progs/jitspin, OUTPUT/tools/perf2kpcap */
	dir = dirname(self_exe);
	snprintf(prog, sizeof(prog), "%s/../progs/jitspin", dir);
	snprintf(p2k, sizeof(p2k), "%s/../tools/perf2kpcap", dir);
	ASSERT_EQ(0, access(prog, X_OK)) TH_LOG("make tests builds %s", prog);
	ASSERT_EQ(0, access(p2k, X_OK)) TH_LOG("make tests builds %s", p2k);
	if (system("command -v perf >/dev/null"))
		SKIP(return, "no perf (linux-perf): make deps");
	snprintf(cmd, sizeof(cmd), "perf record -q -e cpu-clock -c 250000 -g --sample-cpu -o %s.data -- %s 1 2>/dev/null",
		 self->cap, prog);
	out = cmd_output(cmd);
	if (!out)
		SKIP(return, "perf record cannot sample here (perf_event_paranoid?)");
	/* jitspin prints its map's path; the teardown removes it. */
	ASSERT_EQ(1, sscanf(out, "%63s", self->map));
	free(out);
	snprintf(cmd, sizeof(cmd), "perf report -D -i %s.data 2>/dev/null | %s %s >/dev/null",
		 self->cap, p2k, self->cap);
	ASSERT_EQ(0, system(cmd));

	snprintf(cmd, sizeof(cmd), "%s -i %s", self->kprofcat, self->cap);
	kp = cmd_output(cmd);
	snprintf(cmd, sizeof(cmd), "perf script -i %s.data -F ip,sym,symoff,dso 2>/dev/null",
		 self->cap);
	pf = cmd_output(cmd);
	ASSERT_NE(NULL, kp);
	ASSERT_NE(NULL, pf);
	pf_frames = jit_frames(pf, self->map);
	kp_frames = jit_frames(kp, self->map);
	ASSERT_NE(NULL, pf_frames) TH_LOG("perf script printed no frame in %s", self->map);
	EXPECT_LT(0, count_occurrences(pf_frames, " jit_spin_a+0x"));
	EXPECT_LT(0, count_occurrences(pf_frames, " LazyCompile:*spin_b /srv/b.js:7+0x"));
	ASSERT_NE(NULL, kp_frames) TH_LOG("kprofcat printed no frame in %s", self->map);
	EXPECT_STREQ(pf_frames, kp_frames);
	free(pf_frames);
	free(kp_frames);
	free(pf);
	free(kp);
}

TEST_HARNESS_MAIN
