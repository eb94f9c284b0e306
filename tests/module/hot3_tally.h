/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks of tests/progs/hot3, tallied per hot function: the
 * samples whose leaf is hot_a/b/c (kernel frames may follow it) and those
 * among them whose chain reaches main through the function's callers.
 * Shared by the cpu-clock (kprofcat_test) and PMU stand-in
 * (testpmu_kprof_test) attribution tests.
 */
#ifndef _KPROF_HOT3_TALLY_H
#define _KPROF_HOT3_TALLY_H

#include <stdlib.h>
#include <string.h>

struct hot3_tally {
	unsigned long n[3];	/* hot_a, hot_b, hot_c */
	unsigned long chain[3];	/* ... with the whole chain up to main */
};

/* Tally the "hot3;..." lines of kprofcat --folded output; @out is cut up. */
static inline void hot3_tally(char *out, struct hot3_tally *t)
{
	static const char *const leaf[3] = { ";hot_a", ";hot_b", ";hot_c" };
	static const char *const chain[3] = {
		";main;run;stage_a;hot_a",
		";main;run;stage_b;mix_b;hot_b",
		";main;run;stage_c;hot_c",
	};
	char *line, *save = NULL;
	int i;

	memset(t, 0, sizeof(*t));
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' ');
		unsigned long n;

		if (!sp || strncmp(line, "hot3;", 5))
			continue;
		n = strtoul(sp + 1, NULL, 10);
		*sp = '\0';
		for (i = 0; i < 3 && !strstr(line, leaf[i]); i++)
			;
		if (i == 3)
			continue;
		t->n[i] += n;
		if (strstr(line, chain[i]))
			t->chain[i] += n;
	}
}

#endif /* _KPROF_HOT3_TALLY_H */
