/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setpgid and setsid under rcu mode's update gate shared (docs/process.md,
 * protocol (c)): G of the moved process's group, T of it and of its real
 * parent, M of the ids the move changes.  Each test holds one operation
 * inside its locks at a race point and starts a second that must wait for
 * one of them (it reaches RP_RACE_TREE_WAITS or RP_RACE_MEMBER_WAITS,
 * which lets the first go on); a twin that leaves that lock out lets the
 * second run inside the first's window, and the test sees what it broke.
 * Also: which moves stay exclusive (more than eight threads), and the
 * answers under the shared gate are the exclusive gate's.
 */
#include <rcuproc/pgrp.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "task/jobc.h"
#include "task/relations.h"
#include "debug/racepoint.h"
#include "verify/verify.h"

/*
 * Hold the first thread that reaches @where with task @at until a thread
 * reaches @until with @at (it is about to wait for a lock the held one
 * holds), or until go.  A wait at another lock lets it go too, without
 * counting as the wait expected: the test then fails where it would
 * otherwise hang.  The held thread stays in its read section, online, as
 * the gate_ops tests' holds do.
 */
static struct {
	enum rp_race_point where, until;
	struct rp_task *at;
	int reached, go, waited;	/* uatomic */
	/* A second thread held, at @where2 with @at2, until go2 (hold_second). */
	enum rp_race_point where2;
	struct rp_task *at2;
	int reached2, go2;		/* uatomic */
} hold;

static void await_flag(const int *flag)
{
	while (!uatomic_read(flag))
		usleep(1000);
}

static void hook(enum rp_race_point where, struct rp_task *t)
{
	/* The gate's exclusive wait names no task. */
	if (where == hold.until && (!t || t == CMM_LOAD_SHARED(hold.at))) {
		uatomic_set(&hold.waited, 1);
		uatomic_set(&hold.go, 1);
	} else if (where == RP_RACE_MEMBER_WAITS || where == RP_RACE_TREE_WAITS ||
		   where == RP_RACE_GATE_EXCL_WAITS || where == RP_RACE_GATE_BACKS_OUT ||
		   where == RP_RACE_GROUP_WAITS) {
		uatomic_set(&hold.go, 1);
		uatomic_set(&hold.go2, 1);
	} else if (where == hold.where && t == CMM_LOAD_SHARED(hold.at) &&
		   !uatomic_cmpxchg(&hold.reached, 0, 1)) {
		await_flag(&hold.go);
	} else if (where == CMM_LOAD_SHARED(hold.where2) && t == CMM_LOAD_SHARED(hold.at2) &&
		   !uatomic_cmpxchg(&hold.reached2, 0, 1)) {
		await_flag(&hold.go2);
	}
}

/* Armed before job @j starts (it cannot pass first); returns once it is held. */
static void hold_job(struct job *j, long (*fn)(struct job *), struct rp_task *t,
		     enum rp_race_point where, struct rp_task *at, enum rp_race_point until)
{
	hold.where = where;
	hold.until = until;
	hold.at = at;
	rp_debug_race_hook(hook);
	job_start(j, fn, t);
	await_flag(&hold.reached);
}

/*
 * Beside the first hold, job @j runs @fn on @t and is held where @at
 * reaches @where, until go2 (or any thread's wait for a lock); returns
 * once it is held.
 */
static void hold_second(struct job *j, long (*fn)(struct job *), struct rp_task *t,
			enum rp_race_point where, struct rp_task *at)
{
	CMM_STORE_SHARED(hold.at2, at);
	CMM_STORE_SHARED(hold.where2, where);
	job_start(j, fn, t);
	await_flag(&hold.reached2);
}

/* The second job has returned: let the first go (a no-op if it went), and join it. */
static long let_go(struct job *j)
{
	uatomic_set(&hold.go, 1);
	return job_join(j);
}

static long setpgid_job(struct job *j)
{
	return rp_setpgid(j->t, j->pid, (pid_t)j->arg);
}

/*
 * @first's setpgid (@held's pid and arg) held at @where for @at until
 * @second's (@other's pid and arg), started then, waits at @until, or
 * returns; both answer 0.
 */
static void race_moves(struct job *held, struct rp_task *first, enum rp_race_point where,
		       struct rp_task *at, enum rp_race_point until, struct job *other,
		       struct rp_task *second)
{
	hold_job(held, setpgid_job, first, where, at, until);
	job_start(other, setpgid_job, second);
	cr_assert_eq(job_join(other), 0);
	cr_assert_eq(let_go(held), 0);
	rp_debug_race_hook(NULL);
}

static long setsid_job(struct job *j)
{
	return rp_setsid(j->t);
}

static long fork_job(struct job *j)
{
	struct rp_task *c = NULL;
	long ret = rp_fork(j->t, &c);

	j->arg = (long)(uintptr_t)c;
	return ret;
}

/* The task of the block of @pid's group or session id (whose byte M is). */
static struct rp_task *owner_of(struct rp_pid *pid)
{
	return &caa_container_of(pid, struct rp_process, pid)->task;
}

/* The attachments of @pid (its users without the terminals' holds). */
static unsigned int attachments(const struct rp_pid *pid)
{
	return CMM_LOAD_SHARED(pid->users) & 0xffffffu;
}

static int count_one(struct rp_task *p, void *arg)
{
	(void)p;
	++*(unsigned int *)arg;
	return 0;
}

/* The members of group @pgid, walked. */
static unsigned int members_of(pid_t pgid)
{
	unsigned int n = 0;

	rp_read_lock(&sys->sync);
	rp_for_each_member_rcu(sys, pgid, count_one, &n);
	rp_read_unlock(&sys->sync);
	return n;
}

/* The count of ties of the group that @t's process's pid names (its block holds it). */
static unsigned int jobc_of(struct rp_task *t)
{
	return uatomic_read(rp_pgrp_jobc(rp_signal_leader_pid(t->signal)));
}

/* The table walk (its recount of the ties among the rest) finds nothing wrong. */
static void expect_table_clean(void)
{
	struct rp_verify_report r = { 0 };

	cr_expect_eq(rp_verify_walk_table(sys, &r), 0, "table walk: %s", r.first[0]);
}

/* A child of init leading its own session. */
static struct rp_task *make_session(void)
{
	struct rp_task *sh = fork_of(init);

	cr_assert_eq(rp_setsid(sh), rp_getpid(sh));
	return sh;
}

/* A child of @parent leading a group of its own. */
static struct rp_task *group_of(struct rp_task *parent)
{
	struct rp_task *g = fork_of(parent);

	cr_assert_eq(rp_setpgid(g, 0, 0), 0);
	return g;
}

/* A child of init leading a group of its own, in *@leader, and a child of it in that group. */
static struct rp_task *member_of_new_group(struct rp_task **leader)
{
	*leader = group_of(init);
	return fork_of(*leader);
}

/*
 * Groups A (a, and x, a's child) and B (b, and y, b's child), and N (g):
 * a moves x into N while b moves y into N.  The two moves share only N's
 * M.  x's move is held inside its attach to N (the count read, not
 * stored); y's move then waits for N's M, which lets x's go on.  N ends
 * with three members and two more attachments.
 * RP_BREAK_SETPGID_MEMBER_UNLOCKED: y's move runs inside x's attach and
 * its attachment is lost, every time.
 */
Test(setpgid_shared, two_moves_into_one_group)
{
	struct rp_task *a, *b, *g, *x, *y;
	struct rp_pid *n;
	struct job jx, jy;
	unsigned int before;
	pid_t npid;

	start(RP_SYNC_RCU);
	x = member_of_new_group(&a);
	y = member_of_new_group(&b);
	g = group_of(init);
	npid = rp_getpid(g);
	n = g->signal->pgrp;
	before = attachments(n);
	jx.pid = rp_getpid(x);
	jx.arg = npid;
	jy.pid = rp_getpid(y);
	jy.arg = npid;
	race_moves(&jx, a, RP_RACE_MEMBER_ATTACH, owner_of(n), RP_RACE_MEMBER_WAITS, &jy, b);
	cr_expect(uatomic_read(&hold.waited), "a move into a group went in beside another");
	cr_expect_eq(attachments(n), before + 2,
		     "two moves into one group lost an attachment: %u, not %u", attachments(n),
		     before + 2);
	cr_expect_eq(members_of(npid), 3);
	cr_expect_eq(rp_getpgid(x, 0), npid);
	cr_expect_eq(rp_getpgid(y, 0), npid);
	end_child(a, x);
	end_child(b, y);
	end_child(init, g);
	end_child(init, b);
	end_child(init, a);
	finish_all_reaped();
}

static long reap_job(struct job *j)
{
	int status;

	return rp_wait4(j->t, j->pid, &status, 0, NULL);
}

/*
 * Session S (sh), its groups H (h, and b, h's child) and G (g alone, a
 * child of sh).
 * sh's reap of g ends G, which leaves S's list of groups under S's M,
 * held there; b's setpgid to a group of its own begins a group in S,
 * which then waits for that M (docs/process.md, protocol (i)) and lets
 * the reap go.  RP_BREAK_SESSION_UNLOCKED: the reap of a group's last
 * member takes no M of the session, and b's move goes in beside it,
 * every time.
 */
Test(setpgid_shared, group_born_waits_for_a_group_gone)
{
	struct rp_task *sh, *h, *b, *g;
	struct job jr, jb;
	pid_t gpid;

	start(RP_SYNC_RCU);
	sh = make_session();
	h = group_of(sh);
	b = fork_of(h);
	g = group_of(sh);
	gpid = rp_getpid(g);
	cr_assert_eq(rp_exit_group(g, 0), 0);
	jr.pid = gpid;
	hold_job(&jr, reap_job, sh, RP_RACE_GROUP_GONE, sh, RP_RACE_MEMBER_WAITS);
	jb.pid = rp_getpid(b);
	jb.arg = 0;
	job_start(&jb, setpgid_job, b);
	cr_assert_eq(job_join(&jb), 0);
	cr_assert_eq(let_go(&jr), gpid);
	rp_debug_race_hook(NULL);
	cr_expect(uatomic_read(&hold.waited),
		  "a group began in a session beside the end of another of its groups");
	cr_expect_eq(rp_getpgid(b, 0), rp_getpid(b));
	expect_table_clean();
	rp_task_put(g);
	end_child(h, b);
	end_child(sh, h);
	end_child(init, sh);
	finish_all_reaped();
}

/*
 * Session S (sh, its group S), with p in it.  p's setsid is held between
 * its two stores (RP_RACE_SESSION_STORED).  A reader that sees p in its
 * new group P must see it in session P: Linux's __set_special_pids
 * changes the session first.  RP_BREAK_PGRP_BEFORE_SESSION stores the
 * group first, and getpgid then getsid answer P, then S: p in a group of
 * its own name inside its old session, a state setsid never passes
 * through.
 */
Test(setsid_shared, group_not_seen_before_session)
{
	struct rp_task *sh, *p;
	struct job js;
	pid_t ppid, sid, pg, seen;

	start(RP_SYNC_RCU);
	sh = make_session();
	sid = rp_getpid(sh);
	p = fork_of(sh);
	ppid = rp_getpid(p);
	cr_assert_eq(rp_getsid(init, ppid), sid);
	hold_job(&js, setsid_job, p, RP_RACE_SESSION_STORED, p, RP_RACE_MEMBER_WAITS);
	pg = rp_getpgid(init, ppid);
	seen = rp_getsid(init, ppid);
	cr_expect(pg != ppid || seen == ppid,
		  "getpgid(%d) is its new group %d, then getsid(%d) its old session %d",
		  ppid, pg, ppid, seen);
	cr_assert_eq(let_go(&js), ppid);
	rp_debug_race_hook(NULL);
	cr_expect_eq(rp_getsid(init, ppid), ppid);
	expect_table_clean();
	end_child(sh, p);
	end_child(init, sh);
	finish_all_reaped();
}

/*
 * Session S (sh, its group S), with r and p in it.  r's fork is held
 * inside its attach to S (the count read, not stored); p's setsid, which
 * leaves group and session S, waits for S's M.  S ends with the child's
 * attachment and without p's (the group's: the session's id is held by
 * its groups, and group S keeps members).
 * RP_BREAK_SETPGID_MEMBER_UNLOCKED: the setsid runs inside the fork's
 * attach, and its detachments are lost, every time.
 */
Test(setsid_shared, waits_for_fork_into_its_group)
{
	struct rp_task *sh, *r, *p, *c;
	struct rp_pid *s;
	struct job jf, js;
	unsigned int before;

	start(RP_SYNC_RCU);
	sh = make_session();
	r = fork_of(sh);
	p = fork_of(sh);
	s = sh->signal->pgrp;
	cr_assert_eq(s, sh->signal->session);
	before = attachments(s);
	hold_job(&jf, fork_job, r, RP_RACE_MEMBER_ATTACH, owner_of(s), RP_RACE_MEMBER_WAITS);
	job_start(&js, setsid_job, p);
	cr_assert_eq(job_join(&js), rp_getpid(p));
	cr_assert_gt(let_go(&jf), 0);
	rp_debug_race_hook(NULL);
	c = (struct rp_task *)(uintptr_t)jf.arg;
	cr_expect(uatomic_read(&hold.waited), "a setsid went in beside a fork into its group");
	cr_expect_eq(attachments(s), before,
		     "a fork into a group and a setsid out of it: %u attachments, not %u",
		     attachments(s), before);
	cr_expect_eq(rp_getsid(c, 0), rp_getpid(sh));
	cr_expect_eq(rp_getsid(p, 0), rp_getpid(p));
	end_child(r, c);
	end_child(sh, r);
	end_child(sh, p);
	end_child(init, sh);
	finish_all_reaped();
}

/*
 * Session S (sh), groups Q (q), P (p, q's child), X (x) and Y (y), each
 * of the four tied to S's group by its leader's parent.  q moves itself
 * into X while p moves itself into Y: the pair (p, q) is a tie of P
 * before and of Y after, whatever the order, and each move counts it
 * from the other's fields.  q's move is held after its stores, before it
 * takes away the ties it broke (holding its own T, the pair's parent's);
 * p's move waits for q's T, and then counts the pair with q in X.
 * RP_BREAK_SETPGID_PARENT_TREE_UNLOCKED: p's move takes the pair away
 * from P and adds it to Y inside q's window, and q then takes it from Y
 * again: Y is one tie short, every time (the table walk's recount says
 * so).
 */
Test(setpgid_shared, tie_of_child_and_parent_moving)
{
	struct rp_task *sh, *q, *p, *x, *y;
	struct job jq, jp;
	pid_t xpid, ypid;

	start(RP_SYNC_RCU);
	sh = make_session();
	q = group_of(sh);
	p = group_of(q);
	x = group_of(sh);
	y = group_of(sh);
	xpid = rp_getpid(x);
	ypid = rp_getpid(y);
	cr_assert_eq(jobc_of(p), 1);
	jq.pid = 0;
	jq.arg = xpid;
	jp.pid = 0;
	jp.arg = ypid;
	race_moves(&jq, q, RP_RACE_JOBC_MOVED, q, RP_RACE_TREE_WAITS, &jp, p);
	cr_expect(uatomic_read(&hold.waited), "a move went in beside its parent's");
	cr_expect_eq(jobc_of(y), 2, "Y: %u ties, not 2 (y's and p's)", jobc_of(y));
	cr_expect_eq(jobc_of(x), 2, "X: %u ties, not 2 (x's and q's)", jobc_of(x));
	expect_table_clean();
	end_child(q, p);
	end_child(sh, q);
	end_child(sh, x);
	end_child(sh, y);
	end_child(init, sh);
	finish_all_reaped();
}

/* A walk of group A that moves P into N while it stands on P's proxy. */
static struct {
	struct rp_task *p, *mover;
	pid_t ppid, npid;
	unsigned int seen[4];		/* a, P, x, g: visits */
	struct rp_task *who[4];
} walk;

static int visit(struct rp_task *t, void *arg)
{
	struct job j = { .pid = walk.ppid, .arg = walk.npid };

	(void)arg;
	for (unsigned int i = 0; i < 4; i++)
		walk.seen[i] += t == walk.who[i];
	if (t == walk.p) {
		/* The move runs to its end while this walker stands on P. */
		job_start(&j, setpgid_job, walk.mover);
		cr_assert_eq(job_join(&j), 0);
	}
	return 0;
}

/*
 * I1 beside a move under the gate shared: a walk of group A (a, P, x in
 * list order: a fork links its child right behind its parent) stands on
 * P's proxy while a moves P into N (g), which the move does without
 * waiting for walkers; the walk goes on along A from P's retired proxy,
 * and meets x and never g.  RP_BREAK_RELINK_PROXY moves P's proxy itself
 * onto N's list: the walk follows it there, meets g and misses x, every
 * time.
 */
Test(setpgid_shared, walker_on_moved_proxy)
{
	struct rp_task *a, *x, *p, *g;
	pid_t apid;

	start(RP_SYNC_RCU);
	x = member_of_new_group(&a);
	p = fork_of(a);
	g = group_of(init);
	apid = rp_getpid(a);
	walk.p = p;
	walk.mover = a;
	walk.ppid = rp_getpid(p);
	walk.npid = rp_getpid(g);
	walk.who[0] = a;
	walk.who[1] = p;
	walk.who[2] = x;
	walk.who[3] = g;
	rp_read_lock(&sys->sync);
	rp_for_each_member_rcu(sys, apid, visit, NULL);
	rp_read_unlock(&sys->sync);
	cr_expect_eq(walk.seen[0], 1, "a: %u visits", walk.seen[0]);
	cr_expect_eq(walk.seen[1], 1, "P: %u visits", walk.seen[1]);
	cr_expect_eq(walk.seen[2], 1, "x, behind P on A, met %u times", walk.seen[2]);
	cr_expect_eq(walk.seen[3], 0, "g, on N, met by A's walk");
	cr_expect_eq(rp_getpgid(p, 0), walk.npid);
	end_child(a, x);
	end_child(a, p);
	end_child(init, g);
	end_child(init, a);
	finish_all_reaped();
}

static long thread_job(struct job *j)
{
	struct rp_task *c = NULL;
	long ret = rp_clone(j->t, THREAD_FLAGS, &c);

	j->arg = (long)(uintptr_t)c;
	return ret;
}

/*
 * @t's fork held after its read of its process's ids until @mover's
 * @fn (@js's pid and arg), a move of that process, waits for @t's T;
 * @fn answers @answer and the fork goes on.  The child.
 */
static struct rp_task *move_beside_thread_fork(struct rp_task *t, struct job *js,
					      long (*fn)(struct job *), struct rp_task *mover,
					      long answer)
{
	struct job jf;

	hold_job(&jf, fork_job, t, RP_RACE_FORK_IDS_READ, t, RP_RACE_TREE_WAITS);
	job_start(js, fn, mover);
	cr_assert_eq(job_join(js), answer);
	cr_expect(uatomic_read(&hold.waited), "a move went in beside a fork by another thread");
	cr_assert_gt(let_go(&jf), 0);
	rp_debug_race_hook(NULL);
	return (struct rp_task *)(uintptr_t)jf.arg;
}

/*
 * M (m and t, two threads) is in init's group.  t's fork has read M's
 * group and session under t's T and is held before it takes their M;
 * init's setpgid of M, under the gate shared, waits for t's T (M's
 * children hang on both threads' lists, and t's fork reads M's ids under
 * t's T).  The fork comes first: its child stays in the old group, on
 * the old group's list, and the ties are those of the table walk.
 * RP_BREAK_SETPGID_THREAD_TREES_UNLOCKED takes T of m alone: the move
 * runs inside t's fork's window, every time.
 */
Test(setpgid_shared, fork_by_another_thread_waits)
{
	struct rp_task *m, *t, *c;
	struct job js;
	pid_t mpid, old;
	unsigned int before;

	start(RP_SYNC_RCU);
	m = fork_of(init);
	t = thread_of(m);
	mpid = rp_getpid(m);
	old = rp_getpgid(m, 0);
	before = members_of(old);
	js.pid = mpid;
	js.arg = mpid;
	c = move_beside_thread_fork(t, &js, setpgid_job, init, 0);
	cr_expect_eq(rp_getpgid(m, 0), mpid);
	cr_expect_eq(rp_getpgid(c, 0), old, "the child followed its parent's move");
	cr_expect_eq(members_of(old), before, "the old group: %u members, not %u (M out, c in)",
		     members_of(old), before);
	cr_expect_eq(members_of(mpid), 1);
	expect_table_clean();
	end_child(t, c);
	end_task(t);
	end_child(init, m);
	finish_all_reaped();
}

/*
 * The same for setsid, called by a thread that is not its process's
 * leader: M (m, t, u) in init's group and session; t's fork is held
 * after its read of M's ids; u's setsid, under the gate shared, waits
 * for t's T.  The child stays in init's group and session, M leads its
 * own.  RP_BREAK_SETPGID_THREAD_TREES_UNLOCKED: the setsid runs inside
 * the fork's window, every time.
 */
Test(setsid_shared, by_a_thread_waits_for_another_threads_fork)
{
	struct rp_task *m, *t, *u, *c;
	struct job js;
	pid_t mpid, old;

	start(RP_SYNC_RCU);
	m = fork_of(init);
	t = thread_of(m);
	u = thread_of(m);
	mpid = rp_getpid(m);
	old = rp_getsid(m, 0);
	c = move_beside_thread_fork(t, &js, setsid_job, u, mpid);
	cr_expect_eq(rp_getsid(m, 0), mpid);
	cr_expect_eq(rp_getpgid(m, 0), mpid);
	cr_expect_eq(rp_getsid(c, 0), old, "the child followed its parent's setsid");
	cr_expect_eq(rp_getpgid(c, 0), old);
	expect_table_clean();
	end_child(t, c);
	end_task(u);
	end_task(t);
	end_child(init, m);
	finish_all_reaped();
}

/*
 * M (m, t) is moved by init (job @jm), held where M reaches @where; t
 * clones a thread meanwhile (it waits for G, which lets the move go on).
 * Returns the new thread; m and t in @m and @t.
 */
static struct rp_task *clone_beside_a_move(enum rp_race_point where, struct job *jm,
					   struct rp_task **m, struct rp_task **t)
{
	struct job jt;

	start(RP_SYNC_RCU);
	*m = fork_of(init);
	*t = thread_of(*m);
	jm->pid = rp_getpid(*m);
	jm->arg = jm->pid;
	hold_job(jm, setpgid_job, init, where, *m, RP_RACE_GROUP_WAITS);
	job_start(&jt, thread_job, *t);
	cr_assert_gt(job_join(&jt), 0);
	return (struct rp_task *)(uintptr_t)jt.arg;
}

/* The new thread u's child c is in M's new group, beside M; all end. */
static void end_moved_family(struct rp_task *m, struct rp_task *t, struct rp_task *u,
			     struct rp_task *c)
{
	pid_t mpid = rp_getpid(m);

	cr_expect_eq(rp_getpgid(m, 0), mpid);
	cr_expect_eq(rp_getpgid(c, 0), mpid, "u's child is not in M's new group");
	cr_expect_eq(members_of(mpid), 2);
	expect_table_clean();
	end_child(u, c);
	end_task(u);
	end_task(t);
	end_child(init, m);
	finish_all_reaped();
}

/*
 * M (m, t) is moved by init; the move is held after its stores, holding
 * G of M's group and T of both threads; t's clone of a third thread
 * waits for G (which freezes the thread list the move took T of).  The
 * new thread comes after the move, so its fork lands in M's new group.
 * RP_BREAK_SETPGID_GROUP_UNLOCKED takes no G: the clone then waits at T
 * of M's real parent instead, never at G, which `waited` sees every
 * time (clone_between_the_walk_and_the_locks, below, shows the harm).
 */
Test(setpgid_shared, thread_clone_waits_for_the_move)
{
	struct rp_task *m, *t, *u;
	struct job jm;

	u = clone_beside_a_move(RP_RACE_JOBC_MOVED, &jm, &m, &t);
	cr_expect(uatomic_read(&hold.waited), "a thread's clone went in beside a move of its process");
	cr_assert_eq(let_go(&jm), 0);
	rp_debug_race_hook(NULL);
	end_moved_family(m, t, u, fork_of(u));
}

/*
 * The hazard G keeps out: M (m, t) is moved by init, held after its walk
 * of M's thread list and before it takes the threads' T.  t clones u:
 * with G the clone waits for the move, and u is born after it.  Without
 * G (RP_BREAK_SETPGID_GROUP_UNLOCKED) u is linked now, a thread the move
 * walked past and takes no T of; u's fork reads M's ids under u's T and
 * is held there while the move ends; it then links its child against
 * the old group's ids (the debug build's assertion of M, else a child in
 * the group M left): the child must land in M's new group.
 */
Test(setpgid_shared, clone_between_the_walk_and_the_locks)
{
	struct rp_task *m, *t, *u;
	struct job jm, jf;

	u = clone_beside_a_move(RP_RACE_SETPGID_THREADS_READ, &jm, &m, &t);
	hold_second(&jf, fork_job, u, RP_RACE_FORK_IDS_READ, u);
	cr_assert_eq(let_go(&jm), 0);
	uatomic_set(&hold.go2, 1);
	cr_assert_gt(job_join(&jf), 0);
	rp_debug_race_hook(NULL);
	end_moved_family(m, t, u, (struct rp_task *)(uintptr_t)jf.arg);
}

/*
 * Q (q, q2) calls setpgid(N, N) for the number N its next child will
 * have, held after its first look by number, which found no task; q2's
 * fork of that child ends meanwhile.  The answer must come from the
 * first look (ESRCH: the fork came after), or from a look under the
 * child's locks (0, the child moved): a second look with no lock held
 * found the child, passed its checks and answered 0 with nothing moved
 * (the debug build's assertion of the child's T).
 */
Test(setpgid_shared, first_look_misses_a_fork)
{
	struct rp_task *q, *q2, *d, *c;
	struct job js, jf;
	pid_t next;
	long ret;

	start(RP_SYNC_RCU);
	q = fork_of(init);
	q2 = thread_of(q);
	d = fork_of(q);
	next = rp_getpid(d) + 1;
	end_child(q, d);
	js.pid = next;
	js.arg = next;
	hold_job(&js, setpgid_job, q, RP_RACE_SETPGID_FIRST_LOOK, q, RP_RACE_GROUP_WAITS);
	job_start(&jf, fork_job, q2);
	cr_assert_gt(job_join(&jf), 0);
	c = (struct rp_task *)(uintptr_t)jf.arg;
	cr_assert_eq(rp_getpid(c), next, "the child is %d, not the %d foreseen", rp_getpid(c), next);
	ret = let_go(&js);
	rp_debug_race_hook(NULL);
	cr_expect(ret == -ESRCH || (ret == 0 && rp_getpgid(c, 0) == next),
		  "setpgid(%d, %d) answered %ld, and the child's group is %d", next, next, ret,
		  rp_getpgid(c, 0));
	expect_table_clean();
	end_child(q2, c);
	end_task(q2);
	end_child(init, q);
	finish_all_reaped();
}

/* Its leader a zombie, a live thread calls setsid: Linux answers the tgid. */
Test(setsid_shared, by_a_thread_beside_a_zombie_leader)
{
	struct rp_task *m, *t;
	pid_t mpid;

	start(RP_SYNC_RCU);
	m = fork_of(init);
	t = thread_of(m);
	mpid = rp_getpid(m);
	cr_assert_eq(rp_exit(m, 0), 0);
	cr_expect_eq(rp_setsid(t), mpid);
	cr_expect_eq(rp_getsid(t, 0), mpid);
	cr_expect_eq(rp_getpgid(t, 0), mpid);
	expect_table_clean();
	cr_assert_eq(rp_exit_group(t, 0), 0);
	cr_assert_eq(rp_wait4(init, mpid, NULL, 0, NULL), mpid);
	rp_task_put(t);
	rp_task_put(m);
	finish_all_reaped();
}

/* Its leader a zombie, the parent moves the process: Linux answers 0. */
Test(setpgid_shared, process_of_a_zombie_leader)
{
	struct rp_task *m, *t, *c;
	pid_t mpid;

	start(RP_SYNC_RCU);
	m = fork_of(init);
	t = thread_of(m);
	c = fork_of(t);
	mpid = rp_getpid(m);
	cr_assert_eq(rp_exit(m, 0), 0);
	cr_expect_eq(rp_setpgid(init, mpid, mpid), 0);
	cr_expect_eq(rp_getpgid(t, 0), mpid);
	expect_table_clean();
	end_child(t, c);
	cr_assert_eq(rp_exit_group(t, 0), 0);
	cr_assert_eq(rp_wait4(init, mpid, NULL, 0, NULL), mpid);
	rp_task_put(t);
	rp_task_put(m);
	finish_all_reaped();
}

/* @n more threads of @m's process, in @t[]. */
static void add_threads(struct rp_task *m, struct rp_task **t, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		t[i] = thread_of(m);
}

/*
 * A child of init, the last member of a group (*@gpid) whose leader is
 * reaped: the group's id has no other user.
 */
static struct rp_task *last_of_its_group(pid_t *gpid)
{
	struct rp_task *g = group_of(init), *m = fork_of(g);

	*gpid = rp_getpid(g);
	end_child(init, g);
	cr_assert_eq(members_of(*gpid), 1);
	return m;
}

/* The threads add_threads made exit. */
static void end_threads(struct rp_task **t, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		end_task(t[i]);
}

/*
 * The most threads a move takes under the gate shared: eight, a T each,
 * held with the gate, G, the real parent's T, three M and then the
 * siglock or a bucket lock (the lock-order checker counts sixteen).  M
 * (eight threads) leaves by setsid a group whose leader is gone, so its
 * last detach takes that pid out of the hash under a bucket lock inside
 * the move's locks; the setsid goes in beside a fork by another process
 * held inside its link (the gate shared), and the old group is gone.
 */
Test(setsid_shared, eight_threads_beside_a_fork)
{
	struct rp_task *m, *t[7], *x, *c;
	struct job jf;
	pid_t mpid, gpid;

	start(RP_SYNC_RCU);
	m = last_of_its_group(&gpid);
	add_threads(m, t, 7);
	x = fork_of(init);
	mpid = rp_getpid(m);
	hold_job(&jf, fork_job, x, RP_RACE_FORK_SUBREAPER_COPY, x, RP_RACE_GATE_EXCL_WAITS);
	cr_assert_eq(rp_setsid(t[6]), mpid);
	cr_expect_not(uatomic_read(&hold.waited), "a setsid of eight threads took the gate exclusive");
	cr_assert_gt(let_go(&jf), 0);
	rp_debug_race_hook(NULL);
	c = (struct rp_task *)(uintptr_t)jf.arg;
	cr_expect_eq(rp_getpgid(m, 0), mpid);
	cr_expect_eq(members_of(gpid), 0);
	expect_table_clean();
	end_child(x, c);
	end_child(init, x);
	end_threads(t, 7);
	end_child(init, m);
	finish_all_reaped();
}

/*
 * A process of more threads than a move takes T of under the gate
 * shared (eight) is moved under the gate exclusive: setpgid of it waits
 * for a fork by one of them, held inside its link, as an exclusive taker
 * waits for a shared holder; the child stays in the old group.
 */
Test(setpgid_shared, many_threads_stay_exclusive)
{
	struct rp_task *m, *t[8], *c;
	struct job jf, js;
	pid_t mpid, old;

	start(RP_SYNC_RCU);
	m = fork_of(init);
	add_threads(m, t, 8);
	mpid = rp_getpid(m);
	old = rp_getpgid(m, 0);
	hold_job(&jf, fork_job, t[0], RP_RACE_FORK_SUBREAPER_COPY, t[0], RP_RACE_GATE_EXCL_WAITS);
	js.pid = mpid;
	js.arg = mpid;
	job_start(&js, setpgid_job, init);
	cr_assert_eq(job_join(&js), 0);
	cr_assert_gt(let_go(&jf), 0);
	rp_debug_race_hook(NULL);
	cr_expect(uatomic_read(&hold.waited), "a move of a process of nine threads went in shared");
	c = (struct rp_task *)(uintptr_t)jf.arg;
	cr_expect_eq(rp_getpgid(m, 0), mpid);
	cr_expect_eq(rp_getpgid(c, 0), old, "the child followed its parent's move");
	end_child(t[0], c);
	end_threads(t, 8);
	end_child(init, m);
	finish_all_reaped();
}
