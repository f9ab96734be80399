/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces against Linux (invariant I8; docs/namespaces.md): real
 * puppets on this machine, some of them in namespaces of their own, then
 * rcuproc in each of the three modes, compared step by step
 * (tests/oracle/oracle.h).  Every pid is compared as the caller's
 * namespace numbers it: each side tells, when it makes a process, its
 * numbers at every level and the namespace of each (NSpid and
 * NS_GET_PARENT on Linux, rp_proc_nspid and rp_pidns_parent here), and a
 * step's caller sees the names it can see by their numbers there (or_view).
 * A parent outside the caller's namespace reads as 0.  Set
 * RP_ORACLE_PRINT=1 to print every answer.
 *
 * The real side needs unshare(CLONE_NEWPID), so root in a namespace that
 * allows it: without it the program says so and exits 77, which meson
 * reports as skipped, never as passed.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "scenario.h"

#define NEWPID	(CLONE_NEWPID | SIGCHLD)

/* ---- the scenarios (wait4 always gets WNOHANG added) ---- */

/*
 * clone(CLONE_NEWPID): the child is 1 in its namespace and reads its
 * parent, outside, as 0, and its own session's id as 1; its child is 2
 * there, with parent 1.  The parent
 * outside sees both by its own numbers, in kill and in wait.
 */
static const struct or_step ids_inside_and_outside[] = {
	CLONE(P0, P1, NEWPID), GETPID(P1), GETPPID(P1), NSPID(P1), SETSID(P1),
	FORK(P1, P2), GETPID(P2), GETPPID(P2), NSPID(P2),
	KILL(P1, S(P2), 0), KILL(P0, S(P2), 0), KILL(P2, S(P1), 0),
	EXIT(P2, 2), WAIT4(P1, -1, 0),
	EXIT(P1, 3), WAIT4(P0, -1, 0),
	END };

/*
 * unshare(CLONE_NEWPID): the caller stays where it is; a second unshare
 * before a fork is EINVAL; its next child is 1 of the new namespace, its
 * later ones 2, 3, ... there, each reading its parent as 0.  Another
 * process that enters the unsharer's pid_for_children forks there too
 * (its child's parent reads 0); setns back to its own namespace forks
 * there again, and setns above its own is EINVAL.
 */
static const struct or_step unshare_pid_for_children[] = {
	FORK(P0, P1), UNSHARE(P1, CLONE_NEWPID), GETPID(P1), NSPID(P1),
	UNSHARE(P1, CLONE_NEWPID), CLONE(P1, P7, NEWPID),
	FORK(P1, P2), GETPPID(P2), NSPID(P2),
	FORK(P1, P3), GETPPID(P3), NSPID(P3), FORK(P2, P4), GETPPID(P4), NSPID(P4),
	SETNS(P0, P1, 1), FORK(P0, P5), GETPID(P5), GETPPID(P5), NSPID(P5),
	SETNS(P0, P0, 0), FORK(P0, P6), GETPPID(P6), NSPID(P6),
	SETNS(P3, P0, 0), SETNS(P3, P1, 0), UNSHARE(P3, CLONE_NEWPID),
	EXIT(P6, 0), WAIT4(P0, S(P6), 0), EXIT(P5, 0), WAIT4(P0, S(P5), 0),
	EXIT(P4, 0), WAIT4(P2, S(P4), 0), EXIT(P3, 0), WAIT4(P1, S(P3), 0),
	EXIT(P2, 0), WAIT4(P1, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * si_pid is the sender as the receiver's namespace numbers it: 0 for a
 * sender outside (the parent namespace's kill of init, or of init's
 * child), the sender's own number inside; SIGCHLD of a child inside
 * names it by the parent's numbers, the namespace's init to its parent
 * outside by the outer one.
 */
static const struct or_step sender_pid[] = {
	CLONE(P0, P1, NEWPID), SIGACTION(P1, SIGUSR1, ACT_HANDLER), FORK(P1, P2),
	SIGACTION(P2, SIGUSR1, ACT_HANDLER),
	KILL(P0, S(P1), SIGUSR1), SIGINFO(P1), KILL(P2, S(P1), SIGUSR1), SIGINFO(P1),
	KILL(P0, S(P2), SIGUSR1), SIGINFO(P2), KILL(P1, S(P2), SIGUSR1), SIGINFO(P2),
	TGKILL(P0, S(P2), S(P2), SIGUSR1), SIGINFO(P2),
	TGKILL(P2, S(P2), S(P2), SIGUSR1), SIGINFO(P2), SIGS(P1), SIGS(P2),
	SIGACTION(P1, SIGCHLD, ACT_HANDLER), EXIT(P2, 4), SIGINFO(P1),
	WAITID(P1, P_ALL, 0, WEXITED),
	SIGACTION(P0, SIGCHLD, ACT_HANDLER), EXIT(P1, 5), SIGINFO(P0),
	WAITID(P0, P_PID, S(P1), WEXITED),
	END };

/*
 * A namespace's init takes only the signals it handles from inside, even
 * SIGKILL, from its child and from itself; from the parent namespace a
 * signal it leaves at SIG_DFL is dropped too, but SIGSTOP stops it and
 * SIGKILL kills it (and its namespace).
 */
static const struct or_step init_signals[] = {
	CLONE(P0, P1, NEWPID), FORK(P1, P2), SIGACTION(P1, SIGUSR2, ACT_HANDLER),
	KILL(P2, S(P1), SIGUSR1), KILL(P2, S(P1), SIGTERM), KILL(P2, S(P1), SIGKILL),
	KILL(P2, S(P1), SIGSTOP), GETPID(P1), KILL(P1, S(P1), SIGKILL), GETPID(P1),
	KILL(P2, S(P1), SIGUSR2), SIGS(P1), SIGINFO(P1),
	KILL(P0, S(P1), SIGTERM), GETPID(P1),
	KILL(P0, S(P1), SIGSTOP), WAIT4(P0, S(P1), WUNTRACED), GETPID(P1),
	KILL(P0, S(P1), SIGCONT), GETPID(P1),
	KILL(P0, S(P1), SIGKILL), GETPID(P2), WAIT4(P0, S(P1), 0),
	END };

/*
 * Orphans in a namespace go to its init, not to a subreaper outside (P0):
 * a child of init's child, and a child of the unsharer's second child.
 */
static const struct or_step orphans_to_init[] = {
	FORK(P0, P1), UNSHARE(P1, CLONE_NEWPID), FORK(P1, P2), FORK(P2, P3), FORK(P3, P4),
	EXIT(P3, 0), GETPPID(P4), WAIT4(P2, S(P3), 0),
	FORK(P1, P5), FORK(P5, P6), EXIT(P5, 0), GETPPID(P6), WAIT4(P1, S(P5), 0),
	EXIT(P4, 4), WAIT4(P2, S(P4), 0), EXIT(P6, 6), WAIT4(P1, S(P6), 0),
	WAIT4(P2, S(P6), 0), EXIT(P2, 0), WAIT4(P1, S(P2), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * kill(-1) inside a namespace reaches what the caller's namespace numbers
 * above 1, the caller's own process and init excepted: with init alone
 * there ESRCH; then a sibling and a namespace below, not init, nor the
 * unsharer outside, nor another process outside.
 */
static const struct or_step kill_all_inside[] = {
	FORK(P0, P1), UNSHARE(P1, CLONE_NEWPID), FORK(P1, P2), FORK(P2, P3),
	KILL(P3, -1, SIGUSR1),
	FORK(P2, P4), CLONE(P4, P5, NEWPID), FORK(P0, P6),
	SIGACTION(P0, SIGUSR1, ACT_HANDLER), SIGACTION(P1, SIGUSR1, ACT_HANDLER),
	SIGACTION(P2, SIGUSR1, ACT_HANDLER), SIGACTION(P3, SIGUSR1, ACT_HANDLER),
	SIGACTION(P4, SIGUSR1, ACT_HANDLER), SIGACTION(P5, SIGUSR1, ACT_HANDLER),
	SIGACTION(P6, SIGUSR1, ACT_HANDLER),
	KILL(P3, -1, SIGUSR1), SIGS(P0), SIGS(P1), SIGS(P2), SIGS(P3), SIGS(P4),
	SIGS(P5), SIGS(P6),
	EXIT(P5, 0), WAIT4(P4, S(P5), 0), EXIT(P4, 0), WAIT4(P2, S(P4), 0),
	EXIT(P3, 0), WAIT4(P2, S(P3), 0), EXIT(P2, 0), WAIT4(P1, S(P2), 0),
	EXIT(P6, 0), WAIT4(P0, S(P6), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * Two namespaces nested: the level-2 init is 2 at level 1 and 1 at its
 * own, its child 3 and 2; each reads its parent where it can see it.  A
 * process of the root enters level 2 by setns and forks there.
 */
static const struct or_step nested[] = {
	CLONE(P0, P1, NEWPID), CLONE(P1, P2, NEWPID), FORK(P2, P3),
	NSPID(P2), NSPID(P3), GETPPID(P2), GETPPID(P3), GETPID(P3),
	SIGACTION(P3, SIGUSR1, ACT_HANDLER), KILL(P1, S(P3), SIGUSR1), SIGINFO(P3),
	KILL(P2, S(P3), SIGUSR1), SIGINFO(P3), KILL(P3, S(P1), 0),
	FORK(P0, P4), SETNS(P4, P2, 0), FORK(P4, P5), NSPID(P5), GETPPID(P5),
	SETNS(P3, P1, 0), KILL(P1, S(P5), 0),
	EXIT(P5, 0), WAIT4(P4, S(P5), 0), EXIT(P4, 0), WAIT4(P0, S(P4), 0),
	EXIT(P3, 3), WAIT4(P2, S(P3), 0), EXIT(P2, 2), WAIT4(P1, S(P2), 0),
	EXIT(P1, 1), WAIT4(P0, S(P1), 0),
	END };

/*
 * Once the namespace's init has exited, the unsharer's fork there fails
 * with ENOMEM, before and after init is reaped; init's own child dies
 * with it (init reaps it: no process of the namespace has a parent
 * outside, whose wait Linux's init would wait for).
 */
static const struct or_step fork_after_init_exit[] = {
	FORK(P0, P1), UNSHARE(P1, CLONE_NEWPID), FORK(P1, P2), FORK(P2, P3),
	EXIT(P2, 7), GETPID(P3), FORK(P1, P4), WAIT4(P1, S(P2), 0), FORK(P1, P5),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * PTRACE_GETEVENTMSG after an exec event: the former tid as the tracer's
 * namespace numbers it.  The namespace's init traces its child P2 (2
 * there) through P2's exec; P0 outside traces the init through its own
 * (its number outside, not 1).
 */
static const struct or_step exec_event_tid[] = {
	CLONE(P0, P1, NEWPID), FORK(P1, P2),
	PTRACE(P1, PTRACE_SEIZE, S(P2), PTRACE_O_TRACEEXEC), EXEC(P2),
	WAIT4(P1, S(P2), 0), PTRACE(P1, PTRACE_GETEVENTMSG, S(P2), 0),
	PTRACE(P1, PTRACE_CONT, S(P2), 0), GETPID(P2), EXIT(P2, 0), WAIT4(P1, S(P2), 0),
	PTRACE(P0, PTRACE_SEIZE, S(P1), PTRACE_O_TRACEEXEC), EXEC(P1),
	WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), GETPID(P1), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * Init's exit completes only once every other pid of its namespace is
 * freed: C (P3), the unsharer's second child, is killed by init's end and
 * keeps its pid until the unsharer reaps it, so the unsharer's
 * waitpid(init, WNOHANG) is 0 until then (whether C has died yet or
 * not); then init exited 7.  B (P5), orphaned to init, is reaped by init.
 */
static const struct or_step init_exit_waits_for_pids[] = {
	FORK(P0, P1), UNSHARE(P1, CLONE_NEWPID), FORK(P1, P2), FORK(P1, P3),
	FORK(P2, P4), FORK(P4, P5), EXIT(P4, 0), WAIT4(P2, S(P4), 0), GETPPID(P5),
	EXIT(P2, 7), WAIT4(P1, S(P2), WNOHANG), WAIT4(P1, S(P3), 0),
	WAIT4(P1, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * CLONE_NEWPID with CLONE_PARENT by a process that is no init makes a new
 * namespace's init, its caller's sibling (parent 0 inside); the flags
 * refused (EINVAL): CLONE_NEWPID with CLONE_THREAD (and the CLONE_SIGHAND
 * and CLONE_VM it needs), CLONE_PARENT by a namespace's init (with
 * CLONE_NEWPID or not), and CLONE_THREAD after unshare(CLONE_NEWPID).
 */
static const struct or_step clone_flags[] = {
	CLONE(P0, P1, NEWPID | CLONE_PARENT), GETPID(P1), GETPPID(P1), NSPID(P1),
	EXIT(P1, 0),
	CLONE(P0, P2, NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM),
	CLONE(P0, P3, NEWPID), CLONE(P3, P4, CLONE_PARENT | SIGCHLD),
	CLONE(P3, P7, NEWPID | CLONE_PARENT), GETPID(P3),
	FORK(P0, P5), UNSHARE(P5, CLONE_NEWPID),
	CLONE(P5, P6, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM), GETPID(P5),
	EXIT(P3, 0), WAIT4(P0, S(P3), 0), EXIT(P5, 0), WAIT4(P0, S(P5), 0),
	END };

/*
 * SIGCHLD of a stop and of a continue names the child as its parent's
 * namespace numbers it: a namespace's init hears its child as 2, the
 * parent outside hears the init by its outer number (Linux's
 * do_notify_parent_cldstop).
 */
static const struct or_step stop_notice_sender_pid[] = {
	CLONE(P0, P1, NEWPID), FORK(P1, P2), SIGACTION(P1, SIGCHLD, ACT_HANDLER),
	KILL(P1, S(P2), SIGSTOP), WAIT4(P1, S(P2), WUNTRACED), SIGINFO(P1),
	KILL(P1, S(P2), SIGCONT), WAIT4(P1, S(P2), WCONTINUED), SIGINFO(P1),
	SIGACTION(P0, SIGCHLD, ACT_HANDLER),
	KILL(P0, S(P1), SIGSTOP), WAIT4(P0, S(P1), WUNTRACED), SIGINFO(P0),
	KILL(P0, S(P1), SIGCONT), WAIT4(P0, S(P1), WCONTINUED), SIGINFO(P0),
	EXIT(P2, 0), WAIT4(P1, S(P2), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * si_pid of group kills that reach into a namespace below the sender: 0
 * to each receiver there, the sender's number to one that sees it.  The
 * group is led by a namespace's init (P3), joined by its child (P4) and
 * then by a process of the parent namespace (P2): the receivers that see
 * the sender come first in Linux's walks, before the first one that does
 * not (docs/namespaces.md, "si_pid of a group kill").  kill(-pgrp) from
 * outside the group and from its parent, kill(0) from its newest member;
 * kill(-1) inside a namespace, where the sibling made before the
 * namespace below comes first.
 */
static const struct or_step group_kill_sender_pid[] = {
	FORK(P0, P1), CLONE(P1, P3, NEWPID), SETPGID(P3, 0, 0), FORK(P3, P4),
	FORK(P1, P2), SETPGID(P2, 0, S(P3)),
	SIGACTION(P2, SIGUSR1, ACT_HANDLER), SIGACTION(P3, SIGUSR1, ACT_HANDLER),
	SIGACTION(P4, SIGUSR1, ACT_HANDLER),
	KILL(P0, -S(P3), SIGUSR1), SIGINFO(P2), SIGINFO(P3), SIGINFO(P4),
	KILL(P1, -S(P3), SIGUSR1), SIGINFO(P2), SIGINFO(P3), SIGINFO(P4),
	KILL(P2, 0, SIGUSR1), SIGINFO(P2), SIGINFO(P3), SIGINFO(P4),
	EXIT(P4, 0), WAIT4(P3, S(P4), 0), EXIT(P2, 0), WAIT4(P1, S(P2), 0),
	FORK(P3, P5), FORK(P3, P6), CLONE(P5, P7, NEWPID),
	SIGACTION(P5, SIGUSR1, ACT_HANDLER), SIGACTION(P7, SIGUSR1, ACT_HANDLER),
	KILL(P6, -1, SIGUSR1), SIGINFO(P5), SIGINFO(P7),
	EXIT(P7, 0), WAIT4(P5, S(P7), 0), EXIT(P5, 0), WAIT4(P3, S(P5), 0),
	EXIT(P6, 0), WAIT4(P3, S(P6), 0),
	EXIT(P3, 0), WAIT4(P1, S(P3), 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * si_pid of group kills whose walk, in Linux's order, meets a receiver
 * that sees the sender after one that does not: from then on Linux's one
 * siginfo says 0 (docs/namespaces.md, "si_pid of a group kill").  P2, 2
 * in the namespace of P1, leads its group; its children in creation order
 * P3, P4 (CLONE_NEWPID), P5, all in its group.  kill(0) and kill(-pgrp)
 * walk the group newest first (P5 2, then 0 for P4, P3 and P2); kill(-1)
 * walks in creation order (P3 2, then 0 for P4 and P5).
 */
static const struct or_step group_kill_linux_order[] = {
	CLONE(P0, P1, NEWPID), FORK(P1, P2), SETPGID(P2, 0, 0),
	FORK(P2, P3), CLONE(P2, P4, NEWPID), FORK(P2, P5),
	SIGACTION(P2, SIGUSR1, ACT_HANDLER), SIGACTION(P3, SIGUSR1, ACT_HANDLER),
	SIGACTION(P4, SIGUSR1, ACT_HANDLER), SIGACTION(P5, SIGUSR1, ACT_HANDLER),
	KILL(P2, 0, SIGUSR1), SIGINFO(P5), SIGINFO(P4), SIGINFO(P3), SIGINFO(P2),
	KILL(P2, -S(P2), SIGUSR1), SIGINFO(P5), SIGINFO(P4), SIGINFO(P3), SIGINFO(P2),
	KILL(P2, -1, SIGUSR1), SIGINFO(P3), SIGINFO(P4), SIGINFO(P5),
	EXIT(P5, 0), WAIT4(P2, S(P5), 0), EXIT(P4, 0), WAIT4(P2, S(P4), 0),
	EXIT(P3, 0), WAIT4(P2, S(P3), 0), EXIT(P2, 0), WAIT4(P1, S(P2), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * The same cut by the joining order, from a sender outside the namespace
 * below (which does not see it either): P1 leads its group; its children
 * in creation order P2, P3 (moved to a group of its own), P4
 * (CLONE_NEWPID), P5; then P3 joins P1's group again, the last to join,
 * and Linux's walk meets it first: P3 and P5 get P1's number, P4 0, and
 * P2 and P1 0 after it.
 */
static const struct or_step group_kill_joining_order[] = {
	FORK(P0, P1), SETPGID(P1, 0, 0), FORK(P1, P2), FORK(P1, P3), SETPGID(P3, 0, 0),
	CLONE(P1, P4, NEWPID), FORK(P1, P5), SETPGID(P1, S(P3), S(P1)),
	SIGACTION(P1, SIGUSR1, ACT_HANDLER), SIGACTION(P2, SIGUSR1, ACT_HANDLER),
	SIGACTION(P3, SIGUSR1, ACT_HANDLER), SIGACTION(P4, SIGUSR1, ACT_HANDLER),
	SIGACTION(P5, SIGUSR1, ACT_HANDLER),
	KILL(P1, 0, SIGUSR1), SIGINFO(P3), SIGINFO(P5), SIGINFO(P4), SIGINFO(P2), SIGINFO(P1),
	EXIT(P5, 0), WAIT4(P1, S(P5), 0), EXIT(P4, 0), WAIT4(P1, S(P4), 0),
	EXIT(P3, 0), WAIT4(P1, S(P3), 0), EXIT(P2, 0), WAIT4(P1, S(P2), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * PTRACE_GETEVENTMSG after a fork event: the new child as the tracer's
 * namespace numbers it.  The namespace's init traces its child P2 through
 * P2's fork (P3, 3 there); P0 outside traces the init through its own
 * fork (P4, by its number outside).
 */
static const struct or_step fork_event_pid[] = {
	CLONE(P0, P1, NEWPID), FORK(P1, P2),
	PTRACE(P1, PTRACE_SEIZE, S(P2), PTRACE_O_TRACEFORK), FORK(P2, P3),
	WAIT4(P1, S(P2), 0), PTRACE(P1, PTRACE_GETEVENTMSG, S(P2), 0),
	WAIT4(P1, S(P3), 0), PTRACE(P1, PTRACE_CONT, S(P3), 0),
	PTRACE(P1, PTRACE_CONT, S(P2), 0), GETPPID(P3), EXIT(P3, 0),
	WAIT4(P1, S(P3), 0), WAIT4(P1, S(P2), 0), PTRACE(P1, PTRACE_CONT, S(P2), 0),
	WAIT4(P2, S(P3), 0),
	PTRACE(P0, PTRACE_SEIZE, S(P1), PTRACE_O_TRACEFORK), FORK(P1, P4),
	WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_GETEVENTMSG, S(P1), 0),
	WAIT4(P0, S(P4), 0), PTRACE(P0, PTRACE_CONT, S(P4), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), GETPPID(P4), EXIT(P4, 0),
	WAIT4(P0, S(P4), 0), WAIT4(P0, S(P1), 0), PTRACE(P0, PTRACE_CONT, S(P1), 0),
	WAIT4(P1, S(P4), 0), EXIT(P2, 0), WAIT4(P0, S(P1), 0),
	PTRACE(P0, PTRACE_CONT, S(P1), 0), WAIT4(P1, S(P2), 0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * Init's signal rules hold for group kills too: kill(0) from init's child
 * in init's group kills the child and leaves init (SIGTERM, then SIGKILL
 * from a second child), kill(-pgrp) from the parent namespace forces
 * SIGSTOP and SIGKILL on it.
 */
static const struct or_step init_group_kill[] = {
	CLONE(P0, P1, NEWPID), SETPGID(P1, 0, 0), FORK(P1, P2),
	KILL(P2, 0, SIGTERM), GETPID(P1), WAIT4(P1, S(P2), 0),
	FORK(P1, P3), KILL(P3, 0, SIGKILL), GETPID(P1), WAIT4(P1, S(P3), 0),
	KILL(P0, -S(P1), SIGTERM), GETPID(P1),
	KILL(P0, -S(P1), SIGSTOP), WAIT4(P0, S(P1), WUNTRACED),
	KILL(P0, -S(P1), SIGCONT), GETPID(P1),
	KILL(P0, -S(P1), SIGKILL), WAIT4(P0, S(P1), 0),
	END };

#define SCENARIOS(X) \
	X(ids_inside_and_outside) X(unshare_pid_for_children)	\
	X(sender_pid) X(init_signals) X(orphans_to_init)	\
	X(kill_all_inside) X(nested) X(fork_after_init_exit)	\
	X(exec_event_tid) \
	X(init_exit_waits_for_pids)	\
	X(clone_flags) X(stop_notice_sender_pid)		\
	X(group_kill_sender_pid) X(fork_event_pid)		\
	X(init_group_kill) X(group_kill_linux_order)		\
	X(group_kill_joining_order)

#define SCENARIO_TEST(n) \
	Test(pidns_semantics, n) { check_all_modes(&(struct or_scenario){ #n, n }); }
SCENARIOS(SCENARIO_TEST)

/* ---- the oracle checks itself ---- */

/*
 * A view hides what is outside the caller's namespace and numbers the rest
 * as the caller's level does: P0 in the driver's namespace (a), P1 the
 * init of b below it, P2 in b, P3 the init of c beside b.
 */
Test(oracle_pidns, view_by_level)
{
	struct or_pidmap map = { .pid = { 100, 101, 102, 103 }, .ext = 99 };
	struct or_pidmap v;

	map.place[P0] = (struct or_place){ 1, { 100 }, { 'a' } };
	map.place[P1] = (struct or_place){ 2, { 101, 1 }, { 'a', 'b' } };
	map.place[P2] = (struct or_place){ 2, { 102, 2 }, { 'a', 'b' } };
	map.place[P3] = (struct or_place){ 2, { 103, 1 }, { 'a', 'c' } };
	or_view(&map, P0, &v);
	cr_expect(v.ext == 99 && v.pid[P1] == 101 && v.pid[P3] == 103);
	or_view(&map, P2, &v);
	cr_expect_eq(v.ext, OR_PID_UNSEEN);
	cr_expect_eq(v.pid[P0], OR_PID_UNSEEN);
	cr_expect_eq(v.pid[P1], 1);
	cr_expect_eq(v.pid[P2], 2);
	cr_expect_eq(v.pid[P3], OR_PID_UNSEEN, "c's init is not in b");
	cr_expect_eq(v.pid[P4], 0, "no process: no number");
	cr_expect_eq(or_resolve(&v, -S(P1)), -1);
}

/*
 * May this process make pid namespaces?  A child unshares and forks; the
 * grandchild must be pid 1.  0, or the errno that said no.
 */
static int newpid_refused(void)
{
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		pid_t init;

		if (unshare(CLONE_NEWPID))
			_exit(errno);
		init = fork();
		if (init == 0)
			_exit(getpid() == 1 ? 0 : EINVAL);
		if (init < 0 || waitpid(init, &status, 0) != init)
			_exit(ECHILD);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : EINTR);
	}
	if (waitpid(pid, &status, 0) != pid)
		return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

/* Criterion's own main, unless the kernel's side cannot be asked at all. */
int main(int argc, char *argv[])
{
	struct criterion_test_set *tests;
	int err = geteuid() ? EPERM : newpid_refused(), result = 0;

	if (err) {
		printf("pidns_semantics: SKIPPED, not run: unshare(CLONE_NEWPID) is refused "
		       "here (%s%s); the real-kernel side needs root in a pid namespace "
		       "that may make others\n", strerrorname_np(err),
		       geteuid() ? ": not root" : "");
		return 77;
	}
	tests = criterion_initialize();
	if (criterion_handle_args(argc, argv, true))
		result = !criterion_run_all_tests(tests);
	criterion_finalize(tests);
	return result;
}
