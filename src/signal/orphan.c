/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Orphaned process groups (POSIX; Linux's will_become_orphaned_pgrp and
 * kill_orphaned_pgrp).  A group is orphaned when no member has a parent in
 * another group of the same session: nobody is left to continue it with job
 * control.  The member walk runs under RCU (rp_for_each_member_rcu); why a
 * concurrent setpgid or fork cannot spoil the answers that matter is in
 * docs/jobctl.md, "Orphaned process groups".
 */
#include "signal.h"
#include "../task/relations.h"

/* RP_BREAK_ORPHAN_REPARENT checks only the exiting process's own group. */
#ifdef RP_BREAK_ORPHAN_REPARENT
#define CHECK_REPARENTED false
#else
#define CHECK_REPARENTED true
#endif

struct orphan_walk {
	pid_t pgrp;
	struct rp_task *ignored;
};

static bool is_global_init(const struct rp_task *t)
{
	return rp_is_global_init(t);
}

/* Does member @p tie its group to the session (a parent outside, inside)? */
static int ties_group(struct rp_task *p, void *arg)
{
	const struct orphan_walk *w = arg;
	struct rp_task *parent;

	/* A zombie whose threads are all gone ties nothing (nr_threads: a hint under RCU). */
	if (p == w->ignored ||
	    (uatomic_read(&p->exit_state) && CMM_LOAD_SHARED(p->signal->nr_threads) == 1))
		return 0;
	/* Pairs with the real_parent stores of reparenting (exit.c). */
	parent = rcu_dereference(p->real_parent);
	if (is_global_init(parent))
		return 0;
	return rp_task_pgrp_nr_rcu(parent) != w->pgrp &&
	       rp_task_session_nr_rcu(parent) == rp_task_session_nr_rcu(p);
}

bool rp_pgrp_orphaned_rcu(struct rp_system *sys, pid_t pgrp, struct rp_task *ignored)
{
	struct orphan_walk w = { .pgrp = pgrp, .ignored = ignored };

	rp_assert_read_section(&sys->sync);
	return !rp_for_each_member_rcu(sys, RP_PIDTYPE_PGID, pgrp, ties_group, &w);
}

bool rp_current_pgrp_orphaned(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	bool orphaned;

	rp_read_lock(sync);
	orphaned = rp_pgrp_orphaned_rcu(self->sys, rp_task_pgrp_nr_rcu(self), NULL);
	rp_read_unlock(sync);
	return orphaned;
}

/* Linux's has_stopped_jobs: a member stopped (the flag is only read: a hint). */
static int is_stopped(struct rp_task *p, void *arg)
{
	(void)arg;
	return !!(CMM_LOAD_SHARED(p->signal->flags) & RP_SIGNAL_STOP_STOPPED);
}

void rp_kill_pgrp_priv_rcu(struct rp_pid *pgrp, int sig)
{
	siginfo_t info;

	rp_assert_read_section(&rp_pid_sys(pgrp)->sync);
	rp_siginfo_init(&info, sig, SI_KERNEL, 0, 0);
	rp_kill_pgrp_info_rcu(pgrp, sig, &info);
}

void rp_kill_orphaned_pgrp(struct rp_task *tsk, struct rp_task *parent)
{
	struct rp_sync *sync = &tsk->sys->sync;
	struct rp_task *ignored = tsk;
	pid_t pgrp;

	rp_assert_update_held(&tsk->sys->sync);
	if (!parent)
		parent = tsk->real_parent;	/* exit: @tsk was the tie */
	else if (!CHECK_REPARENTED)
		return;
	else
		ignored = NULL;		/* reparenting: @tsk's old parent was */
	rp_read_lock(sync);
	pgrp = rp_task_pgrp_nr_rcu(tsk);
	if (rp_task_pgrp_nr_rcu(parent) != pgrp &&
	    rp_task_session_nr_rcu(parent) == rp_task_session_nr_rcu(tsk) &&
	    rp_pgrp_orphaned_rcu(tsk->sys, pgrp, ignored) &&
	    rp_for_each_member_rcu(tsk->sys, RP_PIDTYPE_PGID, pgrp, is_stopped, NULL)) {
		/* Pairs with rcu_assign_pointer in rp_pgrp_move; under the update lock, fixed. */
		struct rp_pid *group = rcu_dereference(tsk->signal->pgrp);

		rp_kill_pgrp_priv_rcu(group, SIGHUP);
		rp_kill_pgrp_priv_rcu(group, SIGCONT);
	}
	rp_read_unlock(sync);
}
