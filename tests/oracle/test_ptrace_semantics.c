/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrace(2) against Linux (invariant I8): a real tracer puppet and a real
 * tracee on this machine, then the same steps through rcuproc in each of
 * the three modes, compared step by step (tests/oracle/oracle.h).  A
 * stopped tracee answers nothing ("stopped: no answer") on either side
 * until its tracer resumes it.  Set RP_ORACLE_PRINT=1 to print every
 * answer.  The real side needs root; without it the tests skip.
 */
#include <sched.h>
#include <sys/ptrace.h>
#include "scenario.h"

/* ---- the scenarios (wait4 always gets WNOHANG added) ---- */

/* PTRACE_ATTACH stops the tracee with SIGSTOP, reported to the tracer's
 * wait; a signal stops it again; CONT delivers the signal it names,
 * DETACH with 0 drops it; requests on a running tracee fail (ESRCH). */
static const struct or_step attach_cont_detach[] = {
	FORK(P0, P1), SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	PTRACE(P0, PTRACE_ATTACH, S(P1), 0), WAIT4(P0, S(P1), 0), GETPID(P1),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), PTRACE(P0, PTRACE_CONT, S(P1), 0),
	KILL(P0, S(P1), SIGUSR1), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), SIGUSR1), SIGS(P1),
	KILL(P0, S(P1), SIGUSR1), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_DETACH, S(P1), 0), SIGS(P1), WAIT4(P0, S(P1), 0),
	EXIT(P1, 3), WAIT4(P0, S(P1), 0),
	END };

/* Options: unknown bits EIO for SEIZE, EINVAL for SETOPTIONS; SETOPTIONS
 * and GETEVENTMSG want a stopped tracee (ESRCH), and a signal's stop has
 * no event message. */
static const struct or_step options_errors[] = {
	FORK(P0, P1), PTRACE(P0, PTRACE_SEIZE, S(P1), 0x20000000),
	PTRACE(P0, PTRACE_SETOPTIONS, S(P1), PTRACE_O_TRACEFORK),
	PTRACE(P0, PTRACE_ATTACH, S(P1), 0), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_SETOPTIONS, S(P1), 0x20000000),
	PTRACE(P0, PTRACE_SETOPTIONS, S(P1), PTRACE_O_TRACEFORK | PTRACE_O_TRACESYSGOOD),
	PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0), PTRACE(P0, PTRACE_CONT, S(P1), 0),
	PTRACE(P0, PTRACE_SETOPTIONS, S(P1), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* TRACEFORK with PTRACE_ATTACH: the fork stops its caller with
 * PTRACE_EVENT_FORK (the message: the child's pid) before it returns; the
 * child starts traced by the same tracer, stopped by a SIGSTOP; the
 * tracer, not its parent, sees its exit first, and the parent's SIGCHLD
 * stops the traced parent. */
static const struct or_step fork_event_attach[] = {
	FORK(P0, P1), PTRACE(P0, PTRACE_ATTACH, S(P1), 0), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_SETOPTIONS, S(P1), PTRACE_O_TRACEFORK),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), FORK(P1, P2), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0), WAIT4(P0, S(P2), 0), GETPPID(P2),
	PTRACE(P0, PTRACE_GETEVENTMSG, S(P2), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), PTRACE(P0, PTRACE_CONT, S(P2), 0),
	GETPPID(P2), EXIT(P2, 4), WAIT4(P1, S(P2), 0), WAIT4(P0, S(P2), 0),
	WAIT4(P1, S(P2), 0),
	END };

/* TRACECLONE with PTRACE_SEIZE: a clone whose exit signal is not SIGCHLD
 * reports PTRACE_EVENT_CLONE, a plain fork nothing (TRACEFORK is off); the
 * new child of a seizing tracer traps with PTRACE_EVENT_STOP instead. */
static const struct or_step clone_event_seize[] = {
	FORK(P0, P1), PTRACE(P0, PTRACE_SEIZE, S(P1), PTRACE_O_TRACECLONE),
	FORK(P1, P2), WAIT4(P0, S(P2), 0), CLONE(P1, P3, SIGUSR1),
	WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0),
	WAIT4(P0, S(P3), __WCLONE), PTRACE(P0, PTRACE_GETEVENTMSG, S(P3), 0),
	PTRACE(P0, PTRACE_CONT, S(P3), 0), PTRACE(P0, PTRACE_CONT, S(P1), 0),
	GETPPID(P3), EXIT(P3, 0), WAIT4(P0, S(P3), __WCLONE), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), WAIT4(P1, S(P3), __WCLONE),
	END };

/* TRACEEXEC: exec stops with PTRACE_EVENT_EXEC (the message: the former
 * tid); without it a tracee of PTRACE_ATTACH gets a SIGTRAP, one of
 * PTRACE_SEIZE nothing. */
static const struct or_step exec_event[] = {
	FORK(P0, P1), PTRACE(P0, PTRACE_SEIZE, S(P1), PTRACE_O_TRACEEXEC), EXEC(P1),
	WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), GETPID(P1),
	FORK(P0, P2), PTRACE(P0, PTRACE_ATTACH, S(P2), 0), WAIT4(P0, S(P2), 0),
	PTRACE(P0, PTRACE_CONT, S(P2), 0), EXEC(P2), WAIT4(P0, S(P2), 0),
	PTRACE(P0, PTRACE_CONT, S(P2), 0),
	FORK(P0, P3), PTRACE(P0, PTRACE_SEIZE, S(P3), 0), EXEC(P3), WAIT4(P0, S(P3), 0),
	END };

/* EXITKILL: the tracer's exit kills the tracees that have it (P2), only
 * detaches the others (P3). */
static const struct or_step exitkill[] = {
	FORK(P0, P1), FORK(P0, P2), FORK(P0, P3),
	PTRACE(P1, PTRACE_SEIZE, S(P2), PTRACE_O_EXITKILL), PTRACE(P1, PTRACE_SEIZE, S(P3), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0), WAIT4(P0, S(P2), 0), WAIT4(P0, S(P3), 0),
	GETPPID(P3),
	END };

/* CLONE_PTRACE: the child of a traced process starts traced by the same
 * tracer and stopped (a SIGSTOP), with no event reported. */
static const struct or_step clone_ptrace[] = {
	FORK(P0, P1), PTRACE(P0, PTRACE_ATTACH, S(P1), 0), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), CLONE(P1, P2, SIGCHLD | CLONE_PTRACE),
	WAIT4(P0, S(P1), 0), WAIT4(P0, S(P2), 0), GETPPID(P2),
	PTRACE(P0, PTRACE_CONT, S(P2), 0), GETPPID(P2), EXIT(P2, 0),
	WAIT4(P0, S(P2), 0), WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_CONT, S(P1), 0),
	WAIT4(P1, S(P2), 0),
	END };

/* PTRACE_GETSIGINFO: the signal's own siginfo in a signal-delivery stop,
 * SIGTRAP with the status and the tracee as sender in an event stop; none
 * of a running tracee (ESRCH).  CONT with another signal delivers it as
 * SI_USER from the tracer (its pid and uid, not the sender's uid 1000);
 * SETSIGINFO's siginfo is delivered as set when the signal stays the same. */
static const struct or_step siginfo[] = {
	FORK(P0, P1), FORK(P0, P2), SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	SIGACTION(P1, SIGUSR2, ACT_HANDLER), SETRESUID(P2, 1000, 0, 0),
	PTRACE(P0, PTRACE_SEIZE, S(P1), PTRACE_O_TRACEFORK),
	PTRACE(P0, PTRACE_GETSIGINFO, S(P1), 0), KILL(P2, S(P1), SIGUSR1),
	WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETSIGINFO, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), SIGUSR2), SIGINFO(P1),
	KILL(P2, S(P1), SIGUSR1), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_SETSIGINFO, S(P1), SIGUSR1), PTRACE(P0, PTRACE_GETSIGINFO, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), SIGUSR1), SIGINFO(P1),
	FORK(P1, P3), WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETSIGINFO, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), WAIT4(P0, S(P3), 0),
	PTRACE(P0, PTRACE_GETSIGINFO, S(P3), 0),
	END };

/* TRACEEXIT: _exit stops the tracee with PTRACE_EVENT_EXIT before it
 * exits (the message: the wait status to come), and so does a signal that
 * kills it, SIGKILL too (P3). */
static const struct or_step exit_event[] = {
	FORK(P0, P1), PTRACE(P0, PTRACE_SEIZE, S(P1), PTRACE_O_TRACEEXIT), EXIT(P1, 3),
	WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0),
	PTRACE(P0, PTRACE_GETSIGINFO, S(P1), 0), GETPID(P1),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), WAIT4(P0, S(P1), 0),
	FORK(P0, P2), PTRACE(P0, PTRACE_SEIZE, S(P2), PTRACE_O_TRACEEXIT),
	KILL(P0, S(P2), SIGTERM), WAIT4(P0, S(P2), 0), PTRACE(P0, PTRACE_CONT, S(P2), SIGTERM),
	WAIT4(P0, S(P2), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P2), 0),
	PTRACE(P0, PTRACE_CONT, S(P2), 0), WAIT4(P0, S(P2), 0),
	FORK(P0, P3), PTRACE(P0, PTRACE_SEIZE, S(P3), PTRACE_O_TRACEEXIT),
	KILL(P0, S(P3), SIGKILL), WAIT4(P0, S(P3), 0),
	END };

/* A traced process's group stop is a ptrace stop: the tracer resumes the
 * SIGSTOP it reported, the group stops, and the tracee traps again with
 * the stop signal (no siginfo) for its tracer while the real parent sees
 * the group stopped.  CONT ends the trap but not the group stop, and its
 * signal is dropped; SIGCONT ends the group stop and is itself reported. */
static const struct or_step group_stop_attach[] = {
	FORK(P0, P1), FORK(P0, P2), SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	PTRACE(P2, PTRACE_ATTACH, S(P1), 0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_GETSIGINFO, S(P1), 0), WAIT4(P0, S(P1), WUNTRACED),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGUSR1), SIGS(P1), WAIT4(P2, S(P1), 0),
	KILL(P0, S(P1), SIGCONT), WAIT4(P2, S(P1), 0), WAIT4(P0, S(P1), WCONTINUED),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGCONT), GETPID(P1),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* The same with PTRACE_SEIZE: the group stop's trap is PTRACE_EVENT_STOP
 * with the stop signal, and SIGCONT makes the tracee trap once more with
 * PTRACE_EVENT_STOP and SIGTRAP (the group no longer stopped) before it
 * reports the SIGCONT itself. */
static const struct or_step group_stop_seize[] = {
	FORK(P0, P1), FORK(P0, P2), PTRACE(P2, PTRACE_SEIZE, S(P1), 0),
	KILL(P0, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_GETSIGINFO, S(P1), 0), WAIT4(P0, S(P1), WUNTRACED),
	KILL(P0, S(P1), SIGCONT), WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_GETSIGINFO, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGCONT), GETPID(P1), WAIT4(P0, S(P1), WCONTINUED),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* Attaching to a process in a group stop makes it trap for its tracer,
 * which sees the stop (PTRACE_ATTACH: the stop signal, then the SIGSTOP of
 * the attach; PTRACE_SEIZE: PTRACE_EVENT_STOP).  Resumed, it runs in the
 * stopped group; once its tracer is gone it stops in the group again,
 * until SIGCONT. */
static const struct or_step attach_stopped[] = {
	FORK(P0, P1), FORK(P0, P2), FORK(P0, P3),
	KILL(P0, S(P1), SIGSTOP), WAIT4(P0, S(P1), WUNTRACED), KILL(P0, S(P3), SIGSTOP),
	PTRACE(P2, PTRACE_ATTACH, S(P1), 0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_GETSIGINFO, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0), GETPID(P1),
	PTRACE(P2, PTRACE_SEIZE, S(P3), 0), WAIT4(P2, S(P3), 0),
	PTRACE(P2, PTRACE_CONT, S(P3), 0), GETPID(P3),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), GETPID(P1), GETPID(P3),
	KILL(P0, S(P1), SIGCONT), KILL(P0, S(P3), SIGCONT), GETPID(P1),
	EXIT(P1, 0), EXIT(P3, 0), WAIT4(P0, S(P1), 0), WAIT4(P0, S(P3), 0),
	END };

/* Attaching to a process in a group stop waits until it has trapped (Linux's
 * JOBCTL_TRAPPING): a WNOHANG wait made at once, with no settling between,
 * sees the stop, for PTRACE_ATTACH and PTRACE_SEIZE alike. */
static const struct or_step attach_stopped_poll[] = {
	FORK(P0, P1), FORK(P0, P2), FORK(P0, P3),
	KILL(P0, S(P1), SIGSTOP), KILL(P0, S(P3), SIGSTOP), WAIT4(P0, S(P1), WUNTRACED),
	ATTACH_POLL(P2, PTRACE_ATTACH, S(P1)), ATTACH_POLL(P2, PTRACE_SEIZE, S(P3)),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), KILL(P0, S(P1), SIGKILL), KILL(P0, S(P3), SIGKILL),
	WAIT4(P0, S(P1), 0), WAIT4(P0, S(P3), 0),
	END };

/* PTRACE_LISTEN: only for a seized tracee (EIO otherwise) in a
 * PTRACE_EVENT_STOP trap (EIO in a signal-delivery stop; ESRCH running).
 * The tracee stays stopped, out of its tracer's wait and requests (ESRCH),
 * until SIGCONT makes it trap again with SIGTRAP; a new signal does not. */
static const struct or_step listen[] = {
	FORK(P0, P1), FORK(P0, P2), FORK(P0, P3), SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	PTRACE(P2, PTRACE_SEIZE, S(P1), 0), PTRACE(P2, PTRACE_LISTEN, S(P1), 0),
	KILL(P0, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_LISTEN, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_LISTEN, S(P1), 0), GETPID(P1), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), KILL(P0, S(P1), SIGUSR1), WAIT4(P2, S(P1), 0),
	KILL(P0, S(P1), SIGCONT), WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), SIGS(P1),
	PTRACE(P2, PTRACE_ATTACH, S(P3), 0), WAIT4(P2, S(P3), 0),
	PTRACE(P2, PTRACE_LISTEN, S(P3), 0), EXIT(P2, 0), WAIT4(P0, S(P2), 0),
	END };

/* The tracer's SIGCHLD (Linux's do_notify_parent_cldstop for the tracer):
 * CLD_TRAPPED with the signal for a signal-delivery stop (the SIGSTOP of
 * the attach, SIGUSR1, SIGSTOP) and with SIGTRAP for an event's stop;
 * CLD_STOPPED with the group's stop signal for the trap of a group stop,
 * which the real parent, another process, is told of too; CLD_CONTINUED
 * when SIGCONT resumes the group, as the real parent.  The tracer blocks
 * SIGCHLD over the SIGCONT, which makes two notices (CLD_CONTINUED, then
 * the SIGCONT's own stop): the first stays pending, the second is lost. */
static const struct or_step trap_notices_attach[] = {
	FORK(P0, P1), FORK(P0, P2), SIGACTION(P0, SIGCHLD, ACT_HANDLER),
	SIGACTION(P2, SIGCHLD, ACT_HANDLER), SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	PTRACE(P2, PTRACE_ATTACH, S(P1), 0), SIGINFO(P2), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_SETOPTIONS, S(P1), PTRACE_O_TRACEEXIT),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), KILL(P0, S(P1), SIGUSR1), SIGINFO(P2),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), SIGUSR1),
	KILL(P0, S(P1), SIGSTOP), SIGINFO(P2), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGSTOP), SIGINFO(P2), SIGINFO(P0),
	WAIT4(P2, S(P1), 0), WAIT4(P0, S(P1), WUNTRACED), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	SIGMASK(P2, SIG_BLOCK, SIGCHLD), KILL(P0, S(P1), SIGCONT),
	SIGMASK(P2, SIG_UNBLOCK, SIGCHLD), SIGINFO(P2), SIGINFO(P0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGCONT), WAIT4(P0, S(P1), WCONTINUED),
	EXIT(P1, 3), SIGINFO(P2), WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	SIGINFO(P2), WAIT4(P2, S(P1), 0), WAIT4(P0, S(P1), 0),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0),
	END };

/* With PTRACE_SEIZE every trap of job control is told as CLD_STOPPED, with
 * the group's stop signal while it stops or is stopped, 0 otherwise:
 * PTRACE_INTERRUPT's (before and after the group stop), the group stop's.
 * After SIGCONT the tracee tells CLD_CONTINUED before its trap. */
static const struct or_step trap_notices_seize[] = {
	FORK(P0, P1), FORK(P0, P2), SIGACTION(P2, SIGCHLD, ACT_HANDLER),
	PTRACE(P2, PTRACE_SEIZE, S(P1), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P1), 0),
	SIGINFO(P2), WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	KILL(P0, S(P1), SIGSTOP), SIGINFO(P2), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGSTOP), SIGINFO(P2), WAIT4(P2, S(P1), 0),
	SIGMASK(P2, SIG_BLOCK, SIGCHLD), KILL(P0, S(P1), SIGCONT),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), SIGMASK(P2, SIG_UNBLOCK, SIGCHLD), SIGINFO(P2),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0), SIGINFO(P2),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), SIGCONT),
	WAIT4(P0, S(P1), WCONTINUED), PTRACE(P2, PTRACE_INTERRUPT, S(P1), 0), SIGINFO(P2),
	WAIT4(P2, S(P1), 0), EXIT(P2, 0), WAIT4(P0, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* A tracer with SA_NOCLDSTOP is told of no stop of its tracee, as a
 * parent of none of its child's, only of its exit. */
static const struct or_step trap_notices_nocldstop[] = {
	FORK(P0, P1), FORK(P0, P2), SIGACTION(P2, SIGCHLD, ACT_NOCLDSTOP),
	SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	PTRACE(P2, PTRACE_SEIZE, S(P1), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P1), 0),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_CONT, S(P1), 0),
	KILL(P0, S(P1), SIGUSR1), WAIT4(P2, S(P1), 0), SIGS(P2),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGUSR1), EXIT(P1, 0), SIGS(P2), SIGINFO(P2),
	WAIT4(P2, S(P1), 0), EXIT(P2, 0), WAIT4(P0, S(P2), 0),
	END };

/* PTRACE_INTERRUPT of a tracee in a trap leaves that trap as it is and
 * makes another after it: the CONT that ends the first one leads to a
 * second PTRACE_EVENT_STOP trap, with SIGTRAP (Linux's "another trap will
 * happen after the current trap is ended"). */
static const struct or_step interrupt_trapped[] = {
	FORK(P0, P1), FORK(P0, P2),
	PTRACE(P2, PTRACE_SEIZE, S(P1), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P1), 0),
	WAIT4(P2, S(P1), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), EXIT(P2, 0), WAIT4(P0, S(P2), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* A seized thread, not its process's leader, traps for PTRACE_INTERRUPT and
 * answers nothing until its tracer's CONT, as a leader does; its tracer
 * waits for it with __WALL. */
static const struct or_step thread_trap[] = {
	FORK(P0, P1), THREAD(P1, P3), FORK(P0, P2),
	PTRACE(P2, PTRACE_SEIZE, S(P3), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P3), 0),
	WAIT4(P2, S(P3), __WALL), GETPID(P3), PTRACE(P2, PTRACE_CONT, S(P3), 0), GETPID(P3),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* PTRACE_LISTEN on a seized thread of a stopped group: PTRACE_INTERRUPT
 * makes it trap again at once (the group's SIGSTOP), SIGCONT to its
 * process once more (SIGTRAP: the group runs); its PTRACE_KILL kills the
 * process. */
static const struct or_step thread_listen[] = {
	FORK(P0, P1), THREAD(P1, P3), FORK(P0, P2),
	PTRACE(P2, PTRACE_SEIZE, S(P3), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P3), 0),
	WAIT4(P2, S(P3), __WALL), PTRACE(P2, PTRACE_GETEVENTMSG, S(P3), 0),
	KILL(P0, S(P1), SIGSTOP), PTRACE(P2, PTRACE_CONT, S(P3), 0), WAIT4(P2, S(P3), __WALL),
	PTRACE(P2, PTRACE_LISTEN, S(P3), 0), PTRACE(P2, PTRACE_INTERRUPT, S(P3), 0),
	WAIT4(P2, S(P3), __WALL), PTRACE(P2, PTRACE_LISTEN, S(P3), 0),
	KILL(P0, S(P1), SIGCONT), WAIT4(P2, S(P3), __WALL), PTRACE(P2, PTRACE_CONT, S(P3), 0),
	PTRACE(P2, PTRACE_KILL, S(P3), 0), WAIT4(P2, S(P3), __WALL),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), WAIT4(P0, S(P1), 0),
	END };

/* A seized thread that listens in PTRACE_INTERRUPT's trap, its group
 * running, is out of its tracer's wait until another PTRACE_INTERRUPT
 * makes it trap again (SIGTRAP). */
static const struct or_step thread_listen_interrupt[] = {
	FORK(P0, P1), THREAD(P1, P3), FORK(P0, P2), PTRACE(P2, PTRACE_SEIZE, S(P3), 0),
	PTRACE(P2, PTRACE_INTERRUPT, S(P3), 0), WAIT4(P2, S(P3), __WALL),
	PTRACE(P2, PTRACE_LISTEN, S(P3), 0), WAIT4(P2, S(P3), __WALL), GETPID(P3),
	PTRACE(P2, PTRACE_INTERRUPT, S(P3), 0), WAIT4(P2, S(P3), __WALL),
	PTRACE(P2, PTRACE_CONT, S(P3), 0), GETPID(P3),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/* PTRACE_KILL of a thread that listens: neither stopped for its tracer's
 * requests nor running, it is killed all the same, and its process. */
static const struct or_step thread_listen_kill[] = {
	FORK(P0, P1), THREAD(P1, P3), FORK(P0, P2), PTRACE(P2, PTRACE_SEIZE, S(P3), 0),
	KILL(P0, S(P1), SIGSTOP), WAIT4(P2, S(P3), __WALL), WAIT4(P0, S(P1), WUNTRACED),
	PTRACE(P2, PTRACE_LISTEN, S(P3), 0), WAIT4(P2, S(P3), __WALL),
	PTRACE(P2, PTRACE_GETEVENTMSG, S(P3), 0), PTRACE(P2, PTRACE_KILL, S(P3), 0),
	WAIT4(P2, S(P3), __WALL), WAIT4(P0, S(P1), 0), EXIT(P2, 0), WAIT4(P0, S(P2), 0),
	END };

/* A seized leader that listens in its group's stop traps again for
 * SIGCONT (SIGTRAP), then reports the SIGCONT (its other thread, untraced,
 * blocks it), while that thread runs on from the SIGCONT. */
static const struct or_step leader_listen_thread[] = {
	FORK(P0, P1), THREAD(P1, P3), FORK(P0, P2), SIGMASK(P3, SIG_BLOCK, SIGCONT),
	PTRACE(P2, PTRACE_SEIZE, S(P1), 0), KILL(P0, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGSTOP), WAIT4(P2, S(P1), 0), GETPID(P3),
	WAIT4(P0, S(P1), WUNTRACED), PTRACE(P2, PTRACE_LISTEN, S(P1), 0),
	KILL(P0, S(P1), SIGCONT), GETPID(P3), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), 0), WAIT4(P2, S(P1), 0),
	PTRACE(P2, PTRACE_CONT, S(P1), SIGCONT), GETPID(P1),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0), EXIT(P3, 0), WAIT4(P0, S(P1), 0),
	END };

/* TRACEME by a child whose permitted capabilities are not among its
 * parent's (the parent gave up root after the fork): Linux's
 * cap_ptrace_traceme answers EPERM. */
static const struct or_step traceme_caps[] = {
	FORK(P0, P1), FORK(P1, P2), SETRESUID(P1, 1000, 1000, 1000),
	PTRACE(P2, PTRACE_TRACEME, 0, 0), GETPPID(P2),
	EXIT(P2, 0), WAIT4(P1, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

#define SCENARIOS(X) \
	X(attach_cont_detach) X(options_errors) X(fork_event_attach)	\
	X(clone_event_seize) X(exec_event) X(exitkill) X(clone_ptrace)	\
	X(siginfo) X(exit_event) X(group_stop_attach) X(group_stop_seize)	\
	X(attach_stopped) X(attach_stopped_poll) X(listen) X(trap_notices_attach)	\
	X(trap_notices_seize) X(trap_notices_nocldstop) X(interrupt_trapped)	\
	X(thread_trap) X(thread_listen) X(thread_listen_interrupt) X(thread_listen_kill)	\
	X(leader_listen_thread) X(traceme_caps)

#define SCENARIO_TEST(n) \
	Test(ptrace_semantics, n) { check_all_modes(&(struct or_scenario){ #n, n }); }
SCENARIOS(SCENARIO_TEST)

/*
 * The oracle names a process by S(P0) + n, and __WALL is S(P0)'s value:
 * only an argument that takes a pid is read as a name, so that a tracer
 * can wait for a traced thread with __WALL.
 */
Test(ptrace_semantics, wall_is_no_name)
{
	const struct or_step wait_wall = WAIT4(P2, S(P3), __WALL | WUNTRACED);
	struct or_pidmap map = { .pid = { 100, 101, 102, 103 } };
	long arg[3];

	or_resolve_args(&wait_wall, &map, arg);
	cr_expect_eq(arg[0], 103);
	cr_expect_eq(arg[1], __WALL | WUNTRACED, "the options: 0x%lx", arg[1]);
}
