/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the oracle's test files share: the step macros of the scenario
 * language (oracle.h) and the run-and-compare helpers.  The oracle itself is
 * compiled into each test (tests/meson.build names its sources).
 */
#ifndef RP_TESTS_ORACLE_SCENARIO_H
#define RP_TESTS_ORACLE_SCENARIO_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <criterion/criterion.h>
#include "oracle.h"

#define FORK(p, c)		{ p, OP_FORK, c, 0, 0 }
#define CLONE(p, c, flags)	{ p, OP_CLONE, c, flags, 0 }
#define EXIT(p, code)		{ p, OP_EXIT, code, 0, 0 }
#define EXEC(p)			{ p, OP_EXEC, 0, 0, 0 }
#define WAIT4(p, pid, opt)	{ p, OP_WAIT4, pid, opt, 0 }
#define WAITID(p, type, id, opt) { p, OP_WAITID, type, id, opt }
#define KILL(p, pid, sig)	{ p, OP_KILL, pid, sig, 0 }
#define TGKILL(p, tg, t, sig)	{ p, OP_TGKILL, tg, t, sig }
#define SIGACTION(p, sig, act)	{ p, OP_SIGACTION, sig, act, 0 }
#define SIGMASK(p, how, sig)	{ p, OP_SIGPROCMASK, how, sig, 0 }
#define SETRESUID(p, r, e, s)	{ p, OP_SETRESUID, r, e, s }
#define PRCTL(p, opt, arg)	{ p, OP_PRCTL, opt, arg, 0 }
#define SETPGID(p, pid, pgid)	{ p, OP_SETPGID, pid, pgid, 0 }
#define IOPRIO_SET(p, which, who, v) { p, OP_IOPRIO_SET, which, who, v }
#define IOPRIO_GET(p, which, who) { p, OP_IOPRIO_GET, which, who, 0 }
#define SETRLIMIT(p, res, lim)	{ p, OP_SETRLIMIT, res, lim, 0 }
#define GETPID(p)		{ p, OP_GETPID, 0, 0, 0 }
#define GETPPID(p)		{ p, OP_GETPPID, 0, 0, 0 }
#define SIGS(p)			{ p, OP_SIGS, 0, 0, 0 }
#define SIGINFO(p)		{ p, OP_SIGINFO, 0, 0, 0 }
#define THREAD(p, t)		{ p, OP_THREAD, t, 0, 0 }
#define THREAD_EXIT(t, code)	{ t, OP_THREAD_EXIT, code, 0, 0 }
#define PTRACE(p, req, pid, data) { p, OP_PTRACE, req, pid, data }
#define ATTACH_POLL(p, req, pid) { p, OP_ATTACH_POLL, req, pid, 0 }
#define SETSID(p)		{ p, OP_SETSID, 0, 0, 0 }
#define TIOCSCTTY(p)		{ p, OP_TIOCSCTTY, 0, 0, 0 }
#define TIOCSPGRP(p, pgrp)	{ p, OP_TIOCSPGRP, pgrp, 0, 0 }
#define TIOCNOTTY(p)		{ p, OP_TIOCNOTTY, 0, 0, 0 }
#define TIOCGPGRP(p)		{ p, OP_TIOCGPGRP, 0, 0, 0 }
#define BURN(p, ns)		{ p, OP_BURN, ns, 0, 0 }
#define TIMER_CREATE(p, sig)	{ p, OP_TIMER_CREATE, sig, 0, 0 }
#define TIMER_SET(p, id, abs_ns, interval_ns) { p, OP_TIMER_SET, id, abs_ns, interval_ns }
#define TIMER_GETOVERRUN(p, id)	{ p, OP_TIMER_GETOVERRUN, id, 0, 0 }
#define TIMER_DELETE(p, id)	{ p, OP_TIMER_DELETE, id, 0, 0 }
#define SIGPENDING(p)		{ p, OP_SIGPENDING, 0, 0, 0 }
#define CHILDREN_CPU(p)		{ p, OP_CHILDREN_CPU, 0, 0, 0 }
#define UNSHARE(p, flags)	{ p, OP_UNSHARE, flags, 0, 0 }
#define SETNS(p, q, for_children) { p, OP_SETNS, q, for_children, 0 }
#define NSPID(q)		{ P0, OP_NSPID, S(q), 0, 0 }	/* read by P0 */
#define END			{ 0, OP_END, 0, 0, 0 }

/* ---- running and comparing ---- */

static inline void need_root(void)
{
	if (geteuid() != 0)
		cr_skip_test("the real-process side changes uids: run as root");
}

/* Linux's answers, now; no puppet may be left behind. */
static inline void linux_answers(const struct or_scenario *sc, struct or_results *lin)
{
	int n = 0;

	while (sc->steps[n].op != OP_END)
		n++;
	/* The drivers run OR_MAX_STEPS steps at most: the rest would go unchecked. */
	cr_assert_leq(n, OR_MAX_STEPS, "%s has %d steps, more than the %d the oracle runs",
		      sc->name, n, OR_MAX_STEPS);
	cr_assert_eq(or_run_linux(sc, lin), 0,
		     "the real-process driver failed on %s", sc->name);
	cr_assert(waitpid(-1, NULL, __WALL | WNOHANG) == -1 && errno == ECHILD,
		  "%s left a process behind", sc->name);
	if (getenv("RP_ORACLE_PRINT"))
		or_print(sc, "linux", lin, stderr);
}

/* rcuproc against @lin in @mode: the differences, leaks included (I7). */
static inline int rcuproc_diffs(const struct or_scenario *sc, const struct or_results *lin,
			 enum rp_sync_mode mode)
{
	const char *name = rp_sync_mode_name(mode);
	struct rp_system_counts c;
	struct or_results rp;
	int diffs;

	or_run_rcuproc(sc, mode, &rp, &c);
	if (getenv("RP_ORACLE_PRINT"))
		or_print(sc, name, &rp, stderr);
	diffs = or_compare(sc, name, lin, &rp, stderr);
	if (c.tasks != 1 || c.signals != 1 || c.sighands != 1 || c.creds != 1 ||
	    c.pids != 1 || c.sigqueues != 0) {
		fprintf(stderr, "[%s/%s] left after reaping: tasks %lu signals %lu "
			"sighands %lu creds %lu pids %lu sigqueues %lu (want 1 1 1 1 1 0)\n",
			sc->name, name, c.tasks, c.signals, c.sighands, c.creds,
			c.pids, c.sigqueues);
		diffs++;
	}
	return diffs;
}

static inline void check_scenario(const struct or_scenario *sc)
{
	struct or_results lin;

	need_root();
	linux_answers(sc, &lin);
	cr_assert_eq(rcuproc_diffs(sc, &lin, RP_SYNC_RCU), 0,
		     "%s: rcuproc differs from Linux (diff above)", sc->name);
}

/* Linux's answers once, then rcuproc's in every mode. */
static inline void check_all_modes(const struct or_scenario *sc)
{
	struct or_results lin;
	int diffs = 0;

	need_root();
	linux_answers(sc, &lin);
	for (enum rp_sync_mode m = RP_SYNC_RCU; m <= RP_SYNC_QRWLOCK; m++)
		diffs += rcuproc_diffs(sc, &lin, m);
	cr_assert_eq(diffs, 0, "%s: %d answers differ from Linux (diff above)", sc->name, diffs);
}

#endif /* RP_TESTS_ORACLE_SCENARIO_H */
