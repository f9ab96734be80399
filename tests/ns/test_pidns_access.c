/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces and ptrace (docs/namespaces.md, "Translation"): the exec
 * event's former tid as the tracer's namespace numbers it.  Each answer is
 * the one this machine's Linux (6.18) gave to the same calls, recorded
 * there, asserted in every synchronization mode.
 */
#include <errno.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"
#include "../common.h"

/* @parent clones a child with @flags: the child, its pid as @parent sees it in *@nr. */
static struct rp_task *clone_of(struct rp_task *parent, unsigned long flags, pid_t *nr)
{
	struct rp_task *c = NULL;

	*nr = rp_clone(parent, flags, &c);
	cr_assert_gt(*nr, 0, "clone: %d", *nr);
	return c;
}

/* rp_get_signal as the job's task: a tracee's trap, until it is killed. */
static long get_signal_job(struct job *j)
{
	return rp_get_signal(j->t, NULL);
}

/*
 * @tracer waits for its tracee @nr, which runs a trap in @j, to stop in
 * the exec event; the event's message, then @tracer kills and reaps it.
 */
static unsigned long exec_event_message(struct rp_task *tracer, pid_t nr, struct rp_task *t)
{
	unsigned long msg = ~0UL;
	int status = -1;
	struct job j;

	job_start(&j, get_signal_job, t);
	cr_assert_eq(rp_wait4(tracer, nr, &status, 0, NULL), nr);
	cr_assert_eq(status >> 8, SIGTRAP | (PTRACE_EVENT_EXEC << 8), "status %#x", status);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_GETEVENTMSG, nr, NULL, &msg), 0);
	cr_assert_eq(rp_kill(tracer, nr, SIGKILL), 0);
	job_join(&j);
	cr_assert_eq(rp_wait4(tracer, nr, &status, 0, NULL), nr);
	cr_assert_eq(status, KILLED_BY(SIGKILL));
	return msg;
}

/*
 * PTRACE_GETEVENTMSG after PTRACE_EVENT_EXEC: the exec'ing thread's former
 * tid as the tracer's namespace numbers it (Linux's exec_binprm reads it
 * before de_thread, in the namespace of the tracer).  A namespace's init
 * traces the second thread (3) of its child (2); the thread execs and
 * takes the leader's number: the message is 3, not its root number.  The
 * table's init, tracing that namespace's init, reads its number outside,
 * not 1.
 */
Test(pidns_access, exec_event_tid)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *p, *t;
		unsigned long opts = PTRACE_O_TRACEEXEC;
		pid_t outer, pnr, tnr;
		struct puppet leader;
		unsigned long msg;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		p = clone_of(nsinit, SIGCHLD, &pnr);
		t = clone_of(p, THREAD_FLAGS, &tnr);
		cr_assert_eq(pnr, 2);
		cr_assert_eq(tnr, 3);
		cr_assert_eq(rp_ptrace(nsinit, PTRACE_SEIZE, tnr, NULL, (void *)opts), 0);
		puppet_start(&leader, p);
		cr_assert_eq(rp_execve(t, "next"), 0);
		puppet_join_dead(&leader);
		cr_assert_eq(rp_gettid(t), pnr);
		msg = exec_event_message(nsinit, pnr, t);
		cr_assert_eq(msg, (unsigned long)tnr, "exec event message %lu, not the former tid "
			     "in the tracer's namespace (%d)", msg, tnr);
		rp_task_put(p);
		rp_task_put(t);

		/* The table's init traces that namespace's init: its number outside, not 1. */
		cr_assert_eq(rp_ptrace(init, PTRACE_SEIZE, outer, NULL, (void *)opts), 0);
		cr_assert_eq(rp_execve(nsinit, "init2"), 0);
		msg = exec_event_message(init, outer, nsinit);
		cr_assert_eq(msg, (unsigned long)outer, "exec event message %lu, not %d", msg, outer);
		rp_task_put(nsinit);
		finish_all_reaped();
	}
}
