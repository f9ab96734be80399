/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the CPU-timer tests share: a system, handlers, clocks in ns. */
#ifndef RP_TESTS_TIMERS_TEST_H
#define RP_TESTS_TIMERS_TEST_H

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <urcu/uatomic.h>
#include <rcuproc/timers.h>
#include "../core/world.h"

#define MS	1000000ULL
#define US	1000ULL
#define NS_PER_SEC 1000000000ULL

/* @t exits (it must be alive) and its handle is put. */
static inline void end(struct rp_task *t)
{
	cr_assert_eq(rp_exit(t, 0), 0);
	rp_task_put(t);
}

static inline void handle(struct rp_task *t, int sig)
{
	set_action(t, sig, user_handler);
}

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NS_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline struct timespec ns_ts(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / NS_PER_SEC), (long)(ns % NS_PER_SEC) };
}

/* Clock @clock read as @self, in ns; the test fails if it cannot be read. */
static inline uint64_t clock_ns(struct rp_task *self, clockid_t clock)
{
	struct timespec ts;

	cr_assert_eq(rp_clock_gettime(self, clock, &ts), 0);
	return ts_ns(&ts);
}

/* Arm @id to @value ns, then every @interval ns (relative). */
static inline void arm_timer(struct rp_task *self, int id, uint64_t value, uint64_t interval)
{
	struct itimerspec its = { ns_ts(interval), ns_ts(value) };

	cr_assert_eq(rp_timer_settime(self, id, 0, &its, NULL), 0);
}

/* A timer on @clock sending @sig to @self's process. */
static inline int timer_on(struct rp_task *self, clockid_t clock, int sig)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = sig };
	int id = -1;

	cr_assert_eq(rp_timer_create(self, clock, &sev, &id), 0);
	return id;
}

#endif /* RP_TESTS_TIMERS_TEST_H */
