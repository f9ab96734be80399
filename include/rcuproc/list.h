/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/list.h: what the article needs on top of liburcu's circular
 * cds_list (<urcu/rculist.h>).
 *
 * liburcu already gives, and rcuproc uses as they are:
 *	cds_list_add_rcu(n, pos)	insert n after any element pos (or the head)
 *	cds_list_add_tail_rcu(n, head)	insert n last
 *	cds_list_del_rcu(n)		unlink; n->next stays for readers on n
 *	cds_list_replace_rcu(old, new)	a reader sees exactly one of them
 *	cds_list_for_each_entry_rcu	the plain walk (Existence Locks)
 * This file adds the splice that the kernel has and liburcu lacks, and the
 * Group 3 pattern: retry readers over a list whose nodes leave and rejoin
 * other lists with no grace period, made safe by marking them obsolete
 * (struct rp_owned_link).
 */
#ifndef RCUPROC_LIST_H
#define RCUPROC_LIST_H

#include <urcu/arch.h>
#include <urcu/list.h>
#include <urcu/rculist.h>
#include <urcu/system.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Between two steps of a multi-step update: see rcuproc/hlist.h. */
#ifndef RP_LIST_STEP
#define RP_LIST_STEP() do { } while (0)
#endif

/*
 * Move every node of @list between @prev and @next (adjacent nodes of another
 * list), leaving @list empty.  @sync(@arg) must wait until every reader that
 * may be walking @list has finished (synchronize_rcu, or nothing when the
 * caller's lock already excludes readers).  Why: a reader of @list stops when
 * it is back at @list; once the last node points into the other list, a
 * reader still on the old nodes would go round the other list for ever.  So
 * @list is emptied first, the readers are waited for, and only then is the
 * block linked in.  Readers of the destination see the block appear whole.
 */
static inline void rp__list_splice_init_pub(struct cds_list_head *list,
					    struct cds_list_head *prev,
					    struct cds_list_head *next,
					    void (*sync)(void *), void *arg)
{
	struct cds_list_head *first = list->next, *last = list->prev;

	if (first == list)
		return;
	/* New readers of @list see it empty from here on. */
	CMM_STORE_SHARED(list->next, list);
	list->prev = list;
	RP_LIST_STEP();
	sync(arg);
	last->next = next;
	/* Publish the block: pairs with rcu_dereference(->next) in readers. */
	rcu_assign_pointer(prev->next, first);
	first->prev = prev;
	next->prev = last;
}

/* Splice @list onto the front of @head; see rp__list_splice_init_pub. */
static inline void rp_list_splice_init_pub(struct cds_list_head *list,
					   struct cds_list_head *head,
					   void (*sync)(void *), void *arg)
{
	rp__list_splice_init_pub(list, head, head->next, sync, arg);
}

/* Splice @list onto the back of @head; see rp__list_splice_init_pub. */
static inline void rp_list_splice_tail_init_pub(struct cds_list_head *list,
						struct cds_list_head *head,
						void (*sync)(void *), void *arg)
{
	rp__list_splice_init_pub(list, head->prev, head, sync, arg);
}

/*
 * Group 3: lists whose nodes leave and join other lists with no grace period
 * (the ptraced lists), walked by retry readers.  Each node is linked through
 * a struct rp_owned_link, which says which list it is on (owner) and counts
 * its attachments (gen).  A retry reader standing on a node loads ->next and
 * then checks that the node still has the owner it walks and the same gen as
 * just before the load; otherwise ->next may lead elsewhere and it restarts
 * from the head.  The gen closes the ABA hole of an owner check alone: a node
 * that went to another list and came back between the reader's two loads has
 * the right owner again, but its ->next was loaded while it was elsewhere.
 */
struct rp_owned_link {
	struct cds_list_head node;	/* R: RCU; W: update lock */
	void *owner;			/* R: RCU; W: update lock; NULL: obsolete */
	unsigned long gen;		/* R: RCU; W: update lock; +1 per attach */
};

/*
 * Detach: mark the node obsolete (owner NULL), then unlink it.  ->next is left
 * intact for readers standing on it.
 */
static inline void rp_owned_del_pub(struct rp_owned_link *l)
{
	CMM_STORE_SHARED(l->owner, NULL);
	/* Mark before unlink: pairs with the second cmm_smp_rmb() in rp_owned_next_rcu. */
	cmm_smp_wmb();
	RP_LIST_STEP();
	cds_list_del_rcu(&l->node);
}

/*
 * Attach at the front of @head, owned by @owner.  At the front, so that a
 * reader that cannot tell the node left and came back (it left and came back
 * before the reader's gen load) is sent back to the start: it may see nodes
 * twice but misses none (the article: "the former is preferred").
 *
 * Order: the node's ->next is pointed into the new list first, then gen is
 * bumped, then the owner set, then the node published.  A reader already
 * standing on the node (from an earlier stay on this list) trusts the ->next
 * it loads only if gen and owner say "this list, this stay"; were gen and
 * owner set first, it could pair them with the ->next left over from the
 * node's stay on another list.  The torture delays found exactly that.
 */
static inline void rp_owned_add_pub(struct rp_owned_link *l,
				    struct cds_list_head *head, void *owner)
{
	CMM_STORE_SHARED(l->node.next, head->next);
	l->node.prev = head;
	/* New ->next before new gen: pairs with the 1st cmm_smp_rmb() in rp_owned_next_rcu. */
	cmm_smp_wmb();
	RP_LIST_STEP();
	CMM_STORE_SHARED(l->gen, l->gen + 1);
	/* New gen before new owner: pairs with the 2nd cmm_smp_rmb() in rp_owned_next_rcu. */
	cmm_smp_wmb();
	CMM_STORE_SHARED(l->owner, owner);
	RP_LIST_STEP();
	head->next->prev = &l->node;
	/* Publish: pairs with rcu_dereference(->next) in readers. */
	rcu_assign_pointer(head->next, &l->node);
}

/*
 * One step of a retry reader on @head owned by @owner: the link after @l, or
 * @head's first link again (counting a restart) if @l may have left.
 */
static inline struct cds_list_head *rp_owned_next_rcu(struct rp_owned_link *l,
						      struct cds_list_head *head,
						      const void *owner,
						      unsigned long *restarts)
{
	unsigned long gen = CMM_LOAD_SHARED(l->gen);
	struct cds_list_head *next;

	/*
	 * gen before ->next: pairs with the 1st cmm_smp_wmb() in rp_owned_add_pub,
	 * so a ->next older than the gen read is never taken for a newer one.
	 */
	cmm_smp_rmb();
	next = rcu_dereference(l->node.next);
	/*
	 * ->next before the recheck: pairs with the 2nd cmm_smp_wmb() in
	 * rp_owned_add_pub and with the one in rp_owned_del_pub, so a ->next
	 * loaded after the node left or moved comes with a changed owner or gen.
	 */
	cmm_smp_rmb();
	if (CMM_LOAD_SHARED(l->owner) != owner || CMM_LOAD_SHARED(l->gen) != gen) {
		(*restarts)++;
		next = rcu_dereference(head->next);
	}
	return next;
}

#define rp__owned_entry(ptr, type, member) \
	caa_container_of(ptr, type, member.node)

/*
 * Walk the Group 3 list @head, owned by @owner, under rcu_read_lock();
 * @member is the struct rp_owned_link in the entry.  Restarts from the head
 * whenever the node just visited may have left (see rp_owned_next_rcu); a
 * body that gathers results per pass resets them when @restarts changes.
 * The walk ends only at @head, so it cannot wander onto another list.
 * Every node on @head must have @owner as its owner (attach them all with
 * rp_owned_add_pub): a node with another owner makes every pass restart.
 */
#define rp_owned_for_each_entry_rcu(pos, head, owner, member, restarts)	\
	for ((pos) = rp__owned_entry(rcu_dereference((head)->next),		\
				     __typeof__(*(pos)), member);		\
	     &(pos)->member.node != (head);					\
	     (pos) = rp__owned_entry(rp_owned_next_rcu(&(pos)->member, (head),	\
						       (owner), (restarts)),	\
				     __typeof__(*(pos)), member))

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_LIST_H */
