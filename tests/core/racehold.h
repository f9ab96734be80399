/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Holding a thread at a race point (src/debug/racepoint.h, debug builds), so
 * that another thread acts inside a race window on purpose: arm(), then
 * await_reached(), act, release().  Include it in one test file.
 */
#ifndef RP_TESTS_CORE_RACEHOLD_H
#define RP_TESTS_CORE_RACEHOLD_H

#include <pthread.h>
#include <stdbool.h>
#include <urcu/system.h>
#include "debug/racepoint.h"
#include "sync/sync.h"

/*
 * One race point armed at a time: the first thread that reaches @where
 * with task @t notes it and, if @hold, stays there until released.  A
 * thread held outside any read section goes offline (QSBR), so that the
 * grace periods the test waits for can end.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	enum rp_race_point where;
	struct rp_task *t;
	bool armed, hold, offline;
	bool reached, go;
	unsigned int done;		/* jobs finished: also wakes await_reached */
} race = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void race_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where != CMM_LOAD_SHARED(race.where) || t != CMM_LOAD_SHARED(race.t) ||
	    !CMM_LOAD_SHARED(race.armed))
		return;
	pthread_mutex_lock(&race.lock);
	if (!race.armed || where != race.where || t != race.t) {
		pthread_mutex_unlock(&race.lock);
		return;
	}
	race.armed = false;
	race.reached = true;
	pthread_cond_broadcast(&race.cond);
	if (race.hold) {
		bool offline = race.offline;

		if (offline)
			rp_sync_block_begin();
		while (!race.go)
			pthread_cond_wait(&race.cond, &race.lock);
		pthread_mutex_unlock(&race.lock);
		if (offline)
			rp_sync_block_end();
		return;
	}
	pthread_mutex_unlock(&race.lock);
}

static void arm(enum rp_race_point where, struct rp_task *t, bool hold, bool offline)
{
	pthread_mutex_lock(&race.lock);
	race.where = where;
	race.t = t;
	race.hold = hold;
	race.offline = offline;
	race.reached = race.go = false;
	race.armed = true;
	pthread_mutex_unlock(&race.lock);
	rp_debug_race_hook(race_hook);
}

/*
 * Until the armed point is reached, or @jobs_done jobs have finished (a
 * file that runs jobs counts them in race.done); true if reached.
 */
static bool await_reached(unsigned int jobs_done)
{
	bool reached;

	pthread_mutex_lock(&race.lock);
	while (!race.reached && race.done < jobs_done)
		pthread_cond_wait(&race.cond, &race.lock);
	reached = race.reached;
	pthread_mutex_unlock(&race.lock);
	return reached;
}

/* Let the held thread go, and disarm. */
static void release(void)
{
	pthread_mutex_lock(&race.lock);
	race.armed = false;
	race.go = true;
	pthread_cond_broadcast(&race.cond);
	pthread_mutex_unlock(&race.lock);
}

#endif /* RP_TESTS_CORE_RACEHOLD_H */
