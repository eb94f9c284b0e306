// SPDX-License-Identifier: GPL-2.0
/*
 * dbgcache.c - inflated copies of debug files, by build-id (dbgcache.h).
 *
 * A copy is the original byte for byte, opened with ELF_C_RDWR, each
 * SHF_COMPRESSED section inflated (elf_compress(scn, 0, 0)) and laid out
 * again by elf_update(), as eu-elfcompress -t none does: the notes, the
 * build-id among them, are the original's.  It is written to a temporary
 * file in the cache directory and renamed to its build-id, so a reader
 * sees a whole copy or none; there is no fsync (a copy a crash left
 * short fails the checks and is written again).  The checks read the
 * headers only: bytes changed inside a section's data are not seen, as
 * seeing them would mean reading the whole copy, the cost the cache saves.
 * Only SHF_COMPRESSED sections are inflated: GNU's older .zdebug_*
 * sections (renamed when inflated) leave the file read as it is.
 *
 * The directory is made 0700, as ~/.cache and debuginfod's cache are:
 * its names say which programs this user profiled.  A copy is 0644, as
 * the debug files in /usr/lib/debug it comes from are.  Copies owned by
 * another user are never read (KPROFCAT_DEBUG_CACHE may name a shared
 * directory).
 *
 * Runs may share the cache: each writes its own temporary file, and a
 * copy another run evicts stays readable through the descriptor a run
 * holds.  Each use of a copy sets its mtime to now, and after each copy written
 * the oldest (by mtime) go until the cache holds KPROFCAT_DEBUG_CACHE_MB
 * at most; the copy just written stays, whatever its size.  Temporary
 * files a killed run left behind go when a day old.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gelf.h>

#include "lib/symbols/dbgcache.h"
#include "lib/symbols/elfsrc.h"
#include "lib/util/print.h"

#define BID_MAX		64
#define TMP_MARK	".tmp."
#define TMP_MAX_AGE	(24 * 3600)	/* seconds */

static int disabled, warned;

void dbgcache__disable(void)
{
	disabled = 1;
}

/* The cache directory into DIR; -1: off, or no HOME to put it in. */
static int cache_dir(char *dir, size_t len)
{
	const char *env = getenv("KPROFCAT_DEBUG_CACHE");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (disabled || (env && !strcmp(env, "off")))
		return -1;
	if (env && *env)
		n = snprintf(dir, len, "%s", env);
	else if (xdg && *xdg == '/')
		n = snprintf(dir, len, "%s/kprofcat/debug", xdg);
	else if (home && *home)
		n = snprintf(dir, len, "%s/.cache/kprofcat/debug", home);
	else
		return -1;
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* KPROFCAT_DEBUG_CACHE_MB in bytes, read (and complained about) once a run. */
static unsigned long long limit_bytes(void)
{
	static unsigned long long limit;
	const char *s = getenv("KPROFCAT_DEBUG_CACHE_MB");
	unsigned long long mb;
	char *end;

	if (limit)
		return limit;
	limit = (unsigned long long)DBGCACHE_DEFAULT_MB << 20;
	if (!s || !*s)
		return limit;
	errno = 0;
	mb = strtoull(s, &end, 10);
	if (errno || *end || *s == '-' || mb > (1ULL << 40))
		p_warn("KPROFCAT_DEBUG_CACHE_MB='%s' is not a whole number of MiB (0 to 2^40): the debug cache keeps its default, %d MiB (set it to a number, or unset it)",
		       s, DBGCACHE_DEFAULT_MB);
	else
		limit = mb << 20;
	/* 0 marks "not read yet": one byte evicts as 0 MiB would, all but the new copy. */
	if (!limit)
		limit = 1;
	return limit;
}

static void warn_once(const char *dir, const char *what, const char *why)
{
	if (warned)
		return;
	warned = 1;
	p_warn("debug cache: cannot %s %s (%s): inline frames are read from the compressed debug files, which is slower (set KPROFCAT_DEBUG_CACHE to a writable directory, or to \"off\", or use --no-debug-cache)",
	       what, dir, why);
}

/* Whether ELF has a SHF_COMPRESSED section. */
static int has_compressed(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED))
			return 1;
	return 0;
}

/* Whether the headers and every section with bytes lie inside SIZE bytes. */
static int fits(Elf *elf, off_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;

	if (!gelf_getehdr(elf, &eh) ||
	    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize > (uint64_t)size)
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return 0;
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > (uint64_t)size)
			return 0;
	}
	return 1;
}

/*
 * Whether COPY is ORIG inflated: the same sections (names, types, flags
 * but SHF_COMPRESSED), each compressed one of its inflated size in COPY,
 * every other of its own size.
 */
static int same_shape(Elf *orig, Elf *copy)
{
	size_t n, cn, i;
	GElf_Shdr sh, csh;
	GElf_Chdr ch;

	if (elf_getshdrnum(orig, &n) || elf_getshdrnum(copy, &cn) || n != cn)
		return 0;
	for (i = 1; i < n; i++) {
		Elf_Scn *scn = elf_getscn(orig, i), *cscn = elf_getscn(copy, i);
		uint64_t size;

		if (!gelf_getshdr(scn, &sh) || !gelf_getshdr(cscn, &csh) ||
		    sh.sh_name != csh.sh_name || sh.sh_type != csh.sh_type ||
		    (sh.sh_flags & ~(uint64_t)SHF_COMPRESSED) != csh.sh_flags)
			return 0;
		size = sh.sh_size;
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (!gelf_getchdr(scn, &ch))
				return 0;
			size = ch.ch_size;
		}
		if (sh.sh_type != SHT_NOBITS && size != csh.sh_size)
			return 0;
	}
	return 1;
}

/* PATH opened if it is a sound copy of ORIG, of build-id BID (LEN bytes); else -1. */
static int open_copy(const char *path, Elf *orig, const unsigned char *bid, int len)
{
	unsigned char b[BID_MAX];
	struct stat st;
	Elf *elf = NULL;
	int fd, ok = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid())
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && fits(elf, st.st_size) &&
	    elfsrc__build_id(elf, b, sizeof(b)) == len && !memcmp(b, bid, len) &&
	    same_shape(orig, elf))
		ok = 1;
	elf_end(elf);
	if (!ok) {
		close(fd);
		return -1;
	}
	futimens(fd, NULL);	/* used now: the last to be evicted */
	return fd;
}

/* Copy IN's SIZE bytes to OUT. */
static int copy_bytes(int in, int out, off_t size)
{
	char buf[1 << 16];
	off_t done = 0;

	while (done < size) {
		ssize_t r = pread(in, buf, sizeof(buf), done), w, n = 0;

		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		while (n < r) {
			w = write(out, buf + n, r - n);
			if (w < 0)
				return -errno;
			n += w;
		}
		done += r;
	}
	return 0;
}

/*
 * TMP, holding the original's bytes, with its sections inflated: 0, or
 * -1 and why (errno's, or libelf's, whose write errors leave errno set).
 */
static int inflate(int tmp, const char **why)
{
	Elf *elf = elf_begin(tmp, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err = 0;

	while (elf && !err && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    elf_compress(scn, 0, 0) < 0)
			err = -1;
	errno = 0;
	if (!elf || err || elf_update(elf, ELF_C_WRITE) < 0) {
		*why = errno ? strerror(errno) : elf_errmsg(-1);
		err = -1;
	}
	elf_end(elf);
	return err;
}

static int is_bid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

struct entry {
	char name[2 * BID_MAX + 1];
	time_t mtime;
	off_t size;
};

static int by_mtime(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->mtime > y->mtime) - (x->mtime < y->mtime);
}

/* The oldest copies but KEEP go until the cache holds LIMIT bytes at most. */
static void evict(const char *dir, const char *keep, unsigned long long limit)
{
	unsigned long long total = 0;
	struct entry *v = NULL, *nv;
	size_t nr = 0, cap = 0, i;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd;

	d = opendir(dir);
	if (!d)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (strstr(de->d_name, TMP_MARK)) {
			if (st.st_mtime + TMP_MAX_AGE < time(NULL))
				unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (!is_bid_name(de->d_name) || strlen(de->d_name) >= sizeof(v->name))
			continue;
		total += st.st_size;
		if (!strcmp(de->d_name, keep))
			continue;
		if (nr == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		strcpy(v[nr].name, de->d_name);
		v[nr].mtime = st.st_mtime;
		v[nr].size = st.st_size;
		nr++;
	}
	qsort(v, nr, sizeof(*v), by_mtime);
	for (i = 0; i < nr && total > limit; i++)
		if (!unlinkat(dfd, v[i].name, 0))
			total -= v[i].size;
	free(v);
	closedir(d);
}

/* mkdir -p DIR, the last one 0700. */
static int make_dir(char *dir)
{
	char *p;

	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(dir, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Write the copy of ORIG (FD, SIZE bytes) to DIR/NAME; its descriptor, or -1. */
static int write_copy(int orig_fd, Elf *orig, off_t size, char *dir, const char *name,
		      const unsigned char *bid, int len)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	const char *why = NULL;
	int fd, err, n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s" TMP_MARK "XXXXXX", path) >= (int)sizeof(tmp))
		return -1;
	err = make_dir(dir);
	if (err) {
		warn_once(dir, "make the directory", strerror(-err));
		return -1;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		warn_once(dir, "write in", strerror(errno));
		return -1;
	}
	err = copy_bytes(orig_fd, fd, size);
	if (err)
		why = strerror(-err);
	else if (inflate(fd, &why))
		err = -1;
	if (!err && fchmod(fd, 0644)) {
		err = -1;
		why = strerror(errno);
	}
	close(fd);
	if (!err && rename(tmp, path)) {
		err = -1;
		why = strerror(errno);
	}
	if (err) {
		unlink(tmp);
		warn_once(dir, "write in", why);
		return -1;
	}
	evict(dir, name, limit_bytes());
	return open_copy(path, orig, bid, len);
}

int dbgcache__open(const char *path)
{
	unsigned char bid[BID_MAX];
	char dir[PATH_MAX], name[2 * BID_MAX + 1], cpath[PATH_MAX + sizeof(name)];
	int fd, cfd = -1, len = 0, i;
	struct stat st;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || cache_dir(dir, sizeof(dir)))
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && has_compressed(elf))
		len = elfsrc__build_id(elf, bid, sizeof(bid));
	if (!len || fstat(fd, &st)) {
		elf_end(elf);
		return fd;
	}
	for (i = 0; i < len; i++)
		sprintf(name + 2 * i, "%02x", bid[i]);
	snprintf(cpath, sizeof(cpath), "%s/%s", dir, name);
	cfd = open_copy(cpath, elf, bid, len);
	if (cfd < 0)
		cfd = write_copy(fd, elf, st.st_size, dir, name, bid, len);
	elf_end(elf);
	if (cfd < 0)
		return fd;
	close(fd);
	return cfd;
}
