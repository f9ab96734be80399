/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The relations of the object model that many floors read: a process's
 * process group and session, and the walks over the members of a group or
 * session (the article's Group 5, "Impose Level of Indirection" and
 * "Substitute Copy For Original") and over every process.
 *
 * Each process has one proxy on its process group's member list, an hlist
 * hung off the struct rp_pid of the id (src/pgrp/membership.c links, moves
 * and retires it); a session lists its groups (docs/process.md, protocol
 * (i)).  A retired proxy keeps its ->next, so a walker standing on it
 * walks on along the old list.  Fork links the child's proxy right
 * behind the parent's.  The
 * exactly-once walkers read each member's successor under that member's
 * siglock: see docs/pgrp.md.
 */
#include <errno.h>
#include "relations.h"
#include "../debug/racepoint.h"

bool rp_session_leader_rcu(struct rp_signal *sig)
{
	rp_assert_read_section(&rp_signal_sys(sig)->sync);
	/*
	 * The sid is the leader's own pid, held while anyone uses it: never
	 * reused.  Pairs with rcu_assign_pointer in rp_pgrp_move.
	 */
	return rcu_dereference(sig->session) == rp_signal_leader_pid(sig);
}

pid_t rp_task_pgrp_nr_rcu(struct rp_task *p)
{
	rp_assert_read_section(&p->sys->sync);
	/* Pairs with rcu_assign_pointer in rp_pgrp_move. */
	return rcu_dereference(p->signal->pgrp)->nr;
}

pid_t rp_task_session_nr_rcu(struct rp_task *p)
{
	rp_assert_read_section(&p->sys->sync);
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
		p = rcu_dereference(rp_signal_leader_pid(sig)->task);
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
		p = lock_process(rp_proxy_signal(px), &sh);
	else	/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
		p = rcu_dereference(rp_signal_leader_pid(rp_proxy_signal(px))->task);
	if (p && !rp_proxy_obsolete(px))
		*ret = fn(p, arg);
	/* Pairs with the publication in rp_hlist_add_behind_pub / cds_hlist_add_head_rcu. */
	next = rcu_dereference(node->next);
	if (sh)
		rp_unlock_sighand(sh);
	return next;
}

/* The members of group @pid; an empty list for a pid whose number is freed. */
static int walk_pid_members(struct rp_pid *pid, bool locked,
			    int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	struct cds_hlist_node *node;
	int ret = 0;

	rp_assert_read_section(&rp_pid_sys(pid)->sync);
	/* Pairs with cds_hlist_add_head_rcu's publication of a first proxy. */
	node = rcu_dereference(rp_member_list(pid)->next);
	while (node && !ret)
		node = visit_member(node, locked, fn, arg, &ret);
	return ret;
}

static int walk_members(struct rp_system *sys, pid_t nr, bool locked,
			int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	struct rp_pid *pid = rp_pid_find_rcu(sys, nr);

	return pid ? walk_pid_members(pid, locked, fn, arg) : -ESRCH;
}

int rp_for_each_member_rcu(struct rp_system *sys, pid_t pgrp,
			   int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	int ret = walk_members(sys, pgrp, false, fn, arg);

	return ret == -ESRCH ? 0 : ret;
}

int rp_for_each_member_siglocked_rcu(struct rp_system *sys, pid_t pgrp,
				  int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	return walk_members(sys, pgrp, true, fn, arg);
}

int rp_for_each_pid_member_siglocked_rcu(struct rp_pid *pid,
				      int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	return walk_pid_members(pid, true, fn, arg);
}

int rp_for_each_session_member_locked(struct rp_system *sys, pid_t sid,
				      int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	struct cds_hlist_node *node;
	struct rp_pid *session;
	int ret = 0;

	/* The groups' births and deaths take the gate shared: none beside us. */
	rp_assert_update_held(&sys->sync);
	session = rp_pid_find_rcu(sys, sid);
	if (!session)
		return -ESRCH;
	for (node = session->groups.next; node && !ret; node = node->next) {
		struct rp_process *g = caa_container_of(node, struct rp_process, in_session);

		ret = walk_pid_members(&g->pid, true, fn, arg);
	}
	return ret;
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
		rp_assert_siglock_held(p);
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

int rp_for_each_process_siglocked_rcu(struct rp_system *sys,
				   int (*fn)(struct rp_task *p, void *arg), void *arg)
{
	struct cds_list_head *head = &sys->tasks, *pos, *next;
	struct rp_sighand *sh;
	struct rp_task *p;
	int ret = 0;

	rp_assert_read_section(&sys->sync);
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
	*(pid_t *)arg = rp_task_session_nr_rcu(p);
	return 1;
}

bool rp_pgrp_in_session_rcu(struct rp_system *sys, pid_t pgrp, pid_t sid)
{
	pid_t found = 0;

	rp_assert_read_section(&sys->sync);
	rp_for_each_member_rcu(sys, pgrp, session_of, &found);
	return found && found == sid;
}
