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

/* @t's ps state letter, or 0 if the table no longer lists it. */
static char ps_state(struct replay_run *run, const struct replay_task *t)
{
	size_t max = (size_t)run->ntasks + 8;
	struct rp_ps_entry *rows = calloc(max, sizeof(*rows));
	long n = rows ? rp_ps_snapshot(run->init, rows, max) : 0;
	char state = 0;

	for (long i = 0; i < n && i < (long)max; i++)
		if (rows[i].pid == t->nr)
			state = rows[i].state;
	free(rows);
	return state;
}

/* Wait until @t has stopped, or its stopper came back; false if neither. */
static bool wait_stopped(struct replay_run *run, struct replay_task *t)
{
	for (long i = 0; i < REPLAY_PATIENCE; i++) {
		/* Pairs with the store in stopper_main. */
		if (__atomic_load_n(&t->stopper_done, __ATOMIC_ACQUIRE) || ps_state(run, t) == 'T')
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
	if (__atomic_load_n(&t->stopper_done, __ATOMIC_ACQUIRE))
		take_back(t);
}

void replay_check_stopped(struct replay_run *run, struct replay_task *t,
			  const struct replay_event *ev)
{
	replay_expect(run, ev, "state", "stopped",
		      t->stopping && ps_state(run, t) == 'T' ? "stopped" : "running");
}

void replay_settle_stoppers(struct replay_run *run)
{
	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *t = run->tasks[i];

		if (t->stopping && ps_state(run, t) != 'T')
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
