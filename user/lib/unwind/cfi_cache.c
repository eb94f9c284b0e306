// SPDX-License-Identifier: GPL-2.0
/*
 * cfi_cache.c - x86-64 CFI rows reduced to rules, cached per (file,
 * address), and libdwfl's unwinding step over them (cfi_cache.h).
 *
 * The row is the one libdwfl's __libdwfl_frame_unwind() takes: the
 * module's .eh_frame first, its .debug_frame when .eh_frame has no FDE
 * for the address.  handle_cfi() then evaluates every register 0-16 in
 * turn, as libdw's dwarf_frame_register() gives its rule: undefined (the
 * register is unknown in the caller), same value (copied when known),
 * CFA + N (read from memory), CFA + N as a value; the CFA being
 * "DW_OP_bregx reg, off" (dwarf_frame_cfa()).  A rule here is a row
 * whose CFA register is %rsp or %rbp, whose %rsp is CFA + N, whose %rbp
 * and every other register have one of the four rules above, and whose
 * return address (column 16, no signal frame) is saved or undefined.
 */
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <gelf.h>

#include "lib/unwind/cfi_cache.h"

/*
 * Slots: 1 Ki at first, doubled when 3/4 full up to 32 Ki (1.5 MiB), then
 * emptied when 3/4 full, so memory stays bounded: a table as large as a
 * run's rules, as its slots are touched all over.
 */
#define SLOTS_FIRST	(1U << 10)
#define SLOTS_MAX	(1U << 15)
/*
 * Offsets kept: larger ones are left to libdwfl, and so are CFAs outside
 * [OFF_MAX, CFA_MAX): then no read at CFA + offset wraps around, where
 * libdwfl's memory_read fails instead of reading.
 */
#define OFF_MAX		(1 << 20)
#define CFA_MAX		(1ULL << 62)
/* x86-64's DWARF register numbers. */
enum { DW_RBP = 6, DW_RSP = 7, DW_RA = 16 };

/* A register's rule in a row, as handle_cfi() tells them apart. */
enum loc { LOC_UNDEF, LOC_SAME, LOC_SAVED, LOC_VAL, LOC_OTHER };

struct slot {
	const char *file;	/* NULL: empty */
	uint64_t addr;
	struct cfi_rule r;	/* bp: LOC_UNDEF, LOC_SAME or LOC_SAVED */
};

struct cfi_cache {
	struct slot *slots;
	unsigned int nr_slots, used;
};

struct cfi_cache *cfi_cache__new(void)
{
	struct cfi_cache *c = calloc(1, sizeof(*c));

	if (c) {
		c->nr_slots = SLOTS_FIRST;
		c->slots = calloc(c->nr_slots, sizeof(*c->slots));
	}
	if (c && !c->slots) {
		free(c);
		c = NULL;
	}
	return c;
}

void cfi_cache__free(struct cfi_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c);
}

static bool off_ok(int64_t off)
{
	return off > -OFF_MAX && off < OFF_MAX;
}

/*
 * REGNO's rule in F and its offset from the CFA: the shapes of
 * dwarf_frame_register()'s ops, which libdwfl's expr_eval() runs ([cfa,
 * plus_uconst N]: read at CFA + N; a trailing stack_value: that value).
 */
static enum loc reg_loc(Dwarf_Frame *f, int regno, int32_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n, i = 1;

	*off = 0;
	if (dwarf_frame_register(f, regno, mem, &ops, &n))
		return LOC_OTHER;
	if (!n)
		return ops == mem ? LOC_UNDEF : ops ? LOC_OTHER : LOC_SAME;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return LOC_OTHER;
	if (i < n && ops[i].atom == DW_OP_plus_uconst) {
		if (!off_ok((int64_t)ops[i].number))
			return LOC_OTHER;
		*off = (int32_t)(int64_t)ops[i++].number;
	}
	if (i == n)
		return LOC_SAVED;
	return i + 1 == n && ops[i].atom == DW_OP_stack_value ? LOC_VAL : LOC_OTHER;
}

/* The registers of F into R, in handle_cfi()'s order (the last read counts). */
static bool rule_regs(struct cfi_rule *r, Dwarf_Frame *f)
{
	int32_t off;
	int regno;

	for (regno = 0; regno <= DW_RA; regno++) {
		enum loc l = reg_loc(f, regno, &off);

		if (l == LOC_OTHER)
			return false;
		if (l == LOC_SAVED) {
			r->has_last = true;
			r->last_off = off;
		}
		if (regno == DW_RSP && l != LOC_VAL)
			return false;
		if (regno == DW_RSP)
			r->sp_off = off;
		if (regno == DW_RBP && l == LOC_VAL)
			return false;
		if (regno == DW_RBP) {
			r->bp = l;
			r->bp_off = off;
		}
		if (regno == DW_RA && l != LOC_SAVED && l != LOC_UNDEF)
			return false;
		if (regno == DW_RA) {
			r->ra_saved = l == LOC_SAVED;
			r->ra_off = off;
		}
	}
	return true;
}

/* F's row as a rule: false when it is not a simple one. */
static bool rule_from(struct cfi_rule *r, Dwarf_Frame *f)
{
	Dwarf_Op *ops;
	size_t n;
	bool signal;

	/* A signal frame's caller is an activation: libdwfl's pc rules differ. */
	if (dwarf_frame_info(f, NULL, NULL, &signal) != DW_RA || signal)
		return false;
	if (dwarf_frame_cfa(f, &ops, &n) || n != 1 || ops[0].atom != DW_OP_bregx ||
	    (ops[0].number != DW_RSP && ops[0].number != DW_RBP) ||
	    !off_ok((int64_t)ops[0].number2))
		return false;
	r->cfa_bp = ops[0].number == DW_RBP;
	r->cfa_off = (int32_t)(int64_t)ops[0].number2;
	return rule_regs(r, f);
}

/* Only x86-64 modules: the register numbers above are its. */
static bool x86_64(Dwfl_Module *mod)
{
	GElf_Ehdr ehdr;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);

	return elf && gelf_getehdr(elf, &ehdr) && ehdr.e_ident[EI_CLASS] == ELFCLASS64 &&
	       ehdr.e_machine == EM_X86_64;
}

/* The rule at ADDR in MOD, from the CFI libdwfl would take, in its order. */
static void rule_fill(struct cfi_rule *r, Dwfl_Module *mod, uint64_t addr)
{
	Dwarf_Frame *f = NULL;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi;

	memset(r, 0, sizeof(*r));
	if (!x86_64(mod))
		return;
	cfi = dwfl_module_eh_cfi(mod, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &f)) {
		cfi = dwfl_module_dwarf_cfi(mod, &bias);
		if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &f))
			return;
	}
	r->simple = rule_from(r, f);
	free(f);
}

static unsigned int hash(const char *file, uint64_t off)
{
	uint64_t h = ((uintptr_t)file ^ off * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;

	return (unsigned int)(h >> 32);
}

/* An empty slot for (FILE, OFF), which C does not hold. */
static struct slot *free_slot(struct cfi_cache *c, const char *file, uint64_t off)
{
	unsigned int mask = c->nr_slots - 1, i = hash(file, off) & mask;

	while (c->slots[i].file)
		i = (i + 1) & mask;
	return &c->slots[i];
}

/* Room for one more rule: a table twice as large, or (at the largest) an empty one. */
static void make_room(struct cfi_cache *c)
{
	struct slot *old = c->slots, *s;
	unsigned int i, n = c->nr_slots;

	if (c->used < n / 4 * 3)
		return;
	if (n < SLOTS_MAX) {
		s = calloc(n * 2, sizeof(*s));
		if (s) {
			c->slots = s;
			c->nr_slots = n * 2;
			for (i = 0; i < n; i++)
				if (old[i].file)
					*free_slot(c, old[i].file, old[i].addr) = old[i];
			free(old);
			return;
		}
	}
	memset(c->slots, 0, n * sizeof(*c->slots));
	c->used = 0;
}

const struct cfi_rule *cfi_cache__rule(struct cfi_cache *c, Dwfl_Module *mod,
				       const char *file, uint64_t base, uint64_t addr)
{
	uint64_t off = addr - base;
	unsigned int mask = c->nr_slots - 1, i = hash(file, off) & mask;
	struct slot *s;

	for (;; i = (i + 1) & mask) {
		s = &c->slots[i];
		if (!s->file)
			break;
		if (s->file == file && s->addr == off)
			return &s->r;
	}
	make_room(c);
	s = free_slot(c, file, off);
	c->used++;
	s->file = file;
	s->addr = off;
	rule_fill(&s->r, mod, addr);
	return &s->r;
}

static bool mem_read(const struct cfi_mem *mem, uint64_t addr, uint64_t *val)
{
	if (addr >= mem->lo && addr < mem->lim) {
		memcpy(val, mem->bytes + (addr - mem->lo), sizeof(*val));
		return true;
	}
	return mem->read(mem->arg, addr, val);
}

/*
 * handle_cfi()'s results for rule R: %rsp the CFA plus its offset, %rbp
 * known or not, the return address read (0 ends the chain as undefined
 * does), and whether the last read gave 0.
 */
static enum cfi_step step_reading(const struct cfi_rule *r, const struct cfi_regs *regs,
				  struct cfi_regs *next, bool *last_zero,
				  const struct cfi_mem *mem)
{
	uint64_t cfa, v = 0;

	if (!r->simple)
		return CFI_STEP_DWFL;
	if (r->cfa_bp && !regs->bp_set)
		return CFI_STEP_DWFL;
	cfa = (r->cfa_bp ? regs->bp : regs->sp) + (int64_t)r->cfa_off;
	if (cfa < OFF_MAX || cfa >= CFA_MAX)
		return CFI_STEP_DWFL;
	*next = *regs;
	next->sp = cfa + (int64_t)r->sp_off;
	if (r->bp == LOC_UNDEF)
		next->bp_set = false;
	if (r->bp == LOC_SAVED && !mem_read(mem, cfa + (int64_t)r->bp_off, &next->bp))
		return CFI_STEP_DWFL;
	if (r->bp == LOC_SAVED)
		next->bp_set = true;
	if (r->ra_saved && !mem_read(mem, cfa + (int64_t)r->ra_off, &next->pc))
		return CFI_STEP_DWFL;
	if (r->ra_saved && next->pc)
		return CFI_STEP_NEXT;
	*last_zero = false;
	if (r->has_last && !mem_read(mem, cfa + (int64_t)r->last_off, &v))
		return CFI_STEP_DWFL;
	*last_zero = r->has_last && !v;
	return CFI_STEP_END;
}

static bool in_bytes(const struct cfi_mem *mem, uint64_t addr)
{
	return addr >= mem->lo && addr < mem->lim;
}

/*
 * Most steps read a return address other than 0, and %rbp if saved, both
 * from the snapshot's bytes: those are taken here without a call, which
 * would cost this function its registers' saving; any other step is
 * step_reading()'s, with the same results.
 */
enum cfi_step cfi_rule__step(const struct cfi_rule *r, const struct cfi_regs *regs,
			     struct cfi_regs *next, bool *last_zero, const struct cfi_mem *mem)
{
	uint64_t cfa, ra;

	if (!r->simple || !r->ra_saved || (r->cfa_bp && !regs->bp_set))
		return step_reading(r, regs, next, last_zero, mem);
	cfa = (r->cfa_bp ? regs->bp : regs->sp) + (int64_t)r->cfa_off;
	if (cfa < OFF_MAX || cfa >= CFA_MAX || !in_bytes(mem, cfa + (int64_t)r->ra_off) ||
	    (r->bp == LOC_SAVED && !in_bytes(mem, cfa + (int64_t)r->bp_off)))
		return step_reading(r, regs, next, last_zero, mem);
	memcpy(&ra, mem->bytes + (cfa + (int64_t)r->ra_off - mem->lo), sizeof(ra));
	if (!ra)
		return step_reading(r, regs, next, last_zero, mem);
	*next = *regs;
	next->pc = ra;
	next->sp = cfa + (int64_t)r->sp_off;
	if (r->bp == LOC_UNDEF)
		next->bp_set = false;
	if (r->bp == LOC_SAVED) {
		memcpy(&next->bp, mem->bytes + (cfa + (int64_t)r->bp_off - mem->lo),
		       sizeof(next->bp));
		next->bp_set = true;
	}
	return CFI_STEP_NEXT;
}
