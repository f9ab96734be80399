/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * killpg's cost per member in thread CPU time, beside wall time: on a
 * loaded machine a call of 50 ms over a million members is mostly time off
 * the CPU, which CLOCK_THREAD_CPUTIME_ID leaves out while it keeps the
 * cache and TLB misses.  For each SIZE: a group of SIZE processes (a
 * leader and SIZE - 1 children, as `rcuproc bench -w killpg` builds it),
 * then CALLS killpg(SIGURG) from init (ignored: the walk, the permission
 * check and each member's siglock), and the best call of each clock.
 * docs/performance.md, "killpg per member: where the time goes".
 *
 *   BUILD/bench/memory/killpg_cpu CALLS SIZE...   (built with the library)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <rcuproc/rcuproc.h>

static double clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* A group of @size under @init: its leader's pid, or -errno. */
static pid_t build_group(struct rp_task *init, long size)
{
	struct rp_task *leader;
	pid_t pgrp = rp_fork(init, &leader);
	int err = pgrp < 0 ? pgrp : rp_setpgid(leader, 0, 0);

	for (long i = 1; !err && i < size; i++)
		err = rp_fork(leader, NULL) < 0 ? -EAGAIN : 0;
	if (pgrp >= 0)
		rp_task_put(leader);
	return err ? err : pgrp;
}

static int measure(long calls, long size)
{
	struct rp_system_opts opts = { .mode = RP_SYNC_RCU, .pid_max = RP_PID_MAX_LIMIT };
	double best_cpu = 1e300, best_wall = 1e300;
	struct rp_system *sys;
	struct rp_task *init;
	pid_t pgrp;

	if (rp_system_create(&opts, &sys))
		return 1;
	init = rp_system_init(sys);
	pgrp = build_group(init, size);
	for (long c = 0; pgrp > 0 && c < calls; c++) {
		double wall = clock_ns(CLOCK_MONOTONIC), cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

		rp_killpg(init, pgrp, SIGURG);
		cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
		wall = clock_ns(CLOCK_MONOTONIC) - wall;
		best_cpu = cpu < best_cpu ? cpu : best_cpu;
		best_wall = wall < best_wall ? wall : best_wall;
	}
	if (pgrp > 0)
		printf("group of %ld: per member, best of %ld calls: cpu %.1f ns, wall %.1f ns\n",
		       size, calls, best_cpu / size, best_wall / size);
	rp_task_put(init);
	rp_system_destroy(sys);
	return pgrp > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int failed = argc < 3;

	rp_thread_register();
	for (int i = 2; i < argc && !failed; i++)
		failed = measure(atol(argv[1]), atol(argv[i]));
	rp_thread_unregister();
	if (failed)
		fprintf(stderr, "usage: killpg_cpu CALLS SIZE...; or a group could not be built\n");
	return failed;
}
