// SPDX-License-Identifier: GPL-2.0
//
// jithot.js SECONDS: hot() called in a loop, never sleeping, for SECONDS
// (default 1.5), so that V8 compiles it (node --perf-basic-prof names the code
// in /tmp/perf-PID.map, as "LazyCompile:*hot FILE:LINE" in node 18 and
// "JS:*hot FILE:LINE:COLUMN" in node 20); then prints that map's path, for
// the test (tests/host/jitmap_test.c) to compare and remove.
'use strict';

function hot(n) {
	let s = 0;

	for (let i = 0; i < n; i++)
		s = (s * 31 + i) % 1000003;
	return s;
}

const end = Date.now() + 1000 * (Number(process.argv[2]) || 1.5);
let sum = 0;

while (Date.now() < end)
	sum += hot(100000);
console.log(`/tmp/perf-${process.pid}.map ${sum}`);
