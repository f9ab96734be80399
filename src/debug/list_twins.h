/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The list toolkit (rcuproc/hlist.h, hlist_nulls.h, list.h) as rcuproc's own
 * sources and tests use it.  The installed headers hold the correct
 * operations only; here the project adds what its tests need:
 *
 *  - the race-window widening (RP_TORTURE_DELAY, torture.h) and a race
 *    point (RP_RACE_LIST_STEP, racepoint.h) between the steps of every
 *    multi-step update, through the toolkit's RP_LIST_STEP hook, which must
 *    be defined before the toolkit is first included;
 *  - in an RP_BREAK_* build, the naive twin of one operation, which the test
 *    suite must catch (tests/meson.build).  Each twin is a function of its
 *    own and the operation's name is redirected to it, so that every caller,
 *    and a test that takes the operation's address, gets the twin.
 *
 * So every file of the project includes this header, never the toolkit's
 * own, and before anything that includes them (rcuproc/rcuproc.h does).
 */
#ifndef RP_DEBUG_LIST_TWINS_H
#define RP_DEBUG_LIST_TWINS_H

#if defined(RCUPROC_HLIST_H) || defined(RCUPROC_LIST_H)
#error "debug/list_twins.h comes before the list toolkit's headers"
#endif

#include "racepoint.h"
#include "torture.h"

#define RP_LIST_STEP()								\
	do {									\
		RP_TORTURE_DELAY();						\
		RP_RACE_POINT(RP_RACE_LIST_STEP, NULL);				\
	} while (0)

#include <rcuproc/hlist.h>
#include <rcuproc/hlist_nulls.h>
#include <rcuproc/list.h>

#ifdef RP_BREAK_NAIVE_MOVE
/*
 * rp_hlist_tail_splice_pub moving the nodes one by one: a reader on a moved
 * node finds it last on @to, ends there and misses the rest of @from.
 */
static inline void rp_hlist_tail_splice_pub_naive(struct rp_hlist_tail_head *from,
						  struct rp_hlist_tail_head *to)
{
	struct cds_hlist_node *n;

	while ((n = from->head.next) != NULL) {
		rp_hlist_tail_del_init_pub(n, from);
		rp_hlist_tail_add_pub(n, to);
		RP_LIST_STEP();
	}
}
#define rp_hlist_tail_splice_pub rp_hlist_tail_splice_pub_naive
#endif

#ifdef RP_BREAK_SPLICE_NO_SYNC
/*
 * The splices with a wait that waits for nothing: a reader still on the
 * emptied list's old nodes goes round the destination list for ever.
 */
static inline void rp_list_sync_nothing(void *arg)
{
	(void)arg;
}

/* splice##_no_sync: @splice with the caller's wait replaced by that one. */
#define RP_LIST_SPLICE_NO_SYNC(splice)						\
static inline void splice##_no_sync(struct cds_list_head *list,			\
				    struct cds_list_head *head,			\
				    void (*sync)(void *), void *arg)		\
{										\
	(void)sync;								\
	(void)arg;								\
	splice(list, head, rp_list_sync_nothing, NULL);				\
}
RP_LIST_SPLICE_NO_SYNC(rp_list_splice_init_pub)
RP_LIST_SPLICE_NO_SYNC(rp_list_splice_tail_init_pub)
#define rp_list_splice_init_pub rp_list_splice_init_pub_no_sync
#define rp_list_splice_tail_init_pub rp_list_splice_tail_init_pub_no_sync
#endif

#ifdef RP_BREAK_NO_OBSOLETE_MARK
/*
 * Owned links without the obsolete mark: no mark on detach, and on attach no
 * gen and the owner set only after the node is published, so that a reader
 * can follow the node onto its new list without noticing.
 */
static inline void rp_owned_del_pub_unmarked(struct rp_owned_link *l)
{
	cds_list_del_rcu(&l->node);
}

static inline void rp_owned_add_pub_unmarked(struct rp_owned_link *l,
					     struct cds_list_head *head, void *owner)
{
	cds_list_add_rcu(&l->node, head);
	RP_TORTURE_DELAY();
	CMM_STORE_SHARED(l->owner, owner);
}
#define rp_owned_del_pub rp_owned_del_pub_unmarked
#define rp_owned_add_pub rp_owned_add_pub_unmarked
#endif

#ifdef RP_BREAK_NO_RESTART
/*
 * Retry readers that never restart: the owned-list step follows ->next
 * whatever became of the node (rp_owned_for_each_entry_rcu uses it too), and
 * a nulls walk never counts as moved off.
 */
static inline struct cds_list_head *rp_owned_next_rcu_no_restart(struct rp_owned_link *l,
								 struct cds_list_head *head,
								 const void *owner,
								 unsigned long *restarts)
{
	(void)head;
	(void)owner;
	(void)restarts;
	return rcu_dereference(l->node.next);
}

static inline bool rp_hlist_nulls_never_moved_off(const struct rp_hlist_nulls_node *end,
						  unsigned long id)
{
	(void)end;
	(void)id;
	return false;
}
#define rp_owned_next_rcu rp_owned_next_rcu_no_restart
#define rp_hlist_nulls_moved_off rp_hlist_nulls_never_moved_off
#endif

#endif /* RP_DEBUG_LIST_TWINS_H */
