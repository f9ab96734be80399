/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The bucket lock B (bucket.h): the writers of one hash chain. */
#include "bucket.h"
#include "../debug/racepoint.h"

/*
 * RP_BREAK_BUCKET_UNLOCKED: the naive twin, which trusts the update lock
 * to exclude the chain's other writers: it takes no lock, yet tells the
 * lock-order checker it did, so that what a test sees is the lost update
 * and not the assertion.
 */
static void bucket_lock(struct rp_sync *s, struct rp_spinlock *l)
{
	if (s->mode != RP_SYNC_RCU)
		return;		/* the global write lock excludes: asserted at the write */
#ifdef RP_BREAK_BUCKET_UNLOCKED
	rp_lockdep_acquire_untaken_obj(RP_LOCK_BUCKET, l);
#else
	rp_lockdep_acquire_obj(RP_LOCK_BUCKET, l);
#ifdef RP_DEBUG
	/* Another writer of a chain of this stripe is in: we are about to wait. */
	if (CMM_LOAD_SHARED(l->locked))
		RP_RACE_POINT(RP_RACE_BUCKET_WAITS, NULL);
#endif
	rp_spin_lock(l);
#endif
}

static void bucket_unlock(struct rp_sync *s, struct rp_spinlock *l)
{
	if (s->mode != RP_SYNC_RCU)
		return;
#ifndef RP_BREAK_BUCKET_UNLOCKED
	rp_spin_unlock(l);
#endif
	rp_lockdep_release_obj(RP_LOCK_BUCKET, l);
}

void rp_bucket_add(struct rp_sync *s, struct rp_spinlock *l, struct cds_hlist_node *n,
		   struct cds_hlist_head *head)
{
	struct cds_hlist_node *first;

	bucket_lock(s, l);
	rp_assert_bucket_held(s, l);
	first = head->next;
	n->next = first;
	n->prev = (struct cds_hlist_node *)head;	/* a head is a node's ->next */
	/* The chain read, @n not yet on it: another writer here would be lost. */
	RP_RACE_POINT(RP_RACE_BUCKET_ADD, NULL);
	/* @n complete before it is found: pairs with the readers' rcu_dereference. */
	rcu_assign_pointer(head->next, n);
	if (first)
		first->prev = n;
	bucket_unlock(s, l);
}

void rp_bucket_del(struct rp_sync *s, struct rp_spinlock *l, struct cds_hlist_node *n)
{
	bucket_lock(s, l);
	rp_assert_bucket_held(s, l);
	/* ->next stays: a reader standing on @n goes on along the chain. */
	cds_hlist_del_rcu(n);
	bucket_unlock(s, l);
}
