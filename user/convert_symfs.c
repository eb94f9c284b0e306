// SPDX-License-Identifier: GPL-2.0
/*
 * convert_symfs.c - the capture's DSO symbol sections as a directory perf
 * reads with --symfs: DIR/<path> is a small ELF file holding what kprofcat
 * itself symbolizes with, so perf names user frames of a capture recorded
 * elsewhere (another machine, a guest, a program deleted since) as
 * kprofcat -i does.
 *
 * Each file: an ELF64 ET_EXEC header without program headers; per PT_LOAD
 * segment of the DSO a SHT_NOBITS ".text" section at its vaddr and file
 * offset (perf turns ET_EXEC symbol addresses into file offsets with
 * sh_addr - sh_offset, which is the offset -> vaddr mapping kprofcat uses,
 * for every e_type the original had); a .note.gnu.build-id with the DSO's
 * build-id, which perf checks against the MMAP2's; .symtab/.strtab with
 * the function symbols (locals first, as ELF wants).  No code bytes:
 * perf annotate needs the real file.
 *
 * The DSO section's layout is usyms.c's blob (capture.h, section DSO):
 *	struct { u32 state, path_len, bid_len, nph, nsyms, strtab_len;
 *		 u8 bid[24]; }
 *	path (path_len bytes with its NUL), padded to 8
 *	nph x { u64 offset, vaddr, filesz }
 *	nsyms x { u64 addr, size; u32 name, rank }	rank 0 global, 1 weak, 2 local
 *	strtab_len bytes of names
 * Paths must be absolute without ".." components: a capture cannot make
 * kprofcat write outside DIR.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture.h"
#include "convert.h"
#include "print.h"

#define BLOB_LOADED	1	/* usyms.c's DSO_LOADED */
#define PAD8(x)		(((x) + 7) & ~(size_t)7)
#define PAD4(x)		(((x) + 3) & ~(size_t)3)

struct blob_hdr {
	uint32_t state, path_len, bid_len, nph, nsyms, strtab_len;
	unsigned char bid[24];
};

struct blob_phdr {
	uint64_t offset, vaddr, filesz;
};

struct blob_sym {
	uint64_t addr, size;
	uint32_t name, rank;
};

struct dso_view {
	struct blob_hdr h;
	const char *path;
	const struct blob_phdr *ph;
	const struct blob_sym *syms;
	const char *strtab;
};

/* Parse and check a DSO section; 1 when it has nothing perf could use. */
static int parse_blob(const unsigned char *p, size_t len, struct dso_view *v)
{
	size_t pos, need;
	uint32_t i;

	if (len < sizeof(v->h))
		return -EBADMSG;
	memcpy(&v->h, p, sizeof(v->h));
	if (!v->h.path_len || v->h.path_len > 4096 || v->h.bid_len > 20 ||
	    v->h.nph > 1024 || v->h.nsyms > (1U << 24) || v->h.strtab_len > (1U << 28))
		return -EBADMSG;
	need = sizeof(v->h) + PAD8(v->h.path_len) + (size_t)v->h.nph * sizeof(*v->ph) +
	       (size_t)v->h.nsyms * sizeof(*v->syms) + v->h.strtab_len;
	if (len < need || p[sizeof(v->h) + v->h.path_len - 1])
		return -EBADMSG;
	v->path = (const char *)p + sizeof(v->h);
	pos = sizeof(v->h) + PAD8(v->h.path_len);
	v->ph = (const void *)(p + pos);
	pos += v->h.nph * sizeof(*v->ph);
	v->syms = (const void *)(p + pos);
	pos += v->h.nsyms * sizeof(*v->syms);
	v->strtab = (const char *)p + pos;
	if (v->h.strtab_len && v->strtab[v->h.strtab_len - 1])
		return -EBADMSG;
	for (i = 0; i < v->h.nsyms; i++)
		if (v->syms[i].name >= v->h.strtab_len)
			return -EBADMSG;
	return v->h.state != BLOB_LOADED || !v->h.nsyms || !v->h.nph;
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

static uint16_t section_of(const struct dso_view *v, uint64_t addr)
{
	uint32_t i;

	for (i = 0; i < v->h.nph; i++)
		if (addr >= v->ph[i].vaddr && addr < v->ph[i].vaddr + v->ph[i].filesz)
			return 1 + i;
	return 1;
}

/* The ELF image of V in a malloc'd buffer. */
static unsigned char *build_elf(const struct dso_view *v, size_t *out_len)
{
	static const char shstr[] = "\0.text\0.note.gnu.build-id\0.symtab\0.strtab\0.shstrtab";
	enum { N_TEXT = 1, N_NOTE = 7, N_SYMTAB = 26, N_STRTAB = 34, N_SHSTRTAB = 42 };
	uint32_t nsh = v->h.nph + 5, i, k, nlocal = 0;
	size_t note_len = sizeof(Elf64_Nhdr) + 4 + PAD4(v->h.bid_len);
	size_t sym_len = (v->h.nsyms + 1) * sizeof(Elf64_Sym);
	size_t off_note = sizeof(Elf64_Ehdr), off_sym = PAD8(off_note + note_len);
	/* .strtab is a NUL (st_name 0 is "no name") then the capture's names. */
	size_t off_str = off_sym + sym_len, off_shstr = off_str + 1 + v->h.strtab_len;
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
	nh->n_descsz = v->h.bid_len;
	nh->n_type = NT_GNU_BUILD_ID;
	memcpy(nh + 1, "GNU", 4);
	memcpy((unsigned char *)(nh + 1) + 4, v->h.bid, v->h.bid_len);

	/* Locals first (pass 0), then globals and weaks. */
	for (pass = 0, k = 1; pass < 2; pass++) {
		for (i = 0; i < v->h.nsyms; i++) {
			const struct blob_sym *s = &v->syms[i];
			int bind = s->rank == 0 ? STB_GLOBAL : s->rank == 1 ? STB_WEAK : STB_LOCAL;

			if ((bind == STB_LOCAL) != !pass)
				continue;
			sym[k].st_name = 1 + s->name;
			sym[k].st_info = ELF64_ST_INFO(bind, STT_FUNC);
			sym[k].st_shndx = section_of(v, s->addr);
			sym[k].st_value = s->addr;
			sym[k].st_size = s->size;
			k++;
		}
		if (!pass)
			nlocal = k;
	}
	memcpy(b + off_str + 1, v->strtab, v->h.strtab_len);
	memcpy(b + off_shstr, shstr, sizeof(shstr));

	for (i = 0; i < v->h.nph; i++) {
		sh[1 + i].sh_name = N_TEXT;
		sh[1 + i].sh_type = SHT_NOBITS;
		sh[1 + i].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
		sh[1 + i].sh_addr = v->ph[i].vaddr;
		sh[1 + i].sh_offset = v->ph[i].offset;
		sh[1 + i].sh_size = v->ph[i].filesz;
		sh[1 + i].sh_addralign = 1;
	}
	sh = sh + 1 + v->h.nph;
	sh[0] = (Elf64_Shdr){ .sh_name = N_NOTE, .sh_type = SHT_NOTE, .sh_flags = SHF_ALLOC,
			      .sh_offset = off_note, .sh_size = note_len, .sh_addralign = 4 };
	sh[1] = (Elf64_Shdr){ .sh_name = N_SYMTAB, .sh_type = SHT_SYMTAB, .sh_offset = off_sym,
			      .sh_size = sym_len, .sh_link = nsh - 2, .sh_info = nlocal,
			      .sh_addralign = 8, .sh_entsize = sizeof(Elf64_Sym) };
	sh[2] = (Elf64_Shdr){ .sh_name = N_STRTAB, .sh_type = SHT_STRTAB, .sh_offset = off_str,
			      .sh_size = 1 + v->h.strtab_len, .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = N_SHSTRTAB, .sh_type = SHT_STRTAB,
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

	if (!safe_path(v->path)) {
		p_warn("capture DSO path '%s' is not absolute or has '..': not written to %s",
		       v->path, dir);
		return 0;
	}
	if (asprintf(&file, "%s%s", dir, v->path) < 0)
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
		if (ret)
			break;
	}
	capture__close_reader(r);
	return ret < 0 ? ret : 0;
}
