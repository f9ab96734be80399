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
#include "../fixture/nomem.h"
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

/* The limits block @t's group reads (rp_task_rlimit's). */
static const struct rp_rlimits *rlim_block(struct rp_task *t)
{
	return t->signal->extra ? t->signal->extra->rlim : &rp_default_rlimits;
}

/*
 * Limits are shared copy-on-write: a child shares its parent's block until
 * either changes a limit, and a change is seen by nobody else.
 */
Test(rlimit, shared_until_changed, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *a = fork_of(init), *b = fork_of(init), *c;
	struct rlimit r = { 10, 20 }, got;

	cr_assert_eq(rlim_block(a), rlim_block(init), "fork shares the block");
	cr_assert_eq(rp_setrlimit(a, RLIMIT_NOFILE, &r), 0);
	cr_assert_neq(rlim_block(a), rlim_block(init), "the first change copies");
	cr_assert_eq(rlim_block(b), rlim_block(init));
	cr_assert_eq(rp_getrlimit(b, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, RLIM_INFINITY, "a sibling keeps its limit");
	cr_assert_eq(rp_setrlimit(init, RLIMIT_NOFILE, &(struct rlimit){ 5, 6 }), 0);
	cr_assert_eq(rp_getrlimit(b, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, RLIM_INFINITY, "nor does the parent's change reach it");
	cr_assert_eq(rp_getrlimit(a, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, 10);
	c = fork_of(init);
	cr_assert_eq(rlim_block(c), rlim_block(init), "a fork shares a changed block too");
	cr_assert_eq(rp_getrlimit(c, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, 5);
	cr_assert_eq(rp_getrlimit(init, RLIMIT_NICE, &got), 0);
	cr_assert_eq(got.rlim_max, 0, "init's RLIMIT_NICE, as Linux boots with");
}

/*
 * The group's rarely used state (struct rp_signal_extra) is allocated by
 * its first use only: a fork of a process that changed no limit, a
 * single-threaded exec and a thread's clone allocate none.
 */
Test(extra, none_until_first_use, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *a = fork_of(init), *t;
	struct rlimit got;

	cr_assert_null(init->signal->extra, "init changed no limit");
	cr_assert_null(a->signal->extra, "a fork of it has none either");
	cr_assert_eq(rp_getrlimit(a, RLIMIT_CORE, &got), 0);
	cr_assert_eq(got.rlim_cur, 0, "the default limits: no core files");
	cr_assert_eq(got.rlim_max, RLIM_INFINITY);
	cr_assert_eq(rp_execve(a, "single"), 0);
	cr_assert_null(a->signal->extra, "an exec with no other thread claims nothing");
	t = thread_of(a);
	cr_assert_null(a->signal->extra, "nor does a thread");
	cr_assert_eq(rp_setrlimit(t, RLIMIT_NOFILE, &(struct rlimit){ 7, 8 }), 0);
	cr_assert_not_null(a->signal->extra, "a changed limit is the first use");
	cr_assert_eq(rp_getrlimit(a, RLIMIT_NOFILE, &got), 0);
	cr_assert_eq(got.rlim_cur, 7, "the group's, seen by each thread");
}

/*
 * The allocation site of the groups' ->extra: the one site that both the
 * first setrlimit of @p (which also copies the limits block) and a fork of
 * @p then (which shares that block) reach.  Leaves @p with limits of its
 * own and a child, returned in *@child.
 */
static unsigned int extra_site(struct rp_task *p, struct rp_task **child)
{
	static unsigned long before[MAX_SITES], set[MAX_SITES], forked[MAX_SITES];
	unsigned int n0, n1, n2, found = MAX_SITES;

	n0 = site_calls(before, MAX_SITES);
	cr_assert_eq(rp_setrlimit(p, RLIMIT_NOFILE, &(struct rlimit){ 9, 9 }), 0);
	n1 = site_calls(set, MAX_SITES);
	*child = fork_of(p);
	n2 = site_calls(forked, MAX_SITES);
	for (unsigned int k = 0; k < n2; k++) {
		bool by_set = k < n1 && set[k] != (k < n0 ? before[k] : 0);
		bool by_fork = forked[k] != (k < n1 ? set[k] : 0);

		if (by_set && by_fork) {
			cr_assert_eq(found, MAX_SITES, "two sites reached by both");
			found = k;
		}
	}
	cr_assert_neq(found, MAX_SITES, "no site reached by both");
	return found;
}

/*
 * A fork of a process with limits of its own allocates the child's
 * ->extra to share them: out of memory, the fork fails with -ENOMEM and
 * leaves nothing behind; the next one succeeds.
 */
Test(extra, fork_of_own_limits_without_memory, .init = start_rcu, .fini = finish)
{
	struct rp_task *p = fork_of(init), *c, *d;
	unsigned int site = extra_site(p, &c);
	struct rlimit got;

	cr_assert_not_null(c->signal->extra);
	end_child(p, c);
	expect_fork_without_memory(p, site);
	d = fork_of(p);
	cr_assert_eq(rp_getrlimit(d, RLIMIT_NOFILE, &got), 0);
	cr_expect_eq(got.rlim_cur, 9, "the child has its parent's limits");
	end_child(p, d);
	end_child(init, p);
}

/*
 * setrlimit's first change allocates the group's ->extra: out of memory,
 * -ENOMEM and the limit unchanged.
 */
Test(extra, setrlimit_without_memory, .init = start_rcu, .fini = finish)
{
	struct rp_task *p = fork_of(init);
	struct rlimit got;

	cr_assert_eq(rp_debug_fail_random(1, 1), 0);
	cr_expect_eq(rp_setrlimit(p, RLIMIT_NOFILE, &(struct rlimit){ 3, 3 }), -ENOMEM);
	rp_debug_fail_none();
	cr_expect_null(p->signal->extra, "a failed first use leaves none");
	cr_assert_eq(rp_getrlimit(p, RLIMIT_NOFILE, &got), 0);
	cr_expect_eq(got.rlim_cur, RLIM_INFINITY, "and the limit unchanged");
	end_child(init, p);
}

/*
 * A multithreaded exec claims the exec in the group's ->extra before it
 * kills the other threads: out of memory, -ENOMEM with nothing done (the
 * other thread not killed); the group lives on and can exec later.
 */
Test(extra, multithreaded_exec_without_memory, .init = start_rcu, .fini = finish)
{
	struct rp_task *p = fork_of(init), *c, *t;
	unsigned int site = extra_site(p, &c);
	unsigned long failures;

	end_child(p, c);
	end_child(init, p);
	p = fork_of(init);
	t = thread_of(p);
	cr_assert_null(p->signal->extra);
	failures = rp_debug_alloc_failures();
	cr_assert_eq(rp_debug_fail_site(site, 1), 0);
	cr_expect_eq(rp_execve(p, "claim"), -ENOMEM);
	rp_debug_fail_none();
	cr_expect_eq(rp_debug_alloc_failures(), failures + 1, "the ->extra's site failed");
	cr_expect(!is_pending(t, SIGKILL), "the other thread was not killed");
	cr_expect_null(p->signal->extra, "and no claim was stored");
	end_task(t);
	cr_expect_eq(rp_execve(p, "alone"), 0, "once alone, the exec needs no memory");
	end_child(init, p);
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
