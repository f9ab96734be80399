/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/hlist.h: RCU-safe hlist operations that liburcu's cds_hlist lacks.
 *
 * These work on liburcu's own types (struct cds_hlist_head/cds_hlist_node,
 * <urcu/rcuhlist.h>), so a list can mix them freely with cds_hlist_add_head_rcu,
 * cds_hlist_del_rcu and cds_hlist_for_each_entry_rcu_2.
 *
 * Representation (liburcu's): node->next is NULL at the end of the list;
 * node->prev points at the previous node, or at the head cast to a node (only
 * its ->next is ever touched through that cast).  rcuproc adds one convention:
 * node->prev == NULL means "on no list" (rp_hlist_unhashed).
 *
 * Rules for every function here:
 *  - updaters are serialized by the caller (the rp_sync update side);
 *  - readers walk under rcu_read_lock() using only ->next loaded with
 *    rcu_dereference(); ->prev is updater-only;
 *  - a node leaving a list keeps its ->next intact, so a reader standing on it
 *    walks on; the node may be freed only after a grace period.
 */
#ifndef RCUPROC_HLIST_H
#define RCUPROC_HLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <urcu/rcuhlist.h>
#include <urcu/system.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * RP_LIST_STEP() runs between two steps of a multi-step update of the
 * toolkit (here and in rcuproc/list.h).  It does nothing unless defined
 * before the toolkit's headers are included: rcuproc's own build widens race
 * windows there for its tests.
 */
#ifndef RP_LIST_STEP
#define RP_LIST_STEP() do { } while (0)
#endif

/* A node on no list: rp_hlist_unhashed() is true. */
static inline void rp_hlist_node_init(struct cds_hlist_node *n)
{
	n->next = NULL;
	n->prev = NULL;
}

static inline bool rp_hlist_unhashed(const struct cds_hlist_node *n)
{
	return n->prev == NULL;
}

/* Safe for readers: a lone load of the first pointer. */
static inline bool rp_hlist_empty(const struct cds_hlist_head *h)
{
	return CMM_LOAD_SHARED(h->next) == NULL;
}

/*
 * Insert @n just before @next (which is on a list).
 * A reader sees either the old list or the new one with @n in place; never a
 * half-initialised @n, because @n is complete before it is published.
 */
static inline void rp_hlist_add_before_pub(struct cds_hlist_node *n,
					   struct cds_hlist_node *next)
{
	n->next = next;
	n->prev = next->prev;
	/* Publish: pairs with rcu_dereference(->next) in readers. */
	rcu_assign_pointer(next->prev->next, n);
	next->prev = n;
}

/*
 * Insert @n just after @prev (which is on a list): the article's "insert the
 * child right after its parent" (Ordered Update With Ordered Read).  A reader
 * that walks in list order and reaches @n has already passed @prev.
 */
static inline void rp_hlist_add_behind_pub(struct cds_hlist_node *n,
					   struct cds_hlist_node *prev)
{
	n->next = prev->next;
	n->prev = prev;
	/* Publish: pairs with rcu_dereference(->next) in readers. */
	rcu_assign_pointer(prev->next, n);
	if (n->next)
		n->next->prev = n;
}

/*
 * Put @repl in @old's place.  A reader sees exactly one of @old and @repl: the
 * one before them points at one or the other, and both point on to the same
 * successor.  @old keeps its ->next; free it after a grace period.
 */
static inline void rp_hlist_replace_pub(struct cds_hlist_node *old,
					struct cds_hlist_node *repl)
{
	repl->next = old->next;
	repl->prev = old->prev;
	/* Publish: pairs with rcu_dereference(->next) in readers. */
	rcu_assign_pointer(repl->prev->next, repl);
	if (repl->next)
		repl->next->prev = repl;
	old->prev = NULL;
}

/*
 * Unlink @n if it is on a list and mark it unhashed.  ->next stays intact for
 * readers standing on @n.  Calling it on an unhashed node does nothing.
 */
static inline void rp_hlist_del_init_pub(struct cds_hlist_node *n)
{
	if (rp_hlist_unhashed(n))
		return;
	cds_hlist_del_rcu(n);
	n->prev = NULL;
}

/*
 * An hlist that also knows its last node, so that a node joins at the tail
 * and a whole list is appended to another in O(1).  Readers walk ->head with
 * cds_hlist_for_each_entry_rcu_2 as any hlist: the list still ends in NULL,
 * which is what lets a whole list move with no grace period (Group 4).
 * @last is the last node, or ->head cast to a node when the list is empty
 * (as liburcu's ->prev of a first node: only its ->next is touched through
 * the cast), so an append never tests for the empty case.  Every update of
 * a tailed list goes through the rp_hlist_tail_* operations below, which
 * keep @last; the plain hlist operations above would not.
 */
struct rp_hlist_tail_head {
	struct cds_hlist_head head;	/* R: RCU; W: update lock */
	struct cds_hlist_node *last;	/* updater only */
};

static inline void rp_hlist_tail_init(struct rp_hlist_tail_head *h)
{
	h->head.next = NULL;
	h->last = (struct cds_hlist_node *)&h->head;
}

/* Safe for readers: a lone load of the first pointer. */
static inline bool rp_hlist_tail_empty(const struct rp_hlist_tail_head *h)
{
	return rp_hlist_empty(&h->head);
}

/*
 * Insert @n last: behind the last node, or behind the head cast to a node
 * (rp_hlist_add_behind_pub touches only its ->next, since @n has no
 * successor).  A reader that had already loaded the old last node's NULL
 * ->next has finished; any other reader of the list will reach @n, which is
 * complete before it is published.
 */
static inline void rp_hlist_tail_add_pub(struct cds_hlist_node *n,
					 struct rp_hlist_tail_head *h)
{
	rp_hlist_add_behind_pub(n, h->last);
	h->last = n;
}

/* rp_hlist_del_init_pub for a node of the tailed list @h. */
static inline void rp_hlist_tail_del_init_pub(struct cds_hlist_node *n,
					      struct rp_hlist_tail_head *h)
{
	if (rp_hlist_unhashed(n))
		return;
	if (h->last == n)
		h->last = n->prev;
	rp_hlist_del_init_pub(n);
}

/* rp_hlist_replace_pub for a node @old of the tailed list @h. */
static inline void rp_hlist_tail_replace_pub(struct cds_hlist_node *old,
					     struct cds_hlist_node *repl,
					     struct rp_hlist_tail_head *h)
{
	if (h->last == old)
		h->last = repl;
	rp_hlist_replace_pub(old, repl);
}

/*
 * Move every node of @from onto the tail of @to, as one block and in order,
 * with no grace period (the article's Group 4: a dying parent's children go
 * to the reaper).  O(1): the only ->next that changes is @to's last node's,
 * from NULL to the block's first node.
 *
 * What a concurrent reader sees:
 *  - a reader already walking @from goes on through the rest of @from's nodes,
 *    in their order, and ends where it would have: the block's last ->next
 *    stays NULL.  It misses no node of @from, sees none of @to's, and never
 *    loops;
 *  - a reader starting on @to sees either its old contents or its old
 *    contents followed by the block (it sees the block whole: only the link
 *    into its first node is new), and none twice: no node of the block was
 *    ever in front of @to's last node;
 *  - a reader starting on @from sees the whole block or nothing.
 * Readers that must not report a moved node as still @from's filter by an
 * owner field that the caller updates under the same update lock, before or
 * after the splice: a reader may meet a node of the block under either owner
 * and must accept both.
 */
static inline void rp_hlist_tail_splice_pub(struct rp_hlist_tail_head *from,
					    struct rp_hlist_tail_head *to)
{
	struct cds_hlist_node *first = from->head.next;

	if (!first)
		return;
	first->prev = to->last;
	/* Publish the block on @to: pairs with rcu_dereference(->next) in readers. */
	rcu_assign_pointer(to->last->next, first);
	to->last = from->last;
	RP_LIST_STEP();
	/* The block is on @to already, so a reader of @from may still see it all. */
	CMM_STORE_SHARED(from->head.next, NULL);
	from->last = (struct cds_hlist_node *)&from->head;
}

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_HLIST_H */
