/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/hlist_nulls.h: nulls-terminated hlists (liburcu has none).
 *
 * A list ends not with NULL but with a "nulls" marker: a value with its low
 * bit set that carries the list's id.  A node may move from one list to
 * another with no grace period; a reader that was standing on it follows it
 * and ends on the other list's marker.  The reader then compares the marker
 * with the id of the list it started on and, if they differ, restarts:
 *
 *	again:
 *		rp_hlist_nulls_for_each_entry_rcu(obj, pos, head, member)
 *			if (match(obj))
 *				return obj;
 *		if (rp_hlist_nulls_moved_off(pos, id))
 *			goto again;
 *		return NULL;
 *
 * Updaters are serialized by the caller; readers hold rcu_read_lock().
 * Nodes link with a pointer to the previous ->next (pprev), as the kernel's.
 * This file is rcuproc's own code: no Debian library provides these lists.
 */
#ifndef RCUPROC_HLIST_NULLS_H
#define RCUPROC_HLIST_NULLS_H

#include <stdbool.h>
#include <stdint.h>
#include <urcu/compiler.h>
#include <urcu/pointer.h>
#include <urcu/system.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rp_hlist_nulls_node {
	struct rp_hlist_nulls_node *next;	/* R: RCU; W: updater */
	struct rp_hlist_nulls_node **pprev;	/* R, W: updater only */
};

struct rp_hlist_nulls_head {
	struct rp_hlist_nulls_node *first;	/* R: RCU; W: updater */
};

/* pprev of a node deleted with rp_hlist_nulls_del_pub: hashed-looking, unusable. */
#define RP_HLIST_NULLS_POISON ((struct rp_hlist_nulls_node **)0x200)

static inline bool rp_is_a_nulls(const struct rp_hlist_nulls_node *p)
{
	return ((uintptr_t)p & 1) != 0;
}

static inline unsigned long rp_hlist_nulls_value(const struct rp_hlist_nulls_node *p)
{
	return (uintptr_t)p >> 1;
}

static inline struct rp_hlist_nulls_node *rp_hlist_nulls_marker(unsigned long id)
{
	return (struct rp_hlist_nulls_node *)(((uintptr_t)id << 1) | 1);
}

static inline void rp_hlist_nulls_head_init(struct rp_hlist_nulls_head *h,
					    unsigned long id)
{
	h->first = rp_hlist_nulls_marker(id);
}

static inline void rp_hlist_nulls_node_init(struct rp_hlist_nulls_node *n)
{
	n->next = NULL;
	n->pprev = NULL;
}

static inline bool rp_hlist_nulls_unhashed(const struct rp_hlist_nulls_node *n)
{
	return n->pprev == NULL;
}

/* Safe for readers: a lone load of the first pointer. */
static inline bool rp_hlist_nulls_empty(const struct rp_hlist_nulls_head *h)
{
	return rp_is_a_nulls(CMM_LOAD_SHARED(h->first));
}

/* Insert @n first.  @n is complete before readers can reach it. */
static inline void rp_hlist_nulls_add_head_pub(struct rp_hlist_nulls_node *n,
					       struct rp_hlist_nulls_head *h)
{
	struct rp_hlist_nulls_node *first = h->first;

	n->next = first;
	n->pprev = &h->first;
	/* Publish: pairs with rcu_dereference() in rp_hlist_nulls_for_each_entry_rcu. */
	rcu_assign_pointer(h->first, n);
	if (!rp_is_a_nulls(first))
		first->pprev = &n->next;
}

/*
 * Insert @n last, in front of the marker.  O(length).  A reader that had
 * reached the marker has finished; one that has not will see @n.
 */
static inline void rp_hlist_nulls_add_tail_pub(struct rp_hlist_nulls_node *n,
					       struct rp_hlist_nulls_head *h)
{
	struct rp_hlist_nulls_node **link = &h->first;

	while (!rp_is_a_nulls(*link))
		link = &(*link)->next;
	n->next = *link;
	n->pprev = link;
	/* Publish: pairs with rcu_dereference() in rp_hlist_nulls_for_each_entry_rcu. */
	rcu_assign_pointer(*link, n);
}

/* Unlink @n; its ->next stays intact for readers standing on it. */
static inline void rp_hlist_nulls_del_pub(struct rp_hlist_nulls_node *n)
{
	struct rp_hlist_nulls_node *next = n->next;

	CMM_STORE_SHARED(*n->pprev, next);
	if (!rp_is_a_nulls(next))
		next->pprev = n->pprev;
	n->pprev = RP_HLIST_NULLS_POISON;
}

/* Unlink @n if hashed, and mark it unhashed (it may be added again at once). */
static inline void rp_hlist_nulls_del_init_pub(struct rp_hlist_nulls_node *n)
{
	if (rp_hlist_nulls_unhashed(n))
		return;
	rp_hlist_nulls_del_pub(n);
	n->pprev = NULL;
}

/*
 * Walk under rcu_read_lock().  On exit @pos holds the marker the walk ended
 * on (unless the body broke out): pass it to rp_hlist_nulls_moved_off().
 */
#define rp_hlist_nulls_for_each_entry_rcu(tpos, pos, head, member)		\
	for ((pos) = rcu_dereference((head)->first);				\
	     !rp_is_a_nulls(pos) &&						\
	     ((tpos) = caa_container_of((pos), __typeof__(*(tpos)), member), 1); \
	     (pos) = rcu_dereference((pos)->next))

/*
 * Did a walk that ended on marker @end leave the list with id @id?  If so,
 * it followed a node that moved and must restart from the head.
 */
static inline bool rp_hlist_nulls_moved_off(const struct rp_hlist_nulls_node *end,
					    unsigned long id)
{
	return rp_hlist_nulls_value(end) != id;
}

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_HLIST_NULLS_H */
