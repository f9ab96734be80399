/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Job-control stops.  A task that stops sleeps inside rp_get_signal until a
 * SIGCONT or SIGKILL wakes it, so its return to user space runs on a thread
 * of its own (a "stopper"), with every other signal blocked; the replay goes
 * on meanwhile, and takes the stopper back (joins it, restores the mask) as
 * soon as the table shows the task no longer stopped.  docs/replay.md,
 * "Signals".
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <rcuproc/snapshot.h>
#include "replay.h"

static void *stopper_main(void *arg)
{
	struct replay_task *t = arg;

	rp_thread_register();
	t->stop_result = rp_get_signal(t->task, &t->stop_info);
	rp_thread_unregister();
	/* Pairs with the load in wait_stopped: the result is written first. */
	__atomic_store_n(&t->stopper_done, true, __ATOMIC_RELEASE);
	return NULL;
}

char replay_ps_state(struct replay_run *run, pid_t tgid)
{
	size_t max = (size_t)run->ntasks + 8;
	struct rp_ps_entry *rows = calloc(max, sizeof(*rows));
	long n = rows ? rp_ps_snapshot(run->init, rows, max) : 0;
	char state = 0;

	for (long i = 0; i < n && i < (long)max; i++)
		if (rows[i].pid == tgid)
			state = rows[i].state;
	free(rows);
	return state;
}

static bool stopper_returned(struct replay_task *t)
{
	/* Pairs with the store in stopper_main. */
	return __atomic_load_n(&t->stopper_done, __ATOMIC_ACQUIRE);
}

static bool is_leader(const struct replay_task *t)
{
	return rp_getpid(t->task) == rp_gettid(t->task);
}

/*
 * Does the table show @t, which has a stopper, stopped?  The table shows a
 * process's state, its leader's: another thread counts as stopped while
 * its group does, or, the leader gone, while its stopper sleeps.
 */
static bool shows_stopped(struct replay_run *run, struct replay_task *t)
{
	char state = replay_ps_state(run, replay_root_tgid(run, t));

	if (is_leader(t) || state != 'Z')
		return state == 'T';
	return !stopper_returned(t);
}

/* The replayed task that is rcuproc's task @nr, the recorder or init. */
static struct rp_task *task_numbered(struct replay_run *run, pid_t nr)
{
	if (nr == rp_getpid(run->recorder))
		return run->recorder;
	for (int i = 0; i < run->ntasks; i++)
		if (run->tasks[i]->nr == nr && !run->tasks[i]->dead)
			return run->tasks[i]->task;
	return nr == rp_getpid(run->init) ? run->init : NULL;
}

/*
 * Has @t's group stop been completed, so that its parent could wait for it
 * (a look with WNOWAIT, which leaves the report)?  True if the parent is
 * not one the replay drives.
 */
static bool group_stop_reported(struct replay_run *run, struct replay_task *t)
{
	struct rp_task *parent = task_numbered(run, rp_getppid(t->task));
	siginfo_t si;

	if (!parent)
		return true;
	memset(&si, 0, sizeof(si));
	return rp_waitid(parent, P_PID, (id_t)rp_getpid(t->task), &si,
			 WSTOPPED | WNOHANG | WNOWAIT) == 0 && si.si_pid;
}

/* Has every other live thread of @t's group a stopper too? */
static bool whole_group_stopping(struct replay_run *run, struct replay_task *t)
{
	pid_t tgid = rp_getpid(t->task);

	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *o = run->tasks[i];

		if (!o->dead && !o->stopping && rp_getpid(o->task) == tgid)
			return false;
	}
	return true;
}

/*
 * Has @t stopped, as far as the replay can see?  The leader's stop is in
 * the table.  Another thread's is not: it is seen once the last thread of
 * the group to take part completes the group stop, which its parent's
 * wait reports; until then there is nothing to wait for.
 */
static bool seen_stopped(struct replay_run *run, struct replay_task *t)
{
	if (is_leader(t))
		return shows_stopped(run, t);
	return !whole_group_stopping(run, t) || group_stop_reported(run, t);
}

/* Wait until @t has stopped, or its stopper came back; false if neither. */
static bool wait_stopped(struct replay_run *run, struct replay_task *t)
{
	for (long i = 0; i < REPLAY_PATIENCE; i++) {
		if (stopper_returned(t) || seen_stopped(run, t))
			return true;
		sched_yield();
	}
	return false;
}

/*
 * An ignored signal that arrived while replay blocked everything (and the
 * program did not) would have been discarded on Linux: installing the same
 * ignoring action again discards it in rcuproc too.
 */
static void discard_ignored(struct replay_task *t)
{
	struct sigaction sa;
	uint64_t program_blocked;

	memcpy(&program_blocked, &t->stop_saved_mask, sizeof(program_blocked));
	for (int sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || (program_blocked >> (sig - 1)) & 1 ||
		    replay_disposition(t->task, sig) != DISP_IGNORE)
			continue;
		if (!rp_sigaction(t->task, sig, NULL, &sa))
			rp_sigaction(t->task, sig, &sa, NULL);
	}
}

static void take_back(struct replay_task *t)
{
	pthread_join(t->stopper, NULL);
	t->stopping = false;
	if (t->stop_result == -ESRCH) {
		t->dead = true;
		return;
	}
	discard_ignored(t);
	rp_sigprocmask(t->task, SIG_SETMASK, &t->stop_saved_mask, NULL);
}

void replay_stop(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	sigset_t others;

	if (t->stopping)
		return;
	/* Only the stop and the wake-up happen on the stopper: the signals
	 * after it are delivered at their own lines. */
	sigfillset(&others);
	sigdelset(&others, ev->sig);
	rp_sigprocmask(t->task, SIG_SETMASK, &others, &t->stop_saved_mask);
	t->stopper_done = false;
	if (pthread_create(&t->stopper, NULL, stopper_main, t)) {
		replay_expect(run, ev, "stop", "stopped", "no thread to stop on");
		return;
	}
	t->stopping = true;
	if (!wait_stopped(run, t)) {
		replay_expect(run, ev, "stop", "stopped", "never stopped");
		return;
	}
	if (stopper_returned(t))
		take_back(t);
}

/*
 * "--- stopped by SIGX ---": the task is stopped.  A thread that did not
 * take the stop signal itself (no "--- SIGX ---" line) takes part in its
 * group's stop here, on a stopper of its own.
 */
void replay_check_stopped(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev)
{
	if (!t->stopping && !t->dead)
		replay_stop(run, t, ev);
	replay_expect(run, ev, "state", "stopped",
		      t->stopping && shows_stopped(run, t) ? "stopped" : "running");
}

void replay_settle_stoppers(struct replay_run *run)
{
	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *t = run->tasks[i];

		if (t->stopping && !shows_stopped(run, t))
			take_back(t);
	}
}

void replay_end_stoppers(struct replay_run *run)
{
	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *t = run->tasks[i];

		if (!t->stopping)
			continue;
		rp_kill(run->init, t->nr, SIGKILL);	/* the recording ended with it stopped */
		take_back(t);
	}
}
