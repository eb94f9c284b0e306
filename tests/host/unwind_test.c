// SPDX-License-Identifier: GPL-2.0
/*
 * unwind_test: lib/unwind on stack snapshots of this very process, no perf
 * needed.  A chain of noinline functions takes its registers (IP, SP, BP)
 * and copies 8 KiB of its stack from SP, as the NMI handler will; the
 * unwinder, given this process's maps (/proc/self/maps), must name the
 * chain's functions in order, down to main, each at the address of its
 * call (pc - 1).  Many snapshots of one process build one Dwfl, not one
 * each (perf builds one per sample); a map that replaces the code the
 * Dwfl holds, at the IP or where a caller returns, builds it again; past
 * 64 processes the least recently sampled one's goes, and the maps and
 * frames kept across samples answer for their own times only.  A snapshot cut
 * below the first return address stops the chain there; a file that is
 * not the build-id mapped is not unwound.  The frames of those chains
 * unwind from cached CFI rules (cfi_cache.h); a PLT entry's row, a DWARF
 * expression, is left to libdwfl.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include <gelf.h>
#include <linux/kprof.h>

#include "kselftest_harness.h"

#include "lib/symbols/usyms.h"
#include "lib/unwind/unwind.h"

#define SNAP_BYTES	8192
#define REG_SP_IDX	KPROF_REG_X86_SP
#define REG_BP_IDX	KPROF_REG_X86_BP
#define REG_IP_IDX	KPROF_REG_X86_IP

struct snap {
	uint64_t regs[KPROF_REGS_USER_NR];
	unsigned char stack[SNAP_BYTES];
	uint64_t len;
};

/* The registers here, then the stack above SP (this frame's and its callers'). */
static __attribute__((noinline)) void take(struct snap *s)
{
	uint64_t ip, sp, bp, top;
	FILE *f;
	char line[256];

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	memset(s->regs, 0, sizeof(s->regs));
	s->regs[REG_IP_IDX] = ip;
	s->regs[REG_SP_IDX] = sp;
	s->regs[REG_BP_IDX] = bp;
	/* No further than the stack's end, as the handler's copy stops there. */
	top = sp + SNAP_BYTES;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;

		if (strstr(line, "[stack]") && sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
		    sp >= lo && sp < hi && hi < top)
			top = hi;
	}
	if (f)
		fclose(f);
	s->len = top - sp;
	memcpy(s->stack, (const void *)(uintptr_t)sp, s->len);
}

static __attribute__((noinline)) void inner(struct snap *s)
{
	take(s);
	__asm__ volatile("" ::: "memory");	/* not a tail call */
}

static __attribute__((noinline)) void outer(struct snap *s)
{
	inner(s);
	__asm__ volatile("" ::: "memory");
}

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Whether the snapshot holds the word V (a return address pushed by a call). */
static int holds(const struct snap *s, uint64_t v)
{
	uint64_t i, w;

	for (i = 0; i + 8 <= s->len; i += 8) {
		memcpy(&w, s->stack + i, 8);
		if (w == v)
			return 1;
	}
	return 0;
}

static int apply(void *u, const struct pev *e)
{
	return usyms__apply(u, e);
}

/* This process's executable maps, as of time 0. */
static struct usyms *self_maps(void)
{
	struct usyms *u = usyms__new();
	static char text[1 << 16];
	size_t n;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!u || !f)
		return NULL;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (usyms__parse_maps(getpid(), 0, text, apply, u)) {
		usyms__free(u);
		return NULL;
	}
	return u;
}

/* S as process PID's sample at TIME. */
static struct unwind_sample sample_of(const struct snap *s, uint32_t pid, uint64_t time)
{
	return (struct unwind_sample){ .pid = pid, .time = time, .regs = s->regs,
				       .stack = s->stack, .stack_len = s->len };
}

/*
 * The chain of S at TIME as function names, ";"-separated, leaf first;
 * its addresses in ips[].
 */
static uint64_t ips[KPROF_MAX_STACK];

static unsigned int chain(struct unwind *w, struct usyms *u, const struct snap *s,
			  uint64_t time, char *out, size_t len)
{
	struct unwind_sample us = sample_of(s, getpid(), time);
	unsigned int nr = unwind__chain(w, &us, ips, KPROF_MAX_STACK), i;
	size_t at = 0;

	out[0] = '\0';
	for (i = 0; i < nr && at < len; i++) {
		struct usym r;

		usyms__resolve(u, getpid(), time, ips[i], &r);
		at += snprintf(out + at, len - at, "%s;", r.name ? r.name : "[unknown]");
	}
	return nr;
}

/*
 * This process's maps, an unwinder over them and a snapshot taken
 * through outer(), as every test starts.
 */
FIXTURE(unwind) {
	struct usyms *u;
	struct unwind *w;
	struct snap *s;
};

FIXTURE_SETUP(unwind)
{
	/*
	 * Not on the stack: take() copies the 8 KiB above its SP, which would
	 * hold the copy itself and leave main's frame out.
	 */
	static struct snap s;

	self->u = self_maps();
	ASSERT_NE(NULL, self->u);
	self->w = unwind__new(self->u);
	ASSERT_NE(NULL, self->w);
	self->s = &s;
	outer(self->s);
}

FIXTURE_TEARDOWN(unwind)
{
	unwind__free(self->w);
	usyms__free(self->u);
}

/*
 * E, this process's mmap of PATH (NULL: of the file already there, at its
 * offset), over the map that held S's IP at time 1000, applied to U.
 */
static void map_over_code(struct __test_metadata *_metadata, struct usyms *u,
			  const struct snap *s, struct pev *e, const char *path)
{
	struct usym_map m;

	ASSERT_EQ(0, usyms__map(u, getpid(), 1000, s->regs[REG_IP_IDX], &m));
	e->pid = getpid();
	e->start = m.start;
	e->len = m.end - m.start;
	if (!path) {
		e->pgoff = m.pgoff;
		path = m.path;
	}
	e->path = path;
	ASSERT_EQ(0, usyms__apply(u, e));
}

TEST_F(unwind, chains_name_the_callers_down_to_main)
{
	struct snap *s = self->s;
	char names[4096];
	int i;

	for (i = 0; i < 100; i++) {
		outer(s);
		ASSERT_GE(chain(self->w, self->u, s, 1000 + i, names, sizeof(names)), 4);
		ASSERT_TRUE(starts(names, "take;inner;outer;")) TH_LOG("chain: %s", names);
		ASSERT_NE(NULL, strstr(names, ";main;")) TH_LOG("chain: %s", names);
	}
	/* The first frame at the IP; the others at their return address - 1. */
	EXPECT_EQ(s->regs[REG_IP_IDX], ips[0]);
	EXPECT_TRUE(holds(s, ips[1] + 1));
	EXPECT_TRUE(holds(s, ips[2] + 1));
	/* One Dwfl for the process, reused by every sample. */
	EXPECT_EQ(100, unwind__samples(self->w));
	EXPECT_EQ(1, unwind__builds(self->w));
	/* Every frame from cached rules: plain functions' rows are simple. */
	EXPECT_EQ(0, unwind__dwfl_frames(self->w));
	EXPECT_LE(400, unwind__cached_frames(self->w));
}

TEST_F(unwind, a_stack_cut_short_ends_the_chain)
{
	char names[4096];

	/* Nothing read: perf takes no chain. */
	self->s->len = 0;
	EXPECT_EQ(0, chain(self->w, self->u, self->s, 1000, names, sizeof(names)));
	/* One word: take()'s own frame and no return address. */
	self->s->len = 8;
	chain(self->w, self->u, self->s, 1000, names, sizeof(names));
	EXPECT_TRUE(starts(names, "take;")) TH_LOG("chain: %s", names);
	EXPECT_EQ(NULL, strstr(names, "outer;")) TH_LOG("chain: %s", names);
}

TEST_F(unwind, a_map_replacing_the_code_builds_the_dwfl_again)
{
	struct pev e = { .type = PEV_MMAP, .time = 2000 };
	char names[4096];

	chain(self->w, self->u, self->s, 1000, names, sizeof(names));
	ASSERT_TRUE(starts(names, "take;inner;outer;")) TH_LOG("chain: %s", names);
	/* Another file over this program's code from time 2000 on. */
	map_over_code(_metadata, self->u, self->s, &e, "/bin/true");
	chain(self->w, self->u, self->s, 3000, names, sizeof(names));
	EXPECT_EQ(NULL, strstr(names, "take;inner;outer;")) TH_LOG("chain: %s", names);
	EXPECT_EQ(2, unwind__builds(self->w));
	/* The samples before the new map still unwind through this program. */
	chain(self->w, self->u, self->s, 1500, names, sizeof(names));
	EXPECT_TRUE(starts(names, "take;inner;outer;")) TH_LOG("chain: %s", names);
}

/*
 * The same, the new map known before any sample (as a capture's maps
 * are): the maps the unwinder keeps across a process's samples answer
 * for their own times only, so each side of time 2000 unwinds through
 * its own map, in any order.
 */
TEST_F(unwind, a_map_known_in_advance_answers_from_its_time_on)
{
	struct pev e = { .type = PEV_MMAP, .time = 2000 };
	char before[4096], names[4096];

	map_over_code(_metadata, self->u, self->s, &e, "/bin/true");
	chain(self->w, self->u, self->s, 1000, before, sizeof(before));
	ASSERT_TRUE(starts(before, "take;inner;outer;")) TH_LOG("chain: %s", before);
	/* Each side's module differs from the other's: the Dwfl is built again. */
	chain(self->w, self->u, self->s, 3000, names, sizeof(names));
	EXPECT_EQ(NULL, strstr(names, "take;inner;outer;")) TH_LOG("chain: %s", names);
	EXPECT_EQ(2, unwind__builds(self->w));
	chain(self->w, self->u, self->s, 1500, names, sizeof(names));
	EXPECT_STREQ(before, names);
	EXPECT_EQ(3, unwind__builds(self->w));
}

/*
 * Another file over the code a caller returns to (libc's, past this
 * program's frames): found at that frame, not only at the IP.  The
 * second chain of time 1000 has every frame's module already reported,
 * so the frames it checked are those the unwinder remembers
 * (stepmemo.h); a remembered frame must not stand for another map.
 */
TEST_F(unwind, a_map_replacing_a_callers_code_builds_the_dwfl_again)
{
	struct pev e = { .type = PEV_MMAP, .pid = getpid(), .time = 2000 };
	struct usym_map ip_map, m = { 0 };
	char before[4096], names[4096];
	unsigned int nr, i;

	ASSERT_EQ(0, usyms__map(self->u, getpid(), 1000, self->s->regs[REG_IP_IDX], &ip_map));
	chain(self->w, self->u, self->s, 1000, names, sizeof(names));
	nr = chain(self->w, self->u, self->s, 1000, before, sizeof(before));
	ASSERT_STREQ(names, before);
	for (i = 1; i < nr; i++)
		if (!usyms__map(self->u, getpid(), 1000, ips[i], &m) && m.path != ip_map.path)
			break;
	ASSERT_LT(i, nr) TH_LOG("no frame outside this program: %s", before);
	e.start = m.start;
	e.len = m.end - m.start;
	e.path = "/bin/true";
	ASSERT_EQ(0, usyms__apply(self->u, &e));
	chain(self->w, self->u, self->s, 3000, names, sizeof(names));
	EXPECT_EQ(2, unwind__builds(self->w)) TH_LOG("chain: %s", names);
	EXPECT_STRNE(before, names);
	chain(self->w, self->u, self->s, 1500, names, sizeof(names));
	EXPECT_STREQ(before, names);
}

/*
 * The same, the new map known before any sample: the frames remembered
 * at time 1000 answer for the times their maps do, not at 3000.
 */
TEST_F(unwind, a_map_known_in_advance_over_a_callers_code_answers_from_its_time_on)
{
	struct pev e = { .type = PEV_MMAP, .pid = getpid(), .time = 2000 };
	struct usym_map ip_map, m = { 0 };
	char before[4096], names[4096];
	struct unwind *w;
	struct usyms *u;
	unsigned int nr, i;

	ASSERT_EQ(0, usyms__map(self->u, getpid(), 1000, self->s->regs[REG_IP_IDX], &ip_map));
	nr = chain(self->w, self->u, self->s, 1000, before, sizeof(before));
	for (i = 1; i < nr; i++)
		if (!usyms__map(self->u, getpid(), 1000, ips[i], &m) && m.path != ip_map.path)
			break;
	ASSERT_LT(i, nr) TH_LOG("no frame outside this program: %s", before);
	/* Another reader, knowing of the new map from the start. */
	u = self_maps();
	ASSERT_NE(NULL, u);
	e.start = m.start;
	e.len = m.end - m.start;
	e.path = "/bin/true";
	ASSERT_EQ(0, usyms__apply(u, &e));
	w = unwind__new(u);
	ASSERT_NE(NULL, w);
	chain(w, u, self->s, 1000, names, sizeof(names));
	EXPECT_STREQ(before, names);
	chain(w, u, self->s, 1000, names, sizeof(names));
	EXPECT_STREQ(before, names);
	chain(w, u, self->s, 3000, names, sizeof(names));
	EXPECT_EQ(2, unwind__builds(w)) TH_LOG("chain: %s", names);
	EXPECT_STRNE(before, names);
	chain(w, u, self->s, 1500, names, sizeof(names));
	EXPECT_STREQ(before, names);
	unwind__free(w);
	usyms__free(u);
}

TEST_F(unwind, a_file_without_the_build_id_mapped_is_not_unwound)
{
	struct pev e = { .type = PEV_MMAP, .bid_len = 20, .build_id = { 0xde, 0xad } };
	char names[4096];

	/* The process mapped this program's file with another build-id. */
	map_over_code(_metadata, self->u, self->s, &e, NULL);
	EXPECT_EQ(0, chain(self->w, self->u, self->s, 1000, names, sizeof(names)))
		TH_LOG("chain: %s", names);
}

TEST_F(unwind, the_least_recently_used_states_go_past_64_processes)
{
	struct unwind_sample us = sample_of(self->s, 0, 1000);
	struct pev e = { .type = PEV_FORK, .ppid = getpid() };
	uint32_t pid;

	/* 70 processes with this one's maps (forked at time 0), one sample each. */
	for (pid = 1; pid <= 70; pid++) {
		e.pid = 0x100000 + pid;
		ASSERT_EQ(0, usyms__apply(self->u, &e));
		us.pid = e.pid;
		ASSERT_GE(unwind__chain(self->w, &us, ips, KPROF_MAX_STACK), 4);
	}
	EXPECT_EQ(70, unwind__builds(self->w));
	/* The newest keeps its state; the oldest lost it to the 64 newer ones. */
	us.pid = 0x100000 + 70;
	unwind__chain(self->w, &us, ips, KPROF_MAX_STACK);
	EXPECT_EQ(70, unwind__builds(self->w));
	us.pid = 0x100000 + 1;
	EXPECT_GE(unwind__chain(self->w, &us, ips, KPROF_MAX_STACK), 4);
	EXPECT_EQ(71, unwind__builds(self->w));
}

/* Where ELF, this program's file, is loaded: AT_PHDR less PT_PHDR's address. */
static uint64_t load_bias(Elf *elf)
{
	size_t i, n;
	GElf_Phdr ph;

	for (i = 0; !elf_getphdrnum(elf, &n) && i < n; i++)
		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_PHDR)
			return getauxval(AT_PHDR) - ph.p_vaddr;
	return 0;
}

/*
 * Where this program's first PLT entry lies (past the PLT's head): its
 * CFA is a DWARF expression of %rip (DW_CFA_def_cfa_expression); 0 if
 * the program has no .plt.
 */
static uint64_t plt_entry(void)
{
	uint64_t bias, at = 0;
	int fd = open("/proc/self/exe", O_RDONLY);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	bias = elf ? load_bias(elf) : 0;
	while (elf && !elf_getshdrstrndx(elf, &shstrndx) && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    !strcmp(elf_strptr(elf, shstrndx, sh.sh_name) ?: "", ".plt"))
			at = bias + sh.sh_addr + 16;
	elf_end(elf);
	close(fd);
	return at;
}

TEST_F(unwind, a_plt_entry_is_unwound_by_libdwfl)
{
	char names[4096];

	self->s->regs[REG_IP_IDX] = plt_entry();
	ASSERT_NE(0, self->s->regs[REG_IP_IDX]);
	ASSERT_LE(1, chain(self->w, self->u, self->s, 1000, names, sizeof(names)));
	EXPECT_NE(NULL, strstr(names, "@plt;")) TH_LOG("chain: %s", names);
	EXPECT_EQ(0, unwind__cached_frames(self->w));
	EXPECT_LE(1, unwind__dwfl_frames(self->w));
}

TEST_HARNESS_MAIN
