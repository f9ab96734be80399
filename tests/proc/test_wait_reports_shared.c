/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wait's stopped and continued reports under the update gate shared (rcu
 * mode; docs/process.md, protocol (g), "What is built"): beside another
 * shared holder, and held between the selection under T of the child's
 * real parent and the judgement under the child's siglock while the child
 * is continued and stopped again, traced, exits, or is reparented; a
 * child traced by the waiter's own group before the report's locks, whose
 * report becomes a tracee's; the update lock no report takes; and
 * a report of an old leader that an exec released, whose real parent is
 * freed meanwhile.  A tracee's stop reported to its tracer (protocol (h)):
 * held between its locks (T of the real parent and of the tracer) and
 * the tracee's siglock while the tracer resumes the tracee from another
 * thread, and while the tracee is killed; the update lock it takes not.
 */
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <rcuproc/pgrp.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"
#include "../fixture/racenote.h"
#include "debug/shared.h"

static int returned;		/* uatomic: the job noting it returned */

static long noted_wait_job(struct job *j)
{
	long ret = wait_job(j);

	uatomic_set(&returned, 1);
	return ret;
}

static siginfo_t reported;	/* noted_waitid_job's */

/* waitid(P_PID, pid, WSTOPPED) as the job's task, into reported. */
static long noted_waitid_job(struct job *j)
{
	long ret = rp_waitid(j->t, P_PID, (id_t)j->pid, &reported, WSTOPPED);

	uatomic_set(&returned, 1);
	return ret;
}

static long noted_request_job(struct job *j)
{
	long ret = rp_ptrace(j->t, j->sig, j->pid, NULL, NULL);

	uatomic_set(&returned, 1);
	return ret;
}

static long noted_exit_job(struct job *j)
{
	long ret = rp_exit(j->t, 0);

	uatomic_set(&returned, 1);
	return ret;
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

static long signal_job(struct job *j)
{
	return rp_get_signal(j->t, NULL);
}

/* Until a taker of T of tree_of or of the gate exclusive waits, or the noted job returned. */
static void await_wait_or_return(void)
{
	while (!uatomic_read(&tree_waits) && !uatomic_read(&excl_waits) &&
	       !uatomic_read(&returned))
		usleep(1000);
}

/* Note waits and returns afresh; @t's T in tree_waits. */
static void note_afresh(struct rp_task *t)
{
	uatomic_set(&excl_waits, 0);
	uatomic_set(&tree_waits, 0);
	uatomic_set(&returned, 0);
	CMM_STORE_SHARED(tree_of, t);
}

/* Start wait4(@pid, @options) as @t on @j, noted in returned. */
static void start_wait(struct job *j, struct rp_task *t, pid_t pid, int options)
{
	j->pid = pid;
	j->options = options;
	job_start(j, noted_wait_job, t);
}

/*
 * Hold @t's next report under the gate shared between its selection under
 * T of @t's real parent and its siglock (held online: a read section),
 * noting waits for T of @tree, and start @p's wait4(@t's pid, @options)
 * on @j, which reaches it.
 */
static void start_held_report(struct job *j, struct rp_task *p, struct rp_task *t, int options,
			      struct rp_task *tree)
{
	note_afresh(tree);
	race_count_jobs();
	arm(RP_RACE_REPORT_LINKED, t, true, false);
	rp_debug_race_hook(note_hook);
	start_wait(j, p, rp_getpid(t), options);
	cr_assert(await_reached(1), "the report did not go under the gate shared");
}

/*
 * With a report held, start @fn as @t on @j, noted in returned, and wait
 * until it waits for T of tree_of or for the gate exclusive, or returns.
 */
static void start_beside_held(struct job *j, long (*fn)(struct job *), struct rp_task *t)
{
	uatomic_set(&returned, 0);	/* the wait is held: now this job's */
	job_start(j, fn, t);
	await_wait_or_return();
}

/*
 * With a report held, @t's ptrace(@request, @pid) on @j (start_beside_held)
 * waits for the T of tree_of that the report holds (@what: the request).
 */
static void request_beside_held(struct job *j, struct rp_task *t, long request, pid_t pid,
				const char *what)
{
	j->sig = (int)request;
	j->pid = pid;
	start_beside_held(j, noted_request_job, t);
	cr_expect(uatomic_read(&tree_waits) && !uatomic_read(&returned),
		  "%s did not wait for the report's T", what);
}

/* Let the held report go: it reports @pid with @status; then job @j returns @ret. */
static void release_report(struct job *jr, pid_t pid, int status, struct job *j, long ret)
{
	release();
	cr_assert_eq(job_join(jr), pid);
	cr_expect_eq(jr->status, status, "status %#x", (unsigned int)jr->status);
	cr_assert_eq(job_join(j), ret);
	rp_debug_race_hook(NULL);
}

/* Is @t's group stopped with code @sig, not yet reported (its siglock)? */
static bool group_stopped_by(struct rp_task *t, int sig)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	bool stopped = sh && (t->signal->flags & RP_SIGNAL_STOP_STOPPED) &&
		       t->signal->group_exit_code == sig;

	if (sh)
		rp_unlock_sighand(sh);
	return stopped;
}

static bool group_stopped_by_tstp(struct rp_task *t)
{
	return group_stopped_by(t, SIGTSTP);
}

/* @p's child @c, given a puppet @d, stopped by SIGSTOP and reportable to @p. */
static void stop_child(struct rp_task *p, struct rp_task *c, struct puppet *d)
{
	pid_t cpid = rp_getpid(c);
	siginfo_t si;

	puppet_start(d, c);
	cr_assert_eq(rp_kill(p, cpid, SIGSTOP), 0);
	cr_assert_eq(rp_waitid(p, P_PID, (id_t)cpid, &si, WSTOPPED | WNOWAIT), 0);
	cr_assert_eq(si.si_code, CLD_STOPPED);
}

/*
 * P, init's child, and C, P's child with a puppet, stopped by SIGSTOP and
 * reportable to P (stop_child).  P blocks SIGCHLD, so that its waits are
 * never interrupted.  With @own_group C is in a process group of its own, tied
 * to P's (so that SIGTSTP stops it).  C's pid.
 */
static pid_t stopped_child(struct rp_task **p, struct rp_task **c, struct puppet *d,
			   bool own_group)
{
	start(RP_SYNC_RCU);
	*p = fork_of(init);
	mask_signal(*p, SIG_BLOCK, SIGCHLD);
	*c = fork_of(*p);
	if (own_group)
		cr_assert_eq(rp_setpgid(*p, rp_getpid(*c), rp_getpid(*c)), 0);
	stop_child(*p, *c, d);
	return rp_getpid(*c);
}

/* @t's waitid of @cpid's stop finds nothing left to report; then @cpid is killed. */
static void reported_once_then_killed(struct rp_task *t, pid_t cpid)
{
	siginfo_t si;

	cr_expect_eq(rp_waitid(t, P_PID, (id_t)cpid, &si, WSTOPPED | WNOHANG), 0);
	cr_expect_eq(si.si_pid, 0, "reported once");
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
}

/* @c (puppet @d) is killed and @p reaps it; then @p ends. */
static void end_stopped_child(struct rp_task *p, struct rp_task *c, struct puppet *d)
{
	pid_t cpid = rp_getpid(c);
	int status = -1;

	cr_assert_eq(rp_kill(p, cpid, SIGKILL), 0);
	puppet_join_dead(d);
	cr_assert_eq(rp_wait4(p, cpid, &status, 0, NULL), cpid);
	cr_assert_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(c);
	end_child(init, p);
}

/*
 * W's PR_SET_CHILD_SUBREAPER holds the gate shared, its walk held once it
 * marked K.  P's wait4(WUNTRACED) of its stopped child C and, after a
 * SIGCONT, its wait4(WCONTINUED) are both done while the walk is held.
 * A report that takes the gate exclusive waits for the walk.
 */
Test(reports_shared, beside_a_shared_holder)
{
	struct rp_task *w, *k, *p, *c;
	struct job jw, jr;
	struct puppet d;
	pid_t cpid;

	cpid = stopped_child(&p, &c, &d, false);
	w = fork_of(init);
	k = fork_of(w);
	note_afresh(NULL);
	start_held_with(&jw, subreaper_job, w, RP_RACE_SUBREAPER_WALK, k, note_hook);
	start_wait(&jr, p, cpid, WUNTRACED);
	await_wait_or_return();
	cr_expect(uatomic_read(&returned), "a stopped report waited for a shared holder");
	if (uatomic_read(&returned)) {
		cr_assert_eq(job_join(&jr), cpid);
		cr_expect_eq(jr.status, STOPPED_BY(SIGSTOP));
		cr_assert_eq(rp_kill(init, cpid, SIGCONT), 0);
		note_afresh(NULL);
		start_wait(&jr, p, cpid, WCONTINUED);
		await_wait_or_return();
		cr_expect(uatomic_read(&returned), "a continued report waited for a shared holder");
	}
	release();
	cr_assert_eq(job_join(&jw), 0);
	cr_assert_gt(job_join(&jr), 0);
	rp_debug_race_hook(NULL);
	end_child(w, k);
	end_child(init, w);
	end_stopped_child(p, c, &d);
	finish_all_reaped();
}

/*
 * P's wait4(WUNTRACED) of C, stopped by SIGSTOP, is held after its
 * selection under T of P, before C's siglock.  Meanwhile C is continued
 * and then stopped by SIGTSTP: a stop and a continue are the siglock's to
 * change, not T's.  The report judges the stop again under the siglock:
 * it reports SIGTSTP, and nothing is left to report.  Had it reported the
 * SIGSTOP stop, which came before the SIGCONT, the SIGTSTP stop after it
 * would still be due.  RP_BREAK_REPORT_JUDGED_UNLOCKED reports the SIGSTOP
 * it judged under T and consumes the SIGTSTP stop unreported.
 */
Test(reports_shared, continued_and_stopped_again)
{
	struct rp_task *p, *c;
	struct puppet d;
	struct job jr;
	int status = -1;
	pid_t cpid;
	long ret;

	cpid = stopped_child(&p, &c, &d, true);
	start_held_report(&jr, p, c, WUNTRACED, p);
	cr_assert_eq(rp_kill(init, cpid, SIGCONT), 0);
	cr_assert_eq(rp_kill(init, cpid, SIGTSTP), 0);
	await_task(group_stopped_by_tstp, c);
	release();
	cr_assert_eq(job_join(&jr), cpid);
	rp_debug_race_hook(NULL);
	ret = rp_wait4(p, cpid, &status, WUNTRACED | WCONTINUED | WNOHANG, NULL);
	if (jr.status == STOPPED_BY(SIGSTOP)) {
		cr_expect(ret == cpid && status == STOPPED_BY(SIGTSTP),
			  "the stop before SIGCONT was reported, then the SIGTSTP stop after it "
			  "was not (%ld, status %#x)", ret, (unsigned int)status);
	} else {
		cr_expect_eq(jr.status, STOPPED_BY(SIGTSTP), "status %#x", (unsigned int)jr.status);
		cr_expect_eq(ret, 0, "the SIGTSTP stop reported twice");
	}
	end_stopped_child(p, c, &d);
	finish_all_reaped();
}

/*
 * P's wait4(WUNTRACED) of its stopped child C is held after its selection
 * under T of P.  X, a process outside P's group, seizes C meanwhile: the
 * attach writes C's link under T of X and of C's real parent, P, so it
 * waits for the report, which reports the group stop to P; then the seize
 * succeeds.
 */
Test(reports_shared, attach_waits_for_report)
{
	struct rp_task *p, *c, *x;
	struct job jr, jx;
	struct puppet d;
	pid_t cpid;

	cpid = stopped_child(&p, &c, &d, false);
	x = fork_of(init);
	start_held_report(&jr, p, c, WUNTRACED, p);
	request_beside_held(&jx, x, PTRACE_SEIZE, cpid,
			    "a seize of the child (T of its real parent)");
	release_report(&jr, cpid, STOPPED_BY(SIGSTOP), &jx, 0);
	cr_expect_eq(CMM_LOAD_SHARED(c->parent), x);
	end_child(init, x);	/* C untraced again */
	end_stopped_child(p, c, &d);
	finish_all_reaped();
}

/*
 * C, stopped, reported and continued; P's wait4(WCONTINUED) of it is held
 * after its selection under T of P.  C exits meanwhile, a plain exit,
 * which makes it a zombie under T of its parent: it waits for the report,
 * which reports the continue; then P reaps C.
 */
Test(reports_shared, exit_waits_for_report)
{
	struct rp_task *p, *c;
	struct job jr, je;
	struct puppet d;
	int status = -1;
	pid_t cpid;

	cpid = stopped_child(&p, &c, &d, false);
	cr_assert_eq(rp_wait4(p, cpid, &status, WUNTRACED, NULL), cpid);
	cr_assert_eq(rp_kill(init, cpid, SIGCONT), 0);
	cr_assert_eq(puppet_quit(&d), 0);	/* C's own calls from here: no puppet */
	start_held_report(&jr, p, c, WCONTINUED, p);
	start_beside_held(&je, noted_exit_job, c);
	cr_expect(uatomic_read(&tree_waits) && !uatomic_read(&returned),
		  "the child's exit did not wait for the report's T of its parent");
	release_report(&jr, cpid, CONTINUED, &je, 0);
	cr_assert_eq(rp_wait4(p, cpid, &status, 0, NULL), cpid);
	cr_expect_eq(status, EXITED(0));
	rp_task_put(c);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * P has a second thread P2, which forked C; C is stopped.  P's
 * wait4(WUNTRACED) is held after its selection under T of P2.  P2 exits
 * meanwhile and gives C to P: the exit of a thread with a child, which
 * waits for the report's T of P2 (a thread's exit judges its children
 * under its own T) or for the gate, exclusive.  The report is P's
 * group's, and C is P's child after.
 */
Test(reports_shared, reparenting_waits_for_report)
{
	struct rp_task *p, *p2, *c;
	struct job jr, je;
	struct puppet d;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	mask_signal(p, SIG_BLOCK, SIGCHLD);
	p2 = thread_of(p);
	c = fork_of(p2);
	stop_child(p, c, &d);
	start_held_report(&jr, p, c, WUNTRACED, p2);
	start_beside_held(&je, noted_exit_job, p2);
	cr_expect((uatomic_read(&excl_waits) || uatomic_read(&tree_waits)) &&
		  !uatomic_read(&returned), "a reparenting did not wait for the report");
	release_report(&jr, rp_getpid(c), STOPPED_BY(SIGSTOP), &je, 0);
	rp_task_put(p2);
	cr_expect_eq(CMM_LOAD_SHARED(c->real_parent), p);
	end_stopped_child(p, c, &d);
	finish_all_reaped();
}

/*
 * P's waitid(WSTOPPED) of its stopped child C is held before its claim.
 * P's second thread P2 seizes C meanwhile, and C traps: C is a tracee of
 * P's own group now, whose stop P reports as its tracer's (CLD_TRAPPED),
 * consuming the trap, not the group stop.  The report's locks (T of P
 * alone: the scan saw no tracee) find C traced: it lets them go, having
 * written nothing, and scans again, and reports C as a tracee under T of
 * P and of P2.
 */
Test(reports_shared, traced_by_own_group_meanwhile)
{
	struct rp_task *p, *p2, *c;
	struct puppet d;
	struct job jr;
	siginfo_t si;
	pid_t cpid;

	cpid = stopped_child(&p, &c, &d, false);
	p2 = thread_of(p);
	race_count_jobs();
	arm(RP_RACE_WAIT_CLAIM, c, true, true);
	jr.pid = cpid;
	job_start(&jr, noted_waitid_job, p);
	cr_assert(await_reached(1), "the wait did not find C");
	cr_assert_eq(rp_ptrace(p2, PTRACE_SEIZE, cpid, NULL, NULL), 0);
	release();
	cr_assert_eq(job_join(&jr), 0);
	rp_debug_race_hook(NULL);
	si = reported;
	cr_expect_eq(si.si_pid, cpid);
	cr_expect_eq(si.si_code, CLD_TRAPPED, "a tracee of the waiter's group reported "
		     "as a group stop (si_code %d)", si.si_code);
	reported_once_then_killed(p, cpid);
	puppet_join_dead(&d);
	cr_assert_eq(rp_wait4(p2, cpid, NULL, __WALL, NULL), cpid);
	rp_task_put(c);
	end_task(p2);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * In rcu mode a child's stopped report and its continued report take no
 * update lock (the gate exclusive): the waiting thread's count of shared
 * writes on that line does not move across the two waits.
 */
Test(reports_shared, no_update_lock)
{
	unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR];
	struct rp_task *p, *c;
	struct puppet d;
	int status = -1;
	pid_t cpid;

	cpid = stopped_child(&p, &c, &d, false);
	rp_debug_shared_writes(before);
	cr_assert_eq(rp_wait4(p, cpid, &status, WUNTRACED, NULL), cpid);
	cr_expect_eq(status, STOPPED_BY(SIGSTOP));
	cr_assert_eq(rp_kill(init, cpid, SIGCONT), 0);
	cr_assert_eq(rp_wait4(p, cpid, &status, WCONTINUED, NULL), cpid);
	cr_expect_eq(status, CONTINUED);
	rp_debug_shared_writes(after);
	cr_expect_eq(after[RP_SHARED_UPDATE_LOCK] - before[RP_SHARED_UPDATE_LOCK], 0,
		     "a stopped and a continued report took the update lock %lu times",
		     after[RP_SHARED_UPDATE_LOCK] - before[RP_SHARED_UPDATE_LOCK]);
	end_stopped_child(p, c, &d);
	finish_all_reaped();
}

static long exec_call(struct rp_task *t, long arg)
{
	(void)arg;
	return rp_execve(t, "next");
}

/*
 * A's second thread B forked P; P has a second thread T, and a puppet on
 * each.  P is stopped and continued, and A's wait4(P, WCONTINUED) is held
 * at its claim of the continue it found on P, the leader.  Meanwhile T
 * execs: it takes P's pid and place, and the old leader P is released,
 * left RP_EXIT_TRACE, not DEAD, its real_parent still B.  B exits (T goes
 * to A) and is freed.  The claim must see that P is released before it
 * follows P's real_parent: reading B, or taking its T, is a use after
 * free (debug builds stop at rp_task_assert_not_freed; ASan too).  Scanned
 * again, the continue is T's, now the leader with P's pid, A's child.
 */
static void continued_old_leader_released(enum rp_sync_mode mode)
{
	struct rp_task *a, *b, *p, *t;
	struct puppet dp, dt;
	struct job w;
	siginfo_t si;
	int status = -1;
	pid_t ppid;

	start(mode);
	a = fork_of(init);
	mask_signal(a, SIG_BLOCK, SIGCHLD);
	b = thread_of(a);
	p = fork_of(b);
	t = thread_of(p);
	ppid = rp_getpid(p);
	puppet_start(&dp, p);
	puppet_start(&dt, t);
	cr_assert_eq(rp_kill(a, ppid, SIGSTOP), 0);
	cr_assert_eq(rp_waitid(a, P_PID, (id_t)ppid, &si, WSTOPPED | WNOWAIT), 0);
	cr_assert_eq(rp_kill(a, ppid, SIGCONT), 0);
	race_count_jobs();
	arm(RP_RACE_WAIT_CLAIM, p, true, true);
	w = (struct job){ .pid = ppid, .options = WCONTINUED | WNOHANG };
	job_start(&w, wait_job, a);
	cr_assert(await_reached(1), "the wait did not find P's continue");
	cr_assert_eq(puppet_call(&dt, exec_call, 0), 0);
	puppet_join_dead(&dp);
	cr_assert_eq(rp_exit(b, 0), 0);
	rp_task_put(b);
	rp_deferred_barrier();
	release();
	cr_assert_eq(job_join(&w), ppid);
	cr_expect_eq(w.status, CONTINUED, "status %#x", (unsigned int)w.status);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_kill(a, ppid, SIGKILL), 0);
	puppet_join_dead(&dt);
	cr_assert_eq(rp_wait4(a, ppid, &status, 0, NULL), ppid);
	cr_expect_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(p);
	rp_task_put(t);
	end_child(init, a);
	finish_all_reaped();
}

Test(reports_shared, continued_old_leader_released)
{
	continued_old_leader_released(RP_SYNC_RCU);
}

/* The same under the update lock: the exclusive claim's recheck. */
Test(reports_shared, continued_old_leader_released_locked)
{
	continued_old_leader_released(RP_SYNC_RWLOCK);
}

/*
 * *@c, a new child of @p, in the ptrace stop of the SIGSTOP that @x's
 * PTRACE_ATTACH sent, entered by job @jc, reportable to @x.  Its pid.
 */
static pid_t tracee_stopped(struct rp_task *x, struct rp_task *p, struct rp_task **c,
			    struct job *jc)
{
	pid_t cpid;
	siginfo_t si;

	*c = fork_of(p);
	cpid = rp_getpid(*c);
	cr_assert_eq(rp_ptrace(x, PTRACE_ATTACH, cpid, NULL, NULL), 0);
	job_start(jc, signal_job, *c);
	cr_assert_eq(rp_waitid(x, P_PID, (id_t)cpid, &si, WSTOPPED | WNOWAIT), 0);
	cr_assert_eq(si.si_code, CLD_TRAPPED);
	return cpid;
}

/*
 * P and X, init's children, and C, P's child stopped as X's tracee
 * (tracee_stopped): X, outside P's group, is its tracer, so that a report
 * of the stop takes two T.  C's pid.
 */
static pid_t foreign_tracee_stopped(struct rp_task **x, struct rp_task **p, struct rp_task **c,
				    struct job *jc)
{
	start(RP_SYNC_RCU);
	*p = fork_of(init);
	mask_signal(*p, SIG_BLOCK, SIGCHLD);
	*x = fork_of(init);
	mask_signal(*x, SIG_BLOCK, SIGCHLD);
	return tracee_stopped(*x, *p, c, jc);
}

/*
 * C, running (its job done), is killed and takes the kill on job @jc; X
 * reaps it if it traces it still, which hands it back to P, and P reaps
 * it; then X and P end.
 */
static void end_tracee(struct rp_task *x, struct rp_task *p, struct rp_task *c, struct job *jc)
{
	bool traced = CMM_LOAD_SHARED(c->parent) == x;
	pid_t cpid = rp_getpid(c);
	int status = -1;

	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	job_start(jc, signal_job, c);
	job_join(jc);
	if (traced)
		cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	cr_assert_eq(rp_wait4(p, cpid, &status, 0, NULL), cpid);
	cr_assert_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(c);
	end_child(init, x);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * In rcu mode a tracee's stop reported to its tracer takes no update lock:
 * X's waitid(WNOWAIT) and its wait4 of C's stop, and, after a
 * PTRACE_INTERRUPT, of C's PTRACE_EVENT_STOP trap, leave the waiting
 * thread's count of shared writes on that line as it was.
 */
Test(reports_shared, tracee_no_update_lock)
{
	unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR];
	struct rp_task *x, *p, *c;
	int status = -1;
	struct job jc;
	siginfo_t si;
	pid_t cpid;

	cpid = foreign_tracee_stopped(&x, &p, &c, &jc);
	rp_debug_shared_writes(before);
	cr_assert_eq(rp_waitid(x, P_PID, (id_t)cpid, &si, WSTOPPED | WNOWAIT), 0);
	cr_expect_eq(si.si_status, SIGSTOP);
	cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	cr_expect_eq(status, STOPPED_BY(SIGSTOP));
	cr_assert_eq(rp_wait4(x, cpid, &status, __WALL | WNOHANG, NULL), 0, "reported twice");
	rp_debug_shared_writes(after);
	cr_expect_eq(after[RP_SHARED_UPDATE_LOCK] - before[RP_SHARED_UPDATE_LOCK], 0,
		     "a tracee's stop reported to its tracer took the update lock %lu times",
		     after[RP_SHARED_UPDATE_LOCK] - before[RP_SHARED_UPDATE_LOCK]);
	cr_assert_eq(rp_ptrace(x, PTRACE_DETACH, cpid, NULL, NULL), 0);
	cr_assert_eq(job_join(&jc), 0);
	end_tracee(x, p, c, &jc);
}

/*
 * X's wait4 of C's stop is held under T of P and of X, before C's
 * siglock.  X's PTRACE_CONT of C, from another thread of X, is a writer
 * of the stop under T of X (and C's siglock): it waits for the report,
 * which reports the stop; then the CONT resumes C.
 * RP_BREAK_TRACE_REPORT_TRACER_UNLOCKED takes no T of X: the CONT is done
 * inside the report's window, which then finds no stop.
 */
Test(reports_shared, tracer_request_waits_for_report)
{
	struct rp_task *x, *p, *c;
	struct job jc, jr, jx;
	pid_t cpid;

	cpid = foreign_tracee_stopped(&x, &p, &c, &jc);
	start_held_report(&jr, x, c, __WALL | WNOHANG, x);
	request_beside_held(&jx, x, PTRACE_CONT, cpid, "the tracer's PTRACE_CONT (T of the tracer)");
	release_report(&jr, cpid, STOPPED_BY(SIGSTOP), &jx, 0);
	cr_assert_eq(job_join(&jc), 0, "the tracee did not resume with no signal");
	end_tracee(x, p, c, &jc);
}

/*
 * X's wait4 of C's stop is held under T of P and of X, before C's
 * siglock; C is killed meanwhile, leaves its stop, and exits until it
 * waits for the report (for T of P, under which an exit judges itself
 * traced, before the gate exclusive of a traced exit).  Judged under C's
 * siglock, the stop is over: the wait scans again and reports C's death
 * after its exit.  RP_BREAK_REPORT_JUDGED_UNLOCKED reports the stop it
 * judged under T, which the kill ended.
 */
Test(reports_shared, tracee_killed_in_the_window)
{
	struct rp_task *x, *p, *c;
	struct job jc, jr;
	int status = -1;
	pid_t cpid;

	cpid = foreign_tracee_stopped(&x, &p, &c, &jc);
	start_held_report(&jr, x, c, __WALL, p);
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	await_wait_or_return();
	cr_assert(uatomic_read(&tree_waits) || uatomic_read(&excl_waits),
		  "the tracee's exit did not wait for the report");
	cr_assert_eq(CMM_LOAD_SHARED(c->jobctl) & RP_JOBCTL_TRACED, 0u,
		     "the tracee did not leave its stop");
	release();
	cr_assert_eq(job_join(&jr), cpid);
	rp_debug_race_hook(NULL);
	job_join(&jc);
	if (jr.status != KILLED_BY(SIGKILL)) {
		cr_expect_eq(jr.status, KILLED_BY(SIGKILL),
			     "a stop that a kill ended was reported (status %#x)",
			     (unsigned int)jr.status);
		cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	}
	cr_assert_eq(rp_wait4(p, cpid, &status, 0, NULL), cpid, "not handed back to P");
	cr_expect_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(c);
	end_child(init, x);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * X traces its child C, stopped; W, another thread of X, waits for C,
 * held after it read C's tracer X under RCU and before the T.
 * Meanwhile X detaches C, which goes on, and X's thread X2 attaches it:
 * C stops for X2.  The report reads the link again under the T, finds it
 * moved, and scans again: C's stop is reported (to W, of X2's group)
 * under T of X2, and consumed once.
 * RP_BREAK_TRACE_REPORT_NO_RECHECK trusts the tracer it read: it holds
 * X's T for X2's stop, which the lock checker stops at the consumption
 * (report_stopped_locked: T of the tracer).
 */
Test(reports_shared, tracer_moved_before_the_locks)
{
	struct rp_task *x, *x2, *w, *c;
	struct job jc, jr;
	siginfo_t si;
	pid_t cpid;

	start(RP_SYNC_RCU);
	x = fork_of(init);
	w = thread_of(x);
	mask_signal(w, SIG_BLOCK, SIGCHLD);
	cpid = tracee_stopped(x, x, &c, &jc);
	x2 = thread_of(x);
	note_afresh(NULL);
	race_count_jobs();
	arm(RP_RACE_REPORT_TRACER_READ, c, true, false);
	rp_debug_race_hook(note_hook);
	start_wait(&jr, w, cpid, __WALL);
	cr_assert(await_reached(1), "the report did not go under the gate shared");
	cr_assert_eq(rp_ptrace(x, PTRACE_DETACH, cpid, NULL, NULL), 0);
	cr_assert_eq(job_join(&jc), 0, "the tracee did not go on after the detach");
	cr_assert_eq(rp_ptrace(x2, PTRACE_ATTACH, cpid, NULL, NULL), 0);
	job_start(&jc, signal_job, c);
	cr_assert_eq(rp_waitid(x2, P_PID, (id_t)cpid, &si, WSTOPPED | WNOWAIT), 0);
	cr_assert_eq(CMM_LOAD_SHARED(c->parent), x2);
	release();
	cr_assert_eq(job_join(&jr), cpid);
	cr_expect_eq(jr.status, STOPPED_BY(SIGSTOP), "status %#x", (unsigned int)jr.status);
	rp_debug_race_hook(NULL);
	reported_once_then_killed(x2, cpid);
	job_join(&jc);
	cr_assert_eq(rp_wait4(x2, cpid, NULL, __WALL, NULL), cpid);
	rp_task_put(c);
	end_task(w);
	end_task(x2);
	end_child(init, x);
	finish_all_reaped();
}

static pthread_t held_thread;	/* hold_thread_hook's: the only thread it holds */

/* race_hook, but only for held_thread: the tracee's own thread. */
static void hold_thread_hook(enum rp_race_point where, struct rp_task *t)
{
	if (pthread_equal(pthread_self(), CMM_LOAD_SHARED(held_thread)))
		race_hook(where, t);
}

/*
 * X traces C (a child of P), stopped in the SIGSTOP of X's PTRACE_ATTACH
 * on job jc.  C is killed (SIGKILL, as from any sender, or X's
 * PTRACE_KILL): on Linux the sender clears JOBCTL_TRACED under the
 * siglock (signal_wake_up(t, fatal)), so from the kill's return on
 * wait_task_stopped finds no stop, whether or not C has run yet (a
 * program on this kernel, 1000 runs: WNOHANG answers 0 or the death, never
 * the stop).  Here C's thread is held after its wake-up, before the
 * siglock under which it leaves its stop: X's wait4(WNOHANG) must not
 * report the stop the kill ended (protocol (h)'s table: "reports the stop
 * only if C is still in it; never consumes a stop that ended"), and
 * PTRACE_CONT already answers ESRCH for it (check_stopped:
 * rp_ptrace_stop_killed).  Before, the wait reported the stop in every
 * mode.
 */
static void killed_not_yet_left(bool ptrace_kill)
{
	struct rp_task *x, *p, *c;
	struct job jc;
	int status = -1;
	pid_t cpid;
	long ret;

	cpid = foreign_tracee_stopped(&x, &p, &c, &jc);
	CMM_STORE_SHARED(held_thread, jc.thread);
	race_count_jobs();
	arm(RP_RACE_SIGHAND_LOADED, c, true, false);
	rp_debug_race_hook(hold_thread_hook);
	if (ptrace_kill)
		cr_assert_eq(rp_ptrace(x, PTRACE_KILL, cpid, NULL, NULL), 0);
	else
		cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	cr_assert(await_reached(1), "the tracee did not wake for the kill");
	cr_expect_eq(rp_ptrace(x, PTRACE_CONT, cpid, NULL, NULL), -ESRCH,
		     "a request saw the killed tracee stopped");
	ret = rp_wait4(x, cpid, &status, __WALL | WNOHANG, NULL);
	cr_expect(ret == 0, "the tracer's wait reported a stop that the kill ended, as Linux "
		  "never does (%ld, status %#x)", ret, (unsigned int)status);
	release();
	job_join(&jc);
	rp_debug_race_hook(NULL);
	CMM_STORE_SHARED(held_thread, (pthread_t)0);
	cr_assert_eq(rp_wait4(x, cpid, &status, __WALL, NULL), cpid);
	cr_expect_eq(status, KILLED_BY(SIGKILL), "status %#x", (unsigned int)status);
	cr_assert_eq(rp_wait4(p, cpid, &status, 0, NULL), cpid, "not handed back to P");
	cr_expect_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(c);
	end_child(init, x);
	end_child(init, p);
	finish_all_reaped();
}

Test(reports_shared, killed_tracee_not_yet_left)
{
	killed_not_yet_left(false);
}

Test(reports_shared, ptrace_killed_tracee_not_yet_left)
{
	killed_not_yet_left(true);
}


/* PTRACE_DETACH of j->pid as the job's task, with signal j->sig. */
static long detach_job(struct job *j)
{
	return rp_ptrace(j->t, PTRACE_DETACH, j->pid, NULL, (void *)(long)j->sig);
}

/*
 * P traces its own child C (a debugger's own child: the tracer is the real
 * parent, and the report takes one T), and has taken C's stop.  P's
 * PTRACE_DETACH with SIGUSR1 is held between its hold of C's siglock,
 * which put SIGUSR1 in C's exit_code with C still in its stop, and the
 * unlink (RP_RACE_PTRACE_DETACH_UNLINKS, T of P held).  P2, another thread
 * of P, waits for C (__WALL | WNOHANG): it must wait for P's T and then
 * find nothing to report (Linux's detach is one hold of tasklist_lock);
 * C then takes SIGUSR1 untraced.  RP_BREAK_TRACE_REPORT_TRACER_UNLOCKED
 * takes no T where the tracer is the real parent: the wait reports the
 * detach's signal as a stop and consumes it.
 */
Test(reports_shared, detach_signal_not_reported)
{
	struct rp_task *p, *p2, *c;
	struct job jc, jd, jw;
	int status = -1;
	pid_t cpid;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	mask_signal(p, SIG_BLOCK, SIGCHLD);
	p2 = thread_of(p);
	cpid = tracee_stopped(p, p, &c, &jc);
	handle(c, SIGUSR1);
	cr_assert_eq(rp_wait4(p, cpid, &status, __WALL, NULL), cpid);
	cr_assert_eq(status, STOPPED_BY(SIGSTOP));
	note_afresh(p);
	race_count_jobs();
	arm(RP_RACE_PTRACE_DETACH_UNLINKS, c, true, false);
	rp_debug_race_hook(note_hook);
	jd.pid = cpid;
	jd.sig = SIGUSR1;
	job_start(&jd, detach_job, p);
	cr_assert(await_reached(1), "the detach did not reach its unlink");
	jw.pid = cpid;
	jw.options = __WALL | WNOHANG;
	start_beside_held(&jw, noted_wait_job, p2);
	cr_expect(uatomic_read(&tree_waits) && !uatomic_read(&returned),
		  "P2's wait did not wait for the detach's T");
	release();
	cr_assert_eq(job_join(&jd), 0);
	cr_expect_eq(job_join(&jw), 0, "the wait reported the detach's signal as a stop (status %#x)",
		     (unsigned int)jw.status);
	rp_debug_race_hook(NULL);
	cr_assert_eq(job_join(&jc), SIGUSR1, "the detached child did not take SIGUSR1");
	end_task(p2);
	end_child(p, c);
	end_child(init, p);
	finish_all_reaped();
}
