/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A ticket lock: FIFO hand-over, used as the qrwlock's wait queue so that the
 * fairness measured is the qrwlock's own, not a pthread mutex's.  rcuproc's
 * own code (liburcu has no lock of this kind).
 */
#ifndef RP_SYNC_TICKETLOCK_H
#define RP_SYNC_TICKETLOCK_H

#include <stdint.h>
#include "spin.h"

struct rp_ticketlock {
	uint32_t next;	/* R, W: atomic fetch-add by arriving waiters */
	uint32_t owner;	/* R: waiters (acquire); W: the holder (release) */
};

#define RP_TICKETLOCK_INIT { 0, 0 }

static inline void rp_ticket_lock(struct rp_ticketlock *l)
{
	uint32_t me = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	unsigned int spins = 0;

	/* Our turn: pairs with the release store in rp_ticket_unlock. */
	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != me)
		rp_spin_wait(&spins);
}

static inline void rp_ticket_unlock(struct rp_ticketlock *l)
{
	/* Hand over: pairs with the acquire load in rp_ticket_lock. */
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

#endif /* RP_SYNC_TICKETLOCK_H */
