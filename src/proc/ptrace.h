/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ptrace links: the calls other subsystems make. */
#ifndef RP_PROC_PTRACE_H
#define RP_PROC_PTRACE_H

#include "../task/task.h"

/*
 * A traced @t dequeued @sig in rp_get_signal (@sig 0: PTRACE_INTERRUPT's
 * trap): stop for the tracer, report it, sleep until resumed.  Returns the
 * signal to deliver now, 0 if the tracer cancelled it or @t was killed
 * meanwhile (rp_get_signal's next round takes the kill), -ESRCH only if @t
 * was released.  @info, the signal's siginfo, is the stop's for
 * PTRACE_GETSIGINFO/SETSIGINFO, and is rewritten as from the tracer if the
 * tracer changed the signal.
 */
int rp_ptrace_signal_stop(struct rp_task *t, int sig, siginfo_t *info);

/*
 * Has @t a trap to stop for (siglock held): an event, PTRACE_INTERRUPT's,
 * its group stop's, or a seized tracee's notice of a SIGCONT?  The first,
 * an event of the call just made?
 */
bool rp_ptrace_trap_pending(const struct rp_task *t);
bool rp_ptrace_event_pending(const struct rp_task *t);

/*
 * Is @t killed, so that it must not stop or stop no longer (siglock
 * held)?  A tracee in its ptrace stop that a SIGKILL woke is no longer
 * stopped for its tracer, though it has not yet run to leave the stop:
 * Linux's signal_wake_up clears JOBCTL_TRACED at the kill.  The _seen
 * form reads the same words without the siglock (under RCU): wait's
 * judgement, which it makes again under the siglock before it consumes.
 */
bool rp_ptrace_stop_killed(struct rp_task *t);
bool rp_ptrace_stop_killed_seen(struct rp_task *t);

/*
 * @t returns to user space with a trap pending: stop for it (an event's
 * report, a group stop's, or PTRACE_EVENT_STOP) until resumed.  0, or
 * -ESRCH if @t was released.
 */
int rp_ptrace_trap(struct rp_task *t);

/*
 * @t begins to exit with wait status @code: if its tracer asked for
 * PTRACE_EVENT_EXIT, stop for it (message: @code) until resumed, even in
 * a dying group; only a SIGKILL of its own ends or skips the stop.
 */
void rp_ptrace_exit_stop(struct rp_task *t, int code);

/* The credentials a ptrace access check reads (Linux's PTRACE_MODE_*). */
enum rp_ptrace_mode {
	/* PTRACE_MODE_ATTACH_REALCREDS: the caller's real uid and permitted capabilities. */
	RP_PTRACE_ATTACH_REALCREDS,
	/* PTRACE_MODE_READ_FSCREDS: its fs uid (its euid here) and effective capabilities. */
	RP_PTRACE_READ_FSCREDS,
};

/*
 * May @self reach @t with @mode (Linux's __ptrace_may_access and commoncap's
 * cap_ptrace_access_check)?  A thread of its own group, always; else with
 * CAP_SYS_PTRACE, or if @t's uid, euid and suid are all the caller's uid,
 * @t's permitted capabilities are all among the caller's, and @t is
 * dumpable.  In a read section (or the update lock held).
 */
bool rp_ptrace_may_access(struct rp_task *self, struct rp_task *t, enum rp_ptrace_mode mode);

/* Report @event (PTRACE_EVENT_*) with @message at @t's next return to user space. */
void rp_ptrace_event(struct rp_task *t, int event, unsigned long message);

/*
 * Before new @child of @self is linked (update lock held, the child not yet
 * published): if it will start traced (rp_ptrace_init_task), give it its
 * ptrace part.  0, or -ENOMEM: the fork fails.
 */
int rp_ptrace_prepare_child(struct rp_task *self, struct rp_task *child, unsigned long clone_flags);

/*
 * New @child of @self: traced by @self's tracer for CLONE_PTRACE or a
 * traced fork event, which @self then reports (update lock held).
 */
void rp_ptrace_init_task(struct rp_task *self, struct rp_task *child, unsigned long clone_flags);

/* Unlink tracee @t from its tracer (update lock held). */
void rp_ptrace_unlink(struct rp_task *t);

/* Detach every tracee of exiting @tracer (update lock held). */
void rp_exit_ptrace(struct rp_task *tracer);

#endif /* RP_PROC_PTRACE_H */
