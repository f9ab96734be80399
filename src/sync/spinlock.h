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

/*
 * Take the lock word at @word, of any width: test-and-test-and-set.  A
 * macro, so that one body serves the word and the byte.  The acquire
 * exchange pairs with the release store of rp_tas_release.
 */
#define rp_tas_acquire(word)							\
	do {									\
		unsigned int spins_ = 0;					\
										\
		while (__atomic_exchange_n((word), 1, __ATOMIC_ACQUIRE))	\
			/* Wait reading, not writing: the holder's line stays put. */ \
			while (__atomic_load_n((word), __ATOMIC_RELAXED))	\
				rp_spin_wait(&spins_);				\
	} while (0)

/* Release the lock word at @word: pairs with rp_tas_acquire's exchange. */
#define rp_tas_release(word) __atomic_store_n((word), 0, __ATOMIC_RELEASE)

static inline void rp_spin_lock(struct rp_spinlock *l)
{
	rp_tas_acquire(&l->locked);
}

static inline void rp_spin_unlock(struct rp_spinlock *l)
{
	rp_tas_release(&l->locked);
}

/*
 * The same lock in one byte, for an object with no room for a word: rcu
 * mode's object locks (G in a thread group's spare byte; T, L and M, and
 * the CPU tick lock, in one word of the task).
 */
struct rp_bytelock {
	uint8_t locked;		/* 0 free, 1 held */
};

static inline void rp_byte_lock(struct rp_bytelock *l)
{
	rp_tas_acquire(&l->locked);
}

static inline void rp_byte_unlock(struct rp_bytelock *l)
{
	rp_tas_release(&l->locked);
}

#endif /* RP_SYNC_SPINLOCK_H */
