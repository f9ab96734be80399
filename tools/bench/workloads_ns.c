/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * kill0_ns: kill(pid, 0) of the same processes by the number each caller
 * sees, from the root namespace, from a namespace at level 1 and from one
 * at level 2 (the processes' own), in one run: what a lookup in a nested
 * namespace costs over one in the root (docs/namespaces.md).  fork_ns:
 * fork+exit+wait inside a namespace of each thread's own.  fork_ns_tree:
 * in such a namespace, a member that exits with a child, which goes to
 * the namespace's init.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <urcu/arch.h>
#include "bench.h"
#include "workloads.h"

/* The levels compared, the kinds in that order: the root, 1 and 2. */
#define NS_LEVELS	3
/* Lookups timed together: the clock would cost as much as one. */
#define NS_BATCH	32

/*
 * The run's (its priv, one block that the run frees): each table
 * process's number at each level, and each thread's callers.
 */
struct ns_table {
	pid_t *nr[NS_LEVELS];			/* nr[level][i], one process i */
	unsigned long n;
	struct rp_task *caller[BENCH_MAX_THREADS][NS_LEVELS - 1];	/* level 1, level 2 */
	pid_t numbers[];			/* where nr[] point */
};

/*
 * Each process of the table with its three numbers, read as the root sees
 * the processes: those at level 2 that are not its init.
 */
static int collect_numbers(struct bench_run *r, struct ns_table *nt)
{
	long n = rp_ps_snapshot(r->init, NULL, 0);
	struct rp_ps_entry *rows = n > 0 ? calloc((size_t)n, sizeof(*rows)) : NULL;

	if (!rows)
		return -ENOMEM;
	n = rp_ps_snapshot(r->init, rows, (size_t)n);
	for (long i = 0; i < n; i++) {
		pid_t nspid[NS_LEVELS + 1];

		if (rp_proc_nspid(r->init, rows[i].pid, nspid, NS_LEVELS + 1) != NS_LEVELS ||
		    nspid[NS_LEVELS - 1] == 1 || nt->n == r->cfg.size)
			continue;
		for (unsigned int l = 0; l < NS_LEVELS; l++)
			nt->nr[l][nt->n] = nspid[l];
		nt->n++;
	}
	free(rows);
	return nt->n == r->cfg.size ? 0 : -ESRCH;
}

/*
 * init clones the level-1 namespace's init, that one the level-2
 * namespace's, which forks the table; then each thread's two callers, a
 * child of each namespace's init (made here, not by the threads: only
 * this thread drives the inits).
 */
static int setup_nested(struct bench_run *r)
{
	struct ns_table *nt = calloc(1, sizeof(*nt) + NS_LEVELS * r->cfg.size * sizeof(pid_t));
	struct rp_task *init1 = NULL, *init2 = NULL;
	int err = nt ? 0 : -ENOMEM;

	for (unsigned int l = 0; !err && l < NS_LEVELS; l++)
		nt->nr[l] = nt->numbers + l * r->cfg.size;
	if (!err && rp_clone(r->init, CLONE_NEWPID | SIGCHLD, &init1) < 0)
		err = -EAGAIN;
	if (!err && rp_clone(init1, CLONE_NEWPID | SIGCHLD, &init2) < 0)
		err = -EAGAIN;
	if (!err)
		err = bench_fork_table(r, init2, r->cfg.size);
	if (!err)
		err = collect_numbers(r, nt);
	for (unsigned int i = 0; !err && i < r->cfg.threads; i++) {
		pid_t a = rp_fork(init1, &nt->caller[i][0]);
		pid_t b = a < 0 ? a : rp_fork(init2, &nt->caller[i][1]);

		err = b < 0 ? b : 0;
	}
	/* Every number names its process to the caller of its level: else nothing is measured. */
	for (unsigned long i = 0; !err && i < nt->n; i++)
		for (unsigned int l = 0; !err && l < NS_LEVELS; l++)
			if (rp_kill(l ? nt->caller[0][l - 1] : r->init, nt->nr[l][i], 0))
				err = -ESRCH;
	if (init1)
		rp_task_put(init1);
	if (init2)
		rp_task_put(init2);
	if (err) {
		free(nt);	/* the callers go with the system */
		return err;
	}
	r->priv = nt;
	return 0;
}

/* The caller at @level for thread @t. */
static struct rp_task *caller_at(struct bench_thread *t, unsigned int level)
{
	struct ns_table *nt = t->run->priv;

	return level ? nt->caller[t->index][level - 1] : t->self;
}

static inline void lookups(struct rp_task *self, const pid_t *pid)
{
	for (unsigned int i = 0; i < NS_BATCH; i++)
		rp_kill(self, pid[i], 0);
}

/*
 * One function per level, so that callgrind counts each level's
 * instructions apart (callgrind_annotate --inclusive=yes: docs/namespaces.md).
 */
static __attribute__((noinline)) void lookups_root(struct rp_task *self, const pid_t *pid)
{
	lookups(self, pid);
}

static __attribute__((noinline)) void lookups_level1(struct rp_task *self, const pid_t *pid)
{
	lookups(self, pid);
}

static __attribute__((noinline)) void lookups_level2(struct rp_task *self, const pid_t *pid)
{
	lookups(self, pid);
}

static void (*const lookups_at[NS_LEVELS])(struct rp_task *, const pid_t *) = {
	lookups_root, lookups_level1, lookups_level2,
};

/* A batch of kill(pid, 0) at one level, the levels in turn: each lookup's mean time. */
static void op_kill0_ns(struct bench_thread *t)
{
	struct ns_table *nt = t->run->priv;
	unsigned int level = (unsigned int)(t->iter % NS_LEVELS);
	pid_t pid[NS_BATCH];
	uint64_t t0;

	for (unsigned int i = 0; i < NS_BATCH; i++)
		pid[i] = nt->nr[level][rng_next(&t->rng) % nt->n];
	t0 = bench_clock_ns();
	lookups_at[level](caller_at(t, level), pid);
	bench_record(t, level, (bench_clock_ns() - t0) / NS_BATCH);
	t->kinds[level].ops += NS_BATCH;
}

/* The callers of the thread: its handles given back; the run's numbers freed at the end. */
static void end_kill0_ns(struct bench_thread *t)
{
	struct ns_table *nt = t->run->priv;

	for (unsigned int l = 0; nt && l < NS_LEVELS - 1; l++)
		rp_task_put(nt->caller[t->index][l]);
}

const struct bench_workload bench_kill0_ns = {
	.name = "kill0_ns",
	.summary = "kill(pid, 0) of processes of a level-2 namespace from the root, level 1, level 2",
	.kinds = { "kill0 root", "kill0 level1", "kill0 level2" },
	/* Each thread's two callers take a pid each, as children held would. */
	.sized = true, .extra_pids = 2, .children_in_run = 2,
	.pid_max = RP_PID_MAX_LIMIT, .setup = setup_nested, .op = op_kill0_ns,
	.thread_end = end_kill0_ns,
};

/* fork_ns's per thread: the namespace's init, kept for the run, and its number as the thread's process sees it. */
struct ns_home {
	struct rp_task *init;
	pid_t nr;
};

/*
 * fork_ns: each thread's process, in a group of its own, unshares its pid
 * namespace and forks the namespace's init, which waits out the run; the
 * cycle's children are then numbered in the namespace (2, 3, ...): a fork
 * into a namespace that does not make its init.
 */
static int setup_fork_ns(struct bench_thread *t)
{
	struct ns_home *h = calloc(1, sizeof(*h));
	int err = h ? bench_own_group(t) : -ENOMEM;

	if (!err)
		err = rp_unshare(t->self, CLONE_NEWPID);
	if (!err) {
		h->nr = rp_fork(t->self, &h->init);
		err = h->nr < 0 ? h->nr : 0;
	}
	if (err) {
		free(h);
		return err;
	}
	t->priv = h;
	return 0;
}

/* The namespace's init ends, and the thread's process reaps it. */
static void end_fork_ns(struct bench_thread *t)
{
	struct ns_home *h = t->priv;

	if (!h)
		return;
	rp_exit_group(h->init, 0);
	rp_wait4(t->self, h->nr, NULL, 0, NULL);
	rp_task_put(h->init);
	free(h);
	t->priv = NULL;
}

const struct bench_workload bench_fork_ns = {
	.name = "fork_ns",
	.summary = "fork+exit+wait in a pid namespace of each thread's own (a container's forks)",
	.kinds = { "fork", "fork+exit+wait" }, .scaling = true, .children_in_run = 2,
	.thread_setup = setup_fork_ns, .op = bench_op_fork_exit, .thread_end = end_fork_ns,
};

/*
 * fork_ns_tree: the namespace's init forks C, C forks G; C exits first
 * (G goes to init, its reaper), init reaps C, then G exits and init
 * reaps it.  One kind, the cycle, whose shared writes it counts.
 */
static void op_fork_ns_tree(struct bench_thread *t)
{
	struct ns_home *h = t->priv;
	unsigned long shared[RP_SHARED_NR];
	struct rp_task *c, *g;
	pid_t cnr, gnr;
	uint64_t t0;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	cnr = rp_fork(h->init, &c);
	if (cnr < 0)
		return;		/* EAGAIN at pid_max: nothing counted */
	gnr = rp_fork(c, &g);
	rp_exit(c, 0);
	rp_task_put(c);
	rp_wait4(h->init, cnr, NULL, 0, NULL);
	if (gnr < 0)
		return;
	rp_exit(g, 0);
	rp_task_put(g);
	rp_wait4(h->init, gnr, NULL, 0, NULL);
	bench_shared_end(t, 0, shared);
	bench_record(t, 0, bench_clock_ns() - t0);
	t->kinds[0].ops++;
}

/* Each thread's namespace as fork_ns's; its init, C and G in the run. */
const struct bench_workload bench_fork_ns_tree = {
	.name = "fork_ns_tree", .kinds = { "fork+fork+exit+exit+wait+wait" },
	.summary = "in a pid namespace of each thread's own, a child with a grandchild exits first; "
		   "init reaps both",
	.thread_setup = setup_fork_ns, .op = op_fork_ns_tree, .thread_end = end_fork_ns,
	.scaling = true, .children_in_run = 3,
};
