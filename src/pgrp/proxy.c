/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Membership of process groups and sessions through proxies (the article's
 * Group 5, "Impose Level of Indirection" and "Substitute Copy For
 * Original"), and the walks over them.
 *
 * Each process has one proxy on its process group's member list and one on
 * its session's, both hlists hung off the struct rp_pid of the id.  A move
 * publishes a new proxy at the head of the new list, marks the old one
 * obsolete and unlinks it; the old one keeps its ->next (a walker standing
 * on it walks on along the old list) and is freed after a grace period.  A
 * proxy is never linked twice.  Fork links the child's proxies right behind
 * the parent's.  The exactly-once walkers read each member's successor
 * under that member's siglock: see docs/pgrp.md.
 */
#include <errno.h>
#include "pgrp.h"
#include "../debug/racepoint.h"

static struct cds_hlist_head *member_list(struct rp_pid *pid, enum rp_pid_type type)
{
	return &pid->members[type - RP_PIDTYPE_PGID];
}

/* The id field of @sig for list @type: its pgrp or its session. */
static struct rp_pid **member_id(struct rp_signal *sig, enum rp_pid_type type)
{
	return type == RP_PIDTYPE_PGID ? &sig->pgrp : &sig->session;
}

struct rp_proxy *rp_proxy_alloc(struct rp_system *sys)
{
	struct rp_proxy *px = rp_zalloc(sizeof(*px));

	if (!px)
		return NULL;
	px->sys = sys;
	rp_hlist_node_init(&px->node);
	rp_count_inc(sys, proxies);
	return px;
}

static void proxy_free(struct rp_deferred *d)
{
	struct rp_proxy *px = caa_container_of(d, struct rp_proxy, rcu);

	rp_count_dec(px->sys, proxies);
	rp_free(px);
}

void rp_proxy_free_unlinked(struct rp_proxy *px)
{
	if (px)
		proxy_free(&px->rcu);
}

/* Link @px for @sig at the head of list @type of @pid (complete, then published). */
static void proxy_link_head(struct rp_signal *sig, enum rp_pid_type type, struct rp_pid *pid,
			    struct rp_proxy *px)
{
	px->signal = sig;
	CMM_STORE_SHARED(sig->proxy[type - RP_PIDTYPE_PGID], px);
	/* Publishes @px: pairs with rcu_dereference(->next) in the walkers. */
	cds_hlist_add_head_rcu(&px->node, member_list(pid, type));
}

/* Walkers skip @px from now on; off its list; freed after a grace period. */
static void proxy_retire(struct rp_proxy *px)
{
	CMM_STORE_SHARED(px->obsolete, true);
	RP_TORTURE_DELAY();
	/* ->next stays for walkers standing on @px. */
	rp_hlist_del_init_rcu(&px->node);
	rp_defer_release(&px->sys->sync, &px->rcu, proxy_free);
}

void rp_pgrp_init_leader(struct rp_signal *sig, struct rp_pid *pid,
			 struct rp_proxy *px[RP_MEMBER_LISTS])
{
	for (enum rp_pid_type type = RP_PIDTYPE_PGID; type <= RP_PIDTYPE_SID; type++) {
		rp_pid_attach(pid);
		*member_id(sig, type) = pid;
		proxy_link_head(sig, type, pid, px[type - RP_PIDTYPE_PGID]);
	}
}

void rp_pgrp_fork_link(struct rp_task *self, struct rp_task *child,
		       struct rp_proxy *px[RP_MEMBER_LISTS])
{
	struct rp_signal *psig = self->signal, *sig = child->signal;

	for (enum rp_pid_type type = RP_PIDTYPE_PGID; type <= RP_PIDTYPE_SID; type++) {
		int i = type - RP_PIDTYPE_PGID;
		struct rp_pid *id = *member_id(psig, type);

		rp_pid_attach(id);
		*member_id(sig, type) = id;
#ifdef RP_BREAK_CHILD_AT_HEAD
		proxy_link_head(sig, type, id, px[i]);
#else
		px[i]->signal = sig;
		sig->proxy[i] = px[i];
		/* Right behind the parent: a walker reaching it has passed the parent. */
		rp_hlist_add_behind_rcu(&px[i]->node, &psig->proxy[i]->node);
#endif
	}
#ifdef RP_BREAK_CHILD_AT_HEAD
	cds_list_add_tail_rcu(&child->tasks, &self->sys->tasks);
#else
	/* The same for kill(-1): pairs with rcu_dereference(->next) under our siglock. */
	cds_list_add_rcu(&child->tasks, &self->group_leader->tasks);
#endif
}

void rp_pgrp_move(struct rp_signal *sig, enum rp_pid_type type, struct rp_pid *to,
		  struct rp_proxy *px)
{
	struct rp_pid **id = member_id(sig, type), *from = *id;
	struct rp_proxy *old = sig->proxy[type - RP_PIDTYPE_PGID];

#ifdef RP_BREAK_RELINK_PROXY
	/* Linux's change_pid: the same node, off one list and onto the other. */
	cds_hlist_del_rcu(&old->node);
	RP_TORTURE_DELAY();
	/* A walker standing on @old now follows it into @to's list. */
	cds_hlist_add_head_rcu(&old->node, member_list(to, type));
	rp_proxy_free_unlinked(px);
#else
	proxy_link_head(sig, type, to, px);
	proxy_retire(old);
#endif
	rp_pid_attach(to);
	/* Pairs with rcu_dereference in getpgid, getsid, kill(0), wait and SIGCONT's check. */
	rcu_assign_pointer(*id, to);
	rp_pid_detach(from);
}

void rp_pgrp_exit(struct rp_signal *sig)
{
	for (enum rp_pid_type type = RP_PIDTYPE_PGID; type <= RP_PIDTYPE_SID; type++) {
		proxy_retire(sig->proxy[type - RP_PIDTYPE_PGID]);
		sig->proxy[type - RP_PIDTYPE_PGID] = NULL;
		rp_pid_detach(*member_id(sig, type));
	}
}

bool rp_session_leader(struct rp_signal *sig)
{
	/*
	 * The sid is the leader's own pid, held while anyone uses it: never
	 * reused.  Pairs with rcu_assign_pointer in rp_pgrp_move.
	 */
	return rcu_dereference(sig->session) == sig->leader_pid;
}

pid_t rp_task_pgrp_nr(struct rp_task *p)
{
	/* Pairs with rcu_assign_pointer in rp_pgrp_move. */
	return rcu_dereference(p->signal->pgrp)->nr;
}

pid_t rp_task_session_nr(struct rp_task *p)
{
	/* Pairs with rcu_assign_pointer in rp_pgrp_move. */
	return rcu_dereference(p->signal->session)->nr;
}

/*
 * The leader of @sig's process with its siglock taken (in *@sh), or NULL if
 * the process is gone.  A leader released by a racing exec has handed its
 * pid to the new leader: look again, and stop when the same task comes back.
 */
static struct rp_task *lock_process(struct rp_signal *sig, struct rp_sighand **sh)
{
	struct rp_task *p, *prev = NULL;

	for (;;) {
		/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
		p = rcu_dereference(sig->leader_pid->task);
		if (!p || p == prev)
			return NULL;
		*sh = rp_lock_task_sighand_rcu(p);
		if (*sh)
			return p;
		prev = p;
	}
}

/*
 * One member of a member list: call @fn on it (locked: under its siglock)
 * unless it moved away, and return its successor, read after @fn and, when
 * locked, under the same siglock as fork's link behind it.
 */
static struct cds_hlist_node *visit_member(struct cds_hlist_node *node, bool locked,
					   int (*fn)(struct rp_task *p, void *arg),
					   void *arg, int *ret)
{
	struct rp_proxy *px = caa_container_of(node, struct rp_proxy, node);
	struct rp_sighand *sh = NULL;
	struct cds_hlist_node *next;
	struct rp_task *p;

	if (locked)
		p = lock_process(px->signal, &sh);
	else	/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
		p = rcu_dereference(px->signal->leader_pid->task);
	if (p && !CMM_LOAD_SHARED(px->obsolete))
		*ret = fn(p, arg);
	/* Pairs with the publication in rp_hlist_add_behind_rcu / cds_hlist_add_head_rcu. */
	next = rcu_dereference(node->next);
	if (sh)
		rp_unlock_sighand(sh);
	return next;
}

static int walk_members(struct rp_system *sys, enum rp_pid_type type, pid_t nr, bool locked,
			int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	struct rp_pid *pid = rp_pid_find(sys, nr);
	struct cds_hlist_node *node;
	int ret = 0;

	if (!pid)
		return -ESRCH;
	/* Pairs with cds_hlist_add_head_rcu's publication of a first proxy. */
	node = rcu_dereference(member_list(pid, type)->next);
	while (node && !ret)
		node = visit_member(node, locked, fn, arg, &ret);
	return ret;
}

int rp_for_each_member_rcu(struct rp_system *sys, enum rp_pid_type type, pid_t nr,
			   int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	int ret = walk_members(sys, type, nr, false, fn, arg);

	return ret == -ESRCH ? 0 : ret;
}

int rp_for_each_member_locked_rcu(struct rp_system *sys, enum rp_pid_type type, pid_t nr,
				  int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	return walk_members(sys, type, nr, true, fn, arg);
}

/*
 * The node after process @p (NULL: gone), which the walk reached at @pos,
 * read under @p's siglock.  @pos may be the node of a leader that exec has
 * since replaced by @p's (cds_list_replace_rcu): its ->next is stale, and
 * fork links a child behind the current leader's node, so follow that one.
 * While an exec switches leaders, the new leader's node is not linked yet
 * (still the self-loop of a thread) and the old one still has the right
 * successor: no fork can link behind the new one before the exec ends.
 * RP_BREAK_WALK_STALE_NEXT follows @pos whatever it is.
 */
static struct cds_list_head *process_next(struct cds_list_head *pos, struct rp_task *p)
{
#ifndef RP_BREAK_WALK_STALE_NEXT
	struct cds_list_head *next;
	struct rp_task *leader;

	if (p) {
		rp_lockdep_assert_held(RP_LOCK_SIGHAND);
		/* Pairs with the group_leader stores of exec's leader switch. */
		leader = rcu_dereference(p->group_leader);
		/* Pairs with fork's cds_list_add_rcu behind @leader, under the same siglock. */
		next = rcu_dereference(leader->tasks.next);
		if (next != &leader->tasks)
			return next;
	}
#else
	(void)p;
#endif
	/* Pairs with the publication in cds_list_add_rcu (fork) and replace (exec). */
	return rcu_dereference(pos->next);
}

int rp_for_each_process_locked_rcu(struct rp_system *sys,
				   int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	struct cds_list_head *head = &sys->tasks, *pos, *next;
	struct rp_sighand *sh;
	struct rp_task *p;
	int ret = 0;

	/* Pairs with the publication in cds_list_add_rcu (fork) and replace (exec). */
	for (pos = rcu_dereference(head->next); pos != head && !ret; pos = next) {
		RP_RACE_POINT(RP_RACE_PROCESS_WALK_NODE, caa_container_of(pos, struct rp_task, tasks));
		p = lock_process(caa_container_of(pos, struct rp_task, tasks)->signal, &sh);
		if (p)
			ret = fn(p, arg);
		next = process_next(pos, p);
		if (p)
			rp_unlock_sighand(sh);
		/* Between two processes a fork may link a child: widen it (torture). */
		RP_TORTURE_DELAY();
	}
	return ret;
}

/* rp_pgrp_in_session_rcu's look at the group's first member. */
static int session_of(struct rp_task *p, void *arg)
{
	*(pid_t *)arg = rp_task_session_nr(p);
	return 1;
}

bool rp_pgrp_in_session_rcu(struct rp_system *sys, pid_t pgrp, pid_t sid)
{
	pid_t found = 0;

	rp_for_each_member_rcu(sys, RP_PIDTYPE_PGID, pgrp, session_of, &found);
	return found && found == sid;
}
