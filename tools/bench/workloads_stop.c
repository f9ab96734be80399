/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job-control stop and continue, an update-side scaling workload
 * (workloads.h): each thread's process, in a group of its own, forks a
 * child, stops it with SIGSTOP, waits for the stop (WUNTRACED), continues
 * it with SIGCONT, waits for the continue (WCONTINUED), kills it and reaps
 * it.  The child's stop and its death need it to run: an OS thread of the
 * bench plays it, taking its signals once for each hand-over (the stop,
 * which sleeps until SIGCONT, and then the SIGKILL).
 *
 * An exec of a process of two threads (thread_exec): each thread's
 * process clones a second thread and execs; de_thread kills that thread
 * and waits for its release, which the same OS thread plays: handed the
 * thread before the exec, it takes its signals until the exec's kill
 * ends it.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <urcu/system.h>
#include "bench.h"
#include "workloads.h"

struct stopper {
	pthread_t thread;
	bool started;			/* the child's thread runs: stopper_end joins it */
	struct rp_task *child;		/* the child the next hand-over is for; NULL: end */
	bool until_dead;		/* each hand-over: signals until the child dies */
	sem_t handed, taken;		/* a hand-over, and the child's signals taken */
	/* The child thread's shared writes; read after the join. */
	unsigned long shared[RP_SHARED_NR];
};

/* The child's user space: one rp_get_signal per hand-over, counted. */
static void *child_main(void *arg)
{
	struct stopper *s = arg;
	struct rp_task *child;
	siginfo_t info;

	rp_thread_register();
	for (;;) {
		unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR];

		rp_thread_offline();	/* QSBR: no grace period waits for it meanwhile */
		while (sem_wait(&s->handed) != 0)
			;	/* EINTR */
		rp_thread_online();
		/* Pairs with the store before sem_post in hand_over (the post orders it). */
		child = CMM_LOAD_SHARED(s->child);
		if (!child)
			break;
		rp_debug_shared_writes(before);
		/* A thread the exec is about to kill: yields until the kill comes. */
		while (rp_get_signal(child, &info) >= 0 && s->until_dead)
			sched_yield();
		rp_debug_shared_writes(after);
		for (unsigned int k = 0; k < RP_SHARED_NR; k++)
			s->shared[k] += after[k] - before[k];
		sem_post(&s->taken);
	}
	rp_thread_unregister();
	return NULL;
}

static void hand_over(struct stopper *s, struct rp_task *child)
{
	CMM_STORE_SHARED(s->child, child);
	sem_post(&s->handed);
}

/* Until the child's thread has taken what the last hand-over sent. */
static void await_taken(struct stopper *s)
{
	while (sem_wait(&s->taken) != 0)
		;	/* EINTR */
}

static int stopper_setup(struct bench_thread *t)
{
	struct stopper *s = calloc(1, sizeof(*s));
	int err;

	t->priv = s;
	if (!s)
		return -ENOMEM;
	err = bench_own_group(t);
	if (err)
		return err;
	sem_init(&s->handed, 0, 0);
	sem_init(&s->taken, 0, 0);
	err = pthread_create(&s->thread, NULL, child_main, s);
	s->started = err == 0;
	return -err;
}

/* The run is over: end the child's thread, and count its writes with the parent's. */
static void stopper_end(struct bench_thread *t)
{
	struct stopper *s = t->priv;

	if (!s || !s->started)
		return;
	hand_over(s, NULL);
	pthread_join(s->thread, NULL);
	sem_destroy(&s->handed);
	sem_destroy(&s->taken);
	for (unsigned int k = 0; k < RP_SHARED_NR; k++)
		t->shared[0][k] += s->shared[k];
}

/* fork, SIGSTOP, wait4(WUNTRACED), SIGCONT, wait4(WCONTINUED), SIGKILL, wait4. */
static void op_stop_cont(struct bench_thread *t)
{
	struct stopper *s = t->priv;
	unsigned long shared[RP_SHARED_NR];
	struct rp_task *child;
	uint64_t t0;
	int status;
	pid_t pid;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	pid = rp_fork(t->self, &child);
	if (pid < 0)
		return;		/* not counted */
	rp_kill(t->self, pid, SIGSTOP);
	hand_over(s, child);	/* it stops, and sleeps until SIGCONT */
	rp_wait4(t->self, pid, &status, WUNTRACED, NULL);
	rp_kill(t->self, pid, SIGCONT);
	rp_wait4(t->self, pid, &status, WCONTINUED, NULL);
	await_taken(s);
	rp_kill(t->self, pid, SIGKILL);
	hand_over(s, child);	/* it dies */
	rp_wait4(t->self, pid, &status, 0, NULL);
	await_taken(s);		/* out of rp_get_signal: the last reference may go */
	rp_task_put(child);
	bench_record(t, 0, bench_clock_ns() - t0);
	bench_shared_end(t, 0, shared);
	t->kinds[0].ops++;
}

const struct bench_workload bench_stop_own = {
	.name = "stop_own",
	.summary = "fork, SIGSTOP, WUNTRACED wait, SIGCONT, WCONTINUED wait, SIGKILL, reap; "
		   "each thread in its own group",
	.kinds = { "stop+cont cycle" }, .scaling = true, .children_in_run = 1,
	.thread_setup = stopper_setup, .op = op_stop_cont, .thread_end = stopper_end,
};

static int exec_setup(struct bench_thread *t)
{
	int err = stopper_setup(t);

	if (t->priv)
		((struct stopper *)t->priv)->until_dead = true;
	return err;
}

/* clone(CLONE_THREAD), then execve: the exec kills the thread and waits for its release. */
static void op_thread_exec(struct bench_thread *t)
{
	struct stopper *s = t->priv;
	unsigned long shared[RP_SHARED_NR];
	struct rp_task *thread;
	uint64_t t0, t1;

	t0 = bench_clock_ns();
	if (rp_clone(t->self, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, &thread) < 0)
		return;		/* EAGAIN at pid_max: nothing counted */
	hand_over(s, thread);	/* it runs until the exec's kill */
	bench_shared_begin(shared);
	t1 = bench_clock_ns();
	rp_execve(t->self, "bench");
	bench_record(t, 0, bench_clock_ns() - t1);
	bench_shared_end(t, 0, shared);
	await_taken(s);		/* out of rp_get_signal: the last reference may go */
	rp_task_put(thread);
	t->kinds[0].ops++;
	t->kinds[1].ops++;
	bench_record(t, 1, bench_clock_ns() - t0);
}

const struct bench_workload bench_thread_exec = {
	.name = "thread_exec",
	.summary = "clone a thread, then execve (de_thread kills it and waits for its release); "
		   "each thread's process in its own group",
	.kinds = { "exec of 2 threads", "clone+exec" }, .scaling = true, .children_in_run = 1,
	.thread_setup = exec_setup, .op = op_thread_exec, .thread_end = stopper_end,
};
