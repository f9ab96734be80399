/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The tick: rp_account_cpu charges CPU time to a thread and runs what
 * expires (Linux's run_posix_cpu_timers), and the itimers ITIMER_PROF and
 * ITIMER_VIRTUAL with RLIMIT_CPU, which the tick checks on the group clock.
 *
 * Under the thread's siglock the tick checks that the thread has not passed
 * its exit point, charges, and collects the expired POSIX timers onto its
 * own firing list (->firing set); itimers and RLIMIT_CPU signal at once.
 * It fires the collected timers after dropping the siglock, each under the
 * timer's own lock.  The thread's tick lock, held throughout, keeps the
 * thread from passing its exit point meanwhile, so it cannot be reaped and
 * a timer_delete always finds the siglock that shows ->firing.  A tick that
 * began past the exit point could be overtaken by the reap and the delete:
 * RP_BREAK_TIMER_NO_EXIT_CHECK skips the check (Linux's 2025 fix in
 * run_posix_cpu_timers, the exit_state test).
 */
#include <errno.h>
#include "timers.h"
#include "../signal/signal.h"
#include "../debug/racepoint.h"

#ifdef RP_BREAK_TIMER_NO_EXIT_CHECK
#define EXIT_CHECK false
#else
#define EXIT_CHECK true
#endif

/*
 * Linux's collect_timerqueue stops at its MAX_COLLECTED-th timer: a tick
 * fires at most this many of one clock's timers, the rest at later ticks.
 */
#define COLLECT_PER_CLOCK	19

/*
 * Move the timers of @armed that @now has reached onto @firing, in the
 * list's order (by clock, then expiry: Linux's collect_posix_cputimers),
 * at most COLLECT_PER_CLOCK per clock (siglock held).
 */
static void collect_expired(struct cds_list_head *armed, uint64_t now[RP_CPUCLOCK_MAX],
			    struct cds_list_head *firing)
{
	unsigned int collected[RP_CPUCLOCK_MAX] = { 0 };
	struct rp_cpu_timer *tm, *next;
	int which;

	cds_list_for_each_entry_safe(tm, next, armed, node) {
		rp_cpu_timer_check_live(tm);
		which = tm->clock.which;
		if (tm->expires > now[which] || collected[which] == COLLECT_PER_CLOCK)
			continue;
		collected[which]++;
		cds_list_del(&tm->node);
		cds_list_add_tail(&tm->node, firing);
		tm->firing = 1;
	}
}

/* Linux's check_cpu_itimer: one signal per tick, re-armed by one interval. */
static void check_itimer(struct rp_task *t, struct rp_itimer *it, uint64_t now, int sig)
{
	if (!it->expires || now < it->expires)
		return;
	it->expires = it->incr ? it->expires + it->incr : 0;
	rp_send_signal_locked(t, sig, NULL, true);
}

/*
 * Linux's RLIMIT_CPU check: SIGKILL at the hard limit; SIGXCPU at the soft
 * one, which then moves one second on, so that it comes every second.
 */
static void check_rlimit_cpu(struct rp_task *t, uint64_t prof)
{
	const struct rlimit *rl = rp_task_rlimit(t, RLIMIT_CPU);
	struct rlimit *own;

	if (rl->rlim_cur == RLIM_INFINITY)
		return;
	if (rl->rlim_max != RLIM_INFINITY && prof >= rl->rlim_max * RP_NSEC_PER_SEC) {
		rp_send_signal_locked(t, SIGKILL, NULL, true);
		return;
	}
	if (prof >= rl->rlim_cur * RP_NSEC_PER_SEC) {
		rp_send_signal_locked(t, SIGXCPU, NULL, true);
		/* Out of memory for a private copy: SIGXCPU again at the next tick. */
		own = rp_task_rlimit_write(t, RLIMIT_CPU);
		if (own)
			own->rlim_cur++;
	}
}

/* The clocks of @t and of its group after the charge; what expired (siglock held). */
static void check_timers(struct rp_task *t, struct cds_list_head *firing)
{
	/* A charge allocated both (rp_thread_cputime_get). */
	struct rp_group_timers *g = rp_group_timers_of(t->signal);
	uint64_t now[RP_CPUCLOCK_MAX];
	int which;

	rp_assert_siglock_held(t);
	for (which = 0; which < RP_CPUCLOCK_MAX; which++)
		now[which] = rp_thread_sample(t, which);
	collect_expired(&t->cputimers.state->armed, now, firing);
	for (which = 0; which < RP_CPUCLOCK_MAX; which++)
		now[which] = rp_group_sample(t->signal, which);
	collect_expired(&g->armed, now, firing);
	check_itimer(t, &g->itimer[RP_ITIMER_PROF], now[RP_CPUCLOCK_PROF], SIGPROF);
	check_itimer(t, &g->itimer[RP_ITIMER_VIRT], now[RP_CPUCLOCK_VIRT], SIGVTALRM);
	check_rlimit_cpu(t, now[RP_CPUCLOCK_PROF]);
}

/*
 * Fire what the tick of @t collected (read section held, no siglock).  Nobody
 * else touches a timer's ->node while ->firing is set; settime and delete
 * wait for us to clear it.
 */
static void fire_collected_rcu(struct rp_task *t, struct cds_list_head *firing)
{
	struct rp_cpu_timer *tm, *next;
	int state;

	rp_assert_read_section(&t->sys->sync);
	cds_list_for_each_entry_safe(tm, next, firing, node) {
		/* Widen the window in which a delete could free it (torture, tests). */
		RP_RACE_POINT(RP_RACE_TIMER_FIRING, t);
		RP_TORTURE_DELAY();
		rp_cpu_timer_check_held(tm);
		RP_TORTURE_DELAY();
		rp_cpu_timer_check_held(tm);
		rp_cpu_timer_lock(tm);
		rp_cpu_timer_check_held(tm);
		cds_list_del_init(&tm->node);
		state = tm->firing;
		tm->firing = 0;
		if (state > 0)		/* not cancelled by settime or delete */
			rp_cpu_timer_fire_rcu(tm);
		rp_cpu_timer_unlock(tm);
	}
}

/*
 * Charge @t and collect what expired; -ESRCH if @t is released or exiting,
 * -ENOMEM if its first charge finds no memory for its CPU time (nothing
 * charged).
 */
static int charge(struct rp_task *t, uint64_t user_ns, uint64_t system_ns,
		  struct cds_list_head *firing)
{
	struct rp_sighand *sh = rp_lock_task_sighand_rcu(t);
	struct rp_thread_cputime *ct;
	int err = 0;

	if (!sh)
		return -ESRCH;
	if (EXIT_CHECK && rp_task_exited(t))
		err = -ESRCH;
	else if (!(ct = rp_thread_cputime_get(t)))
		err = -ENOMEM;
	if (!err) {
		ct->time.utime += user_ns;
		ct->time.stime += system_ns;
		check_timers(t, firing);
	}
	rp_unlock_sighand(sh);
	return err;
}

int rp_account_cpu(struct rp_task *t, uint64_t user_ns, uint64_t system_ns)
{
	struct rp_sync *sync = &t->sys->sync;
	CDS_LIST_HEAD(firing);
	int err;

	rp_cpu_tick_lock(t);
	rp_read_lock(sync);
	err = charge(t, user_ns, system_ns, &firing);
	if (!err)
		fire_collected_rcu(t, &firing);
	rp_read_unlock(sync);
	rp_cpu_tick_unlock(t);
	rp_sync_quiescent();
	return err;
}

/* ITIMER_PROF and ITIMER_VIRTUAL: their index and clock; -1 for the others. */
static int itimer_index(int which)
{
	if (which == ITIMER_PROF)
		return RP_ITIMER_PROF;
	if (which == ITIMER_VIRTUAL)
		return RP_ITIMER_VIRT;
	return -1;
}

static uint64_t timeval_to_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * RP_NSEC_PER_SEC + (uint64_t)tv->tv_usec * 1000;
}

static struct timeval ns_to_timeval(uint64_t ns)
{
	return (struct timeval){ .tv_sec = (time_t)(ns / RP_NSEC_PER_SEC),
				 .tv_usec = (suseconds_t)(ns % RP_NSEC_PER_SEC / 1000) };
}

static bool timeval_valid(const struct timeval *tv)
{
	return tv->tv_sec >= 0 && tv->tv_usec >= 0 && tv->tv_usec < 1000000;
}

/*
 * Read (and with @value, replace) itimer @idx of @self's group under its
 * siglock (Linux's get_cpu_itimer / set_cpu_itimer).  The time left is 1 ns
 * at least while armed ("about to fire").
 */
static int itimer_xchg(struct rp_task *self, int idx, const struct itimerval *value,
		       struct itimerval *old)
{
	static const struct rp_itimer disarmed;
	struct rp_sync *sync = &self->sys->sync;
	int clock = idx == RP_ITIMER_PROF ? RP_CPUCLOCK_PROF : RP_CPUCLOCK_VIRT;
	struct rp_group_timers *timers;
	const struct rp_itimer *cur;
	struct rp_sighand *sh;
	int err = -ESRCH;
	uint64_t now;

	rp_read_lock(sync);
	sh = rp_lock_task_sighand_rcu(self);
	if (!sh)
		goto out;
	/* A group that never set one reads them disarmed. */
	timers = value ? rp_group_timers_get(self->signal) : rp_group_timers_of(self->signal);
	err = value && !timers ? -ENOMEM : 0;
	if (!err) {
		cur = timers ? &timers->itimer[idx] : &disarmed;
		now = rp_group_sample(self->signal, clock);
		if (old) {
			old->it_value = ns_to_timeval(!cur->expires ? 0 :
						      cur->expires > now ? cur->expires - now : 1);
			old->it_interval = ns_to_timeval(cur->incr);
		}
	}
	if (!err && value) {
		struct rp_itimer *it = &timers->itimer[idx];

		it->expires = timeval_to_ns(&value->it_value);
		it->expires += it->expires ? now : 0;
		it->incr = timeval_to_ns(&value->it_interval);
	}
	rp_unlock_sighand(sh);
out:
	rp_read_unlock(sync);
	return err;
}

/* ITIMER_REAL is a wall-clock timer: rcuproc has no wall clock (-EINVAL). */
int rp_setitimer(struct rp_task *self, int which, const struct itimerval *value,
		 struct itimerval *old)
{
	static const struct itimerval zero;
	int idx = itimer_index(which);

	rp_sync_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	if (idx < 0)
		return -EINVAL;
	if (!value)
		value = &zero;	/* Linux: a NULL value disarms */
	if (!timeval_valid(&value->it_value) || !timeval_valid(&value->it_interval))
		return -EINVAL;
	return itimer_xchg(self, idx, value, old);
}

int rp_getitimer(struct rp_task *self, int which, struct itimerval *value)
{
	int idx = itimer_index(which);

	rp_sync_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	if (idx < 0)
		return -EINVAL;
	return itimer_xchg(self, idx, NULL, value);
}
