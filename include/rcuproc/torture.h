/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/torture.h: race-window widening, as rcutorture does.
 *
 * Multi-step updates in the list toolkit call RP_TORTURE_DELAY() between
 * their steps.  In builds with debug checks (RP_DEBUG, what the test suite
 * runs) it now and then spins or yields, so that a concurrent reader lands
 * between two steps far more often than it would by chance; elsewhere it is
 * nothing.  A correct update gives readers nothing to see in that window; a
 * naive one (an RP_BREAK_* build) is caught within seconds.
 *
 * Where chance is not enough, a walk names a torture point: a place inside
 * a read section where a test may park the walking thread (its hook blocks)
 * while other threads update the table, so that a race window is entered
 * every time.  Debug builds only; elsewhere RP_TORTURE_POINT is nothing and
 * rp_torture_point_set returns -ENOSYS.
 */
#ifndef RCUPROC_TORTURE_H
#define RCUPROC_TORTURE_H

enum rp_torture_point {
	/*
	 * kill(-1) and setpriority(PRIO_USER)'s walk of all processes, at a
	 * node it has just reached and not yet locked: @obj is the task
	 * (struct rp_task *) whose node it is, an exec may have replaced it.
	 */
	RP_TP_PROCESS_WALK_NODE,
	RP_TP_NR
};

/* A hook: runs on the walking thread, in its read section, at @pt. */
typedef void (*rp_torture_hook_fn)(enum rp_torture_point pt, const void *obj, void *arg);

/* Install @fn (or NULL to remove) at @pt: 0, -EINVAL, or -ENOSYS without debug checks. */
int rp_torture_point_set(enum rp_torture_point pt, rp_torture_hook_fn fn, void *arg);

#ifdef RP_DEBUG
void rp_torture_delay(void);
void rp_torture_point(enum rp_torture_point pt, const void *obj);
#define RP_TORTURE_DELAY() rp_torture_delay()
#define RP_TORTURE_POINT(pt, obj) rp_torture_point(pt, obj)
#else
#define RP_TORTURE_DELAY() do { } while (0)
#define RP_TORTURE_POINT(pt, obj) do { (void)(obj); } while (0)
#endif

#endif /* RCUPROC_TORTURE_H */
