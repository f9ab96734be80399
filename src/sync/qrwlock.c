/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Slow paths of the queued rwlock; see qrwlock.h. */
#include "qrwlock.h"

void rp_qrw_init(struct rp_qrwlock *l)
{
	l->cnts = 0;
	l->wait_lock = (struct rp_ticketlock)RP_TICKETLOCK_INIT;
}

/*
 * A reader met a writer (holding or waiting).  Take back its count, queue
 * behind everyone who came earlier, then count itself in again and wait only
 * for a holding writer to leave: a writer that merely waits is behind us in
 * the queue and will in turn wait for us.
 */
void rp_qrw_read_lock_slow(struct rp_qrwlock *l)
{
	unsigned int spins = 0;

	__atomic_sub_fetch(&l->cnts, RP_QR_BIAS, __ATOMIC_RELAXED);
	rp_ticket_lock(&l->wait_lock);
	__atomic_add_fetch(&l->cnts, RP_QR_BIAS, __ATOMIC_RELAXED);
	/* Wait out the holder: pairs with the release in rp_qrw_write_unlock. */
	while (__atomic_load_n(&l->cnts, __ATOMIC_ACQUIRE) & RP_QW_LOCKED)
		rp_spin_wait(&spins);
	rp_ticket_unlock(&l->wait_lock);
}

/*
 * A writer met readers or another writer.  Queue, announce itself with the
 * waiting bit (new readers now queue behind it), then wait until the word is
 * exactly "waiting, no readers, no holder" and turn that into "locked".
 */
void rp_qrw_write_lock_slow(struct rp_qrwlock *l)
{
	unsigned int spins = 0;
	uint32_t cnts;

	rp_ticket_lock(&l->wait_lock);
	cnts = 0;
	/* Acquire: pairs with the releases in both unlock functions. */
	if (__atomic_compare_exchange_n(&l->cnts, &cnts, RP_QW_LOCKED, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		goto out;
	__atomic_or_fetch(&l->cnts, RP_QW_WAITING, __ATOMIC_RELAXED);
	/* Retry until readers drained and our cmpxchg wins: pairs with their releases. */
	for (;;) {
		cnts = RP_QW_WAITING;
		if (__atomic_compare_exchange_n(&l->cnts, &cnts, RP_QW_LOCKED, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		rp_spin_wait(&spins);
	}
out:
	rp_ticket_unlock(&l->wait_lock);
}
