/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ties of process groups and their counts (jobc.h): FreeBSD's pg_jobc
 * in place of Linux's walk of the group (will_become_orphaned_pgrp).  The
 * count is an atomic with no lock of its own, so that it can stay one
 * when the writers stop sharing one lock (docs/process.md, protocol (b)).
 */
#include <limits.h>
#include "jobc.h"

bool rp_pgrp_jobc_orphaned_rcu(struct rp_pid *pgrp)
{
	rp_assert_read_section(&rp_pid_sys(pgrp)->sync);
	return uatomic_read(rp_pgrp_jobc(pgrp)) == 0;
}

struct rp_pid *rp_tie_group(const struct rp_signal *m, const struct rp_pid *pgrp,
			    const struct rp_pid *session, const struct rp_task *parent,
			    const struct rp_pid *ppgrp, const struct rp_pid *psession)
{
	/* Protocol (b): the pair's writers hold T of its parent (a plain fork's). */
	rp_assert_tree_write(parent->sys, parent);
	/* Linux's will_become_orphaned_pgrp skips the dead and init's children. */
	if (rp_jobc_dead(m) || rp_is_global_init(parent))
		return NULL;
	if (!ppgrp) {
		ppgrp = parent->signal->pgrp;
		psession = parent->signal->session;
	}
	return pgrp != ppgrp && session == psession ? (struct rp_pid *)pgrp : NULL;
}

/*
 * @delta to the count of @pgrp (NULL: no tie, nothing); true if it took
 * the count to 0 (one atomic: of two decrements at once, one only).
 */
static bool jobc_add(struct rp_pid *pgrp, int delta)
{
	unsigned int n;

	if (!pgrp)
		return false;
	n = uatomic_add_return(rp_pgrp_jobc(pgrp), (unsigned int)delta);
	/* Below 0: a tie taken away twice, or never added. */
	RP_DEBUG_BUG_ON(delta < 0 && n == UINT_MAX);
	return delta < 0 && n == 0;
}

bool rp_jobc_pair(const struct rp_signal *m, struct rp_task *parent, int delta)
{
	return jobc_add(rp_tie_group(m, m->pgrp, m->session, parent, NULL, NULL), delta);
}

void rp_jobc_move(struct rp_task *leader, struct rp_pid *pgrp, struct rp_pid *session,
		  int delta)
{
	struct rp_signal *sig = leader->signal;
	struct rp_task *t, *c;

	jobc_add(rp_tie_group(sig, pgrp, session, leader->real_parent, NULL, NULL), delta);
	/* Its children, on the lists of its threads: leaders, one per process. */
	cds_list_for_each_entry(t, &sig->thread_head, thread_node) {
		cds_hlist_for_each_entry_2(c, &t->children.head, sibling)
			jobc_add(rp_tie_group(c->signal, c->signal->pgrp, c->signal->session, t,
					      pgrp, session), delta);
	}
}

bool rp_jobc_dead(const struct rp_signal *sig)
{
	const struct rp_task *leader = rp_signal_leader_pid(sig)->task;

	/* Its callers' pair is frozen: rp_tie_group asserts how. */
	RP_DEBUG_BUG_ON(!rp_update_section_here(&rp_signal_sys(sig)->sync));
	/* No task: its leader, the last thread, is released. */
	return !leader || (uatomic_read(&leader->exit_state) && sig->nr_threads == 1);
}

struct rp_pid *rp_jobc_own_tie(const struct rp_signal *sig)
{
	const struct rp_task *leader = rp_signal_leader_pid(sig)->task;

	if (!leader)
		return NULL;
	return rp_tie_group(sig, sig->pgrp, sig->session, leader->real_parent, NULL, NULL);
}

bool rp_jobc_untie_dead(const struct rp_signal *sig, struct rp_pid *tied)
{
	return tied && rp_jobc_dead(sig) && jobc_add(tied, -1);
}
