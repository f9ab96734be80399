/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Constructors and destructors of the objects in task.h. */
#ifndef RP_TASK_OBJECTS_H
#define RP_TASK_OBJECTS_H

#include "task.h"

/* A table with every action SIG_DFL, count 1; NULL on ENOMEM. */
struct rp_sighand *rp_sighand_alloc(struct rp_system *sys);
/* One user less; the last frees it after a grace period. */
void rp_sighand_put(struct rp_sighand *sh);

/* A thread group with no threads yet, sigcnt 1, unlimited rlimits. */
struct rp_signal *rp_signal_alloc(struct rp_system *sys);
void rp_signal_put(struct rp_signal *sig);

/* A queued-signal entry charged to @user (RLIMIT_SIGPENDING is the caller's check). */
struct rp_sigqueue *rp_sigqueue_alloc(struct rp_system *sys, struct rp_user *user);
void rp_sigqueue_free(struct rp_system *sys, struct rp_sigqueue *q);
/* Free every entry of @p and clear its set (siglock held, or no sharers left). */
void rp_flush_sigqueue(struct rp_system *sys, struct rp_sigpending *p);

#endif /* RP_TASK_OBJECTS_H */
