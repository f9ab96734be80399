/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setpgid(2), setsid(2) and the id queries, with Linux's errnos.  A move
 * runs under the update lock, or in rcu mode under the update gate shared
 * and the object locks of protocol (c) (docs/process.md; struct
 * move_hold below), and the moving process's siglock (so that a group
 * signal reaches a process either before it left or not at all), and
 * publishes new proxies (membership.c).  Queries read under rp_read_lock only.
 */
#include <errno.h>
#include "pgrp.h"
#include "../task/jobc.h"
#include "../debug/racepoint.h"
#include <rcuproc/pgrp.h>	/* the definitions below see RP_API */

/*
 * Move @p's process into group @pgrp and session @session, linking the
 * proxy *@px and taking it out of *@px, under the siglock.  The update
 * lock held, or (rcu mode, the gate shared: struct move_hold) G of @p's
 * group, T of every thread of it and of its real parent, and M of every
 * id the move changes and of its sessions.  The ties the move makes
 * are counted before it and those it breaks after (jobc.h), so that a
 * group that keeps a tie is never seen orphaned meanwhile; the old ids
 * that change are held until then (one that stays is held by @p itself).
 * RP_BREAK_JOBC_TAKE_FIRST takes away before it adds: a group that loses
 * one tie and gains another reads 0 in between.
 */
static void move_ids(struct rp_task *p, struct rp_pid *pgrp, struct rp_pid *session,
		     struct rp_proxy **px)
{
	struct rp_signal *sig = p->signal;
	struct rp_pid *old_pgrp = sig->pgrp, *old_session = sig->session;
	struct rp_sighand *sh;

	RP_DEBUG_BUG_ON(!rp_update_section_here(&p->sys->sync));
	if (pgrp != old_pgrp)
		rp_pid_attach(old_pgrp);
	if (session != old_session)
		rp_pid_attach(old_session);
#ifdef RP_BREAK_JOBC_TAKE_FIRST
	rp_jobc_move(p, old_pgrp, old_session, -1);
#else
	rp_jobc_move(p, pgrp, session, 1);
#endif
	/* Not released: the update lock, or T of its real parent (a release's tie). */
	sh = rp_lock_task_sighand(p);
	rp_pgrp_move(sig, pgrp, session, *px);
	*px = NULL;
	rp_unlock_sighand(sh);
	RP_RACE_POINT(RP_RACE_JOBC_MOVED, p);
#ifdef RP_BREAK_JOBC_TAKE_FIRST
	rp_jobc_move(p, pgrp, session, 1);
#else
	rp_jobc_move(p, old_pgrp, old_session, -1);
#endif
	if (session != old_session)
		rp_pid_detach(old_session);
	if (pgrp != old_pgrp)
		rp_pid_detach(old_pgrp);
}

/*
 * Linux's checks of setpgid's target @pid (update lock, or a move_hold of
 * the process found): the caller's process, or a child of it in the same
 * session that has not exec'd, and never a session leader.
 */
static int setpgid_target(struct rp_task *self, pid_t pid, struct rp_task **out)
{
	struct rp_task *leader = self->group_leader;
	struct rp_task *p = rp_find_task_rcu(self->sys, pid);

	if (!p)
		return -ESRCH;
	if (!rp_thread_group_leader(p))
		return -EINVAL;
	/* What follows is frozen by T of @p and of its real parent (a move_hold). */
	rp_assert_update_or_held(&self->sys->sync, &p->tree_lock);
	if (rp_same_thread_group(p->real_parent, leader)) {
		if (p->signal->session != leader->signal->session)
			return -EPERM;
		/* T of @p: exec clears the flag under the update lock. */
		if (!(p->flags & RP_PF_FORKNOEXEC))
			return -EACCES;
	} else if (p != leader) {
		return -ESRCH;
	}
	if (rp_session_leader_rcu(p->signal))
		return -EPERM;
	*out = p;
	return 0;
}

/*
 * The group @pgid for @p: its own pid, or a group of the caller's session;
 * NULL: EPERM.  Whether the group is there is its member list: the update
 * lock, or M of the pid found (a move_hold).
 */
static struct rp_pid *setpgid_group(struct rp_task *self, struct rp_task *p, pid_t pgid)
{
	if (pgid == rp_task_tgid(p))
		return rp_signal_leader_pid(p->signal);
	struct rp_pid *pgrp;

	if (!rp_pgrp_in_session_rcu(self->sys, pgid, self->signal->session->nr))
		return NULL;
	pgrp = rp_pid_find_rcu(self->sys, pgid);
	/* Its members, which said so, are frozen by its M (a move_hold). */
	rp_assert_member_write(self->sys, pgrp);
	return pgrp;
}

/* Move @p's process to @pgrp unless it is there already. */
static void change_pgrp(struct rp_task *p, struct rp_pid *pgrp, struct rp_proxy **px)
{
	/* @p's ids are frozen by its T (a move_hold), or the update lock. */
	rp_assert_update_or_held(&p->sys->sync, &p->tree_lock);
	if (p->signal->pgrp == pgrp)
		return;
	move_ids(p, pgrp, p->signal->session, px);
}

/*
 * ---- A move under the update gate shared (rcu mode; docs/process.md,
 * protocol (c)) ----
 *
 * G of the moved process P's group, then T of every thread of P and of
 * P's real parent (increasing address, each once; one lock for init, its
 * own parent), then M of every id the move changes, and of P's session
 * if the move begins or ends a group, which changes the session's list
 * of groups (increasing address, each once), then P's siglock (move_ids).  What the answer depends on is
 * read again under them: P's ids, its real parent, its FORKNOEXEC flag
 * and its session leadership (T of P), a group's members and so whether
 * it exists in the session (its M).  P's children are on the children
 * lists of all P's threads, and a plain fork by any thread reads P's ids
 * under that thread's T: so the move takes T of each.  G freezes the
 * thread list while they are taken and held: a thread's clone links its
 * thread, a plain thread's release unlinks it, and exec switches the
 * leader, each under G.  A P of more than MOVE_THREADS_MAX threads, or a
 * move that touches a nested namespace's pid (whose last detach may end
 * the namespace), takes the gate exclusive instead, decided before any
 * write.
 *
 * Writers that these locks keep out: a fork by any thread of P (T of that
 * thread), a move of P by itself or by its parent (T of P's leader), a
 * move or setsid of P's parent, which changes the tie of P's pair (T of
 * the parent), a change of the tie of any child of P (a reparenting onto
 * a thread of P, a child's move, death or release: T of the thread that
 * is the pair's parent), a move of another process into or out of the
 * same group (M), a fork into the group (M), a group born into or gone
 * from the session (its M), and, with
 * the gate shared, a release, which unlinks a process's proxies under M
 * of its ids and its tie under its real parent's T.  Group kills take no
 * writer lock: they walk under RCU and meet P's proxies under its
 * siglock, which the move holds (docs/pgrp.md).
 */
struct move_hold {
	struct rp_task *p;		/* the process moved: its leader */
	struct rp_task *parent;		/* its real parent, when T was taken */
	struct rp_lock_set trees;	/* T held: @p's threads and @parent */
	unsigned int untaken;		/* of @trees, a twin's (rp_tree_lock_set) */
	struct rp_lock_set ids;		/* M held */
};

/* What rp_setpgid and rp_setsid answer to take the gate exclusive instead. */
#define MOVE_EXCLUSIVE	1

/*
 * The most threads of a process moved under the gate shared: each adds
 * a T to the locks held at once, which the lock-order checker allows
 * to sixteen: the move holds fifteen at most (the gate, G, nine T, three
 * M, then the siglock, or after it a bucket lock: the old ids' last
 * detach comes after the siglock's hold), and to the set of T
 * (RP_LOCK_SET_MAX, with the real parent).
 */
#define MOVE_THREADS_MAX	(RP_LOCK_SET_MAX - 1)

/*
 * Is @t's T one a tree twin leaves out (the checker is told, the lock is
 * not taken: rp_tree_lock_set)?  RP_BREAK_SETPGID_OWN_TREE_UNLOCKED leaves out the
 * moved process's own T: a fork by it reads its ids meanwhile and links
 * the child behind a proxy the move retires.
 * RP_BREAK_SETPGID_PARENT_TREE_UNLOCKED leaves out its parent's T: a
 * move of the parent meanwhile counts the pair's tie from ids that the
 * child's move changes under it.  RP_BREAK_SETPGID_THREAD_TREES_UNLOCKED
 * takes T of the leader alone among P's threads, as for a process of one
 * thread: a fork by another thread reads P's ids meanwhile.
 */
static bool tree_twin(const struct move_hold *h, const struct rp_task *t)
{
#if defined(RP_BREAK_SETPGID_OWN_TREE_UNLOCKED)
	return t == h->p;
#elif defined(RP_BREAK_SETPGID_PARENT_TREE_UNLOCKED)
	return t == h->parent;
#elif defined(RP_BREAK_SETPGID_THREAD_TREES_UNLOCKED)
	return t != h->p && t != h->parent;
#else
	(void)h;
	(void)t;
	return false;
#endif
}

/*
 * RP_BREAK_SETPGID_GROUP_UNLOCKED takes no G of the moved process's group
 * (and tells the checker it did): a thread's clone links a thread the
 * move took no T of, whose fork then reads the ids the move changes.
 */
#ifdef RP_BREAK_SETPGID_GROUP_UNLOCKED
#define MOVE_TAKES_GROUP false
#else
#define MOVE_TAKES_GROUP true
#endif

/*
 * Take G of @p's group and T of every thread of it and of its real
 * parent.  False, with nothing held, if @p has more than
 * MOVE_THREADS_MAX threads: the gate exclusive.
 */
static bool hold_trees(struct move_hold *h, struct rp_task *p)
{
	struct rp_task *t;

	h->p = p;
	h->ids.n = 0;
	rp_group_lock_if(p->signal, MOVE_TAKES_GROUP);
	if (p->signal->nr_threads > MOVE_THREADS_MAX) {
		rp_group_unlock_if(p->signal, MOVE_TAKES_GROUP);
		return false;
	}
	h->parent = rcu_dereference(p->real_parent);
	h->trees.n = 0;
	/* The thread list is frozen by G (a clone, a release, exec's switch take it). */
	cds_list_for_each_entry(t, &p->signal->thread_head, thread_node)
		rp_tree_set_add(&h->trees, t);
	rp_tree_set_add(&h->trees, h->parent);	/* one lock for init, its own parent */
	RP_RACE_POINT(RP_RACE_SETPGID_THREADS_READ, p);
	h->untaken = 0;
	for (unsigned int i = 0; i < h->trees.n; i++)
		if (tree_twin(h, h->trees.obj[i]))
			h->untaken |= 1U << i;
	rp_tree_lock_set(&h->trees, h->untaken);
	return true;
}

static void release_trees(struct move_hold *h)
{
	rp_tree_unlock_set(&h->trees, h->untaken);
	rp_group_unlock_if(h->p->signal, MOVE_TAKES_GROUP);
}

/*
 * Did @p's real parent stay the one whose T we took?  A reparenting
 * changes it under T of the old parent, which we hold from now on.
 */
static bool parent_held(struct move_hold *h)
{
	return h->p->real_parent == h->parent;
}

/*
 * RP_BREAK_SETPGID_MEMBER_UNLOCKED tells the checker and takes no M: two
 * moves into one group, or a move beside a fork into the group it leaves,
 * write the list and the count at once.
 */
#ifdef RP_BREAK_SETPGID_MEMBER_UNLOCKED
#define MOVE_UNTAKEN RP_LOCK_SET_ALL
#else
#define MOVE_UNTAKEN 0
#endif

/* M of @ids (@n of them, any order, repeats allowed), in increasing address, each once. */
static void hold_ids(struct move_hold *h, struct rp_pid *const *ids, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rp_member_set_add(&h->ids, ids[i]);
	rp_member_lock_set(&h->ids, MOVE_UNTAKEN);
}

static void release_ids(struct move_hold *h)
{
	rp_member_unlock_set(&h->ids, MOVE_UNTAKEN);
	h->ids.n = 0;
}

static void release_all(struct move_hold *h)
{
	release_ids(h);
	release_trees(h);
}

/* Any pid of a nested namespace among @ids (@n; NULL skipped)? */
static bool any_nested(struct rp_pid *const *ids, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		if (ids[i] && ids[i]->nested)
			return true;
	return false;
}

/*
 * Would @p's move to group @to begin @to or end @p's group, and so write
 * the session's list of groups, whose M the move must then hold too
 * (protocol (i))?  @locked: M of both groups held, and with them held all
 * along the answer stays (taken again with the session's, a change
 * meanwhile can only leave that M held for nothing).  Else a guess read
 * with no group's M (T of @p keeps its group), which spares a second
 * take of the locks when it is right.
 */
static bool group_born_or_gone(struct rp_task *p, struct rp_pid *to, bool locked)
{
	if (to == p->signal->pgrp)
		return false;
	if (rp_hlist_empty(rp_member_list(to)))
		return true;
	return locked ? rp_pgrp_last_member(p->signal) : rp_pgrp_seems_last_member(p->signal);
}

/*
 * setpgid under the gate shared and a move_hold (rcu mode): its answer,
 * or MOVE_EXCLUSIVE (nothing written) for the exclusive gate.
 */
static int setpgid_shared(struct rp_task *self, pid_t pid, pid_t pgid, struct rp_proxy **px)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_pid *ids[3];
	struct move_hold h;
	struct rp_task *p;
	struct rp_pid *pgrp;
	bool with_session;
	int err;

	rp_update_lock_shared(sync);
	rp_read_lock(sync);
again:
	/* A first look, to know whose locks to take; all of it again under them. */
	p = rp_find_task_rcu(self->sys, pid);
	RP_RACE_POINT(RP_RACE_SETPGID_FIRST_LOOK, self);
	if (!p || !rp_thread_group_leader(p)) {
		/*
		 * Answered from this look, as setpgid_target would answer it:
		 * another look here, with no lock held, could find a child
		 * forked meanwhile and pass checks that need its T.
		 */
		err = p ? -EINVAL : -ESRCH;
		goto out;
	}
	if (!hold_trees(&h, p)) {
		err = MOVE_EXCLUSIVE;
		goto out;
	}
	if (!parent_held(&h)) {
		release_trees(&h);
		goto again;
	}
	err = setpgid_target(self, pid, &p);
	if (!err && p != h.p) {
		/* Released and its number reused since the first look. */
		release_trees(&h);
		goto again;
	}
	if (err) {
		release_trees(&h);
		goto out;
	}
	/* The group by number: its members, under its M, say whether it is one. */
	ids[0] = p->signal->pgrp;
	ids[1] = pgid == rp_task_tgid(p) ? rp_signal_leader_pid(p->signal) :
					   rp_pid_find_rcu(self->sys, pgid);
	ids[2] = p->signal->session;
	if (!ids[1] || !ids[1]->in_process) {
		/* No block's pid: no group's id. */
		release_trees(&h);
		err = -EPERM;
		goto out;
	}
	if (any_nested(ids, 3)) {
		release_trees(&h);
		err = MOVE_EXCLUSIVE;
		goto out;
	}
	with_session = group_born_or_gone(p, ids[1], false);
	hold_ids(&h, ids, with_session ? 3 : 2);
	if (!with_session && group_born_or_gone(p, ids[1], true)) {
		release_ids(&h);
		hold_ids(&h, ids, 3);
	}
	pgrp = setpgid_group(self, p, pgid);
	if (pgrp && pgrp != ids[1]) {
		/* That number names another pid now: look again. */
		release_all(&h);
		goto again;
	}
	if (pgrp)
		change_pgrp(p, pgrp, px);
	else
		err = -EPERM;
	release_all(&h);
out:
	rp_read_unlock(sync);
	rp_update_unlock_shared(sync);
	return err;
}

int rp_setpgid(struct rp_task *self, pid_t pid, pid_t pgid)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_proxy *px;
	struct rp_task *p;
	struct rp_pid *pgrp;
	int err = MOVE_EXCLUSIVE;

	if (rp_task_exited(self))
		return -ESRCH;
	if (!pid)
		pid = rp_task_tgid(self);
	if (!pgid)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	px = rp_proxy_alloc(self->sys);
	if (!px)
		return -ENOMEM;
	if (sync->mode == RP_SYNC_RCU)
		err = setpgid_shared(self, pid, pgid, &px);
	if (err == MOVE_EXCLUSIVE) {
		rp_update_lock(sync);
		rp_read_lock(sync);	/* lookups by number (nested: takes nothing more) */
		err = setpgid_target(self, pid, &p);
		if (!err) {
			pgrp = setpgid_group(self, p, pgid);
			if (pgrp)
				change_pgrp(p, pgrp, &px);
			else
				err = -EPERM;
		}
		rp_read_unlock(sync);
		rp_update_unlock(sync);
	}
	rp_proxy_free_unlinked(px);
	rp_sync_quiescent();
	return err;
}

/*
 * Linux's setsid checks and moves (update lock, or a move_hold of the
 * caller's process with its three ids); the new sid or -EPERM.
 */
static pid_t do_setsid(struct rp_task *self, struct rp_proxy **px)
{
	struct rp_signal *sig = self->signal;
	struct rp_pid *own = rp_signal_leader_pid(sig);

	/* Whether a group with our id exists: its M (a move_hold), or the update lock. */
	rp_assert_member_write(self->sys, own);
	/* A session leader already, or a group with our id exists (we lead it). */
	if (rp_session_leader_rcu(sig) || !rp_hlist_empty(&own->members))
		return -EPERM;
	move_ids(self->group_leader, own, own, px);
	/* The old session's terminal stays there; ours now under M of our group, @own. */
	rp_signal_set_tty(sig, NULL);
	return 0;
}

/*
 * setsid under the gate shared (rcu mode): the caller's process as
 * setpgid's target, with M of its group, its session and its own pid
 * (the new group and session).  Its answer, or MOVE_EXCLUSIVE.
 */
static pid_t setsid_shared(struct rp_task *self, struct rp_proxy **px)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_signal *sig = self->signal;
	struct rp_pid *ids[3];
	struct move_hold h;
	pid_t ret = MOVE_EXCLUSIVE;

	rp_update_lock_shared(sync);
	rp_read_lock(sync);
	/* The leader is switched by exec alone, which waits for this thread's end. */
	while (hold_trees(&h, self->group_leader)) {
		if (!parent_held(&h)) {
			release_trees(&h);
			continue;
		}
		ids[0] = sig->pgrp;
		ids[1] = sig->session;
		ids[2] = rp_signal_leader_pid(sig);
		if (!any_nested(ids, 3)) {
			hold_ids(&h, ids, 3);
			ret = do_setsid(self, px);
			release_ids(&h);
		}
		release_trees(&h);
		break;
	}
	rp_read_unlock(sync);
	rp_update_unlock_shared(sync);
	return ret;
}

pid_t rp_setsid(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_proxy *px;
	pid_t ret = -ENOMEM;

	if (rp_task_exited(self))
		return -ESRCH;
	px = rp_proxy_alloc(self->sys);
	if (px) {
		ret = MOVE_EXCLUSIVE;
		if (sync->mode == RP_SYNC_RCU)
			ret = setsid_shared(self, &px);
		if (ret == MOVE_EXCLUSIVE) {
			rp_update_lock(sync);
			ret = do_setsid(self, &px);
			rp_update_unlock(sync);
		}
	}
	rp_proxy_free_unlinked(px);
	/* The new session's id is our tgid, as our namespace numbers it (pid_vnr). */
	if (ret == 0)
		ret = rp_own_vnr(self, rp_signal_leader_pid(self->signal));
	rp_sync_quiescent();
	return ret;
}

/*
 * getpgid/getsid: the id of type @type of the process of thread @pid (0:
 * the caller), @pid and the answer in the caller's pid namespace.
 */
static pid_t get_id(struct rp_task *self, pid_t pid, enum rp_pid_type type)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_task *p;
	pid_t ret = -ESRCH;

	if (rp_task_exited(self))
		return -ESRCH;
	rp_read_lock(sync);
	p = pid ? rp_find_task_vnr_rcu(self, pid) : self;
	/*
	 * As @self's namespace numbers it: a leader outside reads 0.  Pairs
	 * with rcu_assign_pointer in rp_pgrp_move.
	 */
	if (p)
		ret = rp_pid_vnr(type == RP_PIDTYPE_PGID ? rcu_dereference(p->signal->pgrp) :
			       rcu_dereference(p->signal->session), self);
	rp_read_unlock(sync);
	rp_sync_quiescent();
	return ret;
}

pid_t rp_getpgid(struct rp_task *self, pid_t pid)
{
	return get_id(self, pid, RP_PIDTYPE_PGID);
}

pid_t rp_getpgrp(struct rp_task *self)
{
	return get_id(self, 0, RP_PIDTYPE_PGID);
}

pid_t rp_getsid(struct rp_task *self, pid_t pid)
{
	return get_id(self, pid, RP_PIDTYPE_SID);
}
