/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one place that chooses liburcu's flavour.  Everything in rcuproc that
 * needs RCU includes this file, never a flavour header directly.
 *
 * memb (default): cheap readers, no cooperation needed from threads.
 * qsbr (-Drcu_flavour=qsbr): free readers; a registered thread must announce
 * quiescent states (rp_sync_quiescent, run by each public call; the
 * application's rp_thread_quiescent between calls) and go offline before it
 * blocks (rp_sync_block_begin/end; the application's rp_thread_offline).
 */
#ifndef RP_SYNC_RCU_H
#define RP_SYNC_RCU_H

/*
 * Inline read-side primitives and rcu_dereference, not calls into
 * liburcu.so (docs/sync.md, "RCU flavour: memb and QSBR").
 */
#define _LGPL_SOURCE 1

#ifdef RP_RCU_QSBR
#include <urcu-qsbr.h>
#else
#define RCU_MEMB 1
#include <urcu.h>
#endif
#include <urcu/rculist.h>
#include <urcu/rcuhlist.h>
#include <urcu/uatomic.h>

#endif /* RP_SYNC_RCU_H */
