/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * POSIX CPU timers (Linux's kernel/time/posix-cpu-timers.c and the
 * timer_* system calls of kernel/time/posix-timers.c, as they stand in
 * v6.18, after commit 647da5f709f1 ("posix-timers: Move sequence logic
 * into struct k_itimer") and its series): ids per process from 0, never
 * reused; a timer runs on a thread's or a process's CPU clock, possibly
 * another process's, and notifies its own process with a preallocated
 * signal entry.
 *
 * Expiry and re-arming.  A tick that finds a timer expired fires it: a
 * one-shot timer is disarmed, a periodic one is left off its armed list
 * (RP_TIMER_REQUEUE_PENDING), and the signal is queued
 * (src/signal/posixtimer.c).  The periodic timer is re-armed when that
 * signal is delivered (rp_cputimers_deliver, Linux's
 * posixtimer_deliver_signal), which counts the expiries the clock passed
 * meanwhile as the signal's overrun, the one timer_getoverrun reports from
 * then on.  settime and delete move the timer's generation on
 * (->signal_seq) and leave a queued signal where it is: its delivery finds
 * the generation changed and drops it.
 *
 * Lifetime.  The owner's list holds one reference, so does the signal
 * while queued (and the ignored list while the timer is parked there), and
 * every call holds one while it works.  A tick that collected the timer
 * (->firing) holds none: settime and delete cancel that firing and wait
 * until the tick is done with it (Linux's TIMER_RETRY), so a timer is
 * never deleted while a tick can still fire it.  A delete that finds the
 * target released cannot look at ->firing (the target's siglock is gone
 * with it); it relies on no tick running on a task past its exit point
 * (tick.c), Linux's 2025 fix.  RP_BREAK_TIMER_EARLY_FREE deletes without
 * waiting for the tick.  RP_BREAK_TIMER_REARM_DELETED delivers and re-arms
 * without checking the generation: a timer deleted or reset while its
 * signal was being delivered is re-armed and its old signal delivered.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include "timers.h"
#include "../signal/signal.h"
#include "../debug/racepoint.h"

#ifdef RP_BREAK_TIMER_EARLY_FREE
#define WAIT_FOR_FIRING false
#else
#define WAIT_FOR_FIRING true
#endif

#ifdef RP_BREAK_TIMER_REARM_DELETED
#define CHECK_GENERATION false
#else
#define CHECK_GENERATION true
#endif

/* DELAYTIMER_MAX of Linux: overrun counts saturate at INT_MAX (-1: none counted). */
static int cap_overrun(int64_t n)
{
	return n > INT_MAX ? INT_MAX : (int)n;
}

void rp_cpu_timer_check_live(const struct rp_cpu_timer *tm)
{
	/* Freed: free() overwrote the magic. */
	RP_DEBUG_BUG_ON(CMM_LOAD_SHARED(tm->magic) != RP_CPU_TIMER_MAGIC);
}

void rp_cpu_timer_check_held(const struct rp_cpu_timer *tm)
{
	rp_cpu_timer_check_live(tm);
	/* On a firing list but not held by a tick: freed and reused. */
	RP_DEBUG_BUG_ON(!CMM_LOAD_SHARED(tm->firing));
}

static void timer_put(struct rp_cpu_timer *tm)
{
	rp_cpu_timer_put(rp_signal_sys(tm->owner), tm);
}

/* The tasks a timer names, let go at its delete: nothing arms or signals it after. */
static void put_tasks(struct rp_cpu_timer *tm)
{
	rp_task_put(tm->target);
	if (tm->notify_thread)
		rp_task_put(tm->notify_thread);
}

struct rp_sighand *rp_cpu_timer_lock_target_rcu(struct rp_cpu_timer *tm)
{
	rp_assert_read_section(&tm->target->sys->sync);
	if (tm->clock.thread)
		return rp_lock_task_sighand_rcu(tm->target);
	return rp_lock_group_sighand_rcu(tm->target->signal);
}

/*
 * The armed list of @tm's clock (target's siglock held): its settime made
 * the clock's state (clock_state_get), and a state lives as long as its
 * task or group.
 */
static struct cds_list_head *armed_list(struct rp_cpu_timer *tm)
{
	return tm->clock.thread ? &tm->target->cputimers.state->armed :
				  &rp_group_timers_of(tm->target->signal)->armed;
}

/*
 * Allocate the CPU time of @tm's clock if it has none yet (target's
 * siglock held), so that the timer can be armed on it: false on ENOMEM.
 */
static bool clock_state_get(struct rp_cpu_timer *tm)
{
	if (tm->clock.thread)
		return rp_thread_cputime_get(tm->target);
	return rp_group_timers_get(tm->target->signal);
}

static uint64_t target_sample(struct rp_cpu_timer *tm)
{
	return tm->clock.thread ? rp_thread_sample(tm->target, tm->clock.which) :
				  rp_group_sample(tm->target->signal, tm->clock.which);
}

/* Take @tm off its target's armed list (target's siglock held, no tick holds it). */
static void disarm(struct rp_cpu_timer *tm)
{
	rp_assert_group_siglock_held(tm->target->signal);
	cds_list_del_init(&tm->node);
}

/* Does @a come before @b on an armed list: by clock (PROF, VIRT, SCHED), then expiry? */
static bool armed_before(const struct rp_cpu_timer *a, const struct rp_cpu_timer *b)
{
	if (a->clock.which != b->clock.which)
		return a->clock.which < b->clock.which;
	return a->expires < b->expires;
}

/*
 * Linux's arm_timer (both locks held): onto the target's armed list, kept
 * in the order of Linux's three timerqueues walked one after the other:
 * by clock, then expiry, equal ones in arming order.  A linear walk where
 * Linux has a tree: the answers are the same.
 */
static void arm(struct rp_cpu_timer *tm)
{
	struct cds_list_head *armed = armed_list(tm);
	struct rp_cpu_timer *pos;

	rp_assert_group_siglock_held(tm->target->signal);
	rp_lockdep_assert_held_obj(tm);
	tm->status = RP_TIMER_ARMED;
	cds_list_for_each_entry(pos, armed, node)
		if (armed_before(tm, pos))
			break;
	cds_list_add_tail(&tm->node, &pos->node);	/* before @pos, or last */
}

/*
 * Linux's bump_cpu_timer for a timer not armed (lock held): move a periodic
 * timer's expiry past @now by whole intervals, counting them as overruns;
 * the expiry, moved or not.  A division where Linux shifts.
 */
static uint64_t bump(struct rp_cpu_timer *tm, uint64_t now)
{
	uint64_t n;

	rp_lockdep_assert_held_obj(tm);
	if (!tm->incr || now < tm->expires)
		return tm->expires;
	n = (now - tm->expires) / tm->incr + 1;
	tm->expires += n * tm->incr;
	tm->overrun += (int64_t)n;
	return tm->expires;
}

/* Lock the siglock of the thread @tm notifies, or of its process (read section held). */
static struct rp_sighand *lock_notify_rcu(struct rp_cpu_timer *tm, struct rp_task **p)
{
	struct rp_sighand *sh;

	rp_assert_read_section(&tm->target->sys->sync);
	if (tm->notify_thread) {
		*p = tm->notify_thread;
		return rp_lock_task_sighand_rcu(*p);
	}
	sh = rp_lock_group_sighand_rcu(tm->owner);
	/* Under the siglock a released thread is off the list (drop_sighand): the first is not. */
	*p = sh ? cds_list_first_entry(&tm->owner->thread_head, struct rp_task, thread_node) : NULL;
	return sh;
}

/*
 * Linux's posix_timer_queue_signal (lock held, read section): a periodic
 * timer owes a re-arm from now on, a one-shot one is done; its signal is
 * sent unless the thread it notifies is gone.
 */
static void queue_signal(struct rp_cpu_timer *tm)
{
	struct rp_sighand *sh;
	struct rp_task *p;

	tm->status = tm->incr ? RP_TIMER_REQUEUE_PENDING : RP_TIMER_DISARMED;
	sh = lock_notify_rcu(tm, &p);
	if (!sh)
		return;
	rp_posixtimer_send_locked(p, tm);
	rp_unlock_sighand(sh);
}

void rp_cpu_timer_fire_rcu(struct rp_cpu_timer *tm)
{
	rp_assert_read_section(&tm->target->sys->sync);
	rp_lockdep_assert_held_obj(tm);
	RP_DEBUG_BUG_ON(tm->notify == SIGEV_NONE);	/* never armed */
	if (!tm->incr)
		tm->expires = 0;	/* not armed: the timer's lock covers it */
	queue_signal(tm);
}

/*
 * Linux's posix_cpu_timer_rearm (lock held, read section): move the expiry
 * past the clock's value, counting the intervals passed, and arm again.
 * A target gone is left alone: its overrun stays as it was (-1).
 */
static void rearm(struct rp_cpu_timer *tm)
{
	struct rp_sighand *sh = rp_cpu_timer_lock_target_rcu(tm);

	if (!sh)
		return;
	bump(tm, target_sample(tm));
	arm(tm);
	rp_unlock_sighand(sh);
}

/*
 * Linux's __posixtimer_deliver_signal (lock held, read section): false if
 * the signal belongs to an older generation (settime, delete), and is to
 * be dropped; else re-arm a periodic timer and report its overrun.
 */
static bool deliver_locked(struct rp_cpu_timer *tm, siginfo_t *info)
{
	if (CHECK_GENERATION) {
		if (tm->signal_seq != tm->sigqueue_seq)
			return false;
		RP_DEBUG_BUG_ON(tm->deleted);	/* delete moved the generation on */
	}
	if (!tm->incr || tm->status != RP_TIMER_REQUEUE_PENDING)
		return true;
	rearm(tm);
	tm->status = RP_TIMER_ARMED;
	tm->overrun_last = tm->overrun;
	tm->overrun = -1;
	tm->signal_seq++;
	info->si_overrun = cap_overrun(tm->overrun_last);
	return true;
}

bool rp_cputimers_deliver(struct rp_task *self, struct rp_sigqueue *q, siginfo_t *info)
{
	struct rp_cpu_timer *tm = caa_container_of(q, struct rp_cpu_timer, sigq);
	struct rp_sync *sync = &self->sys->sync;
	bool deliver;

	RP_RACE_POINT(RP_RACE_TIMER_DELIVERS, self);
	rp_read_lock(sync);
	rp_cpu_timer_lock(tm);
	deliver = deliver_locked(tm, info);
	rp_cpu_timer_unlock(tm);
	rp_read_unlock(sync);
	rp_cpu_timer_put(self->sys, tm);	/* the queued signal's reference */
	return deliver;
}

/* Timer @id of @self's process, with a reference; NULL if none. */
static struct rp_cpu_timer *timer_find(struct rp_task *self, int id)
{
	struct rp_cpu_timer *tm, *found = NULL;
	struct rp_sighand *sh = rp_lock_task_sighand(self);
	struct rp_group_timers *timers;

	if (!sh)
		return NULL;
	timers = rp_group_timers_of(self->signal);
	if (timers) {
		cds_list_for_each_entry(tm, &timers->owned, owner_node) {
			if (tm->id == id) {
				uatomic_inc(&tm->refs);
				found = tm;
				break;
			}
		}
	}
	rp_unlock_sighand(sh);
	return found;
}

static void unlock_timer(struct rp_cpu_timer *tm)
{
	rp_cpu_timer_unlock(tm);
	rp_read_unlock(&rp_signal_sys(tm->owner)->sync);
}

/* Enter a read section and lock @tm: 0, or -EINVAL (nothing held) if it was deleted. */
static int lock_live(struct rp_cpu_timer *tm)
{
	rp_read_lock(&rp_signal_sys(tm->owner)->sync);
	rp_cpu_timer_lock(tm);
	if (!tm->deleted)
		return 0;
	unlock_timer(tm);
	return -EINVAL;
}

/*
 * lock_live, and lock @tm's target too (*@sh, NULL if the target is gone),
 * with no tick holding @tm: a firing is cancelled and waited for.
 */
static int lock_idle(struct rp_cpu_timer *tm, struct rp_sighand **sh)
{
	int err;

	while (!(err = lock_live(tm))) {
		*sh = rp_cpu_timer_lock_target_rcu(tm);
		if (!*sh || !tm->firing || !WAIT_FOR_FIRING)
			break;
		tm->firing = -1;	/* the tick will not fire it: TIMER_RETRY */
		rp_unlock_sighand(*sh);
		unlock_timer(tm);
		RP_RACE_POINT(RP_RACE_TIMER_CANCEL_WAITS, tm->target);
		sched_yield();
	}
	return err;
}

/* Timer @id of @self's process for a call, with a reference; NULL and *@err if none. */
static struct rp_cpu_timer *timer_for_call(struct rp_task *self, int id, int *err)
{
	struct rp_cpu_timer *tm = NULL;

	*err = -ESRCH;
	if (!rp_task_exited(self)) {
		tm = timer_find(self, id);
		*err = tm ? 0 : -EINVAL;
	}
	return tm;
}

/*
 * Linux's posix_timer_delete (a reference held): a new generation, so that
 * a signal still queued is dropped at its delivery; disarmed; off the
 * owner's list and the ignored list.
 */
static int delete_timer(struct rp_cpu_timer *tm)
{
	struct rp_sighand *sh, *osh;
	int err = lock_idle(tm, &sh);

	if (err)
		return err;
	tm->signal_seq++;
	if (sh) {
		disarm(tm);
		rp_unlock_sighand(sh);
	} else {
		/* Released: its release took it off (Linux warns in cpu_timer_task_rcu). */
		RP_DEBUG_BUG_ON(!cds_list_empty(&tm->node));
	}
	tm->status = RP_TIMER_DISARMED;
	osh = rp_lock_group_sighand_rcu(tm->owner);
	/* Under the owner's siglock: sigaction's flush must not park it from now on. */
	tm->deleted = true;
	cds_list_del(&tm->owner_node);
	rp_posixtimer_forget_ignored(rp_signal_sys(tm->owner), tm);
	if (osh)
		rp_unlock_sighand(osh);
	unlock_timer(tm);
	put_tasks(tm);
	timer_put(tm);		/* the owner's list's */
	return 0;
}

/* Delete every POSIX timer of @self's process (exec, the group's death). */
static void delete_owned(struct rp_task *self)
{
	struct rp_group_timers *timers;
	struct rp_cpu_timer *tm;
	struct rp_sighand *sh;

	/* Until the list is empty: a concurrent timer_delete may take some first. */
	for (;;) {
		tm = NULL;
		sh = rp_lock_task_sighand(self);
		timers = sh ? rp_group_timers_of(self->signal) : NULL;
		if (timers && !cds_list_empty(&timers->owned)) {
			tm = cds_list_first_entry(&timers->owned, struct rp_cpu_timer, owner_node);
			uatomic_inc(&tm->refs);
		}
		if (sh)
			rp_unlock_sighand(sh);
		if (!tm)
			return;
		delete_timer(tm);
		timer_put(tm);
	}
}

void rp_cputimers_exec(struct rp_task *self)
{
	delete_owned(self);
	rp_flush_itimer_signals(self);
}

/* Is every thread of @t's group past its exit point?  (siglock held) */
static bool group_exiting(struct rp_task *t)
{
	struct rp_task *p;

	rp_assert_siglock_held(t);
	/* Stable under the siglock: pairs with the insertions in clone. */
	cds_list_for_each_entry_rcu(p, &t->signal->thread_head, thread_node)
		if (!(CMM_LOAD_SHARED(p->flags) & RP_PF_EXITING))
			return false;
	return true;
}

void rp_cputimers_exit(struct rp_task *t)
{
	struct rp_sighand *sh;
	bool dead;

	/* A tick that began before RP_PF_EXITING ends first; later ones see it. */
	struct rp_thread_cputime *ct;

	rp_cpu_tick_lock(t);
	rp_cpu_tick_unlock(t);
	sh = rp_lock_task_sighand(t);
	/* None: never charged, nothing to fold.  Else the group has its own. */
	ct = t->cputimers.state;
	if (ct) {
		struct rp_group_timers *g = rp_group_timers_of(t->signal);

		g->exited.utime += ct->time.utime;
		g->exited.stime += ct->time.stime;
		/* Widen the window an unlocked group sample could fall into (torture). */
		RP_TORTURE_DELAY();
		/* Under the siglock with the totals; pairs with the loads in rp_group_cputime. */
		CMM_STORE_SHARED(ct->folded, true);
	}
	dead = group_exiting(t);
	rp_unlock_sighand(sh);
	if (dead)
		delete_owned(t);
}

void rp_cputimers_release(struct rp_task *t)
{
	struct rp_cpu_timer *tm, *next;

	struct rp_group_timers *g = rp_group_timers_of(t->signal);

	/* nr_threads: the update lock, or G of the group (a plain reap's). */
	rp_assert_group_write(t->sys, t->signal);
	rp_assert_siglock_held(t);
	if (t->cputimers.state) {
		cds_list_for_each_entry_safe(tm, next, &t->cputimers.state->armed, node)
			disarm(tm);
	}
	if (g && t->signal->nr_threads == 1) {
		cds_list_for_each_entry_safe(tm, next, &g->armed, node)
			disarm(tm);
	}
}

/* Linux's good_sigevent: SIGEV_THREAD_ID's thread in *@thread (a reference); -EINVAL if bad. */
static int check_sigevent(struct rp_task *self, const struct sigevent *sev,
			  struct rp_task **thread)
{
	int notify = sev->sigev_notify;
	struct rp_task *t;

	if (notify == SIGEV_NONE)
		return 0;
	if (notify != SIGEV_SIGNAL && notify != SIGEV_THREAD && notify != SIGEV_THREAD_ID)
		return -EINVAL;
	if (sev->sigev_signo <= 0 || sev->sigev_signo >= RP_NSIG)
		return -EINVAL;
	if (notify != SIGEV_THREAD_ID)
		return 0;
	t = rp_find_task_rcu(self->sys, sev->_sigev_un._tid);
	if (!t || !rp_same_thread_group(t, self) || !rp_task_get_rcu(t))
		return -EINVAL;
	*thread = t;
	return 0;
}

/* Find the clock's task and the notified thread, with references (read section). */
static int timer_targets_rcu(struct rp_task *self, const struct rp_cpu_clock *c,
			 const struct sigevent *sev, struct rp_cpu_timer *tm)
{
	struct rp_task *t = rp_cpu_clock_task_rcu(self, c, false);
	int err;

	if (!t || !rp_task_get_rcu(t))
		return -EINVAL;
	err = check_sigevent(self, sev, &tm->notify_thread);
	if (err)
		rp_task_put(t);
	else
		tm->target = t;
	return err;
}

/* Give @tm the next id of @self's process and put it on the owner's list. */
static int timer_publish(struct rp_task *self, struct rp_cpu_timer *tm,
			 const struct sigevent *sev, bool default_value)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);
	struct rp_group_timers *timers;

	if (!sh)
		return -ESRCH;
	timers = rp_group_timers_get(self->signal);
	if (!timers) {
		rp_unlock_sighand(sh);
		return -ENOMEM;
	}
	tm->id = timers->next_id++;
	if (timers->next_id < 0)
		timers->next_id = 0;	/* wraps at INT_MAX, as Linux */
	tm->sigq.info.si_signo = sev->sigev_signo;
	tm->sigq.info.si_code = SI_TIMER;
	tm->sigq.info.si_timerid = tm->id;
	tm->sigq.info.si_value = sev->sigev_value;
	if (default_value)
		tm->sigq.info.si_value.sival_int = tm->id;
	cds_list_add_tail(&tm->owner_node, &timers->owned);
	rp_unlock_sighand(sh);
	return 0;
}

int rp_timer_create(struct rp_task *self, clockid_t clock, struct sigevent *sev, int *timerid)
{
	struct sigevent def = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGALRM };
	struct rp_sync *sync = &self->sys->sync;
	struct rp_cpu_timer *tm;
	struct rp_cpu_clock c;
	int err;

	err = rp_cpu_clock_decode(self, clock, &c);
	if (err)
		return err;
	tm = rp_zalloc(sizeof(*tm));
	if (!tm)
		return -ENOMEM;
	tm->magic = RP_CPU_TIMER_MAGIC;
	tm->refs = 1;
	tm->clock = c;
	tm->owner = self->signal;
	tm->notify = sev && sev->sigev_notify == SIGEV_NONE ? SIGEV_NONE : SIGEV_SIGNAL;
	tm->overrun = -1;
	CDS_INIT_LIST_HEAD(&tm->node);
	CDS_INIT_LIST_HEAD(&tm->ignored_node);
	err = rp_sigqueue_charge_prealloc(self, &tm->sigq);
	if (err) {
		rp_free(tm);
		return err;
	}
	rp_read_lock(sync);
	err = timer_targets_rcu(self, &c, sev ? sev : &def, tm);
	rp_read_unlock(sync);
	if (!err) {
		err = timer_publish(self, tm, sev ? sev : &def, !sev);
		if (err)
			put_tasks(tm);
	}
	if (err) {
		timer_put(tm);
		return err;
	}
	*timerid = tm->id;
	rp_sync_quiescent();
	return 0;
}

static bool timespec_valid(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < (long)RP_NSEC_PER_SEC;
}

/*
 * Linux's __posix_cpu_timer_get at @now, for a timer with an expiry (lock
 * held): the time left.  A periodic timer not armed (its signal not yet
 * delivered, or SIGEV_NONE) is first moved past @now, its overrun
 * counted.  Due and not moved: 1 ns, the signal not yet delivered; 0 for
 * SIGEV_NONE.
 */
static struct timespec time_left(struct rp_cpu_timer *tm, uint64_t now)
{
	uint64_t expires = tm->status != RP_TIMER_ARMED ? bump(tm, now) : tm->expires;

	if (now < expires)
		return rp_ns_to_timespec(expires - now);
	return rp_ns_to_timespec(tm->notify == SIGEV_NONE ? 0 : 1);
}

/*
 * Linux's posix_cpu_timer_set, under the target's siglock: disarm, answer
 * the old value, set the new expiry and arm it if it is still to come;
 * true if it is already due.  SIGEV_NONE timers are never armed (their
 * expiry is only read).
 */
static bool timer_set_locked(struct rp_cpu_timer *tm, int flags, const struct itimerspec *value,
			     struct itimerspec *old)
{
	uint64_t now = target_sample(tm), expires = rp_timespec_to_ns(&value->it_value);
	bool signals = tm->notify != SIGEV_NONE;

	disarm(tm);
	tm->status = RP_TIMER_DISARMED;
	if (old) {
		old->it_value = rp_ns_to_timespec(0);
		if (tm->expires)
			old->it_value = time_left(tm, now);
		old->it_interval = rp_ns_to_timespec(tm->incr);
	}
	if (expires && !(flags & TIMER_ABSTIME))
		expires += now;
	tm->expires = expires;
	if (signals && expires && now < expires)
		arm(tm);
	return signals && expires && now >= expires;
}

/* Linux's posix_timer_set_common: the interval (none without a value), overruns reset. */
static void set_common(struct rp_cpu_timer *tm, const struct itimerspec *value)
{
	tm->incr = rp_timespec_to_ns(&value->it_value) ? rp_timespec_to_ns(&value->it_interval) : 0;
	tm->overrun_last = 0;
	tm->overrun = -1;
}

int rp_timer_settime(struct rp_task *self, int timerid, int flags,
		     const struct itimerspec *value, struct itimerspec *old)
{
	struct rp_cpu_timer *tm;
	struct rp_sighand *sh;
	bool due;
	int err;

	if (!timespec_valid(&value->it_value) || !timespec_valid(&value->it_interval))
		return rp_task_exited(self) ? -ESRCH : -EINVAL;
	tm = timer_for_call(self, timerid, &err);
	if (!tm)
		return err;
	err = lock_idle(tm, &sh);
	if (!err) {
		/* A signal still queued is the old setting's: dropped at its delivery. */
		tm->signal_seq++;
		if (!sh) {
			err = -ESRCH;	/* the target was reaped: nothing to sample any more */
			unlock_timer(tm);
		}
	}
	/* Only a setting that may arm needs the clock's state: a disarm never fails. */
	if (!err && rp_timespec_to_ns(&value->it_value) && !clock_state_get(tm)) {
		err = -ENOMEM;	/* the clock's first timer: no memory to arm it on */
		rp_unlock_sighand(sh);
		unlock_timer(tm);
	}
	if (!err) {
		due = timer_set_locked(tm, flags, value, old);
		rp_unlock_sighand(sh);
		set_common(tm, value);
		if (due)	/* already passed: fire now, as Linux */
			rp_cpu_timer_fire_rcu(tm);
		unlock_timer(tm);
	}
	timer_put(tm);
	rp_sync_quiescent();
	return err;
}

int rp_timer_gettime(struct rp_task *self, int timerid, struct itimerspec *value)
{
	struct rp_cpu_timer *tm;
	struct rp_sighand *sh;
	int err;

	tm = timer_for_call(self, timerid, &err);
	if (!tm)
		return err;
	/* A gone target or a disarmed timer: all zero, the interval too (Linux). */
	*value = (struct itimerspec){ { 0, 0 }, { 0, 0 } };
	err = lock_live(tm);
	sh = err ? NULL : rp_cpu_timer_lock_target_rcu(tm);
	if (sh && tm->expires) {
		value->it_value = time_left(tm, target_sample(tm));
		value->it_interval = rp_ns_to_timespec(tm->incr);
	}
	if (sh)
		rp_unlock_sighand(sh);
	if (!err)
		unlock_timer(tm);
	timer_put(tm);
	rp_sync_quiescent();
	return err;
}

int rp_timer_getoverrun(struct rp_task *self, int timerid)
{
	int ret;
	struct rp_cpu_timer *tm = timer_for_call(self, timerid, &ret);

	rp_sync_quiescent();
	if (!tm)
		return ret;
	ret = lock_live(tm);
	if (!ret) {
		/* As the raw call: an overrun of -1 (a target gone before the re-arm) reads as -1. */
		ret = cap_overrun(tm->overrun_last);
		unlock_timer(tm);
	}
	timer_put(tm);
	return ret;
}

int rp_timer_delete(struct rp_task *self, int timerid)
{
	struct rp_cpu_timer *tm;
	int err;

	tm = timer_for_call(self, timerid, &err);
	if (!tm)
		return err;
	err = delete_timer(tm);
	timer_put(tm);
	rp_sync_quiescent();
	return err;
}
