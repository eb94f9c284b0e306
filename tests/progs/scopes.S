/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions whose DWARF gas writes (a subprogram DIE per function
 * symbol, over the symbol's size), shaped as in glibc's assembly:
 * a function within another, and two names of one range.  Not run:
 * cu_scopes_test reads its debug info.  In DIE order: outer, inner (its
 * second and third byte), then alias_b and alias_a (one range).
 */
	.text
	.globl outer
	.type outer, @function
outer:
	nop
	.globl inner
	.type inner, @function
inner:
	nop
	nop
	.size inner, . - inner
	nop
	nop
	.size outer, . - outer
	.globl alias_b
	.type alias_b, @function
	.globl alias_a
	.type alias_a, @function
alias_a:
alias_b:
	nop
	ret
	.size alias_a, . - alias_a
	.size alias_b, . - alias_b
	.section .note.GNU-stack, "", @progbits
