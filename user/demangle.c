// SPDX-License-Identifier: GPL-2.0
/*
 * demangle.c - C++ demangling with libstdc++'s __cxa_demangle(), the
 * demangler perf uses when it is built without libbfd's (and GCC's own:
 * it follows the Itanium C++ ABI that g++ and clang++ mangle to).  It is
 * declared here rather than through <cxxabi.h> so kprofcat stays C; the
 * program links -lstdc++, present wherever g++'s runtime is (Debian: the
 * libstdc++6 package, which everything C++ depends on).
 */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *demangle__cxx(const char *name)
{
	int status = -1;
	char *r;

	/* "_Z" names only: __cxa_demangle also takes bare type encodings. */
	if (strncmp(name, "_Z", 2))
		return NULL;
	r = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(r);
		return NULL;
	}
	return r;
}
