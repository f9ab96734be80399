/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The replay's watchdog.  A recording that rcuproc cannot follow may leave
 * a replayed call asleep for good (an exec waiting for a thread that never
 * dies); rather than hang, the replay is reported where it stuck, the
 * recorded task, line and call, and the process exits with REPLAY_STUCK.
 * The replay cannot be unwound from a sleep inside the library, so the
 * exit is the only way out.
 */
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "replay.h"

static void report_stuck(struct replay_run *run, unsigned int seconds)
{
	/* Pairs with the store in replay_watchdog_tick. */
	const struct replay_event *ev = __atomic_load_n(&run->current, __ATOMIC_ACQUIRE);
	struct replay_task *t;

	fflush(run->out);
	if (!ev) {
		fprintf(stderr, "rcuproc replay: %s: stuck for %u s %s\n", run->file, seconds,
			__atomic_load_n(&run->progress, __ATOMIC_RELAXED) ?
			"after the last line, ending the tasks left" : "before the first line");
		return;
	}
	t = replay_task_of(run, ev->pid);
	fprintf(stderr, "rcuproc replay: %s:%d: stuck for %u s replaying pid %d", run->file,
		ev->line, seconds, ev->pid);
	if (t)
		fprintf(stderr, " (rcuproc %d)", t->nr);
	fputc(' ', stderr);
	if (ev->kind == REPLAY_CALL)
		replay_fputs_call(stderr, ev);
	else
		fputs(replay_kind_name(ev->kind), stderr);
	fprintf(stderr, ", replayed at line %d\n", ev->at);
}

static void *watchdog_main(void *arg)
{
	struct replay_watchdog *w = arg;
	unsigned long seen = (unsigned long)-1;
	struct timespec until;

	pthread_mutex_lock(&w->lock);
	while (!w->done) {
		/* Pairs with the increment in replay_watchdog_tick. */
		unsigned long now = __atomic_load_n(&w->run->progress, __ATOMIC_ACQUIRE);

		/* Pairs with the stores in next_event (run.c). */
		if (now == seen && !__atomic_load_n(&w->run->reading, __ATOMIC_ACQUIRE)) {
			report_stuck(w->run, w->seconds);
			_exit(REPLAY_STUCK);
		}
		seen = now;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_sec += w->seconds;
		while (!w->done && pthread_cond_timedwait(&w->cond, &w->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int replay_watchdog_start(struct replay_watchdog *w, struct replay_run *run, unsigned int seconds)
{
	pthread_condattr_t attr;

	w->run = run;
	w->seconds = seconds;
	w->done = false;
	w->running = false;
	if (!seconds)
		return 0;
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cond, &attr);
	pthread_condattr_destroy(&attr);
	if (pthread_create(&w->thread, NULL, watchdog_main, w))
		return -1;
	w->running = true;
	return 0;
}

void replay_watchdog_tick(struct replay_run *run, const struct replay_event *ev)
{
	/* Pairs with the loads in report_stuck and watchdog_main. */
	__atomic_store_n(&run->current, ev, __ATOMIC_RELEASE);
	__atomic_add_fetch(&run->progress, 1, __ATOMIC_RELEASE);
}

void replay_watchdog_stop(struct replay_watchdog *w)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->cond);
	pthread_mutex_destroy(&w->lock);
	w->running = false;
}
