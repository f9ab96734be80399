/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The lock of one object (a siglock, a thread's tick lock, a CPU timer's
 * lock): a test-and-test-and-set word, the role of the kernel's spinlock_t.
 * rcuproc's own code: liburcu has no lock of this kind, and a pthread mutex
 * is 40 bytes in every process.
 *
 * Not FIFO, on purpose.  The kernel's spinlocks are fair queues, and can be,
 * because neither their holder nor their waiters can be preempted.  Here
 * both can: a FIFO lock (the ticket lock of ticketlock.h) hands the lock to
 * the next waiter in line even when that waiter is off its CPU, and every
 * waiter behind it then waits for the scheduler to run it again.  With
 * more runnable threads than CPUs that convoy took the demo's sigqueue row
 * (a supervisor queueing to a worker whose siglock the monitor also takes)
 * from about 400,000 signals a second to about 400 (docs/performance.md,
 * "The demo").  This lock goes to whichever waiter is running when it is
 * released.
 */
#ifndef RP_SYNC_SPINLOCK_H
#define RP_SYNC_SPINLOCK_H

#include <stdint.h>
#include "spin.h"

struct rp_spinlock {
	uint32_t locked;	/* 0 free, 1 held */
};

#define RP_SPINLOCK_INIT { 0 }

static inline void rp_spin_lock(struct rp_spinlock *l)
{
	unsigned int spins = 0;

	/* Pairs with the release store in rp_spin_unlock. */
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		/* Wait reading, not writing: the holder's line stays put. */
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			rp_spin_wait(&spins);
}

static inline void rp_spin_unlock(struct rp_spinlock *l)
{
	/* Pairs with the acquire exchange in rp_spin_lock. */
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/*
 * The same lock in one byte, for an object with no room for a word (rcu
 * mode's group lock G, in a thread group's spare byte).
 */
struct rp_bytelock {
	uint8_t locked;		/* 0 free, 1 held */
};

static inline void rp_byte_lock(struct rp_bytelock *l)
{
	unsigned int spins = 0;

	/* Pairs with the release store in rp_byte_unlock. */
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED))
			rp_spin_wait(&spins);
}

static inline void rp_byte_unlock(struct rp_bytelock *l)
{
	/* Pairs with the acquire exchange in rp_byte_lock. */
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

#endif /* RP_SYNC_SPINLOCK_H */
