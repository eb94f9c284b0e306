/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output_flamegraph_script.h - the style and the script each flame graph
 * SVG inlines (output_flamegraph_script.c), below output_flamegraph.c,
 * which writes them.
 */
#ifndef KPROFCAT_OUTPUT_FLAMEGRAPH_SCRIPT_H
#define KPROFCAT_OUTPUT_FLAMEGRAPH_SCRIPT_H

extern const char flame_style[];
extern const char flame_script[];

#endif
