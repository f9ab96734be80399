/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/seqcount.h: a sequence count, the "Global Version Number" and
 * "Retry Readers" patterns (liburcu has none).
 *
 * Writers (serialized by the caller) bracket a change with write_begin and
 * write_end; the count is odd while a change is in progress.  Readers take no
 * lock:
 *
 *	do {
 *		seq = rp_read_seqcount_begin(&s);
 *		... copy the protected fields with CMM_LOAD_SHARED ...
 *	} while (rp_read_seqcount_retry(&s, seq));
 *
 * A reader whose copy overlapped a change sees a different count and retries,
 * so the copy it keeps was taken entirely between two changes.
 */
#ifndef RCUPROC_SEQCOUNT_H
#define RCUPROC_SEQCOUNT_H

#include <sched.h>
#include <stdbool.h>
#include <urcu/arch.h>
#include <urcu/system.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rp_seqcount {
	unsigned long seq;	/* R: anyone; W: the caller's update lock */
};

#define RP_SEQCOUNT_INIT { 0 }

static inline void rp_seqcount_init(struct rp_seqcount *s)
{
	s->seq = 0;
}

/*
 * Wait for no change in progress and return the count to check later.  A
 * writer can be preempted mid-change in user space, so after a short spin
 * the reader yields its CPU rather than spin out its time slice.
 */
static inline unsigned long rp_read_seqcount_begin(const struct rp_seqcount *s)
{
	unsigned long seq;
	unsigned int spins = 0;

	/* Retry while odd: pairs with the two increments of a writer. */
	while ((seq = CMM_LOAD_SHARED(s->seq)) & 1) {
		if (++spins % 128)
			caa_cpu_relax();
		else
			sched_yield();
	}
	/* Count before data: pairs with cmm_smp_wmb() in rp_write_seqcount_begin. */
	cmm_smp_rmb();
	return seq;
}

/* True if a change overlapped the reads since @start: discard and retry. */
static inline bool rp_read_seqcount_retry(const struct rp_seqcount *s,
					  unsigned long start)
{
	/* Data before count: pairs with cmm_smp_wmb() in rp_write_seqcount_end. */
	cmm_smp_rmb();
	return CMM_LOAD_SHARED(s->seq) != start;
}

static inline void rp_write_seqcount_begin(struct rp_seqcount *s)
{
	CMM_STORE_SHARED(s->seq, s->seq + 1);
	/* Odd count before data: pairs with cmm_smp_rmb() in rp_read_seqcount_begin. */
	cmm_smp_wmb();
}

static inline void rp_write_seqcount_end(struct rp_seqcount *s)
{
	/* Data before even count: pairs with cmm_smp_rmb() in rp_read_seqcount_retry. */
	cmm_smp_wmb();
	CMM_STORE_SHARED(s->seq, s->seq + 1);
}

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_SEQCOUNT_H */
