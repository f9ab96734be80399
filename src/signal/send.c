/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Signal generation, as Linux's kernel/signal.c: permission, queueing
 * (standard signals coalesce, real-time signals queue with their siginfo,
 * RLIMIT_SIGPENDING charged to the target's user), waking a thread, and the
 * kill family.  kill(pid) finds its target under rp_read_lock only and locks
 * the target's sighand with a load, lock, recheck loop (commit e56d090310d7).
 */
#include <errno.h>
#include <string.h>
#include "signal.h"
#include "../task/relations.h"
#include "../task/objects.h"
#include "../debug/racepoint.h"

/* Default action "ignore" (Linux's SIG_KERNEL_IGNORE_MASK). */
#define KERNEL_IGNORE_MASK (RP_SIGBIT(SIGCHLD) | RP_SIGBIT(SIGURG) | RP_SIGBIT(SIGWINCH) | \
			    RP_SIGBIT(SIGCONT))

/*
 * Signals 1..64 as one word.  glibc's sigaddset/sigdelset refuse 32 and 33
 * (its own internal signals), which are ordinary real-time signals here.
 */
uint64_t rp_sigset_bits(const sigset_t *set)
{
	uint64_t bits;

	memcpy(&bits, set, sizeof(bits));
	return bits;
}

void rp_sigset_set_bits(sigset_t *set, uint64_t bits)
{
	memcpy(set, &bits, sizeof(bits));
}

bool rp_sig_kernel_stop(int sig)
{
	return sig < RP_SIGRTMIN && (RP_SIGBIT(sig) & RP_SIG_STOP_MASK);
}

/* Linux's SIG_KERNEL_COREDUMP_MASK. */
#define COREDUMP_MASK (RP_SIGBIT(SIGQUIT) | RP_SIGBIT(SIGILL) | RP_SIGBIT(SIGTRAP) | \
		       RP_SIGBIT(SIGABRT) | RP_SIGBIT(SIGFPE) | RP_SIGBIT(SIGSEGV) | \
		       RP_SIGBIT(SIGBUS) | RP_SIGBIT(SIGSYS) | RP_SIGBIT(SIGXCPU) | \
		       RP_SIGBIT(SIGXFSZ))

bool rp_sig_kernel_coredump(int sig)
{
	return sig < RP_SIGRTMIN && (RP_SIGBIT(sig) & COREDUMP_MASK);
}

bool rp_sig_handler_ignored(const struct rp_ksigaction *ka, int sig)
{
	return ka->handler == SIG_IGN ||
	       (ka->handler == SIG_DFL && sig < RP_SIGRTMIN &&
		(RP_SIGBIT(sig) & KERNEL_IGNORE_MASK));
}

static bool kill_ok_by_cred(const struct rp_cred *c, const struct rp_cred *tc)
{
	return c->euid == tc->suid || c->euid == tc->uid ||
	       c->uid == tc->suid || c->uid == tc->uid ||
	       rp_cred_capable(c, RP_CAP_KILL);
}

/* Under rp_read_lock: creds and sessions are read with rcu_dereference. */
int rp_check_kill_permission_rcu(struct rp_task *self, int sig, struct rp_task *t)
{
	rp_assert_read_section(&self->sys->sync);
	if (sig < 0 || sig >= RP_NSIG)
		return -EINVAL;
	if (rp_same_thread_group(self, t) ||
	    kill_ok_by_cred(rp_task_cred_rcu(self), rp_task_cred_rcu(t)))
		return 0;
	/* Linux: SIGCONT is allowed within the session, whatever the uids. */
	if (sig != SIGCONT)
		return -EPERM;
	return rp_task_session_nr_rcu(t) == rp_task_session_nr_rcu(self) ? 0 : -EPERM;
}

void rp_siginfo_init(siginfo_t *info, int sig, int code, pid_t pid, uid_t uid)
{
	memset(info, 0, sizeof(*info));
	info->si_signo = sig;
	info->si_code = code;
	info->si_pid = pid;
	info->si_uid = uid;
}

static bool sig_blocked(const struct rp_task *t, int sig)
{
	return t->blocked & RP_SIGBIT(sig);
}

bool rp_sig_kernel_only(int sig)
{
	return sig == SIGKILL || sig == SIGSTOP;
}

/*
 * Linux's sig_ignored and sig_task_ignored: may @sig be dropped at once?
 * An init, the root's or a namespace's (SIGNAL_UNKILLABLE), takes only
 * the signals it has a handler for, except that SIGKILL and SIGSTOP
 * @force'd on a namespace's init (sent from an ancestor namespace, or by
 * the table) reach it; the root's init never takes them.
 */
static bool sig_ignored(struct rp_task *t, int sig, bool force)
{
	const struct rp_ksigaction *ka = rp_sighand_action(t->sighand, sig);

	/* Blocked: the handler may change before it is unblocked. */
	if (sig_blocked(t, sig))
		return false;
	/* A tracer sees every signal but SIGKILL. */
	if ((t->ptrace & RP_PT_PTRACED) && sig != SIGKILL)
		return false;
	if (rp_is_global_init(t) && rp_sig_kernel_only(sig))
		return true;
	if (ka->handler == SIG_DFL && !(force && rp_sig_kernel_only(sig)) &&
	    rp_is_ns_init_rcu(t))
		return true;
	return rp_sig_handler_ignored(ka, sig);
}

/*
 * Reserve one queued signal of @t's user under @t's RLIMIT_SIGPENDING
 * (Linux's sig_get_ucounts); NULL past the limit.  The reservation comes
 * before the check, so that concurrent senders never exceed the limit
 * together (Linux's inc_rlimit_get_ucounts).
 */
static struct rp_user *sigpending_reserve_rcu(struct rp_task *t, bool override)
{
	/* Linux charges the task's real uid.  Pairs with rp_commit_creds. */
	struct rp_user *user = rp_task_cred_rcu(t)->user;
	rlim_t limit = rp_task_rlimit(t, RLIMIT_SIGPENDING)->rlim_cur;

	if (rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_add_return(&user->sigpending, 1)) > limit &&
	    !override) {
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&user->sigpending));
		return NULL;
	}
	return user;
}

static struct rp_sigqueue *sigqueue_alloc_limited(struct rp_task *t, bool override)
{
	struct rp_user *user = sigpending_reserve_rcu(t, override);
	struct rp_sigqueue *q;

	if (!user)
		return NULL;
	q = rp_sigqueue_alloc(t->sys, user);
	/* rp_sigqueue_alloc charged the entry itself */
	rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&user->sigpending));
	return q;
}

int rp_sigqueue_charge_prealloc(struct rp_task *self, struct rp_sigqueue *q)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_user *user = NULL;
	struct rp_sighand *sh;
	int err = -ESRCH;

	rp_read_lock(sync);
	sh = rp_lock_task_sighand_rcu(self);	/* for the limit */
	if (sh) {
		user = sigpending_reserve_rcu(self, false);
		rp_unlock_sighand(sh);
		err = user ? 0 : -EAGAIN;
	}
	rp_read_unlock(sync);
	if (user) {
		rp_user_ref(self->sys, user);	/* the creator's uid may change meanwhile */
		q->user = user;
		q->preallocated = true;
	}
	return err;
}

/*
 * Queue @info for @sig (Linux's __send_signal_locked).  NULL @info is a
 * signal of the table itself (SEND_SIG_PRIV).  Standard signals from kill()
 * or the table may exceed the limit; when the limit refuses, the bit is
 * still set and the siginfo lost, except for a real-time signal sent by
 * something other than kill(): -EAGAIN.
 */
static int queue_siginfo(struct rp_task *t, struct rp_sigpending *pending, int sig,
			 const siginfo_t *info)
{
	bool override = sig < RP_SIGRTMIN && (!info || info->si_code >= 0);
	struct rp_sigqueue *q;

	if (sig == SIGKILL)
		return 0;	/* its fate is fixed: no siginfo needed */
	q = sigqueue_alloc_limited(t, override);
	if (q) {
		if (info)
			q->info = *info;
		else
			rp_siginfo_init(&q->info, sig, SI_KERNEL, 0, 0);
		q->info.si_signo = sig;
		rp_sigpending_add_tail(pending, q);
		return 0;
	}
	if (info && sig >= RP_SIGRTMIN && info->si_code != SI_USER)
		return -EAGAIN;
	return 0;
}

/* Linux's wants_signal: may thread @t take @sig now? */
static bool wants_signal(const struct rp_task *t, int sig)
{
	if (sig_blocked(t, sig) || rp_task_exited(t))
		return false;
	return sig == SIGKILL || !(t->jobctl & (RP_JOBCTL_TRACED | RP_JOBCTL_STOPPED));
}


/* Does @sig, unhandled, kill the process? */
static bool sig_fatal(const struct rp_task *t, int sig)
{
	return !(sig < RP_SIGRTMIN && (RP_SIGBIT(sig) & (KERNEL_IGNORE_MASK | RP_SIG_STOP_MASK))) &&
	       rp_sighand_action(t->sighand, sig)->handler == SIG_DFL;
}

/* The first thread of @p's group that can take @sig (see rp_send_signal_locked). */
static struct rp_task *pick_thread(struct rp_task *p, int sig)
{
	struct rp_task *t;

	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node)
		if (wants_signal(t, sig))
			return t;
	return NULL;
}

/*
 * Kill thread @t of a dying group: its part in a group stop is over, and a
 * live one gets SIGKILL.  The bit is set directly: rp_send_signal_locked
 * drops everything in an exiting group.  RP_BREAK_EXIT_JOINS_STOP leaves
 * its STOP_PENDING set.
 */
static void zap_thread(struct rp_task *t)
{
#ifndef RP_BREAK_EXIT_JOINS_STOP
	t->jobctl &= ~(RP_JOBCTL_STOP_PENDING | RP_JOBCTL_STOP_DEQUEUED);
#endif
	if (uatomic_read(&t->exit_state))
		return;
	t->pending.signal |= RP_SIGBIT(SIGKILL);
	/*
	 * The stop ends with the kill, not when the stopped thread next runs:
	 * Linux's wake-up of a fatal signal makes a stopped task runnable at
	 * once, and ps reads it so.  RP_BREAK_KILL_LEAVES_STOPPED leaves it
	 * to the thread (sleep_stopped), which may run much later.
	 */
#ifndef RP_BREAK_KILL_LEAVES_STOPPED
	t->jobctl &= ~RP_JOBCTL_STOPPED;
#endif
	rp_signal_wake_up(t);
}

/* The group exit a fatal signal @sig starts, every thread killed (siglock held). */
static void start_group_exit(struct rp_task *p, int sig)
{
	struct rp_signal *s = p->signal;
	struct rp_task *t;

	/* As Linux: a dying group is neither stopped nor continued any more. */
	s->flags = RP_SIGNAL_GROUP_EXIT;
	s->group_exit_code = sig;
	s->group_stop_count = 0;
	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &s->thread_head, thread_node)
		zap_thread(t);
}

/*
 * Linux's complete_signal: wake a thread that can take @sig.  A fatal
 * signal starts the group exit now, with its own code, so that a later
 * fatal signal changes nothing (the group drops it): every thread gets
 * SIGKILL, and takes the code in rp_get_signal.  A core-dump signal waits
 * for its delivery, as Linux's, which dumps first.  An init's group is
 * killed only by SIGKILL: any other signal that reached it with the
 * default action (queued while a thread blocked it) is dropped at its
 * delivery (Linux 6.18 answered so: docs/namespaces.md).
 */
void rp_complete_signal(struct rp_task *p, int sig, bool group)
{
	struct rp_task *t = wants_signal(p, sig) ? p : NULL;

	if (!t && group)
		t = pick_thread(p, sig);
	if (!t)
		return;		/* blocked everywhere: it waits, pending */
	if (sig_fatal(p, sig) && !rp_sig_kernel_coredump(sig) &&
	    (sig == SIGKILL || !(p->ptrace & RP_PT_PTRACED)) &&
	    (sig == SIGKILL || !rp_is_ns_init_rcu(p)))
		start_group_exit(p, sig);
	else
		rp_signal_wake_up(t);
}

bool rp_prepare_signal_rcu(struct rp_task *t, int sig, bool force)
{
	rp_assert_siglock_held(t);
	/* A dying group drops everything. */
	if (t->signal->flags & RP_SIGNAL_GROUP_EXIT)
		return false;
	rp_jobctl_prepare_signal_rcu(t, sig);	/* SIGCONT resumes even if ignored */
	return !sig_ignored(t, sig, force);
}

/*
 * Linux's __send_signal_locked.  Caller: @t's siglock held, and a read
 * section or the update lock (the thread list and @t's credentials are
 * read under RCU).
 */
static int send_signal_locked(struct rp_task *t, int sig, const siginfo_t *info, bool group,
			      bool force)
{
	struct rp_sigpending *pending = group ? &t->signal->shared_pending : &t->pending;
	int err;

	rp_assert_siglock_held(t);
	if (sig <= 0 || sig >= RP_NSIG)
		return -EINVAL;
	if (!rp_prepare_signal_rcu(t, sig, force))
		return 0;
	/* Standard signals coalesce: one instance pending at most. */
	if (sig < RP_SIGRTMIN && (pending->signal & RP_SIGBIT(sig)))
		return 0;
	err = queue_siginfo(t, pending, sig, info);
	if (err)
		return err;
	pending->signal |= RP_SIGBIT(sig);
	rp_complete_signal(t, sig, group);
	return 0;
}

/* A signal of the table (NULL @info, or SI_KERNEL) is forced, as Linux's SEND_SIG_PRIV. */
int rp_send_signal_locked(struct rp_task *t, int sig, const siginfo_t *info, bool group)
{
	return send_signal_locked(t, sig, info, group, !info || info->si_code == SI_KERNEL);
}

int rp_send_signal_forced_locked(struct rp_task *t, int sig, const siginfo_t *info, bool group,
				 bool force)
{
	if (!force)
		return rp_send_signal_locked(t, sig, info, group);
	rp_assert_siglock_held(t);
	return send_signal_locked(t, sig, info, group, true);
}

bool rp_ns_sees_sender_rcu(struct rp_task *self, struct rp_pidns *ns)
{
	struct rp_pid *sender = rp_signal_leader_pid(self->signal);

	return !ns || rp_pid_nr_ns(sender, ns);	/* the root's: every number */
}

bool rp_sees_sender_rcu(struct rp_task *self, struct rp_task *t)
{
	if (!rp_signal_leader_pid(self->signal)->nested && !t->pid->nested)
		return true;	/* both in the root */
	return rp_ns_sees_sender_rcu(self, rp_task_pidns(t));
}

/*
 * Linux's send_signal_locked for a sender @self: a receiver whose pid
 * namespace does not see @self (@self is in an ancestor namespace) gets
 * si_pid 0, and SIGKILL or SIGSTOP reach it even if it is its
 * namespace's init.  Otherwise @self has a number in the receiver's
 * namespace and @info's pid stands.  A receiver released meanwhile takes
 * nothing anyway.
 */
int rp_send_signal_from_locked(struct rp_task *self, struct rp_task *t, int sig,
			       const siginfo_t *info, bool group)
{
	siginfo_t copy;

	rp_assert_siglock_held(t);
	if (rp_sees_sender_rcu(self, t))
		return rp_send_signal_locked(t, sig, info, group);
	copy = *info;
	copy.si_pid = 0;
	return send_signal_locked(t, sig, &copy, group, true);
}

/* Called outside any read section, or with the update lock held. */
int rp_send_signal(struct rp_task *t, int sig, const siginfo_t *info, bool group)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_sighand *sh;
	int ret = -ESRCH;

	rp_read_lock(sync);
	sh = rp_lock_task_sighand_rcu(t);
	if (sh) {
		ret = rp_send_signal_locked(t, sig, info, group);
		rp_unlock_sighand(sh);
	}
	rp_read_unlock(sync);
	return ret;
}

void rp_signal_wake_up(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	rp_waitq_wake(rp_task_waitq(t));
	rp_waitq_wake(rp_chldexit_waitq(t->signal));
}

bool rp_signal_pending_locked(struct rp_task *t)
{
	uint64_t pending = t->pending.signal |
			   t->signal->shared_pending.signal;

	rp_assert_siglock_held(t);
	return (pending & ~t->blocked) ||
	       (t->signal->flags & RP_SIGNAL_GROUP_EXIT) ||
	       (t->jobctl & RP_JOBCTL_STOP_PENDING);	/* a group stop to join */
}

/*
 * As Linux: the count includes threads that are already zombies (de_thread
 * waits for each to be released); only live ones get SIGKILL.  The group
 * stop is over: no other thread owes it any more, so none can complete it
 * on its way out (rp_jobctl_exit).
 */
int rp_zap_other_threads(struct rp_task *p)
{
	struct rp_task *t;
	int count = 0;

	rp_assert_siglock_held(p);
	p->signal->group_stop_count = 0;
	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node) {
		if (t == p)
			continue;
		count++;
		zap_thread(t);
	}
	return count;
}

/*
 * Linux's group_send_sig_info, in a read section: -ESRCH if @p was released.
 * RP_BREAK_UNLOCKED_SEND drops the siglock before the send instead of
 * after: the debug builds' siglock assertion stops it at once.
 */
static int group_send_rcu(struct rp_task *self, struct rp_task *p, int sig, const siginfo_t *info)
{
	int err = rp_check_kill_permission_rcu(self, sig, p);
	struct rp_sighand *sh;

	rp_assert_read_section(&self->sys->sync);
	if (err || !sig)
		return err;
	sh = rp_lock_task_sighand_rcu(p);
	if (!sh)
		return -ESRCH;
#ifdef RP_BREAK_UNLOCKED_SEND
	rp_unlock_sighand(sh);
	return rp_send_signal_from_locked(self, p, sig, info, true);
#else
	err = rp_send_signal_from_locked(self, p, sig, info, true);
	rp_unlock_sighand(sh);
	return err;
#endif
}

/*
 * kill(@nr > 0): the thread group of the task with tid @nr.  A task found
 * but released meanwhile may have handed its pid to a new leader (a racing
 * exec): look again, and stop when the same dead task comes back.  Look
 * again through the pid found at the start, as Linux keeps its struct pid,
 * not by number: the number may name a new process by then, which the call
 * must not signal.  The read section keeps that pid from being freed.
 * RP_BREAK_KILL_BY_NUMBER looks the number up again.
 */
static int kill_pid(struct rp_task *self, pid_t nr, int sig, const siginfo_t *info)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_task *p = NULL, *prev;
	struct rp_pid *pid;
	int err;

	rp_read_lock(sync);
	pid = rp_pid_find_vnr_rcu(self, nr);
	do {
		prev = p;
#ifdef RP_BREAK_KILL_BY_NUMBER
		(void)pid;
		p = rp_find_task_vnr_rcu(self, nr);
#else
		/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
		p = pid ? rcu_dereference(pid->task) : NULL;
#endif
		RP_RACE_POINT(RP_RACE_KILL_FOUND, p);
		err = p ? group_send_rcu(self, p, sig, info) : -ESRCH;
	} while (err == -ESRCH && p && p != prev);
	rp_read_unlock(sync);
	return err;
}

int rp_kill(struct rp_task *self, pid_t pid, int sig)
{
	siginfo_t info;
	int ret;

	if (rp_task_exited(self))
		return -ESRCH;
	/* Signal 0 delivers no siginfo: no sender's number to translate. */
	rp_siginfo_init(&info, sig, SI_USER,
			sig ? rp_own_vnr(self, rp_signal_leader_pid(self->signal)) : 0,
			self->cred->uid);
	if (pid > 0)
		ret = kill_pid(self, pid, sig, &info);
	else	/* kill(0), kill(-1), kill(-pgrp): kill.c */
		ret = rp_kill_group_info(self, pid, sig, &info);
	rp_sync_quiescent();
	return ret;
}

/* Linux's do_send_specific: one thread, @tgid > 0 must be its group. */
static int send_specific(struct rp_task *self, pid_t tgid, pid_t tid, int sig)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_sighand *sh;
	struct rp_task *p;
	siginfo_t info;
	int err = -ESRCH;

	if (rp_task_exited(self))
		return -ESRCH;
	rp_siginfo_init(&info, sig, SI_TKILL, rp_own_vnr(self, rp_signal_leader_pid(self->signal)),
			self->cred->uid);
	rp_read_lock(sync);
	p = rp_find_task_vnr_rcu(self, tid);
	if (p && (tgid <= 0 || rp_pid_vnr(rp_signal_leader_pid(p->signal), self) == tgid)) {
		err = rp_check_kill_permission_rcu(self, sig, p);
		/* Released meanwhile: as Linux, as if it died after receiving it. */
		if (!err && sig && (sh = rp_lock_task_sighand_rcu(p))) {
			err = rp_send_signal_from_locked(self, p, sig, &info, false);
			rp_unlock_sighand(sh);
		}
	}
	rp_read_unlock(sync);
	rp_sync_quiescent();
	return err;
}

int rp_tgkill(struct rp_task *self, pid_t tgid, pid_t tid, int sig)
{
	if (tgid <= 0 || tid <= 0)
		return -EINVAL;
	return send_specific(self, tgid, tid, sig);
}

int rp_tkill(struct rp_task *self, pid_t tid, int sig)
{
	if (tid <= 0)
		return -EINVAL;
	return send_specific(self, 0, tid, sig);
}

int rp_rt_sigqueueinfo(struct rp_task *self, pid_t tgid, int sig, siginfo_t *uinfo)
{
	siginfo_t info = *uinfo;
	int ret;

	if (rp_task_exited(self))
		return -ESRCH;
	info.si_signo = sig;
	/* No one may pose as the table or as kill()/tgkill() towards another task. */
	if ((info.si_code >= 0 || info.si_code == SI_TKILL) &&
	    rp_own_vnr(self, self->pid) != tgid)
		return -EPERM;
	ret = kill_pid(self, tgid, sig, &info);
	rp_sync_quiescent();
	return ret;
}

/*
 * Is @t to die: SIGKILL pending for it or its group, or a group exit
 * begun (Linux's __fatal_signal_pending; siglock held).
 */
bool rp_fatal_signal_pending(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	return rp_fatal_signal_seen(t);
}

bool rp_fatal_signal_seen(const struct rp_task *t)
{
	const struct rp_signal *sig = t->signal;

	/* Each word is written under the siglock: a load of it, or its value under it. */
	return (CMM_LOAD_SHARED(t->pending.signal) & RP_SIGBIT(SIGKILL)) ||
	       (CMM_LOAD_SHARED(sig->shared_pending.signal) & RP_SIGBIT(SIGKILL)) ||
	       (CMM_LOAD_SHARED(sig->flags) & RP_SIGNAL_GROUP_EXIT);
}
