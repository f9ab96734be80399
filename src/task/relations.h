/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Relations of the object model read by every floor above it: a process's
 * process group and session, and the walks over the members of a group or
 * session and over every process (relations.c).  Membership changes are
 * src/pgrp's (membership.c): see docs/pgrp.md.
 */
#ifndef RP_TASK_RELATIONS_H
#define RP_TASK_RELATIONS_H

#include "task.h"

/* The member list of @pid, a process group's id. */
static inline struct cds_hlist_head *rp_member_list(struct rp_pid *pid)
{
	return &pid->members;
}

/* The process-group and session ids of @p's process, under rp_read_lock. */
pid_t rp_task_pgrp_nr_rcu(struct rp_task *p);
pid_t rp_task_session_nr_rcu(struct rp_task *p);

/*
 * Call @fn(@p, @arg) under rp_read_lock for every process (group leader)
 * whose process group is @pgrp, skipping members that moved away; stops
 * early when @fn returns non-zero and returns that value, 0 otherwise.
 * Caller holds rp_read_lock.
 */
int rp_for_each_member_rcu(struct rp_system *sys, pid_t pgrp,
			   int (*fn)(struct rp_task *p, void *arg), void *arg);

/*
 * The exactly-once walk: as rp_for_each_member_rcu, but @fn runs with the
 * member's siglock held, and the member's successor is read under that same
 * lock, after @fn (fork links a child behind its parent under the parent's
 * siglock: see docs/pgrp.md).  Members already released are skipped.
 * -ESRCH if @pgrp names no pid; else 0 or @fn's non-zero value.
 */
int rp_for_each_member_siglocked_rcu(struct rp_system *sys, pid_t pgrp,
				  int (*fn)(struct rp_task *p, void *arg), void *arg);

/*
 * The same walk of @pid's members, found by pointer, not by number: a pid
 * whose number was freed (held by a terminal) has none, and the group that
 * took its number is not @pid's.  0 or @fn's non-zero value.
 */
int rp_for_each_pid_member_siglocked_rcu(struct rp_pid *pid,
				      int (*fn)(struct rp_task *p, void *arg), void *arg);

/*
 * The walk of every process of session @sid, group by group, each as
 * rp_for_each_pid_member_siglocked_rcu (docs/process.md, protocol (i)).
 * The update lock held (exclusive): a setpgid inside the session moves a
 * process between its groups, and a walk beside it would meet the
 * process twice or miss it.  -ESRCH if @sid names no pid; else 0 or
 * @fn's non-zero value.
 */
int rp_for_each_session_member_locked(struct rp_system *sys, pid_t sid,
				      int (*fn)(struct rp_task *p, void *arg), void *arg);

/*
 * The exactly-once walk of every process (sys->tasks, for kill(-1) and
 * PRIO_USER), with the same locking as rp_for_each_member_siglocked_rcu.
 */
int rp_for_each_process_siglocked_rcu(struct rp_system *sys,
				   int (*fn)(struct rp_task *p, void *arg), void *arg);

/* Is @sig's process a session leader?  (update lock or rp_read_lock) */
bool rp_session_leader_rcu(struct rp_signal *sig);

/* Does a process group numbered @pgrp exist in session @sid?  rp_read_lock held. */
bool rp_pgrp_in_session_rcu(struct rp_system *sys, pid_t pgrp, pid_t sid);

#endif /* RP_TASK_RELATIONS_H */
