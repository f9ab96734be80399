/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Job control, as Linux's kernel/signal.c: group stop, SIGCONT, and the
 * CLD_STOPPED / CLD_CONTINUED notices to the parent.  See docs/jobctl.md.
 *
 * Group stop.  The first thread to dequeue a stop signal with the default
 * action marks every live thread of its group RP_JOBCTL_STOP_PENDING and
 * counts them in group_stop_count; each thread, at its next rp_get_signal,
 * takes part: it uncounts itself, marks itself RP_JOBCTL_STOPPED and sleeps.
 * The thread that brings the count to zero marks the group
 * RP_SIGNAL_STOP_STOPPED (what wait's WUNTRACED reports) and tells the
 * parent.  All of it under the group's siglock.
 *
 * SIGCONT (rp_jobctl_prepare_signal_rcu, in the sender, siglock held) cancels
 * the stop: every thread loses STOP_PENDING and STOPPED and is woken, the
 * group is marked RP_SIGNAL_STOP_CONTINUED (WCONTINUED's report) and owes
 * its parent a notice, which the first thread to run rp_get_signal sends:
 * the sender holds a siglock and may not take the parent's.
 *
 * A traced thread takes its part as a ptrace stop its tracer reports: it
 * asks itself to trap (RP_JOBCTL_TRAP_STOP) and is counted in the trap,
 * and the tracer's PTRACE_CONT lets it run in the stopped group (Linux's
 * do_signal_stop and ptrace_stop).  A seized thread is told to trap again
 * when a group stop begins or SIGCONT ends one (Linux's ptrace_trap_notify).
 *
 * A dying group's stop is over: rp_zap_other_threads takes the other
 * threads' STOP_PENDING away and an exiting thread of a dying group does
 * not take part (rp_jobctl_exit), so nobody reports a stop the group will
 * never reach (Linux's zap_other_threads and exit_signals).
 *
 * RP_BREAK_STOP_EARLY lets the first thread to stop report the group
 * stopped while other threads still run.  RP_BREAK_EXIT_JOINS_STOP lets a
 * thread that dies in a group exit complete the group stop.
 */
#include <errno.h>
#include "signal.h"
#include "../debug/racepoint.h"
#include "../task/objects.h"


/* Take the signals of @mask off @p, a queue of @t's group, entries too (siglock held). */
static void flush_sigqueue_mask(struct rp_task *t, struct rp_sigpending *p, uint64_t mask)
{
	struct rp_sigqueue *q, *prev, *next;

	if (!(p->signal & mask))
		return;
	p->signal &= ~mask;
	rp_sigpending_for_each_safe(q, prev, next, p) {
		if (RP_SIGBIT(q->info.si_signo) & mask) {
			rp_sigpending_del(p, prev, q);
			rp_sigqueue_free_ignored(t, q);
		}
	}
}

void rp_flush_signals_rcu(struct rp_task *p, uint64_t mask)
{
	struct rp_task *t;

	rp_assert_read_section(&p->sys->sync);
	rp_assert_siglock_held(p);
	flush_sigqueue_mask(p, &p->signal->shared_pending, mask);
	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node)
		flush_sigqueue_mask(p, &t->pending, mask);
}

/* Linux's signal_set_stop_flags: the group's stop state becomes @flags. */
static void set_stop_flags(struct rp_signal *s, unsigned int flags)
{
	s->flags = (s->flags & ~RP_SIGNAL_STOP_MASK) | flags;
}

/* Wake @p's parent's wait(2): its WCONTINUED report is ready. */
static void wake_parent_waiters(struct rp_task *p)
{
	/* Pair with exec's leader switch, then with reparenting's real_parent stores. */
	struct rp_task *leader = rcu_dereference(p->group_leader);

	rp_wake_up_parent(rcu_dereference(leader->real_parent));
}

/*
 * Linux's ptrace_trap_notify: a seized @t traps to tell its tracer
 * (siglock held).  One that listens (PTRACE_LISTEN) leaves its stop for
 * the trap; one in another ptrace stop traps once resumed.
 */
static void trap_notify(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	t->jobctl |= RP_JOBCTL_TRAP_NOTIFY;
	if (t->jobctl & RP_JOBCTL_LISTENING)
		t->jobctl &= ~RP_JOBCTL_TRACED;
	rp_signal_wake_up(t);	/* one still TRACED rechecks and sleeps on */
}

/* SIGCONT resumes every thread of @p's group (siglock held, RCU or the update lock). */
static void continue_group(struct rp_task *p)
{
	struct rp_signal *s = p->signal;
	unsigned int why = 0;
	struct rp_task *t;

	rp_assert_read_section(&p->sys->sync);
	rp_assert_siglock_held(p);
	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &s->thread_head, thread_node) {
		t->jobctl &= ~(RP_JOBCTL_STOP_PENDING | RP_JOBCTL_STOP_DEQUEUED |
			       RP_JOBCTL_STOP_CONSUME);
		if (t->ptrace & RP_PT_SEIZED)
			trap_notify(t);
		if (t->jobctl & RP_JOBCTL_STOPPED) {
			t->jobctl &= ~RP_JOBCTL_STOPPED;
			rp_signal_wake_up(t);
		}
	}
	if (s->flags & RP_SIGNAL_STOP_STOPPED)
		why = RP_SIGNAL_CLD_CONTINUED;
	else if (s->group_stop_count)
		why = RP_SIGNAL_CLD_STOPPED;
	if (!why)
		return;
	set_stop_flags(s, why | RP_SIGNAL_STOP_CONTINUED);
	s->group_stop_count = 0;
	s->group_exit_code = 0;
	wake_parent_waiters(p);
}

void rp_jobctl_prepare_signal_rcu(struct rp_task *p, int sig)
{
	rp_assert_read_section(&p->sys->sync);
	rp_assert_siglock_held(p);
	if (rp_sig_kernel_stop(sig)) {
		rp_flush_signals_rcu(p, RP_SIGBIT(SIGCONT));
	} else if (sig == SIGCONT) {
		rp_flush_signals_rcu(p, RP_SIG_STOP_MASK);
		continue_group(p);
	}
}

/*
 * The notice to @parent, whose sighand @psh is locked; unlocks it.  si_pid
 * is @pid as @parent's namespace numbers it, 0 if it has no number there.
 */
static void send_cldstop_locked(struct rp_task *parent, struct rp_sighand *psh,
				struct rp_pid *pid, uid_t uid, int why, int status)
{
	const struct rp_ksigaction *ka = rp_sighand_action(psh, SIGCHLD);
	siginfo_t info;

	rp_siginfo_init(&info, SIGCHLD, why, rp_pid_nr_ns(pid, rp_task_pidns(parent)), uid);
	info.si_status = status;
	if (ka->handler != SIG_IGN && !(ka->flags & SA_NOCLDSTOP))
		rp_send_signal_locked(parent, SIGCHLD, &info, true);
	rp_wake_up_parent(parent);
	rp_unlock_sighand(psh);
}

void rp_send_cldstop_rcu(struct rp_task *parent, struct rp_pid *pid, uid_t uid, int why,
			 int status)
{
	struct rp_sighand *psh = rp_lock_task_sighand_rcu(parent);

	if (psh)
		send_cldstop_locked(parent, psh, pid, uid, why, status);
}

/*
 * Tell the real parent of @self's group, led by @leader (read section
 * held); returns it.  A parent thread released before the notice took its
 * siglock had given its children to another parent first, which the lock
 * modes' readers, who exclude both, would have told: so tell that one.
 */
static struct rp_task *tell_real_parent_rcu(struct rp_task *self, struct rp_task *leader,
					    int why, int status)
{
	struct rp_task *parent;
	struct rp_sighand *psh = rp_lock_followed_sighand_rcu(&leader->real_parent, &parent);

	if (psh)
		send_cldstop_locked(parent, psh, rp_signal_leader_pid(self->signal),
				    rp_task_cred_rcu(leader)->uid,
				    why, status);
	return parent;
}

void rp_notify_parent_cldstop(struct rp_task *self, int why, int status)
{
	struct rp_sync *sync = &self->sys->sync;

	rp_read_lock(sync);
	/* Pairs with exec's leader switch. */
	tell_real_parent_rcu(self, rcu_dereference(self->group_leader), why, status);
	rp_read_unlock(sync);
}

/*
 * A SIGCONT's notice (@why, @status) to the real parent of @self's group
 * and, as Linux's get_signal does for compatibility, to its leader's
 * tracer as well unless that is the real parent's group (no duplicate).
 * No lock held.
 */
static void notify_continued(struct rp_task *self, int why, int status)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_task *leader, *parent, *tracer;

	rp_read_lock(sync);
	/* Pairs with exec's leader switch. */
	leader = rcu_dereference(self->group_leader);
	parent = tell_real_parent_rcu(self, leader, why, status);
	tracer = rp_tracer_rcu(leader);
	if (tracer && !rp_same_thread_group(tracer, parent))
		rp_send_cldstop_rcu(tracer, leader->pid, rp_task_cred_rcu(leader)->uid,
				    why, status);
	rp_read_unlock(sync);
}

/* Linux's task_set_jobctl_pending: a thread about to die takes no part. */
static bool set_stop_pending(struct rp_task *t, int sig)
{
	if (rp_fatal_signal_pending(t) || (t->flags & RP_PF_EXITING))
		return false;
	t->jobctl |= RP_JOBCTL_STOP_PENDING | RP_JOBCTL_STOP_CONSUME;
	t->stop_signr = (int8_t)sig;
	return true;
}

bool rp_jobctl_participate(struct rp_task *t)
{
	struct rp_signal *s = t->signal;
	bool counted = t->jobctl & RP_JOBCTL_STOP_CONSUME;

	rp_assert_siglock_held(t);
	t->jobctl &= ~(RP_JOBCTL_STOP_PENDING | RP_JOBCTL_STOP_DEQUEUED | RP_JOBCTL_STOP_CONSUME);
	if (counted && s->group_stop_count)
		s->group_stop_count--;
#ifdef RP_BREAK_STOP_EARLY
	s->group_stop_count = 0;	/* the first thread to stop reports it */
#endif
	if (s->group_stop_count || (s->flags & RP_SIGNAL_STOP_STOPPED))
		return false;
	set_stop_flags(s, RP_SIGNAL_STOP_STOPPED);
	return true;
}

void rp_jobctl_join_group_stop(struct rp_task *self, struct rp_task *p)
{
	struct rp_signal *s = self->signal;

	rp_assert_siglock_held(self);
	if (s->group_stop_count) {
		s->group_stop_count++;
		p->jobctl |= RP_JOBCTL_STOP_PENDING | RP_JOBCTL_STOP_CONSUME;
	} else if (s->flags & RP_SIGNAL_STOP_STOPPED) {
		p->jobctl |= RP_JOBCTL_STOP_PENDING;
	} else {
		return;
	}
	p->stop_signr = self->stop_signr;
}

/*
 * Begin a group stop for @sig (read section held): every live thread gets
 * STOP_PENDING, unless a SIGCONT came since @self dequeued @sig (it cleared
 * STOP_DEQUEUED) or the group is dying or exec'ing.  True if @self is to stop.
 */
static bool begin_group_stop_rcu(struct rp_task *self, int sig)
{
	struct rp_signal *s = self->signal;
	struct rp_sighand *sh;
	struct rp_task *t;
	bool stop;

	rp_assert_read_section(&self->sys->sync);
	sh = rp_lock_task_sighand_rcu(self);
	if (!sh)
		return false;
	if (!(self->jobctl & RP_JOBCTL_STOP_PENDING) && (self->jobctl & RP_JOBCTL_STOP_DEQUEUED) &&
	    !(s->flags & RP_SIGNAL_GROUP_EXIT) && !rp_group_exec_task(self)) {
		/* A group already stopped keeps the signal it reported. */
		if (!(s->flags & RP_SIGNAL_STOP_STOPPED))
			s->group_exit_code = sig;
		s->group_stop_count = 0;
		/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
		cds_list_for_each_entry_rcu(t, &s->thread_head, thread_node) {
			if ((t->jobctl & RP_JOBCTL_STOPPED) || !set_stop_pending(t, sig))
				continue;
			s->group_stop_count++;
			if (t != self && (t->ptrace & RP_PT_SEIZED))
				trap_notify(t);
			else if (t != self)
				rp_signal_wake_up(t);
		}
	}
	stop = self->jobctl & RP_JOBCTL_STOP_PENDING;
	rp_unlock_sighand(sh);
	return stop;
}

/* Sleep stopped until SIGCONT or a fatal signal (zap_thread) clears RP_JOBCTL_STOPPED. */
static void sleep_stopped(struct rp_task *self)
{
	struct rp_sighand *sh;
	unsigned long seq;

	for (;;) {
		/* Sampled before the check: SIGCONT and kills wake its queue after their change. */
		seq = rp_waitq_seq(rp_task_waitq(self));
		RP_RACE_POINT(RP_RACE_STOP_LOOKS, self);
		sh = rp_lock_task_sighand(self);
		if (!sh)
			return;
		if (!(self->jobctl & RP_JOBCTL_STOPPED) || rp_fatal_signal_pending(self)) {
			self->jobctl &= ~RP_JOBCTL_STOPPED;
			rp_unlock_sighand(sh);
			return;
		}
		rp_unlock_sighand(sh);
		rp_waitq_wait(rp_task_waitq(self), seq);
	}
}

void rp_jobctl_stop(struct rp_task *self, struct rp_sighand *sh)
{
	int code = self->signal->group_exit_code;
	bool report;

	rp_lockdep_assert_held_obj(sh);
	if (self->ptrace & RP_PT_PTRACED)
		self->jobctl |= RP_JOBCTL_TRAP_STOP;
	if (!(self->jobctl & RP_JOBCTL_STOP_PENDING) || (self->ptrace & RP_PT_PTRACED)) {
		rp_unlock_sighand(sh);
		return;		/* SIGCONT came first, or the trap takes part */
	}
	report = rp_jobctl_participate(self);
	self->jobctl |= RP_JOBCTL_STOPPED;
	rp_unlock_sighand(sh);
	if (report)
		rp_notify_parent_cldstop(self, CLD_STOPPED, code & 0x7f);
	sleep_stopped(self);
}

void rp_do_signal_stop(struct rp_task *self, struct rp_sighand *sh, int sig)
{
	struct rp_sync *sync = &self->sys->sync;
	bool stop;

	rp_lockdep_assert_held_obj(sh);
	/* Signals may come meanwhile: begin_group_stop_rcu sees a SIGCONT by STOP_DEQUEUED. */
	rp_unlock_sighand(sh);
	if (sig != SIGSTOP && rp_current_pgrp_orphaned(self))
		return;		/* Linux: an orphaned group ignores the terminal's stops */
	rp_read_lock(sync);
	stop = begin_group_stop_rcu(self, sig);
	rp_read_unlock(sync);
	if (stop && (sh = rp_lock_task_sighand(self)))
		rp_jobctl_stop(self, sh);
}

bool rp_jobctl_notice_pending(const struct rp_task *self)
{
	rp_assert_siglock_held(self);
	return self->signal->flags & RP_SIGNAL_CLD_MASK;
}

void rp_jobctl_notify(struct rp_task *self, struct rp_sighand *sh)
{
	struct rp_signal *s = self->signal;
	int why;

	rp_lockdep_assert_held_obj(sh);
	/* As Linux: a stop cut short by SIGCONT is still told as CLD_STOPPED. */
	why = (s->flags & RP_SIGNAL_CLD_CONTINUED) ? CLD_CONTINUED : CLD_STOPPED;
	s->flags &= ~RP_SIGNAL_CLD_MASK;
	rp_unlock_sighand(sh);
	notify_continued(self, why, why == CLD_CONTINUED ? SIGCONT : 0);
}

bool rp_jobctl_stop_pending(const struct rp_task *self)
{
	rp_assert_siglock_held(self);
	return self->jobctl & RP_JOBCTL_STOP_PENDING;
}

/*
 * Does @t's group die (siglock held)?  Then its group stop is over, and no
 * exiting thread completes it: Linux's exit_signals returns early.
 */
static bool group_exiting(struct rp_task *t)
{
	rp_assert_siglock_held(t);
#ifdef RP_BREAK_EXIT_JOINS_STOP
	(void)t;
	return false;
#else
	return t->signal->flags & RP_SIGNAL_GROUP_EXIT;
#endif
}

void rp_jobctl_exit(struct rp_task *t)
{
	struct rp_sighand *sh;
	bool report = false;
	int code;

	/* Nobody sets it once RP_PF_EXITING is (set_stop_pending): clear stays clear. */
	if (!(CMM_LOAD_SHARED(t->jobctl) & RP_JOBCTL_STOP_PENDING))
		return;
	sh = rp_lock_task_sighand(t);
	if (!sh)
		return;
	code = t->signal->group_exit_code;
	if (group_exiting(t))
		t->jobctl &= ~(RP_JOBCTL_STOP_PENDING | RP_JOBCTL_STOP_DEQUEUED |
			       RP_JOBCTL_STOP_CONSUME);
	else
		report = (t->jobctl & RP_JOBCTL_STOP_PENDING) && rp_jobctl_participate(t);
	rp_unlock_sighand(sh);
	if (report)
		rp_notify_parent_cldstop(t, CLD_STOPPED, code & 0x7f);
}
