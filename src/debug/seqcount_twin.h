/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/seqcount.h as rcuproc's own sources and tests use it: in an
 * RP_BREAK_NO_SEQRETRY build, rp_read_seqcount_retry answers "no" always and
 * the test suite sees torn copies.  Apart from list_twins.h because few files
 * use the count: a build of this switch compiles only those again
 * (scripts/broken-sources.py).
 */
#ifndef RP_DEBUG_SEQCOUNT_TWIN_H
#define RP_DEBUG_SEQCOUNT_TWIN_H

#include <rcuproc/seqcount.h>

#ifdef RP_BREAK_NO_SEQRETRY
static inline bool rp_read_seqcount_never_retry(const struct rp_seqcount *s,
						unsigned long start)
{
	(void)s;
	(void)start;
	/* As the correct one: data before count. */
	cmm_smp_rmb();
	return false;
}
#define rp_read_seqcount_retry rp_read_seqcount_never_retry
#endif

#endif /* RP_DEBUG_SEQCOUNT_TWIN_H */
