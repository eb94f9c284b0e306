// SPDX-License-Identifier: GPL-2.0
/*
 * hot3_tally.c - folded stacks of tests/progs/hot3 against its stage
 * times (hot3_tally.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hot3_tally.h"

/* Tally the "hot3;..." lines of kprofcat --folded output; @out is cut up. */
void hot3_tally(char *out, struct hot3_tally *t)
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

/*
 * The split of hot3's time between its stages, in percent, from the line
 * it prints ("hot3: R rounds, stage seconds A B C", summed over the rounds
 * no host stall of the vCPU stretched: tests/progs/hot3.c):
 * what the samples should follow, whatever the emulator made of the 6:3:1
 * instructions.
 * Returns 0, or -1 when @text holds no such line.
 */
int hot3_stage_shares(const char *text, double pct[3])
{
	const char *p = strstr(text, "hot3: ");
	double s[3], total;
	unsigned long rounds;
	int i;

	if (!p || sscanf(p, "hot3: %lu rounds, stage seconds %lf %lf %lf",
			 &rounds, &s[0], &s[1], &s[2]) != 4)
		return -1;
	total = s[0] + s[1] + s[2];
	if (!(total > 0))
		return -1;
	for (i = 0; i < 3; i++)
		pct[i] = 100 * s[i] / total;
	return 0;
}

/*
 * How far a function's share of n samples may stray from its share of
 * hot3's time, in percentage points.  The samples fall at fixed
 * intervals of CPU time; vCPU stalls drop some, in whichever function
 * runs, which thins the sample but does not bias it.  Taking each sample
 * as an independent draw (binomial; periodic sampling varies less),
 * 4.5 standard deviations, sqrt(p (1 - p) / n), leave about one false
 * failure in 10^5 checks, plus a point for the stage's own instructions
 * (the call, the clock read) that its hot function does not run.
 */
double hot3_share_tolerance(double pct, double n)
{
	double p = pct / 100;

	return 100 * 4.5 * sqrt(p * (1 - p) / n) + 1;
}
