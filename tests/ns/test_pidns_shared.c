/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fork into a nested pid namespace under the update gate shared
 * (docs/process.md, "What is built"; docs/namespaces.md): beside another
 * fork into the same namespace, the namespace's count of pids, which its
 * init's end waits on, must count both.
 */
#include <sched.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "verify/verify.h"
#include "../fixture/racehold.h"

static struct {
	int excl_waits;			/* uatomic: an exclusive taker waits */
	int forked;			/* uatomic: the second fork returned */
} seen;

/*
 * racehold.h's hook, noting an exclusive taker's wait: for the shared
 * holders, or for the update mutex (an exclusive holder).
 */
static void note_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GATE_EXCL_WAITS || where == RP_RACE_UPDATE_WAITS)
		uatomic_set(&seen.excl_waits, 1);
	else
		race_hook(where, t);
}

/* The job's task forks; the child's number as the job's task sees it. */
static long fork_job(struct job *j)
{
	long ret = rp_fork(j->t, (struct rp_task **)(intptr_t)j->arg);

	uatomic_set(&seen.forked, 1);
	return ret;
}

/* @p, @parent's child numbered @nr there, exits and is reaped. */
static void reap_nr(struct rp_task *parent, struct rp_task *p, pid_t nr)
{
	int status = -1;

	cr_assert_eq(rp_exit_group(p, 0), 0);
	cr_assert_eq(rp_wait4(parent, nr, &status, 0, NULL), nr);
	cr_assert_eq(status, EXITED(0));
	rp_task_put(p);
}

/*
 * U, init's child, unshares its pid namespace and forks N, the
 * namespace's init.  N's fork of a child is held where it counts its pid
 * in the namespace (RP_RACE_NS_COUNT, the gate held shared); meanwhile U
 * forks a child into the namespace, which must return while N's fork is
 * held (a fork that takes the gate exclusive waits for it, or, the held
 * one exclusive too, for the update mutex).  Let go, the
 * namespace must count init and both children (the table walk).
 * RP_BREAK_NS_COUNT_UNLOCKED counts by a load and a store around the
 * point: U's count is lost.
 */
Test(pidns_shared, forks_count_side_by_side)
{
	struct rp_task *u, *n, *a = NULL, *b = NULL;
	struct rp_verify_report r = { 0 };
	struct job ja, jb;
	pid_t nnr, anr, bnr;

	start(RP_SYNC_RCU);
	u = fork_of(init);
	cr_assert_eq(rp_unshare(u, CLONE_NEWPID), 0);
	nnr = rp_fork(u, &n);
	cr_assert_gt(nnr, 0);
	cr_assert_eq(rp_getpid(n), 1);
	ja.arg = (long)(intptr_t)&a;
	start_held_with(&ja, fork_job, n, RP_RACE_NS_COUNT, NULL, note_hook);
	jb.arg = (long)(intptr_t)&b;
	job_start(&jb, fork_job, u);
	while (!uatomic_read(&seen.forked) && !uatomic_read(&seen.excl_waits))
		usleep(1000);
	cr_expect(uatomic_read(&seen.forked), "a fork into the namespace waited for the held one");
	release();
	anr = (pid_t)job_join(&ja);
	bnr = (pid_t)job_join(&jb);
	rp_debug_race_hook(NULL);
	cr_assert_eq(anr, 2, "N's child: %d", anr);
	cr_assert_gt(bnr, 1, "U's child: %d", bnr);
	cr_assert_eq(rp_verify_walk_table(sys, &r), 0, "table walk: %s", r.first[0]);
	reap_nr(n, a, anr);
	reap_nr(u, b, bnr);
	reap_nr(u, n, nnr);
	end_child(init, u);
	finish_all_reaped();
}

/*
 * A fork decides from its child's number 1 that it makes its namespace's
 * init and takes the gate exclusive (proc/fork.c, makes_ns_init): so the
 * first fork into an unshared namespace must be numbered 1 and be the
 * only fork into it before it has an init.  Linux keeps that by refusing
 * a handle of a pid_for_children namespace without a child_reaper yet
 * (pidns_for_children_get: ENOENT; this machine's kernel says so to
 * `unshare --pid bash -c 'exec 3</proc/self/ns/pid_for_children'`), so
 * neither setns into it nor its ns_last_pid can be reached before its
 * init.  U unshares, tries to open its pid_for_children (refused), and
 * its first fork is pid 1 there.  Before, the open succeeded, U set the
 * namespace's ns_last_pid to 5 through it, and its first child was 6,
 * no init, under the gate shared.
 */
Test(pidns_shared, for_children_handle_before_init)
{
	struct rp_task *u, *c = NULL;
	struct rp_pidns *b = NULL;
	pid_t unr, cnr;
	int err;

	start(RP_SYNC_RCU);
	u = fork_of(init);
	unr = rp_getpid(u);
	cr_assert_eq(rp_unshare(u, CLONE_NEWPID), 0);
	err = rp_pidns_open(u, unr, 1, &b);
	cr_expect_eq(err, -ENOENT, "pid_for_children opened before its namespace has an init: %d",
		     err);
	if (!err) {
		cr_assert_eq(rp_pidns_set_last_pid(u, b, 5), 0);
		rp_pidns_put(b);
	}
	cnr = rp_fork(u, &c);
	cr_assert_gt(cnr, 0);
	cr_expect_eq(rp_getpid(c), 1, "the first fork into the unshared namespace is pid %d there, "
		     "no init (and went under the gate shared)", rp_getpid(c));
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(u, cnr, NULL, 0, NULL), cnr);
	rp_task_put(c);
	end_child(init, u);
	finish_all_reaped();
}
