// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo.c - dwfl_standard_find_debuginfo(), its build-id step's
 * file from the debug cache, without an idle libdebuginfod (debuginfo.h).
 *
 * The standard search (libdwfl/find-debuginfo.c, elfutils 0.188): when
 * the module has a build-id, dwfl_build_id_find_debuginfo(), whose answer
 * is final when it finds a file or fails otherwise than by finding none;
 * then find_debuginfo_in_path() along the default debug path
 * ":.debug:/usr/lib/debug", for the file's name and, when that is a
 * symlink, its target's; then debuginfod.  The path search only opens
 * files, and ends with nothing when every open fails with ENOENT or
 * ENOTDIR: the names below are every one it can open (more, some), so
 * when none of them exists the path search finds nothing, and without a
 * server the search ends with the build-id step's answer.  When that
 * step finds a file (the only one it looks at on the default path), the
 * search ends there too: that file's inflated copy is the answer.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <elfutils/libdwelf.h>

#include "lib/symbols/dbgcache.h"
#include "lib/unwind/debuginfo.h"

#define DEBUG_ROOT	"/usr/lib/debug"
/* The build-id lengths libdwfl looks up (__libdwfl_open_by_build_id()). */
#define BUILD_ID_MIN	3
#define BUILD_ID_MAX	64

/*
 * Whether PATH may be opened as a debug file: any answer but "no such
 * file" counts as yes, except the main file SELF itself, which try_open()
 * refuses under any name.
 */
static bool may_open(const char *path, const struct stat *self)
{
	struct stat st;

	if (stat(path, &st))
		return errno != ENOENT && errno != ENOTDIR;
	return st.st_ino != self->st_ino || st.st_dev != self->st_dev;
}

/* Whether DIR/NAME may be opened for one of the NR NAMES (NULL ones skipped). */
static bool any_in(const char *dir, const char *const *names, unsigned int nr,
		   const struct stat *self)
{
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (!names[i])
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, names[i]) >= sizeof(path) ||
		    may_open(path, self))
			return true;
	}
	return false;
}

/*
 * Whether find_debuginfo_in_path() may open a file for FILE (absolute)
 * and DEBUGLINK (NULL: none): the names it tries are DEBUGLINK, its
 * basename (an alt file's), FILE's basename and that plus ".debug" (the
 * name made up without a debuglink), in FILE's directory, its .debug and
 * .dwz, and under /usr/lib/debug: its .dwz and FILE's directory with one
 * more leading component chopped off at a time, down to none.
 */
static bool path_may_find(const char *file, const char *debuglink, const struct stat *self)
{
	const char *slash = strrchr(file, '/'), *sub;
	const char *names[4] = { debuglink };
	char dir[PATH_MAX], in[PATH_MAX], local[PATH_MAX];
	const char *const subs[] = { "", "/.debug", "/.dwz" };
	unsigned int i;

	/* A relative name is searched from the working directory: not told apart. */
	if (file[0] != '/' || (size_t)(slash - file) >= sizeof(dir))
		return true;
	memcpy(dir, file, slash - file);
	dir[slash - file] = '\0';
	if (debuglink)
		names[1] = strrchr(debuglink, '/') ? strrchr(debuglink, '/') + 1 : debuglink;
	names[2] = slash + 1;
	if ((size_t)snprintf(local, sizeof(local), "%s.debug", slash + 1) >= sizeof(local))
		return true;
	names[3] = local;
	for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		if ((size_t)snprintf(in, sizeof(in), "%s%s", dir, subs[i]) >= sizeof(in) ||
		    any_in(in, names, 4, self))
			return true;
	}
	if (any_in(DEBUG_ROOT, names, 4, self) || any_in(DEBUG_ROOT "/.dwz", names, 4, self))
		return true;
	for (sub = strchr(dir, '/'); sub && sub[1]; sub = strchr(sub + 1, '/')) {
		if ((size_t)snprintf(in, sizeof(in), DEBUG_ROOT "/%s", sub + 1) >= sizeof(in) ||
		    any_in(in, names, 4, self))
			return true;
	}
	return false;
}

/*
 * The same for FILE and, when it is a symlink, for its target; the main
 * file is FILE's (libdwfl's fstat() of the module's fd: the same file).
 */
static bool search_may_find(const char *file, const char *debuglink)
{
	struct stat self;
	char *canon;
	bool may;

	if (!file || stat(file, &self) || path_may_find(file, debuglink, &self))
		return true;
	canon = realpath(file, NULL);
	may = canon && strcmp(canon, file) && path_may_find(canon, debuglink, &self);
	free(canon);
	return may;
}

/*
 * Whether this is the search for MOD's own debug file, not for its Dwarf's
 * alt file (dwz): libdwfl passes the main file's .gnu_debuglink as
 * dwelf_elf_gnu_debuglink() gives it (the same pointer, or NULL), the
 * alt file's name otherwise.  MOD's main file is open by then (and is a
 * mapped file: ET_DYN or ET_EXEC, nothing to relocate).
 */
static bool own_debug_file(Dwfl_Module *mod, const char *debuglink)
{
	GElf_Addr bias;
	GElf_Word crc;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	return elf && dwelf_elf_gnu_debuglink(elf, &crc) == debuglink;
}

/* Whether FD's ELF file has build-id BID, of LEN bytes. */
static bool has_build_id(int fd, const unsigned char *bid, int len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *got;
	bool same = elf && dwelf_elf_gnu_build_id(elf, &got) == len && !memcmp(got, bid, len);

	elf_end(elf);
	return same;
}

/*
 * The first file the standard search takes for MOD: by build-id,
 * /usr/lib/debug/.build-id/xx/rest.debug (the default path's one
 * absolute directory), if its build-id is MOD's.  Its DWARF is read from
 * the debug cache (dbgcache.h), whose copy has the same sections inflated:
 * libdw would otherwise inflate every debug section of it, 10 MB for
 * libc, to look for a .debug_frame that Debian's debug files do not have.
 * *NAME as libdwfl names it (the real path); -1: no such file.
 */
static int cached_by_build_id(Dwfl_Module *mod, char **name)
{
	char path[sizeof(DEBUG_ROOT "/.build-id/xx/") + 2 * BUILD_ID_MAX + sizeof(".debug")];
	const unsigned char *bid;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bid, &vaddr), n, i, fd;

	if (len < BUILD_ID_MIN || len > BUILD_ID_MAX)
		return -1;
	n = snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%02x/", bid[0]);
	for (i = 1; i < len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", bid[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	fd = dbgcache__open(path);
	if (fd < 0)
		return -1;
	if (!has_build_id(fd, bid, len)) {
		close(fd);
		return -1;
	}
	free(*name);
	*name = realpath(path, NULL);
	if (!*name)
		*name = strdup(path);
	return fd;
}

int unwind_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const unsigned char *bits;
	GElf_Addr vaddr;
	int fd;

	if (mod && own_debug_file(mod, debuglink_file)) {
		fd = cached_by_build_id(mod, debuginfo_file_name);
		if (fd >= 0)
			return fd;
	}
	if (!mod || (urls && *urls) || search_may_find(file_name, debuglink_file))
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	if (dwfl_module_build_id(mod, &bits, &vaddr) <= 0)
		return -1;
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}
