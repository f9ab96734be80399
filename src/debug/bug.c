/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rp_bug: the one abort of bug.h's macros. */
#include "bug.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void rp_bug(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "rcuproc: BUG at %s:%d: %s", file, line, cond);
	if (fmt) {
		fputs(": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	abort();
}
