// SPDX-License-Identifier: GPL-2.0
/*
 * convert_symfs.c - the capture's DSO symbol sections as a directory perf
 * reads with --symfs: DIR/<path> is a small ELF file holding what kprofcat
 * itself symbolizes with, so perf names user frames of a capture recorded
 * elsewhere (another machine, a guest, a program deleted since) as
 * kprofcat -i does.
 *
 * Each file: an ELF64 ET_EXEC header without program headers; one
 * SHT_NOBITS ".text" section at address 0 and file offset 0 over all the
 * symbols (perf turns ET_EXEC symbol addresses into file offsets with
 * sh_addr - sh_offset, here 0: the snapshot's symbols are file offsets
 * already, as perf adjusts them); a .note.gnu.build-id with the DSO's
 * build-id, which perf checks against the MMAP2's; .symtab/.strtab with
 * the snapshot's raw symbols in its order (locals first, as ELF wants:
 * perf's choice among aliases only compares symbols of one binding by
 * order), NAME@plt entries as named symbols.  No code bytes: perf
 * annotate needs the real file.
 *
 * The DSO section is read through dso__blob_view() (dso.h).  Paths must
 * be absolute without ".." components: a capture cannot make kprofcat
 * write outside DIR.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/capture/capture.h"
#include "tool/convert/convert_symfs.h"
#include "lib/symbols/dso.h"
#include "lib/util/print.h"

#define PAD8(x)		(((x) + 7) & ~(size_t)7)
#define PAD4(x)		(((x) + 3) & ~(size_t)3)

struct dso_view {
	struct dso_blob_view b;
	char *strtab;		/* NUL, then every name (plt ones with "@plt") */
	size_t strtab_len;
	uint32_t *name;		/* per symbol, its offset in strtab */
	uint64_t end;		/* past the last symbol */
};

static void view_free(struct dso_view *v)
{
	free(v->strtab);
	free(v->name);
}

/* Parse and check a DSO section; 1 when it has nothing perf could use. */
static int parse_blob(const unsigned char *p, size_t len, struct dso_view *v)
{
	uint32_t i;
	size_t n;

	memset(v, 0, sizeof(*v));
	if (dso__blob_view(p, len, &v->b))
		return -EBADMSG;
	if (!v->b.loaded || !v->b.nr)
		return 1;
	for (i = 0, n = 1; i < v->b.nr; i++) {
		struct dso_blob_sym s;

		dso__blob_sym(&v->b, i, &s);
		n += strlen(s.name) + 5;
	}
	v->strtab = malloc(n);
	v->name = malloc(v->b.nr * sizeof(*v->name));
	if (!v->strtab || !v->name) {
		view_free(v);
		return -ENOMEM;
	}
	v->strtab[0] = '\0';
	v->strtab_len = 1;
	for (i = 0; i < v->b.nr; i++) {
		struct dso_blob_sym s;

		dso__blob_sym(&v->b, i, &s);
		v->name[i] = v->strtab_len;
		v->strtab_len += sprintf(v->strtab + v->strtab_len, "%s%s", s.name,
					 s.plt ? "@plt" : "") + 1;
		if (s.start + s.size > v->end)
			v->end = s.start + s.size;
	}
	return 0;
}

static int safe_path(const char *path)
{
	const char *p = path;

	if (*p != '/')
		return 0;
	while (*p) {
		const char *e = strchr(p + 1, '/');
		size_t n = (e ? e : p + strlen(p)) - (p + 1);

		if (n == 2 && !memcmp(p + 1, "..", 2))
			return 0;
		if (!e)
			break;
		p = e;
	}
	return 1;
}

/* mkdir -p of FILE's directory. */
static int make_dirs(char *file)
{
	char *s;

	for (s = strchr(file + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(file, 0755) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	return 0;
}

/* The ELF image of V in a malloc'd buffer. */
static unsigned char *build_elf(const struct dso_view *v, size_t *out_len)
{
	static const char shstr[] = "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
	enum { N_TEXT = 1, N_NOTE = 7, N_SYMTAB = 26, N_STRTAB = 34, N_SHSTRTAB = 42 };
	uint32_t nsh = 6, i, k, nlocal = 0;
	size_t note_len = sizeof(Elf64_Nhdr) + 4 + PAD4(v->b.build_id_len);
	size_t sym_len = (v->b.nr + 1) * sizeof(Elf64_Sym);
	size_t off_note = sizeof(Elf64_Ehdr), off_sym = PAD8(off_note + note_len);
	size_t off_str = off_sym + sym_len, off_shstr = off_str + v->strtab_len;
	size_t off_sh = PAD8(off_shstr + sizeof(shstr)), len = off_sh + nsh * sizeof(Elf64_Shdr);
	unsigned char *b = calloc(1, len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
	Elf64_Nhdr *nh = (Elf64_Nhdr *)(b + off_note);
	Elf64_Sym *sym = (Elf64_Sym *)(b + off_sym);
	Elf64_Shdr *sh = (Elf64_Shdr *)(b + off_sh);
	int pass;

	if (!b)
		return NULL;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shoff = off_sh;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = nsh;
	eh->e_shstrndx = nsh - 1;

	nh->n_namesz = 4;
	nh->n_descsz = v->b.build_id_len;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(nh + 1, "GNU", 4);
	memcpy((unsigned char *)(nh + 1) + 4, v->b.build_id, v->b.build_id_len);

	/* Locals first (pass 0), then globals and weaks, each in the snapshot's order. */
	for (pass = 0, k = 1; pass < 2; pass++) {
		for (i = 0; i < v->b.nr; i++) {
			struct dso_blob_sym s;
			int local;

			dso__blob_sym(&v->b, i, &s);
			local = s.binding == STB_LOCAL;
			if (local != !pass)
				continue;
			sym[k].st_name = v->name[i];
			sym[k].st_info = ELF64_ST_INFO(s.binding, STT_FUNC);
			sym[k].st_shndx = 1;
			sym[k].st_value = s.start;
			sym[k].st_size = s.size;
			k++;
		}
		if (!pass)
			nlocal = k;
	}
	memcpy(b + off_str, v->strtab, v->strtab_len);
	memcpy(b + off_shstr, shstr, sizeof(shstr));

	sh[1] = (Elf64_Shdr){ .sh_name = N_TEXT, .sh_type = SHT_NOBITS,
			      .sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_size = v->end,
			      .sh_addralign = 1 };
	sh[2] = (Elf64_Shdr){ .sh_name = N_NOTE, .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC,
			      .sh_offset = off_note, .sh_size = note_len, .sh_addralign = 4 };
	sh[3] = (Elf64_Shdr){ .sh_name = N_SYMTAB, .sh_type = SHT_SYMTAB, .sh_offset = off_sym,
			      .sh_size = sym_len, .sh_link = nsh - 2, .sh_info = nlocal,
			      .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	sh[4] = (Elf64_Shdr){ .sh_name = N_STRTAB, .sh_type = SHT_STRTAB, .sh_offset = off_str,
			      .sh_size = v->strtab_len, .sh_addralign = 1 };
	sh[5] = (Elf64_Shdr){ .sh_name = N_SHSTRTAB, .sh_type = SHT_STRTAB,
			      .sh_offset = off_shstr, .sh_size = sizeof(shstr), .sh_addralign = 1 };
	*out_len = len;
	return b;
}

static int write_stub(const char *dir, const struct dso_view *v)
{
	unsigned char *elf;
	char *file;
	size_t len;
	int fd, ret = 0;

	if (!safe_path(v->b.path)) {
		p_warn("capture DSO path '%s' is not absolute or has '..': not written to %s",
		       v->b.path, dir);
		return 0;
	}
	if (asprintf(&file, "%s%s", dir, v->b.path) < 0)
		return -ENOMEM;
	elf = build_elf(v, &len);
	if (!elf) {
		free(file);
		return -ENOMEM;
	}
	ret = make_dirs(file);
	fd = ret ? -1 : open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, elf, len) != (ssize_t)len) {
		p_err("cannot write %s: %s", file, strerror(ret ? -ret : errno));
		ret = -EIO;
	}
	if (fd >= 0 && close(fd) && !ret) {
		p_err("cannot write %s: %s", file, strerror(errno));
		ret = -EIO;
	}
	free(elf);
	free(file);
	return ret;
}

int convert_symfs__write(const char *capture, const char *dir)
{
	struct capture_reader *r = capture__open(capture);
	uint32_t type, arg;
	const void *data;
	size_t len;
	int ret;

	if (!r)
		return -EINVAL;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		p_err("cannot create %s: %s", dir, strerror(errno));
		capture__close_reader(r);
		return -EIO;
	}
	while ((ret = capture__next(r, &type, &arg, &data, &len)) > 0) {
		struct dso_view v;
		int k;

		if (type != KPCAP_DSO)
			continue;
		k = parse_blob(data, len, &v);
		if (k < 0) {
			p_err("capture %s: malformed DSO symbol section", capture);
			ret = k;
			break;
		}
		if (k)
			continue;
		ret = write_stub(dir, &v);
		view_free(&v);
		if (ret)
			break;
	}
	capture__close_reader(r);
	return ret < 0 ? ret : 0;
}
