/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Holding a helper thread of the harness at a race point
 * (src/debug/racepoint.h, debug builds), so that the worker acts inside a
 * window on purpose: the helper arms a hold on itself, the worker awaits
 * it, acts, and releases it.  One hook serves the whole run; it is
 * installed before the workers start and removed after they end, and each
 * hold is armed in the helper's own thread-local slot, so that the race
 * points every other thread passes cost one load.
 */
#include <sched.h>
#include <time.h>
#include <urcu/uatomic.h>
#include <rcuproc/sync.h>
#include "../../src/debug/racepoint.h"
#include "torture.h"

static __thread struct hold *armed;	/* the calling helper's hold */
static bool installed;

#ifdef RP_DEBUG
static void hold_hook(enum rp_race_point where, struct rp_task *t)
{
	struct hold *h = armed;

	if (!h || (int)where != h->where || t != h->t)
		return;
	uatomic_inc(&h->reached);
	if (!h->stay)
		return;
	armed = NULL;
	if (h->offline)
		rp_thread_offline();
	while (!uatomic_read(&h->go))
		sched_yield();
	if (h->offline)
		rp_thread_online();
}
#endif

bool tt_hold_install(void)
{
#ifdef RP_DEBUG
	rp_debug_race_hook(hold_hook);
	installed = true;
#endif
	return installed;
}

/* Can a helper be held (a debug build, the hook installed)? */
bool tt_hold_available(void)
{
	return installed;
}

void tt_hold_remove(void)
{
#ifdef RP_DEBUG
	rp_debug_race_hook(NULL);
#endif
	installed = false;
}

void tt_hold_arm(struct hold *h)
{
	armed = h;
}

void tt_hold_disarm(void)
{
	armed = NULL;
}

/*
 * Until the helper has reached the held point, or has set *@done (it went
 * past without reaching it); true if reached.  The worker announces
 * quiescent states meanwhile (QSBR).
 */
bool tt_hold_await(struct hold *h, const int *done)
{
	while (!uatomic_read(&h->reached)) {
		if (uatomic_read(done))
			return uatomic_read(&h->reached) != 0;
		rp_thread_quiescent();
		sched_yield();
	}
	return true;
}

void tt_hold_release(struct hold *h)
{
	uatomic_set(&h->go, 1);
}

/* Monotonic seconds, for the bounded waits of the race operations. */
double tt_hold_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
