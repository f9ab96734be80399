/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process groups and sessions: the membership changes the life cycle and
 * the entry points make (fork, exit, init).  Membership is kept with
 * proxies, which src/task/relations.h declares and walks: see docs/pgrp.md.
 */
#ifndef RP_PGRP_PGRP_H
#define RP_PGRP_PGRP_H

#include "../task/relations.h"

/* ---- membership changes (update lock held; proxies come and go outside it) ---- */

/* A proxy for a move, not yet linked (count it); NULL on ENOMEM.  No lock needed. */
struct rp_proxy *rp_proxy_alloc(struct rp_system *sys);
/* Free a proxy that was never linked (NULL: nothing). */
void rp_proxy_free_unlinked(struct rp_proxy *px);

/*
 * Make @sig the only member of process group and session @pid (init, at
 * creation), through the proxy embedded in @sig.
 */
void rp_pgrp_init_leader(struct rp_signal *sig, struct rp_pid *pid);

/*
 * Move @sig's process to group @to of session @session, with new proxy
 * @px (update lock, or a plain move's M of both groups and of the
 * sessions, and the process's siglock held); a group it leaves empty
 * leaves its session, a group it is the first of joins @session
 * (protocol (i)).  RP_BREAK_RELINK_PROXY moves the old proxy itself
 * instead (Linux's change_pid) and frees @px.
 */
void rp_pgrp_move(struct rp_signal *sig, struct rp_pid *to, struct rp_pid *session,
		  struct rp_proxy *px);

/*
 * Is @sig's process the only member of its group, so that its release
 * or its move ends the group (and writes the session's list)?  M of its
 * group, or the update lock.
 */
bool rp_pgrp_last_member(struct rp_signal *sig);
/* The same read with no lock held: a guess, which a move or a reap does not trust. */
bool rp_pgrp_seems_last_member(struct rp_signal *sig);

/*
 * Fork: put new process @child in @self's group and session, the proxy
 * embedded in its thread group right behind @self's process on the
 * group's member list and its sys->tasks entry right behind @self's
 * leader (Ordered Update With Ordered Read).
 * Update lock and @self's siglock held.  RP_BREAK_CHILD_AT_HEAD links the
 * proxy at the head and the tasks entry at the tail instead.
 */
void rp_pgrp_fork_link(struct rp_task *self, struct rp_task *child);

/*
 * The last thread of @sig's process is released: leave its group's list
 * (and the group its session's, if it was the last member), drop the ids.
 * Before the tgid is dropped: a walker reaches the leader through it.
 * The update lock, or (a plain reap under the gate shared) M of the
 * process's group's pid, and of its session's if it is the group's last
 * member (rp_pgrp_last_member).
 */
void rp_pgrp_exit(struct rp_signal *sig);

/*
 * Take leader node @node off sys->tasks: under the update lock, or, under
 * the gate shared (a plain reap), under L of its predecessor and of
 * itself, taken in list order and validated, retried if a link or an
 * unlink beside it came first (membership.c).  Either way the node is
 * marked as off the list, for the validations of the links and unlinks
 * beside it.
 */
void rp_tasks_unlink(struct rp_system *sys, struct cds_list_head *node);

/* ---- priorities (src/pgrp/prio.c) ---- */

/* A new thread @p gets @self's nice and ioprio (@self's siglock held). */
void rp_prio_copy(struct rp_task *self, struct rp_task *p);

#endif /* RP_PGRP_PGRP_H */
