/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ns: pid namespaces in the torture run (docs/namespaces.md).  A new
 * process U of the worker's unshares CLONE_NEWPID and forks the first
 * namespace's init; each init makes the next level, by clone(CLONE_NEWPID)
 * or by unshare and fork, two or three levels below the root.  In each
 * namespace a child forks and exits: its child, an orphan, goes to the
 * namespace's init, which reaps the child by the number it has there.  U
 * opens handles of the two deepest namespaces, enters the deepest (setns)
 * and forks into it, then goes back to the first.  Checked on the way, each
 * failed check logged as an EV_NS event that check.c reports:
 *
 *	table	each live process's numbers: NSpid read from the root has one
 *		number per level; each number, looked up by the init of its
 *		level, finds the same numbers from there down; getpid in its
 *		own namespace is the last, and a parent outside reads as 0.
 *		The deepest handle's parent is the handle of the level above.
 *	I3	an orphan's getppid is 1; an init's wait reports its child by
 *		the number it has there.
 *	I1	kill(-1) by a process of a namespace reaches every process of
 *		that namespace and those below exactly once, but that
 *		namespace's init and the sender, and nothing else: U and the
 *		inits above take nothing, and a receipt of SIG_NS anywhere
 *		outside a scene (the other operations' drains) is a violation
 *		too (check.c; RP_BREAK_KILL_ALL_ROOT_VIEW reaches them).
 *
 * Then the first init's end, in one of four ways, the last three with a
 * helper thread held at a race point (hold.c, debug builds):
 *
 *	killed	U kills it with SIGKILL (forced on a namespace's init from
 *		the parent namespace) and it dies at its next return.
 *	fork	U's fork into the namespace is held before its link
 *		(RP_RACE_FORK_LINKS) while init exits: the fork must fail with
 *		ENOMEM (RP_BREAK_PIDNS_CHECK_EARLY links the child).
 *	end	init's exit is held before the hold that ends its namespace
 *		(RP_RACE_NS_INIT_EXITS) while U forks into it: the end must
 *		kill that child (RP_BREAK_PIDNS_ZAP_BEFORE_CLOSE misses it).
 *	orphan	the exit of the first namespace's orphan, which has a child,
 *		is held before it picks that child's reaper
 *		(RP_RACE_EXIT_REPARENTS) while init exits: the child must go
 *		to the ending init, which reaps it (RP_BREAK_NS_REAPER_EXITING
 *		gives it to the table's init instead).
 *
 * Afterwards a fork into the namespace must fail with ENOMEM, every
 * process of the namespaces must be killed (I2: none escapes its init's
 * end), and each must be reaped: by U if U is its parent, else inside,
 * by its parent or by the ending init its orphans went to.  The first
 * init's exit completes only once every other pid of its namespace is
 * freed, so U reaps its other children first and then must find the
 * first init's zombie: a process left to a reaper that does not reap it
 * keeps its pid, and init's wait answers 0 (I3; docs/namespaces.md,
 * "Init's end and a fork in flight").  Not with --fail-rate: the scene's
 * end relies on each of its forks.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <urcu/uatomic.h>
#include <rcuproc/snapshot.h>
#include "../../src/debug/racepoint.h"
#include "torture.h"

#define NS_LEVELS	3		/* at most, below the root */
#define NS_PROCS	16

struct ns_proc {
	struct rp_task *t;
	pid_t nr;			/* its number in the root namespace (0: not known) */
	pid_t own;			/* its number in its own namespace */
	int level;			/* its namespace's */
	int parent;			/* its parent's index, -1: U */
	bool ended;			/* it exited by itself: no drain */
};

struct ns_scene {
	struct worker *w;
	struct rp_task *u;		/* in the root namespace */
	pid_t unr;
	struct ns_proc p[NS_PROCS];
	unsigned int n;
	int depth;			/* levels below the root: 2 or 3 */
	int init[NS_LEVELS + 1];	/* each level's init in p[] */
	int orphan[NS_LEVELS + 1];	/* each level's orphan in p[] */
	int got[NS_PROCS];		/* receipts of SIG_NS */
};

enum ns_end { END_KILLED, END_FORK, END_EXIT, END_ORPHAN, END_NR };

static unsigned int ns_below(struct ns_scene *s, unsigned int n)
{
	return (unsigned int)(rng_next(&s->w->rng) % n);
}

/* A failed check (ops_ns.c's list above); check.c says which invariant. */
static void ns_fault(struct ns_scene *s, pid_t nr, int level, enum ns_fault f, long seen)
{
	struct event *e = tt_log_event(s->w, EV_NS);

	e->start = e->end = tt_clock_tick();
	e->a = nr;
	e->b = f;
	e->c = (int32_t)seen;
	e->sig = (int16_t)level;
}

static void proc_fault(struct ns_scene *s, const struct ns_proc *p, enum ns_fault f, long seen)
{
	ns_fault(s, p->nr, p->level, f, seen);
}

/* Take @t's signals, counting SIG_NS in *@got; 0 at the end, -ESRCH if killed. */
static int ns_drain(struct rp_task *t, int *got)
{
	siginfo_t info;
	int sig;

	while ((sig = rp_get_signal(t, &info)) > 0)
		if (sig == SIG_NS)
			(*got)++;
	return sig;
}

/* A child of @parent: its number as @parent's namespace numbers it, or < 0. */
static pid_t ns_fork(struct rp_task *parent, unsigned long flags, struct rp_task **child)
{
	int ignored = 0;
	pid_t pid;

	for (int i = 0; i < 16; i++) {
		pid = rp_clone(parent, flags | SIGCHLD, child);
		if (pid != -RP_ERESTARTNOINTR)
			break;
		ns_drain(parent, &ignored);	/* a signal cut the fork short */
	}
	return pid;
}

static int ns_add(struct ns_scene *s, struct rp_task *t, int parent, int level, pid_t own)
{
	s->p[s->n] = (struct ns_proc){ .t = t, .own = own, .level = level, .parent = parent };
	return (int)s->n++;
}

/*
 * U, a new child of @h (a signal that cuts the fork short is taken, and
 * the fork tried again), with SIG_NS handled, nothing blocked and SIGCHLD
 * at its default.
 */
static bool ns_start_u(struct ns_scene *s, struct handle *h)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct event *e;
	sigset_t none;
	pid_t pid;

	for (int i = 0; i < 4; i++) {
		uint64_t start = tt_clock_tick();

		pid = rp_clone(h->t, SIGCHLD, &s->u);
		e = tt_log_event(s->w, EV_FORK);
		e->start = start;
		e->end = tt_clock_tick();
		e->a = h->tgid;
		e->b = pid > 0 ? pid : 0;
		e->result = pid < 0 ? (int16_t)(pid < -32767 ? -32767 : pid) : 0;
		if (pid != -RP_ERESTARTNOINTR || tt_drain(s->w, h) < 0)
			break;
	}
	if (pid < 0) {
		tt_worker_drive(s->w, h, pid == -RP_ERESTARTNOINTR ? -ESRCH : pid);
		return false;
	}
	s->unr = pid;
	sigemptyset(&none);
	tt_set_handler(s->u, SIG_NS);
	rp_sigaction(s->u, SIGCHLD, &dfl, NULL);
	rp_sigprocmask(s->u, SIG_SETMASK, &none, NULL);
	return true;
}

/*
 * In the namespace of level @k (its init made): a child forks and exits;
 * its child, the level's orphan, must go to the init (getppid 1), and the
 * init's wait must report the child by its number there.  At level 1 the
 * orphan forks one more, the child of the scene's "orphan" end.
 */
static bool ns_populate(struct ns_scene *s, int k)
{
	struct ns_proc *in = &s->p[s->init[k]];
	struct rp_task *c, *g, *y;
	pid_t cnr, gnr, ynr, ret;
	int status;

	if ((cnr = ns_fork(in->t, 0, &c)) <= 0) {
		proc_fault(s, in, NSF_SETUP, cnr);
		return false;
	}
	gnr = ns_fork(c, 0, &g);
	rp_exit_group(c, 0);
	rp_task_put(c);
	ret = rp_wait4(in->t, cnr, &status, WNOHANG, NULL);
	if (ret != cnr)
		ns_fault(s, 0, k, NSF_REAP_INSIDE, ret);
	if (gnr <= 0) {
		ns_fault(s, 0, k, NSF_SETUP, gnr);
		return false;
	}
	s->orphan[k] = ns_add(s, g, s->init[k], k, gnr);
	if ((ret = rp_getppid(g)) != 1)
		proc_fault(s, &s->p[s->orphan[k]], NSF_ORPHAN, ret);
	if (k != 1)
		return true;
	if ((ynr = ns_fork(g, 0, &y)) <= 0) {
		ns_fault(s, 0, k, NSF_SETUP, ynr);
		return false;
	}
	ns_add(s, y, s->orphan[k], k, ynr);
	return true;
}

/* The init of level @k + 1, made by the init of level @k. */
static bool ns_nest(struct ns_scene *s, int k)
{
	struct ns_proc *in = &s->p[s->init[k]];
	struct rp_task *t;
	pid_t nr;
	int ret;

	if (ns_below(s, 2)) {
		nr = ns_fork(in->t, CLONE_NEWPID, &t);
	} else {
		if ((ret = rp_unshare(in->t, CLONE_NEWPID)) != 0) {
			proc_fault(s, in, NSF_SETUP, ret);
			return false;
		}
		nr = ns_fork(in->t, 0, &t);
	}
	if (nr <= 0) {
		proc_fault(s, in, NSF_SETUP, nr);
		return false;
	}
	s->init[k + 1] = ns_add(s, t, s->init[k], k + 1, 1);
	return true;
}

/* U's listing; *@n rows.  NULL if it cannot be taken. */
static struct rp_ps_entry *ns_listing(struct ns_scene *s, long *n)
{
	struct rp_ps_entry *rows = NULL;
	long cap = 0;

	for (;;) {
		*n = rp_ps_snapshot(s->u, rows, (size_t)cap);
		if (*n < 0 || *n <= cap)
			return *n < 0 ? (free(rows), NULL) : rows;
		cap = *n + 64;
		free(rows);
		rows = malloc((size_t)cap * sizeof(*rows));
		if (!rows)
			abort();
	}
}

/*
 * Each process's number in the root namespace: the row of U's listing
 * whose parent is its parent and whose NSpid ends with its own number at
 * its level (parents come first in p[]).
 */
static void ns_resolve(struct ns_scene *s)
{
	pid_t out[NS_LEVELS + 1];
	struct rp_ps_entry *rows;
	long n;

	if (!(rows = ns_listing(s, &n)))
		return;
	for (unsigned int i = 0; i < s->n; i++) {
		struct ns_proc *p = &s->p[i];
		pid_t ppid = p->parent < 0 ? s->unr : s->p[p->parent].nr;

		for (long r = 0; r < n && !p->nr && ppid; r++)
			if (rows[r].ppid == ppid &&
			    rp_proc_nspid(s->u, rows[r].pid, out, NS_LEVELS + 1) == p->level + 1 &&
			    out[p->level] == p->own)
				p->nr = rows[r].pid;
		if (!p->nr)
			proc_fault(s, p, NSF_NUMBERS, 0);
	}
	free(rows);
}

/*
 * @p's numbers: from the root, one a level; each, looked up by its
 * level's init, finds the same numbers from there down; getpid and gettid
 * in its own namespace are the last; getppid is 0 if its parent is U.
 */
static void ns_check_numbers(struct ns_scene *s, const struct ns_proc *p)
{
	pid_t out[NS_LEVELS + 1], sub[NS_LEVELS + 1];
	int n = p->nr ? rp_proc_nspid(s->u, p->nr, out, NS_LEVELS + 1) : -1;

	if (n != p->level + 1 || out[0] != p->nr || out[p->level] != p->own) {
		proc_fault(s, p, NSF_NUMBERS, 0);
		return;
	}
	for (int i = 1; i <= p->level; i++) {
		int m = rp_proc_nspid(s->p[s->init[i]].t, out[i], sub, NS_LEVELS + 1);

		if (m != p->level + 1 - i || memcmp(sub, out + i, (size_t)m * sizeof(*sub))) {
			proc_fault(s, p, NSF_NUMBERS, i);
			return;
		}
	}
	if (rp_getpid(p->t) != p->own || rp_gettid(p->t) != p->own)
		proc_fault(s, p, NSF_NUMBERS, p->level);
	else if (p->parent < 0 && rp_getppid(p->t) != 0)
		proc_fault(s, p, NSF_NUMBERS, -1);
}

/*
 * U's handles of the deepest namespace and of the level above (the
 * second's parent must be the first), setns into the deepest, a fork
 * there, and setns back to the first level: U's next children go there.
 */
static bool ns_enter_deepest(struct ns_scene *s)
{
	enum { DEEP, ABOVE, FIRST, PARENT, NS_HANDLES };
	struct rp_pidns *ns[NS_HANDLES] = { NULL };
	struct rp_task *t;
	bool ok = false;
	pid_t nr = 0;
	int ret;

	if (rp_pidns_open(s->u, s->p[s->init[s->depth]].nr, 0, &ns[DEEP]) ||
	    rp_pidns_open(s->u, s->p[s->init[s->depth - 1]].nr, 0, &ns[ABOVE]) ||
	    rp_pidns_open(s->u, s->p[s->init[1]].nr, 0, &ns[FIRST])) {
		ns_fault(s, s->unr, 0, NSF_HANDLE, 0);
		goto out;
	}
	if (rp_pidns_parent(s->u, ns[DEEP], &ns[PARENT]) || ns[PARENT] != ns[ABOVE])
		ns_fault(s, s->unr, 0, NSF_HANDLE, s->depth);
	if ((ret = rp_setns(s->u, ns[DEEP], CLONE_NEWPID)) != 0) {
		ns_fault(s, s->unr, 0, NSF_SETUP, ret);
		goto out;
	}
	nr = ns_fork(s->u, 0, &t);
	if (nr > 0)
		s->p[ns_add(s, t, -1, s->depth, rp_getpid(t))].nr = nr;
	if ((ret = rp_setns(s->u, ns[FIRST], CLONE_NEWPID)) != 0)
		ns_fault(s, s->unr, 0, NSF_SETUP, ret);
	else
		ok = nr > 0;
	if (nr <= 0)
		ns_fault(s, s->unr, s->depth, NSF_SETUP, nr);
out:
	for (int i = 0; i < NS_HANDLES; i++)
		if (ns[i])
			rp_pidns_put(ns[i]);
	return ok;
}

/* The namespaces, their processes, U's setns; false if a step failed (logged). */
static bool ns_build(struct ns_scene *s)
{
	struct rp_task *t;
	pid_t nr;
	int ret;

	s->depth = 2 + (int)ns_below(s, NS_LEVELS - 1);
	if ((ret = rp_unshare(s->u, CLONE_NEWPID)) != 0) {
		ns_fault(s, s->unr, 0, NSF_SETUP, ret);
		return false;
	}
	if ((nr = ns_fork(s->u, 0, &t)) <= 0) {
		ns_fault(s, s->unr, 0, NSF_SETUP, nr);
		return false;
	}
	s->init[1] = ns_add(s, t, -1, 1, 1);
	s->p[s->init[1]].nr = nr;
	for (int k = 1; k <= s->depth; k++)
		if (!ns_populate(s, k) || (k < s->depth && !ns_nest(s, k)))
			return false;
	ns_resolve(s);
	if (!ns_enter_deepest(s))
		return false;
	for (unsigned int i = 0; i < s->n; i++)
		ns_check_numbers(s, &s->p[i]);
	return true;
}

/*
 * kill(-1) by the orphan of a level k: every process of level k and below
 * but level k's init and the sender must take SIG_NS once, the others
 * (the inits above, U) never.
 */
static void ns_kill_all(struct ns_scene *s)
{
	int k = 1 + (int)ns_below(s, (unsigned int)s->depth), sender = s->orphan[k];
	int u_got = 0, want_ret = -ESRCH, ret;

	memset(s->got, 0, sizeof(s->got));
	for (unsigned int i = 0; i < s->n; i++) {
		ns_drain(s->p[i].t, &s->got[i]);
		if (s->p[i].level >= k && (int)i != s->init[k] && (int)i != sender)
			want_ret = 0;
	}
	ns_drain(s->u, &u_got);
	memset(s->got, 0, sizeof(s->got));
	u_got = 0;
	ret = rp_kill(s->p[sender].t, -1, SIG_NS);
	if (ret != want_ret)
		proc_fault(s, &s->p[sender], NSF_KILL_RET, ret);
	for (unsigned int i = 0; i < s->n; i++) {
		const struct ns_proc *p = &s->p[i];
		bool in = p->level >= k && (int)i != s->init[k] && (int)i != sender;

		ns_drain(p->t, &s->got[i]);
		if (in && s->got[i] != 1)
			proc_fault(s, p, NSF_KILL_COUNT, s->got[i]);
		else if (!in && s->got[i])
			proc_fault(s, p, NSF_KILL_OUTSIDE, s->got[i]);
	}
	if (ns_drain(s->u, &u_got) == 0 && u_got)
		ns_fault(s, s->unr, 0, NSF_KILL_OUTSIDE, u_got);
}

/* A call by a helper thread, held at a race point (hold.c): a fork or an exit_group. */
struct ns_held {
	struct held_call c;		/* first: the thread's argument */
	struct rp_task *child;		/* the fork's */
};

static void *ns_fork_thread(void *arg)
{
	struct ns_held *x = arg;

	rp_thread_register();
	tt_hold_arm(&x->c.hold);
	x->c.ret = rp_clone(x->c.t, SIGCHLD, &x->child);
	tt_hold_disarm();
	uatomic_set(&x->c.done, 1);
	rp_thread_unregister();
	return NULL;
}

static void *ns_exit_thread(void *arg)
{
	struct ns_held *x = arg;

	rp_thread_register();
	tt_hold_arm(&x->c.hold);
	x->c.ret = rp_exit_group(x->c.t, 0);
	tt_hold_disarm();
	uatomic_set(&x->c.done, 1);
	rp_thread_unregister();
	return NULL;
}

/* Start @fn as @t, held at @where on @on; true once held (else it has returned). */
static bool ns_start_held(struct ns_held *x, void *(*fn)(void *), struct rp_task *t,
			  enum rp_race_point where, struct rp_task *on)
{
	*x = (struct ns_held){ .c = { .t = t, .hold = { .where = (int)where, .t = on,
							.stay = true, .offline = true } } };
	if (tt_start_held(&x->c, fn))
		return true;
	tt_join_offline(x->c.thread);
	return false;
}

/* A fork of U's into the first namespace, after or during its end: @nr its answer. */
static void ns_forked_in_end(struct ns_scene *s, pid_t nr, struct rp_task *child, bool ended)
{
	if (nr > 0)
		s->p[ns_add(s, child, -1, 1, 0)].nr = nr;
	if (ended && nr != -ENOMEM && nr != -RP_ERESTARTNOINTR)
		ns_fault(s, nr > 0 ? nr : s->unr, 1, NSF_FORK_DYING, nr);
}

/* The first init's end, one of four ways (the list above). */
static void ns_end_init(struct ns_scene *s, enum ns_end how)
{
	struct ns_proc *in = &s->p[s->init[1]], *x = &s->p[s->orphan[1]];
	struct rp_task *child = NULL;
	struct ns_held held;
	int ignored = 0;
	pid_t nr;
	bool h;

	ns_drain(s->u, &ignored);
	in->ended = true;
	switch (how) {
	case END_FORK:
		h = ns_start_held(&held, ns_fork_thread, s->u, RP_RACE_FORK_LINKS, s->u);
		rp_exit_group(in->t, 0);
		if (h)
			tt_end_held(&held.c);
		ns_forked_in_end(s, (pid_t)held.c.ret, held.child, h);
		break;
	case END_EXIT:
		h = ns_start_held(&held, ns_exit_thread, in->t, RP_RACE_NS_INIT_EXITS, in->t);
		nr = ns_fork(s->u, 0, &child);
		ns_forked_in_end(s, nr, child, !h);
		if (h)
			tt_end_held(&held.c);
		break;
	case END_ORPHAN:
		x->ended = true;
		h = ns_start_held(&held, ns_exit_thread, x->t, RP_RACE_EXIT_REPARENTS, x->t);
		rp_exit_group(in->t, 0);
		if (h)
			tt_end_held(&held.c);
		break;
	default:
		rp_kill(s->u, in->nr, SIGKILL);
		if (ns_drain(in->t, &ignored) != -ESRCH) {
			proc_fault(s, in, NSF_SURVIVED, 0);
			rp_exit_group(in->t, 0);
		}
		break;
	}
	nr = ns_fork(s->u, 0, &child);
	ns_forked_in_end(s, nr, child, true);
}

/* U's zombie child @p of the scene reaped; false if it is not there. */
static bool ns_reap(struct ns_scene *s, const struct ns_proc *p)
{
	int status;
	pid_t ret = rp_wait4(s->u, p->nr, &status, WNOHANG, NULL);

	if (ret != p->nr)
		proc_fault(s, p, NSF_STRANDED, ret);
	return ret == p->nr;
}

/*
 * The first init's exit did not complete: a pid of its namespace is still
 * allocated, held by a process left to a reaper that does not reap it
 * (the table's init, or a parent that has gone).  The run cannot go on
 * soundly: its next walk may name freed memory as that process's parent,
 * and the namespace never ends.  Say so and end it now, as the stall
 * checks do (cmd.c).
 */
static void ns_stranded(struct ns_scene *s, const struct ns_proc *in)
{
	fprintf(stderr, "VIOLATION I3 wait completeness: seed %lu: init %d of a pid namespace "
		"(level %d) has not completed its exit once every process of the namespace "
		"was dead and its parent had reaped its other children: a process of the "
		"namespace was left unreaped\n", (unsigned long)s->w->cfg->seed, in->nr,
		in->level);
	fflush(stdout);
	_exit(1);
}

/*
 * After the end: every process must be dead (killed, or exited by
 * itself).  Those whose parent is inside were reaped there; U reaps its
 * own, the first init last (ops_ns.c's list above).
 */
static void ns_aftermath(struct ns_scene *s)
{
	const struct ns_proc *in = &s->p[s->init[1]];
	int ignored = 0;

	for (unsigned int i = 0; i < s->n; i++) {
		struct ns_proc *p = &s->p[i];

		if (!p->ended && ns_drain(p->t, &ignored) != -ESRCH) {
			proc_fault(s, p, NSF_SURVIVED, 0);
			rp_exit_group(p->t, 0);
		}
	}
	for (unsigned int i = 0; i < s->n; i++)
		if (s->p[i].parent < 0 && &s->p[i] != in)
			ns_reap(s, &s->p[i]);
	if (!ns_reap(s, in))
		ns_stranded(s, in);
}

/* A scene built only in part: the first init's exit ends what there is. */
static void ns_abandon(struct ns_scene *s)
{
	if (!s->n)
		return;
	ns_resolve(s);		/* while the parents are still theirs */
	s->p[s->init[1]].ended = true;
	rp_exit_group(s->p[s->init[1]].t, 0);
	ns_aftermath(s);
}

void tt_op_ns(struct worker *w, struct handle *h)
{
	struct ns_scene s = { .w = w };

	if (w->cfg->fail_rate > 0 || !ns_start_u(&s, h))
		return;
	if (ns_build(&s)) {
		ns_kill_all(&s);
		ns_end_init(&s, tt_hold_available() ? (enum ns_end)ns_below(&s, END_NR) :
						      END_KILLED);
		ns_aftermath(&s);
		uatomic_inc(&w->ns_scenes);
	} else {
		ns_abandon(&s);
	}
	for (unsigned int i = 0; i < s.n; i++)
		rp_task_put(s.p[i].t);
	/* U's zombie is its parent's to reap, as any process's of ours. */
	rp_exit_group(s.u, 0);
	rp_task_put(s.u);
}
