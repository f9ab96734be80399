/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * B, the bucket lock (docs/process.md, "Without the update lock (design)"):
 * the inserts and removals of one chain of an RCU hash (sys->pid_hash, the
 * nested namespaces' tables) exclude each other by a lock of the chain's
 * own, so that they need no update lock; readers take nothing, as before.
 *
 * A lock per bucket would cost 2 MB for the pid hash's 2^19 chains, so a
 * table keeps a striped array of locks and a bucket takes the stripe its
 * index falls on (bucket index modulo the stripes).  The stripes are
 * packed, 16 to a cache line: two operations on unrelated pids contend for
 * a lock only when their buckets fall on the same stripe and share a line
 * when they fall on the same 16 (the pid hash's 4,096 stripes: 1 in 256,
 * as the task registry's shards); a stripe to itself per line would take
 * 256 KB for the same odds.
 *
 * Held: in rcu mode, by every insert and removal, around the list step
 * alone: a leaf (RP_LOCK_BUCKET), nothing is taken while it is held.  The
 * lock modes (and RP_SYNC_NONE) take nothing: there every writer holds the
 * global lock's write side, which excludes the other writers already, and
 * the assertion asks for it instead (rp_assert_bucket_held).
 */
#ifndef RP_TASK_BUCKET_H
#define RP_TASK_BUCKET_H

#include <stdbool.h>
#include "../sync/sync.h"		/* first: liburcu inline (sync/rcu.h) */
#include "../debug/list_twins.h"
#include "../sync/spinlock.h"

/* Does this thread hold bucket lock @l of a table of @s, as @s's mode makes one? */
static inline bool rp_bucket_held_here(const struct rp_sync *s, const struct rp_spinlock *l)
{
	if (s->mode == RP_SYNC_RCU)
		return rp_lockdep_holds(l);
	return rp_update_held_here(s);
}

/* A precondition "@l held, or the global write lock held" (debug builds). */
#define rp_assert_bucket_held(s, l) RP_DEBUG_BUG_ON(!rp_bucket_held_here(s, l))

/* Put @n first on chain @head, whose bucket lock is @l. */
void rp_bucket_add(struct rp_sync *s, struct rp_spinlock *l, struct cds_hlist_node *n,
		   struct cds_hlist_head *head);
/* Take @n off its chain, whose bucket lock is @l; readers on @n may go on. */
void rp_bucket_del(struct rp_sync *s, struct rp_spinlock *l, struct cds_hlist_node *n);

#endif /* RP_TASK_BUCKET_H */
