/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fork into a nested pid namespace, and the exit and reap of an
 * ordinary member of one, under the update gate shared (docs/process.md,
 * "What is built"; docs/namespaces.md): beside another fork or reap in
 * the same namespace, the namespace's count of pids, which its init's end
 * waits on, must count both; a member's release in a namespace that is
 * ending stays exclusive, where it completes its init's exit.
 */
#include <sched.h>
#include <sys/prctl.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "rcuproc/pgrp.h"
#include "task/task.h"
#include "verify/verify.h"
#include "../fixture/racehold.h"

static struct {
	int excl_waits;			/* uatomic: an exclusive taker waits */
	int forked;			/* uatomic: the second fork returned */
	int reaped;			/* uatomic: the second reap returned */
	int exited;			/* uatomic: an exit returned (exit_noted_job) */
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

/*
 * Until *@flag (the operation that must not wait returned) or an
 * exclusive taker's wait is seen: one of the two comes, every time.
 */
static void await_flag_or_excl(int *flag)
{
	while (!uatomic_read(flag) && !uatomic_read(&seen.excl_waits))
		usleep(1000);
}

/* The table walk passes. */
static void walk_ok(void)
{
	struct rp_verify_report r = { 0 };

	cr_assert_eq(rp_verify_walk_table(sys, &r), 0, "table walk: %s", r.first[0]);
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
	await_flag_or_excl(&seen.forked);
	cr_expect(uatomic_read(&seen.forked), "a fork into the namespace waited for the held one");
	release();
	anr = (pid_t)job_join(&ja);
	bnr = (pid_t)job_join(&jb);
	rp_debug_race_hook(NULL);
	cr_assert_eq(anr, 2, "N's child: %d", anr);
	cr_assert_gt(bnr, 1, "U's child: %d", bnr);
	walk_ok();
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

/*
 * A table in rcu mode where *@u, init's child, unshared its pid namespace
 * and forked *@n, the namespace's init; @n's number in @u's namespace.
 */
static pid_t ns_with_init(struct rp_task **u, struct rp_task **n)
{
	pid_t nnr;

	start(RP_SYNC_RCU);
	*u = fork_of(init);
	cr_assert_eq(rp_unshare(*u, CLONE_NEWPID), 0);
	nnr = rp_fork(*u, n);
	cr_assert_gt(nnr, 0);
	cr_assert_eq(rp_getpid(*n), 1);
	return nnr;
}

/* The job's task reaps its child numbered j->pid there (wait_job), noted in seen.reaped. */
static long reap_job(struct job *j)
{
	long ret = wait_job(j);

	uatomic_set(&seen.reaped, 1);
	return ret;
}

/*
 * N, a namespace's init, has children A and C, and C has B, which leads
 * a session of its own (so that the two releases share no group's or
 * session's M); A and B are zombies.  N's reap of A is held at @where (task A, or NULL for any)
 * inside its release, T of N held; meanwhile C reaps B, which must
 * return while A's reap is held (a reap that takes the gate exclusive
 * waits for it, or, the held one exclusive too, for the update mutex).
 * Let go, both are reported and the namespace counts its init and C
 * alone (the table walk).
 */
static void reaps_side_by_side(enum rp_race_point where, bool at_a)
{
	struct rp_task *u, *n, *a, *b, *c;
	struct job ja = { .options = 0 }, jb = { .options = 0 };
	pid_t nnr = ns_with_init(&u, &n);

	a = fork_of(n);
	c = fork_of(n);
	b = fork_of(c);
	ja.pid = rp_getpid(a);
	jb.pid = rp_getpid(b);
	cr_assert_eq(rp_setsid(b), jb.pid);
	cr_assert_eq(rp_exit_group(a, 0), 0);
	cr_assert_eq(rp_exit_group(b, 0), 0);
	start_held_with(&ja, wait_job, n, where, at_a ? a : NULL, note_hook);
	job_start(&jb, reap_job, c);
	await_flag_or_excl(&seen.reaped);
	cr_expect(uatomic_read(&seen.reaped), "a reap in the namespace waited for the held one");
	release();
	cr_assert_eq(job_join(&ja), ja.pid);
	cr_assert_eq(job_join(&jb), jb.pid);
	rp_debug_race_hook(NULL);
	cr_assert_eq(ja.status, EXITED(0));
	cr_assert_eq(jb.status, EXITED(0));
	walk_ok();
	rp_task_put(a);
	rp_task_put(b);
	end_child(n, c);
	reap_nr(u, n, nnr);
	end_child(init, u);
	finish_all_reaped();
}

/*
 * The claim and release of an ordinary member go under the gate shared:
 * A's reap held in its release (RP_RACE_RELEASE_DETACHES, before its
 * pid leaves the namespace), B's reap goes through.  Before, both took
 * the gate exclusive and B's waited.
 */
Test(pidns_shared, reaps_side_by_side)
{
	reaps_side_by_side(RP_RACE_RELEASE_DETACHES, true);
}

/*
 * The same, A's reap held where its pid leaves the namespace's count
 * (RP_RACE_NS_UNCOUNT): B's decrement comes in between.
 * RP_BREAK_NS_UNCOUNT_UNLOCKED takes the pid off by a load and a store
 * around the point: B's decrement is lost, and the namespace counts a
 * pid that has no number (the table walk).
 */
Test(pidns_shared, reaps_uncount_side_by_side)
{
	reaps_side_by_side(RP_RACE_NS_UNCOUNT, false);
}

/*
 * N, a namespace's init, exits while its child A lives: the namespace
 * ends, and N's exit waits for A's pid.  A's exit is a plain one (no
 * children), whose parent N reaps it (rp_reaps_in_exit); its release,
 * the namespace dying, takes the gate exclusive, where its pid's
 * decrement completes N's exit: U reaps N.
 * RP_BREAK_NS_RELEASE_DYING releases A under the gate shared all the
 * same: the decrement that N's exit waits for comes where that exit
 * cannot complete (debug builds stop there).
 */
Test(pidns_shared, member_release_completes_init_exit)
{
	struct rp_task *u, *n, *a;
	int status = -1;
	pid_t nnr = ns_with_init(&u, &n);

	a = fork_of(n);
	cr_assert_eq(rp_exit_group(n, 0), 0);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), 0, "init's exit waits for A");
	cr_assert_eq(rp_exit_group(a, 0), 0);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), nnr,
		     "A's release completed init's exit");
	cr_assert_eq(status, EXITED(0));
	walk_ok();
	rp_task_put(a);
	rp_task_put(n);
	end_child(init, u);
	finish_all_reaped();
}

/* ---- a release that completes an ending init, from outside and above ---- */

/*
 * R, in the root namespace, enters N for its children (setns) and forks
 * C into it; C exits and R reaps it: R sees C's root number.  Then N's
 * init exits while a second such child D is R's zombie: init's exit
 * waits for D, R's reap of D (in a dying namespace) completes it.
 */
Test(pidns_shared, outside_parent_reaps_member)
{
	struct rp_task *u, *n, *r, *c, *d;
	struct rp_pidns *h = NULL;
	int status = -1;
	pid_t nnr = ns_with_init(&u, &n), cnr, dnr;

	r = fork_of(init);
	cr_assert_eq(rp_pidns_open(r, nnr, 0, &h), 0);
	cr_assert_eq(rp_setns(r, h, CLONE_NEWPID), 0);
	cnr = rp_fork(r, &c);
	cr_assert_gt(cnr, 1);
	cr_assert_neq(rp_getpid(c), cnr);
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(r, -1, &status, 0, NULL), cnr);
	cr_assert_eq(status, EXITED(0));
	rp_task_put(c);
	walk_ok();
	dnr = rp_fork(r, &d);
	cr_assert_gt(dnr, 1);
	cr_assert_eq(rp_exit_group(d, 0), 0);
	cr_assert_eq(rp_exit_group(n, 0), 0);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), 0, "init's exit waits for D");
	cr_assert_eq(rp_wait4(r, dnr, &status, 0, NULL), dnr);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), nnr, "D's reap completed init's exit");
	rp_task_put(d);
	rp_task_put(n);
	walk_ok();
	rp_pidns_put(h);
	end_child(init, r);
	end_child(init, u);
	finish_all_reaped();
}

/*
 * R, a root process, joins the group G of M, a member of N (same
 * session).  N's init exits; M dies and goes; G stays numbered in N
 * (R is in it): init's exit waits.  R exits and init reaps it: that
 * release detaches G, in a dying namespace, and completes init's exit.
 */
Test(pidns_shared, root_member_of_nested_group)
{
	struct rp_task *u, *n, *m, *r;
	int status = -1;
	pid_t nnr = ns_with_init(&u, &n), mroot, rnr;

	m = fork_of(n);
	cr_assert_eq(rp_setpgid(m, 0, 0), 0);
	r = fork_of(init);
	rnr = rp_getpid(r);
	/* M's number in the root namespace, R's. */
	rp_read_lock(&sys->sync);
	mroot = rp_pid_nr_ns(m->pid, &sys->pidns);
	rp_read_unlock(&sys->sync);
	cr_assert_eq(rp_setpgid(r, 0, mroot), 0);
	cr_assert_eq(rp_getpgid(r, 0), mroot);
	walk_ok();
	cr_assert_eq(rp_exit_group(n, 0), 0);
	cr_assert_eq(rp_exit_group(m, 0), 0);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), 0, "init waits for G");
	cr_assert_eq(rp_exit_group(r, 0), 0);
	cr_assert_eq(rp_wait4(init, rnr, &status, 0, NULL), rnr);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), nnr, "R's release completed init's exit");
	rp_task_put(m);
	rp_task_put(r);
	rp_task_put(n);
	walk_ok();
	end_child(init, u);
	finish_all_reaped();
}

/*
 * Two levels: N1 (init I1) holds N2 (init I2, made by I1's unshare), I2
 * forks C.  C exits (zombie of I2).  I1 exits: N1 dying, I2 killed.  I2
 * reaps C (its pid numbered in dying N1): then I2 exits and I1 reaps it
 * in its end; U reaps I1.
 */
Test(pidns_shared, two_levels_reap_in_dying_parent_ns)
{
	struct rp_task *u, *i1, *i2, *c;
	int status = -1;
	pid_t i1nr = ns_with_init(&u, &i1), i2nr, cnr;

	cr_assert_eq(rp_unshare(i1, CLONE_NEWPID), 0);
	i2nr = rp_fork(i1, &i2);
	cr_assert_gt(i2nr, 1);
	cr_assert_eq(rp_getpid(i2), 1);
	cnr = rp_fork(i2, &c);
	cr_assert_eq(cnr, 2);
	walk_ok();
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_exit_group(i1, 0), 0);
	cr_assert_eq(rp_wait4(u, i1nr, &status, WNOHANG, NULL), 0);
	cr_assert_eq(rp_wait4(i2, cnr, &status, 0, NULL), cnr);
	cr_assert_eq(rp_exit_group(i2, 0), 0);
	cr_assert_eq(rp_wait4(u, i1nr, &status, 0, NULL), i1nr);
	rp_task_put(c);
	rp_task_put(i2);
	rp_task_put(i1);
	walk_ok();
	end_child(init, u);
	finish_all_reaped();
}

static long exit_group_job(struct job *j)
{
	return rp_exit_group(j->t, 0);
}

/*
 * C, a member of N, reaps its zombie child A under the gate shared, held
 * where A's pid leaves N's count (RP_RACE_NS_UNCOUNT); meanwhile N, the
 * namespace's init, exits: its end must wait for the gate (the shared
 * release checked N open).  Let go: N's exit waits for C, C's exit
 * (autoreaped by the ending init) completes it, U reaps N.
 */
Test(pidns_shared, init_exit_during_shared_uncount)
{
	struct rp_task *u, *n, *a, *c;
	struct job ja = { .options = 0 }, jn;
	int status = -1;
	pid_t nnr = ns_with_init(&u, &n);

	c = fork_of(n);
	a = fork_of(c);
	ja.pid = rp_getpid(a);
	cr_assert_eq(rp_exit_group(a, 0), 0);
	start_held_with(&ja, wait_job, c, RP_RACE_NS_UNCOUNT, NULL, note_hook);
	job_start(&jn, exit_group_job, n);
	while (!uatomic_read(&seen.excl_waits))
		usleep(1000);
	release();
	cr_assert_eq(job_join(&ja), ja.pid);
	cr_assert_eq(job_join(&jn), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), 0, "init's exit waits for C");
	walk_ok();
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(u, nnr, &status, 0, NULL), nnr);
	rp_task_put(a);
	rp_task_put(c);
	rp_task_put(n);
	walk_ok();
	end_child(init, u);
	finish_all_reaped();
}

/* ---- a member's exit with children under the gate shared ---- */

/* The job's task exits (exit_group(0)), noted in seen.exited. */
static long exit_noted_job(struct job *j)
{
	long ret = rp_exit_group(j->t, 0);

	uatomic_set(&seen.exited, 1);
	return ret;
}

/*
 * Job @held runs @fn as @t, held where @at reaches @where, while another
 * job exits @x: true if that exit returned while the first was held
 * (it waited for no exclusive taker).  Both let go and joined; the held
 * job's answer in *@ret.
 */
static bool exits_while_held(struct job *held, long (*fn)(struct job *), struct rp_task *t,
			     enum rp_race_point where, struct rp_task *at, struct rp_task *x,
			     long *ret)
{
	struct job jx;
	bool exited;

	start_held_with(held, fn, t, where, at, note_hook);
	job_start(&jx, exit_noted_job, x);
	await_flag_or_excl(&seen.exited);
	exited = uatomic_read(&seen.exited);
	release();
	*ret = job_join(held);
	cr_assert_eq(job_join(&jx), 0);
	rp_debug_race_hook(NULL);
	return exited;
}

/*
 * M, a member of N with a child C, exits while D, another member, reaps
 * its zombie B held inside the release (RP_RACE_RELEASE_DETACHES: the
 * gate shared, T of D; B leads a session of its own, so that M's exit
 * and B's release share no M).  M's exit must return meanwhile: C goes
 * to N, the namespace's init, under the gate shared (it took the gate
 * exclusive and waited for the held reap before).  Let go, the table
 * walk passes, C is N's (getppid 1), and N reaps M and C.
 */
Test(pidns_shared, member_with_child_exits_beside_a_reap)
{
	struct rp_task *u, *n, *m, *c, *d, *b;
	struct job jb = { .options = 0 };
	pid_t nnr = ns_with_init(&u, &n), mnr;
	long reaped = 0;

	m = fork_of(n);
	c = fork_of(m);
	d = fork_of(n);
	b = fork_of(d);
	mnr = rp_getpid(m);
	jb.pid = rp_getpid(b);
	cr_assert_eq(rp_setsid(b), jb.pid);
	cr_assert_eq(rp_exit_group(b, 0), 0);
	cr_expect(exits_while_held(&jb, wait_job, d, RP_RACE_RELEASE_DETACHES, b, m, &reaped),
		  "a member's exit with a child waited for a held reap");
	cr_assert_eq(reaped, jb.pid);
	cr_assert_eq(rp_getppid(c), 1, "C's parent is %d, not the namespace's init",
		     rp_getppid(c));
	walk_ok();
	cr_assert_eq(rp_wait4(n, mnr, NULL, 0, NULL), mnr);
	rp_task_put(b);
	rp_task_put(m);
	end_child(n, c);
	end_child(n, d);
	reap_nr(u, n, nnr);
	end_child(init, u);
	finish_all_reaped();
}

/*
 * N, a namespace's init numbered @nnr by U, has ended its namespace, and
 * its exit waits for the pid of C alone (M, C's old parent, reaped in
 * that end): C's death completes it, U reaps N, and the table ends clean.
 */
static void init_waits_for_child(struct rp_task *u, struct rp_task *n, pid_t nnr,
				 struct rp_task *m, struct rp_task *c)
{
	int status = -1;

	cr_assert_eq(rp_wait4(u, nnr, &status, WNOHANG, NULL), 0, "init's exit waits for C");
	walk_ok();
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(u, nnr, &status, 0, NULL), nnr, "C's death completed init's exit");
	cr_assert_eq(status, EXITED(0));
	rp_task_put(m);
	rp_task_put(c);
	rp_task_put(n);
	walk_ok();
	end_child(init, u);
	finish_all_reaped();
}

/* Job @j exits @n, a namespace's init, held (offline) before the hold that ends the namespace. */
static void start_init_exit_held(struct job *j, struct rp_task *n)
{
	race_count_jobs();
	arm(RP_RACE_NS_INIT_EXITS, n, true, true);
	job_start(j, exit_group_job, n);
	cr_assert(await_reached(1), "init's exit never reached the end of its namespace");
}

/*
 * N, the namespace's init, is exiting: held before the hold that ends
 * the namespace (RP_RACE_NS_INIT_EXITS), RP_PF_EXITING set, the
 * namespace not dying yet.  M, a member with a child C, exits
 * meanwhile, under the gate shared: C must go to N's leader, exiting as
 * it is, whose end, wholly after M's hold, kills C, reaps M and waits
 * for C's pid; C's exit completes N's, and U reaps N.  No orphan goes to
 * the table's init.  RP_BREAK_NS_REAPER_EXITING skips the exiting init:
 * C goes to the table's init (getppid 0 in the namespace).
 */
Test(pidns_shared, member_with_child_exits_while_init_exits)
{
	struct rp_task *u, *n, *m, *c;
	struct job jn;
	pid_t nnr = ns_with_init(&u, &n);

	m = fork_of(n);
	c = fork_of(m);
	start_init_exit_held(&jn, n);
	cr_assert_eq(rp_exit_group(m, 0), 0);
	release();
	cr_assert_eq(job_join(&jn), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_getppid(c), 1, "an orphan of an exiting init went to %d",
		     rp_getppid(c));
	cr_assert_eq(rp_wait4(init, -1, NULL, WNOHANG, NULL), 0);
	init_waits_for_child(u, n, nnr, m, c);
}

/*
 * Protocol (a) inside a namespace: F's exit found R, a subreaper of the
 * namespace above it, as its child W's reaper, and is held there
 * (RP_RACE_EXIT_REAPER_FOUND, before it takes R's T).  R exits
 * meanwhile, under the gate shared too (its live child F goes to N, the
 * namespace's init), and closes.  F then finds R closed under R's T,
 * searches again (R is exiting: skipped) and gives W to N.
 * RP_BREAK_REPARENT_NO_CLOSED_RECHECK splices W onto R's closed list:
 * W's parent is a zombie whose exit is over.
 */
Test(pidns_shared, member_reaper_closed_meanwhile)
{
	struct rp_task *u, *n, *r, *f, *w;
	struct job jf;
	pid_t nnr = ns_with_init(&u, &n);
	long fexit = -1;

	r = fork_of(n);
	cr_assert_eq(rp_prctl(r, PR_SET_CHILD_SUBREAPER, 1), 0);
	f = fork_of(r);
	w = fork_of(f);
	cr_assert(exits_while_held(&jf, exit_group_job, f, RP_RACE_EXIT_REAPER_FOUND, f, r, &fexit),
		  "R's exit waited for the gate");
	cr_assert_eq(fexit, 0);
	cr_assert_eq(rp_getppid(w), 1, "an orphan went to a reaper that had closed (%d)",
		     rp_getppid(w));
	walk_ok();
	/* R and F, N's zombies now. */
	cr_assert_gt(rp_wait4(n, -1, NULL, WNOHANG, NULL), 1);
	cr_assert_gt(rp_wait4(n, -1, NULL, WNOHANG, NULL), 1);
	rp_task_put(r);
	rp_task_put(f);
	end_child(n, w);
	reap_nr(u, n, nnr);
	end_child(init, u);
	finish_all_reaped();
}

/*
 * M, a member with a child C, chose N, the namespace's init, as C's
 * reaper and is held there (RP_RACE_EXIT_REAPER_FOUND: the gate shared,
 * no T yet).  N exits meanwhile: the hold that ends the namespace must
 * wait for the gate (an exclusive taker's wait), so the end cannot come
 * between M's choice and its move.  Let go: C is N's, N's end kills it
 * and reaps M, and C's death completes N's exit.
 */
Test(pidns_shared, init_end_waits_for_member_reaper_choice)
{
	struct rp_task *u, *n, *m, *c;
	struct job jm;
	pid_t nnr = ns_with_init(&u, &n);
	long mexit = -1;

	m = fork_of(n);
	c = fork_of(m);
	cr_assert(!exits_while_held(&jm, exit_group_job, m, RP_RACE_EXIT_REAPER_FOUND, m, n, &mexit),
		  "init's exit ended the namespace inside a member's shared hold");
	cr_assert_eq(mexit, 0);
	cr_assert_eq(rp_getppid(c), 1, "C's parent is %d, not the namespace's init",
		     rp_getppid(c));
	init_waits_for_child(u, n, nnr, m, c);
}
