/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exec of a process of one thread under the update gate shared
 * (docs/process.md, "What is built"): beside another shared holder, and
 * against the two readers of what it writes that hold no update lock: a
 * child's exit notice, which reads the parent's exec count under the
 * parent's T, and the parent's setpgid, which reads the child's
 * RP_PF_FORKNOEXEC under the child's G and T.
 */
#include <sys/prctl.h>
#include <rcuproc/pgrp.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "task/objects.h"
#include "../fixture/racehold.h"

static struct {
	struct rp_task *waits_on;	/* note a wait for this task's T or G */
	int waits;			/* uatomic: a writer waits for waits_on's T or G */
	int excl_waits;			/* uatomic: an exclusive taker waits for shared holders */
	int exec_done;			/* uatomic: exec_job returned */
	int pending_at_exec;		/* SIGUSR1 pending when exec_job's exec returned */
} hold;

/* Until a writer waits for waits_on's lock, or (broken) the exec is done. */
static void await_wait_or_exec(void)
{
	while (!uatomic_read(&hold.waits) && !uatomic_read(&hold.exec_done) &&
	       !uatomic_read(&hold.excl_waits))
		usleep(1000);
}

/* racehold.h's hook, noting an exclusive taker's wait and a wait for waits_on's T or G. */
static void note_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GATE_EXCL_WAITS)
		uatomic_set(&hold.excl_waits, 1);
	else if ((where == RP_RACE_TREE_WAITS || where == RP_RACE_GROUP_WAITS) &&
		 t == CMM_LOAD_SHARED(hold.waits_on))
		uatomic_set(&hold.waits, 1);
	else
		race_hook(where, t);
}

static long exec_job(struct job *j)
{
	long ret = rp_execve(j->t, "next");

	hold.pending_at_exec = ret == 0 && is_pending(j->t, SIGUSR1);
	uatomic_set(&hold.exec_done, 1);
	return ret;
}

static long subreaper_job(struct job *j)
{
	return rp_prctl(j->t, PR_SET_CHILD_SUBREAPER, 1);
}

/* A system with P, init's child, and C, P's child cloned with @flags. */
static void family(unsigned long flags, struct rp_task **p, struct rp_task **c)
{
	start(RP_SYNC_RCU);
	*p = fork_of(init);
	*c = spawn(*p, flags);
}

static int exited;	/* uatomic: exit_job returned */

static long exit_job(struct job *j)
{
	long ret = rp_exit_group(j->t, 0);

	uatomic_set(&exited, 1);
	return ret;
}

static long setpgid_job(struct job *j)
{
	return rp_setpgid(j->t, j->pid, j->pid);
}

/*
 * W's PR_SET_CHILD_SUBREAPER holds the gate shared, its walk held once it
 * marked K.  P, a process of one thread whose handler table another
 * process shares, execs: de_thread and the table's switch, done while the
 * walk is held.  An exec that takes the gate exclusive waits for the walk.
 */
Test(exec_shared, beside_a_shared_holder)
{
	struct rp_task *w, *k, *p;
	struct rp_sighand *old;
	struct job jw, je;

	start(RP_SYNC_RCU);
	w = fork_of(init);
	k = fork_of(w);
	p = fork_of(init);
	old = p->sighand;
	uatomic_inc(&old->count);	/* a sharer, as CLONE_SIGHAND makes */
	start_held_with(&jw, subreaper_job, w, RP_RACE_SUBREAPER_WALK, k, note_hook);
	job_start(&je, exec_job, p);
	await_wait_or_exec();
	cr_expect(uatomic_read(&hold.exec_done), "a plain exec waited for a shared holder");
	release();
	cr_assert_eq(job_join(&jw), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect_neq(p->sighand, old, "the exec kept a shared table");
	rp_sighand_put(old);
	cr_expect_eq(rp_setpgid(init, rp_getpid(p), 0), -EACCES, "setpgid of an exec'd child");
	end_child(w, k);
	end_child(init, w);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * C, P's child with exit signal SIGUSR1, exits: a plain exit, held in its
 * hold of P's T once its notice chose SIGUSR1 by P's exec count, before it
 * sends it.  P execs
 * meanwhile: it counts its exec under its own T, so it waits for C's
 * notice, which sends SIGUSR1 to the old program (pending across the
 * exec: P blocks it).  RP_BREAK_EXEC_SHARED_UNLOCKED counts it without
 * T: the exec returns with nothing pending, and only then does C's
 * notice, which read the old count, send the old program's signal.
 */
Test(exec_shared, exec_id_after_child_notice)
{
	struct rp_task *p, *c;
	struct job jc, je;
	int status = -1;
	pid_t cpid;

	family(SIGUSR1, &p, &c);
	mask_signal(p, SIG_BLOCK, SIGUSR1);
	cpid = rp_getpid(c);
	hold.waits_on = p;
	start_held_with(&jc, exit_job, c, RP_RACE_NOTIFY_CHOSEN, c, note_hook);
	job_start(&je, exec_job, p);
	await_wait_or_exec();
	release();
	cr_assert_eq(job_join(&jc), 0);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect(hold.pending_at_exec || !is_pending(p, SIGUSR1),
		  "a child's notice sent the old program's signal after the exec returned");
	cr_assert_eq(rp_wait4(p, cpid, &status, __WALL, NULL), cpid);
	cr_expect_eq(status, EXITED(0));
	rp_task_put(c);
	end_child(init, p);
	finish_all_reaped();
}

/*
 * Q's setpgid of its child C into C's own group checked that C has not
 * exec'd and is held in the move, before C's proxy leaves Q's group (at
 * its attach of the old group's id, whose block task is init's).  C
 * execs meanwhile: it clears RP_PF_FORKNOEXEC under its G and T, which
 * the setpgid holds, so it waits, and the setpgid that succeeds comes
 * first.  RP_BREAK_EXEC_SHARED_UNLOCKED clears it without them: the exec
 * returns, and then the setpgid, which read the flag before, moves a
 * process that had exec'd.
 */
Test(exec_shared, setpgid_before_exec)
{
	struct rp_task *q, *c;
	struct job js, je;
	long ret;

	family(SIGCHLD, &q, &c);
	js.pid = rp_getpid(c);
	hold.waits_on = c;
	start_held_with(&js, setpgid_job, q, RP_RACE_MEMBER_ATTACH, init, note_hook);
	job_start(&je, exec_job, c);
	await_wait_or_exec();
	/* Read before the setpgid goes on: did the exec return first? */
	bool exec_first = uatomic_read(&hold.exec_done);

	release();
	ret = job_join(&js);
	cr_assert_eq(job_join(&je), 0);
	rp_debug_race_hook(NULL);
	cr_expect(!exec_first || ret == -EACCES,
		  "setpgid answered %ld for a child whose exec had returned", ret);
	cr_expect_eq(rp_setpgid(q, js.pid, 0), -EACCES);
	end_child(q, c);
	end_child(init, q);
	finish_all_reaped();
}

/*
 * C's exec read its real parent P and is held before P's T.  P exits
 * meanwhile (a plain exit: it gives C to init, and stores C's exit signal,
 * under T of P and of init).  The exec takes T of P, finds its parent
 * changed, and takes init's instead: its exit signal is written under the
 * T of the parent it has.  RP_BREAK_EXEC_NO_PARENT_RECHECK writes it under
 * P's: the debug build's assertion of the real parent's T stops it.
 */
Test(exec_shared, reparented_before_its_locks)
{
	struct job held, jp;
	struct rp_task *p, *c;
	int status = -1;

	family(SIGCHLD, &p, &c);
	pid_t ppid = rp_getpid(p);	/* before its exit: a reaped task has none */

	start_held_with(&held, exec_job, c, RP_RACE_EXEC_PARENT_READ, c, note_hook);
	job_start(&jp, exit_job, p);
	/* The exit is plain: it goes in beside the held exec, or says it waits. */
	while (!uatomic_read(&exited) && !uatomic_read(&hold.excl_waits))
		usleep(1000);
	cr_expect(uatomic_read(&exited), "a plain exit waited for a shared holder");
	release();
	cr_assert_eq(job_join(&jp), 0);
	cr_assert_eq(job_join(&held), 0);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getppid(c), 1, "the exec'd child went to %d, not init", rp_getppid(c));
	cr_assert_eq(rp_wait4(init, ppid, &status, 0, NULL), ppid);
	rp_task_put(p);
	end_child(init, c);
	finish_all_reaped();
}
