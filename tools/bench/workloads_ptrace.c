/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ptrace attach and detach, an update-side scaling workload (workloads.h):
 * each thread's process attaches to a child of its own, waits for its stop
 * and detaches; ptrace_threads the same with the second thread of a child
 * of two threads; ptrace_requests adds the requests on a stopped tracee
 * between the two (a seize, two traps, the requests of a debugger in
 * each, a detach); ptrace_eventmsg makes one request, PTRACE_GETEVENTMSG,
 * on a tracee that stays in its trap for the whole run.  A stop needs the tracee to run: an OS thread of the
 * bench's plays it, calling rp_get_signal once each time the tracer has
 * attached (the SIGSTOP that PTRACE_ATTACH sends stops it there, and the
 * detach lets it go on).
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <urcu/system.h>
#include "bench.h"
#include "workloads.h"

struct tracee {
	struct rp_task *task;
	pid_t pid;
	pthread_t thread;
	bool started;			/* thread runs: tracee_stop joins it */
	sem_t go;			/* posted once per attach, and at the end */
	int end;			/* CMM_STORE_SHARED before the last post */
	bool trapped;			/* seized and in its trap: tracee_release detaches */
	/* The tracee thread's shared writes in rp_get_signal; read after the join. */
	unsigned long shared[RP_SHARED_NR];
};

static void *tracee_main(void *arg)
{
	struct tracee *tr = arg;
	siginfo_t info;

	rp_thread_register();
	for (;;) {
		unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR];

		/* Offline while it waits: under QSBR it would hold up grace periods. */
		rp_thread_offline();
		while (sem_wait(&tr->go) != 0)
			;	/* EINTR */
		rp_thread_online();
		/* Pairs with CMM_STORE_SHARED of end in tracee_stop (the post orders it). */
		if (CMM_LOAD_SHARED(tr->end))
			break;
		rp_debug_shared_writes(before);
		rp_get_signal(tr->task, &info);
		rp_debug_shared_writes(after);
		for (unsigned int k = 0; k < RP_SHARED_NR; k++)
			tr->shared[k] += after[k] - before[k];
	}
	rp_thread_unregister();
	return NULL;
}

/*
 * The tracee: a child of the thread's process; with @threaded, that
 * child's second thread (the child's leader stays, and ends with the run).
 */
static int tracee_start(struct bench_thread *t, int (*group)(struct bench_thread *), bool threaded)
{
	struct tracee *tr = calloc(1, sizeof(*tr));
	struct rp_task *child;
	int err;

	t->priv = tr;
	if (!tr)
		return -ENOMEM;
	err = group(t);
	if (err)
		return err;
	tr->pid = rp_fork(t->self, &tr->task);
	if (tr->pid < 0)
		return tr->pid;
	if (threaded) {
		child = tr->task;
		tr->pid = rp_clone(child, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, &tr->task);
		rp_task_put(child);
		if (tr->pid < 0) {
			tr->task = NULL;
			return tr->pid;
		}
	}
	sem_init(&tr->go, 0, 0);
	err = pthread_create(&tr->thread, NULL, tracee_main, tr);
	tr->started = err == 0;
	return -err;
}

static int tracee_own(struct bench_thread *t)
{
	return tracee_start(t, bench_own_group, false);
}

static int tracee_one_group(struct bench_thread *t)
{
	return tracee_start(t, bench_join_one_group, false);
}

static int tracee_thread(struct bench_thread *t)
{
	return tracee_start(t, bench_own_group, true);
}

/* The run is over: end the tracee thread, and count its writes with the tracer's. */
static void tracee_stop(struct bench_thread *t)
{
	struct tracee *tr = t->priv;

	if (!tr)
		return;
	if (tr->started) {
		CMM_STORE_SHARED(tr->end, 1);
		sem_post(&tr->go);
		pthread_join(tr->thread, NULL);
		sem_destroy(&tr->go);
	}
	for (unsigned int k = 0; k < RP_SHARED_NR; k++)
		t->shared[0][k] += tr->shared[k];
	if (tr->task)
		rp_task_put(tr->task);
}

/* PTRACE_ATTACH, the stop (the tracee thread takes the SIGSTOP), PTRACE_DETACH. */
static void op_attach_detach(struct bench_thread *t)
{
	struct tracee *tr = t->priv;
	unsigned long shared[RP_SHARED_NR];
	uint64_t t0;
	int status;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	if (rp_ptrace(t->self, PTRACE_ATTACH, tr->pid, NULL, NULL) != 0)
		return;		/* not counted */
	sem_post(&tr->go);
	rp_wait4(t->self, tr->pid, &status, __WALL, NULL);
	rp_ptrace(t->self, PTRACE_DETACH, tr->pid, NULL, NULL);
	bench_record(t, 0, bench_clock_ns() - t0);
	bench_shared_end(t, 0, shared);
	t->kinds[0].ops++;
}

/*
 * PTRACE_SEIZE, PTRACE_INTERRUPT and its trap, GETSIGINFO, SETOPTIONS,
 * GETEVENTMSG and CONT in it, a second INTERRUPT and trap, PTRACE_DETACH:
 * two posts to the tracee thread, one per trap.  A request that fails ends
 * the cycle uncounted (the next seize then fails too: the run counts
 * nothing more, which shows).
 */
static void op_requests(struct bench_thread *t)
{
	struct tracee *tr = t->priv;
	unsigned long shared[RP_SHARED_NR], msg;
	struct rp_task *self = t->self;
	siginfo_t info;
	uint64_t t0;
	int status;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	if (rp_ptrace(self, PTRACE_SEIZE, tr->pid, NULL, NULL) != 0 ||
	    rp_ptrace(self, PTRACE_INTERRUPT, tr->pid, NULL, NULL) != 0)
		return;
	sem_post(&tr->go);
	if (rp_wait4(self, tr->pid, &status, __WALL, NULL) != tr->pid ||
	    rp_ptrace(self, PTRACE_GETSIGINFO, tr->pid, NULL, &info) != 0 ||
	    rp_ptrace(self, PTRACE_SETOPTIONS, tr->pid, NULL, (void *)PTRACE_O_TRACEEXEC) != 0 ||
	    rp_ptrace(self, PTRACE_GETEVENTMSG, tr->pid, NULL, &msg) != 0 ||
	    rp_ptrace(self, PTRACE_CONT, tr->pid, NULL, NULL) != 0 ||
	    rp_ptrace(self, PTRACE_INTERRUPT, tr->pid, NULL, NULL) != 0)
		return;
	sem_post(&tr->go);
	if (rp_wait4(self, tr->pid, &status, __WALL, NULL) != tr->pid ||
	    rp_ptrace(self, PTRACE_DETACH, tr->pid, NULL, NULL) != 0)
		return;
	bench_record(t, 0, bench_clock_ns() - t0);
	bench_shared_end(t, 0, shared);
	t->kinds[0].ops++;
}

const struct bench_workload bench_ptrace_own = {
	.name = "ptrace_own", .summary = "ptrace attach+detach of a child, each thread in its own group",
	.kinds = { "attach+detach" }, .scaling = true, .children_in_run = 1,
	.thread_setup = tracee_own, .op = op_attach_detach, .thread_end = tracee_stop,
};

const struct bench_workload bench_ptrace_onepg = {
	.name = "ptrace_onepg", .summary = "ptrace attach+detach of a child, every thread in one group",
	.kinds = { "attach+detach" }, .scaling = true, .children_in_run = 1,
	.setup = bench_setup_one_group, .thread_setup = tracee_one_group,
	.op = op_attach_detach, .thread_end = tracee_stop,
};

const struct bench_workload bench_ptrace_threads = {
	.name = "ptrace_threads",
	.summary = "ptrace attach+detach of a child's second thread, each thread in its own group",
	.kinds = { "attach+detach" }, .scaling = true, .children_in_run = 1,
	.thread_setup = tracee_thread, .op = op_attach_detach, .thread_end = tracee_stop,
};

const struct bench_workload bench_ptrace_requests = {
	.name = "ptrace_requests",
	.summary = "ptrace seize, two traps with the requests on a stopped tracee, detach, of a child",
	.kinds = { "seize..detach" }, .scaling = true, .children_in_run = 1,
	.thread_setup = tracee_own, .op = op_requests, .thread_end = tracee_stop,
};

/*
 * ptrace_eventmsg's set-up: the child seized and in the PTRACE_EVENT_STOP
 * trap of a PTRACE_INTERRUPT for the whole run, told to its tracer.
 */
static int tracee_trapped(struct bench_thread *t)
{
	struct tracee *tr;
	int err = tracee_own(t), status;

	if (err)
		return err;
	tr = t->priv;
	err = (int)rp_ptrace(t->self, PTRACE_SEIZE, tr->pid, NULL, NULL);
	if (!err)
		err = (int)rp_ptrace(t->self, PTRACE_INTERRUPT, tr->pid, NULL, NULL);
	if (err)
		return err;
	sem_post(&tr->go);
	if (rp_wait4(t->self, tr->pid, &status, __WALL, NULL) != tr->pid)
		return -ECHILD;
	tr->trapped = true;
	return 0;
}

/* The run is over: let the trapped child go, then end its thread. */
static void tracee_release(struct bench_thread *t)
{
	struct tracee *tr = t->priv;

	if (tr && tr->trapped)
		rp_ptrace(t->self, PTRACE_DETACH, tr->pid, NULL, NULL);
	tracee_stop(t);
}

/* PTRACE_GETEVENTMSG of the trapped child. */
static void op_eventmsg(struct bench_thread *t)
{
	struct tracee *tr = t->priv;
	unsigned long shared[RP_SHARED_NR], msg;
	uint64_t t0;

	bench_shared_begin(shared);
	t0 = bench_clock_ns();
	if (rp_ptrace(t->self, PTRACE_GETEVENTMSG, tr->pid, NULL, &msg) != 0)
		return;
	bench_record(t, 0, bench_clock_ns() - t0);
	bench_shared_end(t, 0, shared);
	t->kinds[0].ops++;
}

const struct bench_workload bench_ptrace_eventmsg = {
	.name = "ptrace_eventmsg",
	.summary = "ptrace GETEVENTMSG of a child in a trap, each thread its own",
	.kinds = { "geteventmsg" }, .scaling = true, .children_in_run = 1,
	.thread_setup = tracee_trapped, .op = op_eventmsg, .thread_end = tracee_release,
};
