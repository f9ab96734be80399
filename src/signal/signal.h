/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Signal generation and delivery: the calls other subsystems make. */
#ifndef RP_SIGNAL_SIGNAL_H
#define RP_SIGNAL_SIGNAL_H

#include "../task/task.h"

#define RP_SIGRTMIN	32	/* first real-time signal, kernel numbering */

/* Signals 1..64 as one word, bit sig-1 (glibc's sigaddset refuses 32 and 33). */
uint64_t rp_sigset_bits(const sigset_t *set);
void rp_sigset_set_bits(sigset_t *set, uint64_t bits);
/* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU: default action stop. */
bool rp_sig_kernel_stop(int sig);
/* SIG_IGN, or SIG_DFL whose default action is to ignore. */
bool rp_sig_handler_ignored(const struct sigaction *ka, int sig);

/* Linux's check_kill_permission: 0 or -EPERM (-EINVAL for a bad signal). */
int rp_check_kill_permission(struct rp_task *self, int sig, struct rp_task *t);

/*
 * Queue @sig for @t with @t's siglock held: to the thread group if @group,
 * else to the thread.  Ignored signals are dropped; standard signals
 * coalesce; real-time signals queue @info (RLIMIT_SIGPENDING: -EAGAIN).
 * Wakes a thread that can take it.  Returns 0 or -EAGAIN.
 */
int rp_send_signal_locked(struct rp_task *t, int sig, const siginfo_t *info, bool group);

/* Lock @t's sighand and send; -ESRCH if @t was released. */
int rp_send_signal(struct rp_task *t, int sig, const siginfo_t *info, bool group);

/* Fill @info for a signal the table itself generates (SI_KERNEL-like codes). */
void rp_siginfo_init(siginfo_t *info, int sig, int code, pid_t pid, uid_t uid);

/* Wake @t, with its siglock held, so that it notices a pending signal. */
void rp_signal_wake_up(struct rp_task *t);

/* SIGKILL pending for @t or its group, or a group exit begun (siglock held). */
bool rp_fatal_signal_pending(struct rp_task *t);

/* Is an unblocked signal pending for @t?  (siglock held) */
bool rp_signal_pending_locked(struct rp_task *t);

/* SIGKILL every other thread of @t's group (siglock held); their number. */
int rp_zap_other_threads(struct rp_task *t);

#endif /* RP_SIGNAL_SIGNAL_H */
