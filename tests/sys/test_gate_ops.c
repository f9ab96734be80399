/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The operations converted to rcu mode's object locks, which take the
 * update gate shared (docs/process.md, "Without the update lock"), against
 * each other and against an unconverted operation, which takes it
 * exclusive: prctl(PR_SET_CHILD_SUBREAPER), and a plain fork beside a
 * subreaper walk, beside another fork into its group, and beside a
 * setpgid of its parent (which takes the gate shared too: its other
 * races are in tests/pgrp/test_setpgid_shared.c); a commit of
 * credentials beside a shared holder.
 */
#include <sys/prctl.h>
#include <rcuproc/pgrp.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/pgrp.h"
#include "task/task.h"
#include "debug/racepoint.h"

static struct {
	struct rp_task *walk_at;	/* hold the subreaper walk that marked this task */
	int at_walk, go_walk;		/* uatomic */
	int excl_waits;			/* uatomic: an exclusive taker waits for shared holders */
} hold;

static void await_flag(const int *flag)
{
	while (!uatomic_read(flag))
		usleep(1000);
}

/* Until one of two things happened: a thread waits, or (broken) it is done. */
static void await_either(const int *waits, const int *done)
{
	while (!uatomic_read(waits) && !uatomic_read(done))
		usleep(1000);
}

static void hook(enum rp_race_point where, struct rp_task *t)
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

/*
 * @walker's PR_SET_CHILD_SUBREAPER in job @j, held once its walk marked
 * @at: armed before the walk starts, so that it cannot pass first.
 */
static void hold_walk(struct job *j, struct rp_task *walker, struct rp_task *at)
{
	hold.walk_at = at;
	rp_debug_race_hook(hook);
	job_start(j, subreaper_job, walker);
	await_flag(&hold.at_walk);
}

static int exit_done;	/* uatomic */

static long exit_job(struct job *j)
{
	long ret = rp_exit_group(j->t, 0);

	uatomic_set(&exit_done, 1);
	return ret;
}

/*
 * B -> A -> X -> Y -> W.  A's subreaper walk marked X and is held before Y;
 * B's walk (shared beside it) finds X marked and skips X's subtree, and
 * returns.  Y's exit, an exclusive taker, then waits for A's walk, and
 * gives W to its nearest subreaper, A, as on Linux (where the walk holds
 * tasklist_lock's read side and the exit its write side).
 * RP_BREAK_SUBREAPER_WALK_UNGATED walks outside the gate: the exit goes
 * in at once, finds Y unmarked and gives W to init.
 */
Test(subreaper, walk_done_before_exclusive)
{
	struct rp_task *b, *a, *x, *y, *w;
	struct job ja, je;
	int status = -1;
	pid_t ypid;

	start(RP_SYNC_RCU);
	b = fork_of(init);
	a = fork_of(b);
	x = fork_of(a);
	y = fork_of(x);
	w = fork_of(y);
	ypid = rp_getpid(y);
	hold_walk(&ja, a, x);
	cr_assert_eq(rp_prctl(b, PR_SET_CHILD_SUBREAPER, 1), 0, "B's walk waited for A's");
	cr_assert(CMM_LOAD_SHARED(a->signal->has_child_subreaper));
	job_start(&je, exit_job, y);
	/* The exit either waits for A's walk, or (broken) is done. */
	await_either(&hold.excl_waits, &exit_done);
	uatomic_set(&hold.go_walk, 1);
	cr_assert_eq(job_join(&ja), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getppid(w), rp_getpid(a),
		     "an exit chose a reaper while a subreaper walk was marking its process");
	cr_assert_eq(rp_wait4(x, ypid, &status, 0, NULL), ypid);
	rp_task_put(y);
	end_child(rp_getppid(w) == rp_getpid(a) ? a : init, w);
	end_child(a, x);
	end_child(b, a);
	end_child(init, b);
	finish_all_reaped();
}

static int setuid_done;	/* uatomic */

static long setuid_job(struct job *j)
{
	long ret = rp_setuid(j->t, 1000);

	uatomic_set(&setuid_done, 1);
	return ret;
}

/*
 * A's subreaper walk holds the gate shared, held once it marked X; P's
 * setuid commits its credentials beside it, under the gate shared and
 * P's siglock, where it took the gate exclusive and waited for the walk.
 */
Test(gate_creds, commit_beside_a_shared_holder)
{
	struct rp_task *a, *x, *p;
	struct job ja, js;

	start(RP_SYNC_RCU);
	a = fork_of(init);
	x = fork_of(a);
	p = fork_of(init);
	hold_walk(&ja, a, x);
	job_start(&js, setuid_job, p);
	/* The commit either is done, or waits for the walk. */
	await_either(&hold.excl_waits, &setuid_done);
	cr_expect(uatomic_read(&setuid_done), "a commit of credentials waited for a shared holder");
	uatomic_set(&hold.go_walk, 1);
	cr_assert_eq(job_join(&ja), 0);
	cr_assert_eq(job_join(&js), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getuid(p), 1000);
	cr_expect_eq(rp_geteuid(p), 1000);
	end_child(init, p);
	end_child(a, x);
	end_child(init, a);
	finish_all_reaped();
}

/* Two walks of one process's threads at once: both see their subtree marked. */
Test(subreaper, two_walks_side_by_side)
{
	struct rp_task *a, *t, *c, *g;
	struct job ja;

	start(RP_SYNC_RCU);
	a = fork_of(init);
	t = thread_of(a);
	c = fork_of(t);
	g = fork_of(c);
	hold_walk(&ja, a, c);
	/* Inside the gate beside the held walk: G of the group, then a walk that skips c. */
	cr_assert_eq(rp_prctl(t, PR_SET_CHILD_SUBREAPER, 0), 0);
	cr_assert_eq(rp_prctl(t, PR_SET_CHILD_SUBREAPER, 1), 0);
	uatomic_set(&hold.go_walk, 1);
	cr_assert_eq(job_join(&ja), 0);
	rp_debug_race_hook(NULL);
	cr_assert(a->signal->is_child_subreaper);
	cr_assert(g->signal->has_child_subreaper);
	end_child(c, g);
	end_child(t, c);
	end_task(t);
	end_child(init, a);
	finish_all_reaped();
}

/* A caller's PR_SET_CHILD_SUBREAPER on a thread with a small stack (job_main's body). */
static void *small_stack_main(void *arg)
{
	struct job *j = arg;

	rp_thread_register();
	j->ret = rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
	rp_thread_unregister();
	return NULL;
}

/*
 * The walk's depth is the tree's: a chain of processes as deep as
 * pid_max allows is marked with a stack of fixed size, as Linux's
 * walk_process_tree does, here on a thread of 64 KB under a chain of
 * 10,000.  A walk that recurses once per generation needs tens of bytes
 * a generation and runs off the end of the stack (SIGSEGV).
 */
Test(subreaper, walk_depth_needs_no_stack)
{
	enum { DEPTH = 10000 };
	struct rp_task *a, *p, *c;
	pthread_attr_t attr;
	struct job j = { .ret = -1 };

	start(RP_SYNC_RCU);
	a = fork_of(init);
	p = rp_task_get(a);
	for (int i = 0; i < DEPTH; i++) {
		c = fork_of(p);
		rp_task_put(p);
		p = c;
	}
	j.t = a;
	cr_assert_eq(pthread_attr_init(&attr), 0);
	cr_assert_eq(pthread_attr_setstacksize(&attr, 64 * 1024), 0);
	cr_assert_eq(pthread_create(&j.thread, &attr, small_stack_main, &j), 0);
	pthread_attr_destroy(&attr);
	cr_assert_eq(job_join(&j), 0);
	cr_assert(CMM_LOAD_SHARED(p->signal->has_child_subreaper),
		  "the deepest process was left unmarked");
	rp_task_put(p);
	rp_task_put(a);
	stop_system();
}

/*
 * The walk's order: every thread's children, and their threads' children,
 * down and back up, each of A's descendants marked and nothing beside A:
 * A (threads A, T) -> C1 (threads C1, C1T) and C2 (forked by T);
 * C1T -> G1, C1 -> G2, C2 -> G3; O, A's sibling, stays unmarked.
 */
Test(subreaper, walk_marks_every_thread_child)
{
	struct rp_task *a, *t, *c1, *c1t, *c2, *o;

	start(RP_SYNC_RCU);
	a = fork_of(init);
	t = thread_of(a);
	c1 = fork_of(a);
	c1t = thread_of(c1);
	c2 = fork_of(t);
	o = fork_of(init);

	struct rp_task *below[5] = { c1, c2, fork_of(c1t), fork_of(c1), fork_of(c2) };

	cr_assert_eq(rp_prctl(t, PR_SET_CHILD_SUBREAPER, 1), 0);
	for (unsigned int i = 0; i < 5; i++)
		cr_assert(below[i]->signal->has_child_subreaper, "descendant %u left unmarked", i);
	cr_assert_not(a->signal->has_child_subreaper, "the subreaper itself marked");
	cr_assert_not(o->signal->has_child_subreaper, "a process beside the subreaper marked");
	for (unsigned int i = 0; i < 5; i++)
		rp_task_put(below[i]);
	rp_task_put(c1t);
	rp_task_put(t);
	rp_task_put(a);
	rp_task_put(o);
	stop_system();
}

/*
 * A plain fork under the gate shared, beside a subreaper walk and beside
 * another fork into the same process group (docs/process.md, "What is
 * built").  One hook holds the first thread that reaches @fork_where with
 * task @fork_at, once, until go_fork; member_waits tells that a second
 * fork waits for the held one's member lock.
 */
static struct {
	enum rp_race_point where;
	struct rp_task *at;
	int reached, go, member_waits, tree_waits;	/* uatomic */
} hold_fork;

static void fork_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_MEMBER_WAITS && t == hold_fork.at) {
		uatomic_set(&hold_fork.member_waits, 1);
	} else if (where == RP_RACE_TREE_WAITS && t == hold_fork.at) {
		uatomic_set(&hold_fork.tree_waits, 1);
	} else if (where == RP_RACE_GATE_EXCL_WAITS) {
		uatomic_set(&hold.excl_waits, 1);
	} else if (where == hold_fork.where && t == CMM_LOAD_SHARED(hold_fork.at) &&
		   !uatomic_read(&hold_fork.reached) &&
		   !uatomic_cmpxchg(&hold_fork.reached, 0, 1)) {
		await_flag(&hold_fork.go);
	}
}

static struct rp_task *forked[2];	/* each fork job's child, by its ->arg */
static int second_done;			/* uatomic: the job of ->arg 1 returned */

static long fork_job(struct job *j)
{
	long ret = rp_fork(j->t, &forked[j->arg]);

	if (j->arg)
		uatomic_set(&second_done, 1);
	return ret;
}

/* Hook armed before @forker's fork starts (it cannot pass first); held at @where. */
static void hold_fork_at(struct job *j, struct rp_task *forker, enum rp_race_point where,
			 struct rp_task *at)
{
	hold_fork.where = where;
	hold_fork.at = at;
	rp_debug_race_hook(fork_hook);
	j->arg = 0;
	job_start(j, fork_job, forker);
	await_flag(&hold_fork.reached);
}

/*
 * Q -> P.  P's fork of C is held after it read P's (clear) subreaper
 * marks and before C is on P's children list; Q's PR_SET_CHILD_SUBREAPER
 * then marks P and walks P's children, which do not have C yet, and
 * returns.  The fork reads P's mark after linking C: C is marked, and an
 * orphan of C's will look for Q.  RP_BREAK_FORK_SUBREAPER_EARLY copies
 * the mark before the link only: C stays unmarked, every time.
 */
Test(fork_shared, subreaper_mark_after_link)
{
	struct rp_task *q, *p, *c;
	struct job jf;
	long pid;

	start(RP_SYNC_RCU);
	q = fork_of(init);
	p = fork_of(q);
	hold_fork_at(&jf, p, RP_RACE_FORK_SUBREAPER_COPY, p);
	cr_assert_eq(rp_prctl(q, PR_SET_CHILD_SUBREAPER, 1), 0, "a walk waited for a fork");
	cr_assert(CMM_LOAD_SHARED(p->signal->has_child_subreaper));
	uatomic_set(&hold_fork.go, 1);
	pid = job_join(&jf);
	rp_debug_race_hook(NULL);
	cr_assert_gt(pid, 0);
	c = forked[0];
	cr_expect(CMM_LOAD_SHARED(c->signal->has_child_subreaper),
		  "a fork beside a subreaper walk left its child unmarked");
	end_child(p, c);
	end_child(q, p);
	end_child(init, q);
	finish_all_reaped();
}

/*
 * P1 and P2 are in init's process group and session, one pid.  P1's fork
 * is held inside its attach to that pid (the count read, not stored);
 * P2's fork then waits for the pid's M, which lets P1 go.  Both children
 * attach once (the group; the session's id is held by its groups, not by
 * each process: docs/process.md, protocol (i)): two more.
 * RP_BREAK_MEMBER_UNLOCKED takes no M: P2's fork attaches while P1 holds
 * the old count, which P1 then stores: an attachment lost, every time.
 */
Test(fork_shared, member_count_not_lost)
{
	struct rp_task *p1, *p2, *owner;
	struct rp_pid *id;
	struct job j1, j2;
	unsigned int before;

	start(RP_SYNC_RCU);
	p1 = fork_of(init);
	p2 = fork_of(init);
	id = p1->signal->pgrp;
	cr_assert_eq(id, p1->signal->session);
	cr_assert_eq(id, p2->signal->pgrp);
	owner = &caa_container_of(id, struct rp_process, pid)->task;
	before = pid_attachments(id);
	hold_fork_at(&j1, p1, RP_RACE_MEMBER_ATTACH, owner);
	j2.arg = 1;
	job_start(&j2, fork_job, p2);
	/* P2's fork either waits for M, or (broken) is done. */
	await_either(&hold_fork.member_waits, &second_done);
	uatomic_set(&hold_fork.go, 1);
	cr_assert_gt(job_join(&j1), 0);
	cr_assert_gt(job_join(&j2), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(pid_attachments(id), before + 2,
		     "two forks into one group lost an attachment: %u, not %u",
		     pid_attachments(id), before + 2);
	end_child(p1, forked[0]);
	end_child(p2, forked[1]);
	end_child(init, p1);
	end_child(init, p2);
	finish_all_reaped();
}

static long setpgid_job(struct job *j)
{
	long ret = rp_setpgid(j->t, j->pid, j->pid);

	uatomic_set(&second_done, 1);
	return ret;
}

/*
 * setpgid of a forking parent (protocol (c)): P's fork read P's group and
 * session under P's T and is held before it takes their M; setpgid of P
 * by its parent, under the gate shared too, waits for P's T.  Then it
 * moves P alone: the child stays in the old group, as on Linux, where the
 * fork's tasklist_lock came first.  RP_BREAK_SETPGID_OWN_TREE_UNLOCKED
 * moves P inside the fork's window, every time (and the fork then links
 * its child into the group it read, behind a proxy P no longer has).
 */
Test(fork_shared, setpgid_of_parent_waits_for_fork)
{
	struct rp_task *p;
	struct job jf, js;
	pid_t old, ppid;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	old = rp_getpgid(p, 0);
	ppid = rp_getpid(p);
	hold_fork_at(&jf, p, RP_RACE_FORK_IDS_READ, p);
	js.pid = ppid;
	job_start(&js, setpgid_job, init);
	await_either(&hold_fork.tree_waits, &second_done);
	cr_expect_not(uatomic_read(&second_done), "setpgid of a parent went in beside its fork");
	uatomic_set(&hold_fork.go, 1);
	cr_assert_gt(job_join(&jf), 0);
	cr_assert_eq(job_join(&js), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getpgid(p, 0), ppid);
	cr_expect_eq(rp_getpgid(forked[0], 0), old, "the child followed its parent's move");
	end_child(p, forked[0]);
	end_child(init, p);
	finish_all_reaped();
}
