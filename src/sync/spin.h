/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Busy-wait helper for rcuproc's own spin locks.  These run in user space on
 * machines with fewer cores than threads, where a lock holder can be
 * preempted: after a short spin the waiter yields its CPU instead of burning
 * the holder's time slice.  The kernel, whose locks these model, never needs
 * this because its spin-lock holders cannot be preempted.
 */
#ifndef RP_SYNC_SPIN_H
#define RP_SYNC_SPIN_H

#include <sched.h>
#include <urcu/arch.h>

#define RP_SPINS_BEFORE_YIELD 128

static inline void rp_spin_wait(unsigned int *spins)
{
	if (++*spins < RP_SPINS_BEFORE_YIELD) {
		caa_cpu_relax();
	} else {
		*spins = 0;
		sched_yield();
	}
}

#endif /* RP_SYNC_SPIN_H */
