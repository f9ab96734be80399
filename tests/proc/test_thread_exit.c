/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A thread's exit under the update gate shared (docs/process.md, "A
 * thread's exit"): the exit and release of a thread that is not its
 * group's leader while another thread runs, beside another shared
 * holder, and against what reads or writes what it writes with no update
 * lock: a clone by another thread of the group (G), and the exclusive
 * exit of the group's last thread, which may come between the exit's
 * first look and its gate and leave the leader for it to report.
 */
#include <sys/prctl.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "../fixture/racehold.h"

static struct {
	struct rp_task *group_of;	/* note a wait for this process's G */
	int group_waits;		/* uatomic: a writer waits for group_of's G */
	int excl_waits;			/* uatomic: an exclusive taker waits for shared holders */
	int exited;			/* uatomic: exit_job returned */
	struct rp_task *born;		/* clone_job's thread, read after its join */
} hold;

/* racehold.h's hook, noting an exclusive taker's wait and a wait for group_of's G. */
static void note_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GATE_EXCL_WAITS)
		uatomic_set(&hold.excl_waits, 1);
	else if (where == RP_RACE_GROUP_WAITS && t == CMM_LOAD_SHARED(hold.group_of))
		uatomic_set(&hold.group_waits, 1);
	else
		race_hook(where, t);
}

/* The exit of the job's task, a thread: its process lives on. */
static long exit_job(struct job *j)
{
	long ret = rp_exit(j->t, 0);

	uatomic_set(&hold.exited, 1);
	return ret;
}

static long clone_job(struct job *j)
{
	return rp_clone(j->t, THREAD_FLAGS, &hold.born);
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

/* The number of threads of @c's process (G's field, read with nothing else running). */
static unsigned int threads_of(struct rp_task *c)
{
	return CMM_LOAD_SHARED(c->signal->nr_threads);
}

/*
 * W's PR_SET_CHILD_SUBREAPER holds the gate shared, its walk held once it
 * marked K.  B, a thread of P, exits meanwhile, done while the walk is
 * held.  An exit that takes the gate exclusive waits for the walk.
 */
Test(thread_exit, beside_a_shared_holder)
{
	struct rp_task *w, *k, *p, *b;
	struct job jw, je;

	start(RP_SYNC_RCU);
	w = fork_of(init);
	k = fork_of(w);
	p = fork_of(init);
	b = thread_of(p);
	pid_t btid = rp_gettid(b);	/* before its exit: a released task has none */

	start_held_with(&jw, subreaper_job, w, RP_RACE_SUBREAPER_WALK, k, note_hook);
	job_start(&je, exit_job, b);
	while (!uatomic_read(&hold.exited) && !uatomic_read(&hold.excl_waits))
		usleep(1000);
	cr_expect(uatomic_read(&hold.exited), "a thread's exit waited for a shared holder");
	release();
	cr_assert_eq(job_join(&jw), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(threads_of(p), 1);
	cr_expect_eq(rp_tkill(init, btid, 0), -ESRCH, "a released thread is found by its tid");
	rp_task_put(b);
	end_child(init, p);
	end_child(w, k);
	end_child(init, w);
	finish_all_reaped();
}

/*
 * C's leader L has exited (a zombie that waits for its threads) and A
 * and B remain.  A's exit saw B run, and is held before its gate
 * (RP_RACE_EXIT_REPARENTS); B's exit, the group's last, is done
 * meanwhile under the gate exclusive, and leaves L with A.  A's release
 * leaves L alone: A must find so under G and tell L's parent P (SIGCHLD,
 * blocked, stays pending), as the last thread's release does.
 * RP_BREAK_THREAD_EXIT_LEADER_UNCHECKED trusts A's first look: A goes
 * plain and nobody tells P.
 */
Test(thread_exit, last_beside_a_zombie_leader)
{
	struct rp_task *p, *c, *a, *b;
	struct job ja;
	int status = -1;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	mask_signal(p, SIG_BLOCK, SIGCHLD);
	c = fork_of(p);
	a = thread_of(c);
	b = thread_of(c);
	pid_t cpid = rp_getpid(c);

	cr_assert_eq(rp_exit(c, 0), 0);
	start_held_with(&ja, exit_job, a, RP_RACE_EXIT_REPARENTS, a, race_hook);
	cr_assert_eq(rp_exit(b, 0), 0);
	cr_assert_eq(threads_of(c), 2);
	cr_assert(!is_pending(p, SIGCHLD), "P told before its child's last thread went");
	release();
	cr_assert_eq(job_join(&ja), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(threads_of(c), 1);
	cr_assert(is_pending(p, SIGCHLD), "a zombie leader left alone was never reported");
	cr_assert_eq(rp_wait4(p, cpid, &status, WNOHANG, NULL), cpid);
	cr_expect_eq(status, EXITED(0));
	rp_task_put(a);
	rp_task_put(b);
	rp_task_put(c);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * X, a thread of C, clones a third and is held inside its locks (G of
 * C's group, RP_RACE_THREAD_LOCKED) before it links the thread.  A,
 * another thread of C, exits meanwhile: its release writes the thread
 * list and its count, and must wait for G; let go, both are done and
 * C has its leader, X and the new thread.
 * RP_BREAK_THREAD_EXIT_GROUP_UNLOCKED takes no G: the exit is done while
 * the clone holds G.
 */
Test(thread_exit, waits_for_a_clone)
{
	struct rp_task *c, *x, *a;
	struct job jx, ja;

	start(RP_SYNC_RCU);
	c = fork_of(init);
	x = thread_of(c);
	a = thread_of(c);
	hold.group_of = c;
	start_held_with(&jx, clone_job, x, RP_RACE_THREAD_LOCKED, x, note_hook);
	job_start(&ja, exit_job, a);
	while (!uatomic_read(&hold.group_waits) && !uatomic_read(&hold.exited) &&
	       !uatomic_read(&hold.excl_waits))
		usleep(1000);
	cr_expect(uatomic_read(&hold.group_waits) && !uatomic_read(&hold.exited),
		  "a thread's exit did not wait for the clone's G");
	release();
	cr_assert_gt(job_join(&jx), 1);
	cr_assert_eq(job_join(&ja), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(threads_of(c), 3);
	cr_expect_eq(rp_getpid(hold.born), rp_getpid(c));
	cr_assert_eq(rp_exit(hold.born, 0), 0);
	cr_assert_eq(rp_exit(x, 0), 0);
	rp_task_put(hold.born);
	rp_task_put(x);
	rp_task_put(a);
	end_child(init, c);
	finish_all_reaped();
}
