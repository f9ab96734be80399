/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Systems, pid numbers and the calling task's ids: init exists with pid 1 in
 * its own group and session; pids are allocated cyclically and wrap to 300 as
 * Linux's do; exhaustion is EAGAIN; credentials follow Linux's setuid rules.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include <rcuproc/version.h>
#include "task/task.h"

Test(system, bad_options_are_einval)
{
	struct rp_system *s;

	cr_assert_eq(rp_system_create(NULL, &s), -EINVAL);
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .mode = 7 }, &s), -EINVAL);
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .pid_max = 1 }, &s), -EINVAL);
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){
		.pid_max = RP_PID_MAX_LIMIT + 1 }, &s), -EINVAL);
}

/* A caller built with a later header: its struct is longer than ours. */
struct later_opts {
	struct rp_system_opts known;
	unsigned long unknown;
};

Test(system, opts_size_rules)
{
	struct later_opts later = { .known.size = sizeof(later) };
	struct rp_system *s;

	cr_assert_eq(rp_system_create(&(struct rp_system_opts){ .size = 4 }, &s), -EINVAL);
	cr_assert_eq(rp_system_create(&later.known, &s), 0, "unknown fields all zero");
	rp_system_destroy(s);
	later.unknown = 1;
	cr_assert_eq(rp_system_create(&later.known, &s), -E2BIG);
	cr_assert_eq(rp_system_create(&(struct rp_system_opts){
		.size = sizeof(struct rp_system_opts) }, &s), 0);
	rp_system_destroy(s);
}

Test(system, version)
{
	char expect[32];

	snprintf(expect, sizeof(expect), "%d.%d.%d", RCUPROC_VERSION_MAJOR,
		 RCUPROC_VERSION_MINOR, RCUPROC_VERSION_PATCH);
	cr_assert_str_eq(rp_version(), expect);
	cr_assert_str_eq(RCUPROC_VERSION_STRING, expect);
	cr_assert_gt(RCUPROC_VERSION_NUMBER, RCUPROC_VERSION(0, 1, 99));
}

Test(system, init_is_pid_1, .init = start_rcu, .fini = stop_system)
{

	cr_assert_eq(rp_getpid(init), 1);
	cr_assert_eq(rp_gettid(init), 1);
	cr_assert_eq(rp_getppid(init), 1);
	cr_assert_eq(init->signal->pgrp->nr, 1);
	cr_assert_eq(init->signal->session->nr, 1);
	cr_assert_eq(rp_getuid(init), 0);
	expect_only_init_left(sys);
}

/* Allocate @n pid numbers under the update lock; returns how many succeeded. */
static int alloc_pids(struct rp_pid **out, int n, int *err)
{
	int i;

	rp_update_lock(&sys->sync);
	for (i = 0; i < n; i++)
		if (!(out[i] = rp_pid_alloc(sys, err)))
			break;
	rp_update_unlock(&sys->sync);
	return i;
}

static void free_pids(struct rp_pid **pids, int n)
{
	rp_update_lock(&sys->sync);
	for (int i = 0; i < n; i++)
		rp_pid_detach(pids[i]);
	rp_update_unlock(&sys->sync);
}

/*
 * The task registry is sharded by task address (src/task/task.h): a task's
 * last put unlinks it from its shard whichever thread drops it, and
 * teardown finds every task still held in every shard.  Live children
 * held, reaped ones held, and reaped ones whose last put is another
 * thread's: after the teardown no object is left.
 */
#define REGISTRY_TASKS	300

static void *put_all(void *arg)
{
	struct rp_task **held = arg;

	rp_thread_register();
	for (int i = 0; i < REGISTRY_TASKS; i++)
		rp_task_put(held[i]);
	rp_thread_unregister();
	return NULL;
}

Test(system, teardown_finds_every_shard)
{
	static struct rp_task *reaped[2][REGISTRY_TASKS];
	unsigned long live = rp_debug_live_objects();
	pthread_t other;

	start_rcu();
	for (int i = 0; i < REGISTRY_TASKS; i++)
		(void)fork_of(init);	/* live, its handle never put */
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < REGISTRY_TASKS; i++) {
			pid_t pid;

			reaped[k][i] = fork_of(init);
			pid = rp_getpid(reaped[k][i]);
			cr_assert_eq(rp_exit_group(reaped[k][i], 0), 0);
			cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
		}
	}
	cr_assert_eq(pthread_create(&other, NULL, put_all, reaped[1]), 0);
	cr_assert_eq(pthread_join(other, NULL), 0);
	stop_system();	/* the live children and reaped[0] are still held */
	cr_expect_eq(rp_debug_live_objects(), live, "%lu objects left, %lu before",
		     rp_debug_live_objects(), live);
}

Test(pid, cyclic_allocation_and_lookup, .init = start_rcu, .fini = stop_system)
{
	struct rp_pid *p[3];
	int err = 0;

	cr_assert_eq(alloc_pids(p, 3, &err), 3);
	cr_assert_eq(p[0]->nr, 2);
	cr_assert_eq(p[1]->nr, 3);
	free_pids(&p[0], 1);
	cr_assert_eq(alloc_pids(&p[0], 1, &err), 1);
	cr_assert_eq(p[0]->nr, 5, "a freed number is not reused before the wrap");
	rp_read_lock(&sys->sync);
	cr_assert_eq(rp_pid_find_rcu(sys, 3), p[1]);
	cr_assert_null(rp_pid_find_rcu(sys, 2));
	cr_assert_null(rp_pid_find_rcu(sys, 0));
	cr_assert_null(rp_pid_find_rcu(sys, -5));
	cr_assert_eq(rp_find_task_rcu(sys, 1), init);
	rp_read_unlock(&sys->sync);
	free_pids(p, 3);
}

Test(pid, wraps_to_300)
{
	struct rp_pid *old[700], *new[300];
	int err = 0;

	start_with(RP_SYNC_QRWLOCK, 1000);
	cr_assert_eq(alloc_pids(old, 700, &err), 700);
	cr_assert_eq(old[699]->nr, 701);
	free_pids(old, 400);			/* frees 2..401 */
	cr_assert_eq(alloc_pids(new, 300, &err), 300);
	cr_assert_eq(new[0]->nr, 702);
	cr_assert_eq(new[297]->nr, 999);
	cr_assert_eq(new[298]->nr, 300, "after the wrap Linux starts at 300");
	cr_assert_eq(new[299]->nr, 301);
	free_pids(new, 300);
	free_pids(&old[400], 300);
	stop_system();
}

Test(pid, exhaustion_is_eagain)
{
	struct rp_pid *p[10];
	int err = 0;

	start_with(RP_SYNC_RWLOCK, 8);
	cr_assert_eq(alloc_pids(p, 10, &err), 6, "pids 2..7 with pid_max 8");
	cr_assert_eq(err, -EAGAIN);
	free_pids(p, 6);
	cr_assert_eq(rp_system_set_pid_max(sys, 1), -EINVAL);
	cr_assert_eq(rp_system_set_pid_max(sys, 16), 0);
	cr_assert_eq(alloc_pids(p, 10, &err), 10);
	free_pids(p, 10);
	stop_system();
}

Test(creds, setresuid_rules, .init = start_rcu, .fini = stop_system)
{
	cr_assert_eq(rp_cap_has(init, RP_CAP_KILL), 1);
	cr_assert_eq(rp_setresuid(init, 1000, 1000, 0), 0);
	cr_assert_eq(rp_cap_has(init, RP_CAP_KILL), 0, "euid left 0: effective set cleared");
	cr_assert_eq(rp_setresuid(init, 1001, -1, -1), -EPERM);
	cr_assert_eq(rp_setresuid(init, -1, 0, -1), 0, "saved uid 0 may come back");
	cr_assert_eq(rp_cap_has(init, RP_CAP_KILL), 1, "euid 0 again: effective restored");
	cr_assert_eq(rp_setuid(init, 1001), 0);
	cr_assert_eq(rp_getuid(init), 1001);
	cr_assert_eq(rp_geteuid(init), 1001);
	cr_assert_eq(rp_cap_has(init, RP_CAP_SETUID), 0, "all ids nonzero: no caps left");
	cr_assert_eq(rp_setuid(init, 0), -EPERM);
	cr_assert_eq(rp_cap_has(init, 64), -EINVAL);
}

Test(creds, cap_drop, .init = start_rcu, .fini = stop_system)
{
	cr_assert_eq(rp_cap_drop(init, RP_CAP_KILL), 0);
	cr_assert_eq(rp_cap_has(init, RP_CAP_KILL), 0);
	cr_assert_eq(rp_cap_has(init, RP_CAP_SYS_PTRACE), 1);
	cr_assert_eq(rp_cap_drop(init, -1), -EINVAL);
}

Test(rlimit, set_and_get, .init = start_rcu, .fini = stop_system)
{
	struct rlimit r = { 10, 20 }, got;

	cr_assert_eq(rp_setrlimit(init, RLIMIT_NPROC, &r), 0);
	cr_assert_eq(rp_getrlimit(init, RLIMIT_NPROC, &got), 0);
	cr_assert_eq(got.rlim_cur, 10);
	cr_assert_eq(got.rlim_max, 20);
	r = (struct rlimit){ 30, 20 };
	cr_assert_eq(rp_setrlimit(init, RLIMIT_NPROC, &r), -EINVAL, "cur above max");
	cr_assert_eq(rp_getrlimit(init, RLIM_NLIMITS, &got), -EINVAL);
	cr_assert_eq(rp_cap_drop(init, RP_CAP_SYS_RESOURCE), 0);
	r = (struct rlimit){ 10, 40 };
	cr_assert_eq(rp_setrlimit(init, RLIMIT_NPROC, &r), -EPERM, "raising max needs CAP_SYS_RESOURCE");
}

/*
 * Limits are shared copy-on-write: a child shares its parent's block until
 * either changes a limit, and a change is seen by nobody else.
 */
Test(rlimit, shared_until_changed, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *a = fork_of(init), *b = fork_of(init);
	struct rlimit r = { 10, 20 }, got;

	cr_assert_eq(a->signal->rlim, init->signal->rlim, "fork shares the block");
	cr_assert_eq(rp_setrlimit(a, RLIMIT_NOFILE, &r), 0);
	cr_assert_neq(a->signal->rlim, init->signal->rlim, "the first change copies");
	cr_assert_eq(b->signal->rlim, init->signal->rlim);
	cr_assert_eq(rp_getrlimit(b, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, RLIM_INFINITY, "a sibling keeps its limit");
	cr_assert_eq(rp_setrlimit(init, RLIMIT_NOFILE, &(struct rlimit){ 5, 6 }), 0);
	cr_assert_eq(rp_getrlimit(b, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, RLIM_INFINITY, "nor does the parent's change reach it");
	cr_assert_eq(rp_getrlimit(a, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, 10);
	cr_assert_eq(rp_getrlimit(init, RLIMIT_NICE, &got), 0);
	cr_assert_eq(got.rlim_max, 0, "init's own RLIMIT_NICE");
}

Test(prctl, options, .init = start_rcu, .fini = stop_system)
{
	int v = -1;

	cr_assert_eq(rp_prctl(init, PR_SET_PDEATHSIG, SIGUSR1), 0);
	cr_assert_eq(rp_prctl(init, PR_GET_PDEATHSIG, (unsigned long)&v), 0);
	cr_assert_eq(v, SIGUSR1);
	cr_assert_eq(rp_prctl(init, PR_SET_PDEATHSIG, 65), -EINVAL);
	cr_assert_eq(rp_prctl(init, PR_SET_CHILD_SUBREAPER, 1), 0);
	cr_assert_eq(rp_prctl(init, PR_GET_CHILD_SUBREAPER, (unsigned long)&v), 0);
	cr_assert_eq(v, 1);
	cr_assert_eq(rp_prctl(init, PR_GET_DUMPABLE, 0), 1);
	cr_assert_eq(rp_prctl(init, PR_SET_DUMPABLE, 2), -EINVAL);
	cr_assert_eq(rp_prctl(init, PR_SET_DUMPABLE, 0), 0);
	cr_assert_eq(rp_prctl(init, PR_GET_DUMPABLE, 0), 0);
	cr_assert_eq(rp_prctl(init, 12345, 0), -EINVAL);
}
