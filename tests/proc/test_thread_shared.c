/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A thread's clone (CLONE_THREAD) under the update gate shared
 * (docs/process.md, "What is built"): beside another shared holder, and
 * against what reads or writes what it writes with no update lock: a
 * plain exit of the group's real parent, which moves the group's threads
 * to a reaper under its T, a group kill and a group stop, which walk the
 * thread list under the siglock.  And a thread's exit under the gate
 * shared (suite thread_exit): the exit and release of a thread that is
 * not its group's leader while another thread runs, beside another
 * shared holder, against a clone by another thread of the group (G), and
 * against the exclusive exit of the group's last thread, which may come
 * between the exit's first look and its gate and leave the leader for it
 * to report.
 */
#include <sys/prctl.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "../fixture/racehold.h"
#include "../fixture/puppet.h"

static struct {
	struct rp_task *waits_on;	/* note a wait for this task's T */
	int waits;			/* uatomic: a writer waits for waits_on's T */
	struct rp_task *group_of;	/* note a wait for this process's G */
	int group_waits;		/* uatomic: a writer waits for group_of's G */
	int excl_waits;			/* uatomic: an exclusive taker waits for shared holders */
	int cloned;			/* uatomic: clone_job returned */
	int exited;			/* uatomic: exit_job returned */
	struct rp_task *born;		/* clone_job's thread, read after its join */
} hold;

/*
 * racehold.h's hook, noting an exclusive taker's wait, a wait for
 * waits_on's T and one for group_of's G.
 */
static void note_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GATE_EXCL_WAITS)
		uatomic_set(&hold.excl_waits, 1);
	else if (where == RP_RACE_TREE_WAITS && t == CMM_LOAD_SHARED(hold.waits_on))
		uatomic_set(&hold.waits, 1);
	else if (where == RP_RACE_GROUP_WAITS && t == CMM_LOAD_SHARED(hold.group_of))
		uatomic_set(&hold.group_waits, 1);
	else
		race_hook(where, t);
}

/* A thread of the job's process: its tid, the task in hold.born. */
static long clone_job(struct job *j)
{
	long ret = rp_clone(j->t, THREAD_FLAGS, &hold.born);

	uatomic_set(&hold.cloned, 1);
	return ret;
}

/* @j->arg: the thread alone exits (its process lives on), else its process. */
static long exit_job(struct job *j)
{
	long ret = j->arg ? rp_exit(j->t, 0) : rp_exit_group(j->t, 0);

	uatomic_set(&hold.exited, 1);
	return ret;
}

/* Until *@waits is set, exit_job returned, or an exclusive taker waits. */
static void await_exit_or(int *waits)
{
	while (!uatomic_read(waits) && !uatomic_read(&hold.exited) &&
	       !uatomic_read(&hold.excl_waits))
		usleep(1000);
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

/* End process @c of threads @c (its leader) and @b, a child of init. */
static void end_two(struct rp_task *c, struct rp_task *b)
{
	cr_assert_eq(rp_exit(b, 0), 0);
	rp_task_put(b);
	end_child(init, c);
}

/*
 * W's PR_SET_CHILD_SUBREAPER holds the gate shared, its walk held once it
 * marked its child K; job @fn runs on @t (with @arg) meanwhile, and must
 * be done (*@done set) while the walk is held: an operation that takes
 * the gate exclusive waits for the walk.  Let go, W and K are ended;
 * @fn's answer.
 */
static long beside_a_walk(long (*fn)(struct job *), struct rp_task *t, long arg, int *done)
{
	struct rp_task *w = fork_of(init), *k = fork_of(w);
	struct job jw, j = { .arg = arg };
	long ret;

	start_held_with(&jw, subreaper_job, w, RP_RACE_SUBREAPER_WALK, k, note_hook);
	job_start(&j, fn, t);
	while (!uatomic_read(done) && !uatomic_read(&hold.excl_waits))
		usleep(1000);
	cr_expect(uatomic_read(done), "it waited for a shared holder");
	release();
	cr_assert_eq(job_join(&jw), 0);
	ret = job_join(&j);
	rp_debug_race_hook(NULL);
	end_child(w, k);
	end_child(init, w);
	return ret;
}

/* P clones a thread beside a subreaper walk: done while the walk is held. */
Test(thread_shared, beside_a_shared_holder)
{
	struct rp_task *p;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	cr_assert_gt(beside_a_walk(clone_job, p, 0, &hold.cloned), 1);
	cr_expect_eq(rp_getpid(hold.born), rp_getpid(p));
	cr_expect_eq(rp_getppid(hold.born), 1);
	end_two(p, hold.born);
	finish_all_reaped();
}

/*
 * P, init's child, and C, P's child: C's clone of a thread is held at
 * @where while P exits (a plain exit: it gives C, every thread of it, to
 * init under T of P and of init, and goes in beside the held clone or
 * waits for P's T, never for the gate).  Let go, the clone ends, and the
 * new thread's parent must be init, as its leader's.
 */
static void clone_held_while_parent_exits(enum rp_race_point where)
{
	struct job held, jp = { .arg = 0 };
	struct rp_task *p, *c;
	int status = -1;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	c = fork_of(p);
	pid_t ppid = rp_getpid(p);	/* before its exit: a reaped task has none */

	hold.waits_on = p;
	start_held_with(&held, clone_job, c, where, c, note_hook);
	job_start(&jp, exit_job, p);
	await_exit_or(&hold.waits);
	cr_expect(!uatomic_read(&hold.excl_waits), "a plain exit waited for a shared holder");
	release();
	cr_assert_eq(job_join(&jp), 0);
	cr_assert_gt(job_join(&held), 1);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getppid(c), 1);
	cr_assert_eq(rp_getppid(hold.born), 1, "the new thread's parent is %d, not init",
		     rp_getppid(hold.born));
	cr_assert_eq(rp_wait4(init, ppid, &status, 0, NULL), ppid);
	rp_task_put(p);
	end_two(c, hold.born);
	finish_all_reaped();
}

/*
 * C's clone read its group's real parent P and is held before P's T
 * (RP_RACE_THREAD_PARENT_READ): P's exit is done meanwhile.  The clone
 * takes T of P, finds the parent changed, and takes init's.
 * RP_BREAK_THREAD_NO_PARENT_RECHECK keeps P: the new thread's parent is
 * the process that gave its group away.
 */
Test(thread_shared, reparented_before_its_locks)
{
	clone_held_while_parent_exits(RP_RACE_THREAD_PARENT_READ);
}

/*
 * C's clone holds G of C's group and T of P, checked, and is held before
 * it links the thread (RP_RACE_THREAD_LOCKED): P's exit, which must move
 * every thread of C under P's T, waits for that T; let go, the clone
 * links its thread, and the exit's walk of C's threads finds it.
 * RP_BREAK_THREAD_PARENT_UNLOCKED takes no T: the exit moves C's threads
 * while the clone is held, and the clone then links the new thread with
 * P, which has given its group away, for parent.
 */
Test(thread_shared, parent_exit_waits_for_the_link)
{
	clone_held_while_parent_exits(RP_RACE_THREAD_LOCKED);
}

/*
 * C's clone of a thread is held inside its locks, before the siglock
 * hold that links the thread, and C takes a SIGKILL meanwhile (the group
 * exit starts as it is sent, every thread on the list marked).  The
 * clone's look in that hold fails it (to be restarted, which C's death
 * ends): no thread is born after the kill's walk of the thread list to
 * outlive its process.  RP_BREAK_THREAD_KILL_UNCHECKED trusts the look
 * the clone made before its locks: the thread is born and nothing kills it.
 */
Test(thread_shared, group_kill_while_held)
{
	struct rp_task *c;
	struct puppet dc;
	struct job held;
	int status = -1;
	long ret;

	start(RP_SYNC_RCU);
	c = fork_of(init);
	pid_t cpid = rp_getpid(c);

	start_held_with(&held, clone_job, c, RP_RACE_THREAD_LOCKED, c, race_hook);
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	release();
	ret = job_join(&held);
	rp_debug_race_hook(NULL);
	cr_assert_eq(ret, -RP_ERESTARTNOINTR, "a thread was born (%ld) after its group's SIGKILL",
		     ret);
	puppet_start(&dc, c);
	puppet_join_dead(&dc);
	cr_assert_eq(rp_wait4(init, cpid, &status, 0, NULL), cpid);
	cr_expect_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(c);
	finish_all_reaped();
}

/*
 * X, C's second thread, clones a third and is held inside its locks,
 * before the siglock hold that links it; C's leader L takes a SIGSTOP
 * meanwhile and begins the group stop, which marks L and X, and stops.
 * The clone links the new thread B into the stop in progress, in the
 * hold that links it: the group stops when all three have, and the
 * parent's wait4(WUNTRACED) reports it only then.
 * RP_BREAK_THREAD_STOP_JOIN_EARLY joins B to the stop in the clone's
 * first hold, before its locks, when there was none: B runs on in a
 * process its parent was told is stopped.
 */
Test(thread_shared, group_stop_while_held)
{
	struct puppet dl, dx, db;
	struct rp_task *c, *x, *b;
	struct job held;
	int status = -1;

	start(RP_SYNC_RCU);
	c = fork_of(init);
	x = thread_of(c);
	pid_t cpid = rp_getpid(c);

	puppet_start(&dl, c);
	start_held_with(&held, clone_job, x, RP_RACE_THREAD_LOCKED, x, race_hook);
	cr_assert_eq(rp_kill(init, cpid, SIGSTOP), 0);
	await_task(task_stopped, c);
	release();
	cr_assert_gt(job_join(&held), 1);
	rp_debug_race_hook(NULL);
	b = hold.born;
	puppet_start(&dx, x);
	puppet_start(&db, b);
	cr_assert_eq(rp_wait4(init, cpid, &status, WUNTRACED, NULL), cpid);
	cr_expect_eq(status, STOPPED_BY(SIGSTOP));
	cr_assert(task_stopped(b), "the new thread runs in a stopped process");
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	puppet_join_dead(&dl);
	puppet_join_dead(&dx);
	puppet_join_dead(&db);
	cr_assert_eq(rp_wait4(init, cpid, &status, 0, NULL), cpid);
	cr_expect_eq(status, KILLED_BY(SIGKILL));
	rp_task_put(b);
	rp_task_put(x);
	rp_task_put(c);
	finish_all_reaped();
}

/* The number of threads of @c's process (G's field, read with nothing else running). */
static unsigned int threads_of(struct rp_task *c)
{
	return CMM_LOAD_SHARED(c->signal->nr_threads);
}

/*
 * B, a thread of P, exits beside a subreaper walk (beside_a_walk): done
 * while the walk is held.  It failed before the thread's exit went
 * shared: the exit took the gate exclusive and waited for the walk.
 */
Test(thread_exit, beside_a_shared_holder)
{
	struct rp_task *p, *b;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	b = thread_of(p);
	pid_t btid = rp_gettid(b);	/* before its exit: a released task has none */

	cr_assert_eq(beside_a_walk(exit_job, b, 1, &hold.exited), 0);
	cr_expect_eq(threads_of(p), 1);
	cr_expect_eq(rp_tkill(init, btid, 0), -ESRCH, "a released thread is found by its tid");
	rp_task_put(b);
	end_child(init, p);
	finish_all_reaped();
}

/* A child of @parent with two more threads, in *@t1 and *@t2: its leader. */
static struct rp_task *three_threads(struct rp_task *parent, struct rp_task **t1,
				     struct rp_task **t2)
{
	struct rp_task *c = fork_of(parent);

	*t1 = thread_of(c);
	*t2 = thread_of(c);
	return c;
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
	struct job ja = { .arg = 1 };
	int status = -1;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	mask_signal(p, SIG_BLOCK, SIGCHLD);
	c = three_threads(p, &a, &b);
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
	struct job jx, ja = { .arg = 1 };

	start(RP_SYNC_RCU);
	c = three_threads(init, &x, &a);
	hold.group_of = c;
	start_held_with(&jx, clone_job, x, RP_RACE_THREAD_LOCKED, x, note_hook);
	job_start(&ja, exit_job, a);
	await_exit_or(&hold.group_waits);
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

/*
 * B, a thread of P (root namespace, not init), unshares its pid namespace
 * for its children (unshare(CLONE_NEWPID), allowed to a thread of a
 * process of several on Linux) and exits while P's leader runs.  Its
 * release drops its record in the nested tables, which only the update
 * lock may (rp_task_drop_ns_children), so the exit takes the gate
 * exclusive (thread_exit_may_be_plain).  Before, it went plain and the
 * debug build stopped at that assertion.
 */
Test(thread_exit, after_its_unshare_of_the_pid_ns)
{
	struct rp_task *p, *b;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	b = thread_of(p);
	cr_assert_eq(rp_unshare(b, CLONE_NEWPID), 0);
	cr_assert_eq(rp_exit(b, 0), 0);
	cr_expect_eq(threads_of(p), 1);
	rp_task_put(b);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * Protocol (a)'s closed flag against a thread's plain exit: S, a child
 * subreaper, has its leader a zombie and threads T and U; U forked A, A
 * forked Q.  A's plain exit finds T as Q's reaper (S's first live
 * thread) and is held there (RP_RACE_EXIT_REAPER_FOUND, before it takes
 * T's T).  T's exit, plain, closes T and releases it meanwhile.  Let go,
 * A must see T closed, choose again and give Q to U; Q's exit is then
 * reaped by U.  RP_BREAK_REPARENT_NO_CLOSED_RECHECK gives Q to the
 * released T.
 */
static struct rp_task *found_of;
static int founds;		/* uatomic: found_of's RP_RACE_EXIT_REAPER_FOUND */

static void found_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_EXIT_REAPER_FOUND && t == CMM_LOAD_SHARED(found_of))
		uatomic_inc(&founds);
	race_hook(where, t);
}

Test(thread_exit, closed_against_a_splice_onto_it)
{
	struct rp_task *s, *t, *u, *a, *q;
	struct job ja = { .arg = 0 };
	int status = -1;

	start(RP_SYNC_RCU);
	s = fork_of(init);
	cr_assert_eq(rp_prctl(s, PR_SET_CHILD_SUBREAPER, 1), 0);
	t = thread_of(s);
	u = thread_of(s);
	a = fork_of(u);
	q = fork_of(a);
	pid_t qpid = rp_getpid(q), spid = rp_getpid(s), apid = rp_getpid(a);

	cr_assert_eq(rp_exit(s, 0), 0);		/* the leader: a zombie */
	found_of = a;
	start_held_with(&ja, exit_job, a, RP_RACE_EXIT_REAPER_FOUND, a, found_hook);
	cr_assert_eq(rp_exit(t, 0), 0);
	cr_expect_eq(threads_of(s), 2);
	release();
	cr_assert_eq(job_join(&ja), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(uatomic_read(&founds), 2, "A chose a reaper %d times", uatomic_read(&founds));
	cr_expect_eq(rp_getppid(q), spid);
	cr_expect_eq(CMM_LOAD_SHARED(q->real_parent), u, "Q went to a released thread");
	cr_assert_eq(rp_exit_group(q, 0), 0);
	cr_expect_eq(rp_wait4(u, qpid, &status, WNOHANG, NULL), qpid);
	cr_assert_eq(rp_wait4(u, apid, &status, WNOHANG, NULL), apid);
	rp_task_put(q);
	rp_task_put(a);
	rp_task_put(t);
	cr_assert_eq(rp_exit(u, 0), 0);
	rp_task_put(u);
	cr_assert_eq(rp_wait4(init, spid, &status, 0, NULL), spid);
	rp_task_put(s);
	finish_all_reaped();
}
