// SPDX-License-Identifier: GPL-2.0
/*
 * cxxhot: a small C++ program whose hot functions have mangled names (a
 * member function, a function template, an overload), for kprofcat's
 * demangling tests (tests/host/demangle_test.c): kprofcat prints them as
 * perf does, e.g. kp::Worker::spin(unsigned long), and raw with
 * --no-demangle.  Built like the C programs, with frame pointers; noipa
 * keeps each function out of line and alone.
 */
#include <cstdlib>

#define HOT_FN	__attribute__((noipa))

namespace kp {

struct Worker {
	unsigned long state;
	unsigned long spin(unsigned long n);
};

HOT_FN unsigned long Worker::spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		state = state * 6364136223846793005UL + 1442695040888963407UL;
	return state;
}

template <typename T>
HOT_FN T twice(T x)
{
	return x + x;
}

HOT_FN double twice(double x, int times)
{
	while (times-- > 0)
		x = twice<double>(x);
	return x;
}

} // namespace kp

int main(int argc, char **argv)
{
	kp::Worker w = { 1 };
	unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 1000000;

	w.spin(n);
	return (kp::twice<int>(argc) + kp::twice(1.0, argc) == 42.0) + (w.state == 42);
}
