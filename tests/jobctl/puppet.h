/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A puppet: the user space of one task, on an OS thread of its own.  It
 * takes signals (rp_get_signal, which sleeps while the task is stopped) and
 * runs the calls the test hands it, one at a time, as the task: a stopped
 * task cannot run them, as a stopped process cannot.
 */
#ifndef RP_TESTS_JOBCTL_PUPPET_H
#define RP_TESTS_JOBCTL_PUPPET_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include "../core/expect.h"
#include "task/task.h"

struct puppet {
	pthread_t thread;
	struct rp_task *t;
	long (*call)(struct rp_task *self, long arg);	/* a call to run, or NULL */
	long arg, result;
	bool done;			/* the call returned */
	bool quit;			/* return once nothing is pending */
	int died;			/* -ESRCH: the task was killed */
	unsigned long handled[RP_NSIG];	/* signals handed to "user space" */
};

/* Run a pending call, or take signals (sleeping stopped if need be), or sleep. */
static inline bool puppet_round(struct puppet *p)
{
	unsigned long seq = rp_waitq_seq(&p->t->wake);	/* sampled first: wakes come after */
	long (*call)(struct rp_task *, long) = CMM_LOAD_SHARED(p->call);
	siginfo_t si;
	int sig;

	if (call) {
		cmm_smp_rmb();		/* the argument after the call: pairs with puppet_call */
		p->result = call(p->t, p->arg);
		CMM_STORE_SHARED(p->call, NULL);
		cmm_smp_wmb();		/* the result before the flag: pairs with puppet_call */
		CMM_STORE_SHARED(p->done, true);
	}
	sig = rp_get_signal(p->t, &si);
	if (sig < 0)
		return false;
	if (sig > 0)
		uatomic_inc(&p->handled[sig]);
	else if (!call && !CMM_LOAD_SHARED(p->quit))
		rp_waitq_wait(&p->t->wake, seq);
	return !(sig == 0 && CMM_LOAD_SHARED(p->quit));
}

static inline void *puppet_main(void *arg)
{
	struct puppet *p = arg;

	rp_thread_register();
	while (puppet_round(p))
		;
	p->died = rp_task_exited(p->t) ? -ESRCH : 0;	/* read after pthread_join */
	rp_thread_unregister();
	return NULL;
}

static inline void puppet_start(struct puppet *p, struct rp_task *t)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	cr_assert_eq(pthread_create(&p->thread, NULL, puppet_main, p), 0);
}

/* Have the puppet run @call(@arg) as its task and return the result. */
static inline long puppet_call(struct puppet *p, long (*call)(struct rp_task *, long), long arg)
{
	double end = now_seconds() + TEST_HANG_SECONDS;

	p->arg = arg;
	CMM_STORE_SHARED(p->done, false);
	cmm_smp_wmb();		/* the argument before the call: pairs with puppet_round */
	CMM_STORE_SHARED(p->call, call);
	rp_waitq_wake(&p->t->wake);
	while (!CMM_LOAD_SHARED(p->done)) {
		cr_assert_lt(now_seconds(), end, "the puppet did not run the call (stopped?)");
		sched_yield();
	}
	cmm_smp_rmb();		/* the flag before the result: pairs with puppet_round */
	return p->result;
}

/* The task is being killed: its thread ends by itself. */
static inline void puppet_join_dead(struct puppet *p)
{
	double end = now_seconds() + TEST_HANG_SECONDS;

	while (!rp_task_exited(p->t)) {
		cr_assert_lt(now_seconds(), end, "the task was not killed");
		sched_yield();
	}
	pthread_join(p->thread, NULL);
	cr_assert_eq(p->died, -ESRCH);
}

/* The task lives on (not stopped): end the thread. */
static inline void puppet_quit(struct puppet *p)
{
	CMM_STORE_SHARED(p->quit, true);
	rp_waitq_wake(&p->t->wake);
	pthread_join(p->thread, NULL);
}

/* Wait until @cond(@t) holds: another OS thread makes it so. */
static inline void await_task(bool (*cond)(struct rp_task *), struct rp_task *t)
{
	double end = now_seconds() + TEST_HANG_SECONDS;

	while (!cond(t)) {
		cr_assert_lt(now_seconds(), end, "timed out");
		sched_yield();
	}
}

/* Is thread @t asleep in a group stop? */
static inline bool task_stopped(struct rp_task *t)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	bool stopped = sh && (t->jobctl & RP_JOBCTL_STOPPED);

	if (sh)
		rp_unlock_sighand(sh);
	return stopped;
}

#endif /* RP_TESTS_JOBCTL_PUPPET_H */
