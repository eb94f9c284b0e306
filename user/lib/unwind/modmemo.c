// SPDX-License-Identifier: GPL-2.0
/*
 * modmemo.c - a direct-mapped memo of dwfl_addrmodule() (modmemo.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/modmemo.h"

/* Slots: 512 (12 KiB), one per address hash; a collision replaces. */
#define MEMO_SLOTS	512

struct memo_slot {
	Dwarf_Addr key;		/* address + 1; 0: empty */
	Dwfl_Module *mod;
	void *userdata;
};

struct modmemo {
	struct memo_slot slots[MEMO_SLOTS];
};

struct modmemo *modmemo__new(void)
{
	return calloc(1, sizeof(struct modmemo));
}

void modmemo__free(struct modmemo *m)
{
	free(m);
}

void modmemo__clear(struct modmemo *m)
{
	memset(m->slots, 0, sizeof(m->slots));
}

static unsigned int slot_of(Dwarf_Addr addr)
{
	return (unsigned int)((addr * 0x9e3779b97f4a7c15ULL) >> 55) & (MEMO_SLOTS - 1);
}

Dwfl_Module *modmemo__addrmodule(struct modmemo *m, Dwfl *dwfl, Dwarf_Addr addr,
				 void **userdata)
{
	struct memo_slot *s = &m->slots[slot_of(addr)];
	void **ud;

	if (s->key && s->key == addr + 1) {
		*userdata = s->userdata;
		return s->mod;
	}
	s->mod = dwfl_addrmodule(dwfl, addr);
	s->userdata = NULL;
	if (s->mod) {
		dwfl_module_info(s->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
		s->userdata = *ud;
	}
	/* The last address (key 0) is looked up every time. */
	s->key = addr + 1;
	*userdata = s->userdata;
	return s->mod;
}
