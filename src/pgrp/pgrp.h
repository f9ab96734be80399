/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process groups and sessions: the calls other subsystems (signal, exit,
 * tty) make.  Membership is kept with proxies: see docs/pgrp.md.
 */
#ifndef RP_PGRP_PGRP_H
#define RP_PGRP_PGRP_H

#include "../task/task.h"

/* The process-group and session ids of @p's process, under rp_read_lock. */
pid_t rp_task_pgrp_nr(struct rp_task *p);
pid_t rp_task_session_nr(struct rp_task *p);

/*
 * Call @fn(@p, @arg) under rp_read_lock for every process (group leader)
 * whose process group (@type RP_PIDTYPE_PGID) or session (RP_PIDTYPE_SID)
 * is @nr, skipping members that moved away; stops early when @fn returns
 * non-zero and returns that value, 0 otherwise.  Caller holds rp_read_lock.
 */
int rp_for_each_member_rcu(struct rp_system *sys, enum rp_pid_type type, pid_t nr,
			   int (*fn)(struct rp_task *p, void *arg), void *arg);

/* Does a process group numbered @pgrp exist in session @sid?  rp_read_lock held. */
bool rp_pgrp_in_session_rcu(struct rp_system *sys, pid_t pgrp, pid_t sid);

/*
 * Send @sig with @info to every process of group @pgrp as the kernel does
 * (no permission check), with the exactly-once guarantees of a group kill.
 * 0, or -ESRCH for an empty group.  Caller holds rp_read_lock.
 */
int rp_kill_pgrp_info_rcu(struct rp_system *sys, pid_t pgrp, int sig, const siginfo_t *info);

#endif /* RP_PGRP_PGRP_H */
