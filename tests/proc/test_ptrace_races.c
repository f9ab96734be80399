/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The windows of a ptrace stop, each made deterministic: a race point
 * (src/debug/racepoint.h, debug builds) holds the tracee inside the window
 * while its tracer acts.  The points are taken with no lock held, so the
 * same steps run in every mode.
 *
 *  - attach_stopped (I3): an attach to a process in a group stop returns
 *    once the tracee has trapped and told of it, so that the tracer's very
 *    next wait, WNOHANG, reports the stop (Linux's JOBCTL_TRAPPING).  The
 *    tracee is held before its trap until its tracer waits for it: an
 *    attach that does not wait polls while it is held.
 *    RP_BREAK_NO_TRAP_WAIT.
 *  - attach_tracee_killed: the tracee is held before that trap and killed;
 *    the attach that waits for it returns.
 *  - detach_after_notice: a tracee is held in its stop before it has told
 *    anyone.  Its tracer's wait reports the stop and the tracer detaches:
 *    the detach waits until the tracee has told, so the tracer gets its
 *    SIGCHLD and the real parent nothing (Linux's wait_task_inactive).
 *    RP_BREAK_NO_TRAP_WAIT.
 *  - tracer_exit_before_notice: held there, the tracer exits instead; the
 *    tracee then tells nobody, above all not its real parent, to which the
 *    exit handed it back (Linux's check of current->ptrace).
 *    RP_BREAK_NOTICE_TO_PARENT.
 *  - kill_ends_ptrace_stop: held there, the tracee is killed; ps reads it
 *    no longer stopped for its tracer (t) before its thread runs.
 *    RP_BREAK_KILL_LEAVES_STOPPED.
 *  - attach_publishes_whole_part (I5): a tracer's first attach makes its
 *    ptrace part (the list of its tracees) and is held between the part's
 *    set-up and its publication, with the update lock, so in rcu mode
 *    only: a reader sees no part or a whole one, and a wait by another
 *    thread of the tracer's group, which walks that list, answers ECHILD.
 *    RP_BREAK_PTRACE_PART_EARLY (the part published first: a list head of
 *    zeroes, no back pointer).
 */
#include <errno.h>
#include <sys/ptrace.h>
#include <criterion/criterion.h>
#include <rcuproc/snapshot.h>
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"

/* ------------------------------------------------------ jobs on other threads */

/* The tracee's return to user space: stops, traps, and comes back. */
static long signal_job(struct job *j)
{
	return rp_get_signal(j->t, NULL);
}

/* PTRACE_SEIZE of j->pid, then at once wait4(j->pid, WNOHANG). */
static long attach_poll_job(struct job *j)
{
	long ret = rp_ptrace(j->t, PTRACE_SEIZE, j->pid, NULL, NULL);

	return ret ? ret : rp_wait4(j->t, j->pid, &j->status, WNOHANG | __WALL, NULL);
}

static long seize_job(struct job *j)
{
	return rp_ptrace(j->t, PTRACE_SEIZE, j->pid, NULL, NULL);
}

static bool traced(struct rp_task *t)
{
	return task_jobctl_any(t, RP_JOBCTL_TRACED);
}

/*
 * A system in @mode with init's children *@c, stopped by SIGSTOP on job
 * @cj (its thread sleeps in the stop; @cj->pid: its pid), and *@tracer.
 */
static void stopped_child(enum rp_sync_mode mode, struct rp_task **c, struct rp_task **tracer,
			  struct job *cj)
{
	start(mode);
	*c = spawn(init, SIGCHLD);
	*tracer = spawn(init, SIGCHLD);
	cj->pid = rp_getpid(*c);
	cr_assert_eq(rp_kill(init, cj->pid, SIGSTOP), 0);
	job_start(cj, signal_job, *c);
	await_task(task_stopped, *c);
}

/* Kill c (again, maybe: a zombie takes it too), whose job then ends; end the tracer. */
static void end_stopped_child(struct rp_task *c, struct rp_task *tracer, struct job *cj)
{
	cr_assert_eq(rp_kill(init, cj->pid, SIGKILL), 0);
	cr_assert_eq(job_join(cj), -ESRCH);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(c);
	rp_task_put(tracer);
	rp_debug_race_hook(NULL);
	finish();
}

/* The tracer's SIGCHLD: CLD_STOPPED with status 0 from @tid (PTRACE_INTERRUPT's trap). */
static void expect_trap_notice(struct rp_task *tracer, pid_t tid)
{
	siginfo_t si;

	cr_assert_eq(rp_get_signal(tracer, &si), SIGCHLD, "the tracer was not told");
	cr_assert_eq(si.si_code, CLD_STOPPED);
	cr_assert_eq(si.si_pid, tid);
	cr_assert_eq(si.si_status, 0);
}

static void end_race(void)
{
	rp_debug_race_hook(NULL);
	finish();
}

/* ------------------------------------------------------ attach to a stopped task */

static void attach_stopped(enum rp_sync_mode mode)
{
	struct job cj = { 0 }, tj = { 0 };
	struct rp_task *c, *tracer;

	stopped_child(mode, &c, &tracer, &cj);
	arm_until(RP_RACE_PTRACE_TRAP, c, RP_RACE_PTRACE_AWAIT);
	tj.pid = cj.pid;
	job_start(&tj, attach_poll_job, tracer);
	cr_assert_eq(job_join(&tj), tj.pid, "the wait right after the attach answered %ld", tj.ret);
	cr_assert_eq(tj.status, (PTRACE_EVENT_STOP << 16) | STOPPED_BY(SIGSTOP));
	release();
	end_stopped_child(c, tracer, &cj);
}

TEST_EACH_MODE(attach_stopped, attach_stopped)

static void attach_tracee_killed(enum rp_sync_mode mode)
{
	struct job cj = { 0 }, tj = { 0 };
	struct rp_task *c, *tracer;

	stopped_child(mode, &c, &tracer, &cj);
	arm(RP_RACE_PTRACE_TRAP, c, true, true);
	race_count_jobs();
	tj.pid = cj.pid;
	job_start(&tj, seize_job, tracer);
	cr_assert(await_reached(1), "the tracee never went to its trap");
	/* Held before its trap: the kill must end the attach's wait. */
	cr_assert_eq(rp_kill(init, tj.pid, SIGKILL), 0);
	cr_assert(await_jobs_done(1), "the attach waits for a tracee that was killed");
	cr_assert_eq(job_join(&tj), 0);
	release();
	end_stopped_child(c, tracer, &cj);
}

TEST_EACH_MODE(attach_tracee_killed, attach_tracee_killed)

/* ------------------------------------------------------ the stop's notice */

/*
 * Process p's child c, seized by tracer (p's sibling), traps for
 * PTRACE_INTERRUPT on job @cj and is held before it tells of its trap.
 * Both p and the tracer catch SIGCHLD.
 */
static void trap_held(struct rp_task **p, struct rp_task **c, struct rp_task **tracer,
		      struct job *cj, enum rp_race_point until)
{
	*p = spawn(init, SIGCHLD);
	*c = spawn(*p, SIGCHLD);
	*tracer = spawn(init, SIGCHLD);
	handle(*p, SIGCHLD);
	handle(*tracer, SIGCHLD);
	cr_assert_eq(rp_ptrace(*tracer, PTRACE_SEIZE, rp_getpid(*c), NULL, NULL), 0);
	if (until == RP_RACE_PTRACE_NOTIFY)
		arm(RP_RACE_PTRACE_NOTIFY, *c, true, true);
	else
		arm_until(RP_RACE_PTRACE_NOTIFY, *c, until);
	cr_assert_eq(rp_ptrace(*tracer, PTRACE_INTERRUPT, rp_getpid(*c), NULL, NULL), 0);
	job_start(cj, signal_job, *c);
	cr_assert(await_reached(1), "the tracee never trapped");
}

/* c is the tracer's no more: kill it, p reaps it, everyone ends. */
static void end_trap(struct rp_task *p, struct rp_task *c, struct rp_task *tracer)
{
	pid_t pid = rp_getpid(c);
	int status;

	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(p, pid, &status, 0, NULL), pid);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	rp_exit_group(tracer, 0);
	rp_task_put(p);
	rp_task_put(c);
	rp_task_put(tracer);
	end_race();
}

static void detach_after_notice(enum rp_sync_mode mode)
{
	struct rp_task *p, *c, *tracer;
	struct job cj = { 0 };
	int status;
	pid_t pid;

	start(mode);
	race_count_jobs();
	trap_held(&p, &c, &tracer, &cj, RP_RACE_PTRACE_AWAIT);
	pid = rp_getpid(c);
	cr_assert(traced(c));
	cr_assert_eq(rp_wait4(tracer, pid, &status, WNOHANG | __WALL, NULL), pid);
	cr_assert_eq(status, (PTRACE_EVENT_STOP << 16) | STOPPED_BY(SIGTRAP));
	cr_assert_eq(rp_ptrace(tracer, PTRACE_DETACH, pid, NULL, NULL), 0);
	release();
	cr_assert_eq(job_join(&cj), 0);
	expect_trap_notice(tracer, pid);
	cr_assert_not(is_pending(p, SIGCHLD), "the real parent was told of its tracer's trap");
	end_trap(p, c, tracer);
}

TEST_EACH_MODE(detach_after_notice, detach_after_notice)

static void tracer_exit_before_notice(enum rp_sync_mode mode)
{
	struct rp_task *p, *c, *tracer;
	struct job cj = { 0 };

	start(mode);
	race_count_jobs();
	trap_held(&p, &c, &tracer, &cj, RP_RACE_PTRACE_NOTIFY);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	cr_assert_eq(c->ptrace, 0u);
	release();
	cr_assert_eq(job_join(&cj), 0);
	cr_assert_not(is_pending(p, SIGCHLD), "the real parent was told of a trap");
	end_trap(p, c, tracer);
}

TEST_EACH_MODE(tracer_exit_before_notice, tracer_exit_before_notice)

/*
 * Ps reads a tracee as stopped for its tracer until the kill, not until its
 * thread next runs: Linux's fatal wake-up ends a ptrace stop (TASK_TRACED)
 * at once.  The tracee is held in its stop, before its notice (so its
 * tracer's requests, PTRACE_KILL too, would wait for it): after init's
 * SIGKILL ps reads it no longer 't', though the thread has not run since.
 */
static void kill_ends_ptrace_stop(enum rp_sync_mode mode)
{
	struct rp_task *p, *c, *tracer;
	struct job cj = { 0 };
	int status;
	pid_t pid;

	start(mode);
	race_count_jobs();
	trap_held(&p, &c, &tracer, &cj, RP_RACE_PTRACE_NOTIFY);
	pid = rp_getpid(c);
	cr_assert_eq(rp_proc_state(init, pid), 't');
	cr_assert_eq(rp_kill(init, pid, SIGKILL), 0);
	cr_assert_neq(rp_proc_state(init, pid), 't', "still stopped for its tracer after the kill");
	release();
	cr_assert_eq(job_join(&cj), -ESRCH);
	cr_assert_eq(rp_wait4(tracer, pid, &status, __WALL, NULL), pid);	/* its tracer first */
	cr_assert_eq(status, SIGKILL);
	cr_assert_eq(rp_wait4(p, pid, &status, 0, NULL), pid);
	cr_assert_eq(status, SIGKILL);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(p);
	rp_task_put(c);
	rp_task_put(tracer);
	end_race();
}

TEST_EACH_MODE(kill_ends_ptrace_stop, kill_ends_ptrace_stop)

/* ------------------------------------------------------ the ptrace part's publication */

/* Has @t no ptrace part, or one set up for it (a reader's view, rp_read_lock held)? */
static bool part_none_or_whole_rcu(struct rp_task *t)
{
	struct rp_ptrace_part *pt = rcu_dereference(t->ptrace_part);

	return !pt || (pt->task == t && CMM_LOAD_SHARED(pt->ptraced.next) == &pt->ptraced &&
		       CMM_LOAD_SHARED(pt->entry.node.next) == &pt->entry.node);
}

static void attach_publishes_whole_part(enum rp_sync_mode mode)
{
	bool hold = mode == RP_SYNC_RCU, whole = true;
	struct rp_task *c, *tracer, *t;
	struct job tj = { 0 };
	long r = -ECHILD;

	start(mode);
	race_count_jobs();
	c = spawn(init, SIGCHLD);
	tracer = spawn(init, SIGCHLD);
	t = thread_of(tracer);
	cr_assert_null(tracer->ptrace_part, "a part before the first attach");
	if (hold)
		arm(RP_RACE_PTRACE_PART, tracer, true, false);
	tj.pid = rp_getpid(c);
	job_start(&tj, seize_job, tracer);
	if (hold) {
		cr_assert(await_reached(1), "the attach made no part for the tracer");
		rp_read_lock(&sys->sync);
		whole = part_none_or_whole_rcu(tracer);
		rp_read_unlock(&sys->sync);
		/* The walk of the tracer's list, by its other thread. */
		if (whole)
			r = rp_wait4(t, -1, NULL, WNOHANG | __WALL, NULL);
		release();
	}
	cr_assert(whole, "a reader saw the tracer's part before it was set up");
	cr_assert_eq(r, -ECHILD, "the tracer's thread's wait answered %ld mid attach", r);
	cr_assert_eq(job_join(&tj), 0);
	cr_assert_not_null(tracer->ptrace_part);
	cr_assert_eq(tracer->ptrace_part->task, tracer);
	cr_assert_eq(c->ptrace_part->entry.owner, tracer);
	end_task(t);
	end_child(init, tracer);
	cr_assert_eq(c->ptrace, 0u, "the tracer's exit detached its tracee");
	end_child(init, c);
	end_race();
}

TEST_EACH_MODE(attach_publishes_whole_part, attach_publishes_whole_part)
