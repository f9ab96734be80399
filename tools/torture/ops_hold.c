/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Race operations that hold a helper thread at a race point (hold.c) while
 * the worker acts: a wait's claim while another thread of its group reaps
 * the child and exits, and kill(-1) standing on a process's node while a
 * thread of that process execs and forks.
 */
#include <errno.h>
#include <sys/resource.h>
#include <rcuproc/pgrp.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <urcu/uatomic.h>
#include "../../src/debug/fault.h"
#include "../../src/debug/racepoint.h"
#include "signal/signal.h"	/* rp_current_pgrp_orphaned */
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

static void *killpg_thread(void *arg)
{
	struct held_call *c = arg;

	rp_thread_register();
	tt_hold_arm(&c->hold);
	c->start = tt_clock_tick();
	c->ret = rp_killpg(c->t, c->pid, c->sig);
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

/* End process @t of ours, if it is still ours to drive. */
static void end_process(struct worker *w, struct rp_task *t)
{
	struct handle *h = tt_handle_of(w, t);

	if (h) {
		rp_exit_group(t, 0);
		tt_drop_handle(w, (unsigned int)(h - w->h));
	}
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
 * Does a group kill's walk hold nothing for the rest of the run, so that
 * the worker may fork, exec or move beside a walk held open?  Once the
 * table has made a pid namespace, a group kill with a signal holds the
 * update side across its walks (rp_group_kill_holds_update), and another
 * worker's ns may make the first namespace at any time: so only in a run
 * that draws no ns.
 */
static bool walks_unheld(const struct worker *w, struct rp_system *sys)
{
	return !tt_may_draw_ns(w->cfg) && !rp_group_kill_holds_update(sys);
}

/*
 * kill(-1) across an exec and a fork (a review found it): @h forks process
 * p with a second thread n and its leader a zombie; @h's kill(-1) is held
 * (rcu mode) on the leader's node of the process list while n execs,
 * taking the leader's place on that list, and forks child c.  The walk
 * signals p only after c was linked behind it, so c must get the signal
 * too (I2); in the lock modes the kill simply follows the fork, and so it
 * does when the walk would hold the update side (walks_unheld).
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
	started = tt_rcu_readers(w->cfg->mode) && tt_hold_available() &&
		  walks_unheld(w, k.t->sys);
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

/* The held killpg of k's group, k's move, m's drain (tt_op_killpg_move). */
static void killpg_across_move(struct worker *w, struct held_call *kc, struct rp_task *k,
			       struct rp_task *m, pid_t mpid)
{
	unsigned long failures = rp_debug_alloc_failures();
	struct handle *kh, *sh, *mh;
	struct event *e;
	sigset_t none;
	bool held = false;

	bool started = w->cfg->mode == RP_SYNC_RCU && tt_hold_available() &&
		       walks_unheld(w, k->sys);

	kc->hold.t = k;
	if (started)
		held = tt_start_held(kc, killpg_thread);
	kh = tt_handle_of(w, k);
	tt_worker_drive(w, kh, rp_setpgid(k, 0, w->hot.tgid));
	if (held) {
		tt_end_held(kc);
	} else if (started) {
		tt_join_offline(kc->thread);	/* it went past k: no window */
	} else {
		kc->start = tt_clock_tick();
		kc->ret = rp_killpg(kc->t, kc->pid, kc->sig);
	}
	sh = tt_handle_of(w, kc->t);
	if (sh)
		tt_log_group_send(w, sh, kc->pid, kc->sig, kc->start, (int)kc->ret);
	mh = tt_handle_of(w, m);
	if (!held || kc->ret < 0 || !sh || !mh)
		return;
	sigemptyset(&none);
	if (rp_sigprocmask(m, SIG_SETMASK, &none, NULL) < 0 || !tt_worker_drive(w, mh, tt_drain(w, mh)))
		return;
	/* Not after an allocation failed on purpose: the signal's queue entry may have been it. */
	if (rp_debug_alloc_failures() != failures)
		return;
	e = tt_log_event(w, EV_MUST_RECV);
	e->start = kc->start;
	e->end = tt_clock_tick();
	e->a = mpid;
	e->b = MUST_RECV_MEMBER;
	e->c = sh->tgid;
	e->sig = (int16_t)kc->sig;
}

/*
 * killpg against setpgid in overlapping groups (rcu mode, debug builds):
 * @h forks k, which leads a group of its own, and k forks m into it; a
 * helper's killpg of k's group, as @h, is held on k's entry of the member
 * list (it has loaded k's handler table, not locked it) while k joins the
 * hot group, which every worker's processes join, leave and signal.  The
 * walk must go on along k's old group: m, a member for the whole call,
 * receives the signal by the end of its drain (EV_MUST_RECV, I1), and the
 * hot process, never in k's group, must not (the checker counts the hot
 * process's receipts against the group sends that can reach it).
 * RP_BREAK_RELINK_PROXY moves k's entry itself, and the walk follows it
 * into the hot group's list.  The lock modes: a walk held in the read lock
 * would keep the move out, so the send simply follows it; so too when the
 * walk would hold the group's M (walks_unheld).
 */
void tt_op_killpg_move(struct worker *w, struct handle *h)
{
	struct held_call kc = { .t = h->t, .sig = SIG_FIRST + (int)(rng_next(&w->rng) % SIG_COUNT),
				.hold = { .where = RP_RACE_SIGHAND_LOADED, .stay = true } };
	struct rp_task *k, *m;
	pid_t mpid;

	if ((kc.pid = tt_fork_process(w, h, 0)) <= 0)
		return;
	k = newest(w);
	if (rp_setpgid(k, 0, 0) || (mpid = tt_fork_process(w, &w->h[w->nh - 1], 0)) <= 0) {
		end_process(w, k);
		return;
	}
	m = newest(w);
	killpg_across_move(w, &kc, k, m, mpid);
	end_process(w, m);
	end_process(w, k);
}

/* A fork by c->t, held where c->hold says; the child in *@child. */
struct held_fork {
	struct held_call c;
	struct rp_task *child;
};

static void *fork_thread(void *arg)
{
	struct held_fork *x = arg;

	rp_thread_register();
	tt_hold_arm(&x->c.hold);
	x->c.start = tt_clock_tick();
	x->c.ret = rp_clone(x->c.t, SIGCHLD, &x->child);
	tt_hold_disarm();
	uatomic_set(&x->c.done, 1);
	rp_thread_unregister();
	return NULL;
}

/* The held fork of p returned: the child becomes ours (logged as forked by @ppid). */
static pid_t take_forked(struct worker *w, struct held_fork *x, pid_t ppid)
{
	pid_t pid = (pid_t)x->c.ret;
	struct event *e;

	if (pid <= 0)
		return pid;
	e = tt_log_event(w, EV_FORK);
	e->start = x->c.start;
	e->end = tt_clock_tick();
	e->a = ppid;
	e->b = pid;
	tt_add_handle(w, x->child, pid, pid);
	return pid;
}

/*
 * The checks after the held fork of @child: it has nice @nice, which its
 * parent's group was given meanwhile (if @set), and takes @sig, sent to
 * that group at @sent by @sender (if the send succeeded: @sent != 0).
 */
static void check_forked(struct worker *w, struct rp_task *child, pid_t pid, int nice, bool set,
			 pid_t sender, int sig, uint64_t sent)
{
	struct handle *ch = tt_handle_of(w, child);
	struct event *e;
	sigset_t none;
	int got;

	if (set && (got = rp_getpriority(child, PRIO_PROCESS, 0)) > 0 && 20 - got != nice) {
		e = tt_log_event(w, EV_FORK_PRIO);
		e->start = e->end = tt_clock_tick();
		e->a = pid;
		e->b = nice;
		e->c = 20 - got;
	}
	sigemptyset(&none);
	if (!sent || !ch || rp_sigprocmask(child, SIG_SETMASK, &none, NULL) < 0 ||
	    !tt_worker_drive(w, ch, tt_drain(w, ch)))
		return;
	e = tt_log_event(w, EV_MUST_RECV);
	e->start = sent;
	e->end = tt_clock_tick();
	e->a = pid;
	e->b = MUST_RECV_FORKED;
	e->c = sender;
	e->sig = (int16_t)sig;
}

/*
 * fork_group: a fork by p, which leads a group of its own, held before its
 * link (RP_RACE_FORK_LINKS, offline: in every mode) while @h, another
 * process of ours, gives p's group a new nice value
 * (setpriority(PRIO_PGRP)) and sends it a killpg.  The fork is atomic to
 * both (I2): a child it returns has the new value
 * (RP_BREAK_PRIO_NO_FORK_ORDER keeps the one the fork copied before the
 * change) and takes the signal by the end of its drain.  Nothing else
 * touches p's group meanwhile.  Not under --fail-rate: the signal's
 * record in the fork needs memory (src/signal/record.c).
 */
void tt_op_fork_group(struct worker *w, struct handle *h)
{
	struct held_fork x = { .child = NULL };
	int sig = SIG_FIRST + (int)(rng_next(&w->rng) % SIG_COUNT), cur, nice, set = -1, sret = -1;
	struct rp_task *p, *from = h->t;
	pid_t ppid, sender = h->tgid, cpid;
	uint64_t sent = 0;
	bool held;

	if (!tt_hold_available() || w->cfg->fail_rate > 0 || (ppid = tt_fork_process(w, h, 0)) <= 0)
		return;
	p = newest(w);
	if (rp_setpgid(p, 0, 0) || (cur = rp_getpriority(p, PRIO_PROCESS, 0)) <= 0) {
		end_process(w, p);
		return;
	}
	/* Any value but p's own: -20..19. */
	nice = (20 - cur + 20 + 1 + (int)(rng_next(&w->rng) % 39)) % 40 - 20;
	x.c = (struct held_call){ .t = p, .hold = { .where = RP_RACE_FORK_LINKS, .t = p,
						   .stay = true, .offline = true } };
	held = tt_start_held(&x.c, fork_thread);
	if (held) {
		set = rp_setpriority(from, PRIO_PGRP, (id_t)ppid, nice);
		sent = tt_clock_tick();
		sret = rp_killpg(from, ppid, sig);
		tt_log_group_send(w, tt_handle_of(w, from), ppid, sig, sent, sret);
		tt_end_held(&x.c);
	} else {
		tt_join_offline(x.c.thread);
	}
	cpid = take_forked(w, &x, ppid);
	if (held && cpid > 0)
		check_forked(w, x.child, cpid, nice, set == 0, sender, sig, sret == 0 ? sent : 0);
	if (cpid > 0)
		end_process(w, x.child);
	end_process(w, p);
}

/* setpgid(c->pid, pgid) as c->t, held where c->hold says. */
struct held_move {
	struct held_call c;
	pid_t pgid;
};

static void *setpgid_thread(void *arg)
{
	struct held_move *x = arg;

	rp_thread_register();
	tt_hold_arm(&x->c.hold);
	x->c.start = tt_clock_tick();
	x->c.ret = rp_setpgid(x->c.t, x->c.pid, x->pgid);
	tt_hold_disarm();
	uatomic_set(&x->c.done, 1);
	rp_thread_unregister();
	return NULL;
}

/* A child of @parent's process (a handle of ours), or NULL. */
static struct rp_task *fork_of(struct worker *w, struct rp_task *parent)
{
	struct handle *ph = tt_handle_of(w, parent);

	return ph && tt_fork_process(w, ph, 0) > 0 ? newest(w) : NULL;
}

/*
 * The move of p2 by its parent q from the session leader's group into
 * group g = {m2}, m2 being p2's child, held between its two steps (rcu
 * mode: the update lock is held there, so only a reader can act).  The
 * move makes the tie (p2, q) and breaks (m2, p2): g, tied all along, must
 * not read orphaned (RP_BREAK_JOBC_TAKE_FIRST counts the broken tie
 * before the new one).  Logged as EV_ORPHANED if it does.
 */
static void move_keeps_tie(struct worker *w, struct rp_task *q, struct rp_task *p2,
			   struct rp_task *m2)
{
	struct held_move x = { .c = { .t = q, .pid = rp_getpid(p2),
		.hold = { .where = RP_RACE_JOBC_MOVED, .t = p2, .stay = true } },
		.pgid = rp_getpid(m2) };
	struct event *e;
	bool orphaned;

	if (x.c.pid <= 0 || x.pgid <= 0 || rp_setpgid(p2, x.pgid, 0))
		return;
	if (!tt_start_held(&x.c, setpgid_thread)) {
		tt_join_offline(x.c.thread);
		return;
	}
	orphaned = rp_current_pgrp_orphaned(m2);
	tt_end_held(&x.c);
	if (!orphaned)
		return;
	e = tt_log_event(w, EV_ORPHANED);
	e->start = x.c.start;
	e->end = tt_clock_tick();
	e->a = x.pgid;
	e->b = x.pgid;
}

/*
 * setpgid_tie: a new session s of ours, with q its child, p2 q's child and
 * m2 p2's child: the ties of a group counted by setpgid in two steps
 * (docs/jobctl.md), raced by a reader of the group's count.  All four end
 * afterwards.
 */
void tt_op_setpgid_tie(struct worker *w, struct handle *h)
{
	struct rp_task *s, *q = NULL, *p2 = NULL, *m2 = NULL;

	if (w->cfg->mode != RP_SYNC_RCU || !tt_hold_available() || !(s = fork_of(w, h->t)))
		return;
	if (rp_setsid(s) > 0 && (q = fork_of(w, s)) && (p2 = fork_of(w, q)) &&
	    (m2 = fork_of(w, p2)))
		move_keeps_tie(w, q, p2, m2);
	if (m2)
		end_process(w, m2);
	if (p2)
		end_process(w, p2);
	if (q)
		end_process(w, q);
	end_process(w, s);
}
