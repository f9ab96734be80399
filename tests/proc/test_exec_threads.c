/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exec of a process of several threads under the update gate shared
 * (docs/process.md, protocol (e)): de_thread's kill pass and its wait for
 * the other threads' release, each look under G, T and the siglock,
 * beside another shared holder; against a clone by another thread (G), a
 * group kill between the kill pass and the wait, and a release that needs
 * the gate exclusive while the exec waits (a traced thread reaped by its
 * tracer).
 */
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <rcuproc/pgrp.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "../fixture/racehold.h"

static struct {
	/* The exec'ing task: its sleep, and a wait for its group's G, are noted. */
	struct rp_task *exec_of;
	struct rp_task *born;		/* clone_job's thread, read after its join */
	/*
	 * uatomic flags: exec_of's exec sleeps for the other threads, a
	 * writer waits for its G, an exclusive taker waits for shared
	 * holders, exec_job returned, reap_job returned.
	 */
	int exec_waits, group_waits, excl_waits, exec_done, reaped;
} hold;

/* racehold.h's hook, noting the exec's sleep, a wait for G and an exclusive taker's wait. */
static void note_hook(enum rp_race_point where, struct rp_task *t)
{
	switch (where) {
	case RP_RACE_GATE_EXCL_WAITS:
		uatomic_set(&hold.excl_waits, 1);
		return;
	case RP_RACE_GROUP_WAITS:
		if (t == CMM_LOAD_SHARED(hold.exec_of))
			uatomic_set(&hold.group_waits, 1);
		return;
	case RP_RACE_EXEC_WAITS:
		if (t == CMM_LOAD_SHARED(hold.exec_of))
			uatomic_set(&hold.exec_waits, 1);
		break;
	default:
		break;
	}
	race_hook(where, t);
}

/* Until one of the flags is set (each a uatomic int of hold). */
static void await_any(int *a, int *b)
{
	while (!uatomic_read(a) && !uatomic_read(b))
		usleep(1000);
}

static long exec_job(struct job *j)
{
	long ret = rp_execve(j->t, "next");

	uatomic_set(&hold.exec_done, 1);
	return ret;
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

static long clone_job(struct job *j)
{
	return rp_clone(j->t, THREAD_FLAGS, &hold.born);
}

/* The tracer reaps its traced zombie thread, tid j->pid. */
static long reap_job(struct job *j)
{
	int status;
	long ret = rp_wait4(j->t, j->pid, &status, __WALL, NULL);

	uatomic_set(&hold.reaped, 1);
	return ret;
}

/* A system with P, init's child, with a second thread in *@b: P, noted as hold.exec_of. */
static struct rp_task *threaded(struct rp_task **b)
{
	start(RP_SYNC_RCU);
	hold.exec_of = fork_of(init);
	*b = thread_of(hold.exec_of);
	return hold.exec_of;
}

/*
 * Job @je runs @p's exec, held (offline) once a look let everything go to
 * sleep for the other threads.
 */
static void exec_held(struct job *je, struct rp_task *p)
{
	race_count_jobs();
	arm(RP_RACE_EXEC_WAITS, p, true, true);
	rp_debug_race_hook(note_hook);
	job_start(je, exec_job, p);
	cr_assert(await_reached(1), "the exec did not sleep for its threads");
}

/* @t, killed by the exec's kill pass, takes its SIGKILL and dies. */
static void dies(struct rp_task *t)
{
	cr_assert_eq(rp_get_signal(t, NULL), -ESRCH);
	rp_task_put(t);
}

/*
 * W's PR_SET_CHILD_SUBREAPER holds the gate shared, its walk held once it
 * marked K.  P, a process of two threads, execs by its leader: its kill
 * pass kills B and it sleeps; B dies, and its release wakes the exec,
 * which ends, all while the walk is held.  It failed before: the exec
 * took the gate exclusive for the whole of de_thread, and waited for the
 * walk.
 */
Test(exec_threads, beside_a_shared_holder)
{
	struct rp_task *w, *k, *p, *b;
	struct job jw, je;

	p = threaded(&b);
	w = fork_of(init);
	k = fork_of(w);
	start_held_with(&jw, subreaper_job, w, RP_RACE_SUBREAPER_WALK, k, note_hook);
	job_start(&je, exec_job, p);
	await_any(&hold.exec_waits, &hold.excl_waits);
	cr_assert(uatomic_read(&hold.exec_waits), "the exec's kill pass waited for a shared holder");
	dies(b);
	await_any(&hold.exec_done, &hold.excl_waits);
	cr_expect(uatomic_read(&hold.exec_done), "the exec's last look waited for a shared holder");
	release();
	cr_assert_eq(job_join(&jw), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(p->signal->nr_threads, 1);
	cr_expect_eq(rp_setpgid(init, rp_getpid(p), 0), -EACCES, "setpgid of an exec'd child");
	end_child(w, k);
	end_child(init, w);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * B, a thread of P, clones and is held inside G (RP_RACE_THREAD_LOCKED,
 * before its siglock hold).  P's leader execs meanwhile: its look waits
 * for G, so the clone links C first, and the kill pass then kills B and
 * C.  RP_BREAK_EXEC_SHARED_UNLOCKED takes no G: the exec claims the group
 * and sleeps while the clone is held.
 */
Test(exec_threads, waits_for_a_clone)
{
	struct rp_task *p, *b;
	struct job jc, je;

	p = threaded(&b);
	start_held_with(&jc, clone_job, b, RP_RACE_THREAD_LOCKED, b, note_hook);
	job_start(&je, exec_job, p);
	while (!uatomic_read(&hold.group_waits) && !uatomic_read(&hold.exec_waits) &&
	       !uatomic_read(&hold.excl_waits))
		usleep(1000);
	cr_assert(uatomic_read(&hold.group_waits) && !uatomic_read(&hold.exec_waits),
		  "the exec did not wait for the clone's G");
	release();
	cr_assert_gt(job_join(&jc), 1, "a clone before the kill pass failed");
	while (!uatomic_read(&hold.exec_waits))
		usleep(1000);
	dies(b);
	dies(hold.born);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(p->signal->nr_threads, 1, "a thread outlived the exec");
	end_child(init, p);
	finish_all_reaped();
}

/*
 * P's leader execs; its kill pass kills B and it is held before its sleep.
 * A SIGKILL to P comes meanwhile, and B dies.  The exec's next look finds
 * the kill and gives up (-ESRCH, the library's answer for a caller that
 * is to die; Linux's de_thread answers -EAGAIN, which no caller sees
 * either, the thread dying of its kill): P dies of it, and its parent
 * reaps it killed.
 */
Test(exec_threads, group_kill_while_it_waits)
{
	struct rp_task *p, *b;
	struct job je;
	int status = -1;
	pid_t pid;

	p = threaded(&b);
	pid = rp_getpid(p);
	exec_held(&je, p);
	cr_assert_eq(rp_kill(init, pid, SIGKILL), 0);
	dies(b);
	release();
	cr_assert_eq(job_join(&je), -ESRCH, "the exec went on in a killed process");
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect_eq(status, SIGKILL, "status %#x", status);
	rp_task_put(p);
	finish_all_reaped();
}

/*
 * B, a thread of P, is traced by X and has exited: a traced zombie, which
 * only X's wait releases, and that claim takes the gate exclusive.  P's
 * leader execs, kills nothing (B is dead) and is held before its sleep;
 * X reaps B meanwhile, without waiting for the gate, and the exec ends.
 * RP_BREAK_EXEC_WAITS_IN_GATE keeps the gate shared to sleep: X's reap
 * waits for it, and the exec for X's reap.
 */
Test(exec_threads, traced_thread_reaped_while_it_waits)
{
	struct rp_task *p, *b, *x;
	struct job je, jr;

	p = threaded(&b);
	x = fork_of(init);
	jr.pid = rp_gettid(b);
	cr_assert_eq(rp_ptrace(x, PTRACE_SEIZE, jr.pid, NULL, NULL), 0);
	cr_assert_eq(rp_exit(b, 0), 0);
	cr_assert_eq(uatomic_read(&b->exit_state), RP_EXIT_ZOMBIE);
	exec_held(&je, p);
	job_start(&jr, reap_job, x);
	await_any(&hold.reaped, &hold.excl_waits);
	cr_assert(uatomic_read(&hold.reaped) && !uatomic_read(&hold.excl_waits),
		  "the tracer's reap waited for the gate of the exec that waits for it");
	cr_assert_eq(job_join(&jr), jr.pid);
	release();
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(p->signal->nr_threads, 1);
	rp_task_put(b);
	end_child(init, x);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * P of two threads, L its leader and B; B's exec (job @je) kills L, which
 * dies, and is held between its last shared look and its exclusive one
 * (RP_RACE_EXEC_SWITCH_LOOK, nothing held).  Returns P, B in @b, P's
 * pid in @pid.
 */
static struct rp_task *exec_held_before_the_switch(struct job *je, struct rp_task **b,
						   pid_t *pid)
{
	struct rp_task *p = threaded(b);

	*pid = rp_getpid(p);
	hold.exec_of = *b;
	race_count_jobs();
	arm(RP_RACE_EXEC_SWITCH_LOOK, *b, true, true);
	rp_debug_race_hook(note_hook);
	job_start(je, exec_job, *b);
	while (!uatomic_read(&hold.exec_waits) && !uatomic_read(&hold.exec_done))
		usleep(1000);
	cr_assert_eq(rp_get_signal(p, NULL), -ESRCH, "the leader was not killed");
	cr_assert(await_reached(1), "the exec did not reach its exclusive look");
	return p;
}

/*
 * B, a thread of P other than its leader L, execs.  Its kill pass
 * kills L, which dies (a zombie leader); B's next look, shared, finds L
 * gone and drops the claim, and B is held before its exclusive look
 * (RP_RACE_EXEC_SWITCH_LOOK, nothing held).  A SIGKILL to P comes in that
 * window: the exclusive look must fail the exec, and P must be reaped
 * killed.
 */
Test(exec_threads, nonleader_killed_before_the_switch)
{
	struct rp_task *p, *b;
	struct job je;
	int status = -1;
	pid_t pid;
	long r;

	p = exec_held_before_the_switch(&je, &b, &pid);
	cr_assert_eq(rp_kill(init, pid, SIGKILL), 0);
	release();
	r = job_join(&je);
	rp_debug_race_hook(NULL);
	cr_assert_eq(r, -ESRCH, "the exec went on in a killed process: %ld", r);
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect_eq(status, SIGKILL, "status %#x", status);
	rp_task_put(b);
	rp_task_put(p);
	finish_all_reaped();
}

/*
 * as above, but in the window P's parent waits (WNOHANG) and the
 * zombie leader must not be reported; then the exec ends, B the leader.
 */
Test(exec_threads, nonleader_wait_before_the_switch)
{
	struct rp_task *p, *b;
	struct job je;
	int status = -1;
	pid_t pid;

	p = exec_held_before_the_switch(&je, &b, &pid);
	cr_assert_eq(rp_wait4(init, pid, &status, WNOHANG, NULL), 0, "the zombie leader was reported");
	release();
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getpid(b), pid);
	cr_expect_eq(b->signal->nr_threads, 1);
	rp_task_put(p);
	end_child(init, b);
	finish_all_reaped();
}

/*
 * B, a thread of P traced by X, is killed by the exec's kill pass of
 * P's leader, which sleeps; B takes its SIGKILL and X reaps it.  Linux:
 * a thread killed by de_thread exits in do_group_exit with code 0
 * (group_exec_task set), so X's wait reports status 0.
 */
Test(exec_threads, traced_thread_killed_status)
{
	struct rp_task *p, *b, *x;
	struct job je;
	int status = -1;
	pid_t tid;

	p = threaded(&b);
	x = fork_of(init);
	tid = rp_gettid(b);
	cr_assert_eq(rp_ptrace(x, PTRACE_SEIZE, tid, NULL, NULL), 0);
	exec_held(&je, p);
	cr_assert_eq(rp_get_signal(b, NULL), -ESRCH);
	cr_assert_eq(rp_wait4(x, tid, &status, __WALL, NULL), tid);
	cr_expect_eq(status, 0, "status %#x", status);
	release();
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	rp_task_put(b);
	end_child(init, x);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * P's leader execs while B, traced by X, is a zombie that X does not
 * reap; the exec sleeps.  A SIGKILL to P must wake it and fail it (Linux:
 * de_thread sleeps TASK_KILLABLE), without X's reap.
 */
Test(exec_threads, killed_while_a_traced_zombie_stays, .timeout = 20)
{
	struct rp_task *p, *b, *x;
	struct job je;
	int status = -1;
	pid_t tid, pid;

	p = threaded(&b);
	pid = rp_getpid(p);
	x = fork_of(init);
	tid = rp_gettid(b);
	cr_assert_eq(rp_ptrace(x, PTRACE_SEIZE, tid, NULL, NULL), 0);
	cr_assert_eq(rp_exit(b, 0), 0);
	race_count_jobs();
	rp_debug_race_hook(note_hook);
	job_start(&je, exec_job, p);
	while (!uatomic_read(&hold.exec_waits))
		usleep(1000);
	usleep(20000);
	cr_assert_eq(rp_kill(init, pid, SIGKILL), 0);
	cr_assert(await_jobs_done(1), "the exec slept on after a SIGKILL");
	cr_assert_eq(job_join(&je), -ESRCH);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_wait4(x, tid, &status, __WALL, NULL), tid);
	rp_task_put(b);
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect_eq(status, SIGKILL, "status %#x", status);
	rp_task_put(p);
	end_child(init, x);
	finish_all_reaped();
}
