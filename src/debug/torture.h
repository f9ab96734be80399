/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Race-window widening, as rcutorture does.
 *
 * Multi-step updates of the table, and of the list toolkit as the project
 * includes it (list_twins.h hooks it into RP_LIST_STEP), call
 * RP_TORTURE_DELAY() between their steps.  In builds with debug checks
 * (RP_DEBUG, what the test suite runs) it now and then spins or yields, so
 * that a concurrent reader lands between two steps far more often than it
 * would by chance; elsewhere it is nothing.  A correct update gives readers nothing to see in that window; a
 * naive one (an RP_BREAK_* build) is caught within seconds.
 *
 * Where chance is not enough, a test parks a thread at a race point
 * (src/debug/racepoint.h) instead.
 */
#ifndef RP_DEBUG_TORTURE_H
#define RP_DEBUG_TORTURE_H

#ifdef RP_DEBUG
void rp_torture_delay(void);
#define RP_TORTURE_DELAY() rp_torture_delay()
#else
#define RP_TORTURE_DELAY() do { } while (0)
#endif

#endif /* RP_DEBUG_TORTURE_H */
