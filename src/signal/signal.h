/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Signal generation and delivery: the calls other subsystems make. */
#ifndef RP_SIGNAL_SIGNAL_H
#define RP_SIGNAL_SIGNAL_H

#include "../task/task.h"

struct rp_cpu_timer;

#define RP_SIGRTMIN	32	/* first real-time signal, kernel numbering */

/* Signal @sig's bit in a 64-bit set (bit sig - 1, as rp_sigset_bits). */
#define RP_SIGBIT(sig)	(1ULL << ((sig) - 1))
/* The stop signals (Linux's SIG_KERNEL_STOP_MASK). */
#define RP_SIG_STOP_MASK (RP_SIGBIT(SIGSTOP) | RP_SIGBIT(SIGTSTP) | RP_SIGBIT(SIGTTIN) | \
			  RP_SIGBIT(SIGTTOU))

/* Signals 1..64 as one word, bit sig-1 (glibc's sigaddset refuses 32 and 33). */
uint64_t rp_sigset_bits(const sigset_t *set);
void rp_sigset_set_bits(sigset_t *set, uint64_t bits);
/* SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU: default action stop. */
bool rp_sig_kernel_stop(int sig);
/* SIGQUIT, SIGILL, SIGSEGV, ...: default action core dump. */
bool rp_sig_kernel_coredump(int sig);
/* SIGKILL and SIGSTOP: never caught, blocked or ignored (Linux's sig_kernel_only). */
bool rp_sig_kernel_only(int sig);
/* SIG_IGN, or SIG_DFL whose default action is to ignore. */
bool rp_sig_handler_ignored(const struct rp_ksigaction *ka, int sig);

/* Linux's check_kill_permission: 0 or -EPERM (-EINVAL for a bad signal). */
int rp_check_kill_permission_rcu(struct rp_task *self, int sig, struct rp_task *t);

/*
 * Queue @sig for @t with @t's siglock held: to the thread group if @group,
 * else to the thread.  Ignored signals are dropped; standard signals
 * coalesce; real-time signals queue @info (RLIMIT_SIGPENDING: -EAGAIN).
 * Wakes a thread that can take it.  Returns 0 or -EAGAIN.
 */
int rp_send_signal_locked(struct rp_task *t, int sig, const siginfo_t *info, bool group);

/*
 * As rp_send_signal_locked, @force'd as Linux's send for a sender the
 * receiver does not see (SIGKILL and SIGSTOP reach a namespace's init)
 * if @force, else as rp_send_signal_locked.
 */
int rp_send_signal_forced_locked(struct rp_task *t, int sig, const siginfo_t *info, bool group,
				 bool force);

/*
 * The same for a signal @self sends (kill, tgkill, the group kills), as
 * Linux's send_signal_locked: to a receiver in a namespace below @self's,
 * si_pid 0, and SIGKILL and SIGSTOP reach its init.
 */
int rp_send_signal_from_locked(struct rp_task *self, struct rp_task *t, int sig,
			       const siginfo_t *info, bool group);
/*
 * Does @t's pid namespace see @self (give it a number: Linux's
 * task_pid_nr_ns(current, task_active_pid_ns(t)) != 0)?  A receiver
 * released meanwhile counts as one that does.  In a read section.
 */
bool rp_sees_sender_rcu(struct rp_task *self, struct rp_task *t);

/* Does namespace @ns see @self (NULL: a released task's, counted as one that does)?  In a read section. */
bool rp_ns_sees_sender_rcu(struct rp_task *self, struct rp_pidns *ns);

/*
 * A POSIX timer's preallocated entry @q, charged for the timer's whole life
 * to the creator @self's user under @self's RLIMIT_SIGPENDING, without
 * override (Linux's posixtimer_init_sigqueue): 0, -EAGAIN past the limit,
 * -ESRCH if @self was released.  No lock held.  The timer's signal is not
 * charged again when it is queued; rp_cpu_timer_put gives the charge back.
 */
int rp_sigqueue_charge_prealloc(struct rp_task *self, struct rp_sigqueue *q);

/*
 * Linux's prepare_signal for @sig to @t (siglock held, and a read section
 * or the update lock): job control's side effects, then false if the
 * signal is to be dropped (a dying group, or ignored; @force: SIGKILL and
 * SIGSTOP reach a namespace's init).
 */
bool rp_prepare_signal_rcu(struct rp_task *t, int sig, bool force);

/*
 * Linux's complete_signal: @sig was queued for @p (@group: for its
 * process); wake a thread that can take it, or start the group's exit for
 * a fatal one.  Siglock held, and a read section or the update lock.
 */
void rp_complete_signal(struct rp_task *p, int sig, bool group);

/*
 * POSIX timers' signals (src/signal/posixtimer.c, Linux's posixtimer_*
 * in kernel/signal.c).  The timer's lock is held where it says so.
 */

/*
 * Linux's posixtimer_send_sigqueue: queue @tm's preallocated entry for
 * @t, the thread it notifies or any thread of its owner (@t's siglock and
 * @tm's lock held, read section).  An entry still queued is left as it
 * is; an ignored signal of a periodic timer parks the timer on its owner's
 * ignored list.
 */
void rp_posixtimer_send_locked(struct rp_task *t, struct rp_cpu_timer *tm);
/*
 * An entry taken off @t's queues because its signal is now ignored (or
 * discarded by job control): a periodic timer's, of a timer not deleted,
 * parks it on the ignored list with its reference; any other is freed
 * (Linux's sigqueue_free_ignored; siglock held).
 */
void rp_sigqueue_free_ignored(struct rp_task *t, struct rp_sigqueue *q);
/*
 * sigaction stopped ignoring @sig, which was SIG_IGN: queue again the
 * parked timers' signals (Linux's posixtimer_sig_unignore; @self's
 * siglock held, read section).  Their delivery re-arms them.
 */
void rp_posixtimer_unignore_rcu(struct rp_task *self, int sig);
/* Take @tm off its owner's ignored list, if on it (owner's siglock held). */
void rp_posixtimer_forget_ignored(struct rp_system *sys, struct rp_cpu_timer *tm);
/*
 * exec: drop every SI_TIMER signal queued for @self or its process
 * (Linux's flush_itimer_signals).  No lock held.
 */
void rp_flush_itimer_signals(struct rp_task *self);

/* Lock @t's sighand and send; -ESRCH if @t was released. */
int rp_send_signal(struct rp_task *t, int sig, const siginfo_t *info, bool group);

/* Fill @info for a signal the table itself generates (SI_KERNEL-like codes). */
void rp_siginfo_init(siginfo_t *info, int sig, int code, pid_t pid, uid_t uid);

/* Wake @t, with its siglock held, so that it notices a pending signal. */
void rp_signal_wake_up(struct rp_task *t);

/* SIGKILL pending for @t or its group, or a group exit begun (siglock held). */
bool rp_fatal_signal_pending(struct rp_task *t);
/* The same read without the siglock (under RCU): a hint to judge again under it. */
bool rp_fatal_signal_seen(const struct rp_task *t);

/* Is an unblocked signal pending for @t, or a group stop to join?  (siglock held) */
bool rp_signal_pending_locked(struct rp_task *t);

/* SIGKILL every other thread of @t's group (siglock held); their number. */
int rp_zap_other_threads(struct rp_task *t);

/*
 * Job control (src/signal/jobctl.c): group stop, SIGCONT, the parent's
 * CLD_STOPPED/CLD_CONTINUED notices, orphaned process groups.
 */

/* The flag words rp_signal.flags and rp_task.jobctl are defined in task.h. */

/*
 * Discard the signals of @mask (bit sig - 1), queued entries too, from @p's
 * group and each of its threads (Linux's flush_sigqueue_mask over the
 * group; siglock held, and a read section or the update lock).
 */
void rp_flush_signals_rcu(struct rp_task *p, uint64_t mask);

/*
 * Linux's prepare_signal for @sig to @p (siglock held, and a read section or
 * the update lock): a stop signal discards a pending SIGCONT; SIGCONT
 * discards pending stop signals and resumes every thread of the group.
 */
void rp_jobctl_prepare_signal_rcu(struct rp_task *p, int sig);

/*
 * What rp_get_signal does before it dequeues (siglock held): a SIGCONT's
 * notice to send to the parent (and to the leader's tracer), a group stop
 * to take part in.
 */
bool rp_jobctl_notice_pending(const struct rp_task *self);
bool rp_jobctl_stop_pending(const struct rp_task *self);
/* Send the notice (siglock @sh held, released on return). */
void rp_jobctl_notify(struct rp_task *self, struct rp_sighand *sh);
/*
 * Take part in the pending group stop (siglock @sh held, released on
 * return): Linux's do_signal_stop.  Sleeps stopped until continued or
 * killed; a traced thread traps instead, at rp_get_signal's next round,
 * and takes its part there (rp_ptrace_trap).
 */
void rp_jobctl_stop(struct rp_task *self, struct rp_sighand *sh);

/*
 * @self dequeued stop signal @sig with the default action (siglock @sh
 * held, released on return): stop the group unless SIGCONT came meanwhile,
 * or the signal is SIGTSTP, SIGTTIN or SIGTTOU and @self's process group is
 * orphaned; sleep until continued or killed.
 */
void rp_do_signal_stop(struct rp_task *self, struct rp_sighand *sh, int sig);

/*
 * Linux's task_participate_group_stop (siglock held): @t's pending part in
 * its group stop is done, leaving the count if it was counted; true if
 * that completes a fresh group stop, which @t is to report.
 */
bool rp_jobctl_participate(struct rp_task *t);

/*
 * Linux's task_join_group_stop (siglock held): @p, a thread @self is
 * creating, takes part in its group's stop if one is under way (counted
 * if it is still being completed, not counted if the group is stopped).
 */
void rp_jobctl_join_group_stop(struct rp_task *self, struct rp_task *p);

/*
 * Linux's do_notify_parent_cldstop (read section held): SIGCHLD with @why
 * and @status from the task of pid @pid, uid @uid, to @parent (si_pid: its
 * number in @parent's namespace, 0 if none), unless @parent
 * ignores SIGCHLD or asked SA_NOCLDSTOP; its wait is woken anyway.  A
 * tracer's notice names the thread, a real parent's the process.  Nothing
 * if @parent was released before its siglock could be taken.
 */
void rp_send_cldstop_rcu(struct rp_task *parent, struct rp_pid *pid, uid_t uid, int why,
			 int status);

/* rp_send_cldstop_rcu to the real parent of @self's group.  No lock held. */
void rp_notify_parent_cldstop(struct rp_task *self, int why, int status);

/* Exiting @t (RP_PF_EXITING set, no lock held) leaves a pending group stop. */
void rp_jobctl_exit(struct rp_task *t);

/*
 * Is @self's process group orphaned (its count of ties 0, src/task/jobc.h;
 * Linux's is_current_pgrp_orphaned)?  Enters a read section.
 */
bool rp_current_pgrp_orphaned(struct rp_task *self);

/*
 * @sig from the kernel (SI_KERNEL, no permission check) to group @pgrp, by
 * pointer as Linux's kill_pgrp (rp_read_lock held).
 */
void rp_kill_pgrp_priv_rcu(struct rp_pid *pgrp, int sig);

/*
 * Linux's kill_orphaned_pgrp (update lock held): @tsk's exit (@parent NULL,
 * after rp_jobc_exit took its own tie away: Linux's ignored task) or its
 * reparenting away from @parent (after the count's adjustment) orphans
 * @tsk's process group, which has a stopped process: SIGHUP then SIGCONT
 * to the group.
 */
void rp_kill_orphaned_pgrp(struct rp_task *tsk, struct rp_task *parent);
/*
 * @by's exit orphaned process group @group (its decrement took the count
 * to 0: rp_jobc_untie_dead): if a member is stopped, SIGHUP then SIGCONT to
 * the group, and true (rp_read_lock held).
 */
bool rp_kill_orphaned_group_rcu(struct rp_task *by, struct rp_pid *group);

/* ---- signals to many processes (kill.c) ---- */

/*
 * Send @sig with @info to every process of group @pgrp as the kernel does
 * (no permission check), with the exactly-once guarantees of a group kill.
 * 0, or -ESRCH for an empty group (a pid whose number was freed has no
 * members).  Caller holds rp_read_lock.
 */
int rp_kill_pgrp_info_rcu(struct rp_pid *pgrp, int sig, const siginfo_t *info);

/*
 * The same for every process of session @sid, group by group: the update
 * lock held (exclusive) and rp_read_lock (rp_for_each_session_member_locked).
 */
int rp_kill_session_info_locked(struct rp_system *sys, pid_t sid, int sig, const siginfo_t *info);

/*
 * kill(2) for @pid <= 0 (0: the caller's group; -1: everyone the caller
 * may signal but init and itself; < -1: group -@pid) with @info.
 */
int rp_kill_group_info(struct rp_task *self, pid_t pid, int sig, const siginfo_t *info);

/*
 * Does a sender's group kill of a signal hold the update side across its
 * walks (rcu and rcu-global once the table has made a pid namespace: kill.c,
 * passes_hold)?  Then no change of its set of receivers (a fork, a reap,
 * a setpgid) runs beside its walk.  Once true, true for good.  No lock
 * needed.
 */
bool rp_group_kill_holds_update(struct rp_system *sys);

/* ---- the fork window (record.c) ---- */

/*
 * Signals sent to many processes (group kills, kill(-1), session kills)
 * while a fork is in progress, recorded for the child (Linux's
 * multiprocess_signals).  Lives on the forking thread's stack.
 */
struct rp_fork_record {
	struct cds_hlist_node node;	/* (s) on signal->multiprocess */
	uint64_t signals;		/* (s) signals recorded, bit sig - 1 */
	struct cds_list_head queue;	/* (s) what was recorded (record.c), in order */
	struct rp_pidns *ns;		/* (c) the child's pid namespace, held by the fork */
};

/* Open @rec on @self's process for a child in namespace @ns (siglock held). */
void rp_fork_record_open(struct rp_task *self, struct rp_fork_record *rec, struct rp_pidns *ns);

/*
 * Close @rec (the parent's siglock held: @held) and give what it recorded
 * to @child, a new process not yet linked; NULL discards it.
 */
void rp_fork_record_close(struct rp_fork_record *rec, struct rp_task *child,
			  struct rp_sighand *held);

/*
 * A group walker @sender (NULL: the table) sent @sig with @info to @p
 * (@p's siglock held, in a read section): record it for @p's forks, each
 * child with si_pid 0 if its namespace does not see @sender.
 */
void rp_fork_record_signal(struct rp_task *p, struct rp_task *sender, int sig,
			   const siginfo_t *info);

/* ---- the parent's death notice (notify.c) ---- */

/*
 * Tell @t's parent that @t died (update lock held, or the gate shared, T of
 * @t->parent and a read section: a plain exit): queue @sig (if any) and
 * wake its waiters.  True if the parent ignores SIGCHLD or has SA_NOCLDWAIT,
 * so that @t is to be released at once (autoreap).
 */
bool rp_do_notify_parent(struct rp_task *t, int sig);

/*
 * Linux's wait status of zombie @p: the group's code once a group exit
 * began (a leader that left first by exit(2) has its own), else its own.
 */
int rp_zombie_status(struct rp_task *p);

/* The CLD_* code and si_status of wait status @status. */
void rp_status_to_cld(int status, int *code, int *cld_status);

#endif /* RP_SIGNAL_SIGNAL_H */
