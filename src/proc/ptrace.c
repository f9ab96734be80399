/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrace(2): tracer/tracee links and ptrace stops, as Linux's
 * kernel/ptrace.c and ptrace_stop.
 *
 * Links (Group 3).  A tracee's entry is on its tracer's ->ptraced, both in
 * their tasks' ptrace parts (struct rp_ptrace_part, allocated and published
 * by the first attach on either side, ptrace_part), attached at the head
 * with rp_owned_add_pub (owner: the tracer task) and detached with
 * rp_owned_del_pub, which marks it obsolete before anything else changes,
 * so that wait's retry walk of one tracer's list restarts instead of
 * following a moved tracee onto another tracer's list (I4, I3).
 *
 * Stops.  A traced task that dequeues a signal stops: RP_JOBCTL_TRACED and
 * the signal in ->exit_code, under its siglock.  Its tracer's wait reports
 * it (and clears exit_code); PTRACE_CONT and PTRACE_DETACH put the signal
 * to deliver in exit_code, clear RP_JOBCTL_TRACED and wake it, as Linux's
 * ptrace_resume.  The tracee sleeps on its own wait queue (rp_task_waitq).
 *
 * Options and events (Linux's ptrace_setoptions, ptrace_event).  The
 * PTRACE_O_* options sit in ->ptrace above the flags, as Linux's.  A fork,
 * clone or exec that an option traces queues its event on the caller
 * (its part's ->event and ->message, under its siglock) and the caller
 * stops for it at its next return to user space (rp_get_signal), which
 * follows the call at once: Linux stops at the end of the system call, and
 * nothing the task does comes between.  The traced fork's child starts
 * traced by the same tracer (auto-attach).
 *
 * Group stops (Linux's do_jobctl_trap).  A traced thread takes its part in
 * a group stop in a trap its tracer reports: the stop signal, with no
 * siginfo, for a tracer of PTRACE_ATTACH; PTRACE_EVENT_STOP with the stop
 * signal for one of PTRACE_SEIZE.  PTRACE_CONT ends the trap, not the group
 * stop, and the signal it names is dropped.  A seized tracee traps again
 * (PTRACE_EVENT_STOP, SIGTRAP once the group runs) when SIGCONT comes.
 * PTRACE_LISTEN leaves a seized tracee in its PTRACE_EVENT_STOP trap but
 * out of its tracer's sight until such a notice, or PTRACE_INTERRUPT,
 * makes it trap again (Linux's JOBCTL_LISTENING).
 *
 * Notices (Linux's do_notify_parent_cldstop(current, true, why)).  Each
 * stop tells its tracer: CLD_STOPPED for a trap of job control, with the
 * group's stop signal or 0, CLD_TRAPPED for a signal's or an event's stop.
 * The tracer is the link's owner when the tracee tells (rp_tracer_rcu):
 * a tracer that exited meanwhile is told nothing, and neither is the real
 * parent its exit handed the tracee back to.  From entering the stop
 * until it has told, the tracee is RP_JOBCTL_TRAPPING, and its tracer's
 * requests wait (Linux's wait_task_inactive), as does an attach that made
 * a stopped task trap (Linux's JOBCTL_TRAPPING), with no lock held.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include "ptrace.h"
#include "exit.h"
#include "../signal/signal.h"
#include "../debug/racepoint.h"

/* The status of an event's stop, as Linux reports it to wait. */
#define EVENT_CODE(event)	(SIGTRAP | ((event) << 8))

_Static_assert(RP_PT_EXITKILL == PTRACE_O_EXITKILL << RP_PT_OPT_SHIFT, "ptrace option layout");

/*
 * The options rcuproc implements or that cannot apply: TRACESYSGOOD marks
 * syscall stops, VFORK and VFORKDONE need CLONE_VFORK, TRACESECCOMP a
 * seccomp filter, and rcuproc has none of them, so no such stop comes, as
 * on Linux without them.  SUSPEND_SECCOMP is not provided.
 */
#define OPTIONS_PROVIDED	(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | \
				 PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC |			\
				 PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXIT |		\
				 PTRACE_O_TRACESECCOMP | PTRACE_O_EXITKILL)

/* Linux's check_ptrace_options: -EINVAL for a bit it does not know, or one not provided. */
static int check_options(unsigned long options)
{
	return options & ~(unsigned long)OPTIONS_PROVIDED ? -EINVAL : 0;
}

/* A new part of @t, not yet published: its back pointer, its lists empty. */
static void part_init(struct rp_ptrace_part *pt, struct rp_task *t)
{
	pt->task = t;
	CDS_INIT_LIST_HEAD(&pt->ptraced);
	CDS_INIT_LIST_HEAD(&pt->entry.node);
}

/*
 * @t's ptrace part, allocated, initialised and then published if @t has
 * none yet (the update side held, exclusive or shared); NULL on ENOMEM.
 * Under the gate shared two attaches may make one task's part at once,
 * holding no lock in common (X attaching @t holds T of X and of @t's real
 * parent, @t attaching a tracee of its own holds T of @t): the first
 * compare-and-swap from NULL publishes, the other frees its own unseen
 * part and takes the winner's.  RP_BREAK_PTRACE_PART_EARLY publishes it
 * before it is initialised: a reader of the tracer's list in that window
 * walks a list head of zeroes.  RP_BREAK_PTRACE_PART_STORE publishes by a
 * plain store: the second attach replaces the first's part and its links.
 */
static struct rp_ptrace_part *ptrace_part(struct rp_task *t)
{
	struct rp_ptrace_part *pt = rcu_dereference(t->ptrace_part);

	RP_DEBUG_BUG_ON(!rp_update_section_here(&t->sys->sync));
	if (pt)
		return pt;
	pt = rp_ptrace_part_alloc();
	if (!pt)
		return NULL;
#ifdef RP_BREAK_PTRACE_PART_EARLY
	rcu_assign_pointer(t->ptrace_part, pt);
	RP_RACE_POINT(RP_RACE_PTRACE_PART, t);
	part_init(pt, t);
#else
	part_init(pt, t);
	RP_RACE_POINT(RP_RACE_PTRACE_PART, t);
#ifdef RP_BREAK_PTRACE_PART_STORE
	rcu_assign_pointer(t->ptrace_part, pt);
#else
	/*
	 * Whole before it is seen, and once: the compare-and-swap is a full
	 * barrier, which pairs with rcu_dereference in rp_tracer_rcu and
	 * wait's walk (the part's set-up before the pointer), and with the
	 * winner's (its part's set-up before our use of it).
	 */
	struct rp_ptrace_part *old = uatomic_cmpxchg(&t->ptrace_part, NULL, pt);

	if (old) {
		rp_free(pt);	/* never seen */
		return old;
	}
#endif
#endif
	return pt;
}

/*
 * Is @t a process's leader and its only thread?  A thread's clone counts
 * its thread under T of @t's real parent, which an attach or a detach
 * holds, so it stays one while they do, and none of its threads' exits
 * or exec's leader switch can come: protocol (f)'s T locks are enough.
 * Any other tracee's attach or detach takes G of its group first
 * (request_locked), which every writer of a thread's links under the
 * gate shared holds.
 */
static bool link_plain(const struct rp_task *t)
{
	return rp_thread_group_leader(t) && CMM_LOAD_SHARED(t->signal->nr_threads) == 1;
}

/*
 * Make @tracer trace @t, a task not yet a zombie (update lock held, or T
 * of @tracer and of @t's real parent, after G of @t's group unless @t is
 * plain or the caller: protocol (f)): Linux's ptrace_link.
 * The parts of both first, then the links: -ENOMEM with nothing linked.
 * ->ptrace last, under @t's siglock: a stop that sees it finds the link's
 * owner set (rp_tracer_rcu), as the siglock orders them.
 */
static int ptrace_link(struct rp_task *t, struct rp_task *tracer, unsigned int flags)
{
	struct rp_ptrace_part *tracer_pt = ptrace_part(tracer), *pt;
	struct rp_sighand *sh;

	rp_assert_tree_write(t->sys, tracer);
	rp_assert_tree_write(t->sys, t->real_parent);
	pt = tracer_pt ? ptrace_part(t) : NULL;
	if (!pt)
		return -ENOMEM;
	CMM_STORE_SHARED(t->parent, tracer);
	/* At the head (Group 3): see rp_owned_add_pub. */
	rp_owned_add_pub(&pt->entry, &tracer_pt->ptraced, tracer);
	/*
	 * Never NULL: @t is no zombie, and its death is set under T of its
	 * real parent, held here, or, for a thread, under G of its group,
	 * held too if @t has other threads (request_locked), or under the
	 * update lock; or @t is the caller (PTRACE_TRACEME).
	 */
	sh = rp_lock_task_sighand(t);
	t->ptrace = flags;	/* (u, s): senders read it under the siglock */
	rp_unlock_sighand(sh);
	return 0;
}

/*
 * @t has told of the ptrace stop it entered, or gives it up (siglock held):
 * wake its tracer, which may wait for that (await_trap).
 */
static void end_trapping(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	if (!(t->jobctl & RP_JOBCTL_TRAPPING))
		return;
	t->jobctl &= ~RP_JOBCTL_TRAPPING;
	rp_waitq_wake(rp_task_waitq(t));
}

void rp_ptrace_unlink(struct rp_task *t)
{
	struct rp_sighand *sh;

	/* The old parent and the new (protocol (f)), or the update lock. */
	rp_assert_tree_write(t->sys, t->parent);
	rp_assert_tree_write(t->sys, t->real_parent);
	if (!t->ptrace)
		return;
	/* Obsolete first, then the links: wait's walk on @t restarts. */
	rp_owned_del_pub(&t->ptrace_part->entry);
	CMM_STORE_SHARED(t->parent, t->real_parent);
	sh = rp_lock_task_sighand(t);
	t->ptrace = 0;
	if (!sh)
		return;		/* released: nobody sends to it any more */
	t->jobctl &= ~(RP_JOBCTL_TRAP_STOP | RP_JOBCTL_TRAP_NOTIFY);
	end_trapping(t);	/* nobody to tell */
	t->ptrace_part->event = 0;	/* no tracer to report it to */
	/*
	 * A group stop in effect takes it back, uncounted: it took its part in
	 * a trap, or will (Linux's __ptrace_unlink).  A stopped tracee resumes
	 * with the signal in exit_code, and then stops in the group.
	 */
	if (!(t->flags & RP_PF_EXITING) &&
	    ((t->signal->flags & RP_SIGNAL_STOP_STOPPED) || t->signal->group_stop_count)) {
		t->jobctl |= RP_JOBCTL_STOP_PENDING;
		if (!t->stop_signr)
			t->stop_signr = SIGSTOP;	/* a thread born in the stop */
	}
	if (t->jobctl & (RP_JOBCTL_TRACED | RP_JOBCTL_STOP_PENDING)) {
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
	struct rp_ptrace_part *pt, *tmp;
	struct rp_task *t;

	rp_assert_update_held(&tracer->sys->sync);
	if (!tracer->ptrace_part)
		return;		/* never traced anything */
	/* _safe: each detach unlinks the entry it stands on (update lock held). */
	cds_list_for_each_entry_safe(pt, tmp, &tracer->ptrace_part->ptraced, entry.node) {
		t = pt->task;
		if (t->ptrace & RP_PT_EXITKILL)
			rp_send_signal(t, SIGKILL, NULL, false);
		detach_on_exit(tracer, t);
	}
}

/*
 * Queue @event with @message on @t for its next return to user space, if
 * its tracer asked for it (Linux's ptrace_event).  Else an exec of a task
 * traced by PTRACE_ATTACH or TRACEME sends it SIGTRAP (the legacy report).
 */
void rp_ptrace_event(struct rp_task *t, int event, unsigned long message)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	bool legacy;

	if (!sh)
		return;
	legacy = event == PTRACE_EVENT_EXEC &&
		 (t->ptrace & (RP_PT_PTRACED | RP_PT_SEIZED)) == RP_PT_PTRACED;
	if (t->ptrace & RP_PT_EVENT_FLAG(event)) {
		t->ptrace_part->event = event;
		t->ptrace_part->message = message;
		legacy = false;
	}
	rp_unlock_sighand(sh);
	if (legacy)
		rp_send_signal(t, SIGTRAP, NULL, false);
}

/* Linux's kernel_clone: the event a fork reports (no CLONE_VFORK here), 0 if not traced. */
static int fork_event(const struct rp_task *self, unsigned long clone_flags)
{
	int event = (clone_flags & CSIGNAL) == SIGCHLD ? PTRACE_EVENT_FORK : PTRACE_EVENT_CLONE;

	return self->ptrace & RP_PT_EVENT_FLAG(event) ? event : 0;
}

/* Does a new child of @self start traced (update lock held)?  rp_ptrace_init_task's question. */
static bool inherits_tracing(const struct rp_task *self, unsigned long clone_flags)
{
	rp_assert_update_held(&self->sys->sync);
	return self->ptrace && ((clone_flags & CLONE_PTRACE) || fork_event(self, clone_flags));
}

int rp_ptrace_prepare_child(struct rp_task *self, struct rp_task *child, unsigned long clone_flags)
{
	if (!inherits_tracing(self, clone_flags))
		return 0;
	/* The tracer has its own: it traces @self. */
	return ptrace_part(child) ? 0 : -ENOMEM;
}

/*
 * A new @child of traced @self starts traced by the same tracer, with the
 * same options, for CLONE_PTRACE or a traced fork event (Linux's
 * ptrace_init_task): stopped at once, by a SIGSTOP pending for a tracer of
 * PTRACE_ATTACH, by a trap (PTRACE_EVENT_STOP) for one of PTRACE_SEIZE.
 * The SIGSTOP has no siginfo, as Linux's sigaddset: it reads SI_USER from
 * pid 0.  Then @self reports the event with the child's tid.
 */
void rp_ptrace_init_task(struct rp_task *self, struct rp_task *child, unsigned long clone_flags)
{
	int event = fork_event(self, clone_flags);
	struct rp_sighand *sh;
	int err;

	if (!inherits_tracing(self, clone_flags))
		return;
	err = ptrace_link(child, self->parent, self->ptrace);
	RP_DEBUG_BUG_ON(err);	/* both parts are there: rp_ptrace_prepare_child */
	/* Published, so senders lock it too; never NULL: release needs the update lock. */
	sh = rp_lock_task_sighand(child);
	if (child->ptrace & RP_PT_SEIZED)
		child->jobctl |= RP_JOBCTL_TRAP_STOP;
	else
		child->pending.signal |= RP_SIGBIT(SIGSTOP);
	rp_unlock_sighand(sh);
	/* The new child as the tracer's namespace numbers it (ptrace_event_pid). */
	if (event)
		rp_ptrace_event(self, event,
				(unsigned long)rp_pid_nr_ns(child->pid, rp_task_pidns(self->parent)));
}

/*
 * Is @t killed, so that it must not stop or stop no longer (siglock held)?
 * In exit's PTRACE_EVENT_EXIT stop its group may be dying already (that is
 * why it exits): only a SIGKILL of its own counts there, as Linux's
 * __fatal_signal_pending (a thread another one's exit_group zapped).
 */
bool rp_ptrace_stop_killed_seen(struct rp_task *t)
{
	/* Each word written under the siglock: a load of it, or its value under it. */
	if (CMM_LOAD_SHARED(t->jobctl) & RP_JOBCTL_EXIT_TRAP)
		return CMM_LOAD_SHARED(t->pending.signal) & RP_SIGBIT(SIGKILL);
	return rp_fatal_signal_seen(t);
}

bool rp_ptrace_stop_killed(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	return rp_ptrace_stop_killed_seen(t);
}

/*
 * Has @t told of the ptrace stop it enters, or will it not stop (siglock
 * held)?  Until then its tracer does not act on it: Linux's attach waits
 * for JOBCTL_TRAPPING to clear and its requests for the tracee to be
 * asleep (wait_task_inactive), which is after it told.
 * RP_BREAK_NO_TRAP_WAIT answers yes at once.
 */
static bool stop_told(struct rp_task *t)
{
	rp_assert_siglock_held(t);
#ifdef RP_BREAK_NO_TRAP_WAIT
	return true;
#else
	return !(t->jobctl & RP_JOBCTL_TRAPPING) || rp_ptrace_stop_killed(t);
#endif
}

/* Is @info a PTRACE_EVENT_STOP trap's?  (NULL: a group stop's trap without one.) */
static bool event_stop_info(const siginfo_t *info)
{
	return info && info->si_code >> 8 == PTRACE_EVENT_STOP;
}

/*
 * Enter a ptrace stop with wait status @code and siginfo @info, which lives
 * in @t's frame until leave_stop (siglock held); false: no stop.  A group
 * stop's trap (@why CLD_STOPPED) takes @t's part in the stop unless SIGCONT
 * ended it meanwhile; *@gstop_done: that completed it.  *@status: the
 * notices' si_status, as Linux's do_notify_parent_cldstop: the group's
 * stop signal for CLD_STOPPED (0 if none: PTRACE_INTERRUPT's trap, a
 * SIGCONT's), the stop's signal for CLD_TRAPPED.
 */
static bool enter_stop(struct rp_task *t, int code, siginfo_t *info, int why, bool *gstop_done,
		       int *status)
{
	rp_assert_siglock_held(t);
	*gstop_done = false;
	if (!(t->ptrace & RP_PT_PTRACED) || rp_ptrace_stop_killed(t)) {
		end_trapping(t);	/* an attach's trap that will not come */
		return false;
	}
	if (why == CLD_STOPPED && (t->jobctl & RP_JOBCTL_STOP_PENDING))
		*gstop_done = rp_jobctl_participate(t);
	*status = (why == CLD_STOPPED ? t->signal->group_exit_code : code) & 0x7f;
	/*
	 * Any stop takes the place of a pending trap; an EVENT_STOP one tells
	 * all.  TRAPPING until the notices are sent (end_trapping).
	 */
	t->jobctl = (t->jobctl | RP_JOBCTL_TRACED | RP_JOBCTL_TRAPPING) & ~RP_JOBCTL_TRAP_STOP;
	if (event_stop_info(info))
		t->jobctl &= ~RP_JOBCTL_TRAP_NOTIFY;
	t->exit_code = code;
	t->ptrace_part->last_siginfo = info;
	return true;
}

/*
 * Tell of @t's stop (@why, @status; no lock held), as Linux's ptrace_stop:
 * its tracer, if a detach has not begun since @t stopped (then nobody is
 * told of the trap), and, if the stop completed a group stop
 * (@gstop_done), the real parent unless the tracer's notice is already
 * the real parent's group's.  The tracer hears CLD_STOPPED for a trap of
 * job control, CLD_TRAPPED for a signal's or an event's stop.
 */
static void notify_stop(struct rp_task *t, int why, int status, bool gstop_done)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_task *tracer;

	rp_read_lock(sync);
#ifdef RP_BREAK_NOTICE_TO_PARENT
	/* ->parent: after a detach, the real parent.  Pairs with unlink's store. */
	tracer = rcu_dereference(t->parent);
#else
	tracer = rp_tracer_rcu(t);
#endif
	if (tracer)
		rp_send_cldstop_rcu(tracer, t->pid, t->cred->uid, why, status);
	/* Pairs with the real_parent stores of reparenting. */
	if (gstop_done && (!tracer || !rp_same_thread_group(tracer, rcu_dereference(t->real_parent))))
		rp_notify_parent_cldstop(t, CLD_STOPPED, status);
	rp_read_unlock(sync);
}

/*
 * Leave the stop (siglock held): the signal the tracer chose (exit_code),
 * or 0 if @t is dying (rp_get_signal's next round takes the kill) or the
 * stop was a trap (an event or PTRACE_INTERRUPT: no signal to deliver).
 */
static int leave_stop(struct rp_task *t, bool trap)
{
	int sig = t->exit_code;

	rp_assert_siglock_held(t);
	t->exit_code = 0;
	t->ptrace_part->last_siginfo = NULL;	/* the tracer reads it only while TRACED */
	t->jobctl &= ~RP_JOBCTL_LISTENING;
	if (rp_ptrace_stop_killed(t) || trap)
		sig = 0;
	t->jobctl &= ~RP_JOBCTL_TRACED;
	return sig;
}

/*
 * Stop @t with wait status @code and siginfo @info (siglock @sh held,
 * dropped here) until resumed: Linux's ptrace_stop.  @why: CLD_TRAPPED,
 * or CLD_STOPPED for a group stop's trap, whose completion the real parent
 * is told of too unless it is the tracer.  Returns what leave_stop
 * returns, @code if there was no stop (@t untraced or dying; 0 for a
 * trap), -ESRCH only if @t was released.  A kill while stopped returns 0:
 * rp_get_signal then goes round again and its fatal check runs the group
 * exit.
 */
static int ptrace_stop(struct rp_task *t, struct rp_sighand *sh, int code, siginfo_t *info,
		       bool trap, int why)
{
	unsigned long seq;
	bool gstop_done;
	int status;
	bool stopped = enter_stop(t, code, info, why, &gstop_done, &status);

	rp_unlock_sighand(sh);
	if (!stopped)
		return trap ? 0 : code;
	RP_RACE_POINT(RP_RACE_PTRACE_NOTIFY, t);
	notify_stop(t, why, status, gstop_done);
	sh = rp_lock_task_sighand(t);
	if (!sh)
		return -ESRCH;
	end_trapping(t);
	rp_unlock_sighand(sh);
	for (;;) {
		/* Sampled before the check: CONT, DETACH and kills wake its queue after it. */
		seq = rp_waitq_seq(rp_task_waitq(t));
		sh = rp_lock_task_sighand(t);
		if (!sh)
			return -ESRCH;
		if (!(t->jobctl & RP_JOBCTL_TRACED) || rp_ptrace_stop_killed(t))
			break;
		rp_unlock_sighand(sh);
		rp_waitq_wait(rp_task_waitq(t), seq);
	}
	code = leave_stop(t, trap);
	rp_unlock_sighand(sh);
	return code;
}

/*
 * A signal the tracer changed comes from the tracer now: SI_USER, its tid
 * and real uid (Linux's ptrace_signal; its tracer when it resumes, the
 * real parent after a PTRACE_DETACH).  An unchanged one keeps its siginfo,
 * PTRACE_SETSIGINFO's if the tracer set one.
 */
static void rewrite_siginfo(struct rp_task *t, int sig, siginfo_t *info)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_task *tracer;

	if (!sig || sig == info->si_signo)
		return;
	rp_read_lock(sync);
	/* Pairs with the stores of ->parent in ptrace_link and rp_ptrace_unlink. */
	tracer = rcu_dereference(t->parent);
	rp_siginfo_init(info, sig, SI_USER, rp_task_tid(tracer), rp_task_cred_rcu(tracer)->uid);
	rp_read_unlock(sync);
}

int rp_ptrace_signal_stop(struct rp_task *t, int sig, siginfo_t *info)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);

	if (!sh)
		return -ESRCH;
	t->ptrace_part->message = 0;	/* a signal's stop has no event message */
	sig = ptrace_stop(t, sh, sig, info, false, CLD_TRAPPED);
	if (sig > 0)
		rewrite_siginfo(t, sig, info);
	return sig;
}

/* A trap's stop for @sig (siglock @sh held, dropped here): its own siginfo,
 * from @t itself, as Linux's ptrace_do_notify. */
static int event_stop(struct rp_task *t, struct rp_sighand *sh, int sig, int code, int why)
{
	siginfo_t info;

	rp_siginfo_init(&info, sig, code, rp_task_tid(t), t->cred->uid);
	return ptrace_stop(t, sh, code, &info, true, why);
}

/*
 * The trap of RP_JOBCTL_TRAP_STOP or _NOTIFY (siglock @sh held, dropped
 * here): Linux's do_jobctl_trap.  A seized tracee reports PTRACE_EVENT_STOP
 * with the stop signal while its group stops or is stopped, with SIGTRAP
 * otherwise (PTRACE_INTERRUPT, a SIGCONT); another reports the stop signal
 * alone, as a group stop's signal has no siginfo (GETSIGINFO: EINVAL).
 */
static int jobctl_trap(struct rp_task *t, struct rp_sighand *sh)
{
	const struct rp_signal *s = t->signal;
	int sig = t->stop_signr;

	rp_lockdep_assert_held_obj(sh);
	t->ptrace_part->message = 0;
	if (!(t->ptrace & RP_PT_SEIZED))
		return ptrace_stop(t, sh, sig, NULL, true, CLD_STOPPED);
	if (!s->group_stop_count && !(s->flags & RP_SIGNAL_STOP_STOPPED))
		sig = SIGTRAP;
	return event_stop(t, sh, sig, sig | (PTRACE_EVENT_STOP << 8), CLD_STOPPED);
}

bool rp_ptrace_event_pending(const struct rp_task *t)
{
	const struct rp_ptrace_part *pt = rp_task_ptrace_part(t);

	rp_assert_siglock_held(t);
	return pt && pt->event;
}

bool rp_ptrace_trap_pending(const struct rp_task *t)
{
	return rp_ptrace_event_pending(t) || (t->jobctl & (RP_JOBCTL_TRAP_STOP | RP_JOBCTL_TRAP_NOTIFY));
}

int rp_ptrace_trap(struct rp_task *t)
{
	struct rp_sighand *sh;
	int code;

	RP_RACE_POINT(RP_RACE_PTRACE_TRAP, t);
	sh = rp_lock_task_sighand(t);
	if (!sh)
		return -ESRCH;
	if (rp_ptrace_event_pending(t)) {
		/* First: Linux stops for it in the call.  Its message was set with it. */
		code = EVENT_CODE(t->ptrace_part->event);
		t->ptrace_part->event = 0;
		return event_stop(t, sh, SIGTRAP, code, CLD_TRAPPED);
	}
	if (t->jobctl & (RP_JOBCTL_TRAP_STOP | RP_JOBCTL_TRAP_NOTIFY))
		return jobctl_trap(t, sh);
	rp_unlock_sighand(sh);
	return 0;
}

void rp_ptrace_exit_stop(struct rp_task *t, int code)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);	/* @t runs: never NULL */

	if (!(t->ptrace & RP_PT_EVENT_FLAG(PTRACE_EVENT_EXIT))) {
		rp_unlock_sighand(sh);
		return;
	}
	t->ptrace_part->message = (unsigned long)code;
	t->jobctl |= RP_JOBCTL_EXIT_TRAP;
	event_stop(t, sh, SIGTRAP, EVENT_CODE(PTRACE_EVENT_EXIT), CLD_TRAPPED);
	sh = rp_lock_task_sighand(t);
	t->jobctl &= ~RP_JOBCTL_EXIT_TRAP;
	rp_unlock_sighand(sh);
}

bool rp_ptrace_may_access(struct rp_task *self, struct rp_task *t, enum rp_ptrace_mode mode)
{
	const struct rp_cred *c = self->cred, *tc;	/* its own: only it changes them */
	bool fs = mode == RP_PTRACE_READ_FSCREDS, dumpable;
	uid_t uid = fs ? c->euid : c->uid;
	uint64_t caps = fs ? c->caps : c->caps_permitted;

	rp_assert_read_section(&self->sys->sync);
	if (rp_same_thread_group(self, t))
		return true;
	if (rp_cred_capable(c, RP_CAP_SYS_PTRACE))
		return true;
#ifdef RP_BREAK_DUMPABLE_BEFORE_CREDS
	/* Broken: a flag older than the credentials read next. */
	dumpable = CMM_LOAD_SHARED(t->signal->dumpable);
	RP_RACE_POINT(RP_RACE_PTRACE_ACCESS, t);
	tc = rp_task_cred_rcu(t);
#else
	tc = rp_task_cred_rcu(t);
	RP_RACE_POINT(RP_RACE_PTRACE_ACCESS, t);
	/*
	 * The flag no older than the credentials (Linux's smp_rmb there): a
	 * change of identity clears it before it publishes the new ones, so
	 * new credentials come with their flag.  Pairs with rcu_assign_pointer
	 * in rp_commit_creds, after set_creds' store of the flag.
	 */
	cmm_smp_rmb();
	/* A snapshot, as Linux's get_dumpable(). */
	dumpable = CMM_LOAD_SHARED(t->signal->dumpable);
#endif
	return uid == tc->uid && uid == tc->euid && uid == tc->suid &&
	       !(tc->caps_permitted & ~caps) && dumpable;
}

/*
 * A new tracee stopped in a group stop leaves it for a trap that reports
 * the stop to its tracer (Linux's ptrace_attach, JOBCTL_TRAP_STOP), and
 * the attach waits until it has trapped and told (TRAPPING, await_trap):
 * the tracer's very next wait, WNOHANG too, sees the stop.
 */
static void trap_if_stopped(struct rp_task *t)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);

	if (!sh)
		return;
	if ((t->jobctl & RP_JOBCTL_STOPPED) && !rp_fatal_signal_pending(t) &&
	    !(t->flags & RP_PF_EXITING)) {
		t->jobctl = (t->jobctl & ~RP_JOBCTL_STOPPED) | RP_JOBCTL_TRAP_STOP |
			    RP_JOBCTL_TRAPPING;
		rp_signal_wake_up(t);
	}
	rp_unlock_sighand(sh);
}

/*
 * PTRACE_ATTACH and PTRACE_SEIZE (update lock held, or the gate shared and
 * T of @self and of @t's real parent: protocol (f)): Linux's ptrace_attach.
 */
static long attach(struct rp_task *self, struct rp_task *t, long request, void *addr,
		   void *data)
{
	unsigned long options = (unsigned long)data;
	unsigned int flags = RP_PT_PTRACED;
	int ret;

	rp_assert_tree_write(self->sys, self);
	rp_assert_tree_write(self->sys, t->real_parent);
	if (request == PTRACE_SEIZE) {
		if (addr || (options & ~(unsigned long)PTRACE_O_MASK))
			return -EIO;
		ret = check_options(options);
		if (ret)
			return ret;
		flags |= RP_PT_SEIZED | (unsigned int)(options << RP_PT_OPT_SHIFT);
	}
	if (rp_same_thread_group(self, t) ||
	    !rp_ptrace_may_access(self, t, RP_PTRACE_ATTACH_REALCREDS) ||
	    uatomic_read(&t->exit_state) || t->ptrace)
		return -EPERM;
	ret = ptrace_link(t, self, flags);
	if (ret)
		return ret;
	if (request == PTRACE_ATTACH)
		rp_send_signal(t, SIGSTOP, NULL, false);
	trap_if_stopped(t);
	return 0;
}

static bool valid_signal(long sig)
{
	return sig >= 0 && sig < RP_NSIG;
}

/*
 * PTRACE_SETOPTIONS (siglock held, and the update lock or T of the tracer):
 * Linux's ptrace_setoptions.  The options alone change, in one store: a
 * reader of the flags under T of the real parent (a plain exit's move, a
 * plain reap's "untraced") sees them as they were.
 */
static long set_options(struct rp_task *t, unsigned long options)
{
	long ret = check_options(options);

	rp_assert_siglock_held(t);
	rp_assert_tree_write(t->sys, t->parent);
	if (!ret)
		CMM_STORE_SHARED(t->ptrace, (t->ptrace & ~(PTRACE_O_MASK << RP_PT_OPT_SHIFT)) |
					    (unsigned int)(options << RP_PT_OPT_SHIFT));
	return ret;
}

/*
 * PTRACE_LISTEN (siglock held): a seized tracee in a PTRACE_EVENT_STOP trap
 * listens, and traps again at once for a notice that came since the trap.
 */
static long listen(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	if (!(t->ptrace & RP_PT_SEIZED) || !event_stop_info(t->ptrace_part->last_siginfo))
		return -EIO;
	t->jobctl |= RP_JOBCTL_LISTENING;
	if (t->jobctl & RP_JOBCTL_TRAP_NOTIFY) {
		t->jobctl &= ~RP_JOBCTL_TRACED;
		rp_signal_wake_up(t);
	}
	return 0;
}

/* Internal: the tracee has not told of its stop yet; wait, then ask again. */
#define STOP_TELLING	(-EINPROGRESS)

/*
 * Is @t in a ptrace stop its tracer may act on (siglock held)?  -ESRCH if
 * it is not stopped, listens or is killed, as Linux's ptrace_check_attach
 * (whose ptrace_freeze_traced fails for a fatal signal), STOP_TELLING if
 * it has not told of the stop yet, else 0.
 */
static long check_stopped(struct rp_task *t)
{
	rp_assert_siglock_held(t);
	if ((t->jobctl & (RP_JOBCTL_TRACED | RP_JOBCTL_LISTENING)) != RP_JOBCTL_TRACED ||
	    rp_ptrace_stop_killed(t))
		return -ESRCH;
	return stop_told(t) ? 0 : STOP_TELLING;
}

/*
 * RP_BREAK_PTRACE_UNFROZEN checks the stop under one hold of the siglock
 * (in tracee_request, before the request's window) and makes the request
 * under another, without checking again: Linux without
 * ptrace_freeze_traced.  A kill in between is not seen, and the request
 * acts on a tracee that has left its stop, or is leaving it.
 */
#ifdef RP_BREAK_PTRACE_UNFROZEN
#define CHECK_STOPPED(t)	0L
#else
#define CHECK_STOPPED(t)	check_stopped(t)
#endif

/*
 * The change of a request on tracee @t, whose stop check_stopped accepted
 * in this hold of its siglock (held): LISTEN, CONT resumes it with signal
 * @data, DETACH leaves the signal @data to resume with, SETOPTIONS sets
 * the options @data, GETEVENTMSG stores the last event's message at @data
 * (0 after a stop that had none), GETSIGINFO and SETSIGINFO copy the
 * stop's siginfo to and from @data (it stays in the stopped task's frame
 * while RP_JOBCTL_TRACED, under this siglock).
 */
static long stopped_change(struct rp_task *t, long request, void *data)
{
	struct rp_ptrace_part *pt = t->ptrace_part;	/* traced: it has one */
	long sig = (long)(intptr_t)data;

	rp_assert_siglock_held(t);
	if (request == PTRACE_LISTEN)
		return listen(t);
	if (request == PTRACE_SETOPTIONS)
		return set_options(t, (unsigned long)data);
	if (request == PTRACE_GETEVENTMSG) {
		*(unsigned long *)data = pt->message;
		return 0;
	}
	if (request == PTRACE_GETSIGINFO || request == PTRACE_SETSIGINFO) {
		if (!pt->last_siginfo)
			return -EINVAL;	/* a group stop's trap of a tracee of PTRACE_ATTACH */
		if (request == PTRACE_GETSIGINFO)
			*(siginfo_t *)data = *pt->last_siginfo;
		else
			*pt->last_siginfo = *(const siginfo_t *)data;
		return 0;
	}
	if ((request != PTRACE_CONT && request != PTRACE_DETACH) || !valid_signal(sig))
		return -EIO;
	/* Pairs with CMM_LOAD_SHARED in wait's scan (a hint it reads again). */
	CMM_STORE_SHARED(t->exit_code, (int)sig);
	if (request == PTRACE_CONT) {
		t->jobctl &= ~RP_JOBCTL_TRACED;
		rp_signal_wake_up(t);
	}
	return 0;
}

/*
 * Requests on a tracee in a ptrace stop (the update lock held, or the gate
 * shared and T of the tracer; for PTRACE_DETACH protocol (f)'s locks):
 * check_stopped's answer, else stopped_change's, in one hold of the
 * siglock, so that the stop cannot end between the check and the change
 * (what Linux's ptrace_freeze_traced keeps); then a DETACH unlinks.
 */
static long stopped_request(struct rp_task *t, long request, void *data)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	long ret;

	RP_DEBUG_BUG_ON(!rp_update_section_here(&t->sys->sync));
	if (!sh)
		return -ESRCH;
	ret = CHECK_STOPPED(t);
	if (!ret)
		ret = stopped_change(t, request, data);
	rp_unlock_sighand(sh);
	if (!ret && request == PTRACE_DETACH) {
		RP_RACE_POINT(RP_RACE_PTRACE_DETACH_UNLINKS, t);
		rp_ptrace_unlink(t);
	}
	return ret;
}

/*
 * PTRACE_INTERRUPT: a seized tracee traps at its next rp_get_signal, one
 * that listens at once.  One in a trap stays in it, and traps again after
 * the request that ends it (Linux: "another trap will happen after the
 * current trap is ended with PTRACE_CONT"): the trap stays pending, as
 * the stop it is in took it at its entry (enter_stop).
 */
static long interrupt(struct rp_task *t)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	long ret = 0;

	if (!sh)
		return -ESRCH;
	if (!(t->ptrace & RP_PT_SEIZED)) {
		ret = -EIO;
	} else {
		t->jobctl |= RP_JOBCTL_TRAP_STOP;
		if (!(t->jobctl & RP_JOBCTL_TRACED) || (t->jobctl & RP_JOBCTL_LISTENING)) {
			t->jobctl &= ~RP_JOBCTL_TRACED;
			rp_signal_wake_up(t);
		}
	}
	rp_unlock_sighand(sh);
	return ret;
}

/*
 * The stop of @t checked under a hold of the siglock of its own, as
 * RP_BREAK_PTRACE_UNFROZEN does before the request's window: its answer.
 */
#ifdef RP_BREAK_PTRACE_UNFROZEN
static long check_stopped_early(struct rp_task *t, long request)
{
	struct rp_sighand *sh;
	long ret;

	if (request == PTRACE_KILL || request == PTRACE_INTERRUPT)
		return 0;
	sh = rp_lock_task_sighand(t);
	if (!sh)
		return -ESRCH;
	ret = check_stopped(t);
	rp_unlock_sighand(sh);
	return ret;
}
#endif

/*
 * A request on tracee @t of @self (update lock held, or the gate shared
 * and T of @self; PTRACE_DETACH: protocol (f)'s locks).  Linux's
 * ptrace_check_attach in two steps: the link, stable from here to the
 * end under T of @self, which each of its writers holds or else the gate
 * exclusive, which waits for us (a detach; the tracer's or the tracee's
 * exit, the claim of a traced zombie: docs/process.md, protocol (f),
 * "The other requests"); then the stop, checked under the tracee's
 * siglock in the same hold as the request's change (stopped_request).
 */
static long tracee_request(struct rp_task *self, struct rp_task *t, long request, void *data)
{
	RP_DEBUG_BUG_ON(!rp_update_section_here(&self->sys->sync));
	rp_assert_tree_write(self->sys, self);
	/* Read under T of @self: stable if @self is the tracer; else ESRCH either way. */
	if (!(CMM_LOAD_SHARED(t->ptrace) & RP_PT_PTRACED) || CMM_LOAD_SHARED(t->parent) != self)
		return -ESRCH;
#ifdef RP_BREAK_PTRACE_UNFROZEN
	long early = check_stopped_early(t, request);

	if (early)
		return early;
#endif
	RP_RACE_POINT(RP_RACE_PTRACE_REQUEST, t);
	switch (request) {
	case PTRACE_KILL:
		/* As Linux since 6.0: a SIGKILL, stopped or not. */
		rp_send_signal(t, SIGKILL, NULL, false);
		return 0;
	case PTRACE_INTERRUPT:
		return interrupt(t);
	default:
		return stopped_request(t, request, data);
	}
}

/*
 * Until @t (referenced) has entered its ptrace stop and told of it, or
 * will not stop (no lock held): after an attach, and before a request
 * made again.  @t's telling wakes its queue (end_trapping), and so does a
 * kill (rp_signal_wake_up), so that a tracee killed meanwhile does not
 * keep its tracer here.
 */
static void await_trap(struct rp_task *t)
{
	struct rp_sighand *sh;
	unsigned long seq;
	bool told;

	for (;;) {
		/* Sampled before the check: end_trapping and kills wake after it. */
		seq = rp_waitq_seq(rp_task_waitq(t));
		sh = rp_lock_task_sighand(t);
		if (!sh)
			return;		/* released: it stops no more */
		told = stop_told(t);
		rp_unlock_sighand(sh);
		if (told)
			return;
		RP_RACE_POINT(RP_RACE_PTRACE_AWAIT, t);
		rp_waitq_wait(rp_task_waitq(t), seq);
	}
}

/*
 * RP_BREAK_PTRACE_PARENT_UNLOCKED: a plain attach or detach trusts the
 * gate for T of the tracee's real parent (and tells the checker it took
 * it): an attach links a tracee whose plain exit, holding that T, has
 * judged it untraced, and PTRACE_TRACEME links its caller to a real
 * parent whose plain exit has judged itself no tracer.
 * RP_BREAK_PTRACE_NO_PARENT_RECHECK trusts the real
 * parent read before its T: a detach gives the tracee back to a parent
 * whose exit gave it to a reaper meanwhile.
 */
#ifdef RP_BREAK_PTRACE_PARENT_UNLOCKED
#define PARENT_LOCKED(self, o) ((o) == (self))
#else
#define PARENT_LOCKED(self, o) true
#endif
#ifdef RP_BREAK_PTRACE_NO_PARENT_RECHECK
#define PARENT_RECHECK false
#else
#define PARENT_RECHECK true
#endif

/*
 * RP_BREAK_PTRACE_TRACER_UNLOCKED: a request other than an attach or a
 * detach trusts the gate for T of the tracer (and tells the checker it
 * took it): the tracer's detach from another thread cuts the link
 * between the request's check and its change.
 */
#ifdef RP_BREAK_PTRACE_TRACER_UNLOCKED
#define TRACER_UNTAKEN	1U
#else
#define TRACER_UNTAKEN	0U
#endif

/* The locks of @s that the twin leaves untaken (rp_tree_lock_set's @untaken). */
static unsigned int link_untaken(const struct rp_task *self, const struct rp_lock_set *s)
{
	unsigned int untaken = 0;

	(void)self;	/* a broken twin's */
	for (unsigned int i = 0; i < s->n; i++)
		if (!PARENT_LOCKED(self, s->obj[i]))
			untaken |= 1U << i;
	return untaken;
}

static void unlock_link(struct rp_task *self, struct rp_lock_set *s)
{
	rp_tree_unlock_set(s, link_untaken(self, s));
}

/*
 * Protocol (f)'s locks for tracer @self and tracee @t (the gate shared, a
 * read section): T of @self and of @t's real parent, one lock if they are
 * one task, in increasing address (@s); @self NULL: PTRACE_TRACEME, whose
 * tracer is that real parent.  The real parent is read before its T, and
 * a plain exit of that parent may give @t to a reaper in between (under
 * that T): read again under it, and start over if it moved.
 */
static void lock_link(struct rp_task *self, struct rp_task *t, struct rp_lock_set *s)
{
	struct rp_task *parent;

	for (;;) {
		parent = rcu_dereference(t->real_parent);
		RP_RACE_POINT(RP_RACE_PTRACE_LINK_PARENT, t);
		s->n = 0;
		rp_tree_set_add(s, self ? self : parent);
		rp_tree_set_add(s, parent);
		rp_tree_lock_set(s, link_untaken(self, s));
		if (!PARENT_RECHECK || t->real_parent == parent)
			return;
		unlock_link(self, s);
	}
}

/*
 * T of tracer @self alone, for a request other than an attach or a detach
 * (the gate shared, a read section), in @s; what it leaves untaken (a
 * broken twin's) for rp_tree_unlock_set.
 */
static unsigned int lock_tracer(struct rp_task *self, struct rp_lock_set *s)
{
	s->n = 0;
	rp_tree_set_add(s, self);
	rp_tree_lock_set(s, TRACER_UNTAKEN);
	return TRACER_UNTAKEN;
}

/*
 * The update side of a request (it changes links or stops, so a read
 * section alone will not do): in rcu mode (@shared) the gate shared and
 * a read section, else the update lock.
 */
static void update_enter(struct rp_sync *sync, bool shared)
{
	if (shared) {
		rp_update_lock_shared(sync);
		rp_read_lock(sync);
	} else {
		rp_update_lock(sync);
	}
}

static void update_leave(struct rp_sync *sync, bool shared)
{
	if (shared) {
		rp_read_unlock(sync);
		rp_update_unlock_shared(sync);
	} else {
		rp_update_unlock(sync);
	}
	rp_sync_quiescent();
}

/*
 * RP_BREAK_PTRACE_THREAD_UNGROUPED: an attach or a detach of a tracee
 * that is not plain takes no G of its group (and tells the checker it
 * did): a thread's plain exit, which judged itself untraced under G, is
 * released while the attach links it.
 */
#ifdef RP_BREAK_PTRACE_THREAD_UNGROUPED
#define TAKES_GROUP false
#else
#define TAKES_GROUP true
#endif

/*
 * Protocol (f)'s locks for an attach or a detach of @t by @self (the gate
 * shared, a read section), in @s: G of @t's group first if @t is not
 * plain (link_plain), then lock_link's.  "Plain" is read before any lock;
 * a clone may give @t's process a second thread before T of its real
 * parent, so it is read again under that T, and the locks taken again
 * with G if it changed.  The group locked, or NULL.
 */
static struct rp_signal *lock_link_group(struct rp_task *self, struct rp_task *t,
					 struct rp_lock_set *s)
{
	struct rp_signal *sig = link_plain(t) ? NULL : t->signal;

	for (;;) {
		if (sig)
			rp_group_lock_if(sig, TAKES_GROUP);
		lock_link(self, t, s);
		if (sig || link_plain(t))
			return sig;
		unlock_link(self, s);
		sig = t->signal;
	}
}

/*
 * @request on @pid under the update lock, or, in rcu mode, the gate
 * shared and: for an attach or a detach, protocol (f)'s locks, G of the
 * tracee's group first unless it is plain (lock_link_group); for any
 * other request, T of @self, whatever the tracee's threads (the request
 * writes no link).  *@waitfor: NULL, or the tracee, referenced,
 * that the caller waits for with no lock held: the one it attached, or
 * the one that was still telling of its stop.
 */
static long request_locked(struct rp_task *self, long request, pid_t pid, void *addr,
			   void *data, struct rp_task **waitfor)
{
	struct rp_sync *sync = &self->sys->sync;
	bool attaching = request == PTRACE_ATTACH || request == PTRACE_SEIZE;
	bool link = attaching || request == PTRACE_DETACH;
	bool shared = sync->mode == RP_SYNC_RCU;
	struct rp_lock_set trees = { .n = 0 };
	struct rp_signal *group = NULL;
	unsigned int untaken = 0;
	struct rp_task *t;
	long ret;

	*waitfor = NULL;
	update_enter(sync, shared);
	t = rp_find_task_vnr_rcu(self, pid);
	if (t && shared && !link) {
		untaken = lock_tracer(self, &trees);
	} else if (t && shared) {
		group = lock_link_group(self, t, &trees);
		untaken = link_untaken(self, &trees);
	}
	if (!t)
		ret = -ESRCH;
	else if (attaching)
		ret = attach(self, t, request, addr, data);
	else
		ret = tracee_request(self, t, request, data);
	/* Found under the lock, or in the read section: the reference is taken. */
	if (((attaching && !ret) || ret == STOP_TELLING) && rp_task_get_rcu(t))
		*waitfor = t;
	rp_tree_unlock_set(&trees, untaken);	/* none in the exclusive case */
	if (group)
		rp_group_unlock_if(group, TAKES_GROUP);
	update_leave(sync, shared);
	return ret;
}

/*
 * Linux's cap_ptrace_traceme, commoncap's security_ptrace_traceme: may
 * @parent trace @self?  Yes if @self's permitted capabilities are among
 * @parent's, or @parent has CAP_SYS_PTRACE; else EPERM (read section).
 */
static bool traceme_allowed(struct rp_task *self, struct rp_task *parent)
{
	const struct rp_cred *c = self->cred;	/* its own: only it changes them */
	const struct rp_cred *pc = rp_task_cred_rcu(parent);

	return !(c->caps_permitted & ~pc->caps_permitted) ||
	       rp_cred_capable(pc, RP_CAP_SYS_PTRACE);
}

/*
 * PTRACE_TRACEME (Linux's ptrace_traceme): EPERM if @self is traced
 * already or its real parent P may not trace it (traceme_allowed); else
 * 0, and @self traced by P unless P exits, where Linux answers 0 too
 * ("pretend ->real_parent untraces us right after return").  Under the
 * update lock, or, in rcu mode, the gate shared, a read section and T of
 * P (lock_link, with P read again under it): docs/process.md, protocol
 * (f), "PTRACE_TRACEME".  Every writer of @self's links holds T of P or
 * the gate exclusive but @self's own exit, and @self runs.  P's exit
 * marks P exiting before it judges itself no tracer under its T: we come
 * before that judgement, which then finds @self on P's list and takes
 * the gate exclusive, or after it, and see the mark.
 */
static long traceme(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	bool shared = sync->mode == RP_SYNC_RCU;
	struct rp_lock_set trees = { .n = 0 };
	struct rp_task *parent;
	long ret = -EPERM;

	update_enter(sync, shared);
	if (shared)
		lock_link(NULL, self, &trees);
	parent = self->real_parent;
	if (!self->ptrace && traceme_allowed(self, parent)) {
		ret = 0;
		if (!(CMM_LOAD_SHARED(parent->flags) & RP_PF_EXITING) &&
		    !uatomic_read(&parent->exit_state))
			ret = ptrace_link(self, parent, RP_PT_PTRACED);
	}
	if (shared)
		unlock_link(NULL, &trees);
	update_leave(sync, shared);
	return ret;
}

long rp_ptrace(struct rp_task *self, long request, pid_t pid, void *addr, void *data)
{
	struct rp_task *waitfor;
	long ret;

	if (rp_task_exited(self))
		return -ESRCH;
	if (request == PTRACE_TRACEME)
		return traceme(self);
	do {
		ret = request_locked(self, request, pid, addr, data, &waitfor);
		if (waitfor) {
			await_trap(waitfor);
			rp_task_put(waitfor);
		}
	} while (ret == STOP_TELLING);
	return ret;
}
