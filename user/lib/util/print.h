/* SPDX-License-Identifier: GPL-2.0 */
/*
 * print.h - kprofcat's one error printer (and its warning sibling).
 * Every message names the problem and, where there is one, the fix.
 */
#ifndef KPROFCAT_PRINT_H
#define KPROFCAT_PRINT_H

void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void p_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A note that is neither (totals on stderr): "kprofcat: ..." */
void p_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warnings and notes are silenced (-q); errors still print. */
void p_set_no_warnings(int q);
/* Messages are silenced (tests that feed bad input on purpose). */
void p_set_quiet(int quiet);

#endif
