// SPDX-License-Identifier: GPL-2.0
/*
 * debuginfo.c - dwfl_standard_find_debuginfo() without an idle
 * libdebuginfod (debuginfo.h).
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
 * server the search ends with the build-id step's answer.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/unwind/debuginfo.h"

#define DEBUG_ROOT	"/usr/lib/debug"

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
	const char *names[4] = { debuglink, NULL, slash + 1, NULL };
	char dir[PATH_MAX], in[PATH_MAX], local[PATH_MAX];
	const char *const subs[] = { "", "/.debug", "/.dwz" };
	unsigned int i;

	if (file[0] != '/' || (size_t)(slash - file) >= sizeof(dir))
		return true;
	memcpy(dir, file, slash - file);
	dir[slash - file] = '\0';
	if (debuglink)
		names[1] = strrchr(debuglink, '/') ? strrchr(debuglink, '/') + 1 : debuglink;
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

int unwind_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	const unsigned char *bits;
	GElf_Addr vaddr;

	if (!mod || (urls && *urls) || search_may_find(file_name, debuglink_file))
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	if (dwfl_module_build_id(mod, &bits, &vaddr) <= 0)
		return -1;
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}
