/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A plain exit under the update gate shared (docs/process.md, "What is
 * built"): beside other shared holders, against a wait of a parent that
 * does not wait for it, its release against that parent's fork, two
 * exits that take the last two ties of one
 * process group at once, an exit whose reaper exits meanwhile, and a
 * child's exit against its parent's.
 */
#include <sys/prctl.h>
#include <rcuproc/pgrp.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "../fixture/pgrp.h"
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"
#include "../fixture/racenote.h"

static int exited[2];		/* uatomic: exit_job of ->arg returned */

static long exit_job(struct job *j)
{
	long ret = rp_exit_group(j->t, 0);

	uatomic_set(&exited[j->arg], 1);
	return ret;
}

/* Exit job @arg on @t (its ->arg @arg). */
static void start_exit(struct job *j, struct rp_task *t, long arg)
{
	j->arg = arg;
	job_start(j, exit_job, t);
}

/* Until @flag is set, or exit job @arg returned. */
static void await_flag_or_exit(const int *flag, long arg)
{
	while (!uatomic_read(flag) && !uatomic_read(&exited[arg]))
		usleep(1000);
}

/*
 * @fn as job @j on @t, held at @where by task @at (in a read section:
 * online), armed before it starts: it cannot pass first.
 */
static void start_held(struct job *j, long (*fn)(struct job *), struct rp_task *t,
		       enum rp_race_point where, struct rp_task *at)
{
	start_held_with(j, fn, t, where, at, note_hook);
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
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
	start_held(&jw, subreaper_job, w, RP_RACE_SUBREAPER_WALK, k);
	start_exit(&je, p, 0);
	await_flag_or_exit(&excl_waits, 0);
	cr_expect(uatomic_read(&exited[0]), "a plain exit waited for a shared holder");
	release();
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
 * P's T that makes it a zombie, and releases it after, with P's T again
 * (under the gate shared).  Held between the two, C is no child P's wait
 * may claim.
 * RP_BREAK_AUTOREAP_DEAD_LATE sets DEAD in the release's hold: P's wait
 * claims the zombie in between, every time, and the release comes twice.
 */
Test(exit_shared, autoreaped_before_the_locks_go)
{
	struct rp_task *p, *c;
	struct job je;
	pid_t cpid;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	set_action(p, SIGCHLD, SIG_IGN);
	c = fork_of(p);
	cpid = rp_getpid(c);
	race_count_jobs();
	arm(RP_RACE_EXIT_RELEASES, c, true, true);	/* no lock held there: offline */
	start_exit(&je, c, 0);
	cr_assert(await_reached(1), "the exit was not a plain one that autoreaps");
	cr_expect_neq(rp_wait4(p, -1, NULL, WNOHANG, NULL), cpid,
		      "a wait claimed a child its exit autoreaps");
	release();
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_wait4(p, -1, NULL, WNOHANG, NULL), -ECHILD);
	rp_task_put(c);
	end_child(init, p);
	finish_all_reaped();
}

static struct rp_task *forked;	/* fork_job's child */

static long fork_job(struct job *j)
{
	return rp_fork(j->t, &forked);
}

static void await_flag(const int *flag)
{
	while (!uatomic_read(flag))
		usleep(1000);
}

static struct {
	struct rp_task *c;		/* held before its release */
	int at_release, go_release;	/* uatomic */
} autoreap;

/* note_hook's, and autoreap.c held before its release (no lock held: offline). */
static void autoreap_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_EXIT_RELEASES && t == CMM_LOAD_SHARED(autoreap.c)) {
		uatomic_set(&autoreap.at_release, 1);
		rp_sync_block_begin();
		await_flag(&autoreap.go_release);
		rp_sync_block_end();
	} else {
		note_hook(where, t);
	}
}

/*
 * P ignores SIGCHLD: its child C's plain exit releases C itself, as
 * wait's plain reap does, under the gate shared with G of C's group and
 * T of P.  C is held before its release; P's fork is held inside its
 * link, P's T held; let go, C's release waits for that T, not for the
 * gate exclusive, and is done once the fork goes on.
 * RP_BREAK_AUTOREAP_PARENT_UNLOCKED releases without P's T (and tells the
 * checker it took it): it is done while the fork links onto the list it
 * unlinks C from.
 */
Test(exit_shared, autoreap_release_waits_for_parent_tree)
{
	struct rp_task *p, *c;
	struct job jf, je;

	start(RP_SYNC_RCU);
	p = fork_of(init);
	set_action(p, SIGCHLD, SIG_IGN);
	c = fork_of(p);
	autoreap.c = c;
	tree_of = p;
	rp_debug_race_hook(autoreap_hook);
	start_exit(&je, c, 0);
	await_flag_or_exit(&autoreap.at_release, 0);
	cr_assert(uatomic_read(&autoreap.at_release), "the exit was not a plain one that autoreaps");
	race_count_jobs();
	arm(RP_RACE_FORK_IDS_READ, p, true, false);	/* T of P held there */
	rp_debug_race_hook(autoreap_hook);		/* arm set race_hook; ours calls it */
	jf.arg = 0;
	job_start(&jf, fork_job, p);
	cr_assert(await_reached(1), "the fork returned without reaching its race point");
	uatomic_set(&autoreap.go_release, 1);
	while (!uatomic_read(&tree_waits) && !uatomic_read(&excl_waits) &&
	       !uatomic_read(&exited[0]))
		usleep(1000);
	cr_expect(uatomic_read(&tree_waits), "the release did not wait for its parent's T (%s)",
		  uatomic_read(&excl_waits) ? "it took the gate exclusive" : "it was done");
	release();
	cr_assert_gt(job_join(&jf), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_wait4(p, -1, NULL, WNOHANG, NULL), 0, "the fork's child is lost");
	cr_assert_eq(rp_exit_group(forked, 0), 0);	/* autoreaped */
	rp_task_put(forked);
	rp_task_put(c);
	end_child(init, p);
	finish_all_reaped();
}

static struct {
	struct rp_task *untied_at;	/* hold this task's exit after its decrement */
	int at_untied, go_untied;	/* uatomic */
	int kills, go_kill;		/* uatomic: arrivals at RP_RACE_ORPHAN_KILLS */
	int decided;			/* uatomic: at RP_RACE_EXIT_KILLS_LATER */
} orphan;

static void orphan_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_EXIT_UNTIED && t == CMM_LOAD_SHARED(orphan.untied_at) &&
	    uatomic_cmpxchg(&orphan.untied_at, t, NULL) == t) {
		/* In a read section: stays online. */
		uatomic_set(&orphan.at_untied, 1);
		await_flag(&orphan.go_untied);
	} else if (where == RP_RACE_ORPHAN_KILLS && uatomic_add_return(&orphan.kills, 1) == 1) {
		await_flag(&orphan.go_kill);	/* the first only */
	} else if (where == RP_RACE_GATE_EXCL_WAITS) {
		uatomic_set(&excl_waits, 1);
	} else if (where == RP_RACE_EXIT_KILLS_LATER) {
		uatomic_inc(&orphan.decided);
	}
}

static bool group_stopped(struct rp_task *t)
{
	return CMM_LOAD_SHARED(t->signal->flags) & RP_SIGNAL_STOP_STOPPED;
}

/*
 * Group G (D's, in init's session) holds D (init's child: no tie), C
 * (D's child, stopped) and A and B, children of PA and PB in init's
 * group: two ties.  A's and B's exits are plain (each under its own
 * parent's T).  A is held after its decrement (2 to 1), B's then takes
 * the count to 0, and its kill waits for the gate exclusive, which A
 * holds shared, C still stopped; A goes on.  The decrement answered 1 to
 * A: one decision to kill, B's, and one SIGHUP and SIGCONT.
 * RP_BREAK_ORPHAN_LOAD_AFTER decides by a load after the decrement: A
 * loads 0 too and decides to kill the group a second time (whose
 * SIGCONT the first kill's has made moot: C runs).
 */
Test(exit_shared, two_exits_orphan_once)
{
	struct rp_task *d, *c, *pa, *pb, *a, *b;
	struct job ja, jb;
	struct puppet pc;
	pid_t g, cpid, apid, bpid;
	int status = -1;

	start(RP_SYNC_RCU);
	d = fork_of(init);
	g = rp_getpid(d);
	cr_assert_eq(rp_setpgid(d, 0, 0), 0);
	c = fork_of(d);
	cpid = rp_getpid(c);
	pa = fork_of(init);
	pb = fork_of(init);
	a = fork_of(pa);
	b = fork_of(pb);
	apid = rp_getpid(a);
	bpid = rp_getpid(b);
	cr_assert_eq(rp_setpgid(a, 0, g), 0);
	cr_assert_eq(rp_setpgid(b, 0, g), 0);
	cr_assert_eq(jobc_of(g), 2);
	puppet_start(&pc, c);
	cr_assert_eq(rp_kill(d, cpid, SIGSTOP), 0);
	await_task(group_stopped, c);

	orphan.untied_at = a;
	rp_debug_race_hook(orphan_hook);	/* before the exits: they cannot pass first */
	start_exit(&ja, a, 0);
	await_flag_or_exit(&orphan.at_untied, 0);
	cr_assert(uatomic_read(&orphan.at_untied), "A's exit was not a plain one");
	start_exit(&jb, b, 1);
	/* B's decrement took the count to 0: its kill waits for A's gate. */
	await_flag_or_exit(&excl_waits, 1);
	cr_assert_eq(jobc_of(g), 0);
	uatomic_set(&orphan.go_kill, 1);
	uatomic_set(&orphan.go_untied, 1);
	/* A is done, and (broken) kills too. */
	cr_assert_eq(job_join(&ja), 0);
	cr_assert_eq(job_join(&jb), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(uatomic_read(&orphan.decided), 1,
		     "two exits that orphaned one group at once both decided to kill it");
	cr_expect_eq(uatomic_read(&orphan.kills), 1);
	cr_expect_eq(jobc_of(g), 0);

	puppet_join_dead(&pc);		/* SIGHUP's default action */
	cr_assert_eq(rp_wait4(d, cpid, &status, 0, NULL), cpid);
	cr_expect_eq(status, KILLED_BY(SIGHUP));
	rp_task_put(c);
	cr_assert_eq(rp_wait4(pa, apid, &status, 0, NULL), apid);
	cr_assert_eq(rp_wait4(pb, bpid, &status, 0, NULL), bpid);
	rp_task_put(a);
	rp_task_put(b);
	end_child(init, pa);
	end_child(init, pb);
	/* D, a member too, dies of the SIGHUP at its next return to user space. */
	cr_assert_eq(rp_exit_group(d, 0), 0);
	cr_assert_eq(rp_wait4(init, g, &status, 0, NULL), g);
	cr_expect_eq(status, KILLED_BY(SIGHUP));
	rp_task_put(d);
	finish_all_reaped();
}

/*
 * The scene of a group tied again: G (D's, in init's session) holds D
 * (init's child: no tie), C (D's child, stopped) and T, child of P in
 * init's group: one tie.  J, child of PQ in init's group, is to join G
 * (a tie again) while an exit that orphaned G (T's, or P's reparenting
 * of T) is held before its kill.  J handles SIGHUP: one would stay
 * pending.
 */
struct retie {
	struct rp_task *d, *c, *p, *t, *pq, *j;
	struct puppet pc;
	pid_t g, cpid, jpid, ppid, tpid;
};

static void retie_start(struct retie *r)
{
	start(RP_SYNC_RCU);
	r->d = fork_of(init);
	r->g = rp_getpid(r->d);
	cr_assert_eq(rp_setpgid(r->d, 0, 0), 0);
	r->c = fork_of(r->d);
	r->cpid = rp_getpid(r->c);
	r->p = fork_of(init);
	r->ppid = rp_getpid(r->p);
	r->t = fork_of(r->p);
	r->tpid = rp_getpid(r->t);
	cr_assert_eq(rp_setpgid(r->t, 0, r->g), 0);
	r->pq = fork_of(init);
	r->j = fork_of(r->pq);
	r->jpid = rp_getpid(r->j);
	handle(r->j, SIGHUP);
	cr_assert_eq(jobc_of(r->g), 1);
	puppet_start(&r->pc, r->c);
	cr_assert_eq(rp_kill(r->d, r->cpid, SIGSTOP), 0);
	await_task(group_stopped, r->c);
}

/*
 * @t's exit as job @j with race hook @hook, installed before it starts
 * (it cannot pass first), until @held says the hook holds it (@what if
 * not): G's count 0, then J joins; G's count 1.
 */
static void retie_held(struct retie *r, struct job *j, rp_race_hook_fn hook, struct rp_task *t,
		       const int *held, const char *what)
{
	rp_debug_race_hook(hook);
	start_exit(j, t, 0);
	await_flag_or_exit(held, 0);
	cr_assert(uatomic_read(held), "%s", what);
	cr_assert_eq(jobc_of(r->g), 0);
	cr_assert_eq(rp_setpgid(r->pq, r->jpid, r->g), 0);
	cr_assert_eq(jobc_of(r->g), 1);
}

/*
 * The exit job @j done: J took no SIGHUP, C still stopped; then all of
 * it ends, the one that exited (@gone, pid @pid) reaped by @reaper, and
 * @last.
 */
static void retie_end(struct retie *r, struct job *j, struct rp_task *reaper,
		      struct rp_task *gone, pid_t pid, struct rp_task *last)
{
	int status = -1;

	cr_assert_eq(job_join(j), 0);
	rp_debug_race_hook(NULL);
	cr_expect(!is_pending(r->j, SIGHUP), "a group tied again took an orphaned group's SIGHUP");
	cr_expect(group_stopped(r->c), "a group tied again was continued");
	cr_assert_eq(rp_kill(r->d, r->cpid, SIGKILL), 0);
	puppet_join_dead(&r->pc);
	cr_assert_eq(rp_wait4(r->d, r->cpid, &status, 0, NULL), r->cpid);
	rp_task_put(r->c);
	cr_assert_eq(rp_wait4(reaper, pid, &status, 0, NULL), pid);
	rp_task_put(gone);
	end_child(init, last);
	end_child(r->pq, r->j);
	end_child(init, r->pq);
	end_child(init, r->d);
	finish_all_reaped();
}

/*
 * A retie scene: T's plain exit takes G's count to 0 and is held before
 * its kill; J joins G, which is tied again and not orphaned.  As on
 * Linux, where the exit decides and kills in one hold of tasklist_lock,
 * J takes no SIGHUP: the kill comes under the gate exclusive, where a
 * group tied again meanwhile is not killed.
 */
Test(exit_shared, group_tied_again_before_the_kill)
{
	struct retie r;
	struct job jt;

	retie_start(&r);
	orphan.untied_at = r.t;
	retie_held(&r, &jt, orphan_hook, r.t, &orphan.at_untied, "T's exit was not a plain one");
	uatomic_set(&orphan.go_untied, 1);
	uatomic_set(&orphan.go_kill, 1);
	retie_end(&r, &jt, r.p, r.t, r.tpid, r.p);
	cr_expect_eq(uatomic_read(&orphan.kills), 0, "a group tied again was killed");
}

/* The first exit to reach a kill, or the decision of one, is held until go_kill. */
static void kill_hold_hook(enum rp_race_point where, struct rp_task *t)
{
	(void)t;
	if ((where == RP_RACE_ORPHAN_KILLS || where == RP_RACE_EXIT_KILLS_LATER) &&
	    uatomic_add_return(&orphan.kills, 1) == 1)
		await_flag(&orphan.go_kill);
}

/*
 * A retie scene: P's plain exit gives T to init, whose decrement takes
 * G's count to 0, and is held before the kill; J joins G.  J takes no
 * SIGHUP: the reparenting's kill, as the exit's own, comes under the
 * gate exclusive.
 */
Test(exit_shared, child_group_tied_again_before_the_kill)
{
	struct retie r;
	struct job jp;

	retie_start(&r);
	retie_held(&r, &jp, kill_hold_hook, r.p, &orphan.kills, "P's reparenting did not orphan G");
	uatomic_set(&orphan.go_kill, 1);
	retie_end(&r, &jp, init, r.p, r.ppid, r.t);
}

/*
 * Q's fork is held inside its link, the gate shared and Q's T held.  F,
 * init's child with a child W, exits: a plain exit that gives W to init
 * under T of F and of init, done beside the fork.
 */
Test(exit_shared, children_beside_a_shared_holder)
{
	struct rp_task *q, *f, *w;
	struct job jq, je;
	int status = -1;
	pid_t fpid;

	start(RP_SYNC_RCU);
	q = fork_of(init);
	f = fork_of(init);
	w = fork_of(f);
	fpid = rp_getpid(f);
	start_held(&jq, fork_job, q, RP_RACE_FORK_SUBREAPER_COPY, q);
	start_exit(&je, f, 0);
	await_flag_or_exit(&excl_waits, 0);
	cr_expect(uatomic_read(&exited[0]), "an exit with a child waited for a shared holder");
	release();
	cr_assert_gt(job_join(&jq), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getppid(w), 1, "the orphan went to %d, not init", rp_getppid(w));
	cr_assert_eq(rp_wait4(init, fpid, &status, 0, NULL), fpid);
	rp_task_put(f);
	end_child(init, w);
	end_child(q, forked);
	end_child(init, q);
	finish_all_reaped();
}

/*
 * Protocol (a): F's exit found R, the subreaper above it, as its child
 * W's reaper and is held before taking R's T.  R exits meanwhile (a plain
 * exit too: its live child F goes to init) and closes.  F then finds R
 * closed under R's T, searches again (R is exiting: skipped) and gives W
 * to init.  RP_BREAK_REPARENT_NO_CLOSED_RECHECK splices W onto R's closed
 * list: its parent is a zombie that nobody's exit will pass it on from.
 */
Test(exit_shared, reaper_closed_meanwhile)
{
	struct rp_task *r, *f, *w;
	struct job jf, jr;
	int status = -1;
	pid_t rpid, fpid;

	start(RP_SYNC_RCU);
	r = fork_of(init);
	cr_assert_eq(rp_prctl(r, PR_SET_CHILD_SUBREAPER, 1), 0);
	f = fork_of(r);
	w = fork_of(f);
	rpid = rp_getpid(r);
	fpid = rp_getpid(f);
	jf.arg = 0;
	start_held(&jf, exit_job, f, RP_RACE_EXIT_REAPER_FOUND, f);
	start_exit(&jr, r, 1);
	/* R's exit is done beside F's, or (not plain) waits for it. */
	await_flag_or_exit(&excl_waits, 1);
	cr_assert(uatomic_read(&exited[1]), "R's exit was not a plain one");
	release();
	cr_assert_eq(job_join(&jf), 0);
	cr_assert_eq(job_join(&jr), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getppid(w), 1, "an orphan went to a reaper that had closed (%d)",
		     rp_getppid(w));
	cr_assert_eq(rp_getppid(w), 1);
	cr_assert_eq(rp_wait4(init, rpid, &status, 0, NULL), rpid);
	cr_assert_eq(rp_wait4(init, fpid, &status, 0, NULL), fpid);
	rp_task_put(r);
	rp_task_put(f);
	end_child(init, w);
	finish_all_reaped();
}

/*
 * T of a parent between its exit and a child's (the contender T has now):
 * R, a subreaper, ignores SIGCHLD; F is R's child and C F's.  F's exit is
 * held once it found C alive under F's T, before it gives C to R.  C's
 * exit then waits for F's T; once F has given it to R, C finds its parent
 * changed, takes R's T and tells R, which autoreaps it.
 * RP_BREAK_EXIT_PARENT_UNLOCKED takes no T of the parent: C becomes a
 * zombie and tells F, then F moves it to R untold, and C stays a zombie
 * that R, which does not wait, would never reap.
 */
Test(exit_shared, child_exit_waits_for_parent_tree)
{
	struct rp_task *r, *f, *c;
	struct job jf, jc;
	pid_t cpid;

	start(RP_SYNC_RCU);
	r = fork_of(init);
	cr_assert_eq(rp_prctl(r, PR_SET_CHILD_SUBREAPER, 1), 0);
	set_action(r, SIGCHLD, SIG_IGN);
	f = fork_of(r);
	set_action(f, SIGCHLD, SIG_DFL);	/* F waits for its children: no autoreap there */
	c = fork_of(f);
	cpid = rp_getpid(c);
	tree_of = f;
	jf.arg = 0;
	start_held(&jf, exit_job, f, RP_RACE_EXIT_CHILDREN_CHECKED, f);
	start_exit(&jc, c, 1);
	/* C's exit waits for F's T, or (broken) is done. */
	await_flag_or_exit(&tree_waits, 1);
	release();
	cr_assert_eq(job_join(&jf), 0);
	cr_assert_eq(job_join(&jc), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_wait4(r, cpid, NULL, WNOHANG, NULL), -ECHILD,
		     "a child's exit beside its parent's left a zombie its new parent was not told of");
	rp_task_put(c);
	rp_task_put(f);
	end_child(init, r);
	finish_all_reaped();
}
