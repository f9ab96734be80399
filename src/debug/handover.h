/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lock hand-overs (handover.c): debug builds count, per lock class, the
 * object-lock acquisitions whose previous taker was another thread, in the
 * calling thread's shared writes (shared.h, RP_SHARED_HANDOVER_*).
 */
#ifndef RP_DEBUG_HANDOVER_H
#define RP_DEBUG_HANDOVER_H

#include "lockorder.h"

#ifdef RP_DEBUG
/* The lock at @lock, of class @c, is taken by the calling thread. */
void rp_handover_count(enum rp_lock_class c, const void *lock);

/*
 * The takes by the calling thread that found their entry holding another
 * lock (a collision: nothing counted, whoever took the lock last).
 */
unsigned long rp_debug_handover_evictions(void);
#endif

#endif /* RP_DEBUG_HANDOVER_H */
