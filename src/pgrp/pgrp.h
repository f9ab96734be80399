/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process groups and sessions: the calls other subsystems (signal, exit,
 * tty) make.  Membership is kept with proxies: see docs/pgrp.md.
 */
#ifndef RP_PGRP_PGRP_H
#define RP_PGRP_PGRP_H

#include "../task/relations.h"

/*
 * Send @sig with @info to every process of group @pgrp as the kernel does
 * (no permission check), with the exactly-once guarantees of a group kill.
 * 0, or -ESRCH for an empty group.  Caller holds rp_read_lock.
 */
int rp_kill_pgrp_info_rcu(struct rp_system *sys, pid_t pgrp, int sig, const siginfo_t *info);

/* The same for every process of session @sid. */
int rp_kill_session_info_rcu(struct rp_system *sys, pid_t sid, int sig, const siginfo_t *info);

/*
 * kill(2) for @pid <= 0 (0: the caller's group; -1: everyone the caller
 * may signal but init and itself; < -1: group -@pid) with @info.
 */
int rp_kill_group_info(struct rp_task *self, pid_t pid, int sig, const siginfo_t *info);

/* ---- membership changes (update lock held) ---- */

/* A proxy not yet linked (count it); NULL on ENOMEM. */
struct rp_proxy *rp_proxy_alloc(struct rp_system *sys);
/* Free a proxy that was never linked (NULL: nothing). */
void rp_proxy_free_unlinked(struct rp_proxy *px);

/*
 * Make @sig the only member of process group and session @pid (init, at
 * creation), using proxies @pg and @ss.
 */
void rp_pgrp_init_leader(struct rp_signal *sig, struct rp_pid *pid,
			 struct rp_proxy *px[RP_MEMBER_LISTS]);

/*
 * Move @sig's process to list @type of @to, with new proxy @px (update
 * lock and the process's siglock held).  RP_BREAK_RELINK_PROXY moves the
 * old proxy itself instead (Linux's change_pid) and frees @px.
 */
void rp_pgrp_move(struct rp_signal *sig, enum rp_pid_type type, struct rp_pid *to,
		  struct rp_proxy *px);

/*
 * Fork: put new process @child in @self's group and session, its proxies
 * @px right behind @self's process on each member list and its sys->tasks
 * entry right behind @self's leader (Ordered Update With Ordered Read).
 * Update lock and @self's siglock held.  RP_BREAK_CHILD_AT_HEAD links the
 * proxies at the heads and the tasks entry at the tail instead.
 */
void rp_pgrp_fork_link(struct rp_task *self, struct rp_task *child,
		       struct rp_proxy *px[RP_MEMBER_LISTS]);

/*
 * The last thread of @sig's process is released: leave both lists, drop the
 * ids.  Before the tgid is dropped: a walker reaches the leader through it.
 */
void rp_pgrp_exit(struct rp_signal *sig);

/* ---- the fork window (src/pgrp/record.c) ---- */

/*
 * Signals sent to many processes (group kills, kill(-1), session kills)
 * while a fork is in progress, recorded for the child (Linux's
 * multiprocess_signals).  Lives on the forking thread's stack.
 */
struct rp_fork_record {
	struct cds_hlist_node node;	/* (s) on signal->multiprocess */
	uint64_t signals;		/* (s) signals recorded, bit sig - 1 */
	struct cds_list_head queue;	/* (s) what was recorded (record.c), in order */
};

/* Open @rec on @self's process (siglock held). */
void rp_fork_record_open(struct rp_task *self, struct rp_fork_record *rec);

/*
 * Close @rec (the parent's siglock held) and give what it recorded to
 * @child, a new process not yet linked; NULL discards it.
 */
void rp_fork_record_close(struct rp_fork_record *rec, struct rp_task *child);

/* A group walker sent @sig with @info to @p (@p's siglock held): record it for @p's forks. */
void rp_fork_record_signal(struct rp_task *p, int sig, const siginfo_t *info);

/* ---- priorities (src/pgrp/prio.c) ---- */

/* A new thread @p gets @self's nice and ioprio (@self's siglock held). */
void rp_prio_copy(struct rp_task *self, struct rp_task *p);

#endif /* RP_PGRP_PGRP_H */
