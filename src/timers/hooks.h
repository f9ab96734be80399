/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The calls the process life cycle (src/proc: exit, exec, wait) makes into
 * CPU-time accounting and CPU timers.  The state they work on is embedded
 * in the task and the thread group: src/task/cputimers.h.
 */
#ifndef RP_TIMERS_HOOKS_H
#define RP_TIMERS_HOOKS_H

#include "../task/task.h"

struct rusage;

/*
 * @t's exit point (RP_PF_EXITING set, no lock held): wait for a tick on @t,
 * fold its times into the group's, and delete the group's POSIX timers if
 * every thread is past its exit point (Linux's exit_itimers).
 */
void rp_cputimers_exit(struct rp_task *t);
/*
 * Delivery took the preallocated entry @q of a POSIX timer off @self's
 * queues, its siginfo copied to @info (no lock held; the entry's reference
 * to its timer comes with it and is dropped here).  Linux's
 * posixtimer_deliver_signal: false if the timer was reset or deleted since
 * it queued the signal, which is then dropped; else a periodic timer is
 * re-armed and @info gets its overrun.
 */
bool rp_cputimers_deliver(struct rp_task *self, struct rp_sigqueue *q, siginfo_t *info);

/*
 * @t is being released (update lock and @t's siglock held, in the hold that
 * detaches its sighand): disarm the timers on its clocks.
 */
void rp_cputimers_release(struct rp_task *t);
/* exec: delete the caller's process's POSIX timers and drop their queued signals; itimers stay. */
void rp_cputimers_exec(struct rp_task *self);

/* wait: @p's and its children's times into @ru (may be NULL; update lock held). */
void rp_cputimers_wait_rusage(struct rp_task *p, struct rusage *ru);
/* wait claims leader @p as dead: its group's times go to its real parent's children totals. */
void rp_cputimers_reap(struct rp_task *p);

#endif /* RP_TIMERS_HOOKS_H */
