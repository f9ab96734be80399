/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection (src/debug/fault.h).  A scripted workload reaches a set of
 * allocation sites; then, for each site in turn, the workload runs again
 * with that site's next call failing.  Every call must return its result or
 * Linux's errno for a failed allocation (ENOMEM, or EAGAIN for fork and for
 * queueing a real-time signal), the table must stay consistent (the walk of
 * src/verify), and teardown must leave no object behind (I7); in each
 * mode.  Then the same with failures at random, and pid exhaustion and
 * RLIMIT_NPROC.
 */
#include <errno.h>
#include <sched.h>	/* CLONE_* */
#include <stdio.h>
#include "debug/fault.h"
#include <rcuproc/pgrp.h>
#include <rcuproc/timers.h>
#include "../fixture/expect.h"
#include "verify/verify.h"

#define MAX_SITES 256

static void handler(int sig)
{
	(void)sig;
}

/* A call's result: what it returns, or the errno of a failed allocation. */
#define allowed(call) do {							\
	long r_ = (call);							\
	cr_assert(r_ >= 0 || r_ == -ENOMEM || r_ == -EAGAIN,			\
		  "%s returned %ld", #call, r_);				\
} while (0)

static void signals_and_groups(struct rp_task *init, struct rp_task *a, pid_t pa, pid_t tid)
{
	siginfo_t info = { .si_code = SI_QUEUE };
	int moved;

	allowed(rp_rt_sigqueueinfo(init, pa, RT(0), &info));
	allowed(rp_kill(init, pa, RT(1)));
	if (tid > 0)
		allowed(rp_tgkill(init, pa, tid, RT(2)));
	moved = rp_setpgid(a, 0, 0);
	allowed(moved);
	if (moved == 0)
		allowed(rp_killpg(init, pa, RT(3)));
	else	/* The move's proxy was not allocated: no group @pa. */
		cr_assert_eq(rp_killpg(init, pa, RT(3)), -ESRCH);
	/* Take them, or the fork below restarts (RP_ERESTARTNOINTR). */
	while (rp_get_signal(a, NULL) > 0)
		;
}

/* A child that changes its credentials, starts a session and execs. */
static void second_child(struct rp_task *a)
{
	struct rp_task *b = NULL;
	pid_t pb = rp_fork(a, &b);
	int timer;

	allowed(pb);
	if (pb <= 0)
		return;
	allowed(rp_setsid(b));
	allowed(rp_timer_create(b, CLOCK_PROCESS_CPUTIME_ID, NULL, &timer));
	allowed(rp_setuid(b, 1000));
	allowed(rp_execve(b, "b"));
	rp_exit_group(b, 0);
	rp_task_put(b);
}

static void first_child(struct rp_task *init)
{
	struct rp_task *a = NULL, *t = NULL;
	pid_t pa = rp_fork(init, &a), tid;

	allowed(pa);
	if (pa <= 0)
		return;
	tid = rp_clone(a, THREAD_FLAGS, &t);
	allowed(tid);
	signals_and_groups(init, a, pa, tid);
	second_child(a);
	if (tid > 0) {
		rp_exit(t, 0);
		rp_task_put(t);
	}
	allowed(rp_execve(a, "a"));
	rp_exit_group(a, 0);
	rp_task_put(a);
}

/* The table-consistency walk (src/verify) finds nothing wrong; only init is left. */
static void expect_consistent(struct rp_system *sys)
{
	struct rp_verify_report r = {0};

	cr_assert_eq(rp_verify_walk_table(sys, &r), 0, "table walk: %s", r.first[0]);
}

static void workload(enum rp_sync_mode mode)
{
	struct rp_system *sys;
	struct sigaction act = { .sa_handler = handler };
	unsigned long live = rp_debug_live_objects();
	struct rp_task *init;
	int ret;

	rp_thread_register();
	ret = rp_system_create(&(struct rp_system_opts){ .mode = mode }, &sys);
	allowed(ret);
	if (ret == 0) {
		init = rp_system_init(sys);
		/* The handlers must be in: the signals sent below would kill. */
		for (int i = 0; i < 4; i++)
			while ((ret = rp_sigaction(init, RT(i), &act, NULL)) == -ENOMEM)
				;
		cr_assert_eq(ret, 0);
		first_child(init);
		while ((ret = rp_wait4(init, -1, NULL, 0, NULL)) > 0)
			;
		cr_assert_eq(ret, -ECHILD);
		while (rp_get_signal(init, NULL) > 0)
			;
		expect_consistent(sys);
		expect_only_init_left(sys);
		rp_task_put(init);
		rp_system_destroy(sys);
	}
	rp_thread_unregister();
	cr_assert_eq(rp_debug_live_objects(), live, "objects leaked: %lu",
		     rp_debug_live_objects() - live);
}

/* Calls of every site so far. */
static unsigned int snapshot(unsigned long *calls)
{
	unsigned int n = rp_debug_alloc_sites();

	for (unsigned int k = 0; k < n && k < MAX_SITES; k++)
		calls[k] = rp_debug_alloc_site_calls(k);
	return n;
}

Test(fault, each_site_in_turn)
{
	static unsigned long before[MAX_SITES], after[MAX_SITES];
	unsigned int n0, n, reached = 0;

	n0 = snapshot(before);
	workload(RP_SYNC_RCU);
	n = snapshot(after);
	cr_assert_gt(n, 5, "the workload reached only %u allocation sites", n);
	for (unsigned int k = 0; k < n; k++) {
		if (k < n0 && after[k] == before[k])
			continue;
		reached++;
		for (int mode = 0; mode < RP_SYNC_NR_MODES; mode++) {
			unsigned long failures = rp_debug_alloc_failures();

			cr_assert_eq(rp_debug_fail_site(k, 1), 0);
			workload(mode);
			rp_debug_fail_none();
			cr_assert_eq(rp_debug_alloc_failures(), failures + 1,
				     "site %s was not reached again", rp_debug_alloc_site_name(k));
		}
	}
	cr_log_info("%u allocation sites failed in turn, in each mode", reached);
}

Test(fault, random_failures)
{
	for (uint64_t seed = 1; seed <= 20; seed++) {
		cr_assert_eq(rp_debug_fail_random(0.2, seed), 0);
		workload((enum rp_sync_mode)(seed % RP_SYNC_NR_MODES));
		rp_debug_fail_none();
	}
	cr_assert_gt(rp_debug_alloc_failures(), 0);
	cr_assert_eq(rp_debug_fail_random(0, 1), -EINVAL);
	cr_assert_eq(rp_debug_fail_site(MAX_SITES, 1), -EINVAL);
}

/* Fork until it fails: it must fail with EAGAIN, and the table stay sound. */
static void fork_until_eagain(struct rp_system *sys, struct rp_task *parent)
{
	struct rp_task *child;
	pid_t pid;

	while ((pid = rp_fork(parent, &child)) > 0) {
		rp_exit(child, 0);
		rp_task_put(child);
	}
	cr_assert_eq(pid, -EAGAIN);
	expect_consistent(sys);
	while (rp_wait4(parent, -1, NULL, 0, NULL) > 0)
		;
}

Test(fault, pid_exhaustion)
{
	struct rp_system *sys;
	struct rp_task *init;

	rp_thread_register();
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .mode = RP_SYNC_RCU,
				      .pid_max = 16 }, &sys), 0);
	init = rp_system_init(sys);
	fork_until_eagain(sys, init);
	cr_assert_eq(rp_system_set_pid_max(sys, 8), 0);
	fork_until_eagain(sys, init);
	expect_only_init_left(sys);
	rp_task_put(init);
	rp_system_destroy(sys);
	rp_thread_unregister();
}

Test(fault, rlimit_nproc)
{
	struct rlimit two = { 2, 2 };
	struct rp_system *sys;
	struct rp_task *init, *user;

	rp_thread_register();
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .mode = RP_SYNC_RCU }, &sys), 0);
	init = rp_system_init(sys);
	cr_assert_gt(rp_fork(init, &user), 0);
	cr_assert_eq(rp_setuid(user, 1000), 0);
	cr_assert_eq(rp_setrlimit(user, RLIMIT_NPROC, &two), 0);
	fork_until_eagain(sys, user);
	rp_exit(user, 0);
	rp_task_put(user);
	while (rp_wait4(init, -1, NULL, 0, NULL) > 0)
		;
	expect_only_init_left(sys);
	rp_task_put(init);
	rp_system_destroy(sys);
	rp_thread_unregister();
}
