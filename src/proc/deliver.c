/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Delivery: rp_get_signal, the kernel's return to user space (Linux's
 * get_signal).  Dequeues the next unblocked signal and runs its default
 * action, or hands it to the caller when a handler is installed.
 */
#include <errno.h>
#include "../signal/signal.h"
#include "exit.h"
#include "ptrace.h"
#include "../task/objects.h"
#include "../timers/hooks.h"



/* Faults are taken before anything else, as Linux's SYNCHRONOUS_MASK. */
#define SYNCHRONOUS_MASK (RP_SIGBIT(SIGSEGV) | RP_SIGBIT(SIGBUS) | RP_SIGBIT(SIGILL) | \
			  RP_SIGBIT(SIGTRAP) | RP_SIGBIT(SIGFPE) | RP_SIGBIT(SIGSYS))

/* The lowest unblocked signal of @p, synchronous ones first; 0 if none. */
static int next_signal(const struct rp_sigpending *p, uint64_t blocked)
{
	uint64_t ready = p->signal & ~blocked;

	if (ready & SYNCHRONOUS_MASK)
		ready &= SYNCHRONOUS_MASK;
	return ready ? __builtin_ctzll(ready) + 1 : 0;
}

/*
 * Take one instance of @sig off @p into @info.  A real-time signal keeps its
 * bit while more of it are queued.  No entry (SIGKILL, or a siginfo lost to
 * RLIMIT_SIGPENDING): Linux reports SI_USER from pid 0.  A POSIX timer's
 * entry is not freed but handed out in *@timer_sigq, with its reference to
 * the timer, for rp_cputimers_deliver.
 */
static void collect_signal(struct rp_system *sys, struct rp_sigpending *p, int sig,
			   siginfo_t *info, struct rp_sigqueue **timer_sigq)
{
	struct rp_sigqueue *q, *prev, *next, *first = NULL, *before_first = NULL;
	bool more = false;

	rp_sigpending_for_each_safe(q, prev, next, p) {
		if (q->info.si_signo != sig)
			continue;
		if (first) {
			more = true;
			break;
		}
		first = q;
		before_first = prev;
	}
	if (!more)
		p->signal &= ~RP_SIGBIT(sig);
	if (!first) {
		rp_siginfo_init(info, sig, SI_USER, 0, 0);
		return;
	}
	*info = first->info;
	rp_sigpending_del(p, before_first, first);
	if (first->preallocated)
		*timer_sigq = first;
	else
		rp_sigqueue_free(sys, first);
}

/* Thread-directed signals first, then the group's (siglock held); see collect_signal. */
static int dequeue_signal(struct rp_task *t, siginfo_t *info, struct rp_sigqueue **timer_sigq)
{
	struct rp_sigpending *p = &t->pending;
	int sig = next_signal(p, t->blocked);

	rp_assert_siglock_held(t);
	if (!sig) {
		p = &t->signal->shared_pending;
		sig = next_signal(p, t->blocked);
	}
	if (sig)
		collect_signal(t->sys, p, sig, info, timer_sigq);
	return sig;
}

/*
 * Must the group die now?  Its exit began (another thread's fatal signal or
 * exit_group: its code, which may be 0), or SIGKILL is pending.  Either way
 * the thread's SIGKILL is taken off, as Linux's get_signal does: the kill is
 * being acted on, and exit's PTRACE_EVENT_EXIT stop is skipped only for a
 * SIGKILL that comes later.  Sets the code for rp_do_group_exit.
 */
static bool fatal_pending(struct rp_task *t, int *code)
{
	struct rp_sigpending *shared = &t->signal->shared_pending;
	uint64_t kill = RP_SIGBIT(SIGKILL);

	if (t->signal->flags & RP_SIGNAL_GROUP_EXIT) {
		t->pending.signal &= ~kill;
		*code = t->signal->group_exit_code;
		return true;
	}
	if (!((t->pending.signal | shared->signal) & kill))
		return false;
	t->pending.signal &= ~kill;
	shared->signal &= ~kill;
	*code = SIGKILL;
	return true;
}

/*
 * A traced task's signal goes to the tracer first (without the siglock: the
 * stop sleeps).  Returns with the siglock held again and the signal to
 * deliver, 0 if it was cancelled or requeued, -ESRCH if @t was killed or
 * released.  A signal the tracer substituted that @t blocks is requeued to
 * the thread, as Linux's ptrace_signal.
 */
static int ptrace_filter(struct rp_task *t, struct rp_sighand **sh, int sig, siginfo_t *info)
{
	rp_lockdep_assert_held_obj(*sh);
	rp_unlock_sighand(*sh);
	sig = rp_ptrace_signal_stop(t, sig, info);
	if (sig < 0)
		return -ESRCH;
	*sh = rp_lock_task_sighand(t);
	if (!*sh)
		return -ESRCH;
	if (sig && (t->blocked & RP_SIGBIT(sig))) {
		rp_send_signal_locked(t, sig, info, false);
		sig = 0;
	}
	return sig;
}

/*
 * Would Linux write a core for @sig (do_coredump, with a core_pattern that
 * names a file)?  Only for a core-dump signal, with a nonzero RLIMIT_CORE,
 * in a dumpable process (a change of identity or PR_SET_DUMPABLE 0 clears
 * it).  A process here has no memory image, so the limit is never too
 * small for it.  @self's siglock held.
 */
static bool core_dumped(struct rp_task *self, int sig)
{
	rp_assert_siglock_held(self);
	return rp_sig_kernel_coredump(sig) && rp_task_rlimit(self, RLIMIT_CORE)->rlim_cur &&
	       self->signal->dumpable;
}

/*
 * Default actions.  A stop signal stops the whole group (jobctl.c) and the
 * call returns only once the group is continued or killed.  A core-dump
 * signal terminates with its number and, when a core would be written,
 * WCOREDUMP (0x80), as Linux's do_coredump adds it to the group's code.
 */
int rp_get_signal(struct rp_task *self, siginfo_t *info)
{
	struct rp_sighand *sh;
	const struct rp_ksigaction *ka;
	struct rp_sigqueue *timer_sigq;
	siginfo_t si;
	bool unkillable;
	int sig;

	if (rp_task_exited(self))
		return -ESRCH;
	/* An init stays one for its life: its group's pid keeps its numbers. */
	unkillable = rp_is_ns_init(self);
	/* One signal per round; ignored ones send us round again. */
	for (;;) {
		sh = rp_lock_task_sighand(self);
		if (!sh)
			return -ESRCH;
		/*
		 * As Linux's get_signal: a SIGCONT's notice first, but after
		 * an event's stop, which Linux makes in the call just made.
		 */
		if (rp_jobctl_notice_pending(self) && !rp_ptrace_event_pending(self)) {
			rp_jobctl_notify(self, sh);
			continue;
		}
		if (fatal_pending(self, &sig))
			break;
		if (rp_ptrace_trap_pending(self)) {	/* an event, a group stop, INTERRUPT */
			rp_unlock_sighand(sh);
			if (rp_ptrace_trap(self) < 0)
				return -ESRCH;
			continue;
		}
		if (rp_jobctl_stop_pending(self)) {
			rp_jobctl_stop(self, sh);
			continue;
		}
		timer_sigq = NULL;
		sig = dequeue_signal(self, &si, &timer_sigq);
		if (!sig) {
			rp_unlock_sighand(sh);
			rp_sync_quiescent();
			return 0;
		}
		if (rp_sig_kernel_stop(sig))	/* a SIGCONT from now on cancels its stop */
			self->jobctl |= RP_JOBCTL_STOP_DEQUEUED;
		if (timer_sigq) {
			/* The timer's lock ranks before the siglock (Linux drops it too). */
			rp_unlock_sighand(sh);
			if (!rp_cputimers_deliver(self, timer_sigq, &si))
				continue;	/* an older setting's signal: dropped */
			sh = rp_lock_task_sighand(self);
			if (!sh)
				return -ESRCH;
		}
		/* SIGKILL never gets here: fatal_pending took it. */
		if (self->ptrace & RP_PT_PTRACED) {
			sig = ptrace_filter(self, &sh, sig, &si);
			if (sig < 0)
				return -ESRCH;
			if (!sig) {
				rp_unlock_sighand(sh);
				continue;
			}
		}
		ka = rp_sighand_action(sh, sig);
		if (rp_sig_handler_ignored(ka, sig)) {
			rp_unlock_sighand(sh);
			continue;
		}
		if (ka->handler != SIG_DFL) {
			/* A handler is installed: the table is private, no copy to fail. */
			if (ka->flags & SA_RESETHAND)
				rp_sighand_action_write(sh, sig)->handler = SIG_DFL;
			rp_unlock_sighand(sh);
			if (info)
				*info = si;
			rp_sync_quiescent();
			return sig;
		}
		/*
		 * An init takes a default action only for SIGSTOP (forced on it
		 * from an ancestor namespace): one queued while it blocked the
		 * signal is dropped now (Linux's SIGNAL_UNKILLABLE in get_signal).
		 */
		if (unkillable && !rp_sig_kernel_only(sig)) {
			rp_unlock_sighand(sh);
			continue;
		}
		if (rp_sig_kernel_stop(sig)) {
			rp_do_signal_stop(self, sh, sig);
			continue;
		}
		if (core_dumped(self, sig))
			sig |= 0x80;
		break;		/* terminate, or core */
	}
	rp_unlock_sighand(sh);
	rp_do_group_exit(self, sig);
	rp_sync_quiescent();	/* after the exit's frees (docs/sync.md) */
	return -ESRCH;
}
