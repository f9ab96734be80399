/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Operations that race a second OS thread against the worker on one family:
 * a group stop cut short by a group exit, and a tracer's reap of a zombie
 * whose real parent polls for it meanwhile.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <urcu/uatomic.h>
#include "torture.h"

/* The handle that holds @t; the array moves when handles are dropped. */
struct handle *tt_handle_of(struct worker *w, struct rp_task *t)
{
	for (unsigned int i = 0; i < w->nh; i++)
		if (w->h[i].t == t)
			return &w->h[i];
	return NULL;
}

/* Another thread of @h's process that we drive, or NULL. */
static struct handle *other_thread(struct worker *w, struct handle *h)
{
	for (unsigned int i = 0; i < w->nh; i++)
		if (w->h[i].tgid == h->tgid && w->h[i].t != h->t)
			return &w->h[i];
	return NULL;
}

/* The group of @tgid was killed: take each thread to its death, dropping it. */
static void run_group_to_death(struct worker *w, pid_t tgid)
{
	for (unsigned int i = w->nh; i-- > 0;)
		if (w->h[i].tgid == tgid)
			while (tt_worker_drive(w, &w->h[i], tt_drain(w, &w->h[i])))
				sched_yield();
}

/*
 * The parent @pt reaps its dead child @pid with WUNTRACED, logging each
 * answer: a stop report (the checker knows whether the group ever stopped),
 * the reap, or ECHILD.  A signal to the parent cuts the wait short: take it.
 */
static void reap_dead_child(struct worker *w, struct handle *pt, pid_t pid)
{
	int status = 0;
	pid_t ret;

	do {
		uint64_t start = tt_clock_tick();

		ret = rp_wait4(pt->t, pid, &status, WUNTRACED, NULL);
		if (ret == pid && WIFSTOPPED(status)) {
			struct event *e = tt_log_event(w, EV_STOPPED);

			e->start = start;
			e->end = tt_clock_tick();
			e->a = pt->tgid;
			e->b = pid;
			e->sig = (int16_t)WSTOPSIG(status);
		} else {
			tt_log_wait(w, pt, pid, start, ret);
		}
	} while (ret == pid ? WIFSTOPPED(status) : ret != -ECHILD && tt_drain(w, pt) >= 0);
}

/* The thread that begins the group stop and sleeps in it until killed. */
struct stopper_run {
	struct rp_task *t;
	int sig;
	siginfo_t info;
	int returned;			/* atomic */
};

static void *stopper_thread(void *arg)
{
	struct stopper_run *run = arg;

	rp_thread_register();
	run->sig = rp_get_signal(run->t, &run->info);
	uatomic_set(&run->returned, 1);
	rp_thread_unregister();
	return NULL;
}

/* Until a thread has dequeued @sig (the group stop has begun), or has returned. */
static void await_dequeued(struct handle *h, int sig, struct stopper_run *run)
{
	sigset_t pending;

	while (!uatomic_read(&run->returned) && rp_sigpending(h->t, &pending) == 0 &&
	       sigismember(&pending, sig))
		sched_yield();
}

/*
 * A group stop that a group exit cuts short: the parent, with a SIGCHLD
 * handler and no notice pending, sends SIGSTOP or SIGTSTP to a process of
 * two threads or more (a second thread is cloned if it has only one); a
 * thread of our own plays thread 1, which begins the stop and sleeps in
 * it; thread 2 never joins but calls exit_group.
 * The group never stopped as a whole, so no stop may reach the parent
 * (bug 8): its wait(WUNTRACED) must report the death, and its drain may
 * take no CLD_STOPPED notice (the first notice stays queued: SIGCHLD is
 * not real-time).
 */
void tt_op_stop(struct worker *w, struct handle *h)
{
	int sig = rng_next(&w->rng) % 2 ? SIGSTOP : SIGTSTP;
	struct stopper_run run = { .t = h->t };
	struct handle *t2, *pt;
	struct rp_task *parent;
	pthread_t thread;
	struct event *e;
	pid_t pid = h->tgid;
	sigset_t rt;

	if (pid == w->root || !tt_find_parent(w, h) ||
	    (!other_thread(w, h) && tt_new_thread(w, h) < 0))
		return;
	h = tt_handle_of(w, run.t);
	t2 = other_thread(w, h);
	pt = tt_find_parent(w, h);
	tt_rt_set(&rt);
	/* Thread 1 blocks the harness's signals, so that it takes only the stop. */
	if (!pt || !tt_worker_drive(w, t2, tt_drain(w, t2)) ||
	    !tt_worker_drive(w, h, tt_drain(w, h)) ||
	    !tt_worker_drive(w, h, rp_sigprocmask(h->t, SIG_BLOCK, &rt, NULL)))
		return;
	parent = pt->t;
	tt_set_handler(parent, SIGCHLD);
	tt_drain(w, pt);
	e = tt_log_event(w, EV_STOP_EXIT);
	e->start = tt_clock_tick();
	e->a = pid;
	rp_kill(parent, pid, sig);
	if (pthread_create(&thread, NULL, stopper_thread, &run))
		abort();
	await_dequeued(t2, sig, &run);
	rp_exit_group(t2->t, 0);
	e->end = tt_clock_tick();
	tt_join_offline(thread);
	if (run.sig > 0)
		tt_log_recv(w, h, run.sig, &run.info);
	run_group_to_death(w, pid);
	pt = tt_handle_of(w, parent);
	reap_dead_child(w, pt, pid);
	tt_drain(w, pt);
}

/* The real parent's polls for its traced child while the tracer reaps it. */
struct poll_run {
	struct rp_task *parent;
	pid_t pid, ret;
	uint64_t start;			/* of the last poll */
	int reaped;			/* atomic: the tracer's wait returned */
};

static void *poll_thread(void *arg)
{
	struct poll_run *run = arg;
	int status, last;

	rp_thread_register();
	do {
		last = uatomic_read(&run->reaped);
		run->start = tt_clock_tick();
		run->ret = rp_wait4(run->parent, run->pid, &status, WNOHANG, NULL);
	} while (run->ret == 0 && !last);
	rp_thread_unregister();
	return NULL;
}

/* The tracer @tr waits for its tracee @pid, a zombie. */
void tt_tracer_reap(struct worker *w, struct handle *tr, pid_t pid)
{
	int status;
	pid_t ret;

	do
		ret = rp_wait4(tr->t, pid, &status, __WALL, NULL);
	while (ret < 0 && ret != -ECHILD && tt_drain(w, tr) >= 0);
}

/*
 * A tracer's reap handed back while the real parent waits (bug 3): another
 * process of ours seizes the leader of @h's process, the group exits, and
 * the tracer reaps the zombie while a thread of our own polls for it as
 * the real parent with WNOHANG.  The child is the parent's all along, so
 * no poll may answer ECHILD; once handed back, the parent reaps it.
 */
void tt_op_trace_reap(struct worker *w, struct handle *h)
{
	struct handle *tr = tt_pick_live(w), *pt = tt_find_parent(w, h);
	struct poll_run run = { .pid = h->tgid };
	struct rp_task *tracer;
	pthread_t thread;
	uint64_t start;

	if (!pt || run.pid == w->root || tr->tgid == run.pid || tr->tgid == pt->tgid ||
	    !tt_worker_drive(w, h, tt_drain(w, h)))
		return;
	start = tt_clock_tick();
	if (rp_ptrace(tr->t, PTRACE_SEIZE, run.pid, NULL, NULL) != 0)
		return;
	tt_log_trace(w, tr->tgid, run.pid, start);
	run.parent = pt->t;
	tracer = tr->t;
	rp_exit_group(h->t, 0);
	run_group_to_death(w, run.pid);
	if (pthread_create(&thread, NULL, poll_thread, &run))
		abort();
	tt_tracer_reap(w, tt_handle_of(w, tracer), run.pid);
	uatomic_set(&run.reaped, 1);
	tt_join_offline(thread);
	pt = tt_handle_of(w, run.parent);
	tt_log_wait(w, pt, run.pid, run.start, run.ret);
	if (run.ret != run.pid)
		reap_dead_child(w, pt, run.pid);
}
