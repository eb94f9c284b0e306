// SPDX-License-Identifier: GPL-2.0
/*
 * unwind.c - libdwfl over a sample's stack snapshot, one Dwfl per process.
 *
 * The steps are those of perf 6.1's util/unwind-libdw.c: a module is
 * reported (dwfl_report_elf() of the mapped file, at the map's start less
 * its file offset) for the sample's IP before the state is attached, and
 * for every frame's pc before libdwfl is asked whether it is an
 * activation; every frame but an activation gives pc - 1, the address
 * perf prints and symbolizes; a frame whose address lies in a map whose
 * file libdwfl cannot read ends the chain without that frame, one outside
 * every map is kept (perf prints it [unknown]).  A sample whose IP is in
 * no map has no user chain: perf's fresh Dwfl has no module then and
 * cannot attach.  Unlike perf, a file whose build-id is not the one the
 * process mapped (side band, or the capture's symbol snapshot) is not
 * unwound: the chain ends before its first frame there, as its symbols
 * are refused.
 *
 * perf as distributions build it (Debian's linux-perf 6.1) unwinds with
 * libunwind instead (util/unwind-libunwind-local.c), and two of its
 * rules show in perf script; they are kept here so both readers print
 * the same chains.  Its memory reads serve the snapshot below its last
 * word ([SP, SP + dyn_size - 8), an off-by-one of perf's), then the mapped
 * file's bytes at the address (access_dso_mem()), and a read neither
 * serves gives 0 without failing (perf returns 1, which libunwind takes
 * for success).  And a return address read as 0 is one more frame,
 * 0 - 1, printed [unknown], where libdwfl just ends: so when the last
 * memory read of the step that ended the chain gave 0 (the return
 * address is the last register a step reads), that frame is added.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elf.h>
#include <elfutils/libdwfl.h>

#include "lib/unwind/cfi_cache.h"
#include "lib/unwind/debuginfo.h"
#include "lib/unwind/modmemo.h"
#include "lib/unwind/stepmemo.h"
#include "lib/unwind/unwind.h"

#define PROC_HASH	1024
/*
 * Dwfl states kept at once: past this, the least recently used one goes
 * (a process that exited, in a run of many short ones), so memory stays
 * bounded by the processes sampled together, not by all of them.
 */
#define MAX_LIVE	64
/* Maps a process's unwinding remembers: its chains' frames lie in a few files. */
#define PROC_MAPS	4
/* Indexes in the sample's regs[] (KPROF_REGS_USER_MASK, kprof.h). */
enum { AX, BX, CX, DX, SI, DI, BP, SP, IP, FLAGS, CS, SS, R8, R9, R10, R11, R12, R13,
	R14, R15 };

/* What a module was reported for, in its userdata: stale when it differs. */
struct modid {
	struct modid *next;
	uint64_t base;
	const char *path;	/* usyms' own string */
	int wrong_file;		/* not the build-id the process mapped */
};

struct uproc {
	struct uproc *next;
	struct unwind *w;
	uint32_t pid;
	Dwfl *dwfl;
	struct modmemo *memo;	/* DWFL's modules by address */
	struct stepmemo *steps;	/* its frames by return address */
	uint64_t reports;	/* modules reported to DWFL */
	int attached;
	struct modid *mods;
	/*
	 * The maps found last for its samples while usyms' generation of the
	 * process is MAPS_GEN: each answers for its addresses and times (an
	 * empty one, for none).
	 */
	struct usym_map maps[PROC_MAPS];
	unsigned int next_map;	/* the one a new map replaces */
	unsigned int last_map;	/* the one sample_map() gave last */
	uint32_t maps_gen;
	/* The sample being unwound, and its chain so far. */
	const struct unwind_sample *s;
	uint64_t *ips;
	unsigned int nr, max;
	uint64_t used;		/* w->ticks at its last sample */
	int stale;		/* a module no longer matches the maps */
	int last_zero;		/* this step's last memory read gave 0 */
};

struct unwind {
	struct usyms *u;
	int vdso_fd;		/* -1: not made yet, -2: none */
	struct uproc *procs[PROC_HASH];
	unsigned int live;	/* procs with a Dwfl */
	uint64_t samples, builds, ticks;
	struct cfi_cache *cfi;	/* all processes': its rules are per file */
	uint64_t cached_frames, dwfl_frames;
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = unwind_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
	.section_address = dwfl_offline_section_address,
};

struct unwind *unwind__new(struct usyms *u)
{
	struct unwind *w = calloc(1, sizeof(*w));

	if (w)
		w->cfi = cfi_cache__new();
	if (w && !w->cfi) {
		free(w);
		w = NULL;
	}
	if (w) {
		w->u = u;
		w->vdso_fd = -1;
	}
	return w;
}

static void proc_reset(struct uproc *p)
{
	if (p->dwfl) {
		dwfl_end(p->dwfl);
		p->w->live--;
	}
	p->dwfl = NULL;
	modmemo__free(p->memo);
	p->memo = NULL;
	stepmemo__free(p->steps);
	p->steps = NULL;
	p->attached = 0;
	while (p->mods) {
		struct modid *m = p->mods->next;

		free(p->mods);
		p->mods = m;
	}
}

void unwind__free(struct unwind *w)
{
	unsigned int i;

	if (!w)
		return;
	for (i = 0; i < PROC_HASH; i++) {
		while (w->procs[i]) {
			struct uproc *p = w->procs[i];

			w->procs[i] = p->next;
			proc_reset(p);
			free(p);
		}
	}
	if (w->vdso_fd >= 0)
		close(w->vdso_fd);
	cfi_cache__free(w->cfi);
	free(w);
}

uint64_t unwind__samples(const struct unwind *w)
{
	return w->samples;
}

uint64_t unwind__builds(const struct unwind *w)
{
	return w->builds;
}

uint64_t unwind__cached_frames(const struct unwind *w)
{
	return w->cached_frames;
}

uint64_t unwind__dwfl_frames(const struct unwind *w)
{
	return w->dwfl_frames;
}

static struct uproc *proc_get(struct unwind *w, uint32_t pid)
{
	struct uproc **head = &w->procs[pid % PROC_HASH], *p;

	for (p = *head; p; p = p->next)
		if (p->pid == pid)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->w = w;
	p->pid = pid;
	p->next = *head;
	*head = p;
	return p;
}

/*
 * This process's vDSO in a memory file, as perf copies its own for
 * "[vdso]" maps (the kernel maps the same one in every process): its fd,
 * or -1.
 */
static int vdso_fd(struct unwind *w)
{
	unsigned long long start = 0, end = 0;
	char line[256];
	ssize_t len;
	FILE *f;

	if (w->vdso_fd != -1)
		return w->vdso_fd < 0 ? -1 : w->vdso_fd;
	w->vdso_fd = -2;
	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2)
			break;
	fclose(f);
	if (!start || end <= start || start != getauxval(AT_SYSINFO_EHDR))
		return -1;
	w->vdso_fd = memfd_create("kprofcat-vdso", MFD_CLOEXEC);
	len = end - start;
	if (w->vdso_fd < 0 || write(w->vdso_fd, (const void *)(uintptr_t)start, len) != len) {
		if (w->vdso_fd >= 0)
			close(w->vdso_fd);
		w->vdso_fd = -2;
		return -1;
	}
	return w->vdso_fd;
}

/* A new fd of the file mapped as PATH, or -1. */
static int open_mapped(struct unwind *w, const char *path)
{
	int fd;

	if (strcmp(path, "[vdso]"))
		return open(path, O_RDONLY | O_CLOEXEC);
	fd = vdso_fd(w);
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
}

/*
 * Whether MOD's file is the one M's process mapped, when its build-id is
 * known: another file at the path (a package upgraded since, a capture
 * read on another machine) has other CFI, and the symbols refuse it too.
 */
static int same_build_id(Dwfl_Module *mod, const struct usym_map *m)
{
	const unsigned char *bid;
	GElf_Addr vaddr;
	int n;

	if (!m->build_id_len)
		return 1;
	n = dwfl_module_build_id(mod, &bid, &vaddr);
	return n > 0 && (size_t)n == m->build_id_len && !memcmp(bid, m->build_id, n);
}

/*
 * The map over ADDR at P's sample's time (usyms__map()), or NULL: a
 * chain asks for its frames' maps twice or more each, its process's
 * chains go through the same few files, and each map found answers for
 * the addresses and times around it.
 */
static const struct usym_map *sample_map(struct uproc *p, uint64_t addr)
{
	uint64_t time = p->s->time;
	struct usym_map *m, found;
	unsigned int i;

	/* The last one found first: a chain's frames come in runs per file. */
	for (i = 0; i < PROC_MAPS; i++) {
		m = &p->maps[(p->last_map + i) % PROC_MAPS];
		if (addr >= m->lo && addr < m->hi && time >= m->from && time < m->to) {
			p->last_map = m - p->maps;
			return m;
		}
	}
	if (usyms__map(p->w->u, p->s->pid, time, addr, &found))
		return NULL;
	p->last_map = p->next_map++ % PROC_MAPS;
	m = &p->maps[p->last_map];
	*m = found;
	return m;
}

/*
 * perf's __report_module(): 0 when PC's module is known (or PC is in no
 * map at all), -1 when its file cannot be a module, -EAGAIN when the
 * module this Dwfl holds over PC is not what the process maps there now.
 */
static int report_module(struct uproc *p, uint64_t pc)
{
	const struct usym_map *m = sample_map(p, pc);
	struct modid *id;
	Dwfl_Module *mod;
	void **userdata, *ud;
	uint64_t base;
	int fd;

	if (!m)
		return 0;
	if (m->jit)		/* perf-PID.map is no ELF file */
		return -1;
	base = m->start - m->pgoff;
	mod = modmemo__addrmodule(p->memo, p->dwfl, pc, &ud);
	if (mod) {
		id = ud;
		/* Paths are usyms' own strings: the same one is the same pointer. */
		if (!id || id->base != base || (id->path != m->path && strcmp(id->path, m->path)))
			return -EAGAIN;
		return id->wrong_file ? -1 : 0;
	}
	id = calloc(1, sizeof(*id));
	fd = open_mapped(p->w, m->path);
	/* The module's fd once reported; still ours if that fails. */
	mod = id && fd >= 0 ? dwfl_report_elf(p->dwfl, m->path, m->path, fd, base, false) : NULL;
	modmemo__clear(p->memo);
	stepmemo__clear(p->steps);
	p->reports++;
	if (!mod) {
		if (fd >= 0)
			close(fd);
		free(id);
		return -1;
	}
	id->base = base;
	id->path = m->path;
	id->next = p->mods;
	p->mods = id;
	dwfl_module_info(mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = id;
	id->wrong_file = !same_build_id(mod, m);
	return !id->wrong_file && dwfl_addrmodule(p->dwfl, pc) == mod ? 0 : -1;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	/* One thread: the sample's. */
	if (*thread_argp)
		return 0;
	*thread_argp = arg;
	return dwfl_pid(dwfl);
}

/* perf's access_dso_mem(): the mapped file's bytes at ADDR. */
static bool read_file(struct uproc *p, uint64_t addr, Dwarf_Word *result)
{
	const struct usym_map *m = sample_map(p, addr);
	ssize_t n;
	int fd;

	if (!m || m->jit)
		return false;
	fd = open_mapped(p->w, m->path);
	if (fd < 0)
		return false;
	n = pread(fd, result, sizeof(*result), addr - m->start + m->pgoff);
	close(fd);
	return n == sizeof(*result);
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct uproc *p = arg;
	uint64_t start = p->s->regs[SP], end = start + p->s->stack_len;

	(void)dwfl;
	if (addr + sizeof(*result) < addr)
		return false;
	if (addr < start || addr + sizeof(*result) >= end) {
		if (!read_file(p, addr, result))
			*result = 0;
	} else {
		memcpy(result, p->s->stack + (addr - start), sizeof(*result));
	}
	p->last_zero = !*result;
	return true;
}

/* The sample's registers in x86-64's DWARF numbering (perf's libdw__arch_...). */
static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct uproc *p = arg;
	const uint64_t *r = p->s->regs;
	Dwarf_Word d[17] = {
		r[AX], r[DX], r[CX], r[BX], r[SI], r[DI], r[BP], r[SP],
		r[R8], r[R9], r[R10], r[R11], r[R12], r[R13], r[R14], r[R15], r[IP],
	};

	return dwfl_thread_state_registers(thread, 0, 17, d);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* perf's frame_callback() and entry(). */
static int frame_callback(Dwfl_Frame *state, void *arg)
{
	struct uproc *p = arg;
	Dwarf_Addr pc;
	bool activation;
	int ret;

	p->last_zero = 0;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* The module first: whether PC is an activation may depend on it. */
	if (report_module(p, pc) == -EAGAIN) {
		p->stale = 1;
		return DWARF_CB_ABORT;
	}
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	if (!activation)
		pc--;
	ret = report_module(p, pc);
	if (ret) {
		p->stale = ret == -EAGAIN;
		return DWARF_CB_ABORT;
	}
	if (pc)
		p->ips[p->nr++] = pc;
	return p->nr == p->max ? DWARF_CB_ABORT : DWARF_CB_OK;
}

static bool cached_read(void *arg, uint64_t addr, uint64_t *val)
{
	struct uproc *p = arg;

	return memory_read(p->dwfl, addr, val, p);
}

/*
 * What memory_read() gives, for cached steps: the words it reads from the
 * snapshot, [SP, SP + stack_len - 8) (none when that wraps), then itself.
 */
static void stack_window(struct uproc *p, struct cfi_mem *mem)
{
	uint64_t start = p->s->regs[SP], end = start + p->s->stack_len;

	mem->lo = start;
	mem->lim = end > start && end - start > sizeof(uint64_t) ? end - sizeof(uint64_t) : start;
	mem->bytes = p->s->stack;
	mem->read = cached_read;
	mem->arg = p;
}

/*
 * __libdwfl_frame_unwind() of frame R, whose row is at ADDR (R's pc, or
 * pc - 1 past the first frame), from the rule cache: the module is the
 * one libdwfl finds there (none: its frame-pointer unwinder, not cached).
 * *RULE: the rule taken (NULL: none), valid until the cache's next rule.
 */
static enum cfi_step cached_step(struct uproc *p, uint64_t addr, const struct cfi_regs *r,
				 struct cfi_regs *next, bool *last_zero,
				 const struct cfi_mem *mem, const struct cfi_rule **rule)
{
	void *ud;
	Dwfl_Module *mod = modmemo__addrmodule(p->memo, p->dwfl, addr, &ud);
	struct modid *id = ud;

	*rule = NULL;
	if (!mod)
		return CFI_STEP_DWFL;
	*rule = cfi_cache__rule(p->w->cfi, mod, id->path, id->base, addr);
	return cfi_rule__step(*rule, r, next, last_zero, mem);
}

/*
 * The rule P's step memo holds for a frame returning to PC (past the
 * first), or NULL and in *KEY where the map it is remembered with
 * answers: the map over PC, when it is over PC - 1 too (report_module()
 * asks at both) and an ELF file's (report_module() of a JIT map is not
 * the module's); else an empty KEY, [0, 0).
 */
static const struct cfi_rule *remembered(struct uproc *p, uint64_t pc, struct stepmemo_key *key)
{
	const struct cfi_rule *rule = stepmemo__find(p->steps, pc, p->maps_gen, p->s->time);
	const struct usym_map *m;

	key->from = 0;
	key->to = 0;
	if (rule)
		return rule;
	m = sample_map(p, pc);
	if (!m || m->jit || pc - 1 < m->lo)
		return NULL;
	key->gen = p->maps_gen;
	key->from = m->from;
	key->to = m->to;
	return NULL;
}

/*
 * P's chain as dwfl_getthread_frames() with frame_callback() makes it,
 * each step from the rule cache, the modules reported in the same order:
 * false, the chain left to libdwfl, when a step is not a cached rule's.
 * A frame is an activation only as the first one: no rule is a signal
 * frame's, and a step that fails is libdwfl's.
 */
static bool cached_chain(struct uproc *p)
{
	const uint64_t *regs = p->s->regs;
	struct cfi_regs r = { regs[IP], regs[SP], regs[BP], true }, next;
	enum cfi_step step = CFI_STEP_END;
	bool initial = true, zero = false;
	const struct cfi_rule *rule;
	struct stepmemo_key key = { 0 };
	struct cfi_mem mem;
	uint64_t pc, reports;
	int ret;

	stack_window(p, &mem);

	for (;; r = next, initial = false) {
		pc = r.pc;
		/*
		 * The IP's frame: unwind_once() found its module just now, and
		 * both report_module() calls would again.
		 */
		if (initial)
			goto frame;
		/*
		 * A frame the memo holds: both report_module() calls would
		 * return what they did when it was added (the same modules,
		 * the same map), neither -EAGAIN nor an end.
		 */
		rule = remembered(p, pc, &key);
		if (rule) {
			step = cfi_rule__step(rule, &r, &next, &zero, &mem);
			if (step == CFI_STEP_DWFL)
				return false;
			pc--;
			goto frame;
		}
		reports = p->reports;
		if (report_module(p, pc) == -EAGAIN) {
			p->stale = 1;
			return true;
		}
		step = cached_step(p, --pc, &r, &next, &zero, &mem, &rule);
		if (step == CFI_STEP_DWFL)
			return false;
		ret = report_module(p, pc);
		if (ret) {
			p->stale = ret == -EAGAIN;
			return true;
		}
		/* Checked with the modules it is found with: none reported since. */
		if (key.from < key.to && rule && reports == p->reports)
			stepmemo__add(p->steps, pc + 1, &key, rule);
frame:
		if (pc)
			p->ips[p->nr++] = pc;
		if (p->nr == p->max)
			return true;
		if (initial) {
			step = cached_step(p, pc, &r, &next, &zero, &mem, &rule);
			if (step == CFI_STEP_DWFL)
				return false;
		}
		if (step == CFI_STEP_END)
			break;
	}
	/* The return address read as 0: as unwind_once() adds it. */
	if (zero && p->nr < p->max)
		p->ips[p->nr++] = (uint64_t)-1;
	return true;
}

/* Past MAX_LIVE Dwfl states, end the least recently used one. */
static void evict(struct unwind *w)
{
	struct uproc *p, *lru = NULL;
	unsigned int i;

	if (w->live < MAX_LIVE)
		return;
	for (i = 0; i < PROC_HASH; i++)
		for (p = w->procs[i]; p; p = p->next)
			if (p->dwfl && (!lru || p->used < lru->used))
				lru = p;
	if (lru)
		proc_reset(lru);
}

/*
 * One try at S's chain with P's Dwfl: 0, or -EAGAIN when P's Dwfl must be
 * built again (a stale module).
 */
static int unwind_once(struct uproc *p)
{
	struct unwind *w = p->w;
	int ret;

	if (!p->dwfl) {
		evict(w);
		p->dwfl = dwfl_begin(&offline_callbacks);
		if (!p->dwfl)
			return 0;
		w->live++;
		p->memo = modmemo__new();
		p->steps = stepmemo__new();
		if (!p->memo || !p->steps) {
			proc_reset(p);
			return 0;
		}
		w->builds++;
	}
	ret = report_module(p, p->s->regs[IP]);
	if (ret)
		return ret == -EAGAIN ? ret : 0;
	if (!p->attached) {
		/* EM_NONE: the machine of the module just reported. */
		if (!dwfl_attach_state(p->dwfl, EM_NONE, p->pid, &thread_callbacks, p))
			return 0;
		p->attached = 1;
	}
	if (cached_chain(p)) {
		w->cached_frames += p->nr;
		return p->stale ? -EAGAIN : 0;
	}
	p->nr = 0;
	p->last_zero = 0;
	ret = dwfl_getthread_frames(p->dwfl, p->pid, frame_callback, p);
	/* The return address read as 0: libdwfl ends there, perf keeps it. */
	if (!ret && p->last_zero && p->nr && p->nr < p->max)
		p->ips[p->nr++] = (uint64_t)-1;
	w->dwfl_frames += p->nr;
	return p->stale ? -EAGAIN : 0;
}

unsigned int unwind__chain(struct unwind *w, const struct unwind_sample *s, uint64_t *ips,
			   unsigned int max)
{
	struct uproc *p;
	uint32_t gen;
	int tries;

	/* perf takes no chain from a sample without registers or stack. */
	if (!s->regs || !s->stack_len || !max)
		return 0;
	w->samples++;
	p = proc_get(w, s->pid);
	if (!p)
		return 0;
	gen = usyms__generation(w->u, s->pid);
	if (gen != p->maps_gen) {
		p->maps_gen = gen;
		memset(p->maps, 0, sizeof(p->maps));	/* [0, 0) holds no address */
	}
	p->s = s;
	if (!sample_map(p, s->regs[IP])) {
		p->s = NULL;
		return 0;
	}
	p->used = ++w->ticks;
	for (tries = 0; tries < 2; tries++) {
		p->ips = ips;
		p->nr = 0;
		p->max = max;
		p->stale = 0;
		if (unwind_once(p) != -EAGAIN)
			break;
		proc_reset(p);
		p->nr = 0;
	}
	p->s = NULL;
	return p->nr;
}
