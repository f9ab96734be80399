/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces and ptrace (docs/namespaces.md, "Translation" and
 * "Handles and ptrace access"): the exec event's former tid as the
 * tracer's namespace numbers it, and the ptrace read access that opening
 * another task's namespace handle needs.  Each answer is the one this
 * machine's Linux (6.18) gave to the same calls, recorded there, asserted
 * in every synchronization mode.
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

/* @self opens the handle of @nr's pid namespace (@for_children: pid_for_children): 0 or -errno. */
static int open_ns(struct rp_task *self, pid_t nr, int for_children)
{
	struct rp_pidns *ns = NULL;
	int err = rp_pidns_open(self, nr, for_children, &ns);

	if (!err)
		rp_pidns_put(ns);
	return err;
}

/*
 * A child of init with the ids @r, @e, @s (root's setresuid: every root id
 * gone, no capability left; a new euid, not dumpable), dumpable again if
 * @dumpable; its number in *@nr.
 */
static struct rp_task *as_user(uid_t r, uid_t e, uid_t s, bool dumpable, pid_t *nr)
{
	struct rp_task *t = clone_of(init, SIGCHLD, nr);

	cr_assert_eq(rp_setresuid(t, r, e, s), 0);
	cr_assert_eq(rp_prctl(t, PR_GET_DUMPABLE, 0), 0);
	if (dumpable)
		cr_assert_eq(rp_prctl(t, PR_SET_DUMPABLE, 1), 0);
	return t;
}

static long seize(struct rp_task *tracer, pid_t nr)
{
	return rp_ptrace(tracer, PTRACE_SEIZE, nr, NULL, NULL);
}

/*
 * Opening another task's pid namespace handle needs ptrace read access
 * with the caller's file-system credentials (Linux's proc_ns_get_link:
 * ptrace_may_access(PTRACE_MODE_READ_FSCREDS), EACCES), checked before
 * pid_for_children's ENOENT; one's own process always passes.  The
 * answers are those Linux 6.18 gave (docs/namespaces.md): a caller of
 * uid 1000 without capabilities opens a dumpable task of its uid in all
 * three ids, not a non-dumpable one, a dumpable zombie but not a
 * non-dumpable one, nor one of another uid in any id; its euid counts
 * (uid 1000, euid 2000 opens a task of 2000, which it may not seize; uid
 * 2000, euid 1000 the reverse); CAP_SYS_PTRACE opens all; a uid-0 caller
 * without it is refused, for the handle and for an attach, a task whose
 * permitted capabilities are not all its own (commoncap's rule).
 */
Test(pidns_access, open_needs_read_access)
{
	FOR_EACH_MODE(m) {
		struct rp_task *u, *ut, *v, *w, *h, *i, *x, *y, *z, *r, *zc, *d;
		pid_t unr, utnr, vnr, wnr, hnr, inr, xnr, ynr, znr, rnr, zcnr, dnr;

		start(m);
		u = as_user(1000, 1000, 1000, false, &unr);
		ut = clone_of(u, THREAD_FLAGS, &utnr);
		/* Its own process, not dumpable and without capabilities. */
		cr_assert_eq(open_ns(u, unr, 0), 0);
		cr_assert_eq(open_ns(u, unr, 1), 0);
		cr_assert_eq(open_ns(u, utnr, 0), 0);
		/* Its uid, not dumpable, then dumpable. */
		v = as_user(1000, 1000, 1000, false, &vnr);
		cr_assert_eq(open_ns(u, vnr, 0), -EACCES);
		cr_assert_eq(open_ns(u, vnr, 1), -EACCES);
		cr_assert_eq(rp_prctl(v, PR_SET_DUMPABLE, 1), 0);
		cr_assert_eq(open_ns(u, vnr, 0), 0);
		cr_assert_eq(open_ns(u, vnr, 1), 0);
		/* Another uid in all three ids, in the saved one, in the effective one. */
		w = as_user(2000, 2000, 2000, true, &wnr);
		h = as_user(1000, 1000, 2000, true, &hnr);
		i = as_user(1000, 2000, 1000, true, &inr);
		cr_assert_eq(open_ns(u, wnr, 0), -EACCES);
		cr_assert_eq(open_ns(u, hnr, 0), -EACCES);
		cr_assert_eq(open_ns(u, inr, 0), -EACCES);
		/* The handle reads the caller's euid (its fsuid), an attach its real uid. */
		x = as_user(1000, 2000, 2000, false, &xnr);
		y = as_user(2000, 1000, 1000, false, &ynr);
		cr_assert_eq(open_ns(x, wnr, 0), 0);
		cr_assert_eq(seize(x, wnr), -EPERM);
		cr_assert_eq(open_ns(y, wnr, 0), -EACCES);
		cr_assert_eq(seize(y, wnr), 0);
		/* CAP_SYS_PTRACE: anyone's. */
		cr_assert_eq(open_ns(init, hnr, 0), 0);
		/* uid 0 without CAP_SYS_PTRACE: only tasks with no capability it lacks. */
		z = clone_of(init, SIGCHLD, &znr);
		cr_assert_eq(rp_cap_drop(z, RP_CAP_SYS_PTRACE), 0);
		r = clone_of(init, SIGCHLD, &rnr);
		zc = clone_of(z, SIGCHLD, &zcnr);
		cr_assert_eq(open_ns(z, rnr, 0), -EACCES);
		cr_assert_eq(seize(z, rnr), -EPERM);
		cr_assert_eq(open_ns(z, zcnr, 0), 0);
		/* Zombies: dumpable (pid_for_children gone with its exit), not dumpable. */
		d = as_user(1000, 1000, 1000, false, &dnr);
		cr_assert_eq(rp_exit_group(v, 0), 0);
		cr_assert_eq(rp_exit_group(d, 0), 0);
		cr_assert_eq(open_ns(u, vnr, 0), 0);
		cr_assert_eq(open_ns(u, vnr, 1), -ENOENT);
		cr_assert_eq(open_ns(u, dnr, 0), -EACCES);
		cr_assert_eq(open_ns(u, dnr, 1), -EACCES);

		end_task(ut);
		struct rp_task *all[] = { u, y, w, h, i, x, zc, z, r };
		for (unsigned int k = 0; k < sizeof(all) / sizeof(all[0]); k++) {
			cr_assert_eq(rp_exit_group(all[k], 0), 0);
			rp_task_put(all[k]);
		}
		rp_task_put(v);
		rp_task_put(d);
		finish();
	}
}

/* rp_pidns_open(pid @j->pid) as the job's task: 0 (the handle put) or -errno. */
static long open_job(struct job *j)
{
	return open_ns(j->t, j->pid, 0);
}

/*
 * The check is lock-free in rcu mode, so a target may change identity
 * during it.  Opener U (uid 1000, no capability) is held in its check of
 * root task T after reading T's credentials (RP_RACE_PTRACE_ACCESS); T
 * then takes uid 1000 in all three ids, which leaves it non-dumpable.
 * The open must fail with EACCES, every time: the old credentials are not
 * U's, and new ones come with the cleared flag.  Caught:
 * RP_BREAK_DUMPABLE_BEFORE_CREDS (the flag read first, from before the
 * change, with the new credentials read after it).  rcu mode only: in
 * the lock modes the check holds the read lock that the change of
 * credentials needs, so there is no window.
 */
Test(open_identity_change, rcu)
{
	struct job o = { 0 };
	struct rp_task *u, *t;
	pid_t unr;
	long ret;

	start(RP_SYNC_RCU);
	u = as_user(1000, 1000, 1000, false, &unr);
	t = clone_of(init, SIGCHLD, &o.pid);
	arm(RP_RACE_PTRACE_ACCESS, t, true, false);
	job_start(&o, open_job, u);
	cr_assert(await_reached(1), "the open never read the target's credentials");
	cr_assert_eq(rp_setresuid(t, 1000, 1000, 1000), 0);
	release();
	ret = job_join(&o);
	rp_debug_race_hook(NULL);
	cr_assert_eq(ret, -EACCES, "opened the handle of a task that changed identity during "
		     "the check: %ld", ret);
	cr_assert_eq(rp_exit_group(t, 0), 0);
	cr_assert_eq(rp_exit_group(u, 0), 0);
	rp_task_put(t);
	rp_task_put(u);
	finish();
}
