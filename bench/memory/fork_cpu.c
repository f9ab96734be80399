/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fork+exit+wait's cost in thread CPU time, rcu against rcu-global against
 * rwlock, one thread: `rcuproc bench -w fork_exit` times the wall clock, and
 * on a shared machine a mode measured while another program had the CPU
 * looks slow.  CLOCK_THREAD_CPUTIME_ID leaves the time off the CPU out and
 * keeps the cache misses and the system calls (a grace period's membarrier).
 * Each round runs the three modes one after the other, each in a table of
 * its own: WARM cycles first (the caches and the reclaim batch reach their
 * steady state), then CYCLES timed ones; the ratios are of the same round.
 * docs/performance.md, "fork+exit+wait with the update gate".
 *
 *   BUILD/bench/memory/fork_cpu CYCLES ROUNDS   (built with the library)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <rcuproc/rcuproc.h>

#define WARM	20000

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* @n fork+exit+wait cycles of init's; 0, or 1 if a fork failed. */
static int cycles(struct rp_task *init, long n)
{
	struct rp_task *child;
	int status;

	for (long i = 0; i < n; i++) {
		pid_t pid = rp_fork(init, &child);

		if (pid < 0)
			return 1;
		rp_exit(child, 0);
		rp_task_put(child);
		rp_wait4(init, pid, &status, 0, NULL);
	}
	return 0;
}

/* CPU ns per cycle in @mode, or a negative number if it could not run. */
static double measure(enum rp_sync_mode mode, long n)
{
	struct rp_system_opts opts = { .mode = mode };
	struct rp_system *sys;
	struct rp_task *init;
	double t = -1;

	if (rp_system_create(&opts, &sys))
		return -1;
	init = rp_system_init(sys);
	if (!cycles(init, WARM)) {
		t = cpu_ns();
		t = cycles(init, n) ? -1 : (cpu_ns() - t) / n;
	}
	rp_task_put(init);
	rp_system_destroy(sys);
	return t;
}

int main(int argc, char **argv)
{
	long n = argc == 3 ? atol(argv[1]) : 0;
	int rounds = argc == 3 ? atoi(argv[2]) : 0;
	int failed = n <= 0 || rounds <= 0;

	if (failed) {
		fprintf(stderr, "usage: fork_cpu CYCLES ROUNDS\n");
		return 2;
	}
	rp_thread_register();
	printf("round  rcu ns  rcu-global ns  rwlock ns  rcu/rwlock  rcu/rcu-global\n");
	for (int r = 0; r < rounds && !failed; r++) {
		double rcu = measure(RP_SYNC_RCU, n);
		double global = measure(RP_SYNC_RCU_GLOBAL, n);
		double rw = measure(RP_SYNC_RWLOCK, n);

		failed = rcu < 0 || global < 0 || rw < 0;
		if (!failed)
			printf("%5d %7.0f %14.0f %10.0f %11.2f %15.2f\n", r, rcu, global, rw,
			       rcu / rw, rcu / global);
	}
	rp_thread_unregister();
	if (failed)
		fprintf(stderr, "fork_cpu: a table could not be made or a fork failed\n");
	return failed;
}
