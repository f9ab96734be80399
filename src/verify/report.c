/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The verification report: a count of violations and the first few texts. */
#include <stdio.h>
#include "verify.h"

void rp_verify_vrecord(struct rp_verify_report *r, const char *fmt, va_list ap)
{
	unsigned long n = r->violations++;

	if (n < RP_VERIFY_KEPT)
		vsnprintf(r->first[n], sizeof(r->first[n]), fmt, ap);
}

void rp_verify_record(struct rp_verify_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rp_verify_vrecord(r, fmt, ap);
	va_end(ap);
}
