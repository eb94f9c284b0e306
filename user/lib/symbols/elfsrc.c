// SPDX-License-Identifier: GPL-2.0
/*
 * elfsrc.c - the ELF file a DSO's symbols are read from (see elfsrc.h),
 * found and opened the way perf's symsrc__init() / dso__load() do.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "lib/symbols/elfsrc.h"

void elfsrc__close(struct elfsrc *s)
{
	if (s->elf)
		elf_end(s->elf);
	if (s->fd >= 0)
		close(s->fd);
	free(s->image);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

Elf_Scn *elfsrc__section(Elf *elf, const char *name, GElf_Shdr *sh, size_t *idx)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, sh))
			continue;
		n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

int elfsrc__build_id(Elf *elf, unsigned char *bid, size_t size)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);

	if (n <= 0 || (size_t)n > size)
		return 0;
	memcpy(bid, p, n);
	return n;
}

/* Whether ELF's build-id is the BID_LEN bytes at BID. */
static int has_build_id(Elf *elf, const unsigned char *bid, size_t bid_len)
{
	const void *p;

	return dwelf_elf_gnu_build_id(elf, &p) == (ssize_t)bid_len && !memcmp(p, bid, bid_len);
}

static int is_regular(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The .symtab and .dynsym perf reads: one of another type counts as none. */
static void find_tables(struct elfsrc *s)
{
	GElf_Shdr sh;

	s->symtab = elfsrc__section(s->elf, ".symtab", &sh, NULL);
	if (s->symtab && sh.sh_type != SHT_SYMTAB)
		s->symtab = NULL;
	s->dynsym = elfsrc__section(s->elf, ".dynsym", &sh, &s->dynsym_idx);
	if (s->dynsym && sh.sh_type != SHT_DYNSYM)
		s->dynsym = NULL;
}

/* symsrc__init(): open, and refuse a file whose build-id is not the DSO's. */
int elfsrc__open(struct elfsrc *s, const char *path, const unsigned char *bid,
		 size_t bid_len)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	elf_version(EV_CURRENT);
	if (!is_regular(path))
		return -ENOENT;
	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	s->elf = elf_begin(s->fd, ELF_C_READ_MMAP, NULL);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF)
		goto fail;
	if (bid_len && !has_build_id(s->elf, bid, bid_len))
		goto fail;
	find_tables(s);
	return 0;
fail:
	elfsrc__close(s);
	return -ENOENT;
}

/* This process's vDSO, as perf's vdso.c copies its own. */
int elfsrc__open_vdso(struct elfsrc *s)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	unsigned long long start, end;
	char line[256];
	FILE *f;

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	elf_version(EV_CURRENT);
	if (!base)
		return -ENOENT;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	start = 0;
	end = 0;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(f);
	if (start != base || end <= start)
		return -ENOENT;
	s->image = malloc(end - start);
	if (!s->image)
		return -ENOMEM;
	memcpy(s->image, (const void *)base, end - start);
	s->elf = elf_memory(s->image, end - start);
	if (!s->elf || elf_kind(s->elf) != ELF_K_ELF) {
		elfsrc__close(s);
		return -ENOENT;
	}
	find_tables(s);
	return 0;
}

/* filename__read_debuglink(): the file name .gnu_debuglink holds. */
static int read_debuglink(const char *path, char *out, size_t len)
{
	struct elfsrc s;
	Elf_Data *data;
	GElf_Shdr sh;
	Elf_Scn *scn;
	int ret = -ENOENT;

	if (elfsrc__open(&s, path, NULL, 0))
		return -ENOENT;
	scn = elfsrc__section(s.elf, ".gnu_debuglink", &sh, NULL);
	data = scn ? elf_getdata(scn, NULL) : NULL;
	if (data && data->d_size && memchr(data->d_buf, '\0', data->d_size)) {
		snprintf(out, len, "%s", (const char *)data->d_buf);
		ret = 0;
	}
	elfsrc__close(&s);
	return ret;
}

/* Candidate I of dso__load()'s list (the ones a user DSO can have). */
int elfsrc__candidate(const char *path, const unsigned char *bid, size_t bid_len,
		      int i, char *out, size_t len)
{
	char dir[PATH_MAX], link[PATH_MAX];
	static const char *const links[] = {
		"%.0s%s", "%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s",
	};
	unsigned int j;
	size_t k;

	switch (i) {
	case 0:		/* DEBUGLINK: the first place the named file is */
		if (read_debuglink(path, link, sizeof(link)))
			return -1;
		snprintf(dir, sizeof(dir), "%s", path);
		k = strlen(dir);
		while (k && dir[k] != '/')
			k--;
		dir[k] = '\0';
		for (j = 0; j < sizeof(links) / sizeof(links[0]); j++) {
			snprintf(out, len, links[j], dir, link);
			if (is_regular(out))
				return 0;
		}
		return -1;
	case 1:		/* FEDORA_DEBUGINFO */
		snprintf(out, len, "/usr/lib/debug%s.debug", path);
		return 0;
	case 2:		/* UBUNTU_DEBUGINFO */
		snprintf(out, len, "/usr/lib/debug%s", path);
		return 0;
	case 3:		/* BUILDID_DEBUGINFO */
		if (!bid_len)
			return -1;
		k = snprintf(out, len, "/usr/lib/debug/.build-id/%02x/", bid[0]);
		for (j = 1; j < bid_len && k + 3 < len; j++)
			k += snprintf(out + k, len - k, "%02x", bid[j]);
		snprintf(out + k, len - k, ".debug");
		return 0;
	case 4:		/* SYSTEM_PATH_DSO */
		snprintf(out, len, "%s", path);
		return 0;
	}
	return -1;
}
