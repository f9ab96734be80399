/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A user-space queued reader/writer lock after Linux's qrwlock
 * (kernel/locking/qrwlock.c, x86 since 3.16): rcuproc's own code, since no
 * Debian library has this lock.
 *
 * One 32-bit word: the low byte is the writer's (0xff when write-locked),
 * bit 8 says a writer is waiting, readers are counted from bit 9.  Contended
 * arrivals queue on a FIFO ticket lock (wait_lock), so a waiting writer keeps
 * new readers out and is served in arrival order.  Fast paths: a reader is
 * one atomic add, a writer one cmpxchg.
 *
 * Unlike the kernel, waiters yield the CPU after a short spin (see spin.h).
 * RP_BREAK_READER_PREFERENCE lets readers ignore a waiting writer, which
 * brings back writer starvation: the fairness test shows it.
 */
#ifndef RP_SYNC_QRWLOCK_H
#define RP_SYNC_QRWLOCK_H

#include <stdint.h>
#include "ticketlock.h"

#define RP_QW_LOCKED	0x0ffU		/* a writer holds the lock */
#define RP_QW_WAITING	0x100U		/* a writer waits for the readers */
#define RP_QW_WMASK	(RP_QW_LOCKED | RP_QW_WAITING)
#define RP_QR_SHIFT	9
#define RP_QR_BIAS	(1U << RP_QR_SHIFT)

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "rp_qrwlock stores the writer byte as the word's first byte"
#endif

struct rp_qrwlock {
	union {
		uint32_t cnts;		/* R, W: atomics by every user */
		struct {
			uint8_t wlocked;	/* W: the write holder, to unlock */
			uint8_t lstate[3];
		};
	};
	struct rp_ticketlock wait_lock;	/* orders contended arrivals */
};

void rp_qrw_init(struct rp_qrwlock *l);
void rp_qrw_read_lock_slow(struct rp_qrwlock *l);
void rp_qrw_write_lock_slow(struct rp_qrwlock *l);

#ifdef RP_BREAK_READER_PREFERENCE
#define RP_QR_BLOCKERS RP_QW_LOCKED
#else
#define RP_QR_BLOCKERS RP_QW_WMASK
#endif

static inline void rp_qrw_read_lock(struct rp_qrwlock *l)
{
	/* Acquire: pairs with the release in rp_qrw_write_unlock. */
	uint32_t cnts = __atomic_add_fetch(&l->cnts, RP_QR_BIAS, __ATOMIC_ACQUIRE);

	if (__builtin_expect(!(cnts & RP_QR_BLOCKERS), 1))
		return;
	rp_qrw_read_lock_slow(l);
}

static inline void rp_qrw_read_unlock(struct rp_qrwlock *l)
{
	/* Release: pairs with the writer's acquire cmpxchg. */
	__atomic_sub_fetch(&l->cnts, RP_QR_BIAS, __ATOMIC_RELEASE);
}

static inline void rp_qrw_write_lock(struct rp_qrwlock *l)
{
	uint32_t expected = 0;

	/* Acquire: pairs with the releases in both unlock functions. */
	if (__atomic_compare_exchange_n(&l->cnts, &expected, RP_QW_LOCKED, 0,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	rp_qrw_write_lock_slow(l);
}

static inline void rp_qrw_write_unlock(struct rp_qrwlock *l)
{
	/* Release: pairs with the acquires of the next reader or writer. */
	__atomic_store_n(&l->wlocked, 0, __ATOMIC_RELEASE);
}

#endif /* RP_SYNC_QRWLOCK_H */
