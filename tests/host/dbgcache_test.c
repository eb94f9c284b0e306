// SPDX-License-Identifier: GPL-2.0
/*
 * dbgcache_test: the cache of inflated debug files inline frames are read
 * from (lib/symbols/dbgcache.h).  The program is tests/progs/inlined
 * (inline_test.c's: mix() inlined into run() at kp_inline_mark) with its
 * .debug_* sections compressed by objcopy, as Debian's debug files are;
 * the cache directory is KPROFCAT_DEBUG_CACHE, a fresh one per test.
 * Each run is a fresh symbolizer asking for the inline chain at the mark,
 * which must be "mix", "run" whatever the cache holds.  Writes fail
 * through RLIMIT_FSIZE, as they would on a full disk.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "kselftest_harness.h"

#include "cmd_output.h"
#include "elf_sym.h"
#include "lib/symbols/usyms.h"

#define MAP_START	0x555555554000ULL
#define PID		4321

/* progs/inlined, built beside this test. */
static int find_prog(char *prog, size_t len)
{
	char tests[PATH_MAX], user[PATH_MAX];

	if (cmd_dirs(tests, sizeof(tests), user, sizeof(user)) ||
	    snprintf(prog, len, "%s/progs/inlined", tests) >= (int)len)
		return -1;
	return access(prog, R_OK);
}

/* PATH's build-id in hex into HEX; how many compressed sections in *NR_Z. */
static int elf_info(const char *path, char *hex, int *nr_z)
{
	int fd = open(path, O_RDONLY), n = -1, i;
	Elf_Scn *scn = NULL;
	const unsigned char *b;
	GElf_Shdr sh;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf)
		n = dwelf_elf_gnu_build_id(elf, (const void **)&b);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", b[i]);
	*nr_z = 0;
	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			(*nr_z)++;
	elf_end(elf);
	close(fd);
	return n > 0 ? 0 : -1;
}

FIXTURE(dc) {
	char dir[64];		/* scratch */
	char cache[128];	/* KPROFCAT_DEBUG_CACHE */
	char prog[128];		/* progs/inlined, compressed */
	char copy[384];		/* where its copy goes */
	char bid[129];
	uint64_t mark;
};

FIXTURE_SETUP(dc)
{
	char orig[PATH_MAX];
	int nr_z;

	ASSERT_EQ(0, find_prog(orig, sizeof(orig))) TH_LOG("build tests/progs/inlined first");
	strcpy(self->dir, "/tmp/dbgcache_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->prog, sizeof(self->prog), "%s/inlined", self->dir);
	ASSERT_EQ(0, cmd_run("objcopy --compress-debug-sections=zlib-gabi %s %s",
			     orig, self->prog));
	ASSERT_EQ(0, elf_info(self->prog, self->bid, &nr_z));
	ASSERT_LT(0, nr_z);
	ASSERT_EQ(0, sym_file_offset(self->prog, "kp_inline_mark", &self->mark));
	snprintf(self->cache, sizeof(self->cache), "%s/cache/kprofcat", self->dir);
	snprintf(self->copy, sizeof(self->copy), "%s/%s", self->cache, self->bid);
	setenv("KPROFCAT_DEBUG_CACHE", self->cache, 1);
	unsetenv("KPROFCAT_DEBUG_CACHE_MB");
}

FIXTURE_TEARDOWN(dc)
{
	cmd_run("rm -rf %s", self->dir);
}

/* One run: PROG's inline chain at the mark is mix, run. */
static void inline_chain(struct __test_metadata *_metadata, const char *prog, uint64_t mark)
{
	struct pev e = { .type = PEV_MMAP, .pid = PID, .time = 0, .start = MAP_START,
			 .len = 1 << 20, .pgoff = 0, .path = prog };
	struct usyms *u = usyms__new();
	const char *const *names;
	struct usym r;

	ASSERT_NE(NULL, u);
	ASSERT_EQ(0, usyms__apply(u, &e));
	ASSERT_EQ(0, usyms__resolve(u, PID, 1, MAP_START + mark, &r));
	EXPECT_STREQ("run", r.name);
	ASSERT_EQ(2, usyms__inlines(u, &r, &names));
	EXPECT_STREQ("mix", names[0]);
	EXPECT_STREQ("run", names[1]);
	usyms__free(u);
}

/* The copy is whole: the program's build-id, nothing compressed. */
static void copy_is_sound(struct __test_metadata *_metadata, const char *copy, const char *bid)
{
	char hex[129] = "";
	int nr_z = -1;

	ASSERT_EQ(0, elf_info(copy, hex, &nr_z)) TH_LOG("no ELF copy at %s", copy);
	EXPECT_STREQ(bid, hex);
	EXPECT_EQ(0, nr_z);
}

static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

TEST_F(dc, cold_run_writes_the_copy_and_names_the_same_frames_as_no_cache)
{
	struct stat st;

	setenv("KPROFCAT_DEBUG_CACHE", "off", 1);
	inline_chain(_metadata, self->prog, self->mark);
	EXPECT_NE(0, access(self->cache, F_OK)) TH_LOG("off wrote %s", self->cache);

	setenv("KPROFCAT_DEBUG_CACHE", self->cache, 1);
	inline_chain(_metadata, self->prog, self->mark);
	copy_is_sound(_metadata, self->copy, self->bid);
	EXPECT_EQ(1, entries(self->cache));	/* no temporary file left */
	ASSERT_EQ(0, stat(self->cache, &st));
	EXPECT_EQ(0700, st.st_mode & 07777);
	ASSERT_EQ(0, stat(self->copy, &st));
	EXPECT_EQ(0644, st.st_mode & 07777);
}

TEST_F(dc, warm_run_reads_the_copy_it_finds)
{
	struct timespec old[2] = { { 1000000000, 0 }, { 1000000000, 0 } };
	struct stat a, b;

	inline_chain(_metadata, self->prog, self->mark);
	ASSERT_EQ(0, utimensat(AT_FDCWD, self->copy, old, 0));
	ASSERT_EQ(0, stat(self->copy, &a));
	inline_chain(_metadata, self->prog, self->mark);
	/* Opened and checked (its mtime says used now), not written again. */
	ASSERT_EQ(0, stat(self->copy, &b));
	EXPECT_EQ(a.st_ino, b.st_ino);
	EXPECT_LT(a.st_mtime, b.st_mtime);
}

TEST_F(dc, a_copy_of_another_build_id_is_replaced)
{
	struct stat a, b;

	/* A sound ELF file with debug info, but another's: this test's own. */
	ASSERT_EQ(0, cmd_run("mkdir -p %s && cp /proc/self/exe %s", self->cache, self->copy));
	ASSERT_EQ(0, stat(self->copy, &a));
	inline_chain(_metadata, self->prog, self->mark);
	copy_is_sound(_metadata, self->copy, self->bid);
	ASSERT_EQ(0, stat(self->copy, &b));
	EXPECT_NE(a.st_ino, b.st_ino);
}

TEST_F(dc, a_copy_still_compressed_is_replaced)
{
	/* The build-id is right, the sections are not inflated. */
	ASSERT_EQ(0, cmd_run("mkdir -p %s && cp %s %s", self->cache, self->prog, self->copy));
	inline_chain(_metadata, self->prog, self->mark);
	copy_is_sound(_metadata, self->copy, self->bid);
}

TEST_F(dc, a_truncated_copy_is_replaced)
{
	struct stat a, b;

	inline_chain(_metadata, self->prog, self->mark);
	ASSERT_EQ(0, stat(self->copy, &a));
	ASSERT_EQ(0, truncate(self->copy, a.st_size / 2));
	inline_chain(_metadata, self->prog, self->mark);
	copy_is_sound(_metadata, self->copy, self->bid);
	ASSERT_EQ(0, stat(self->copy, &b));
	EXPECT_EQ(a.st_size, b.st_size);
	EXPECT_NE(a.st_ino, b.st_ino);
}

/* Two runs, their stderr in DIR/stderr; its text (free it). */
static char *two_runs(struct __test_metadata *_metadata, const char *dir, const char *prog,
		      uint64_t mark)
{
	char err[PATH_MAX];
	int fd, saved;

	snprintf(err, sizeof(err), "%s/stderr", dir);
	fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return NULL;
	fflush(stderr);
	saved = dup(2);
	dup2(fd, 2);
	close(fd);
	inline_chain(_metadata, prog, mark);
	inline_chain(_metadata, prog, mark);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	snprintf(err, sizeof(err), "cat %s/stderr", dir);
	return cmd_output(err);
}

TEST_F(dc, an_unwritable_cache_falls_back_with_one_warning)
{
	char blocker[PATH_MAX], *text;

	/* A directory under a regular file: root cannot make it either. */
	snprintf(blocker, sizeof(blocker), "%s/file", self->dir);
	ASSERT_EQ(0, cmd_run("touch %s", blocker));
	strcat(blocker, "/cache");
	setenv("KPROFCAT_DEBUG_CACHE", blocker, 1);
	text = two_runs(_metadata, self->dir, self->prog, self->mark);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, count_occurrences(text, "warning")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, blocker)) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "KPROFCAT_DEBUG_CACHE")) TH_LOG("%s", text);
	free(text);
}

TEST_F(dc, a_write_that_fails_falls_back_with_one_warning_and_leaves_nothing)
{
	struct rlimit small = { 4096, 4096 };
	char *text;

	/* A full disk, as far as writing goes: files stop at 4 KiB. */
	ASSERT_EQ(0, cmd_run("mkdir -p %s", self->cache));
	signal(SIGXFSZ, SIG_IGN);
	ASSERT_EQ(0, setrlimit(RLIMIT_FSIZE, &small));
	text = two_runs(_metadata, self->dir, self->prog, self->mark);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, count_occurrences(text, "warning")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, self->cache)) TH_LOG("%s", text);
	EXPECT_EQ(0, entries(self->cache)) TH_LOG("a copy or temporary file was left");
	free(text);
}

TEST_F(dc, an_uncompressed_file_is_read_as_it_is)
{
	char orig[PATH_MAX];
	uint64_t mark;

	ASSERT_EQ(0, find_prog(orig, sizeof(orig)));
	ASSERT_EQ(0, sym_file_offset(orig, "kp_inline_mark", &mark));
	inline_chain(_metadata, orig, mark);
	EXPECT_NE(0, access(self->cache, F_OK)) TH_LOG("a copy of an uncompressed file");
}

TEST_F(dc, past_the_limit_the_least_recently_used_copies_go)
{
	char old[PATH_MAX], older[PATH_MAX];

	snprintf(old, sizeof(old), "%s/aaaa", self->cache);
	snprintf(older, sizeof(older), "%s/bbbb", self->cache);
	ASSERT_EQ(0, cmd_run("mkdir -p %s", self->cache));
	ASSERT_EQ(0, cmd_run("head -c 524288 /dev/zero >%s", old));
	ASSERT_EQ(0, cmd_run("head -c 1048576 /dev/zero >%s", older));
	ASSERT_EQ(0, cmd_run("touch -d @1000000000 %s", older));
	ASSERT_EQ(0, cmd_run("touch -d @1100000000 %s", old));
	/* One MiB: the new copy (some KiB) and aaaa fit, bbbb's MiB does not. */
	setenv("KPROFCAT_DEBUG_CACHE_MB", "1", 1);
	inline_chain(_metadata, self->prog, self->mark);
	copy_is_sound(_metadata, self->copy, self->bid);
	EXPECT_NE(0, access(older, F_OK)) TH_LOG("the oldest copy stayed");
	EXPECT_EQ(0, access(old, F_OK)) TH_LOG("a newer copy went too");
}

TEST_HARNESS_MAIN
