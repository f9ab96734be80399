/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The workloads of process groups, sessions, priorities and timers: getpgid
 * lookups, killpg and session kill over a group of SIZE, setpriority on a
 * group, setpgid churn, timer_gettime; and the update-side scaling
 * workloads of fork and setpgid (workloads.h).
 */
#include <errno.h>
#include <stdlib.h>
#include "bench.h"
#include "workloads.h"

/* An ignored signal: the walk, the permission check and each member's siglock. */
#define GROUP_SIG	SIGURG

/*
 * A group (or session) of SIZE processes: a leader forked from init, its own
 * group (or session), and SIZE - 1 children that inherit it.  table_pids[0]
 * is the leader: the group's and the session's id.
 */
static int setup_group(struct bench_run *r, bool session)
{
	struct rp_task *leader;
	pid_t pid = rp_fork(r->init, &leader);
	int err;

	if (pid < 0)
		return pid;
	r->table_pids[r->nr_table++] = pid;
	err = session ? rp_setsid(leader) : rp_setpgid(leader, 0, 0);
	if (err >= 0)
		err = bench_fork_table(r, leader, r->cfg.size - 1);
	rp_task_put(leader);
	return err < 0 ? err : 0;
}

static int setup_pgrp(struct bench_run *r)
{
	return setup_group(r, false);
}

static int setup_session(struct bench_run *r)
{
	return setup_group(r, true);
}

static void op_getpgid(struct bench_thread *t)
{
	pid_t pid = bench_random_pid(t);

	if (bench_sampled(t)) {
		uint64_t t0 = bench_clock_ns();

		rp_getpgid(t->self, pid);
		bench_record(t, 0, bench_clock_ns() - t0);
	} else {
		rp_getpgid(t->self, pid);
	}
	t->kinds[0].ops++;
}

/* An operation on the whole group, every one timed. */
static void time_group_op(struct bench_thread *t, int (*fn)(struct rp_task *, pid_t))
{
	uint64_t t0 = bench_clock_ns();

	fn(t->self, t->run->table_pids[0]);
	bench_record(t, 0, bench_clock_ns() - t0);
	t->kinds[0].ops++;
}

static int killpg_ignored(struct rp_task *self, pid_t pgrp)
{
	return rp_killpg(self, pgrp, GROUP_SIG);
}

static int kill_session_ignored(struct rp_task *self, pid_t sid)
{
	return rp_kill_session(self, sid, GROUP_SIG);
}

/* Alternate nice 1 and 2: every call changes every member. */
static int renice_group(struct rp_task *self, pid_t pgrp)
{
	static __thread int nice;

	nice = nice == 1 ? 2 : 1;
	return rp_setpriority(self, PRIO_PGRP, pgrp, nice);
}

static void op_killpg(struct bench_thread *t)
{
	time_group_op(t, killpg_ignored);
}

static void op_kill_session(struct bench_thread *t)
{
	time_group_op(t, kill_session_ignored);
}

static void op_setpriority(struct bench_thread *t)
{
	time_group_op(t, renice_group);
}

/* setpgid churn: children of the thread's process move between groups. */
#define CHURN_CHILDREN	8

struct churn {
	pid_t children[CHURN_CHILDREN];
	pid_t home;			/* the parent's group */
};

/* The thread's churned children, each a process of @threads threads. */
static int churn_make(struct bench_thread *t, unsigned int threads)
{
	struct churn *c = calloc(1, sizeof(*c));
	struct rp_task *child, *thread;
	int err = 0;

	t->priv = c;
	if (!c)
		return -ENOMEM;
	c->home = rp_getpgid(t->self, 0);
	for (unsigned int i = 0; i < CHURN_CHILDREN; i++) {
		c->children[i] = rp_fork(t->self, &child);
		if (c->children[i] < 0)
			return c->children[i];
		for (unsigned int k = 1; k < threads; k++) {
			err = rp_clone(child, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, &thread);
			if (err < 0)
				break;
			rp_task_put(thread);
		}
		rp_task_put(child);
		if (err < 0)
			return err;
	}
	return 0;
}

static int churn_children(struct bench_thread *t)
{
	return churn_make(t, 1);
}

/* A child leads its own group on odd rounds and comes home on even ones. */
static void op_setpgid(struct bench_thread *t)
{
	struct churn *c = t->priv;
	pid_t child = c->children[t->iter % CHURN_CHILDREN];
	bool away = (t->iter / CHURN_CHILDREN) % 2 == 0;
	unsigned long shared[RP_SHARED_NR];
	uint64_t t0;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	rp_setpgid(t->self, child, away ? child : c->home);
	bench_record(t, 0, bench_clock_ns() - t0);
	bench_shared_end(t, 0, shared);
	t->kinds[0].ops++;
}

int bench_own_group(struct bench_thread *t)
{
	return rp_setpgid(t->self, 0, 0);
}

/* The thread's process leads a session of its own (and its group). */
static int own_session(struct bench_thread *t)
{
	pid_t sid = rp_setsid(t->self);

	return sid < 0 ? sid : 0;
}

/* The one group's leader is a child of init that does nothing else; its pgid is the run's priv. */
int bench_setup_one_group(struct bench_run *r)
{
	pid_t *pgid = malloc(sizeof(*pgid));

	r->priv = pgid;
	if (!pgid)
		return -ENOMEM;
	*pgid = rp_fork(r->init, NULL);
	return *pgid < 0 ? *pgid : rp_setpgid(r->init, *pgid, 0);
}

int bench_join_one_group(struct bench_thread *t)
{
	return rp_setpgid(t->self, 0, *(pid_t *)t->run->priv);
}

static int churn_own(struct bench_thread *t)
{
	int err = bench_own_group(t);

	return err ? err : churn_children(t);
}

/* Children of two threads each: a move takes T of both (pgrp/setpgid.c). */
static int churn_threaded(struct bench_thread *t)
{
	int err = bench_own_group(t);

	return err ? err : churn_make(t, 2);
}

static int churn_one_group(struct bench_thread *t)
{
	int err = bench_join_one_group(t);

	return err ? err : churn_children(t);
}

/* A CPU-time timer of the thread's process, armed far away. */
static int arm_timer(struct bench_thread *t)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct itimerspec in = { .it_value = { .tv_sec = 3600 } };
	int *id = calloc(1, sizeof(*id)), err;

	t->priv = id;
	if (!id)
		return -ENOMEM;
	err = rp_timer_create(t->self, CLOCK_PROCESS_CPUTIME_ID, &sev, id);
	return err ? err : rp_timer_settime(t->self, *id, 0, &in, NULL);
}

static void op_timer_gettime(struct bench_thread *t)
{
	struct itimerspec v;
	int *id = t->priv;

	if (bench_sampled(t)) {
		uint64_t t0 = bench_clock_ns();

		rp_timer_gettime(t->self, *id, &v);
		bench_record(t, 0, bench_clock_ns() - t0);
	} else {
		rp_timer_gettime(t->self, *id, &v);
	}
	t->kinds[0].ops++;
}

const struct bench_workload bench_getpgid = {
	.name = "getpgid", .summary = "getpgid(pid) of a random process",
	.kinds = { "getpgid" }, .sized = true, .unsynchronized_ok = true,
	.pid_max = RP_PID_MAX_LIMIT, .setup = bench_setup_table, .op = op_getpgid,
};

const struct bench_workload bench_killpg = {
	.name = "killpg", .summary = "killpg(pgrp, SIGURG) to a group of SIZE (ignored)",
	.kinds = { "killpg" }, .sized = true, .unsynchronized_ok = true,
	.setup = setup_pgrp, .op = op_killpg,
};

const struct bench_workload bench_kill_session = {
	.name = "kill_session", .summary = "SIGURG to a session of SIZE (the SAK path)",
	.kinds = { "kill session" }, .sized = true, .unsynchronized_ok = true,
	.setup = setup_session, .op = op_kill_session,
};

const struct bench_workload bench_setpriority = {
	.name = "setpriority", .summary = "setpriority(PRIO_PGRP) on a group of SIZE",
	.kinds = { "setpriority" }, .sized = true, .unsynchronized_ok = true,
	.setup = setup_pgrp, .op = op_setpriority,
};

const struct bench_workload bench_setpgid = {
	.name = "setpgid", .summary = "setpgid churn: children move between groups",
	.kinds = { "setpgid" }, .unsynchronized_ok = true,
	.thread_setup = churn_children, .op = op_setpgid,
};

const struct bench_workload bench_fork_own = {
	.name = "fork_own", .summary = "fork+exit+wait, each thread's process in its own group",
	.kinds = BENCH_PHASE_KINDS, .unsynchronized_ok = true, .scaling = true,
	.thread_setup = bench_own_group, .op = bench_fork_exit_reap_phases,
};

static void op_fork_exec_exit(struct bench_thread *t)
{
	bench_fork_exec_exit_reap(t, 0, 1);
}

const struct bench_workload bench_exec_own = {
	.name = "exec_own", .summary = "fork+exec+exit+wait, each thread's process in its own group",
	.kinds = { "exec", "fork+exec+exit+wait" }, .unsynchronized_ok = true, .scaling = true,
	.thread_setup = bench_own_group, .op = op_fork_exec_exit,
};

/* fork_own without the one session every other thread's process is in. */
const struct bench_workload bench_fork_ownsess = {
	.name = "fork_ownsess", .summary = "fork+exit+wait, each thread's process leading its own session",
	.kinds = BENCH_PHASE_KINDS, .unsynchronized_ok = true, .scaling = true,
	.thread_setup = own_session, .op = bench_fork_exit_reap_phases,
};

const struct bench_workload bench_fork_onepg = {
	.name = "fork_onepg", .summary = "fork+exit+wait, every thread's process in one group",
	.kinds = { "fork", "fork+exit+wait" }, .unsynchronized_ok = true, .scaling = true,
	.setup = bench_setup_one_group, .thread_setup = bench_join_one_group, .op = bench_op_fork_exit,
};

const struct bench_workload bench_setpgid_own = {
	.name = "setpgid_own", .summary = "setpgid churn, each thread's children between its group and theirs",
	.kinds = { "setpgid" }, .unsynchronized_ok = true, .scaling = true,
	.thread_setup = churn_own, .op = op_setpgid,
};

const struct bench_workload bench_setpgid_threads = {
	.name = "setpgid_threads",
	.summary = "setpgid_own's churn, each child a process of two threads",
	.kinds = { "setpgid" }, .unsynchronized_ok = true, .scaling = true,
	.thread_setup = churn_threaded, .op = op_setpgid,
};

const struct bench_workload bench_setpgid_onepg = {
	.name = "setpgid_onepg", .summary = "setpgid churn, the children between one shared group and theirs",
	.kinds = { "setpgid" }, .unsynchronized_ok = true, .scaling = true,
	.setup = bench_setup_one_group, .thread_setup = churn_one_group, .op = op_setpgid,
};

const struct bench_workload bench_timer_gettime = {
	.name = "timer_gettime", .summary = "timer_gettime of a CPU-time timer",
	.kinds = { "timer_gettime" }, .unsynchronized_ok = true,
	.thread_setup = arm_timer, .op = op_timer_gettime,
};
