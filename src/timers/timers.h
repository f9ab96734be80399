/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU clocks and POSIX CPU timers inside src/timers: clock-id decoding,
 * sampling and the locks, shared by clock.c, timer.c and tick.c.  The
 * timer object and the decoded clock id are src/task/objects.h's.
 *
 * Locking, as Linux after commit e73d84e33f15: a timer is armed, sampled,
 * set, read and re-armed under the siglock of the task whose clock it runs
 * on (its target), never under the update lock.  Every timer call enters a
 * read section first, then takes the timer's own lock, then siglocks one at
 * a time (lockorder.h: RP_LOCK_TIMER ranks between the update lock and the
 * siglocks).
 */
#ifndef RP_TIMERS_TIMERS_H
#define RP_TIMERS_TIMERS_H

#include <time.h>
#include <rcuproc/timers.h>
#include "../task/objects.h"
#include "hooks.h"

/* Linux's CPU clock id encoding: ((~pid) << 3) | per-thread bit | which. */
#define RP_CPUCLOCK_PROF	0
#define RP_CPUCLOCK_VIRT	1
#define RP_CPUCLOCK_SCHED	2
#define RP_CPUCLOCK_MAX		3
#define RP_CPUCLOCK_PERTHREAD	4
#define RP_CPUCLOCK_WHICH_MASK	3

#define RP_NSEC_PER_SEC		1000000000ULL

/* Decode @id for @self: 0, -EINVAL for an id that is no CPU clock, -ESRCH if @self exited. */
int rp_cpu_clock_decode(struct rp_task *self, clockid_t id, struct rp_cpu_clock *c);

/*
 * Linux's pid_for_clock, in a read section: the task whose clock @c names
 * (for a process clock, any task of the process), or NULL: no such task, a
 * thread of another process, a process clock named by a non-leader tid
 * (allowed for @gettime when it is the caller's own tid).
 */
struct rp_task *rp_cpu_clock_task_rcu(struct rp_task *self, const struct rp_cpu_clock *c,
				  bool gettime);

/*
 * Lock the siglock of @sig's group through any of its threads that is not
 * released (a read section held), or NULL once every thread is released.
 */
struct rp_sighand *rp_lock_group_sighand_rcu(struct rp_signal *sig);

/* Samples in ns, under the siglock of @t's group. */
uint64_t rp_thread_sample(const struct rp_task *t, int which);
uint64_t rp_group_sample(struct rp_signal *sig, int which);
/* Both parts of the group's clock (live threads + exited ones), siglock held. */
struct rp_cputime rp_group_cputime(struct rp_signal *sig);

/* Debug builds stop at a timer met on an armed list that was freed meanwhile. */
void rp_cpu_timer_check_live(const struct rp_cpu_timer *tm);
/*
 * Debug builds stop at a timer met on a tick's firing list that was freed
 * meanwhile (poisoned, or reused: live again but not held by a tick).
 */
void rp_cpu_timer_check_held(const struct rp_cpu_timer *tm);

/*
 * Fire @tm (its lock held, in a read section, no siglock; not armed):
 * Linux's cpu_timer_fire.  A one-shot timer is done; a periodic one waits,
 * not armed, for its signal's delivery to re-arm it (rp_cputimers_deliver).
 * The signal is queued unless one is queued already.
 */
void rp_cpu_timer_fire_rcu(struct rp_cpu_timer *tm);

/* Lock @tm's target's siglock (read section held); NULL: the target is gone. */
struct rp_sighand *rp_cpu_timer_lock_target_rcu(struct rp_cpu_timer *tm);

/* A thread's tick lock (rp_task.cputime_tick), first in the lock order. */
static inline void rp_cpu_tick_lock(struct rp_task *t)
{
	rp_lockdep_acquire(RP_LOCK_CPU_TICK);
	rp_byte_lock(&t->cputime_tick);
}

static inline void rp_cpu_tick_unlock(struct rp_task *t)
{
	rp_byte_unlock(&t->cputime_tick);
	rp_lockdep_release(RP_LOCK_CPU_TICK);
}

static inline void rp_cpu_timer_lock(struct rp_cpu_timer *tm)
{
	rp_lockdep_acquire_obj(RP_LOCK_TIMER, tm);
	rp_spin_lock(&tm->lock);
}

static inline void rp_cpu_timer_unlock(struct rp_cpu_timer *tm)
{
	rp_spin_unlock(&tm->lock);
	rp_lockdep_release_obj(RP_LOCK_TIMER, tm);
}

/* Nanoseconds as a timespec, and back (the caller checked it is valid). */
struct timespec rp_ns_to_timespec(uint64_t ns);
uint64_t rp_timespec_to_ns(const struct timespec *ts);

#endif /* RP_TIMERS_TIMERS_H */
