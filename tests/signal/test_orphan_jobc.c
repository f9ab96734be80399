/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The count of ties of each process group (src/task/jobc.h), which answers
 * "is this group orphaned": exact after every operation that makes or
 * breaks a tie (fork, CLONE_PARENT, setpgid in and out, setsid, an exit
 * whose children go to a subreaper or to init, a process's death, and an
 * exec by a thread, which changes none), checked against the table walk's recount of every
 * group; and a setpgid that breaks one tie of a group and makes another
 * never shows that group orphaned in between.
 */
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <rcuproc/pgrp.h>
#include "../fixture/fixture.h"
#include "../fixture/pgrp.h"
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"
#include "signal/signal.h"
#include "task/jobc.h"
#include "verify/verify.h"

/* Group @pgid has @ties, and the table walk finds every group's count exact. */
static void expect_ties(pid_t pgid, unsigned int ties)
{
	struct rp_verify_report r = { 0 };

	cr_assert_eq(jobc_of(pgid), ties, "group %d: jobc %u, expected %u", pgid, jobc_of(pgid),
		     ties);
	cr_assert_eq(rp_verify_walk_table(sys, &r), 0, "table walk: %s", r.first[0]);
}

/* An interactive shell: a child of init leading its own session. */
static struct rp_task *make_session(void)
{
	struct rp_task *sh = fork_of(init);

	cr_assert_eq(rp_setsid(sh), rp_getpid(sh));
	return sh;
}

/* ---- fork, CLONE_PARENT, setpgid in and out, setsid ---- */

static void fork_and_moves(enum rp_sync_mode mode)
{
	struct rp_task *sh, *j1, *j2, *c, *e;
	pid_t s, job, j2_pid, e_pid;

	start(mode);
	sh = make_session();
	s = rp_getpid(sh);
	j1 = fork_of(sh);
	job = rp_getpid(j1);
	cr_assert_eq(rp_setpgid(sh, job, 0), 0);
	expect_ties(job, 1);		/* j1's parent, the shell, is in another group */
	j2 = fork_of(j1);
	j2_pid = rp_getpid(j2);
	expect_ties(job, 1);		/* j2's parent is in the group */
	c = spawn(j1, CLONE_PARENT | SIGCHLD);
	expect_ties(job, 2);		/* c's parent is the shell */
	expect_ties(s, 0);		/* the shell's parent is init */

	/* j2 into a group of its own and back. */
	cr_assert_eq(rp_setpgid(j1, j2_pid, 0), 0);
	expect_ties(j2_pid, 1);
	expect_ties(job, 2);
	cr_assert_eq(rp_setpgid(j2, 0, job), 0);
	expect_ties(job, 2);
	expect_ties(j2_pid, 0);

	/* The parent moves out: its own tie goes, its child j2 ties the group. */
	cr_assert_eq(rp_setpgid(j1, 0, s), 0);
	expect_ties(job, 2);		/* c and j2 */
	expect_ties(s, 0);
	cr_assert_eq(rp_setpgid(j1, 0, job), 0);
	expect_ties(job, 2);		/* c and j1 */

	/* setsid: c's own tie goes; j2's child's tie goes with j2's session. */
	cr_assert_eq(rp_setsid(c), rp_getpid(c));
	expect_ties(job, 1);
	expect_ties(rp_getpid(c), 0);
	e = fork_of(j2);
	e_pid = rp_getpid(e);
	cr_assert_eq(rp_setpgid(j2, e_pid, 0), 0);
	expect_ties(e_pid, 1);
	cr_assert_eq(rp_setsid(j2), j2_pid);
	expect_ties(e_pid, 0);
	expect_ties(job, 1);

	end_child(j2, e);
	end_child(j1, j2);
	end_child(sh, c);
	expect_ties(job, 1);		/* j1 */
	end_child(sh, j1);
	end_child(init, sh);
	finish_all_reaped();
}

TEST_EACH_MODE(fork_and_moves, fork_and_moves)

/* ---- an exit: the children to a subreaper or to init; a death ---- */

static void exit_reparents(enum rp_sync_mode mode, bool subreaper)
{
	struct rp_task *sh, *m, *c, *t;
	struct rp_task *reaper;
	pid_t cg;
	int st;

	start(mode);
	sh = make_session();
	if (subreaper)
		cr_assert_eq(rp_prctl(sh, PR_SET_CHILD_SUBREAPER, 1), 0);
	reaper = subreaper ? sh : init;
	m = fork_of(sh);
	c = fork_of(m);
	cg = rp_getpid(c);
	cr_assert_eq(rp_setpgid(m, cg, 0), 0);
	expect_ties(cg, 1);		/* c's parent m is in the shell's group */
	t = thread_of(c);
	end_child(sh, m);
	/* The shell ties c's group as m did; init ties nothing. */
	expect_ties(cg, subreaper ? 1 : 0);
	/* The leader exits, its thread lives: the process still ties. */
	cr_assert_eq(rp_exit(c, 0), 0);
	expect_ties(cg, subreaper ? 1 : 0);
	/* Its last thread: the death; a zombie ties nothing. */
	cr_assert_eq(rp_exit(t, 0), 0);
	rp_task_put(t);
	expect_ties(cg, 0);
	cr_assert_eq(rp_wait4(reaper, cg, &st, 0, NULL), cg);
	rp_task_put(c);
	end_child(init, sh);
	finish_all_reaped();
}

TEST_EACH_MODE_WITH(exit_to_subreaper, exit_reparents, true)
TEST_EACH_MODE_WITH(exit_to_init, exit_reparents, false)

/*
 * A system in @mode with a session (*@sh, a child of init) and a child of
 * its leader in a group of its own, *@cg: that group's one tie.
 */
static struct rp_task *start_tied(enum rp_sync_mode mode, struct rp_task **sh, pid_t *cg)
{
	struct rp_task *c;

	start(mode);
	*sh = make_session();
	c = fork_of(*sh);
	*cg = rp_getpid(c);
	cr_assert_eq(rp_setpgid(c, 0, 0), 0);
	return c;
}

/* @c, a zombie, reaped by @sh, then @sh's end and the system's. */
static void end_tied(struct rp_task *sh, struct rp_task *c, pid_t cg)
{
	cr_assert_eq(rp_wait4(sh, cg, NULL, 0, NULL), cg);
	rp_task_put(c);
	end_child(init, sh);
	finish_all_reaped();
}

/*
 * The death comes at whichever store ends the process for the ties: its
 * leader's exit when its other threads are gone (here), or the release of
 * its last other thread when the leader is a zombie (exit_reparents); a
 * process whose leader has exited but a thread lives still ties, as in
 * Linux's will_become_orphaned_pgrp (exit_state && thread_group_empty).
 */
static void death_leader_last(enum rp_sync_mode mode)
{
	struct rp_task *sh, *c, *t;
	pid_t cg;

	c = start_tied(mode, &sh, &cg);
	expect_ties(cg, 1);
	t = thread_of(c);
	end_task(t);
	expect_ties(cg, 1);
	cr_assert_eq(rp_exit(c, 0), 0);
	expect_ties(cg, 0);		/* a zombie alone on its thread list */
	end_tied(sh, c, cg);
}

TEST_EACH_MODE(death_leader_last, death_leader_last)

/*
 * An exec by a thread that is not the leader: it takes the leader's place,
 * with its real parent; the process's tie stays, uncounted twice, and
 * goes at the new leader's exit.
 */
static void exec_keeps_tie(enum rp_sync_mode mode)
{
	struct rp_task *sh, *c, *t;
	struct puppet dc;
	pid_t cg;

	c = start_tied(mode, &sh, &cg);
	t = thread_of(c);
	expect_ties(cg, 1);
	puppet_start(&dc, c);
	cr_assert_eq(rp_execve(t, "next"), 0);
	puppet_join_dead(&dc);
	cr_assert(rp_thread_group_leader(t));
	expect_ties(cg, 1);
	cr_assert_eq(rp_exit_group(t, 0), 0);
	expect_ties(cg, 0);
	rp_task_put(t);
	end_tied(sh, c, cg);
}

TEST_EACH_MODE(exec_keeps_tie, exec_keeps_tie)

/*
 * A traced thread that exited stays on its group's thread list until its
 * tracer reaps it: the process, its leader a zombie, ties its group until
 * then, as in Linux's will_become_orphaned_pgrp (thread_group_empty is
 * false); the tracer's reap is the death.
 */
static void traced_thread_keeps_tie(enum rp_sync_mode mode)
{
	struct rp_task *sh, *c, *t, *tr;
	pid_t cg, tid;
	int st;

	c = start_tied(mode, &sh, &cg);
	t = thread_of(c);
	tid = rp_gettid(t);
	tr = fork_of(init);
	cr_assert_eq(rp_ptrace(tr, PTRACE_SEIZE, tid, NULL, NULL), 0);
	end_task(t);
	cr_assert_eq(rp_exit(c, 0), 0);
	expect_ties(cg, 1);		/* a zombie leader, not alone */
	cr_assert_eq(rp_wait4(tr, tid, &st, __WALL, NULL), tid);
	expect_ties(cg, 0);
	end_child(init, tr);
	end_tied(sh, c, cg);
}

TEST_EACH_MODE(traced_thread_keeps_tie, traced_thread_keeps_tie)

/* The walk reports a count that is not its group's ties. */
Test(jobc_verify, mismatch_reported, .init = start_rcu, .fini = stop_system)
{
	struct rp_verify_report r = { 0 };
	struct rp_task *sh = make_session(), *j = fork_of(sh);
	pid_t job = rp_getpid(j);
	unsigned int *jobc;

	cr_assert_eq(rp_setpgid(j, 0, 0), 0);
	expect_ties(job, 1);
	rp_read_lock(&sys->sync);
	jobc = rp_pgrp_jobc(rp_pid_find_rcu(sys, job));
	rp_read_unlock(&sys->sync);
	uatomic_inc(jobc);
	cr_assert_eq(rp_verify_walk_table(sys, &r), 1, "a count one too high went unreported");
	uatomic_dec(jobc);
	expect_ties(job, 1);
	rp_task_put(j);
	rp_task_put(sh);
}

/* ---- a move that breaks one tie of a group and makes another ---- */

static struct {
	pid_t p2, g;
} mv;

static long move_p2(struct job *j)
{
	return rp_setpgid(j->t, mv.p2, mv.g);
}

/*
 * Group G holds m2, whose parent p2 is in the shell's group: one tie.  q
 * moves its child p2 into G: (p2, q) becomes a tie of G, (m2, p2) stops
 * being one.  Held between the move and the count's last step, G must
 * read tied (orphaned only if no tie is left at any instant): with
 * RP_BREAK_JOBC_TAKE_FIRST its count is 0 there.  Lock modes: a reader
 * waits for the move, so rcu only.
 */
Test(jobc_race, setpgid_keeps_tie_rcu, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *sh = make_session(), *q = fork_of(sh), *p2 = fork_of(q), *m2 = fork_of(p2);
	unsigned int held_count;
	bool held_orphaned;
	struct job j;

	mv.p2 = rp_getpid(p2);
	mv.g = rp_getpid(m2);
	cr_assert_eq(rp_setpgid(p2, mv.g, 0), 0);
	expect_ties(mv.g, 1);
	arm(RP_RACE_JOBC_MOVED, p2, true, false);
	job_start(&j, move_p2, q);
	cr_assert(await_reached(1), "the move never reached its race point");
	held_count = jobc_of(mv.g);
	held_orphaned = rp_current_pgrp_orphaned(m2);
	release();
	cr_assert_eq(job_join(&j), 0);
	cr_assert_geq(held_count, 1, "G's count read %u while p2 tied it", held_count);
	cr_assert(!held_orphaned, "G read orphaned while p2 tied it");
	expect_ties(mv.g, 1);
	rp_task_put(m2);
	rp_task_put(p2);
	rp_task_put(q);
	rp_task_put(sh);
}
