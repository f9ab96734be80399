/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ties of process groups and their counts (docs/jobctl.md, "Orphaned
 * process groups"; docs/process.md, protocol (b)).  A tie is a pair
 * (member process m, m's real parent p) with p not init, in another group
 * of m's session, and m not dead (its leader a zombie alone on its thread
 * list: Linux's exit_state && thread_group_empty); jobc
 * of a group is its number of ties (FreeBSD's pg_jobc), and a group whose
 * jobc is 0 is orphaned.  Every operation that makes or breaks a tie
 * adds the ties it makes before it stores the fields and takes away the
 * ties it breaks after, so jobc is never below the number of ties: an
 * operation that breaks one tie of a group and makes another never shows
 * the group orphaned.  Each adjustment reads only the pair's fields, which
 * a writer changes holding the pair's parent's tree lock in the design;
 * today every writer holds the update lock, which the functions assert.
 */
#ifndef RP_TASK_JOBC_H
#define RP_TASK_JOBC_H

#include "task.h"

/* The count of the group whose id is @pgrp (a tgid: its block's pid). */
static inline unsigned int *rp_pgrp_jobc(struct rp_pid *pgrp)
{
	RP_DEBUG_BUG_ON(!pgrp->in_process);
	return &caa_container_of(pgrp, struct rp_process, pid)->task.pgrp_jobc;
}

/* Is group @pgrp orphaned?  One load: rp_read_lock or the update lock held. */
bool rp_pgrp_jobc_orphaned_rcu(struct rp_pid *pgrp);

/*
 * The group that the pair (@m, @parent) ties, NULL if none, with @m's
 * process group and session @pgrp and @session and @parent's as stored
 * (@ppgrp and @psession NULL) or @ppgrp and @psession.  Update lock held.
 */
struct rp_pid *rp_tie_group(const struct rp_signal *m, const struct rp_pid *pgrp,
			    const struct rp_pid *session, const struct rp_task *parent,
			    const struct rp_pid *ppgrp, const struct rp_pid *psession);

/*
 * Add @delta (1: before the stores that make it; -1: after those that
 * break it) to the count of the group that (@m, @parent) ties, if any, as
 * the fields are now (update lock held).  Reparenting adds (@m, reaper)
 * before it points @m at the reaper and takes (@m, old parent) after.
 * Fork adds a new process's tie before it is linked as (forker, the
 * child's real parent): the child takes the forker's group and session.
 * True if a decrement took the group's count to 0 (it orphaned the group).
 */
bool rp_jobc_pair(const struct rp_signal *m, struct rp_task *parent, int delta);

/*
 * The ties of process @leader's pairs (its own, and its children's, whose
 * parent it is), as if its group and session were @pgrp and @session:
 * @delta added to each tied group's count.  setpgid and setsid add those
 * of the new ids before the move and take those of the old ones after
 * (update lock held, or under the gate shared T of every pair's parent:
 * @leader's and its real parent's, pgrp/setpgid.c; rp_tie_group asserts).
 */
void rp_jobc_move(struct rp_task *leader, struct rp_pid *pgrp, struct rp_pid *session,
		  int delta);

/*
 * Is @sig's process dead for the ties: its leader (the task of its tgid)
 * a zombie, alone on the thread list?  (update lock held)
 */
bool rp_jobc_dead(const struct rp_signal *sig);

/*
 * The group that @sig's process's own pair ties, NULL if none (update
 * lock held).  A store that may end the process for the ties (its
 * leader's exit_state, a thread's release) reads it before and calls
 * rp_jobc_untie_dead(@sig, that group) after, which answers true if its
 * decrement took the group's count to 0: it orphaned the group (protocol
 * (b): one thread only is answered so, however many untie at once).
 */
struct rp_pid *rp_jobc_own_tie(const struct rp_signal *sig);
bool rp_jobc_untie_dead(const struct rp_signal *sig, struct rp_pid *tied);

#endif /* RP_TASK_JOBC_H */
