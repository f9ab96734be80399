/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A plain exit under the update gate shared (docs/process.md, "What is
 * built"): beside another shared holder, and against a wait of a parent
 * that does not wait for it.
 */
#include <sys/prctl.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/racehold.h"
#include "task/task.h"

static struct {
	struct rp_task *walk_at;	/* hold the subreaper walk that marked this task */
	int at_walk, go_walk;		/* uatomic */
	int excl_waits;			/* uatomic: an exclusive taker waits for shared holders */
	int exit_done;			/* uatomic */
} hold;

static void await_flag(const int *flag)
{
	while (!uatomic_read(flag))
		usleep(1000);
}

static void walk_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GATE_EXCL_WAITS) {
		uatomic_set(&hold.excl_waits, 1);
	} else if (where == RP_RACE_SUBREAPER_WALK && t == CMM_LOAD_SHARED(hold.walk_at) &&
		   uatomic_cmpxchg(&hold.walk_at, t, NULL) == t) {
		/* In a read section: stays online. */
		uatomic_set(&hold.at_walk, 1);
		await_flag(&hold.go_walk);
	}
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

static long exit_job(struct job *j)
{
	long ret = rp_exit_group(j->t, 0);

	uatomic_set(&hold.exit_done, 1);
	return ret;
}

/*
 * W's PR_SET_CHILD_SUBREAPER holds the gate shared, its walk held once it
 * marked K.  P, init's child in init's group with no child, exits: a
 * plain exit, shared too, done while the walk is held.  An exit that
 * takes the gate exclusive waits for the walk instead.
 */
Test(exit_shared, beside_a_shared_holder)
{
	struct rp_task *w, *k, *p;
	struct job jw, je;
	int status = -1;
	pid_t pid;

	start(RP_SYNC_RCU);
	w = fork_of(init);
	k = fork_of(w);
	p = fork_of(init);
	pid = rp_getpid(p);
	hold.walk_at = k;
	rp_debug_race_hook(walk_hook);	/* before the walk starts: it cannot pass first */
	job_start(&jw, subreaper_job, w);
	await_flag(&hold.at_walk);
	job_start(&je, exit_job, p);
	/* The exit is done beside the walk, or waits for it (exclusive). */
	while (!uatomic_read(&hold.excl_waits) && !uatomic_read(&hold.exit_done))
		usleep(1000);
	cr_expect(uatomic_read(&hold.exit_done), "a plain exit waited for a shared holder");
	uatomic_set(&hold.go_walk, 1);
	cr_assert_eq(job_join(&jw), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_wait4(init, pid, &status, 0, NULL), pid);
	cr_expect_eq(status, EXITED(0));
	rp_task_put(p);
	end_child(w, k);
	end_child(init, w);
	finish_all_reaped();
}

/*
 * P ignores SIGCHLD: its child C's plain exit sets C DEAD in the hold of
 * P's T that makes it a zombie, and releases it after, under the gate
 * exclusive.  Held between the two, C is no child P's wait may claim.
 * RP_BREAK_AUTOREAP_DEAD_LATE sets DEAD in the release's hold: P's wait
 * claims the zombie in between, every time, and the release comes twice.
 */
Test(exit_shared, autoreaped_before_the_locks_go)
{
	struct rp_task *p, *c;
	struct job je;
	pid_t cpid;
	long ret;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	set_action(p, SIGCHLD, SIG_IGN);
	c = fork_of(p);
	cpid = rp_getpid(c);
	race_count_jobs();
	arm(RP_RACE_EXIT_RELEASES, c, true, true);	/* before the exit: it cannot pass first */
	job_start(&je, exit_job, c);
	cr_assert(await_reached(1), "the exit was not a plain one that autoreaps");
	ret = rp_wait4(p, -1, NULL, WNOHANG, NULL);
	cr_expect_neq(ret, cpid, "a wait claimed a child its exit autoreaps");
	release();
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_wait4(p, -1, NULL, WNOHANG, NULL), -ECHILD);
	rp_task_put(c);
	end_child(init, p);
	finish_all_reaped();
}
