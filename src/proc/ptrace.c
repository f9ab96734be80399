/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrace(2): tracer/tracee links and ptrace stops, as Linux's
 * kernel/ptrace.c and ptrace_stop.
 *
 * Links (Group 3).  A tracee's ptrace_entry is on its tracer's ->ptraced,
 * attached at the head with rp_owned_add_pub (owner: the tracer task) and
 * detached with rp_owned_del_pub, which marks it obsolete before anything
 * else changes, so that wait's retry walk of one tracer's list restarts
 * instead of following a moved tracee onto another tracer's list (I4, I3).
 *
 * Stops.  A traced task that dequeues a signal stops: RP_JOBCTL_TRACED and
 * the signal in ->exit_code, under its siglock.  Its tracer's wait reports
 * it (and clears exit_code); PTRACE_CONT and PTRACE_DETACH put the signal
 * to deliver in exit_code, clear RP_JOBCTL_TRACED and wake it, as Linux's
 * ptrace_resume.  The tracee sleeps on its own wait queue (rp_task_waitq).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include "ptrace.h"
#include "exit.h"
#include "../signal/signal.h"

/* The status of PTRACE_INTERRUPT's trap, as Linux reports it to wait. */
#define EVENT_STOP_CODE		(SIGTRAP | (PTRACE_EVENT_STOP << 8))

/* Make @tracer trace @t (update lock held): Linux's ptrace_link. */
static int ptrace_link(struct rp_task *t, struct rp_task *tracer, unsigned int flags)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);

	rp_assert_update_held(&t->sys->sync);
	if (!sh)
		return -ESRCH;
	t->ptrace = flags;	/* (u, s): senders read it under the siglock */
	rp_unlock_sighand(sh);
	CMM_STORE_SHARED(t->parent, tracer);
	/* At the head, published last (Group 3): see rp_owned_add_pub. */
	rp_owned_add_pub(&t->ptrace_entry, &tracer->ptraced, tracer);
	return 0;
}

void rp_ptrace_unlink(struct rp_task *t)
{
	struct rp_sighand *sh;

	rp_assert_update_held(&t->sys->sync);
	if (!t->ptrace)
		return;
	/* Obsolete first, then the links: wait's walk on @t restarts. */
	rp_owned_del_pub(&t->ptrace_entry);
	CMM_STORE_SHARED(t->parent, t->real_parent);
	sh = rp_lock_task_sighand(t);
	t->ptrace = 0;
	if (!sh)
		return;		/* released: nobody sends to it any more */
	t->jobctl &= ~RP_JOBCTL_TRAP_STOP;
	/* A stopped tracee resumes with the signal in exit_code (Linux's __ptrace_unlink). */
	if (t->jobctl & RP_JOBCTL_TRACED) {
		t->jobctl &= ~RP_JOBCTL_TRACED;
		rp_signal_wake_up(t);
	}
	rp_unlock_sighand(sh);
}

/*
 * Detach @t from exiting @tracer (update lock held): Linux's __ptrace_detach.
 * A zombie tracee is handed back: a thread, or a process whose real parent
 * is not the tracer's group (that parent is told now, and may not want it),
 * is released if nobody will reap it.
 */
static void detach_on_exit(struct rp_task *tracer, struct rp_task *t)
{
	bool dead;

	rp_assert_update_held(&t->sys->sync);
	rp_ptrace_unlink(t);
	if (uatomic_read(&t->exit_state) != RP_EXIT_ZOMBIE)
		return;
	dead = !rp_thread_group_leader(t);
	if (!dead && t->signal->nr_threads == 1 && !rp_same_thread_group(t->real_parent, tracer))
		dead = rp_do_notify_parent(t, t->exit_signal);
	/* Claim it as wait does: a waiter may have claimed it first. */
	if (dead && uatomic_cmpxchg(&t->exit_state, RP_EXIT_ZOMBIE, RP_EXIT_DEAD) == RP_EXIT_ZOMBIE)
		rp_release_task(t);
}

void rp_exit_ptrace(struct rp_task *tracer)
{
	struct rp_task *t, *tmp;

	rp_assert_update_held(&tracer->sys->sync);
	/* _safe: each detach unlinks the entry it stands on (update lock held). */
	cds_list_for_each_entry_safe(t, tmp, &tracer->ptraced, ptrace_entry.node)
		detach_on_exit(tracer, t);
}

/*
 * CLONE_PTRACE: a child of a traced task is traced by the same tracer.
 * The forking task is the child's real parent here; for CLONE_THREAD and
 * CLONE_PARENT that is the forker's parent instead, whom rcuproc cannot
 * tell from the child alone, so those are not linked (see the report).
 */
void rp_ptrace_init_task(struct rp_task *child, unsigned long clone_flags)
{
	struct rp_task *forker = child->real_parent;

	rp_assert_update_held(&child->sys->sync);
	if (!(clone_flags & CLONE_PTRACE) || (clone_flags & (CLONE_THREAD | CLONE_PARENT)) ||
	    !forker->ptrace)
		return;
	ptrace_link(child, forker->parent, forker->ptrace);
}

/* Enter a ptrace stop with wait status @code (siglock held); false: no stop. */
static bool enter_stop(struct rp_task *t, int code)
{
	rp_assert_siglock_held(t);
	if (!(t->ptrace & RP_PT_PTRACED) || rp_fatal_signal_pending(t))
		return false;
	t->jobctl = (t->jobctl | RP_JOBCTL_TRACED) & ~RP_JOBCTL_TRAP_STOP;
	t->exit_code = code;
	return true;
}

/* Linux's do_notify_parent_cldstop for a tracer: SIGCHLD (CLD_TRAPPED), wake its wait. */
static void notify_tracer(struct rp_task *t, int code)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_task *tracer;
	siginfo_t info;

	rp_read_lock(sync);
	/* Pairs with the stores of ->parent in ptrace_link and rp_ptrace_unlink. */
	tracer = rcu_dereference(t->parent);
	if (!rp_task_get_rcu(tracer))
		tracer = NULL;
	rp_read_unlock(sync);
	if (!tracer)
		return;
	rp_siginfo_init(&info, SIGCHLD, CLD_TRAPPED, rp_task_tid(t), t->cred->uid);
	info.si_status = code & 0x7f;
	rp_send_signal(tracer, SIGCHLD, &info, true);
	rp_wake_up_parent(tracer);
	rp_task_put(tracer);
}

/*
 * Leave the stop (siglock held): the signal the tracer chose (exit_code),
 * or 0 if @t is dying (rp_get_signal's next round takes the kill) or the
 * stop was PTRACE_INTERRUPT's trap (a trap has no signal to deliver).
 */
static int leave_stop(struct rp_task *t, bool trap)
{
	int sig = t->exit_code;

	rp_assert_siglock_held(t);
	t->exit_code = 0;
	if (rp_fatal_signal_pending(t) || trap)
		sig = 0;
	t->jobctl &= ~RP_JOBCTL_TRACED;
	return sig;
}

/*
 * @sig 0 is PTRACE_INTERRUPT's trap.  A kill while stopped returns 0, not
 * -ESRCH: rp_get_signal then goes round again and its fatal check runs the
 * group exit; -ESRCH means only that @t has been released.
 */
int rp_ptrace_signal_stop(struct rp_task *t, int sig, siginfo_t *info)
{
	int code = sig ? sig : EVENT_STOP_CODE;
	struct rp_sighand *sh;
	unsigned long seq;
	bool stopped;

	(void)info;	/* PTRACE_GETSIGINFO is not provided */
	sh = rp_lock_task_sighand(t);
	if (!sh)
		return -ESRCH;
	stopped = enter_stop(t, code);
	rp_unlock_sighand(sh);
	if (!stopped)
		return sig;
	notify_tracer(t, code);
	for (;;) {
		/* Sampled before the check: CONT, DETACH and kills wake its queue after it. */
		seq = rp_waitq_seq(rp_task_waitq(t));
		sh = rp_lock_task_sighand(t);
		if (!sh)
			return -ESRCH;
		if (!(t->jobctl & RP_JOBCTL_TRACED) || rp_fatal_signal_pending(t))
			break;
		rp_unlock_sighand(sh);
		rp_waitq_wait(rp_task_waitq(t), seq);
	}
	sig = leave_stop(t, !sig);
	rp_unlock_sighand(sh);
	return sig;
}

/* Linux's __ptrace_may_access with real credentials. */
static bool may_attach(struct rp_task *self, struct rp_task *t)
{
	struct rp_sync *sync = &self->sys->sync;
	const struct rp_cred *c = self->cred, *tc;
	bool same;

	if (rp_cred_capable(c, RP_CAP_SYS_PTRACE))
		return true;
	rp_read_lock(sync);
	tc = rp_task_cred_rcu(t);
	same = c->uid == tc->uid && c->uid == tc->euid && c->uid == tc->suid;
	rp_read_unlock(sync);
	/* A snapshot, as Linux's get_dumpable(). */
	return same && CMM_LOAD_SHARED(t->signal->dumpable);
}

/* PTRACE_ATTACH and PTRACE_SEIZE (update lock held): Linux's ptrace_attach. */
static long attach(struct rp_task *self, struct rp_task *t, long request, void *addr,
		   void *data)
{
	unsigned long options = (unsigned long)data;
	unsigned int flags = RP_PT_PTRACED;
	int ret;

	rp_assert_update_held(&self->sys->sync);
	if (request == PTRACE_SEIZE) {
		if (addr || (options & ~(unsigned long)PTRACE_O_MASK))
			return -EIO;
		if (options)
			return -EINVAL;		/* no PTRACE_O_* is implemented */
		flags |= RP_PT_SEIZED;
	}
	if (rp_same_thread_group(self, t) || !may_attach(self, t) ||
	    uatomic_read(&t->exit_state) || t->ptrace)
		return -EPERM;
	ret = ptrace_link(t, self, flags);
	if (!ret && request == PTRACE_ATTACH)
		rp_send_signal(t, SIGSTOP, NULL, false);
	return ret;
}

static long traceme(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_task *parent;
	long ret = -EPERM;

	rp_update_lock(sync);
	parent = self->real_parent;
	if (!self->ptrace && !(CMM_LOAD_SHARED(parent->flags) & RP_PF_EXITING) &&
	    !uatomic_read(&parent->exit_state))
		ret = ptrace_link(self, parent, RP_PT_PTRACED);
	rp_update_unlock(sync);
	return ret;
}

static bool valid_signal(long sig)
{
	return sig >= 0 && sig < RP_NSIG;
}

/*
 * Requests on a tracee in a ptrace stop (update lock held): -ESRCH if it is
 * not stopped, as Linux's ptrace_check_attach; then CONT resumes it with
 * signal @sig, DETACH unlinks it and resumes it with @sig.
 */
static long stopped_request(struct rp_task *t, long request, long sig)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	long ret = 0;

	rp_assert_update_held(&t->sys->sync);
	if (!sh)
		return -ESRCH;
	if (!(t->jobctl & RP_JOBCTL_TRACED) || rp_fatal_signal_pending(t))
		ret = -ESRCH;
	else if (request != PTRACE_CONT && request != PTRACE_DETACH)
		ret = -EIO;
	else if (!valid_signal(sig))
		ret = -EIO;
	if (!ret) {
		t->exit_code = (int)sig;
		if (request == PTRACE_CONT) {
			t->jobctl &= ~RP_JOBCTL_TRACED;
			rp_signal_wake_up(t);
		}
	}
	rp_unlock_sighand(sh);
	if (!ret && request == PTRACE_DETACH)
		rp_ptrace_unlink(t);
	return ret;
}

/* PTRACE_INTERRUPT: a seized tracee traps at its next rp_get_signal. */
static long interrupt(struct rp_task *t)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	long ret = 0;

	if (!sh)
		return -ESRCH;
	if (!(t->ptrace & RP_PT_SEIZED))
		ret = -EIO;
	else if (!(t->jobctl & RP_JOBCTL_TRACED)) {
		t->jobctl |= RP_JOBCTL_TRAP_STOP;
		rp_signal_wake_up(t);
	}
	rp_unlock_sighand(sh);
	return ret;
}

/* A request on tracee @t of @self (update lock held). */
static long tracee_request(struct rp_task *self, struct rp_task *t, long request, void *data)
{
	rp_assert_update_held(&self->sys->sync);
	if (!(t->ptrace & RP_PT_PTRACED) || t->parent != self)
		return -ESRCH;
	switch (request) {
	case PTRACE_KILL:
		/* As Linux since 6.0: a SIGKILL, stopped or not. */
		rp_send_signal(t, SIGKILL, NULL, false);
		return 0;
	case PTRACE_INTERRUPT:
		return interrupt(t);
	default:
		return stopped_request(t, request, (long)(intptr_t)data);
	}
}

long rp_ptrace(struct rp_task *self, long request, pid_t pid, void *addr, void *data)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_task *t;
	long ret;

	if (rp_task_exited(self))
		return -ESRCH;
	if (request == PTRACE_TRACEME)
		return traceme(self);
	/* Requests change links or stops: the update lock, not a read section. */
	rp_update_lock(sync);
	t = rp_find_task_rcu(self->sys, pid);
	if (!t)
		ret = -ESRCH;
	else if (request == PTRACE_ATTACH || request == PTRACE_SEIZE)
		ret = attach(self, t, request, addr, data);
	else
		ret = tracee_request(self, t, request, data);
	rp_update_unlock(sync);
	rp_sync_quiescent();
	return ret;
}
