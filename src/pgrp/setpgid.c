/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setpgid(2), setsid(2) and the id queries, with Linux's errnos.  A move
 * runs under the update lock and the moving process's siglock (so that a
 * group signal reaches a process either before it left or not at all) and
 * publishes new proxies (membership.c).  Queries read under rp_read_lock only.
 */
#include <errno.h>
#include "pgrp.h"
#include "../task/jobc.h"
#include "../debug/racepoint.h"
#include <rcuproc/pgrp.h>	/* the definitions below see RP_API */

/*
 * Move @p's process into group @pgrp and session @session (update lock
 * held), linking the proxies @px[] (PGID, SID) that the move needs and
 * taking them out of @px[], under the siglock.  The ties the move makes
 * are counted before it and those it breaks after (jobc.h), so that a
 * group that keeps a tie is never seen orphaned meanwhile; the old ids
 * are held until then.  RP_BREAK_JOBC_TAKE_FIRST takes away before it
 * adds: a group that loses one tie and gains another reads 0 in between.
 */
static void move_ids(struct rp_task *p, struct rp_pid *pgrp, struct rp_pid *session,
		     struct rp_proxy *px[RP_MEMBER_LISTS])
{
	struct rp_signal *sig = p->signal;
	struct rp_pid *old_pgrp = sig->pgrp, *old_session = sig->session;
	struct rp_sighand *sh;

	rp_assert_update_held(&p->sys->sync);
	rp_pid_attach(old_pgrp);
	rp_pid_attach(old_session);
#ifdef RP_BREAK_JOBC_TAKE_FIRST
	rp_jobc_move(p, old_pgrp, old_session, -1);
#else
	rp_jobc_move(p, pgrp, session, 1);
#endif
	sh = rp_lock_task_sighand(p);	/* not released: we hold the update lock */
	if (session != old_session) {
		rp_pgrp_move(sig, RP_PIDTYPE_SID, session, px[1]);
		px[1] = NULL;
	}
	if (pgrp != old_pgrp) {
		rp_pgrp_move(sig, RP_PIDTYPE_PGID, pgrp, px[0]);
		px[0] = NULL;
	}
	rp_unlock_sighand(sh);
	RP_RACE_POINT(RP_RACE_JOBC_MOVED, p);
#ifdef RP_BREAK_JOBC_TAKE_FIRST
	rp_jobc_move(p, pgrp, session, 1);
#else
	rp_jobc_move(p, old_pgrp, old_session, -1);
#endif
	rp_pid_detach(old_session);
	rp_pid_detach(old_pgrp);
}

/*
 * Linux's checks of setpgid's target @pid (update lock held): the caller's
 * process, or a child of it in the same session that has not exec'd, and
 * never a session leader.
 */
static int setpgid_target(struct rp_task *self, pid_t pid, struct rp_task **out)
{
	struct rp_task *leader = self->group_leader;
	struct rp_task *p = rp_find_task_rcu(self->sys, pid);

	rp_assert_update_held(&self->sys->sync);
	if (!p)
		return -ESRCH;
	if (!rp_thread_group_leader(p))
		return -EINVAL;
	if (rp_same_thread_group(p->real_parent, leader)) {
		if (p->signal->session != leader->signal->session)
			return -EPERM;
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

/* The group @pgid for @p: its own pid, or a group of the caller's session; NULL: EPERM. */
static struct rp_pid *setpgid_group(struct rp_task *self, struct rp_task *p, pid_t pgid)
{
	if (pgid == rp_task_tgid(p))
		return rp_signal_leader_pid(p->signal);
	if (!rp_pgrp_in_session_rcu(self->sys, pgid, self->signal->session->nr))
		return NULL;
	return rp_pid_find_rcu(self->sys, pgid);
}

/* Move @p's process to @pgrp unless it is there already (update lock held). */
static void change_pgrp(struct rp_task *p, struct rp_pid *pgrp, struct rp_proxy **px)
{
	struct rp_proxy *pair[RP_MEMBER_LISTS] = { *px, NULL };

	rp_assert_update_held(&p->sys->sync);
	if (p->signal->pgrp == pgrp)
		return;
	move_ids(p, pgrp, p->signal->session, pair);
	*px = pair[0];
}

int rp_setpgid(struct rp_task *self, pid_t pid, pid_t pgid)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_proxy *px;
	struct rp_task *p;
	struct rp_pid *pgrp;
	int err;

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
	rp_proxy_free_unlinked(px);
	rp_sync_quiescent();
	return err;
}

/* Linux's setsid checks and moves (update lock held); the new sid or -EPERM. */
static pid_t do_setsid(struct rp_task *self, struct rp_proxy *px[RP_MEMBER_LISTS])
{
	struct rp_signal *sig = self->signal;
	struct rp_pid *own = rp_signal_leader_pid(sig);

	rp_assert_update_held(&self->sys->sync);
	/* A session leader already, or a group with our id exists (we lead it). */
	if (rp_session_leader_rcu(sig) || !rp_hlist_empty(&own->members[0]))
		return -EPERM;
	move_ids(self->group_leader, own, own, px);
	rp_signal_set_tty(sig, NULL);	/* the old session's terminal stays there */
	return 0;
}

pid_t rp_setsid(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_proxy *px[RP_MEMBER_LISTS];
	pid_t ret = -ENOMEM;

	if (rp_task_exited(self))
		return -ESRCH;
	px[0] = rp_proxy_alloc(self->sys);
	px[1] = rp_proxy_alloc(self->sys);
	if (px[0] && px[1]) {
		rp_update_lock(sync);
		ret = do_setsid(self, px);
		rp_update_unlock(sync);
	}
	rp_proxy_free_unlinked(px[0]);
	rp_proxy_free_unlinked(px[1]);
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
