/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU-time accounting and CPU timers: the state embedded in each task and
 * in each thread group (task.h includes this header) and its set-up; the
 * timer object is in objects.h, the calls into src/timers in
 * src/timers/hooks.h.  Lock letters as in task.h; "(s)" is the siglock of
 * the group the struct is embedded in.
 */
#ifndef RP_TASK_CPUTIMERS_H
#define RP_TASK_CPUTIMERS_H

#include <stdbool.h>
#include <stdint.h>
#include <urcu/list.h>
#include "../sync/spinlock.h"

struct rp_task;
struct rp_signal;

/* User and system CPU time in nanoseconds (sum_exec is their sum here). */
struct rp_cputime {
	uint64_t utime;
	uint64_t stime;
};

/* An itimer (ITIMER_PROF or ITIMER_VIRTUAL) on the group's clock. */
struct rp_itimer {
	uint64_t expires;		/* (s) 0: disarmed */
	uint64_t incr;			/* (s) 0: one-shot */
};

/*
 * A thread's CPU time and the timers on its clock.  Most threads are never
 * charged (no tick reaches them) and no timer runs on their clock, so this
 * is allocated by the first charge or the first timer set on the clock
 * (rp_thread_cputime_get) and freed with the task, after its grace period.
 */
struct rp_thread_cputime {
	struct rp_cputime time;		/* (s) charged so far */
	bool folded;			/* (s) exit point passed: ->time is in the group's */
	struct cds_list_head armed;	/* (s) timers on this thread's clock */
};

/*
 * One thread's part.  Its tick lock is the task's ->cputime_tick, among the
 * task's small fields, so that this part is one word (no padding beside a
 * 4-byte lock).
 */
struct rp_task_cputimers {
	/*
	 * (s) NULL until the first charge or timer: stored once, complete,
	 * under the group's siglock and read under it only (the writer's
	 * unlock pairs with a reader's lock), as the group's ->extra.  A
	 * thread without it has run no time and has no timer on its clock.
	 */
	struct rp_thread_cputime *state;
};

/* rp_group_timers.itimer[] */
enum { RP_ITIMER_PROF, RP_ITIMER_VIRT, RP_ITIMER_NR };

/*
 * A process's CPU time and timers: the times its exited threads left, the
 * timers on its clock and the ones it set for itself.  Most processes
 * never run a charged thread nor set a timer, so this is part of the
 * group's rarely used state (struct rp_signal_extra in task.h), allocated
 * by the first charge of one of its threads, the first timer set on its
 * clock or its first timer_create or setitimer (rp_group_timers_get), or
 * by another first use of that state, and freed with the group, after its
 * grace period.  A thread's rp_thread_cputime is allocated after its
 * group's one: a thread that has time to fold at its exit point finds
 * where to fold it.
 */
struct rp_group_timers {
	struct rp_cputime exited;	/* (s) left by threads past their exit point */
	struct cds_list_head armed;	/* (s) timers on the process clock */
	struct rp_itimer itimer[RP_ITIMER_NR];	/* (s) */
	struct cds_list_head owned;	/* (s) this process's POSIX timers, by id */
	/*
	 * (s) Periodic timers whose signal was ignored, each holding a
	 * reference: sigaction brings the signal back when it stops ignoring
	 * it (Linux's ignored_posix_timers).
	 */
	struct cds_list_head ignored;
	int next_id;			/* (s) the next timer id (Linux: from 0, not reused) */
};

/*
 * A thread group's part, embedded in the group; its timers are in the
 * group's ->extra (rp_group_timers_of).
 */
struct rp_group_cputimers {
	/*
	 * (s) Reaped children, with their children: in the group, not in
	 * its timers, so that a reap, which cannot fail, never allocates.
	 */
	struct rp_cputime children;
};

/* The timers of @sig, allocated on first use (@sig's siglock held); NULL on ENOMEM. */
struct rp_group_timers *rp_group_timers_get(struct rp_signal *sig);
/*
 * The CPU time of @t, allocated on first use with its group's
 * (rp_group_timers_get) (@t's siglock held); NULL on ENOMEM.
 */
struct rp_thread_cputime *rp_thread_cputime_get(struct rp_task *t);
/* Free @t's CPU time, if any: @t is being freed (objects.c). */
void rp_thread_cputime_free(struct rp_task *t);

#endif /* RP_TASK_CPUTIMERS_H */
