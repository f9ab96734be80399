/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Forward progress (I7): a fork/exit/reap storm from every core while the
 * deferred-free backlog is sampled.
 *
 * The bound.  Each fork/exit/reap cycle defers at most 5 frees in rcu mode
 * (task, pid, thread group, handler table, credentials).  liburcu's call_rcu
 * thread runs them after each grace period, and a grace period ends once
 * every reader has left the read section it was in: the storm's read
 * sections are a few list steps long.  So the backlog is what a few grace
 * periods' worth of cycles queue: measured, at most about 20000 on a 2-core
 * machine (docs/verification.md).  STORM_BOUND is 50 times that; exceeding
 * it means grace periods stopped completing (a reader stuck inside its read
 * section, a callback thread starved), not noise.  In the lock modes frees
 * run at once: the backlog is always 0.
 */
#include <errno.h>
#include <pthread.h>
#include <urcu/uatomic.h>
#include "../fixture/expect.h"

#define STORM_BOUND	(1UL << 20)
#define STORMERS	2

static struct rp_system *sys;
static int stop;

/* Fork a child, let it exit, reap it; again until told to stop. */
static void *stormer(void *arg)
{
	struct rp_task *parent = arg, *child;
	int status;

	rp_thread_register();
	while (!uatomic_read(&stop)) {
		pid_t pid = rp_fork(parent, &child);

		cr_assert_gt(pid, 0, "fork: %d", pid);
		rp_exit(child, 0);
		rp_task_put(child);
		cr_assert_eq(rp_wait4(parent, pid, &status, 0, NULL), pid);
	}
	rp_thread_unregister();
	return NULL;
}

static void storm(enum rp_sync_mode mode)
{
	struct rp_task *init, *parents[STORMERS];
	pthread_t threads[STORMERS];
	unsigned long max = 0;
	double end;

	rp_thread_register();
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .mode = mode }, &sys), 0);
	init = rp_system_init(sys);
	uatomic_set(&stop, 0);
	for (int i = 0; i < STORMERS; i++) {
		cr_assert_gt(rp_fork(init, &parents[i]), 0);
		pthread_create(&threads[i], NULL, stormer, parents[i]);
	}
	end = now_seconds() + test_seconds();
	while (now_seconds() < end) {
		unsigned long b = rp_deferred_backlog();

		max = b > max ? b : max;
		sleep_seconds(0.001);
	}
	uatomic_set(&stop, 1);
	for (int i = 0; i < STORMERS; i++) {
		pthread_join(threads[i], NULL);
		rp_exit(parents[i], 0);
		rp_task_put(parents[i]);
	}
	while (rp_wait4(init, -1, NULL, 0, NULL) > 0)
		;
	cr_log_info("%s: deferred backlog at most %lu", rp_sync_mode_name(mode), max);
	cr_assert_lt(max, STORM_BOUND, "backlog %lu", max);
	expect_only_init_left(sys);
	cr_assert_eq(rp_deferred_backlog(), 0);
	rp_task_put(init);
	rp_system_destroy(sys);
	rp_thread_unregister();
}

TEST_EACH_MODE(storm, storm)
