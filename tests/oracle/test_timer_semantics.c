/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POSIX CPU timers and CPU-time accounting against Linux (invariant I8):
 * real puppets on this machine, then rcuproc (tests/oracle/oracle.h),
 * compared step by step.  Set RP_ORACLE_PRINT=1 to print every answer.
 * The real side needs root; without it the tests skip.
 *
 * CPU time on Linux is real, so what these steps compare is only what does
 * not depend on how much of it passed: a puppet burns at least the time a
 * step names (BURN; rcuproc charges exactly that), timers are set to
 * absolute times already passed or far away, intervals are long against
 * what a puppet uses between steps, and counts that depend on the time
 * passed (an overrun, the children's time) are compared as 0 or more than
 * 0 (or_format).
 */
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "scenario.h"

#define RT40	40
#define MS	1000000L
#define FAR	(2000 * MS)	/* 2 s of CPU, never reached here */

/*
 * A periodic timer fires when set to a time passed; it is not re-armed,
 * and counts no overrun, until its signal is delivered; the delivery
 * counts the intervals passed since (Linux's posixtimer_deliver_signal),
 * and timer_getoverrun reports that from then on.
 */
static const struct or_step rearm_at_delivery[] = {
	FORK(P0, P1), SIGACTION(P1, RT40, ACT_HANDLER), SIGMASK(P1, SIG_BLOCK, RT40),
	TIMER_CREATE(P1, RT40), BURN(P1, 250 * MS),
	TIMER_SET(P1, 0, 1, 100 * MS), SIGPENDING(P1), TIMER_GETOVERRUN(P1, 0),
	SIGMASK(P1, SIG_UNBLOCK, RT40), SIGS(P1), SIGINFO(P1), TIMER_GETOVERRUN(P1, 0),
	TIMER_DELETE(P1, 0), EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * timer_settime and timer_delete leave a queued signal queued (sigpending
 * shows it); its delivery finds the timer's generation changed and drops
 * it (it_signal_seq): no handler runs.
 */
static const struct or_step reset_and_delete_keep_queued[] = {
	FORK(P0, P1), SIGACTION(P1, RT40, ACT_HANDLER), SIGMASK(P1, SIG_BLOCK, RT40),
	TIMER_CREATE(P1, RT40), BURN(P1, MS), TIMER_SET(P1, 0, 1, 0), SIGPENDING(P1),
	TIMER_SET(P1, 0, FAR, 0), SIGPENDING(P1), TIMER_GETOVERRUN(P1, 0),
	SIGMASK(P1, SIG_UNBLOCK, RT40), SIGS(P1), SIGPENDING(P1),
	SIGMASK(P1, SIG_BLOCK, RT40), TIMER_SET(P1, 0, 1, 0), TIMER_DELETE(P1, 0),
	SIGPENDING(P1), SIGMASK(P1, SIG_UNBLOCK, RT40), SIGS(P1), SIGPENDING(P1),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * A timer's preallocated entry counts against RLIMIT_SIGPENDING from
 * timer_create to its free (posixtimer_init_sigqueue, no override): past
 * the limit timer_create fails with EAGAIN.  Its queued signal is not
 * charged again; a deleted timer's queued signal keeps the charge until it
 * is dropped.  A uid of its own, so that no other process's pending
 * signals count.
 */
static const struct or_step timers_count_for_rlimit_sigpending[] = {
	FORK(P0, P1), SETRESUID(P1, 31013, 31013, 31013), SETRLIMIT(P1, RLIMIT_SIGPENDING, 2),
	TIMER_CREATE(P1, RT40), TIMER_CREATE(P1, RT40), TIMER_CREATE(P1, RT40),
	TIMER_DELETE(P1, 0), SIGMASK(P1, SIG_BLOCK, RT40), BURN(P1, MS),
	TIMER_SET(P1, 1, 1, 0), SIGPENDING(P1), TIMER_CREATE(P1, RT40),
	TIMER_DELETE(P1, 1), TIMER_CREATE(P1, RT40), SIGPENDING(P1), TIMER_CREATE(P1, RT40),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0),
	END };

/*
 * Only a thread-group leader claimed as dead adds its times to the
 * reaper's children (wait_task_zombie): not a leader its tracer hands back
 * to a real parent that ignores SIGCHLD (EXIT_TRACE, then release_task),
 * not a traced thread its tracer reaps.
 */
static const struct or_step reaped_times_leaders_only[] = {
	FORK(P0, P1), FORK(P0, P2), FORK(P1, P3), SIGACTION(P1, SIGCHLD, ACT_IGN),
	PTRACE(P2, PTRACE_SEIZE, S(P3), 0), BURN(P3, 30 * MS), EXIT(P3, 0),
	WAIT4(P2, S(P3), 0), CHILDREN_CPU(P1), CHILDREN_CPU(P2),
	THREAD(P1, P4), PTRACE(P2, PTRACE_SEIZE, S(P4), 0), BURN(P4, 30 * MS),
	THREAD_EXIT(P4, 0), WAIT4(P2, S(P4), __WCLONE), CHILDREN_CPU(P0),
	EXIT(P1, 0), WAIT4(P0, S(P1), 0), CHILDREN_CPU(P0),
	EXIT(P2, 0), WAIT4(P0, S(P2), 0),
	END };

#define SCENARIOS(X) \
	X(rearm_at_delivery) X(reset_and_delete_keep_queued)	\
	X(timers_count_for_rlimit_sigpending) X(reaped_times_leaders_only)

#define SCENARIO_TEST(n) \
	Test(timer_semantics, n) { check_scenario(&(struct or_scenario){ #n, n }); }
SCENARIOS(SCENARIO_TEST)
