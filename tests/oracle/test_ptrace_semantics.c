/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrace(2) against Linux (invariant I8): a real tracer puppet and a real
 * tracee on this machine, then the same steps through rcuproc in each of
 * the three modes, compared step by step (tests/oracle/oracle.h).  A
 * stopped tracee answers nothing ("stopped: no answer") on either side
 * until its tracer resumes it.  Set RP_ORACLE_PRINT=1 to print every
 * answer.  The real side needs root; without it the tests skip.
 */
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

#define SCENARIOS(X) \
	X(attach_cont_detach)

/* Linux's answers once, then rcuproc's in every mode. */
static void check_all_modes(const struct or_scenario *sc)
{
	struct or_results lin;
	int diffs = 0;

	need_root();
	linux_answers(sc, &lin);
	for (enum rp_sync_mode m = RP_SYNC_RCU; m <= RP_SYNC_QRWLOCK; m++)
		diffs += rcuproc_diffs(sc, &lin, m);
	cr_assert_eq(diffs, 0, "%s: %d answers differ from Linux (diff above)", sc->name, diffs);
}

#define SCENARIO_TEST(n) \
	Test(ptrace_semantics, n) { check_all_modes(&(struct or_scenario){ #n, n }); }
SCENARIOS(SCENARIO_TEST)
