/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The race-point hook; see racepoint.h. */
#include "racepoint.h"

#ifdef RP_DEBUG
#include <urcu/system.h>
#include <urcu/uatomic.h>

static rp_race_hook_fn race_hook;

/* Threads inside the hook (uatomic). */
static unsigned long hooks_running;

rp_race_hook_fn rp_debug_race_hook(rp_race_hook_fn fn)
{
	rp_race_hook_fn old = CMM_LOAD_SHARED(race_hook);

	CMM_STORE_SHARED(race_hook, fn);
	return old;
}

void rp_race_point(enum rp_race_point where, struct rp_task *t)
{
	rp_race_hook_fn fn = CMM_LOAD_SHARED(race_hook);

	if (fn) {
		uatomic_inc(&hooks_running);
		fn(where, t);
		uatomic_dec(&hooks_running);
	}
}

bool rp_race_point_busy(void)
{
	return uatomic_read(&hooks_running) != 0;
}
#endif
