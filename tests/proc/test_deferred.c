/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Deferred release against fork, exit and wait in rcu mode: the batch of an
 * update section, the type caches and the backlog's bound.
 *
 * reuse: a reader stands on a zombie in a read section while its parent
 * reaps it and forks again.  The zombie's task and pid are in the reaping
 * section's batch; neither may go back to its cache, let alone to the next
 * fork, before the reader leaves.  Once with poisoning (the cache holds
 * objects poisoned: a reader meets 0x6b) and once without (the cache hands
 * the warmest object out first: the reader meets the new child).
 * RP_BREAK_CACHE_EARLY_REUSE releases the batch when the section ends;
 * both fail on every run.
 *
 * pgid_outlives: a process group's leader exits and is reaped while a
 * member lives on: the leader's pid, the member's process group id, is
 * in the leader's process block (struct rp_process) with its group, task
 * and table, and keeps the whole block.  Without poisoning the cache
 * hands the warmest block out first, so a block released with the rest
 * of its process is the next fork's, and the member's group id changes
 * under it.  RP_BREAK_PROCESS_PID_UNCOUNTED releases the block without
 * waiting for its pid; it fails on every run.
 *
 * storm: with a reader holding every grace period back, a fork/exit/reap
 * storm fills the backlog up to a lowered bound and no further; the storm's
 * thread then waits at the bound (its race point), and once the reader
 * leaves, everything drains to zero (rp_deferred_barrier).
 *
 * kept: at the bound, a free made outside an update section waits on its
 * thread for the thread's next quiescent state.  A call that frees after
 * the quiescent state it announces (setresuid announced it at its start,
 * then dropped the old credentials) returned with the free still on its
 * thread: held for as long as the thread stays away from rcuproc, and
 * released after rp_system_destroy freed the table it points into.
 * RP_BREAK_QUIESCENT_BEFORE_FREE restores that; it fails on every run.
 *
 * reclaim: the thread whose hand-over fills the reclaim batch waits for
 * the batch's grace period at its next quiescent state and releases it
 * itself (memb), or, where waiting could last for ever (QSBR with another
 * thread online), hands it to the grace-period thread, which waits for
 * the grace period and hands it back.
 *
 * carrier: what goes to liburcu goes as the load of one carrier, whose
 * callback releases only what it was loaded with before its call_rcu; a
 * batch queued while it flies waits for its next call.
 */
#include <errno.h>
#include <pthread.h>
#include <criterion/criterion.h>
#include <rcuproc/pgrp.h>
#include "../common.h"
#include "../fixture/fixture.h"
#include "debug/fault.h"
#include "task/task.h"
#include "../fixture/racehold.h"

/* A reader that enters a read section on task @t and looks at it again on leaving. */
struct reader {
	pthread_t thread;
	struct rp_task *t;
	int inside;		/* uatomic */
	int leave;		/* uatomic */
	int nr_before;		/* @t's pid number when the reader came in */
	bool same;		/* on leaving: @t was still the same task */
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct rp_task *t = r->t;

	rp_thread_register();
	rp_read_lock(&sys->sync);
	r->nr_before = CMM_LOAD_SHARED(t->pid)->nr;
	uatomic_set(&r->inside, 1);
	while (!uatomic_read(&r->leave))
		usleep(1000);
	/* A freed task's ->sys is poison; a recycled one has another pid. */
	r->same = CMM_LOAD_SHARED(t->sys) == sys && CMM_LOAD_SHARED(t->pid)->nr == r->nr_before;
	rp_read_unlock(&sys->sync);
	rp_thread_unregister();
	return NULL;
}

static void reader_enter(struct reader *r, struct rp_task *t)
{
	*r = (struct reader){ .t = t };
	cr_assert_eq(pthread_create(&r->thread, NULL, reader_main, r), 0);
	while (!uatomic_read(&r->inside))
		usleep(1000);
}

static void reader_leave(struct reader *r)
{
	uatomic_set(&r->leave, 1);
	rp_thread_offline();		/* QSBR: the reader's unregistering may wait */
	pthread_join(r->thread, NULL);
	rp_thread_online();
}

/* Fork a child of init, let it exit and reap it: its objects go to their caches. */
static void cycle(void)
{
	struct rp_task *c = fork_of(init);
	pid_t pid = rp_getpid(c);

	cr_assert_eq(rp_exit_group(c, 0), 0);
	rp_task_put(c);		/* the reap's put is the last: one batch */
	cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
}

static void reader_keeps_reaped_task(void)
{
	struct rp_task *zombie = fork_of(init);
	pid_t pid = rp_getpid(zombie);
	struct reader r;

	cr_assert_eq(rp_exit_group(zombie, 0), 0);
	reader_enter(&r, zombie);
	rp_task_put(zombie);
	cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
	for (int i = 0; i < 4; i++)	/* forks that a cache handing out early would feed */
		cycle();
	reader_leave(&r);
	cr_assert(r.same, "the reaped task (pid %d) was freed or reused under its reader", pid);
}

Test(reuse_poisoned, rcu, .init = start_rcu, .fini = finish)
{
	reader_keeps_reaped_task();
}

Test(reuse_recycled, rcu, .init = start_rcu, .fini = finish)
{
	bool poison = rp_debug_set_poison(false);

	reader_keeps_reaped_task();
	rp_debug_set_poison(poison);
}

Test(pgid_outlives, rcu, .init = start_rcu, .fini = finish)
{
	bool poison = rp_debug_set_poison(false);
	struct rp_task *leader = fork_of(init), *member;
	pid_t pgid = rp_getpid(leader);

	cr_assert_eq(rp_setpgid(leader, 0, 0), 0);
	member = fork_of(leader);	/* in the leader's group */
	cr_assert_eq(rp_exit_group(leader, 0), 0);
	rp_task_put(leader);
	cr_assert_eq(rp_wait4(init, pgid, NULL, 0, NULL), pgid);
	for (int i = 0; i < 4; i++)	/* forks that a block released early would feed */
		cycle();
	cr_assert_eq(rp_getpgid(member, 0), pgid, "the group id of a reaped leader changed");
	cr_assert_eq(rp_kill(init, -pgid, 0), 0, "killpg missed the member of a reaped leader");
	rp_debug_set_poison(poison);
	end_child(init, member);
}

/* setresuid as the job's task; how many frees the call left on this thread in ->arg. */
static long setresuid_job(struct job *j)
{
	long ret = rp_setresuid(j->t, 1000, 1000, 1000);

	j->arg = (long)rp_defer_batch.n;
	return ret;
}

Test(kept, call_leaves_no_free_behind, .init = start_rcu, .fini = finish)
{
	struct rp_task *c = fork_of(init);
	struct reader r;
	struct job j;
	bool waited;

	/* Credentials of its own: the next change frees them. */
	cr_assert_eq(rp_setresuid(c, 0, 0, 0), 0);
	reader_enter(&r, init);		/* holds every grace period back */
	cycle();			/* a backlog that cannot drain ... */
	rp_deferred_set_bound(rp_deferred_backlog());	/* ... and is at its bound */
	arm(RP_RACE_DEFERRED_BOUND, NULL, false, false);
	race_count_jobs();
	job_start(&j, setresuid_job, c);
	rp_thread_offline();
	waited = await_reached(1);
	rp_thread_online();
	reader_leave(&r);
	cr_assert_eq(job_join(&j), 0);
	rp_deferred_set_bound(0);
	end_child(init, c);
	cr_assert_eq(j.arg, 0, "setresuid returned with %ld free(s) left on its thread", j.arg);
#ifndef RP_RCU_QSBR
	cr_assert(waited, "the call did not wait at the bound for its free");
#else
	cr_assert(!waited, "a call waited at a QSBR bound");
#endif
}

/* The lowered bound of the storm: about ten processes' objects. */
#define STORM_BOUND	60

static int storm_stop;			/* uatomic */
static unsigned long storm_peak;	/* uatomic: the largest backlog seen */

static void note_backlog(void)
{
	unsigned long b = rp_deferred_backlog(), peak = uatomic_read(&storm_peak);

	while (b > peak) {
		unsigned long seen = uatomic_cmpxchg(&storm_peak, peak, b);

		if (seen == peak)
			break;
		peak = seen;
	}
}

static long storm_job(struct job *j)
{
	(void)j;
	while (!uatomic_read(&storm_stop)) {
		cycle();
		note_backlog();
	}
	return 0;
}

#ifndef RP_RCU_QSBR
Test(storm, bound_holds_and_drains, .init = start_rcu, .fini = finish)
{
	unsigned long waits = rp_deferred_bound_waits();
	struct reader r;
	struct job storm;

	rp_deferred_set_bound(STORM_BOUND);
	reader_enter(&r, init);		/* holds every grace period back */
	arm(RP_RACE_DEFERRED_BOUND, NULL, false, false);
	race_count_jobs();
	job_start(&storm, storm_job, init);
	rp_thread_offline();
	cr_assert(await_reached(1), "the storm ended before it reached the bound");
	rp_thread_online();
	release();
	note_backlog();
	cr_assert_leq(uatomic_read(&storm_peak), STORM_BOUND, "backlog %lu past the bound %d",
		      uatomic_read(&storm_peak), STORM_BOUND);
	reader_leave(&r);
	uatomic_set(&storm_stop, 1);
	rp_thread_offline();
	job_join(&storm);
	rp_thread_online();
	rp_deferred_barrier();
	cr_assert_leq(uatomic_read(&storm_peak), STORM_BOUND);
	cr_assert_eq(rp_deferred_backlog(), 0, "the backlog did not drain");
	cr_assert_gt(rp_deferred_bound_waits(), waits, "the storm never waited at the bound");
	rp_deferred_set_bound(0);
}
#else
/*
 * Under QSBR the bound is soft (src/sync/sync.c): with a reader holding
 * every grace period back, the storm goes past the bound without ever
 * waiting, and everything drains once the reader leaves.
 */
Test(storm, qsbr_bound_is_soft_and_drains, .init = start_rcu, .fini = finish)
{
	unsigned long waits = rp_deferred_bound_waits();
	struct reader r;
	struct job storm;

	rp_deferred_set_bound(STORM_BOUND);
	reader_enter(&r, init);		/* holds every grace period back */
	job_start(&storm, storm_job, init);
	rp_thread_offline();
	while (uatomic_read(&storm_peak) <= 4 * STORM_BOUND)
		sleep_seconds(0.01);
	rp_thread_online();
	reader_leave(&r);
	uatomic_set(&storm_stop, 1);
	rp_thread_offline();
	job_join(&storm);
	rp_thread_online();
	rp_deferred_barrier();
	cr_assert_eq(rp_deferred_bound_waits(), waits, "a writer waited at a QSBR bound");
	cr_assert_eq(rp_deferred_backlog(), 0, "the backlog did not drain");
	rp_deferred_set_bound(0);
}
#endif

/*
 * A reader stands on a zombie while init reaps it with a reclaim batch of
 * one object, so that the reap's own quiescent state releases the batch.
 * Under memb the reaper waits for the reader: the race point at its wait
 * lets the reader go, and the reader finds the task as it was.
 * RP_BREAK_RECLAIM_NO_WAIT releases the batch at once: the reader, let go
 * after the reap returned, finds the task poisoned, on every run.  Under
 * QSBR the reader is an online thread, so the reaper must not wait: it
 * queues the batch, and the reader finds the task as it was too.
 */
static struct reader *reclaim_reader;

static void leave_at_reclaim(enum rp_race_point where, struct rp_task *t)
{
	(void)t;
	if (where == RP_RACE_DEFERRED_RECLAIM)
		uatomic_set(&reclaim_reader->leave, 1);
}

/*
 * Reader @r stands on a zombie child of init while init reaps it with a
 * reclaim batch of one object, @hook installed; returns the zombie's pid.
 * The batch of one stays in force, and so does @hook.
 */
static pid_t reap_under_reader(struct reader *r, rp_race_hook_fn hook)
{
	struct rp_task *zombie = fork_of(init);
	pid_t pid = rp_getpid(zombie);

	cr_assert_eq(rp_exit_group(zombie, 0), 0);
	reader_enter(r, zombie);
	rp_debug_race_hook(hook);
	rp_deferred_set_reclaim(1);
	rp_task_put(zombie);
	cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
	return pid;
}

Test(reclaim, reaper_waits_for_reader, .init = start_rcu, .fini = finish)
{
	unsigned long waits = rp_deferred_reclaim_waits();
	struct reader r;
	pid_t pid;

	reclaim_reader = &r;
	pid = reap_under_reader(&r, leave_at_reclaim);
	rp_deferred_set_reclaim(0);
	rp_debug_race_hook(NULL);
	reader_leave(&r);
	cr_assert(r.same, "the reaped task (pid %d) was released under its reader", pid);
#ifndef RP_RCU_QSBR
	cr_assert_gt(rp_deferred_reclaim_waits(), waits, "the reaper did not wait for its batch");
#else
	cr_assert_eq(rp_deferred_reclaim_waits(), waits, "the reaper waited with a reader online");
#endif
}

/*
 * A thread held at a race point in a read section may wait there for
 * another thread, which must then not wait for a grace period.  A killer
 * is held where kill(pid) found its target (RP_RACE_KILL_FOUND, read
 * section) while a reap with a reclaim batch of one object runs as a job:
 * the reap must queue its batch and return.  Reaching the wait's race
 * point meanwhile is the failure; the killer is let go first, so that the
 * test ends either way.  RP_BREAK_RECLAIM_WAITS_ANYWAY fails it on every
 * run.
 */
static struct {
	int held, go, waited, reaped;	/* uatomic */
} kill_hold;

static void hold_kill_note_reclaim(enum rp_race_point where, struct rp_task *t)
{
	(void)t;
	if (where == RP_RACE_DEFERRED_RECLAIM)
		uatomic_set(&kill_hold.waited, 1);
	if (where != RP_RACE_KILL_FOUND || uatomic_cmpxchg(&kill_hold.held, 0, 1) != 0)
		return;
	while (!uatomic_read(&kill_hold.go))
		usleep(1000);
}

static long reap_job(struct job *j)
{
	(void)j;
	cycle();
	uatomic_set(&kill_hold.reaped, 1);
	return 0;
}

Test(reclaim, not_while_held, .init = start_rcu, .fini = finish)
{
	struct rp_task *c = fork_of(init);
	struct job killer = { .pid = rp_getpid(c), .sig = 0 }, reaper;

	rp_debug_race_hook(hold_kill_note_reclaim);
	rp_thread_offline();
	job_start(&killer, kill_job, init);
	while (!uatomic_read(&kill_hold.held))
		usleep(1000);
	rp_deferred_set_reclaim(1);
	job_start(&reaper, reap_job, init);
	while (!uatomic_read(&kill_hold.reaped) && !uatomic_read(&kill_hold.waited))
		usleep(1000);
	uatomic_set(&kill_hold.go, 1);
	cr_assert_eq(job_join(&killer), 0);
	job_join(&reaper);
	rp_thread_online();
	rp_debug_race_hook(NULL);
	rp_deferred_set_reclaim(0);
	end_child(init, c);
	cr_assert(!uatomic_read(&kill_hold.waited),
		  "a reap waited for a grace period while a thread was held in a read section");
}

/*
 * Where the thread whose reap filled the reclaim batch may not wait for
 * its grace period, it hands the batch to the grace-period thread and
 * takes it back at a later quiescent state of its own.  A killer is held
 * where kill(pid) found a zombie (RP_RACE_KILL_FOUND, read section: the
 * reaper may not wait, in either flavour) while init reaps the zombie
 * with a batch of one object; init then announces quiescent states until
 * the grace-period thread reaches its wait (RP_RACE_DEFERRED_GP) or init
 * took a batch back.  The killer holds the grace period, so the batch must
 * not come back before it goes on: the killer then finds the task as it
 * was.  RP_BREAK_GP_THREAD_NO_WAIT returns the batch without a grace
 * period: init takes it back and releases the task under the killer, on
 * every run; the killer says so, and its kill then crashes on the task
 * or the assertion below fails.
 */
static struct {
	int held, go, gp_waiting;	/* uatomic */
	bool same;			/* on going on: the task was still the same */
} gp_hold;

static void hold_kill_note_gp(enum rp_race_point where, struct rp_task *t)
{
	int nr;

	if (where == RP_RACE_DEFERRED_GP)
		uatomic_set(&gp_hold.gp_waiting, 1);
	if (where != RP_RACE_KILL_FOUND || uatomic_cmpxchg(&gp_hold.held, 0, 1) != 0)
		return;
	nr = CMM_LOAD_SHARED(t->pid)->nr;
	while (!uatomic_read(&gp_hold.go))
		usleep(1000);
	/* A released task's ->sys is poison; a recycled one has another pid. */
	gp_hold.same = CMM_LOAD_SHARED(t->sys) == sys && CMM_LOAD_SHARED(t->pid)->nr == nr;
	if (!gp_hold.same)	/* said now: the kill goes on with the task and may crash on it */
		fprintf(stderr, "the reaped task came back from the grace-period thread under its killer\n");
}

Test(reclaim, handed_back_after_grace_period, .init = start_rcu, .fini = finish)
{
	struct rp_task *zombie = fork_of(init);
	pid_t pid = rp_getpid(zombie);
	unsigned long takebacks = rp_deferred_gp_takebacks();
	struct job killer = { .pid = pid, .sig = 0 };

	cr_assert_eq(rp_exit_group(zombie, 0), 0);
	rp_debug_race_hook(hold_kill_note_gp);
	rp_thread_offline();
	job_start(&killer, kill_job, init);
	while (!uatomic_read(&gp_hold.held))
		usleep(1000);
	rp_thread_online();
	rp_deferred_set_reclaim(1);
	rp_task_put(zombie);
	cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
	while (!uatomic_read(&gp_hold.gp_waiting) && rp_deferred_gp_takebacks() == takebacks) {
		usleep(1000);
		rp_getpid(init);	/* a quiescent state: takes back what came back */
	}
	uatomic_set(&gp_hold.go, 1);
	rp_thread_offline();
	job_join(&killer);
	rp_thread_online();
	rp_deferred_set_reclaim(0);
	rp_debug_race_hook(NULL);
	cr_assert(gp_hold.same, "the reaped task (pid %d) came back from the grace-period thread "
		  "under its killer", pid);
}

/*
 * The carrier's callback is held at its race point (RP_RACE_DEFERRED_CARRIER),
 * a grace period after it took off with a first load: a reaped process,
 * queued by init's rp_thread_quiescent.  Meanwhile a reader stands on a
 * zombie, and init reaps it and queues it the same way, behind the
 * carrier in flight.  The callback is let go and releases its load; the
 * reader, still inside its read section, must then find the zombie's task
 * as it was.  RP_BREAK_CARRIER_TAKES_LATE takes the zombie along with the
 * load: the reader finds it poisoned, on every run.
 */
static struct {
	int held, go;	/* uatomic */
} carrier_hold;

static void hold_carrier(enum rp_race_point where, struct rp_task *t)
{
	(void)t;
	if (where != RP_RACE_DEFERRED_CARRIER || uatomic_cmpxchg(&carrier_hold.held, 0, 1) != 0)
		return;
#ifdef RP_RCU_QSBR
	rcu_thread_offline();	/* liburcu's worker: no grace period waits for it meanwhile */
#endif
	while (!uatomic_read(&carrier_hold.go))
		usleep(1000);
#ifdef RP_RCU_QSBR
	rcu_thread_online();
#endif
}

Test(carrier, late_batch_waits_for_next_call, .init = start_rcu, .fini = finish)
{
	struct rp_task *zombie;
	unsigned long runs;
	struct reader r;
	pid_t pid;

	rp_debug_race_hook(hold_carrier);
	cycle();
	rp_thread_quiescent();		/* the carrier takes off with the reaped process */
	rp_thread_offline();		/* QSBR: the carrier's grace period waits for no one here */
	while (!uatomic_read(&carrier_hold.held))
		usleep(1000);
	rp_thread_online();
	zombie = fork_of(init);
	pid = rp_getpid(zombie);
	cr_assert_eq(rp_exit_group(zombie, 0), 0);
	reader_enter(&r, zombie);
	rp_task_put(zombie);
	cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
	rp_thread_quiescent();		/* the zombie: behind the carrier in flight */
	runs = rp_deferred_carrier_runs();
	uatomic_set(&carrier_hold.go, 1);
	while (rp_deferred_carrier_runs() == runs)
		usleep(1000);
	reader_leave(&r);
	rp_debug_race_hook(NULL);
	cr_assert(r.same, "the reaped task (pid %d), queued while the carrier flew, was released "
		  "with the carrier's load under its reader", pid);
}

#ifdef RP_RCU_QSBR
static long cycle_job(struct job *j)
{
	(void)j;
	cycle();
	return 0;
}

/*
 * Under QSBR a thread waits for the reclaim batch's grace period only as
 * the one registered thread online.  Alone (init's thread offline), the
 * reap releases its batch itself; with another registered thread online
 * and quiet (a reader parked in a read section: to QSBR the same as a
 * caller idling online in pthread_join), it queues the batch instead of
 * waiting for ever.  Reaching the wait's race point with that thread
 * online is the failure; the thread is let go first, so that the test
 * ends either way.  RP_BREAK_RECLAIM_WAITS_ANYWAY fails it on every run.
 */
Test(reclaim_qsbr, waits_alone_only, .init = start_rcu, .fini = finish)
{
	unsigned long waits = rp_deferred_reclaim_waits();
	struct reader quiet;
	struct job j;
	bool waited_with_quiet;

	rp_deferred_set_reclaim(1);
	rp_thread_offline();		/* first: the job is then alone online */
	job_start(&j, cycle_job, init);
	job_join(&j);
	rp_thread_online();
	cr_assert_gt(rp_deferred_reclaim_waits(), waits, "alone online, the reap did not wait");

	reader_enter(&quiet, init);
	waits = rp_deferred_reclaim_waits();
	arm(RP_RACE_DEFERRED_RECLAIM, NULL, false, false);
	race_count_jobs();
	rp_thread_offline();
	job_start(&j, cycle_job, init);
	waited_with_quiet = await_reached(1);
	rp_thread_online();
	reader_leave(&quiet);
	rp_thread_offline();
	job_join(&j);
	rp_thread_online();
	rp_deferred_set_reclaim(0);
	cr_assert(!waited_with_quiet, "the reap waited for a grace period with a quiet thread online");
	cr_assert_eq(rp_deferred_reclaim_waits(), waits);
}
#endif
