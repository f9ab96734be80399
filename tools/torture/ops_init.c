/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Init in the torture run: the thread of init that stays registered and
 * idle (the quiet thread: a review found a QSBR stall), and init_exec, an
 * exec by a non-leader thread of init while the other operations run (a
 * crash the same review found):
 * the thread becomes init's leader in place of the old one, which the
 * worker takes to its death, and must inherit the child reaper's role.
 * Then an orphan goes to init, and init reaps it.  A new thread of init
 * takes the quiet thread's place, so that init can exec again.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu/uatomic.h>
#include "torture.h"

/* The quiet thread's state (init_proc.exec): what init_exec asks of it. */
enum { INIT_IDLE, INIT_EXEC_ASKED, INIT_EXEC_DONE };

/* On the quiet thread: its task, a non-leader thread of init, execs. */
static void quiet_exec(struct init_proc *ip)
{
	ip->start = tt_clock_tick();
	ip->ret = rp_execve(ip->quiet, "init");
	ip->end = tt_clock_tick();
	cmm_smp_wmb();		/* the results before the state: pairs with run_init_exec */
	uatomic_set(&ip->exec, INIT_EXEC_DONE);
}

/*
 * It only reads its parent pid, once a millisecond: under QSBR each call
 * announces a quiescent state, so it must not hold back the grace periods
 * of the run nor the final rp_deferred_barrier (bug 7).  Asked by
 * init_exec, it execs, then waits (quiescent) for a new task.
 */
static void *quiet_main(void *arg)
{
	struct init_proc *ip = arg;
	struct timespec tick = { 0, 1000 * 1000 };

	pthread_setname_np(pthread_self(), "torture-quiet");
	rp_thread_register();
	while (!uatomic_read(&ip->stop)) {
		int state = uatomic_read(&ip->exec);

		cmm_smp_rmb();		/* ip->quiet after the state: pairs with op_init_exec */
		if (state == INIT_EXEC_ASKED)
			quiet_exec(ip);
		else if (state == INIT_IDLE)
			rp_getppid(ip->quiet);
		else
			rp_thread_quiescent();	/* exec'd: waits for a new task */
		nanosleep(&tick, NULL);
	}
	rp_exit(ip->quiet, 0);
	rp_thread_unregister();
	return NULL;
}

int tt_init_start(struct init_proc *ip, struct rp_task *init)
{
	*ip = (struct init_proc){ .leader = init };
	pthread_mutex_init(&ip->lock, NULL);
	if (rp_clone(init, THREAD_FLAGS, &ip->quiet) < 0)
		return -1;
	return pthread_create(&ip->thread, NULL, quiet_main, ip) ? -1 : 0;
}

void tt_init_stop(struct init_proc *ip)
{
	uatomic_set(&ip->stop, 1);
	tt_join_offline(ip->thread);
	rp_task_put(ip->quiet);
	pthread_mutex_destroy(&ip->lock);
}

/*
 * The quiet thread's task execs; meanwhile the worker drives init's old
 * leader, which the exec kills, to its death.  Logged as init's exec.
 */
static void run_init_exec(struct worker *w, struct init_proc *ip)
{
	struct handle old = { .t = ip->leader, .tid = 1, .tgid = 1 };
	bool alive = true;
	struct event *e;

	uatomic_set(&ip->exec, INIT_EXEC_ASKED);
	while (uatomic_read(&ip->exec) != INIT_EXEC_DONE) {
		if (alive)
			alive = tt_drain(w, &old) >= 0;
		rp_thread_quiescent();
		sched_yield();
	}
	cmm_smp_rmb();
	e = tt_log_event(w, EV_EXEC);
	e->start = ip->start;
	e->end = ip->end;
	e->a = 1;
	e->result = (int16_t)ip->ret;
}

/*
 * The exec'd task leads init now: it takes over the run's reference and
 * its handlers, and init spawns a new thread for the quiet thread, which
 * then goes on idling on it.
 */
static void end_init_exec(struct worker *w, struct init_proc *ip)
{
	struct handle ih = { .t = ip->quiet, .tid = 1, .tgid = 1 };
	struct rp_task *next;
	pid_t tid;

	rp_task_put(ip->leader);
	ip->leader = ip->quiet;
	tt_install_handlers(ip->leader);
	while ((tid = rp_clone(ip->leader, THREAD_FLAGS, &next)) == -RP_ERESTARTNOINTR)
		tt_drain(w, &ih);
	if (tid < 0) {
		fprintf(stderr, "rcuproc torture: init could not spawn a thread: %s\n",
			strerror(-tid));
		abort();
	}
	ip->quiet = next;
}

/* I3: sys->child_reaper after init's exec, and where @orphan (@pid) went. */
static void log_reaper(struct worker *w, struct init_proc *ip, struct rp_task *orphan, pid_t pid)
{
	struct event *e = tt_log_event(w, EV_REAPER);

	e->start = tt_clock_tick();
	e->a = 1;
	e->b = pid;
	e->c = (int32_t)rp_verify_walk_init_reaper(ip->leader, orphan);
	e->end = tt_clock_tick();
}

/* exit_group of @t, a process we drive, and its handle dropped. */
static void end_process(struct worker *w, struct rp_task *t)
{
	rp_exit_group(t, 0);
	tt_drop_handle(w, (unsigned int)(tt_handle_of(w, t) - w->h));
}

/* Init's wait for @pid, taking the signals that cut it short. */
static void init_reap(struct worker *w, struct handle *ih, pid_t pid)
{
	uint64_t start;
	int status;
	pid_t ret;

	do {
		start = tt_clock_tick();
		ret = rp_wait4(ih->t, pid, &status, 0, NULL);
	} while (ret < 0 && ret != -ECHILD && tt_drain(w, ih) >= 0);
	tt_log_wait(w, ih, pid, start, ret);
}

/*
 * Init forks p, p forks c and exits: c is an orphan, whose parent must be
 * init's reaper; then c exits too, and init reaps both.
 */
static void orphan_to_init(struct worker *w, struct init_proc *ip)
{
	struct handle ih = { .t = ip->leader, .tid = 1, .tgid = 1 };
	struct rp_task *p, *c = NULL;
	pid_t ppid = tt_fork_process(w, &ih, 0), cpid;

	if (ppid < 0)
		return;
	p = w->h[w->nh - 1].t;
	cpid = tt_fork_process(w, &w->h[w->nh - 1], 0);
	if (cpid > 0)
		c = w->h[w->nh - 1].t;
	end_process(w, p);
	if (c) {
		log_reaper(w, ip, c, cpid);
		end_process(w, c);
	}
	init_reap(w, &ih, ppid);
	if (c)
		init_reap(w, &ih, cpid);
}

/*
 * init_exec: one at a time (another worker's may run), and not with
 * random allocation failures, which the spawn of init's next thread
 * cannot answer.
 */
void tt_op_init_exec(struct worker *w)
{
	struct init_proc *ip = w->init;

	if (w->cfg->fail_rate > 0 || pthread_mutex_trylock(&ip->lock))
		return;
	run_init_exec(w, ip);
	if (rp_gettid(ip->quiet) == 1)
		end_init_exec(w, ip);
	cmm_smp_mb();		/* ip->quiet before the state: pairs with quiet_main */
	uatomic_set(&ip->exec, INIT_IDLE);
	log_reaper(w, ip, NULL, 0);
	orphan_to_init(w, ip);
	pthread_mutex_unlock(&ip->lock);
}
