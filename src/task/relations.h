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

/* The member list @type (RP_PIDTYPE_PGID or _SID) of @pid. */
static inline struct cds_hlist_head *rp_member_list(struct rp_pid *pid, enum rp_pid_type type)
{
	return &pid->members[type - RP_PIDTYPE_PGID];
}

/* The process-group and session ids of @p's process, under rp_read_lock. */
pid_t rp_task_pgrp_nr_rcu(struct rp_task *p);
pid_t rp_task_session_nr_rcu(struct rp_task *p);

/*
 * Call @fn(@p, @arg) under rp_read_lock for every process (group leader)
 * whose process group (@type RP_PIDTYPE_PGID) or session (RP_PIDTYPE_SID)
 * is @nr, skipping members that moved away; stops early when @fn returns
 * non-zero and returns that value, 0 otherwise.  Caller holds rp_read_lock.
 */
int rp_for_each_member_rcu(struct rp_system *sys, enum rp_pid_type type, pid_t nr,
			   int (*fn)(struct rp_task *p, void *arg), void *arg);

/*
 * The exactly-once walk: as rp_for_each_member_rcu, but @fn runs with the
 * member's siglock held, and the member's successor is read under that same
 * lock, after @fn (fork links a child behind its parent under the parent's
 * siglock: see docs/pgrp.md).  Members already released are skipped.
 * -ESRCH if @nr names no pid; else 0 or @fn's non-zero value.
 */
int rp_for_each_member_siglocked_rcu(struct rp_system *sys, enum rp_pid_type type, pid_t nr,
				  int (*fn)(struct rp_task *p, void *arg), void *arg);

/*
 * The same walk of @pid's members, found by pointer, not by number: a pid
 * whose number was freed (held by a terminal) has none, and the group that
 * took its number is not @pid's.  0 or @fn's non-zero value.
 */
int rp_for_each_pid_member_siglocked_rcu(struct rp_pid *pid, enum rp_pid_type type,
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
