/* SPDX-License-Identifier: GPL-2.0 */
/*
 * grammar.h - checks `perf script` text against the line grammars of the
 * tools that read it, transcribed from their parsers into POSIX EREs
 * (\S -> [^[:space:]], \d -> [0-9], \w -> [[:alnum:]_]; lazy quantifiers
 * become greedy, which does not change whether a line matches):
 *
 * FlameGraph stackcollapse-perf.pl: '#' lines skipped; a blank line ends
 *   a sample; an event line matches ^(\S+\s*?\S*?)\s+(\d+)\s or
 *   ^(\S+\s*?\S*?)\s+(\d+)\/(\d+); a stack line ^\s*(\w+)\s*(.+) \((\S*)\);
 *   anything else is "Unrecognized line" (an error here).
 * speedscope (import/linux-tools-perf.ts): the text is split at "\n\n";
 *   a block is an event when its first line matches
 *   ^(\S.+?)\s+(\d+)(?:\/?(\d+))?\s+, its frames are the lines matching
 *   ^\s*(\w+)\s*(.+) \((\S*)\), its event name (\S+):\s*$; only events
 *   of the first event's name are kept.
 * Firefox Profiler (import/linux-perf.js): recognized if the text starts
 *   with "# ========\n" or its first line matches
 *   ^\S.*?\s+(?:\d+\/)?\d+\s+(?:\[\d+\]\s+)?[\d.]+:; '' and '#' lines
 *   skipped; a sample starts with ^(.*)\s+([\d.]+): whose prefix matches
 *   ^(.*)\s+(?:(\d+)\/)?(\d+)\b; its frames (until a blank line) match
 *   ^\s*(\w+)\s*(.+) \((\S*)\).
 *
 * On top of the parsers' leniency this checker is strict: every sample
 * must be seen by all three with the same number of frames, every line of
 * a sample block must be a frame, and comment blocks must be invisible to
 * all three.
 */
#ifndef KPROFCAT_GRAMMAR_H
#define KPROFCAT_GRAMMAR_H

struct grammar_result {
	unsigned long samples;		/* seen by every parser */
	unsigned long frames;
	unsigned long comments;		/* comment blocks */
	char err[1024];
};

int grammar_check(char *text, struct grammar_result *r);

#endif /* KPROFCAT_GRAMMAR_H */
