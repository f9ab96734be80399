/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Group stop and continue under churn, in every mode.  A parent W has
 * MEMBERS two-threaded children in one process group G; each child's
 * leader thread keeps forking a grandchild into G and ending it.  W stops
 * and continues G again and again and waits with WUNTRACED | WCONTINUED:
 *
 *  - a full round (SIGSTOP, wait, SIGCONT, wait): every child reports
 *    stopped once, then continued once; when a child is reported stopped,
 *    both its threads are asleep in the stop (the stop is counted right);
 *    no other report.  A lost report hangs a blocking wait4: the test's
 *    timeout fails it.
 *  - a racy round (SIGSTOP and SIGCONT at once): SIGCONT decides
 *    everything synchronously, so afterwards no stopped report is left, at
 *    most one continued report per child, and no thread stopped or about
 *    to stop.
 *
 * After the last round no thread may be left stopped.
 */
#include <errno.h>
#include <rcuproc/pgrp.h>
#include "../fixture/puppet.h"
#include "signal/signal.h"

#define MEMBERS		3

struct member_thread {
	pthread_t thread;
	struct rp_task *t;
	bool churn;			/* the leader forks and ends grandchildren */
	unsigned long forks;
};

struct member {
	struct rp_task *leader, *thread;
	pid_t pid;
	struct member_thread mt[2];
};

/* Fork a grandchild into the group, end it and reap it (as @t, then as it). */
static void churn_once(struct member_thread *m)
{
	struct rp_task *gc;
	pid_t pid = rp_fork(m->t, &gc);

	if (pid <= 0)
		return;		/* restarted for a signal, or killed */
	rp_exit_group(gc, 0);
	if (rp_wait4(m->t, pid, NULL, 0, NULL) == pid)
		m->forks++;
	rp_task_put(gc);
}

/* One thread's user space: signals (stopping when told), churn; ends when killed. */
static void *member_main(void *arg)
{
	struct member_thread *m = arg;

	rp_thread_register();
	for (;;) {
		/* Sampled first: a signal after it wakes the wait below. */
		unsigned long seq = rp_waitq_seq(rp_task_waitq(m->t));

		if (rp_get_signal(m->t, NULL) < 0)
			break;
		if (m->churn)
			churn_once(m);
		else
			rp_waitq_wait(rp_task_waitq(m->t), seq);
	}
	rp_thread_unregister();
	return NULL;
}

static void member_start(struct member *mb, struct rp_task *w, pid_t pgid)
{
	cr_assert_gt(rp_fork(w, &mb->leader), 1);
	mb->pid = rp_getpid(mb->leader);
	cr_assert_eq(rp_setpgid(w, mb->pid, pgid ? pgid : mb->pid), 0);
	cr_assert_gt(rp_clone(mb->leader, THREAD_FLAGS, &mb->thread), 1);
	mb->mt[0] = (struct member_thread){ .t = mb->leader, .churn = true };
	mb->mt[1] = (struct member_thread){ .t = mb->thread };
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&mb->mt[i].thread, NULL, member_main, &mb->mt[i]), 0);
}

static struct member *member_of(struct member *mb, pid_t pid)
{
	for (int i = 0; i < MEMBERS; i++)
		if (mb[i].pid == pid)
			return &mb[i];
	cr_assert_fail("wait4 reported %d, not a member", pid);
	return NULL;
}

/* Is thread @t stopped or about to stop? */
static bool stop_state(struct rp_task *t)
{
	return task_jobctl_any(t, RP_JOBCTL_STOPPED | RP_JOBCTL_STOP_PENDING);
}

/* Blocking waits: every member reports @status exactly once. */
static void wait_each(struct rp_task *w, pid_t pgid, struct member *mb, int status)
{
	bool seen[MEMBERS] = { false };
	int st;

	for (int n = 0; n < MEMBERS; n++) {
		pid_t pid = rp_wait4(w, -pgid, &st, WUNTRACED | WCONTINUED, NULL);
		struct member *m = member_of(mb, pid);

		cr_assert_eq(st, status, "member %d: status %#x, expected %#x", pid, st, status);
		cr_assert_not(seen[m - mb], "member %d reported twice", pid);
		seen[m - mb] = true;
		if (status != CONTINUED)
			cr_assert(task_stopped(m->leader) && task_stopped(m->thread),
				  "member %d reported stopped with a thread still running", pid);
	}
	cr_assert_eq(rp_wait4(w, -pgid, &st, WUNTRACED | WCONTINUED | WNOHANG, NULL), 0);
}

/* After a racy round: only continued reports, at most one each; nobody stopping. */
static void drain_racy(struct rp_task *w, pid_t pgid, struct member *mb)
{
	bool seen[MEMBERS] = { false };
	pid_t pid;
	int st;

	while ((pid = rp_wait4(w, -pgid, &st, WUNTRACED | WCONTINUED | WNOHANG, NULL)) > 0) {
		struct member *m = member_of(mb, pid);

		cr_assert_eq(st, CONTINUED, "member %d: status %#x after SIGCONT", pid, st);
		cr_assert_not(seen[m - mb], "member %d continued twice", pid);
		seen[m - mb] = true;
	}
	cr_assert_eq(pid, 0);
	for (int i = 0; i < MEMBERS; i++)
		cr_assert(!stop_state(mb[i].leader) && !stop_state(mb[i].thread),
			  "member %d still stopping after SIGCONT", mb[i].pid);
}

/* Kill every member, reap it, and reap what init inherited. */
static void end_members(struct rp_task *w, struct member *mb)
{
	unsigned long forks = 0;
	int st;

	for (int i = 0; i < MEMBERS; i++) {
		cr_assert_eq(rp_kill(w, mb[i].pid, SIGKILL), 0);
		for (int j = 0; j < 2; j++)
			pthread_join(mb[i].mt[j].thread, NULL);
		forks += mb[i].mt[0].forks;
		cr_assert_eq(rp_wait4(w, mb[i].pid, &st, 0, NULL), mb[i].pid);
		cr_assert_eq(st, SIGKILL);
		rp_task_put(mb[i].thread);
		rp_task_put(mb[i].leader);
	}
	cr_assert_gt(forks, 0, "no churn");
}

static void stop_storm(enum rp_sync_mode mode)
{
	struct member mb[MEMBERS];
	unsigned long rounds = 0;
	struct rp_task *w;
	pid_t pgid;
	double end;

	start(mode);
	w = fork_of(init);
	member_start(&mb[0], w, 0);
	pgid = mb[0].pid;
	for (int i = 1; i < MEMBERS; i++)
		member_start(&mb[i], w, pgid);
	end = now_seconds() + test_seconds();
	while (now_seconds() < end || rounds < 4) {
		cr_assert_eq(rp_kill(w, -pgid, SIGSTOP), 0);
		if (rounds++ % 2) {
			cr_assert_eq(rp_kill(w, -pgid, SIGCONT), 0);
			drain_racy(w, pgid, mb);
			continue;
		}
		wait_each(w, pgid, mb, STOPPED_BY(SIGSTOP));
		cr_assert_eq(rp_kill(w, -pgid, SIGCONT), 0);
		wait_each(w, pgid, mb, CONTINUED);
	}
	for (int i = 0; i < MEMBERS; i++)
		cr_assert(!stop_state(mb[i].leader) && !stop_state(mb[i].thread),
			  "member %d left stopped", mb[i].pid);
	end_members(w, mb);
	cr_assert_eq(rp_exit_group(w, 0), 0);
	rp_task_put(w);
	finish();
}

TEST_EACH_MODE(stop_storm, stop_storm)
