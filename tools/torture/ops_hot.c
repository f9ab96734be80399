/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Overlapping targets, and one process's threads on several OS threads at
 * once: what makes per-object locks race (the workers' own subtrees are
 * disjoint, so without these two the update side never meets itself on
 * one parent, one group or one thread list).
 *
 *	hot	the hot process: one process whose threads are shared out, one
 *		to each worker, driven concurrently.  Every worker forks from
 *		its thread and reaps from it, so one parent is forked from and
 *		reaped by several OS threads at once, and a reap may take a
 *		child another worker forked (its thread's wait covers the whole
 *		group, as Linux's do_wait does without __WNOTHREAD).  The hot
 *		process leads the hot group: every worker moves processes of its
 *		own into it and sends killpg to it, so members move while the
 *		group is signalled.  A worker's thread also relays: it clones
 *		its successor and exits, and its children go to a sibling
 *		thread that may be exiting in the same way at the same moment.
 *		And a new process of the worker's seizes a process another
 *		worker may be driving, perhaps through its exit, and exits.
 *	mt	a process of the worker's own, two of its threads at once: a
 *		helper OS thread plays thread A, which forks, waits and takes its
 *		signals, while the worker has thread B exec, exit the group,
 *		fork and exit the thread (its children go to A), move the group
 *		and signal it, or fork a child that dies and race A's wait for
 *		the zombie.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <urcu/uatomic.h>
#include <rcuproc/pgrp.h>
#include "../../src/debug/racepoint.h"
#include "torture.h"

static unsigned int rng_below(struct worker *w, unsigned int n)
{
	return (unsigned int)(rng_next(&w->rng) % n);
}

/* ---- --overlap 0: each worker's processes alone ---- */

/*
 * The kinds that reach another worker's processes by their nature: the
 * hot process, kill(-1) and the session kill (every process starts in
 * init's session), init's exec.  --overlap 0 takes them out of the mix,
 * and tt_pick_target names the worker's own processes only: what the
 * scaling workloads of `rcuproc bench` measure (no two workers' updates on
 * one parent, group or thread list).
 */
void tt_disjoint_weights(struct torture_config *cfg)
{
	static const enum op_kind shared[] = {
		OP_HOT, OP_KILL_ALL, OP_KILL_SESSION, OP_INIT_EXEC, OP_EXEC_KILL_ALL,
	};

	for (unsigned int i = 0; i < sizeof(shared) / sizeof(shared[0]); i++)
		cfg->weights[shared[i]] = 0;
}

bool tt_disjoint(const struct torture_config *cfg)
{
	return cfg->overlap_given && !cfg->overlap;
}

/*
 * Pids of the hot process's children, forked lately by any worker: the
 * parent's setpgid of a child and a seize aim at them, while the worker
 * that drives the child forks, moves or ends it.
 */
#define HOT_KIDS	64
static pid_t hot_kids[HOT_KIDS];	/* atomic slots */
static unsigned long nr_hot_kids;	/* atomic */

static void hot_kid_add(pid_t pid)
{
	uatomic_set(&hot_kids[uatomic_add_return(&nr_hot_kids, 1) % HOT_KIDS], pid);
}

/* A child of the hot process forked lately by any worker, or 0. */
static pid_t hot_kid(struct worker *w)
{
	unsigned long n = uatomic_read(&nr_hot_kids);

	return n ? uatomic_read(&hot_kids[rng_below(w, n < HOT_KIDS ? (unsigned int)n : HOT_KIDS)])
		 : 0;
}

/* ---- the hot process ---- */

/*
 * Init forks the hot process, which leads a group of its own, and clones
 * one thread of it for each worker.  Its leader stays idle, held by the run:
 * the children of threads that exit go to it if no other thread is left.
 */
int tt_hot_start(struct hot_proc *hp, struct rp_task *init, struct worker *ws, unsigned int n)
{
	struct event *e;
	pid_t pid = rp_fork(init, &hp->leader);

	e = tt_log_event(&ws[n], EV_FORK);
	e->start = e->end = tt_clock_tick();
	e->a = 1;
	e->b = pid;
	if (pid < 0)
		return -1;
	hp->tgid = pid;
	for (unsigned int i = 0; i < HOT_KIDS; i++)
		uatomic_set(&hot_kids[i], 0);
	uatomic_set(&nr_hot_kids, 0);
	/*
	 * A subreaper: when a worker ends a child of the hot process, the
	 * child's children go to the hot process, while other workers fork
	 * from it and reap its children.
	 */
	if (rp_setpgid(hp->leader, 0, 0) || rp_prctl(hp->leader, PR_SET_CHILD_SUBREAPER, 1))
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		struct rp_task *t;
		pid_t tid = rp_clone(hp->leader, THREAD_FLAGS, &t);

		if (tid < 0)
			return -1;
		ws[i].hot = (struct handle){ .t = t, .tid = tid, .tgid = pid };
	}
	return 0;
}

/* A worker's teardown: its thread of the hot process exits (its children go to a sibling). */
void tt_hot_leave(struct worker *w)
{
	rp_exit(w->hot.t, 0);
	rp_task_put(w->hot.t);
	w->hot.t = NULL;
}

/*
 * Once every worker has left: the leader reaps the children (every one has
 * exited in its worker's teardown), takes its signals and exits; init
 * reaps it with the roots.  Logged in init's log @log.
 */
void tt_hot_end(struct hot_proc *hp, struct worker *log)
{
	struct handle lh = { .t = hp->leader, .tid = hp->tgid, .tgid = hp->tgid };

	tt_reap_all(log, &lh);
	tt_drain(log, &lh);
	rp_exit(hp->leader, 0);
	rp_task_put(hp->leader);
}

/* A new thread takes the place of the worker's thread of the hot process, which exits. */
static void hot_relay(struct worker *w)
{
	struct rp_task *next;
	pid_t tid = rp_clone(w->hot.t, THREAD_FLAGS, &next);

	if (tid == -RP_ERESTARTNOINTR)
		tt_drain(w, &w->hot);
	if (tid < 0)
		return;
	rp_exit(w->hot.t, 0);
	rp_task_put(w->hot.t);
	w->hot = (struct handle){ .t = next, .tid = tid, .tgid = w->hot.tgid };
}

/*
 * A new child of @h seizes a process another worker may be driving at that
 * moment (one forked lately by anyone), perhaps through its exit, and
 * exits: its exit lets the tracee go (Linux's exit_ptrace), a zombie
 * tracee back to its real parent.  A process of its own, so that no wait
 * of another thread of the tracer's group reports the tracee meanwhile.
 */
static void hot_trace(struct worker *w, struct handle *h)
{
	uint64_t start;
	struct rp_task *tracer;
	pid_t tgid, target = rng_below(w, 2) ? hot_kid(w) : tt_pick_target(w);

	if (tt_worker_full(w) || (tgid = tt_fork_process(w, h, 0)) <= 0)
		return;
	tracer = w->h[w->nh - 1].t;
	start = tt_clock_tick();
	if (rp_ptrace(tracer, PTRACE_SEIZE, target, NULL, NULL) == 0)
		sched_yield();
	rp_exit_group(tracer, 0);
	tt_drop_handle(w, w->nh - 1);
	tt_log_trace(w, tgid, target, start);
}

static void hot_wait(struct worker *w)
{
	siginfo_t info = { 0 };
	uint64_t start = tt_clock_tick();
	int status, ret;

	if (rng_below(w, 2)) {
		ret = rp_waitid(w->hot.t, P_ALL, 0, &info, WEXITED | WNOHANG);
		tt_log_wait(w, &w->hot, -1, start, ret == 0 ? info.si_pid : ret);
	} else {
		tt_log_wait(w, &w->hot, -1, start, rp_wait4(w->hot.t, -1, &status, WNOHANG, NULL));
	}
}

/* killpg of the hot group by one of our processes, member or not. */
static void hot_killpg(struct worker *w, struct handle *h)
{
	int sig = SIG_FIRST + (int)rng_below(w, SIG_COUNT);
	uint64_t start = tt_clock_tick();
	int ret = rp_killpg(h->t, w->hot.tgid, sig);

	tt_log_group_send(w, h, w->hot.tgid, sig, start, ret);
	tt_worker_drive(w, h, ret);
}

/*
 * @ct's wait4(@pid, WNOHANG), on a helper thread, held just before its
 * claim of @zombie (outside any read section).  Started only in debug
 * builds; false if not held (another thread may have reaped the zombie
 * first).
 */
static bool start_held_claim(struct held_call *c, struct rp_task *ct, struct rp_task *zombie,
				pid_t pid)
{
	*c = (struct held_call){ .t = ct, .pid = pid, .hold = { .where = RP_RACE_WAIT_CLAIM,
		.t = zombie, .stay = true, .offline = true } };
	if (tt_start_held(c, tt_held_wait_thread))
		return true;
	tt_join_offline(c->thread);
	return false;
}

/*
 * A claim on the shared parent: a new thread n of the hot process forks
 * c, which exits; the worker's thread of it waits for c on a helper, held
 * just before its claim, while n reaps c and exits (and other workers'
 * threads of the hot process may reap c first).  The held claim must then
 * find c taken: a zombie is reaped once (I3; RP_BREAK_WAIT_NO_RECHECK
 * claims it again, and the library stops at the second release).  n's
 * free is not waited for (claim does that, at 10 to 30 ms a time).
 */
static void hot_race_claim(struct worker *w)
{
	struct held_call c;
	struct handle n = { .tgid = w->hot.tgid };
	struct rp_task *zombie;
	bool held = false;
	int status;
	pid_t pid, ret;

	if (!tt_hold_available() || tt_worker_full(w))
		return;
	n.tid = rp_clone(w->hot.t, THREAD_FLAGS, &n.t);
	if (n.tid == -RP_ERESTARTNOINTR)
		tt_drain(w, &w->hot);
	if (n.tid < 0)
		return;
	if ((pid = tt_fork_process(w, &n, 0)) > 0) {
		zombie = w->h[w->nh - 1].t;
		rp_exit_group(zombie, 0);
		held = start_held_claim(&c, w->hot.t, zombie, pid);
		tt_drop_handle(w, w->nh - 1);
		for (;;) {
			uint64_t start = tt_clock_tick();

			ret = rp_wait4(n.t, pid, &status, 0, NULL);
			tt_log_wait(w, &n, pid, start, ret);
			if (ret >= 0 || ret == -ECHILD || tt_drain(w, &n) < 0)
				break;
		}
	}
	rp_exit(n.t, 0);
	rp_task_put(n.t);
	if (held) {
		tt_end_held(&c);
		tt_log_wait(w, &w->hot, pid, c.start, (pid_t)c.ret);
	}
}

/* The worker's thread of the hot process forks a child (ours to drive); its pid, or < 0. */
static pid_t hot_fork(struct worker *w)
{
	pid_t pid;

	if (tt_worker_full(w))
		return -EAGAIN;
	pid = tt_fork_process(w, &w->hot, 0);
	if (pid > 0)
		hot_kid_add(pid);
	return pid;
}

/*
 * The parent moves a child: the worker's thread of the hot process puts a
 * child another worker may be driving (through a fork, its own move, an
 * exec, its exit) into the hot group or a group of its own.  Linux's
 * answers: ESRCH once it is reaped, EACCES after its exec, EPERM when it
 * leads a session.
 */
static void hot_move_kid(struct worker *w)
{
	pid_t pid = hot_kid(w);

	if (pid > 0)
		rp_setpgid(w->hot.t, pid, rng_below(w, 2) ? w->hot.tgid : pid);
}

/*
 * An orphan for the hot process: a new child of the worker's thread of it
 * forks a grandchild and exits, and the grandchild (ours to drive) goes to
 * the hot process, its subreaper, while other workers fork from it and
 * reap its children; the child's zombie is for any of them to reap.
 */
static void hot_orphan(struct worker *w)
{
	struct handle *hc;
	struct rp_task *c;

	if (w->nh + 2 > w->cfg->procs / w->cfg->threads + 2 || hot_fork(w) <= 0)
		return;
	c = w->h[w->nh - 1].t;
	tt_fork_process(w, &w->h[w->nh - 1], 0);
	hc = tt_handle_of(w, c);
	if (hc) {
		rp_exit_group(c, 0);
		tt_drop_handle(w, (unsigned int)(hc - w->h));
	}
}

/* One of our processes leaves the hot group, if it is there: a group of its own, or a session. */
static void hot_leave_group(struct worker *w, struct handle *h)
{
	if (rp_getpgrp(h->t) == w->hot.tgid)
		tt_worker_drive(w, h, rng_below(w, 2) ? rp_setpgid(h->t, 0, 0) : rp_setsid(h->t));
}

/*
 * The worker's thread of the hot process forks (the child is ours to
 * drive), reaps, takes its signals, relays, moves a child or takes an
 * orphan; or one of our processes joins the hot group, leaves it or
 * signals it.
 */
void tt_op_hot(struct worker *w, struct handle *h)
{
	switch (rng_below(w, 12)) {
	case 0:
		/* Full: one of ours ends instead, while other workers wait on its parent. */
		if (!tt_worker_full(w)) {
			hot_fork(w);
		} else if (h->tgid != w->root) {
			rp_exit_group(h->t, 0);
			tt_drop_handle(w, (unsigned int)(h - w->h));
		}
		break;
	case 7:
		hot_move_kid(w);
		break;
	case 8:
		hot_orphan(w);
		break;
	case 9:
		hot_leave_group(w, h);
		break;
	case 10:
		tt_op_killpg_move(w, h);
		break;
	case 11:
		hot_race_claim(w);
		break;
	case 1:
		hot_wait(w);
		break;
	case 2:
		tt_worker_drive(w, h, rp_setpgid(h->t, 0, w->hot.tgid));
		break;
	case 3:
		hot_killpg(w, h);
		break;
	case 4:
		tt_drain(w, &w->hot);
		break;
	case 5:
		hot_trace(w, h);
		break;
	default:
		hot_relay(w);
		break;
	}
}

/* ---- mt: threads of a process on several OS threads ---- */

/* At most this many helpers, each driving one thread of the process. */
#define MT_HELPERS	3

struct mt_run {
	struct handle a;		/* its thread, lent to the helper */
	struct worker x;		/* the helper's log and the children it forks */
	unsigned int exit_at;		/* > 0: exit_group at this step (mt_exec_vs_exit) */
	const int *done;		/* atomic: the worker's side has returned */
	pthread_t thread;
};

/* A forks (at most 3 children), waits for any child, or takes its signals. */
static void mt_step(struct mt_run *run)
{
	struct worker *x = &run->x;
	uint64_t start = tt_clock_tick();
	int status;

	switch (rng_below(x, 3)) {
	case 0:
		if (x->nh < 3) {
			tt_fork_process(x, &run->a, 0);
			break;
		}
		/* fall through */
	case 1:
		tt_log_wait(x, &run->a, -1, start, rp_wait4(run->a.t, -1, &status, WNOHANG, NULL));
		break;
	default:
		tt_drain(x, &run->a);
		break;
	}
}

/*
 * Until the worker's side has returned, or A is gone: an exec by B waits
 * for A's death, which comes at A's next call (a thread dies at its return
 * to user space), so the loop must not stop before.  With exit_at, A ends
 * the group at that step, racing B's exec: whichever comes first, the
 * other thread dies (Linux's de_thread gives up in a group exit; an
 * exit_group after the exec killed its caller is that thread's death).
 */
static void *mt_helper(void *arg)
{
	struct mt_run *run = arg;

	rp_thread_register();
	for (unsigned int n = 1; !uatomic_read(run->done) && rp_gettid(run->a.t) != -ESRCH; n++) {
		if (n == run->exit_at) {
			rp_exit_group(run->a.t, 0);
			break;
		}
		mt_step(run);
		sched_yield();
	}
	rp_thread_unregister();
	return NULL;
}

/*
 * B forks a child that exits at once; three threads of the group wait for
 * the zombie: A (the helper, for any child), C (held before its claim, if
 * a debug build can hold it) and B.  Once B has reaped it, C's claim must
 * find it taken: a zombie is reaped once (I3; WAIT_NO_RECHECK's twin
 * claims it again, every time C is held).
 */
static void mt_race_reap(struct worker *w, struct handle *b)
{
	struct rp_task *bt = b->t, *ct = NULL, *zombie;
	struct held_call c;
	bool held = false;
	int status;
	pid_t pid;

	if (tt_hold_available() && tt_new_thread(w, b) > 0)
		ct = w->h[w->nh - 1].t;
	if (!(b = tt_handle_of(w, bt)) || (pid = tt_fork_process(w, b, 0)) <= 0)
		return;
	zombie = w->h[w->nh - 1].t;
	rp_exit_group(zombie, 0);
	if (ct)
		held = start_held_claim(&c, ct, zombie, pid);
	tt_drop_handle(w, w->nh - 1);
	for (int i = 0; i < 8 && (b = tt_handle_of(w, bt)); i++) {
		uint64_t start = tt_clock_tick();
		pid_t ret = rp_wait4(bt, pid, &status, WNOHANG, NULL);

		tt_log_wait(w, b, pid, start, ret);
		if (ret != 0)
			break;
		sched_yield();
	}
	if (held) {
		tt_end_held(&c);
		tt_log_wait(w, tt_handle_of(w, ct), pid, c.start, (pid_t)c.ret);
	}
}

/* B forks, then exits (the thread only): the child's new parent is A or another thread. */
static void mt_fork_exit(struct worker *w, struct handle *b)
{
	struct rp_task *bt = b->t;

	tt_fork_process(w, b, 0);
	b = tt_handle_of(w, bt);
	if (b) {
		rp_exit(bt, 0);
		tt_drop_handle(w, (unsigned int)(b - w->h));
	}
}

/* B moves the group (its own, the hot one or a new session), then signals it. */
static void mt_move_group(struct worker *w, struct handle *b)
{
	unsigned int r = rng_below(w, 3);
	int ret;

	if (r == 1 && tt_disjoint(w->cfg))
		r = 0;		/* the hot group is every worker's */
	ret = r == 0 ? rp_setpgid(b->t, 0, 0) :
		  r == 1 ? rp_setpgid(b->t, 0, w->hot.tgid) : rp_setsid(b->t);

	if (tt_worker_drive(w, b, ret))
		tt_run_group_op(w, OP_KILLPG, b);
}

/* What B does while the helpers run (@what, drawn before they start); returns when it is done. */
static void mt_side_b(struct worker *w, struct handle *b, unsigned int what)
{
	switch (what) {
	case 0:
	case 5:		/* the exec that a helper's exit_group races */
		tt_op_exec(w, b, false);
		break;
	case 1:
		rp_exit_group(b->t, 0);
		tt_drop_handle(w, (unsigned int)(b - w->h));
		break;
	case 2:
		mt_fork_exit(w, b);
		break;
	case 3:
		mt_move_group(w, b);
		break;
	default:
		mt_race_reap(w, b);
		break;
	}
}

/* The helper's log and children become ours; its thread too, unless it is gone. */
static void mt_take_back(struct worker *w, struct mt_run *run)
{
	for (size_t i = 0; i < run->x.nev; i++)
		*tt_log_event(w, run->x.ev[i].kind) = run->x.ev[i];
	for (unsigned int i = 0; i < run->x.nh; i++)
		tt_add_handle(w, run->x.h[i].t, run->x.h[i].tid, run->x.h[i].tgid);
	if (rp_gettid(run->a.t) == -ESRCH)
		rp_task_put(run->a.t);
	else
		tt_add_handle(w, run->a.t, run->a.tid, run->a.tgid);
	free(run->x.ev);
	free(run->x.h);
}

/* Another thread of @t's process that we drive, not @t nor one in @skip[0..n), or NULL. */
static struct rp_task *mt_other_thread(struct worker *w, struct rp_task *t, pid_t tgid,
				       struct rp_task *const *skip, unsigned int n)
{
	for (unsigned int i = 0; i < w->nh; i++) {
		unsigned int k = 0;

		if (w->h[i].tgid != tgid || w->h[i].t == t)
			continue;
		while (k < n && skip[k] != w->h[i].t)
			k++;
		if (k == n)
			return w->h[i].t;
	}
	return NULL;
}

/*
 * Threads of @h's process on several OS threads at once: one to three
 * helpers, each driving a thread of its own (@h's first, the others ours
 * or cloned), while the worker drives B.  Not the root's process, whose
 * leader must live until teardown.
 */
void tt_op_mt(struct worker *w, struct handle *h)
{
	struct mt_run run[MT_HELPERS];
	struct rp_task *at[MT_HELPERS] = { h->t }, *bt = NULL;
	unsigned int n = 1 + rng_below(w, MT_HELPERS), what = rng_below(w, 6), i;
	pid_t tgid = h->tgid;
	int done = 0;

	if (tgid == w->root)
		return;
	if (!(bt = mt_other_thread(w, at[0], tgid, at, 1)) && tt_new_thread(w, h) > 0)
		bt = w->h[w->nh - 1].t;
	for (i = 1; bt && i < n; i++) {
		at[i] = mt_other_thread(w, bt, tgid, at, i);
		if (!at[i] && (!(h = tt_handle_of(w, bt)) || tt_new_thread(w, h) <= 0))
			break;
		if (!at[i])
			at[i] = w->h[w->nh - 1].t;
	}
	n = i;
	if (!bt || !tt_handle_of(w, bt))
		return;
	for (i = 0; i < n; i++) {
		/* A helper's thread leaves our handles: only the helper drives it until it returns. */
		h = tt_handle_of(w, at[i]);
		if (!h)
			break;
		run[i] = (struct mt_run){ .a = *h, .x = { .cfg = w->cfg }, .done = &done,
					  .exit_at = what == 5 && i == 0 ? 1 + rng_below(w, 3) : 0 };
		w->h[h - w->h] = w->h[--w->nh];
		run[i].x.rng = rng_seed(rng_next(&w->rng), 0);
		if (pthread_create(&run[i].thread, NULL, mt_helper, &run[i]))
			abort();
	}
	n = i;
	mt_side_b(w, tt_handle_of(w, bt), what);
	uatomic_set(&done, 1);
	for (i = 0; i < n; i++) {
		tt_join_offline(run[i].thread);
		mt_take_back(w, &run[i]);
	}
}
