/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The CPU-time state allocated on first use (src/task/cputimers.h): a
 * thread's (struct rp_thread_cputime) by its first charge or the first
 * timer set on its clock, its group's (struct rp_group_timers) with it or
 * by the group's first timer; none before.  A first use that finds no
 * memory fails whole (-ENOMEM) and leaves nothing half made.
 */
#include "../fixture/timers.h"
#include "debug/fault.h"
#include "task/task.h"

static bool has_state(struct rp_task *t)
{
	return t->cputimers.state != NULL;
}

static bool group_has_state(struct rp_task *t)
{
	return rp_group_timers_of(t->signal) != NULL;
}

Test(lazy, none_until_the_first_charge)
{
	struct rp_task *p, *t;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	cr_expect(!has_state(p) && !has_state(t) && !group_has_state(p),
		  "a process never charged has no CPU-time state");
	cr_expect_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), 0);
	cr_expect_eq(clock_ns(t, CLOCK_THREAD_CPUTIME_ID), 0);
	cr_expect(!group_has_state(p), "reading a clock allocates nothing");
	cr_assert_eq(rp_account_cpu(t, 2 * MS, 1 * MS), 0);
	cr_expect(has_state(t) && group_has_state(p), "the first charge allocates both");
	cr_expect(!has_state(p), "only the thread charged gets one");
	cr_expect_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), 3 * MS);
	cr_expect_eq(clock_ns(p, CLOCK_THREAD_CPUTIME_ID), 0);
	/* The charged thread's time is folded into the group's at its exit. */
	end_task(t);
	cr_expect_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), 3 * MS);
	end_task(p);
	finish();
}

Test(lazy, first_charge_without_memory)
{
	struct rp_task *p;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	cr_assert_eq(rp_debug_fail_random(1, 1), 0);
	cr_expect_eq(rp_account_cpu(p, 5 * MS, 0), -ENOMEM);
	rp_debug_fail_none();
	cr_expect(!has_state(p), "a failed first charge leaves no state");
	cr_expect_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), 0, "and charges nothing");
	cr_assert_eq(rp_account_cpu(p, 5 * MS, 0), 0);
	cr_expect_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), 5 * MS);
	end_task(p);
	finish();
}

Test(lazy, first_timer_on_a_clock_without_memory)
{
	struct itimerspec its = { ns_ts(0), ns_ts(MS) }, cur;
	struct rp_task *p, *t;
	clockid_t tc;
	int id;

	start(RP_SYNC_RCU);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	handle(p, SIGRTMIN);
	cr_assert_eq(rp_pthread_getcpuclockid(p, rp_gettid(t), &tc), 0);
	id = timer_on(p, tc, SIGRTMIN);
	cr_expect(!has_state(t), "a timer made, not set, allocates nothing on its clock");
	cr_assert_eq(rp_debug_fail_random(1, 1), 0);
	cr_expect_eq(rp_timer_settime(p, id, 0, &its, NULL), -ENOMEM);
	its.it_value = ns_ts(0);
	cr_expect_eq(rp_timer_settime(p, id, 0, &its, NULL), 0, "a disarm needs no memory");
	rp_debug_fail_none();
	cr_expect(!has_state(t));
	cr_assert_eq(rp_timer_gettime(p, id, &cur), 0);
	cr_expect_eq(ts_ns(&cur.it_value), 0, "a failed settime leaves the timer disarmed");
	arm_timer(p, id, MS, 0);
	cr_expect(has_state(t), "setting the clock's first timer allocates its state");
	cr_assert_eq(rp_account_cpu(t, 2 * MS, 0), 0);
	cr_expect(is_pending(p, SIGRTMIN), "the timer fired on the thread's clock");
	end_task(t);
	end_task(p);
	finish();
}
