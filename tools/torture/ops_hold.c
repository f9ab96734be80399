/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Race operations that hold a helper thread at a race point (hold.c) while
 * the worker acts: a wait's claim while another thread of its group reaps
 * the child and exits, and kill(-1) standing on a process's node while a
 * thread of that process execs and forks.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <urcu/uatomic.h>
#include "../../src/debug/fault.h"
#include "../../src/debug/racepoint.h"
#include "torture.h"

/* A wait4(WNOHANG) for c->pid as c->t, held where c->hold says. */
void *tt_held_wait_thread(void *arg)
{
	struct held_call *c = arg;
	int status;

	rp_thread_register();
	tt_hold_arm(&c->hold);
	c->start = tt_clock_tick();
	c->ret = rp_wait4(c->t, c->pid, &status, WNOHANG, NULL);
	tt_hold_disarm();
	uatomic_set(&c->done, 1);
	rp_thread_unregister();
	return NULL;
}

/*
 * rt_sigqueueinfo(c->pid, c->sig) as c->t, with its send id (the start), held
 * where c->hold says; the caller logs it (EV_SEND).
 */
void *tt_held_send_thread(void *arg)
{
	struct held_call *c = arg;
	siginfo_t info = { .si_code = SI_QUEUE };

	rp_thread_register();
	info.si_pid = rp_getpid(c->t);
	tt_hold_arm(&c->hold);
	c->start = tt_clock_tick();
	info.si_value.sival_ptr = (void *)(uintptr_t)c->start;
	c->ret = rp_rt_sigqueueinfo(c->t, c->pid, c->sig, &info);
	tt_hold_disarm();
	uatomic_set(&c->done, 1);
	rp_thread_unregister();
	return NULL;
}

static void *kill_all_thread(void *arg)
{
	struct held_call *c = arg;

	rp_thread_register();
	tt_hold_arm(&c->hold);
	c->start = tt_clock_tick();
	c->ret = rp_kill(c->t, -1, c->sig);
	tt_hold_disarm();
	uatomic_set(&c->done, 1);
	rp_thread_unregister();
	return NULL;
}

/* Start @c on a helper thread running @fn; true once it is held. */
bool tt_start_held(struct held_call *c, void *(*fn)(void *))
{
	if (pthread_create(&c->thread, NULL, fn, c))
		abort();
	return tt_hold_await(&c->hold, &c->done);
}

void tt_end_held(struct held_call *c)
{
	tt_hold_release(&c->hold);
	tt_join_offline(c->thread);
}

/* The handle of the last task added: a child or thread just created. */
static struct rp_task *newest(struct worker *w)
{
	return w->h[w->nh - 1].t;
}

/*
 * wait's claim (a review found it read a freed parent): thread b of @h's process forks child
 * c, which exits; thread @h's wait for c is held just before its claim
 * (outside any read section) while b reaps c, exits and is freed.  The
 * claim must see that c is dead before it reads c's parent, b: a debug
 * build stops at a freed task read as alive (rp_task_assert_not_freed),
 * ASan at the read.  Then @h's wait answers ECHILD, as c was reaped.
 */
void tt_op_claim(struct worker *w, struct handle *h)
{
	struct held_call c = { .t = h->t, .hold = { .where = RP_RACE_WAIT_CLAIM,
						   .stay = true, .offline = true } };
	struct rp_task *b, *child;
	int status;
	pid_t ret;

	if (!tt_hold_available() || tt_new_thread(w, h) < 0)
		return;
	b = newest(w);
	if ((c.pid = tt_fork_process(w, &w->h[w->nh - 1], 0)) <= 0)
		return;
	child = newest(w);
	rp_exit_group(child, 0);
	tt_drop_handle(w, w->nh - 1);
	c.hold.t = child;
	if (tt_start_held(&c, tt_held_wait_thread)) {
		struct handle *bh = tt_handle_of(w, b);
		uint64_t start = tt_clock_tick();

		do
			ret = rp_wait4(bh->t, c.pid, &status, 0, NULL);
		while (ret < 0 && ret != -ECHILD && tt_drain(w, bh) >= 0);
		tt_log_wait(w, bh, c.pid, start, ret);
		rp_exit(bh->t, 0);
		tt_drop_handle(w, (unsigned int)(bh - w->h));
		/* b's free has run: poisoned, or in ASan's quarantine. */
		rp_deferred_barrier();
		tt_end_held(&c);
	} else {
		tt_join_offline(c.thread);
	}
	h = tt_handle_of(w, c.t);
	if (h)
		tt_log_wait(w, h, c.pid, c.start, (pid_t)c.ret);
}

/*
 * kill(-1) across an exec and a fork (a review found it): @h forks process
 * p with a second thread n and its leader a zombie; @h's kill(-1) is held
 * (rcu mode) on the leader's node of the process list while n execs,
 * taking the leader's place on that list, and forks child c.  The walk
 * signals p only after c was linked behind it, so c must get the signal
 * too (I2); in the lock modes the kill simply follows the fork.
 */
void tt_op_exec_kill_all(struct worker *w, struct handle *h)
{
	struct held_call k = { .t = h->t, .sig = SIG_FIRST + (int)(rng_next(&w->rng) % SIG_COUNT),
			       .hold = { .where = RP_RACE_PROCESS_WALK_NODE, .stay = true } };
	unsigned long failures = rp_debug_alloc_failures();
	struct rp_task *leader, *n;
	struct handle *nh, *ch, *kh;
	sigset_t rt, old, none;
	struct event *e;
	bool held = false, started;
	pid_t cpid;
	int ret;

	if (tt_fork_process(w, h, 0) <= 0)
		return;
	leader = newest(w);
	if (tt_new_thread(w, &w->h[w->nh - 1]) < 0)
		return;
	n = newest(w);
	tt_rt_set(&rt);
	/* Blocked across the exec, which resets their handlers. */
	if (rp_sigprocmask(n, SIG_BLOCK, &rt, &old) < 0)
		return;
	rp_exit(leader, 0);	/* a zombie leader: the exec takes its place */
	tt_drop_handle(w, (unsigned int)(tt_handle_of(w, leader) - w->h));
	k.hold.t = leader;
	started = tt_rcu_readers(w->cfg->mode) && tt_hold_available();
	if (started)
		held = tt_start_held(&k, kill_all_thread);
	nh = tt_handle_of(w, n);
	e = tt_log_event(w, EV_EXEC);
	e->start = tt_clock_tick();
	ret = rp_execve(n, "torture");
	e->end = tt_clock_tick();
	e->a = nh->tgid;
	e->result = (int16_t)(ret < 0 ? ret : 0);
	if (ret == 0) {
		nh->tid = nh->tgid;
		tt_install_handlers(n);
		rp_sigprocmask(n, SIG_SETMASK, &old, NULL);
	}
	cpid = ret == 0 ? tt_fork_process(w, nh, 0) : -1;
	if (held) {
		tt_end_held(&k);
	} else if (started) {
		tt_join_offline(k.thread);	/* it went past the node: no window */
	} else {
		k.start = tt_clock_tick();	/* the lock modes: after the fork */
		k.ret = rp_kill(k.t, -1, k.sig);
	}
	kh = tt_handle_of(w, k.t);
	if (kh)
		tt_log_group_send(w, kh, 1, k.sig, k.start, (int)k.ret);
	if (cpid <= 0 || k.ret < 0 || !kh || (started && !held))
		return;
	/* c was forked before the send reached its parent: it must have it. */
	ch = &w->h[w->nh - 1];
	sigemptyset(&none);
	if (rp_sigprocmask(ch->t, SIG_SETMASK, &none, NULL) < 0)
		return;
	tt_worker_drive(w, ch, tt_drain(w, ch));
	/*
	 * Unless an allocation failed on purpose (--fail-rate) since the op
	 * began: the fork's record of the signal may have been the one, and
	 * without it the child loses the signal by design (src/signal/record.c).
	 */
	if (rp_debug_alloc_failures() != failures)
		return;
	e = tt_log_event(w, EV_MUST_RECV);
	e->start = k.start;
	e->end = tt_clock_tick();
	e->a = cpid;
	e->c = kh->tgid;
	e->sig = (int16_t)k.sig;
}
