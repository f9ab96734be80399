/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Orphaned process groups (POSIX; Linux's will_become_orphaned_pgrp and
 * kill_orphaned_pgrp).  A group is orphaned when no member has a parent in
 * another group of the same session: nobody is left to continue it with job
 * control.  Each group counts its ties (src/task/jobc.h), so the answer is
 * one load of the count: docs/jobctl.md, "Orphaned process groups".
 */
#include "signal.h"
#include "../task/jobc.h"
#include "../task/relations.h"
#include "../debug/racepoint.h"

/* RP_BREAK_ORPHAN_REPARENT checks only the exiting process's own group. */
#ifdef RP_BREAK_ORPHAN_REPARENT
#define CHECK_REPARENTED false
#else
#define CHECK_REPARENTED true
#endif

bool rp_current_pgrp_orphaned(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	bool orphaned;

	rp_read_lock(sync);
	/* Pairs with rcu_assign_pointer in rp_pgrp_move. */
	orphaned = rp_pgrp_jobc_orphaned_rcu(rcu_dereference(self->signal->pgrp));
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

bool rp_kill_orphaned_group_rcu(struct rp_task *by, struct rp_pid *group)
{
	rp_assert_read_section(&by->sys->sync);
	if (!rp_for_each_member_rcu(by->sys, group->nr, is_stopped, NULL))
		return false;
	RP_RACE_POINT(RP_RACE_ORPHAN_KILLS, by);
	rp_kill_pgrp_priv_rcu(group, SIGHUP);
	rp_kill_pgrp_priv_rcu(group, SIGCONT);
	return true;
}

void rp_kill_orphaned_pgrp(struct rp_task *tsk, struct rp_task *parent)
{
	struct rp_sync *sync = &tsk->sys->sync;
	struct rp_signal *sig = tsk->signal;
	struct rp_pid *group = sig->pgrp;	/* fixed: the update lock is held */
	unsigned int ties = uatomic_read(rp_pgrp_jobc(group));

	rp_assert_update_held(sync);
	if (!parent) {
		/* exit: @tsk was the tie; not counted (Linux's ignored_task) */
		parent = tsk->real_parent;
		ties -= rp_jobc_own_tie(sig) != NULL;
	} else if (!CHECK_REPARENTED) {
		return;			/* reparenting: @tsk's old parent was */
	}
	rp_read_lock(sync);
	if (parent->signal->pgrp != group && parent->signal->session == sig->session && !ties)
		rp_kill_orphaned_group_rcu(tsk, group);
	rp_read_unlock(sync);
}
