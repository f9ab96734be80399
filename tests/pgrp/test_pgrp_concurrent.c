/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * I1 and I2 under fire, in all three modes (suite group_signal), and the
 * priority half of I2 (suite prio_fork).
 *
 * A session led by L holds group G (forking parents F0..F2, F0 with three
 * forking threads, and a spawner W whose children leave with setsid) and
 * group H (H0); movers hop between G and H with setpgid.  Senders in
 * sessions of their own send numbered real-time signals (si_value) to G
 * (killpg), to H, to everyone (kill(-1)) and to L's session.  Every
 * process counts every receipt, draining with rp_get_signal.  A global
 * tick brackets every send, fork, move and final drain, so that the check
 * knows, for each process and send, whether the process was surely in the
 * target set for the whole send (it must get it once), possibly in it (at
 * most once), or never (zero).  I2: a child of a parent that was in the set
 * for the whole send, whose fork began before the send and returned after
 * it, must get it (a restarted fork leaves no child).  Only for parents
 * with one forking thread: in F0, another thread may take a signal that
 * came between a fork's call and the opening of its window, which then
 * neither restarts nor records it (as in Linux), so F0's children are held
 * to I1 only.
 *
 * RP_BREAK_CHILD_AT_HEAD, RP_BREAK_CHECK_BEFORE_LINK and
 * RP_BREAK_RELINK_PROXY make group_signal/rcu fail (a child missed, a
 * process visited off its list); RP_BREAK_PRIO_NO_FORK_ORDER makes
 * prio_fork/rcu fail (a child with the old value after the call returned).
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "../fixture/pgrp.h"
#include "signal/signal.h"

#define SIG		RT(1)
#define MAX_SENDS	3000
#define MAX_PROCS	12000
#define MAX_MOVES	4000
#define NFORKERS	3		/* F0 (three threads), F1, F2 */
#define F0_THREADS	3
#define NMOVERS		2
#define NSENDERS	2
#define KEEP		6		/* live children per forking thread */
#define FOREVER		ULONG_MAX

enum kind { TO_G, TO_H, TO_ALL, TO_SESSION, NKINDS };
enum grp { IN_G, IN_H, ELSEWHERE };

/* A membership state, reached at some tick in [lo, hi]. */
struct state {
	unsigned long lo, hi;
	enum grp grp;
	bool in_session;
};

struct proc {
	struct rp_task *t;
	bool stable_parent;		/* a child of a stable member of G */
	unsigned long f0, f1;		/* its fork: began, returned */
	unsigned long end;		/* its last drain began (FOREVER: at the end) */
	unsigned int nstates, cap;
	struct state *states;
	unsigned char *got;		/* receipts of each send */
};

struct send {
	enum kind kind;
	unsigned long s0, s1;
};

static unsigned long ticks;
static struct proc procs[MAX_PROCS];
static unsigned long nprocs;
static struct send sends[MAX_SENDS];
static unsigned long nsends;
static int stop;
static pid_t gid, hid, sid;
static unsigned long prio_bad, prio_calls;

static unsigned long tick(void)
{
	return uatomic_add_return(&ticks, 1);
}

static struct proc *new_proc(struct rp_task *t, unsigned int cap, unsigned long f0,
			     unsigned long f1, enum grp grp, bool in_session)
{
	unsigned long i = uatomic_add_return(&nprocs, 1) - 1;
	struct proc *p = &procs[i];

	cr_assert_lt(i, MAX_PROCS);
	p->t = t;
	p->f0 = f0;
	p->f1 = f1;
	p->end = FOREVER;
	p->cap = cap;
	p->states = calloc(cap, sizeof(*p->states));
	p->got = calloc(MAX_SENDS, 1);
	p->states[0] = (struct state){ f0, f1, grp, in_session };
	p->nstates = 1;
	return p;
}

static void add_state(struct proc *p, unsigned long lo, unsigned long hi, enum grp grp,
		      bool in_session)
{
	p->states[p->nstates++] = (struct state){ lo, hi, grp, in_session };
}

/* Take every pending signal of @t, counting the numbered ones for @p. */
static void drain(struct rp_task *t, struct proc *p)
{
	siginfo_t info;
	int sig;

	while ((sig = rp_get_signal(t, &info)) > 0)
		if (sig == SIG)
			__atomic_fetch_add(&p->got[info.si_value.sival_int], 1, __ATOMIC_RELAXED);
}

static bool running(void)
{
	return !uatomic_read(&stop);
}

/* ---- the actors ---- */

struct forker {
	struct rp_task *t;		/* the forking thread */
	struct proc *me;		/* its process */
	bool alone;			/* the process's only forking thread */
	unsigned long restarts;
};

/* Drain child @c for the last time, end it and reap it as @f. */
static void retire(struct forker *f, struct proc *c)
{
	pid_t pid = rp_getpid(c->t);

	c->end = tick();
	drain(c->t, c);
	cr_assert_eq(rp_exit_group(c->t, 0), 0);
	cr_assert_eq(rp_wait4(f->t, pid, NULL, 0, NULL), pid);
	rp_task_put(c->t);
	c->t = NULL;
}

/* Fork one child of a stable member of G, retrying restarted forks. */
static struct proc *fork_child(struct forker *f, unsigned int cap)
{
	struct rp_task *c;
	struct proc *c2;
	unsigned long f0;
	pid_t r;

	for (;;) {
		f0 = tick();
		r = rp_fork(f->t, &c);
		if (r != -RP_ERESTARTNOINTR)
			break;
		f->restarts++;
		drain(f->t, f->me);
	}
	cr_assert_gt(r, 1, "fork: %d", r);
	c2 = new_proc(c, cap, f0, tick(), IN_G, true);
	c2->stable_parent = f->alone;
	return c2;
}

static void *forker_main(void *arg)
{
	struct forker *f = arg;
	struct proc *kids[KEEP] = { NULL };
	unsigned int n = 0;

	rp_thread_register();
	while (running() && uatomic_read(&nprocs) < MAX_PROCS - 64) {
		drain(f->t, f->me);
		if (kids[n % KEEP])
			retire(f, kids[n % KEEP]);
		kids[n % KEEP] = fork_child(f, 1);
		n++;
	}
	rp_thread_unregister();
	return NULL;
}

/* W's children: forked into G, they leave G and the session with setsid. */
static void *leaver_main(void *arg)
{
	struct forker *f = arg;
	struct proc *c;
	unsigned long t0;

	rp_thread_register();
	while (running() && uatomic_read(&nprocs) < MAX_PROCS - 64) {
		drain(f->t, f->me);
		c = fork_child(f, 2);
		t0 = tick();
		cr_assert_eq(rp_setsid(c->t), rp_getpid(c->t));
		add_state(c, t0, tick(), ELSEWHERE, false);
		retire(f, c);
	}
	rp_thread_unregister();
	return NULL;
}

/* Hop between G and H. */
static void *mover_main(void *arg)
{
	struct proc *m = arg;
	unsigned long t0;
	enum grp to;

	rp_thread_register();
	while (running() && m->nstates < m->cap) {
		to = m->states[m->nstates - 1].grp == IN_G ? IN_H : IN_G;
		t0 = tick();
		cr_assert_eq(rp_setpgid(m->t, 0, to == IN_G ? gid : hid), 0);
		add_state(m, t0, tick(), to, true);
		drain(m->t, m);
	}
	rp_thread_unregister();
	return NULL;
}

/* Send @k numbered @n from @s. */
static void send_one(struct rp_task *s, enum kind k, int n)
{
	siginfo_t info;

	rp_siginfo_init(&info, SIG, SI_QUEUE, rp_getpid(s), 0);
	info.si_value.sival_int = n;
	if (k == TO_SESSION) {
		/* A session is walked group by group, under the update lock. */
		rp_update_lock(&sys->sync);
		rp_read_lock(&sys->sync);
		cr_assert_eq(rp_kill_session_info_locked(sys, sid, SIG, &info), 0);
		rp_read_unlock(&sys->sync);
		rp_update_unlock(&sys->sync);
		return;
	}
	cr_assert_eq(rp_kill_group_info(s, k == TO_G ? -gid : k == TO_H ? -hid : -1, SIG, &info), 0);
}

static void *sender_main(void *arg)
{
	struct rp_task *s = arg;
	unsigned long n;

	rp_thread_register();
	while (running() && (n = uatomic_add_return(&nsends, 1) - 1) < MAX_SENDS) {
		sends[n].kind = n % NKINDS;
		sends[n].s0 = tick();
		send_one(s, sends[n].kind, (int)n);
		sends[n].s1 = tick();
		rp_sync_quiescent();	/* the internal calls above do not (QSBR) */
	}
	rp_thread_unregister();
	return NULL;
}

/* ---- the check ---- */

static bool member(const struct state *st, enum kind k)
{
	switch (k) {
	case TO_G:
		return st->grp == IN_G;
	case TO_H:
		return st->grp == IN_H;
	case TO_SESSION:
		return st->in_session;
	default:
		return true;
	}
}

/* Surely in the target set of @s for the whole send? */
static bool surely_in(const struct proc *p, const struct send *s)
{
	for (unsigned int i = 0; i < p->nstates; i++) {
		unsigned long next_lo = i + 1 < p->nstates ? p->states[i + 1].lo : FOREVER;

		if (p->states[i].hi < s->s0 && next_lo > s->s1)
			return member(&p->states[i], s->kind) && s->s1 < p->end;
	}
	return false;
}

/* In the target set of @s at some moment of the send? */
static bool maybe_in(const struct proc *p, const struct send *s)
{
	for (unsigned int i = 0; i < p->nstates; i++) {
		unsigned long next_hi = i + 1 < p->nstates ? p->states[i + 1].hi : FOREVER;

		if (member(&p->states[i], s->kind) && p->states[i].lo < s->s1 && next_hi > s->s0)
			return true;
	}
	return false;
}

/* I2: the parent surely got @s while the fork ran (it began before, returned after). */
static bool fork_spanned(const struct proc *p, const struct send *s)
{
	return p->stable_parent && s->kind != TO_H && p->f0 < s->s0 && s->s1 < p->f1;
}

static void check_all(void)
{
	unsigned long n_sends = nsends < MAX_SENDS ? nsends : MAX_SENDS;

	for (unsigned long i = 0; i < nprocs; i++) {
		struct proc *p = &procs[i];

		for (unsigned long n = 0; n < n_sends; n++) {
			const struct send *s = &sends[n];
			int got = p->got[n];

			if (!s->s1)
				continue;	/* never finished: stopped mid-way */
			cr_assert_leq(got, 1, "I1: proc %lu got send %lu (kind %d) %d times",
				      i, n, s->kind, got);
			if (surely_in(p, s) || fork_spanned(p, s))
				cr_assert_eq(got, 1, "I1/I2: proc %lu missed send %lu (kind %d)",
					     i, n, s->kind);
			else if (!maybe_in(p, s))
				cr_assert_eq(got, 0, "I1: proc %lu never in set of send %lu (kind %d)",
					     i, n, s->kind);
		}
	}
}

/* ---- the setup ---- */

static struct rp_task *member_of(struct rp_task *leader, pid_t pgid)
{
	struct rp_task *t = fork_of(leader);

	cr_assert_eq(rp_setpgid(leader, rp_getpid(t), pgid), 0);
	handle(t, SIG);
	return t;
}

static void reset(void)
{
	memset(procs, 0, sizeof(procs));
	nprocs = nsends = ticks = 0;
	memset(sends, 0, sizeof(sends));
	stop = 0;
	prio_bad = prio_calls = 0;
}

static void release_all(void)
{
	for (unsigned long i = 0; i < nprocs; i++) {
		free(procs[i].states);
		free(procs[i].got);
	}
}

struct world {
	struct rp_task *leader;
	struct forker forkers[NFORKERS + F0_THREADS - 1 + 1];
	unsigned int nforkers;
	struct proc *movers[NMOVERS];
	struct proc *stable[8];
	unsigned int nstable;
};

/* L's session: G with the forkers and W, H with H0, the movers in G. */
static void build(struct world *w)
{
	struct rp_task *f0, *t;
	struct proc *fp;

	w->leader = fork_of(init);
	sid = rp_setsid(w->leader);
	handle(w->leader, SIG);
	w->stable[w->nstable++] = new_proc(w->leader, 1, 0, 0, ELSEWHERE, true);
	f0 = member_of(w->leader, 0);
	gid = rp_getpid(f0);
	fp = w->stable[w->nstable++] = new_proc(f0, 1, 0, 0, IN_G, true);
	w->forkers[w->nforkers++] = (struct forker){ .t = f0, .me = fp };
	for (int i = 1; i < F0_THREADS; i++)
		w->forkers[w->nforkers++] = (struct forker){ .t = thread_of(f0), .me = fp };
	for (int i = 1; i <= NFORKERS; i++) {	/* F1, F2, then W */
		t = member_of(w->leader, gid);
		fp = w->stable[w->nstable++] = new_proc(t, 1, 0, 0, IN_G, true);
		w->forkers[w->nforkers++] = (struct forker){ .t = t, .me = fp, .alone = true };
	}
	t = member_of(w->leader, 0);
	hid = rp_getpid(t);
	w->stable[w->nstable++] = new_proc(t, 1, 0, 0, IN_H, true);
	for (int i = 0; i < NMOVERS; i++)
		w->movers[i] = new_proc(member_of(w->leader, gid), MAX_MOVES, 0, 0, IN_G, true);
}

/* A sender: root, in a session of its own, ignoring what it sends. */
static struct rp_task *make_sender(void)
{
	struct rp_task *s = fork_of(init);
	struct sigaction ign = { .sa_handler = SIG_IGN };

	cr_assert_gt(rp_setsid(s), 1);
	cr_assert_eq(rp_sigaction(s, SIG, &ign, NULL), 0);
	return s;
}

/*
 * Let a round run for @seconds, or until the process or send table is full.
 * The calling thread is registered but calls nothing meanwhile: under QSBR
 * it must be offline, or no grace period ends and the workers' deferred
 * frees wait at the backlog bound for ever (docs/using.md).
 */
static void stop_and_join(pthread_t *th, unsigned int n, double seconds)
{
	double end = now_seconds() + seconds;

	rp_thread_offline();
	while (now_seconds() < end && uatomic_read(&nprocs) < MAX_PROCS - 64 &&
	       uatomic_read(&nsends) < MAX_SENDS)
		sleep_seconds(0.01);
	uatomic_set(&stop, 1);
	for (unsigned int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	rp_thread_online();
}

/*
 * A fresh system with the world built and its forking threads started (the
 * last, W, with leaver_main if @leavers); the number of threads in @th.
 */
static unsigned int start_round(enum rp_sync_mode mode, struct world *w, pthread_t *th,
				bool leavers)
{
	unsigned int n = 0;

	reset();
	start(mode);
	build(w);
	for (unsigned int i = 0; i < w->nforkers; i++)
		pthread_create(&th[n++], NULL,
			       leavers && i + 1 == w->nforkers ? leaver_main : forker_main,
			       &w->forkers[i]);
	return n;
}

/*
 * No starvation: each fork of a parent with one forking thread restarts only
 * for a signal pending when it began, which it then takes: no more restarts
 * than signals taken, however many group signals arrive during its forks.
 */
static void check_progress(const struct world *w)
{
	for (unsigned int i = 0; i < w->nforkers; i++) {
		const struct forker *f = &w->forkers[i];
		unsigned long taken = 0;

		for (unsigned long n = 0; n < MAX_SENDS; n++)
			taken += f->me->got[n];
		if (f->alone)
			cr_assert_leq(f->restarts, taken, "forker %u: %lu restarts for %lu signals",
				      i, f->restarts, taken);
	}
}

static void group_signal_round(enum rp_sync_mode mode, double seconds)
{
	struct world w = { 0 };
	pthread_t th[32];
	unsigned int n = start_round(mode, &w, th, true);

	for (int i = 0; i < NMOVERS; i++)
		pthread_create(&th[n++], NULL, mover_main, w.movers[i]);
	for (int i = 0; i < NSENDERS; i++)
		pthread_create(&th[n++], NULL, sender_main, make_sender());
	stop_and_join(th, n, seconds);
	check_progress(&w);
	for (unsigned long i = 0; i < nprocs; i++)
		if (procs[i].t && procs[i].end == FOREVER)
			drain(procs[i].t, &procs[i]);
	cr_log_info("group_signal: %lu sends, %lu processes", nsends, nprocs);
	check_all();
	release_all();
	stop_system();
}

/* Rounds of at most a second (each on a fresh system) for RP_TEST_SECONDS. */
static void rounds(enum rp_sync_mode mode, void (*round)(enum rp_sync_mode, double))
{
	double end = now_seconds() + test_seconds(), left;

	do {
		left = end - now_seconds();
		round(mode, left < 0.25 ? 0.25 : left < 1 ? left : 1);
	} while (now_seconds() < end);
}

static void group_signal(enum rp_sync_mode mode)
{
	rounds(mode, group_signal_round);
}

TEST_EACH_MODE(group_signal, group_signal, .timeout = 600)

/* ---- priorities ---- */

/* After a call: every thread of every member of G has @want. */
static int check_member(struct rp_task *p, void *arg)
{
	const int *want = arg;
	struct rp_task *t;

	/* Pairs with cds_list_add_tail_rcu of thread_node in clone (under this siglock). */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node)
		if (t->nice != want[0] || t->ioprio != want[1])
			uatomic_inc(&prio_bad);
	return 0;
}

static void *setter_main(void *arg)
{
	struct rp_task *z = arg;
	int want[2];

	rp_thread_register();
	for (int k = 0; running(); k++) {
		want[0] = k % 2 ? 5 : 10;
		want[1] = RP_IOPRIO_PRIO_VALUE(RP_IOPRIO_CLASS_BE, k % 8);
		cr_assert_eq(rp_setpriority(z, PRIO_PGRP, gid, want[0]), 0);
		cr_assert_eq(rp_ioprio_set(z, RP_IOPRIO_WHO_PGRP, gid, want[1]), 0);
		rp_read_lock(&sys->sync);
		rp_for_each_member_siglocked_rcu(sys, gid, check_member, want);
		rp_read_unlock(&sys->sync);
		uatomic_inc(&prio_calls);
	}
	rp_thread_unregister();
	return NULL;
}

static void prio_fork_round(enum rp_sync_mode mode, double seconds)
{
	struct world w = { 0 };
	pthread_t th[32];
	unsigned int n = start_round(mode, &w, th, false);

	pthread_create(&th[n++], NULL, setter_main, fork_of(init));
	stop_and_join(th, n, seconds);
	cr_log_info("prio_fork: %lu calls, %lu processes", prio_calls, nprocs);
	cr_assert_gt(prio_calls, 0);
	cr_assert_eq(prio_bad, 0, "I2: %lu threads kept an old value", prio_bad);
	release_all();
	stop_system();
}

static void prio_fork(enum rp_sync_mode mode)
{
	rounds(mode, prio_fork_round);
}

TEST_EACH_MODE(prio_fork, prio_fork, .timeout = 600)
