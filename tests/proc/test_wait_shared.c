/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wait's plain claim and release under the update gate shared (rcu mode;
 * docs/process.md, protocol (d), "What is built"): two claimers of one
 * zombie, a release's unlink from sys->tasks beside a fork's link behind
 * the neighbouring node, and a release's detaches beside a fork's attach
 * to the same process group.  Each holds one thread at a race point so
 * that the other acts inside the window every run.
 */
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/racehold.h"
#include "../fixture/pgrp.h"
#include "task/task.h"
#include "verify/verify.h"
#include <rcuproc/snapshot.h>

static void await_flag(const int *flag)
{
	while (!uatomic_read(flag))
		usleep(1000);
}

/* The table walk finds nothing wrong (lists, threads, ties). */
static void expect_table_consistent(void)
{
	struct rp_verify_report r = { 0 };

	cr_expect_eq(rp_verify_walk_table(sys, &r), 0, "table walk: %s", r.first[0]);
}

/* How many rows of init's ps name process @pid (a walk of sys->tasks, as kill(-1)'s). */
static unsigned int in_ps(pid_t pid)
{
	struct rp_ps_entry rows[16];
	long n = rp_ps_snapshot(init, rows, 16);
	unsigned int found = 0;

	cr_assert(n > 0 && n <= 16, "ps saw %ld processes", n);
	for (long i = 0; i < n; i++)
		found += rows[i].pid == pid;
	return found;
}

/* A child of @parent that has exited, not yet reaped; its pid in *@pid. */
static struct rp_task *zombie_of(struct rp_task *parent, pid_t *pid)
{
	struct rp_task *z = fork_of(parent);

	*pid = rp_getpid(z);
	cr_assert_eq(rp_exit_group(z, 0), 0);
	return z;
}

/*
 * Two claimers of zombie @z: the first to take the locks is held between
 * its recheck of the link and its compare-and-swap (RP_RACE_CLAIM_LINKED)
 * until both have found @z a zombie inside the claim (RP_RACE_CLAIM_ZOMBIE:
 * the second then waits for the first's locks).
 */
static struct {
	struct rp_task *z;
	int zombie_seen, at_linked, go;	/* uatomic */
} two;

static void two_hook(enum rp_race_point where, struct rp_task *t)
{
	if (t != CMM_LOAD_SHARED(two.z))
		return;
	if (where == RP_RACE_CLAIM_ZOMBIE)
		uatomic_inc(&two.zombie_seen);
	else if (where == RP_RACE_CLAIM_LINKED && !uatomic_cmpxchg(&two.at_linked, 0, 1))
		await_flag(&two.go);	/* in a read section: stays online */
}

/*
 * P's two threads wait for any child at once; Z, P's only child, is a
 * zombie.  Both find it and go into the shared claim; the first is held
 * after its recheck, the second has found Z a zombie and waits for the
 * first's locks.  The first reaps Z; the second's link still leads to P,
 * and its compare-and-swap finds Z dead: it scans again and finds no
 * child (ECHILD).  Exactly one reports Z.  RP_BREAK_CLAIM_PLAIN_STORE
 * stores DEAD without comparing: the second reports Z too, and releases
 * it a second time.
 */
Test(claim_shared, two_claimers_one_report)
{
	struct rp_task *p, *p2, *z;
	struct job ja = { .pid = -1 }, jb = { .pid = -1 };
	pid_t zpid;
	long ra, rb;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	p2 = thread_of(p);
	z = zombie_of(p, &zpid);
	two.z = z;
	rp_debug_race_hook(two_hook);	/* before either wait starts */
	job_start(&ja, wait_job, p);
	job_start(&jb, wait_job, p2);
	while (!uatomic_read(&two.at_linked) || uatomic_read(&two.zombie_seen) < 2)
		usleep(1000);
	uatomic_set(&two.go, 1);
	ra = job_join(&ja);
	rb = job_join(&jb);
	rp_debug_race_hook(NULL);
	cr_expect((ra == zpid && rb == -ECHILD) || (rb == zpid && ra == -ECHILD),
		  "two claimers of one zombie: %ld and %ld (zombie %d)", ra, rb, zpid);
	rp_task_put(z);
	expect_table_consistent();
	end_task(p2);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * P (threads P, P2) forked Z, which sits right behind P on sys->tasks and
 * is a zombie.  P's wait reaps it under the gate shared; its unlink of Z
 * read Z's predecessor (P) and is held before locking it
 * (RP_RACE_TASKS_UNLINK).  P2 forks C meanwhile, under its own T and P's
 * siglock, which the held release does not hold: C goes right behind P,
 * before Z.  The unlink, once let go, finds under the locks that P no
 * longer leads to Z, and unlinks Z behind C.  C is on the list once.
 * RP_BREAK_TASKS_NO_RECHECK unlinks Z behind P as read: P's ->next skips
 * C, which kill(-1) and ps no longer reach.
 */
Test(release_shared, unlink_beside_fork_link)
{
	struct rp_task *p, *p2, *z, *c;
	struct job jw;
	pid_t zpid;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	p2 = thread_of(p);
	z = zombie_of(p, &zpid);
	/* Held in a read section (the predecessor's memory): online. */
	arm(RP_RACE_TASKS_UNLINK, z, true, false);
	race_count_jobs();
	jw.pid = zpid;
	jw.options = 0;
	job_start(&jw, wait_job, p);
	cr_assert(await_reached(1), "the reap did not unlink under the gate shared");
	c = fork_of(p2);
	release();
	cr_assert_eq(job_join(&jw), zpid);
	rp_debug_race_hook(NULL);
	job_done_hook = NULL;
	cr_assert_eq(in_ps(rp_getpid(c)), 1, "a fork behind a released node's predecessor: "
		     "ps shows its child %u times", in_ps(rp_getpid(c)));
	cr_expect_eq(in_ps(zpid), 0);
	expect_table_consistent();
	rp_task_put(z);
	end_child(p2, c);
	end_task(p2);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * A fork held inside its attach to process group @owner's pid (the count
 * read, not stored: RP_RACE_MEMBER_ATTACH), once; member_waits: a writer
 * found that pid's M held.
 */
static struct {
	struct rp_task *owner;
	int attach_held, go, member_waits, reaped;	/* uatomic */
} mem;

static void member_hook(enum rp_race_point where, struct rp_task *t)
{
	if (t != CMM_LOAD_SHARED(mem.owner))
		return;
	if (where == RP_RACE_MEMBER_WAITS)
		uatomic_set(&mem.member_waits, 1);
	else if (where == RP_RACE_MEMBER_ATTACH && !uatomic_cmpxchg(&mem.attach_held, 0, 1))
		await_flag(&mem.go);
}

static struct rp_task *mem_child;	/* the held fork's child */

static long fork_job(struct job *j)
{
	return rp_fork(j->t, &mem_child);
}

static long reap_job(struct job *j)
{
	long ret = wait_job(j);

	uatomic_set(&mem.reaped, 1);
	return ret;
}

/*
 * P1 and P2 are in init's process group and session (one pid); P1's
 * child Z is a zombie.  P2's fork is held inside its attach to that pid;
 * P1's reap of Z then waits for the pid's M, and goes on once the fork
 * does: the fork adds an attachment (the group's; the session's id is
 * held by its groups, docs/process.md, protocol (i)), the reap takes Z's
 * away.  RP_BREAK_RELEASE_MEMBER_UNLOCKED reaps without M: its detach
 * lands while the fork holds the old count, which the fork then stores:
 * a detach lost, every time.
 */
Test(release_shared, detach_beside_fork_attach)
{
	struct rp_task *p1, *p2, *z;
	struct rp_pid *id;
	struct job jf, jw;
	unsigned int before;
	pid_t zpid;

	start(RP_SYNC_RCU);
	p1 = fork_of(init);
	p2 = fork_of(init);
	z = zombie_of(p1, &zpid);
	id = p1->signal->pgrp;
	cr_assert_eq(id, p1->signal->session);
	cr_assert_eq(id, z->signal->pgrp);
	mem.owner = &caa_container_of(id, struct rp_process, pid)->task;
	before = pid_attachments(id);
	rp_debug_race_hook(member_hook);	/* before the fork starts */
	job_start(&jf, fork_job, p2);
	await_flag(&mem.attach_held);
	jw.pid = zpid;
	jw.options = 0;
	job_start(&jw, reap_job, p1);
	/* The reap either waits for M, or (broken) is done. */
	while (!uatomic_read(&mem.member_waits) && !uatomic_read(&mem.reaped))
		usleep(1000);
	uatomic_set(&mem.go, 1);
	cr_assert_gt(job_join(&jf), 0);
	cr_assert_eq(job_join(&jw), zpid);
	rp_debug_race_hook(NULL);
	cr_expect_eq(pid_attachments(id), before,
		     "a reap beside a fork into its group: %u attachments, not %u",
		     pid_attachments(id), before);
	expect_table_consistent();
	rp_task_put(z);
	end_child(p2, mem_child);
	end_child(init, p1);
	end_child(init, p2);
	finish_all_reaped();
}

/*
 * P, in a group of its own, waits for the children of that group
 * (waitpid(-pgid)); Z, P's only child, is a zombie of the group.  The wait found Z and is
 * held before its claim (RP_RACE_WAIT_CLAIM).  P2 moves Z into a group of
 * its own meanwhile: a child that has not exec'd may be moved, a zombie
 * too, as in Linux.  Z no longer matches the wait's selection, and a
 * setpgid that succeeded on Z comes before any reap of it: the claim
 * finds Z not eligible, scans again and finds no child of that group
 * (ECHILD).  Z is then reaped by a wait for its new group.
 * RP_BREAK_WAIT_NO_RECHECK claims what the scan saw: it reaps Z.
 */
Test(claim_shared, selection_rechecked)
{
	struct rp_task *p, *p2, *z;
	struct job jw;
	pid_t zpid, pgid;
	long ret;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	cr_assert_eq(rp_setpgid(p, 0, 0), 0);	/* a group of its own: not init's, 1 */
	p2 = thread_of(p);
	z = zombie_of(p, &zpid);
	pgid = rp_getpgid(p, 0);
	cr_assert_eq(pgid, rp_getpid(p));
	cr_assert_eq(rp_getpgid(p, zpid), pgid);
	arm(RP_RACE_WAIT_CLAIM, z, true, true);	/* before the wait starts */
	race_count_jobs();
	jw.pid = -pgid;
	jw.options = 0;
	job_start(&jw, wait_job, p);
	cr_assert(await_reached(1), "the wait did not find Z");
	cr_assert_eq(rp_setpgid(p2, zpid, zpid), 0);
	release();
	ret = job_join(&jw);
	rp_debug_race_hook(NULL);
	job_done_hook = NULL;
	cr_expect_eq(ret, -ECHILD, "wait(-%d) reported %ld: a child moved to group %d "
		     "before the claim", pgid, ret, zpid);
	if (ret != zpid)
		cr_expect_eq(rp_wait4(p, -zpid, NULL, 0, NULL), zpid);
	expect_table_consistent();
	rp_task_put(z);
	end_task(p2);
	end_child(init, p);
	finish_all_reaped();
}
