/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Membership of process groups through proxies (the article's Group 5,
 * "Impose Level of Indirection" and "Substitute Copy For Original"):
 * linking, moving and retiring a process's entry on the member list of its
 * group that src/task/relations.c walks; and of sessions through their
 * groups (docs/process.md, protocol (i)): a group is on its session's list
 * of groups, and holds the session's id, while it has members.
 *
 * A move publishes a new proxy at the head of the new list, marks the old
 * one obsolete and unlinks it; the old one keeps its ->next (a walker
 * standing on it walks on along the old list) and lasts past a grace
 * period.  A proxy is never linked twice.  Fork links the child's proxy,
 * the one embedded in its thread group, right behind the parent's: see
 * docs/pgrp.md.  A fork joins a group that has a member, its parent, so it
 * writes nothing of the session.
 */
#include "pgrp.h"
#include "../task/pidmap.h"
#include "../debug/cache.h"
#include "../debug/racepoint.h"

static struct rp_cache proxy_cache = RP_CACHE_INIT("proxy", struct rp_moved_proxy);

struct rp_proxy *rp_proxy_alloc(struct rp_system *sys)
{
	struct rp_moved_proxy *mp = rp_cache_zalloc(&proxy_cache);

	if (!mp)
		return NULL;
	mp->sys = sys;
	rp_hlist_node_init(&mp->px.node);
	rp_count_inc(sys, proxies);
	return &mp->px;
}

static void proxy_free(struct rp_deferred *d)
{
	struct rp_moved_proxy *mp = caa_container_of(d, struct rp_moved_proxy, rcu);

	rp_count_dec(mp->sys, proxies);
	rp_cache_free(&proxy_cache, mp);
}

void rp_proxy_free_unlinked(struct rp_proxy *px)
{
	if (px)
		proxy_free(&caa_container_of(px, struct rp_moved_proxy, px)->rcu);
}

/* Link @px for @sig at the head of group @pid's list (complete, then published). */
static void proxy_link_head(struct rp_signal *sig, struct rp_pid *pid, struct rp_proxy *px)
{
	px->member = (uintptr_t)sig;
	CMM_STORE_SHARED(sig->proxy, px);
	/* Publishes @px: pairs with rcu_dereference(->next) in the walkers. */
	cds_hlist_add_head_rcu(&px->node, rp_member_list(pid));
}

/*
 * Walkers skip @sig's entry @px from now on; off its list; kept past a
 * grace period.  The entry fork embedded in @sig needs no release of its
 * own: @sig is released after a grace period that starts after its last
 * reference is dropped, and a process holds one until its last thread is
 * freed, after this unlink (src/task/task.c).  A walker standing on that
 * entry reads @sig through it: its release covers both.
 */
static void proxy_retire(struct rp_signal *sig, struct rp_proxy *px)
{
	/* Pairs with rp_proxy_obsolete's load in the walkers. */
	CMM_STORE_SHARED(px->member, px->member | RP_PROXY_OBSOLETE);
	RP_TORTURE_DELAY();
	/* ->next stays for walkers standing on @px. */
	rp_hlist_del_init_pub(&px->node);
	if (px != &sig->member) {
		struct rp_moved_proxy *mp = caa_container_of(px, struct rp_moved_proxy, px);

		rp_defer_release(&mp->sys->sync, &mp->rcu, proxy_free);
	}
}

/*
 * Group @pgrp got its first member: onto @session's list of groups, and
 * it holds the session's id.  M of the session (a plain move), or the
 * update lock.  The list is walked under the update lock alone
 * (rp_for_each_session_member_locked): plain stores.
 */
static void group_born(struct rp_pid *pgrp, struct rp_pid *session)
{
	rp_assert_member_write(rp_pid_sys(pgrp), session);
	rp_pid_attach(session);
	cds_hlist_add_head(&rp_id_block(pgrp)->in_session, &session->groups);
}

/*
 * Group @pgrp lost its last member: off @session's list, and the session's
 * id is let go.  M of the session (a plain reap or move), or the update
 * lock.
 */
static void group_gone(struct rp_pid *pgrp, struct rp_pid *session)
{
	rp_assert_member_write(rp_pid_sys(pgrp), session);
	RP_RACE_POINT(RP_RACE_GROUP_GONE, &rp_id_block(session)->task);
	cds_hlist_del(&rp_id_block(pgrp)->in_session);
	rp_pid_detach(session);
}

bool rp_pgrp_seems_last_member(struct rp_signal *sig)
{
	struct rp_proxy *px = CMM_LOAD_SHARED(sig->proxy);
	struct cds_hlist_head *list = rp_member_list(CMM_LOAD_SHARED(sig->pgrp));

	return CMM_LOAD_SHARED(list->next) == &px->node && !CMM_LOAD_SHARED(px->node.next);
}

bool rp_pgrp_last_member(struct rp_signal *sig)
{
	rp_assert_member_write(rp_signal_sys(sig), sig->pgrp);
	return rp_pgrp_seems_last_member(sig);
}

void rp_pgrp_init_leader(struct rp_signal *sig, struct rp_pid *pid)
{
	rp_pid_attach(pid);
	sig->pgrp = pid;
	sig->session = pid;
	proxy_link_head(sig, pid, &sig->member);
	group_born(pid, pid);
}

/*
 * sys->tasks without one lock (docs/process.md, "The per-object locks"):
 * L of a node guards its ->next and its successor's ->prev, so a link
 * behind a node locks that node, and an unlink of a node locks its
 * predecessor and then the node (list order), and then checks under the
 * locks that what it read before still holds (the lazy list's
 * validation): the predecessor has not left the list, and it still leads
 * to the node.  A node that left the list has a NULL ->prev, stored
 * under both locks of its unlink (readers never follow ->prev); its
 * ->next stays for the walkers standing on it.
 * RP_BREAK_TASKS_NO_RECHECK unlinks behind the predecessor it read before
 * the locks: a fork that linked a child behind that predecessor meanwhile
 * loses it from the list.
 */
#ifdef RP_BREAK_TASKS_NO_RECHECK
#define TASKS_RECHECK false
#else
#define TASKS_RECHECK true
#endif

/* Has @node left sys->tasks?  (L of @node, or of its predecessor, held) */
static bool tasks_unlinked(struct cds_list_head *node)
{
	return CMM_LOAD_SHARED(node->prev) == NULL;
}

/*
 * Link @child's node on sys->tasks right behind @self's leader's: under L
 * of that node alone.  L of a node guards its ->next and its successor's
 * ->prev, the two fields of the list a link writes (the new node's are
 * its own until it is published); every other writer of the successor's
 * ->prev holds the same L: an unlink of the successor locks its
 * predecessor (our node) first, an unlink of our node locks our node.  So
 * the successor's own L, which its forks take to link behind it, is not
 * taken: forks in two neighbouring subtrees do not wait for each other.
 * Under the gate shared, releases unlink beside us: the predecessor, the
 * forking process's leader, cannot have left the list (a leader is
 * released after every other thread of its group, and the caller is one
 * that lives), and what follows it cannot change under its L; the check
 * says so.  Model: models/tasks_lazy_list.pml.
 */
static void tasks_link_behind(struct rp_system *sys, struct cds_list_head *node,
			      struct cds_list_head *pred)
{
	struct rp_bytelock *lp = NULL;

	if (rp_gate_shared_here(&sys->sync)) {
		lp = rp_link_lock_of(sys, pred);
		rp_link_lock(lp);
		RP_BUG_ON(tasks_unlinked(pred) || tasks_unlinked(pred->next));
	}
	/* Pairs with rcu_dereference(->next) under our siglock (kill(-1), I1). */
	cds_list_add_rcu(node, pred);
	if (lp)
		rp_link_unlock(lp);
}

void rp_tasks_unlink(struct rp_system *sys, struct cds_list_head *node)
{
	struct rp_bytelock *lp, *ln;
	struct cds_list_head *pred;

	if (!rp_gate_shared_here(&sys->sync)) {
		rp_assert_update_held(&sys->sync);
		cds_list_del_rcu(node);
		CMM_STORE_SHARED(node->prev, NULL);
		return;
	}
	/* The predecessor read before its lock: a read section keeps it. */
	rp_read_lock(&sys->sync);
	for (;;) {
		pred = CMM_LOAD_SHARED(node->prev);
		RP_RACE_POINT(RP_RACE_TASKS_UNLINK, caa_container_of(node, struct rp_task, tasks));
		lp = rp_link_lock_of(sys, pred);
		rp_link_lock(lp);
		ln = rp_link_lock_of(sys, node);
		rp_link_lock(ln);
		/* The node is ours to unlink: only its release does. */
		RP_BUG_ON(tasks_unlinked(node));
		if (!TASKS_RECHECK || (!tasks_unlinked(pred) && pred->next == node))
			break;
		/* A link behind @pred, or @pred's own unlink, came first: again. */
		rp_link_unlock(ln);
		rp_link_unlock(lp);
	}
	if (TASKS_RECHECK) {
		cds_list_del_rcu(node);
	} else {
		/* The naive twin: behind the predecessor read before the locks. */
		node->next->prev = pred;
		CMM_STORE_SHARED(pred->next, node->next);
	}
	CMM_STORE_SHARED(node->prev, NULL);
	rp_link_unlock(ln);
	rp_link_unlock(lp);
	rp_read_unlock(&sys->sync);
}

void rp_pgrp_fork_link(struct rp_task *self, struct rp_task *child)
{
	struct rp_signal *psig = self->signal, *sig = child->signal;
	struct rp_pid *pgrp = psig->pgrp;
	struct rp_proxy *px = &sig->member;

	rp_assert_siglock_held(self);
	/* The update lock, or (a plain fork) M of the group: the list and the count. */
	rp_assert_member_write(self->sys, pgrp);
	rp_pid_attach(pgrp);
	sig->pgrp = pgrp;
	/* Held by the group, which the parent keeps alive: nothing written there. */
	sig->session = psig->session;
#ifdef RP_BREAK_CHILD_AT_HEAD
	proxy_link_head(sig, pgrp, px);
#else
	px->member = (uintptr_t)sig;
	sig->proxy = px;
	/* Right behind the parent: a walker reaching it has passed the parent. */
	rp_hlist_add_behind_pub(&px->node, &psig->proxy->node);
#endif
#ifdef RP_BREAK_CHILD_AT_HEAD
	tasks_link_behind(self->sys, &child->tasks, self->sys->tasks.prev);
#else
	/* The same for kill(-1). */
	tasks_link_behind(self->sys, &child->tasks, &self->group_leader->tasks);
#endif
}

void rp_pgrp_move(struct rp_signal *sig, struct rp_pid *to, struct rp_pid *session,
		  struct rp_proxy *px)
{
	struct rp_pid *from = sig->pgrp, *old_session = sig->session;
	struct rp_proxy *old = sig->proxy;
	struct rp_system *sys = rp_signal_sys(sig);
	bool born;

	rp_assert_group_siglock_held(sig);
	/*
	 * The update lock, or (setpgid and setsid under the gate shared) M
	 * of both groups and of the sessions (a group's birth or death).
	 */
	rp_assert_member_write(sys, from);
	rp_assert_member_write(sys, to);
	born = rp_hlist_empty(rp_member_list(to));
	/*
	 * The joining order (rp_signal_pgrp_joined): after every fork that
	 * has taken its root number, before every later one.  A read of the
	 * root's cursor, no write: a fork whose number came before and that
	 * links into @to after us is ordered as if it had joined first, and
	 * a group kill that meets us before its link still reaches it, by
	 * the walk or its parent's fork record (docs/namespaces.md).
	 */
	caa_container_of(px, struct rp_moved_proxy, px)->joined =
		rp_pidmap_order(&sys->pidns.pidmap) << RP_BIRTH_SHIFT | RP_JOINED_MOVE;
#ifdef RP_BREAK_RELINK_PROXY
	/* Linux's change_pid: the same node, off one list and onto the other. */
	cds_hlist_del_rcu(&old->node);
	RP_TORTURE_DELAY();
	/* A walker standing on @old now follows it into @to's list. */
	cds_hlist_add_head_rcu(&old->node, rp_member_list(to));
	rp_proxy_free_unlinked(px);
#else
	proxy_link_head(sig, to, px);
	proxy_retire(sig, old);
#endif
	if (born)
		group_born(to, session);
	if (rp_hlist_empty(rp_member_list(from)))
		group_gone(from, old_session);
	rp_pid_attach(to);
	/*
	 * The session first, then the group, as Linux's __set_special_pids:
	 * a reader may see setsid's new session with the old group, never
	 * its new group (of its own name) in the old session.  Both pair
	 * with rcu_dereference in getpgid, getsid, kill(0), wait and
	 * SIGCONT's check.
	 * RP_BREAK_PGRP_BEFORE_SESSION stores the group first.
	 */
#ifdef RP_BREAK_PGRP_BEFORE_SESSION
	rcu_assign_pointer(sig->pgrp, to);
	RP_RACE_POINT(RP_RACE_SESSION_STORED, &rp_process_of(sig)->task);
	if (session != old_session)
		rcu_assign_pointer(sig->session, session);
#else
	if (session != old_session)
		rcu_assign_pointer(sig->session, session);
	RP_RACE_POINT(RP_RACE_SESSION_STORED, &rp_process_of(sig)->task);
	rcu_assign_pointer(sig->pgrp, to);
#endif
	rp_pid_detach(from);
}

void rp_pgrp_exit(struct rp_signal *sig)
{
	struct rp_pid *pgrp = sig->pgrp;

	/* The update lock, or (a plain reap) M of the group: the list and the count. */
	rp_assert_member_write(rp_signal_sys(sig), pgrp);
	proxy_retire(sig, sig->proxy);
	sig->proxy = NULL;
	if (rp_hlist_empty(rp_member_list(pgrp)))
		group_gone(pgrp, sig->session);
	rp_pid_detach(pgrp);
}
