/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces (docs/namespaces.md): each test asserts the answers this
 * machine's Linux (6.18) gave to the same calls, recorded there, in every
 * synchronization mode.
 */
#include <errno.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <criterion/criterion.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/snapshot.h>
#include "../fixture/fixture.h"
#include "../fixture/puppet.h"
#include "../fixture/racehold.h"
#include "../common.h"

/* @parent clones a child with @flags: the child, its pid as @parent sees it in *@nr. */
static struct rp_task *clone_of(struct rp_task *parent, unsigned long flags, pid_t *nr)
{
	struct rp_task *c = NULL;

	*nr = rp_clone(parent, flags, &c);
	cr_assert_gt(*nr, 0, "clone: %d", *nr);
	return c;
}

/* @p, @parent's child numbered @nr there, exits with @code and is reaped by @parent. */
static void reap(struct rp_task *parent, struct rp_task *p, pid_t nr, int code)
{
	int status = -1;

	cr_assert_eq(rp_exit_group(p, code), 0);
	cr_assert_eq(rp_wait4(parent, nr, &status, 0, NULL), nr);
	cr_assert_eq(status, EXITED(code));
	rp_task_put(p);
}

/* A child of init without CAP_SYS_ADMIN. */
static struct rp_task *unprivileged(pid_t *nr)
{
	struct rp_task *t = clone_of(init, SIGCHLD, nr);

	cr_assert_eq(rp_cap_drop(t, RP_CAP_SYS_ADMIN), 0);
	return t;
}

/*
 * A child of init (*@t, numbered *@tnr) that unshared its pid namespace,
 * and its first child there: that namespace's init, numbered *@inr by *@t.
 */
static struct rp_task *unshared_ns_init(struct rp_task **t, pid_t *tnr, pid_t *inr)
{
	*t = clone_of(init, SIGCHLD, tnr);
	cr_assert_eq(rp_unshare(*t, CLONE_NEWPID), 0);
	return clone_of(*t, SIGCHLD, inr);
}

/*
 * The end of unshared_ns_init's pair: the namespace's init @nsinit, which
 * exited with @code, is reaped by @t; @t ends and init reaps it.
 */
static void reap_unshared(struct rp_task *t, pid_t tnr, struct rp_task *nsinit, pid_t inr, int code)
{
	int status = -1;

	cr_assert_eq(rp_wait4(t, inr, &status, 0, NULL), inr);
	cr_assert_eq(status, EXITED(code));
	rp_task_put(nsinit);
	reap(init, t, tnr, 0);
	finish_all_reaped();
}

/*
 * clone(CLONE_NEWPID): the child is 1 in its namespace, its parent 0, its
 * group and session (init's, outside) 0; its child is 2 with parent 1; the
 * parent sees the child by its own number, in wait's return and waitid's
 * si_pid.
 */
Test(pidns, ids_inside_and_outside)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *child;
		siginfo_t si;
		pid_t outer, inner, outer_child;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		cr_assert_gt(outer, 1);
		cr_assert_eq(rp_getpid(nsinit), 1);
		cr_assert_eq(rp_gettid(nsinit), 1);
		cr_assert_eq(rp_getppid(nsinit), 0);
		cr_assert_eq(rp_getpgid(nsinit, 0), 0);
		cr_assert_eq(rp_getpgrp(nsinit), 0);
		cr_assert_eq(rp_getsid(nsinit, 0), 0);
		child = clone_of(nsinit, SIGCHLD, &inner);
		cr_assert_eq(inner, 2);
		cr_assert_eq(rp_getpid(child), 2);
		cr_assert_eq(rp_getppid(child), 1);
		cr_assert_eq(rp_getpgid(child, 0), 0);
		cr_assert_eq(rp_getpgid(nsinit, 2), 0);
		/* From outside, by outer numbers (a new table hands them out in order). */
		outer_child = outer + 1;
		cr_assert_eq(rp_getpgid(init, outer), 1);
		cr_assert_eq(rp_getsid(init, outer), 1);
		/* The child's outer number names nothing inside (ESRCH). */
		cr_assert_eq(rp_getpgid(nsinit, outer_child), -ESRCH);
		cr_assert_eq(rp_kill(nsinit, outer_child, 0), -ESRCH);
		cr_assert_eq(rp_kill(nsinit, 2, 0), 0);
		cr_assert_eq(rp_kill(init, outer_child, 0), 0);
		reap(nsinit, child, 2, 0);
		cr_assert_eq(rp_exit_group(nsinit, 3), 0);
		cr_assert_eq(rp_waitid(init, P_PID, (id_t)outer, &si, WEXITED), 0);
		cr_assert_eq(si.si_pid, outer);
		cr_assert_eq(si.si_status, 3);
		rp_task_put(nsinit);
		finish_all_reaped();
	}
}

/*
 * clone's flag checks with CLONE_NEWPID, and an init's CLONE_PARENT.
 * CLONE_NEWPID with CLONE_PARENT is refused only to an init, as any
 * CLONE_PARENT of an init (Linux 6.18: a plain process's gives a new
 * namespace's init, its caller's sibling).
 */
Test(pidns, clone_flags)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *plain, *forker, *sibling;
		pid_t outer, nr, fnr, snr;

		start(m);
		cr_assert_eq(rp_clone(init, CLONE_NEWPID | CLONE_PARENT | SIGCHLD, NULL), -EINVAL);
		cr_assert_eq(rp_clone(init, CLONE_NEWPID | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM,
				      NULL), -EINVAL);
		forker = clone_of(init, SIGCHLD, &fnr);
		snr = rp_clone(forker, CLONE_NEWPID | CLONE_PARENT | SIGCHLD, &sibling);
		cr_assert_gt(snr, 0, "a plain process's CLONE_NEWPID | CLONE_PARENT");
		cr_assert_eq(rp_getpid(sibling), 1);
		cr_assert_eq(rp_getppid(sibling), 0, "its parent, init, is outside");
		reap(init, sibling, snr, 0);
		reap(init, forker, fnr, 0);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		/* A namespace's init makes no siblings either. */
		cr_assert_eq(rp_clone(nsinit, CLONE_PARENT | SIGCHLD, NULL), -EINVAL);
		plain = unprivileged(&nr);
		cr_assert_eq(rp_clone(plain, CLONE_NEWPID | SIGCHLD, NULL), -EPERM);
		cr_assert_eq(rp_unshare(plain, CLONE_NEWPID), -EPERM);
		cr_assert_eq(rp_unshare(plain, CLONE_NEWNS), -EINVAL);
		reap(init, plain, nr, 0);
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * si_pid: a sender in an ancestor namespace is 0 to the receiver; one in
 * the same namespace, its number there; SIGCHLD names the child as its
 * parent's namespace numbers it.
 */
Test(pidns, sender_pid)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *child;
		siginfo_t si;
		pid_t outer, inner;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		handle(nsinit, SIGUSR1);
		handle(nsinit, SIGCHLD);
		cr_assert_eq(rp_kill(init, outer, SIGUSR1), 0);
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 0);
		child = clone_of(nsinit, SIGCHLD, &inner);
		cr_assert_eq(rp_kill(child, 1, SIGUSR1), 0);
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 2);
		cr_assert_eq(rp_tgkill(child, 1, 1, SIGUSR1), 0);
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 2);
		cr_assert_eq(rp_exit_group(child, 0), 0);
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGCHLD);
		cr_assert_eq(si.si_pid, 2);
		cr_assert_eq(rp_wait4(nsinit, -1, NULL, 0, NULL), 2);
		rp_task_put(child);
		handle(init, SIGCHLD);
		cr_assert_eq(rp_exit_group(nsinit, 0), 0);
		cr_assert_eq(rp_get_signal(init, &si), SIGCHLD);
		cr_assert_eq(si.si_pid, outer);
		cr_assert_eq(rp_wait4(init, -1, NULL, 0, NULL), outer);
		rp_task_put(nsinit);
		finish_all_reaped();
	}
}

/*
 * A group kill from inside a namespace reaches the group's members
 * outside it too (kill(0) walks the group, whatever the namespaces):
 * those see the sender, so si_pid is left as the sender filled it, its
 * own number in its own namespace, not theirs for it (asked of Linux
 * 6.18: a CLONE_NEWPID child's child, 2 inside, killed its group, whose
 * leader outside got si_pid 2).  A receiver that does not see the sender
 * is not among them, so no 0 is written (docs/namespaces.md).
 */
Test(pidns, group_kill_to_parent_namespace)
{
	FOR_EACH_MODE(m) {
		struct rp_task *leader, *nsinit, *child;
		pid_t lnr, outer, inner;
		siginfo_t si;

		start(m);
		leader = clone_of(init, SIGCHLD, &lnr);
		cr_assert_eq(rp_setpgid(leader, 0, 0), 0);
		handle(leader, SIGUSR1);
		nsinit = clone_of(leader, CLONE_NEWPID | SIGCHLD, &outer);
		handle(nsinit, SIGUSR1);
		child = clone_of(nsinit, SIGCHLD, &inner);
		cr_assert_eq(inner, 2);
		handle(child, SIGUSR1);
		cr_assert_eq(rp_kill(child, 0, SIGUSR1), 0);
		cr_assert_eq(rp_get_signal(leader, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 2, "the sender's number where it is, not where the receiver is");
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 2);
		cr_assert_eq(rp_get_signal(child, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 2);
		reap(nsinit, child, inner, 0);
		reap(leader, nsinit, outer, 0);
		reap(init, leader, lnr, 0);
		finish_all_reaped();
	}
}

/*
 * unshare(CLONE_NEWPID): the caller stays, its next child is 1 of the new
 * namespace; a second unshare, clone(CLONE_NEWPID) and a thread fail with
 * EINVAL until then; once that init is gone, a fork fails with ENOMEM;
 * setns back to the caller's own namespace forks there again.
 */
/*
 * M, a member of N (M's number there mnr), has a child C whose pdeath
 * signal is SIGUSR1; M exits.  Linux sends the pdeath signal as
 * SEND_SIG_NOINFO from M: si_pid is M's number in C's namespace (the one
 * C's getppid gave), not its root number.
 */
Test(pidns, pdeath_si_pid_in_the_childs_namespace)
{
	FOR_EACH_MODE(mode) {
		struct rp_task *u, *n, *m, *c;
		pid_t unr, nnr, mnr;
		siginfo_t si;

		start(mode);
		n = unshared_ns_init(&u, &unr, &nnr);
		m = fork_of(n);
		c = fork_of(m);
		mnr = rp_getpid(m);
		cr_assert_eq(rp_getppid(c), mnr);
		handle(c, SIGUSR1);
		cr_assert_eq(rp_prctl(c, PR_SET_PDEATHSIG, SIGUSR1), 0);
		cr_assert_eq(rp_exit_group(m, 0), 0);
		cr_assert_eq(rp_getppid(c), 1);
		cr_assert_eq(rp_get_signal(c, &si), SIGUSR1);
		cr_expect_eq(si.si_pid, mnr, "%s: pdeath si_pid %d, M is %d in C's namespace",
			     rp_sync_mode_name(mode), si.si_pid, mnr);
		cr_assert_eq(rp_wait4(n, mnr, NULL, 0, NULL), mnr);
		rp_task_put(m);
		end_child(n, c);
		cr_assert_eq(rp_exit_group(n, 0), 0);
		reap_unshared(u, unr, n, nnr, 0);
	}
}

/*
 * F, a member of N1, unshares and forks I2, the init of N2, whose pdeath
 * signal is SIGKILL (what unshare --fork --pid --kill-child relies on).
 * F exits: Linux's SEND_SIG_NOINFO from F is forced (F has no number in
 * N2: send_signal_locked), so I2 takes the SIGKILL that an init drops
 * from inside its namespace.
 */
Test(pidns, pdeath_kill_reaches_a_namespace_init)
{
	FOR_EACH_MODE(mode) {
		struct rp_task *u, *n, *f, *i2;
		pid_t unr, nnr, fnr, inr;
		int status = -1, got;

		start(mode);
		n = unshared_ns_init(&u, &unr, &nnr);
		f = fork_of(n);
		fnr = rp_getpid(f);
		cr_assert_eq(rp_unshare(f, CLONE_NEWPID), 0);
		inr = rp_fork(f, &i2);
		cr_assert_gt(inr, 0);
		cr_assert_eq(rp_getpid(i2), 1);
		cr_assert_eq(rp_prctl(i2, PR_SET_PDEATHSIG, SIGKILL), 0);
		cr_assert_eq(rp_exit_group(f, 0), 0);
		cr_assert_eq(rp_wait4(n, fnr, NULL, 0, NULL), fnr);
		/* A task that takes a fatal signal dies in rp_get_signal: -ESRCH. */
		got = rp_get_signal(i2, NULL);
		cr_expect_eq(got, -ESRCH, "%s: N2's init, pdeath signal SIGKILL, survived its "
			     "parent's death (rp_get_signal %d)", rp_sync_mode_name(mode), got);
		rp_task_put(f);
		if (got != -ESRCH)
			cr_assert_eq(rp_exit_group(i2, 0), 0);
		rp_task_put(i2);
		cr_assert_gt(rp_wait4(n, -1, &status, 0, NULL), 1);
		cr_expect_eq(status, got == -ESRCH ? KILLED_BY(SIGKILL) : EXITED(0));
		cr_assert_eq(rp_exit_group(n, 0), 0);
		reap_unshared(u, unr, n, nnr, 0);
	}
}

Test(pidns, unshare_and_setns)
{
	FOR_EACH_MODE(m) {
		struct rp_task *t, *first, *second, *back;
		struct rp_pidns *own, *children;
		pid_t tnr, nr, nr2;

		start(m);
		t = clone_of(init, SIGCHLD, &tnr);
		cr_assert_eq(rp_unshare(t, CLONE_NEWPID), 0);
		cr_assert_eq(rp_getpid(t), tnr);
		cr_assert_eq(rp_unshare(t, CLONE_NEWPID), -EINVAL);
		cr_assert_eq(rp_clone(t, CLONE_NEWPID | SIGCHLD, NULL), -EINVAL);
		cr_assert_eq(rp_clone(t, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, NULL), -EINVAL);
		cr_assert_eq(rp_pidns_open(t, tnr, 0, &own), 0);
		/* No handle of a namespace for children before its init (ENOENT). */
		cr_assert_eq(rp_pidns_open(init, tnr, 1, &children), -ENOENT);
		first = clone_of(t, SIGCHLD, &nr);
		cr_assert_eq(rp_pidns_open(init, tnr, 1, &children), 0);
		cr_assert_neq(own, children);
		cr_assert_eq(rp_getpid(first), 1);
		cr_assert_eq(rp_getppid(first), 0);
		/* The caller's next child goes there too: pid 2, its parent outside. */
		second = clone_of(t, SIGCHLD, &nr2);
		cr_assert_eq(rp_getpid(second), 2);
		cr_assert_eq(rp_getppid(second), 0);
		cr_assert_eq(rp_kill(first, 2, 0), 0);
		reap(t, second, nr2, 0);
		reap(t, first, nr, 0);
		cr_assert_eq(rp_fork(t, NULL), -ENOMEM);
		/* setns: a pid namespace handle only, into the caller's own again. */
		cr_assert_eq(rp_setns(t, own, CLONE_NEWNS), -EINVAL);
		cr_assert_eq(rp_setns(t, own, CLONE_NEWPID), 0);
		back = clone_of(t, SIGCHLD, &nr);
		cr_assert_eq(rp_getpid(back), nr);
		cr_assert_eq(rp_getppid(back), tnr);
		reap(t, back, nr, 0);
		/* Into the dead namespace, below the caller's: allowed, and forks fail. */
		cr_assert_eq(rp_setns(t, children, 0), 0);
		cr_assert_eq(rp_fork(t, NULL), -ENOMEM);
		rp_pidns_put(own);
		rp_pidns_put(children);
		reap(init, t, tnr, 0);
		finish_all_reaped();
	}
}

/* setns refuses a namespace above the caller's, and without CAP_SYS_ADMIN. */
Test(pidns, setns_refused)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *plain;
		struct rp_pidns *root, *nested;
		pid_t outer, nr;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		cr_assert_eq(rp_pidns_open(init, 1, 0, &root), 0);
		cr_assert_eq(rp_pidns_open(init, outer, 0, &nested), 0);
		cr_assert_eq(rp_setns(nsinit, root, CLONE_NEWPID), -EINVAL);
		cr_assert_eq(rp_setns(nsinit, nested, CLONE_NEWPID), 0);
		/* Not seen from inside: the root's pid 1 is the namespace's init there. */
		cr_assert_eq(rp_pidns_open(nsinit, outer, 0, &root), -ESRCH);
		plain = unprivileged(&nr);
		cr_assert_eq(rp_setns(plain, nested, CLONE_NEWPID), -EPERM);
		reap(init, plain, nr, 0);
		rp_pidns_put(root);
		rp_pidns_put(nested);
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * NS_GET_PARENT (Linux 6.18, asked as root): a namespace's parent is handed
 * to a caller that is in it or above it; the root's parent, and a parent
 * above the caller's own namespace, are EPERM.
 */
Test(pidns, parent_handle)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *inner;
		struct rp_pidns *root, *level1, *level2, *up = NULL;
		pid_t outer, inr;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		inner = clone_of(nsinit, CLONE_NEWPID | SIGCHLD, &inr);
		cr_assert_eq(rp_pidns_open(init, 1, 0, &root), 0);
		cr_assert_eq(rp_pidns_open(init, outer, 0, &level1), 0);
		cr_assert_eq(rp_pidns_open(nsinit, inr, 0, &level2), 0);
		cr_assert_eq(rp_pidns_parent(init, root, &up), -EPERM);
		cr_assert_eq(rp_pidns_parent(init, level2, &up), 0);
		cr_assert_eq(up, level1);
		rp_pidns_put(up);
		cr_assert_eq(rp_pidns_parent(init, level1, &up), 0);
		cr_assert_eq(up, root);
		rp_pidns_put(up);
		/* From inside level 1: its own namespace's parent is above it. */
		cr_assert_eq(rp_pidns_parent(nsinit, level2, &up), 0);
		cr_assert_eq(up, level1);
		rp_pidns_put(up);
		cr_assert_eq(rp_pidns_parent(nsinit, level1, &up), -EPERM);
		cr_assert_eq(rp_pidns_parent(inner, level2, &up), -EPERM);
		rp_pidns_put(root);
		rp_pidns_put(level1);
		rp_pidns_put(level2);
		reap(nsinit, inner, inr, 0);
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * 32 levels below the root and no more: clone and unshare both fail with
 * ENOSPC at level 32 (Linux's MAX_PID_NS_LEVEL); each init is pid 1 and
 * its parent's child by the parent's number.
 */
Test(pidns, nesting_limit)
{
	FOR_EACH_MODE(m) {
		struct rp_task *level[33];
		pid_t nr[33];

		start(m);
		level[0] = rp_task_get(init);
		for (int i = 1; i <= 32; i++) {
			level[i] = clone_of(level[i - 1], CLONE_NEWPID | SIGCHLD, &nr[i]);
			cr_assert_eq(rp_getpid(level[i]), 1);
			/* The first child after init, in its parent's namespace too. */
			cr_assert_eq(nr[i], 2, "level %d numbered %d", i, nr[i]);
		}
		cr_assert_eq(rp_clone(level[32], CLONE_NEWPID | SIGCHLD, NULL), -ENOSPC);
		cr_assert_eq(rp_unshare(level[32], CLONE_NEWPID), -ENOSPC);
		cr_assert_eq(rp_unshare(level[31], CLONE_NEWPID), 0);
		for (int i = 32; i >= 1; i--)
			reap(level[i - 1], level[i], nr[i], 0);
		rp_task_put(level[0]);
		finish_all_reaped();
	}
}

/* @parent forks a child and reaps it: the child's number as @parent sees it. */
static pid_t fork_reap(struct rp_task *parent)
{
	struct rp_task *c = NULL;
	pid_t nr = rp_fork(parent, &c);

	cr_assert_gt(nr, 0, "fork: %d", nr);
	reap(parent, c, nr, 0);
	return nr;
}

/* @self's handle of its own namespace. */
static struct rp_pidns *own_ns(struct rp_task *self)
{
	struct rp_pidns *ns = NULL;

	cr_assert_eq(rp_pidns_open(self, rp_getpid(self), 0, &ns), 0);
	return ns;
}

/*
 * A new namespace's pid_max is PID_MAX_LIMIT, not its parent's (Linux
 * 6.18: 4194304 inside while the root's was 32768): with the root's at
 * 400 when the namespace is made and raised after, the namespace's
 * numbers go on past 400 without wrapping.
 */
Test(pidns, new_namespace_pid_max_not_inherited)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit;
		pid_t outer;

		start_with(m, 400);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		cr_assert_eq(rp_system_set_pid_max(sys, RP_PID_MAX_DEFAULT), 0);
		for (pid_t want = 2; want <= 401; want++) {
			pid_t nr = fork_reap(nsinit);

			cr_assert_eq(nr, want, "the namespace's fork %d numbered %d", want - 1, nr);
		}
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * pid_max and ns_last_pid per namespace, with the answers of Linux 6.18
 * (docs/namespaces.md): each level's numbers below its own pid_max; the
 * next fork after ns_last_pid N is N + 1; past pid_max it wraps to 300;
 * the ranges (EINVAL) and who may write (EACCES, EPERM).
 */
Test(pidns, sysctl_per_namespace)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *nocap, *user;
		struct rp_pidns *root, *ns;
		pid_t outer, nr, unr;

		start(m);
		root = own_ns(init);
		cr_assert_eq(rp_pidns_pid_max(root), RP_PID_MAX_DEFAULT);
		cr_assert_eq(rp_pidns_set_pid_max(init, root, 1000), 0);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		ns = own_ns(nsinit);
		cr_assert_eq(rp_pidns_pid_max(ns), RP_PID_MAX_LIMIT);
		cr_assert_eq(rp_pidns_last_pid(ns), 1);
		/* Inside past the root's pid_max: the root's number stays below its own. */
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, ns, 1500), 0);
		cr_assert_eq(rp_pidns_last_pid(ns), 1500);
		nr = fork_reap(nsinit);
		cr_assert_eq(nr, 1501);
		cr_assert_eq(rp_pidns_last_pid(ns), 1501);
		cr_assert_lt(rp_pidns_last_pid(root), 1000);
		/* The ranges: pid_max 301..PID_MAX_LIMIT, ns_last_pid 0..pid_max. */
		cr_assert_eq(rp_pidns_set_pid_max(nsinit, ns, RP_PID_MAX_MIN - 1), -EINVAL);
		cr_assert_eq(rp_pidns_set_pid_max(nsinit, ns, RP_PID_MAX_LIMIT + 1), -EINVAL);
		cr_assert_eq(rp_pidns_set_pid_max(nsinit, ns, RP_PID_MAX_LIMIT), 0);
		cr_assert_eq(rp_pidns_set_pid_max(nsinit, ns, 1000), 0);
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, ns, -1), -EINVAL);
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, ns, 1001), -EINVAL);
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, ns, 1000), 0);
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, ns, 998), 0);
		cr_assert_eq(fork_reap(nsinit), 999);
		cr_assert_eq(fork_reap(nsinit), 300, "past pid_max: the wrap to 300");
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, ns, 0), 0);
		cr_assert_eq(fork_reap(nsinit), 2, "1 is init's");
		/* Only the caller's namespace or one below: the root's is above nsinit's. */
		cr_assert_eq(rp_pidns_set_last_pid(nsinit, root, 5), -EINVAL);
		cr_assert_eq(rp_pidns_set_pid_max(nsinit, root, 5000), -EINVAL);
		cr_assert_eq(rp_pidns_set_last_pid(init, ns, 10), 0);
		/*
		 * uid 0 without CAP_SYS_ADMIN: pid_max yes; ns_last_pid with
		 * CAP_CHECKPOINT_RESTORE, EPERM without it too.
		 */
		nocap = clone_of(nsinit, SIGCHLD, &nr);
		cr_assert_eq(nr, 11);
		cr_assert_eq(rp_cap_drop(nocap, RP_CAP_SYS_ADMIN), 0);
		cr_assert_eq(rp_pidns_set_pid_max(nocap, ns, 2000), 0);
		cr_assert_eq(rp_pidns_set_last_pid(nocap, ns, 11), 0, "CAP_CHECKPOINT_RESTORE");
		cr_assert_eq(rp_cap_drop(nocap, RP_CAP_CHECKPOINT_RESTORE), 0);
		cr_assert_eq(rp_pidns_set_last_pid(nocap, ns, 100), -EPERM);
		/* Neither uid 0 nor CAP_SYS_ADMIN: the pid_max file does not open. */
		user = clone_of(nsinit, SIGCHLD, &unr);
		cr_assert_eq(rp_setresuid(user, 1000, 1000, 1000), 0);
		cr_assert_eq(rp_pidns_set_pid_max(user, ns, 3000), -EACCES);
		cr_assert_eq(rp_pidns_set_last_pid(user, ns, 100), -EPERM);
		cr_assert_eq(rp_pidns_pid_max(ns), 2000);
		reap(nsinit, user, unr, 0);
		reap(nsinit, nocap, nr, 0);
		rp_pidns_put(ns);
		rp_pidns_put(root);
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * clone3 with set_tid: @self's child numbered @tids (innermost first),
 * @flags added; the child's number as @self sees it, or -errno.  A child
 * made is reaped at once (by @self, or by @self's namespace init's parent
 * for a CLONE_NEWPID child: @self).
 */
static pid_t clone3_tids(struct rp_task *self, unsigned long flags, const pid_t *tids, size_t n)
{
	struct rp_clone_args args = { .flags = flags, .exit_signal = SIGCHLD,
				      .set_tid = tids, .set_tid_size = n };
	struct rp_task *c = NULL;
	pid_t nr = rp_clone3(self, &args, sizeof(args), &c);

	if (nr > 0)
		reap(self, c, nr, 0);
	return nr;
}

#define TIDS(...)	(const pid_t[]){ __VA_ARGS__ }, sizeof((pid_t[]){ __VA_ARGS__ }) / sizeof(pid_t)

/*
 * set_tid: the answers of Linux 6.18 (docs/namespaces.md), in a namespace
 * at level 1 whose pid_max is 40000 while the root's is 32768.
 */
Test(pidns, clone3_set_tid)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *nocap, *live;
		struct rp_pidns *ns;
		pid_t outer, nr, lnr;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		ns = own_ns(nsinit);
		cr_assert_eq(rp_pidns_set_pid_max(nsinit, ns, 40000), 0);
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(700)), 700);
		cr_assert_eq(rp_pidns_last_pid(ns), 1, "set_tid leaves ns_last_pid");
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(1)), -EEXIST, "init is 1");
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(0)), -EINVAL);
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(40000)), -EINVAL, "at pid_max");
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(35000)), 35000, "past the root's pid_max");
		/* Both levels given: the root's number is 701 too, init reads it from outside. */
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(701, 701)), 701);
		cr_assert_eq(clone3_tids(nsinit, 0, TIDS(702, 702, 702)), -EINVAL, "3 levels at level 1");
		cr_assert_eq(clone3_tids(nsinit, 0, NULL, 1), -EINVAL);
		cr_assert_eq(clone3_tids(nsinit, 0, (const pid_t[]){ 1 }, 0), -EINVAL);
		cr_assert_eq(clone3_tids(nsinit, 0, (const pid_t[33]){ 1 }, 33), -EINVAL);
		/* A new namespace: its own number must be 1. */
		cr_assert_eq(clone3_tids(nsinit, CLONE_NEWPID, TIDS(1, 703, 703)), 703);
		cr_assert_eq(clone3_tids(nsinit, CLONE_NEWPID, TIDS(5)), -EINVAL);
		cr_assert_gt(clone3_tids(nsinit, CLONE_NEWPID, TIDS(1)), 1);
		cr_assert_eq(clone3_tids(nsinit, CLONE_NEWPID, TIDS(1, 704)), 704);
		cr_assert_eq(clone3_tids(nsinit, CLONE_NEWPID, TIDS(1, 1)), -EEXIST);
		cr_assert_eq(clone3_tids(nsinit, CLONE_NEWPID, TIDS(1, 705, 1, 9)), -EINVAL);
		/* A number in use. */
		live = clone_of(nsinit, SIGCHLD, &lnr);
		cr_assert_eq(clone3_tids(nsinit, 0, &lnr, 1), -EEXIST);
		/*
		 * checkpoint_restore_ns_capable: CAP_SYS_ADMIN or
		 * CAP_CHECKPOINT_RESTORE.  Without both: EPERM, after the
		 * range's EINVAL (Linux 6.18, capset in the caller).
		 */
		nocap = clone_of(nsinit, SIGCHLD, &nr);
		cr_assert_eq(rp_cap_drop(nocap, RP_CAP_SYS_ADMIN), 0);
		cr_assert_eq(clone3_tids(nocap, 0, TIDS(709)), 709, "CAP_CHECKPOINT_RESTORE is enough");
		cr_assert_eq(rp_cap_drop(nocap, RP_CAP_CHECKPOINT_RESTORE), 0);
		cr_assert_eq(clone3_tids(nocap, 0, TIDS(710)), -EPERM);
		cr_assert_eq(clone3_tids(nocap, 0, TIDS(0)), -EINVAL);
		reap(nsinit, nocap, nr, 0);
		reap(nsinit, live, lnr, 0);
		rp_pidns_put(ns);
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * set_tid into a namespace without init: before its first child, only 1
 * (EINVAL for another number); once that init is reaped, ENOMEM for any
 * (Linux 6.18); 32 levels down, CLONE_NEWPID with set_tid is ENOSPC; the
 * argument checks of clone3 itself.
 */
Test(pidns, clone3_set_tid_no_init)
{
	FOR_EACH_MODE(m) {
		struct rp_task *t, *deep[33];
		struct rp_clone_args args = { .exit_signal = SIGCHLD };
		pid_t tnr, nr[33], first;

		start(m);
		t = clone_of(init, SIGCHLD, &tnr);
		cr_assert_eq(rp_unshare(t, CLONE_NEWPID), 0);
		cr_assert_eq(clone3_tids(t, 0, TIDS(5)), -EINVAL);
		first = clone3_tids(t, 0, TIDS(1));
		cr_assert_gt(first, 1, "the unsharer sees its init by its own number");
		cr_assert_eq(rp_fork(t, NULL), -ENOMEM);
		cr_assert_eq(clone3_tids(t, 0, TIDS(7)), -ENOMEM);
		cr_assert_eq(clone3_tids(t, 0, TIDS(1)), -ENOMEM);
		reap(init, t, tnr, 0);
		deep[0] = rp_task_get(init);
		for (int i = 1; i <= 32; i++)
			deep[i] = clone_of(deep[i - 1], CLONE_NEWPID | SIGCHLD, &nr[i]);
		cr_assert_eq(clone3_tids(deep[32], CLONE_NEWPID, TIDS(1)), -ENOSPC);
		cr_assert_eq(clone3_tids(deep[32], CLONE_NEWPID, NULL, 0), -ENOSPC);
		for (int i = 32; i >= 1; i--)
			reap(deep[i - 1], deep[i], nr[i], 0);
		rp_task_put(deep[0]);
		/* clone3's own checks: the exit signal in its field only, a known size. */
		args.flags = SIGCHLD;
		cr_assert_eq(rp_clone3(init, &args, sizeof(args), NULL), -EINVAL);
		args.flags = 0;
		args.exit_signal = 65;
		cr_assert_eq(rp_clone3(init, &args, sizeof(args), NULL), -EINVAL);
		args.exit_signal = SIGCHLD;
		cr_assert_eq(rp_clone3(init, &args, sizeof(args) - 1, NULL), -EINVAL);
		finish_all_reaped();
	}
}

/*
 * /proc/PID/status's NSpid: the task's numbers from the reader's namespace
 * down to its own.  Linux 6.18, a namespace's init forked by one at level 1
 * (18173 outside), its child: "NSpid: 18175 3 2" read from the root, "3 2"
 * from a /proc of level 1; the level-2 init "18174 2 1" and "2 1".
 */
Test(pidns, proc_nspid)
{
	FOR_EACH_MODE(m) {
		struct rp_task *l1, *l2, *c;
		pid_t n1, n2, nc, nsp[4] = { 0 };

		start(m);
		l1 = clone_of(init, CLONE_NEWPID | SIGCHLD, &n1);
		l2 = clone_of(l1, CLONE_NEWPID | SIGCHLD, &n2);
		c = clone_of(l2, SIGCHLD, &nc);
		cr_assert_eq(rp_proc_nspid(init, 1, nsp, 4), 1);
		cr_assert_eq(nsp[0], 1);
		cr_assert_eq(rp_proc_nspid(init, n1 + 2, nsp, 4), 3);
		cr_assert_eq(nsp[0], n1 + 2);
		cr_assert_eq(nsp[1], 3);
		cr_assert_eq(nsp[2], 2);
		cr_assert_eq(rp_proc_nspid(l1, 3, nsp, 4), 2);
		cr_assert_eq(nsp[0], 3);
		cr_assert_eq(nsp[1], 2);
		cr_assert_eq(rp_proc_nspid(l1, n2, nsp, 1), 2, "cut short, the count all the same");
		cr_assert_eq(nsp[0], n2);
		cr_assert_eq(rp_proc_nspid(l2, 2, nsp, 4), 1);
		cr_assert_eq(nsp[0], 2);
		cr_assert_eq(rp_proc_nspid(l2, n1 + 2, nsp, 4), -ESRCH, "the outer number names nothing");
		reap(l2, c, nc, 0);
		cr_assert_eq(rp_proc_nspid(init, n1 + 2, nsp, 4), -ESRCH);
		reap(l1, l2, n2, 0);
		reap(init, l1, n1, 0);
		finish_all_reaped();
	}
}

/* The child of the last fork_job. */
static struct rp_task *forked;

static long fork_job(struct job *j)
{
	return rp_fork(j->t, &forked);
}

/* exit_group(j->arg) as the job's task. */
static long exit_job(struct job *j)
{
	return rp_exit_group(j->t, (int)j->arg);
}

/*
 * The unsharer forks into its namespace, held after it took its numbers
 * and before the update lock (RP_RACE_FORK_LINKS); meanwhile the
 * namespace's init exits (nobody has reaped it).  The fork must fail with
 * ENOMEM, every time: the unsharer is outside the namespace, so its end
 * does not kill it, and a child linked now would live on in a namespace
 * whose end killed the others.  Caught: RP_BREAK_PIDNS_CHECK_EARLY (the
 * check made before the hold).
 */
static void init_exits_during_fork(enum rp_sync_mode mode)
{
	struct job c;
	struct rp_task *t, *first;
	pid_t tnr, nr1;
	long ret;

	start(mode);
	first = unshared_ns_init(&t, &tnr, &nr1);
	forked = NULL;
	arm(RP_RACE_FORK_LINKS, t, true, true);
	job_start(&c, fork_job, t);
	cr_assert(await_reached(1), "the fork never reached its link");
	cr_assert_eq(rp_exit_group(first, 0), 0);
	release();
	ret = job_join(&c);
	rp_debug_race_hook(NULL);
	if (forked) {		/* the escaped child, ended before the verdict */
		cr_assert_eq(rp_exit_group(forked, 0), 0);
		cr_assert_gt(rp_wait4(t, (pid_t)ret, NULL, 0, NULL), 0);
		rp_task_put(forked);
	}
	cr_assert_eq(ret, -ENOMEM, "a fork linked a child after its namespace's init exited: %ld",
		     ret);
	reap_unshared(t, tnr, first, nr1, 0);
}

TEST_EACH_MODE(init_exits_during_fork, init_exits_during_fork)

/* The namespace of fork_during_init_end: the unsharer, its init and the child forked. */
struct init_end {
	struct rp_task *t, *first, *child;
	pid_t tnr, nr1, cnr;
};

/*
 * In @mode, the unsharer's namespace's init, alone there, exits with 5,
 * held before the hold that ends its namespace (RP_RACE_NS_INIT_EXITS),
 * while the unsharer forks a child into the namespace; then the exit
 * goes on and returns.
 */
static void fork_during_init_end(enum rp_sync_mode mode, struct init_end *x)
{
	struct job e;

	start(mode);
	x->child = NULL;
	x->first = unshared_ns_init(&x->t, &x->tnr, &x->nr1);
	arm(RP_RACE_NS_INIT_EXITS, x->first, true, true);
	e.arg = 5;
	job_start(&e, exit_job, x->first);
	cr_assert(await_reached(1), "init's exit never reached its end");
	x->cnr = rp_fork(x->t, &x->child);
	cr_assert_gt(x->cnr, 0, "fork before the end: %d", x->cnr);
	release();
	cr_assert_eq(job_join(&e), 0);
	rp_debug_race_hook(NULL);
}

/*
 * The namespace's init is exiting, held before the hold that ends its
 * namespace (RP_RACE_NS_INIT_EXITS); meanwhile the unsharer forks into
 * the namespace, and the fork links its child (the namespace is still
 * open).  The end must kill that child too, every time.  Caught:
 * RP_BREAK_PIDNS_ZAP_BEFORE_CLOSE (the kill walk made before the hold
 * that closes the namespace).
 */
static void fork_before_init_end(enum rp_sync_mode mode)
{
	struct init_end x;
	int status;

	fork_during_init_end(mode, &x);
	status = rp_get_signal(x.child, NULL);
	if (!status)		/* the escaped child, ended before the verdict */
		cr_assert_eq(rp_exit_group(x.child, 0), 0);
	cr_assert_eq(rp_wait4(x.t, x.cnr, NULL, 0, NULL), x.cnr);
	rp_task_put(x.child);
	cr_assert_eq(status, -ESRCH, "a child forked before its init's end lives on");
	reap_unshared(x.t, x.tnr, x.first, x.nr1, 5);
}

TEST_EACH_MODE(fork_before_init_end, fork_before_init_end)

/* rp_get_signal as the job's task. */
static long get_signal_job(struct job *j)
{
	return rp_get_signal(j->t, NULL);
}

/*
 * Init's signal rules (Linux's SIGNAL_UNKILLABLE, asked in
 * docs/namespaces.md): from inside its namespace a signal reaches the
 * namespace's init, or a thread of its group, only if init handles it
 * (SIGKILL and SIGSTOP never), and kill and tgkill return 0 all the same;
 * one queued while init blocked it is dropped when it is delivered.  From
 * the parent namespace SIGTERM is dropped too, but SIGSTOP stops init and
 * SIGKILL kills it.
 */
Test(pidns, init_signal_rules)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *thread, *child;
		struct puppet stopped[2];
		siginfo_t si;
		pid_t outer, inner, tid;
		int status;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &outer);
		handle(nsinit, SIGUSR1);
		thread = thread_of(nsinit);
		tid = rp_gettid(thread);
		child = clone_of(nsinit, SIGCHLD, &inner);
		for (int sig = SIGHUP; sig < SIGSYS; sig++) {
			if (sig == SIGUSR1 || sig == SIGCHLD || sig == SIGCONT)
				continue;	/* handled, or ignored by default */
			cr_assert_eq(rp_kill(child, 1, sig), 0, "kill(1, %d)", sig);
			cr_assert_eq(rp_get_signal(nsinit, NULL), 0, "init took %d from inside", sig);
			cr_assert_eq(rp_tgkill(child, 1, tid, sig), 0, "tgkill(1, %d, %d)", tid, sig);
			cr_assert_eq(rp_get_signal(thread, NULL), 0, "init's thread took %d", sig);
		}
		/* Init itself cannot kill its group either. */
		cr_assert_eq(rp_kill(nsinit, 1, SIGKILL), 0);
		cr_assert_eq(rp_tgkill(thread, 1, 1, SIGKILL), 0);
		cr_assert_eq(rp_get_signal(nsinit, NULL), 0);
		cr_assert_eq(rp_kill(child, 1, SIGUSR1), 0);
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, inner);
		/* Blocked, it is queued; unblocked, it is dropped at delivery. */
		mask_signal(nsinit, SIG_BLOCK, SIGINT);
		cr_assert_eq(rp_kill(child, 1, SIGINT), 0);
		cr_assert(is_pending(nsinit, SIGINT));
		mask_signal(nsinit, SIG_UNBLOCK, SIGINT);
		cr_assert_eq(rp_get_signal(nsinit, NULL), 0);
		cr_assert_not(is_pending(nsinit, SIGINT));
		reap(nsinit, child, inner, 0);
		/* From the parent namespace: SIGTERM dropped, SIGSTOP and SIGKILL taken. */
		cr_assert_eq(rp_kill(init, outer, SIGTERM), 0);
		cr_assert_eq(rp_get_signal(nsinit, NULL), 0);
		/*
		 * Both threads run until the stop takes them (puppets): a
		 * single rp_get_signal per thread would let one return empty
		 * before the other, which dequeued SIGSTOP, marks it for the
		 * group stop, and the stop would never complete.
		 */
		cr_assert_eq(rp_kill(init, outer, SIGSTOP), 0);
		puppet_start(&stopped[0], nsinit);
		puppet_start(&stopped[1], thread);
		cr_assert_eq(rp_wait4(init, outer, &status, WUNTRACED, NULL), outer);
		cr_assert_eq(status, STOPPED_BY(SIGSTOP));
		cr_assert_eq(rp_kill(init, outer, SIGCONT), 0);
		cr_assert_eq(puppet_quit(&stopped[0]), 0);
		cr_assert_eq(puppet_quit(&stopped[1]), 0);
		cr_assert_eq(rp_kill(init, outer, SIGKILL), 0);
		cr_assert_eq(rp_get_signal(thread, NULL), -ESRCH);
		cr_assert_eq(rp_get_signal(nsinit, NULL), -ESRCH);
		rp_task_put(thread);
		cr_assert_eq(rp_wait4(init, outer, &status, 0, NULL), outer);
		cr_assert_eq(status, KILLED_BY(SIGKILL));
		rp_task_put(nsinit);
		finish_all_reaped();
	}
}

/*
 * Init's end (Linux's zap_pid_ns_processes, asked in docs/namespaces.md):
 * when a namespace's init exits, a fork into the namespace fails with
 * ENOMEM at once, before anyone reaps init, and every other process of
 * the namespace, and of the namespaces below it, gets SIGKILL, whoever
 * its parent is: the unsharer's second child (parent outside), init's
 * child, and the init of a namespace below.
 */
Test(pidns, init_exit_zaps)
{
	FOR_EACH_MODE(m) {
		struct rp_task *t, *nsinit, *sibling, *child, *nested;
		pid_t tnr, inr, snr, cnr, nnr;
		int status;

		start(m);
		nsinit = unshared_ns_init(&t, &tnr, &inr);
		sibling = clone_of(t, SIGCHLD, &snr);
		child = clone_of(nsinit, SIGCHLD, &cnr);
		nested = clone_of(nsinit, CLONE_NEWPID | SIGCHLD, &nnr);
		handle(sibling, SIGTERM);
		cr_assert_eq(rp_exit_group(nsinit, 4), 0);
		cr_assert_eq(rp_fork(t, NULL), -ENOMEM);
		cr_assert_eq(rp_get_signal(sibling, NULL), -ESRCH);
		cr_assert_eq(rp_get_signal(child, NULL), -ESRCH);
		cr_assert_eq(rp_get_signal(nested, NULL), -ESRCH);
		cr_assert_eq(rp_wait4(t, snr, &status, 0, NULL), snr);
		cr_assert_eq(status, KILLED_BY(SIGKILL));
		rp_task_put(sibling);
		/* Init's children: reaped by init in its exit, none given to the table's init. */
		cr_assert_eq(rp_wait4(init, -1, NULL, WNOHANG, NULL), 0);
		rp_task_put(child);
		rp_task_put(nested);
		reap_unshared(t, tnr, nsinit, inr, 4);
	}
}

/*
 * Init's exit completes only once every other pid of its namespace, and
 * of the namespaces below, is freed (Linux's zap_pid_ns_processes, asked
 * in docs/namespaces.md): the unsharer P forks init I (1) and C (2, its
 * parent P, outside); I forks A (3), which forks B (4) and exits, so B is
 * I's; I forks J, the init of a namespace below, and J forks K.  I exits
 * with 7: B, C, J and K are killed; I reaps its own (B, J; J reaped K), the
 * table's init gets none; while C is an unreaped zombie, P's
 * waitpid(I, WNOHANG) is 0; once P reaps C, I exited 7.
 */
Test(pidns, init_exit_waits_for_its_pids)
{
	FOR_EACH_MODE(m) {
		struct rp_task *p, *i, *c, *a, *b, *j, *k;
		pid_t pnr, inr, cnr, anr, bnr, jnr, knr;
		int status;

		start(m);
		i = unshared_ns_init(&p, &pnr, &inr);
		c = clone_of(p, SIGCHLD, &cnr);
		a = clone_of(i, SIGCHLD, &anr);
		b = clone_of(a, SIGCHLD, &bnr);
		reap(i, a, anr, 0);
		cr_assert_eq(rp_getppid(b), 1);
		j = clone_of(i, CLONE_NEWPID | SIGCHLD, &jnr);
		k = clone_of(j, SIGCHLD, &knr);
		cr_assert_eq(rp_exit_group(i, 7), 0);
		cr_assert_eq(rp_wait4(p, inr, NULL, WNOHANG, NULL), 0,
			     "init reapable while its namespace's processes live");
		cr_assert_eq(rp_get_signal(b, NULL), -ESRCH);
		cr_assert_eq(rp_get_signal(k, NULL), -ESRCH);
		cr_assert_eq(rp_get_signal(j, NULL), -ESRCH);
		cr_assert_eq(rp_get_signal(c, NULL), -ESRCH);
		cr_assert_eq(rp_wait4(p, inr, NULL, WNOHANG, NULL), 0,
			     "init reapable while C, an unreaped zombie, keeps its pid");
		cr_assert_eq(rp_wait4(init, -1, NULL, WNOHANG, NULL), 0,
			     "init's children went to the table's init");
		cr_assert_eq(rp_wait4(p, cnr, &status, 0, NULL), cnr);
		cr_assert_eq(status, KILLED_BY(SIGKILL));
		cr_assert_eq(rp_wait4(p, inr, &status, WNOHANG, NULL), inr);
		cr_assert_eq(status, EXITED(7));
		rp_task_put(a);
		rp_task_put(b);
		rp_task_put(c);
		rp_task_put(i);
		rp_task_put(j);
		rp_task_put(k);
		reap(init, p, pnr, 0);
		finish_all_reaped();
	}
}

/*
 * A pid kept only as a process group's id counts too (asked of Linux
 * 6.18, docs/namespaces.md): C, in the namespace, leads a group that P,
 * outside, joins; once P has reaped C, waitpid(I, WNOHANG) is still 0
 * while P is in C's group, and I exited 7 once P leaves it: the free by
 * a group move completes init's exit.  A fork into the namespace
 * meanwhile fails (ENOMEM) and changes nothing.
 */
Test(pidns, init_exit_waits_for_a_group_id)
{
	FOR_EACH_MODE(m) {
		struct rp_task *p, *i, *c;
		pid_t pnr, inr, cnr;
		int status;

		start(m);
		i = unshared_ns_init(&p, &pnr, &inr);
		c = clone_of(p, SIGCHLD, &cnr);
		cr_assert_eq(rp_setpgid(c, 0, 0), 0);
		cr_assert_eq(rp_setpgid(p, 0, cnr), 0);
		cr_assert_eq(rp_exit_group(i, 7), 0);
		cr_assert_eq(rp_get_signal(c, NULL), -ESRCH);
		cr_assert_eq(rp_wait4(p, inr, NULL, WNOHANG, NULL), 0);
		cr_assert_eq(rp_fork(p, NULL), -ENOMEM);
		cr_assert_eq(rp_wait4(p, cnr, &status, 0, NULL), cnr);
		cr_assert_eq(status, KILLED_BY(SIGKILL));
		cr_assert_eq(rp_wait4(p, inr, NULL, WNOHANG, NULL), 0,
			     "init reapable while C's number is P's group id");
		cr_assert_eq(rp_setpgid(p, 0, 0), 0);
		cr_assert_eq(rp_wait4(p, inr, &status, WNOHANG, NULL), inr);
		cr_assert_eq(status, EXITED(7));
		rp_task_put(c);
		rp_task_put(i);
		reap(init, p, pnr, 0);
		finish_all_reaped();
	}
}

/*
 * The same with an init of two threads whose leader exits first: the
 * exit of the other thread, the last, ends the namespace and completes
 * once C's pid is freed (init's own: its thread's and its zombie
 * leader's); the leader is then reported with the group's code.
 */
Test(pidns, init_thread_exit_waits_for_its_pids)
{
	FOR_EACH_MODE(m) {
		struct rp_task *p, *i, *th, *c;
		pid_t pnr, inr, cnr;
		int status;

		start(m);
		i = unshared_ns_init(&p, &pnr, &inr);
		th = thread_of(i);
		c = clone_of(p, SIGCHLD, &cnr);
		cr_assert_eq(rp_exit(i, 0), 0);
		cr_assert_eq(rp_exit_group(th, 7), 0);
		cr_assert_eq(rp_get_signal(c, NULL), -ESRCH);
		cr_assert_eq(rp_wait4(p, inr, NULL, WNOHANG, NULL), 0,
			     "init reapable while C, an unreaped zombie, keeps its pid");
		cr_assert_eq(rp_wait4(p, cnr, &status, 0, NULL), cnr);
		cr_assert_eq(rp_wait4(p, inr, &status, WNOHANG, NULL), inr);
		cr_assert_eq(status, EXITED(7));
		rp_task_put(th);
		rp_task_put(c);
		rp_task_put(i);
		reap(init, p, pnr, 0);
		finish_all_reaped();
	}
}

/*
 * The namespace's init, alone in it, is exiting, held before the hold
 * that ends its namespace (RP_RACE_NS_INIT_EXITS); meanwhile the unsharer
 * forks a child into the namespace.  The end kills the child, and init's
 * exit must wait for its pid: the unsharer's waitpid(init, WNOHANG) is 0
 * until the child is reaped, every time.  Caught:
 * RP_BREAK_PIDNS_COUNT_EARLY (the namespace's count read before that
 * hold, when init was alone).
 */
static void init_end_counts_in_hold(enum rp_sync_mode mode)
{
	struct init_end x;
	pid_t got;
	int status;

	fork_during_init_end(mode, &x);
	got = rp_wait4(x.t, x.nr1, &status, WNOHANG, NULL);
	cr_assert_eq(rp_get_signal(x.child, NULL), -ESRCH);
	cr_assert_eq(rp_wait4(x.t, x.cnr, NULL, 0, NULL), x.cnr);
	rp_task_put(x.child);
	if (!got) {
		cr_assert_eq(rp_wait4(x.t, x.nr1, &status, 0, NULL), x.nr1);
		cr_assert_eq(status, EXITED(5));
	}
	rp_task_put(x.first);
	reap(init, x.t, x.tnr, 0);
	finish_all_reaped();
	cr_assert_eq(got, 0, "init reapable while its namespace's child %d keeps its pid", x.cnr);
}

TEST_EACH_MODE(init_end_counts_in_hold, init_end_counts_in_hold)

/*
 * Orphans of a namespace go to its init (asked of Linux 6.18,
 * docs/namespaces.md): a grandchild of init whose parent exits (getppid
 * 1, init reaps it); the child of the unsharer's second child, whose
 * parent is outside, even when that outside parent is a subreaper; and a
 * subreaper inside the namespace takes its descendants' orphans.
 */
Test(pidns, orphans_to_ns_init)
{
	FOR_EACH_MODE(m) {
		struct rp_task *t, *nsinit, *a, *b, *s, *c, *d, *outside, *e;
		pid_t tnr, inr, anr, bnr, snr, cnr, dnr, onr, enr;

		start(m);
		t = clone_of(init, SIGCHLD, &tnr);
		cr_assert_eq(rp_prctl(t, PR_SET_CHILD_SUBREAPER, 1), 0);
		cr_assert_eq(rp_unshare(t, CLONE_NEWPID), 0);
		nsinit = clone_of(t, SIGCHLD, &inr);
		a = clone_of(nsinit, SIGCHLD, &anr);
		b = clone_of(a, SIGCHLD, &bnr);
		reap(nsinit, a, anr, 0);
		cr_assert_eq(rp_getppid(b), 1);
		reap(nsinit, b, bnr, 0);
		/* A subreaper inside the namespace. */
		s = clone_of(nsinit, SIGCHLD, &snr);
		cr_assert_eq(rp_prctl(s, PR_SET_CHILD_SUBREAPER, 1), 0);
		c = clone_of(s, SIGCHLD, &cnr);
		d = clone_of(c, SIGCHLD, &dnr);
		reap(s, c, cnr, 0);
		cr_assert_eq(rp_getppid(d), snr);
		reap(s, d, dnr, 0);
		reap(nsinit, s, snr, 0);
		/* The unsharer's second child: its parent (a subreaper) is outside. */
		outside = clone_of(t, SIGCHLD, &onr);
		e = clone_of(outside, SIGCHLD, &enr);
		reap(t, outside, onr, 0);
		cr_assert_eq(rp_getppid(e), 1);
		reap(nsinit, e, enr, 0);
		reap(t, nsinit, inr, 0);
		reap(init, t, tnr, 0);
		finish_all_reaped();
	}
}

/*
 * A process of a namespace is exiting, held before the update lock in
 * which it picks a reaper for its child (RP_RACE_EXIT_REPARENTS);
 * meanwhile the namespace's init exits (its end kills the child).  The
 * child must go to the namespace's init, exiting as it is, which reaps
 * it and its parent in its exit, never to the table's init (Linux's init
 * reaps them in zap_pid_ns_processes): every time.  Caught:
 * RP_BREAK_NS_REAPER_EXITING (an exiting init skipped: the table's init
 * takes the child).
 */
static void reaper_exits_during_orphaning(enum rp_sync_mode mode)
{
	struct job x;
	struct rp_task *t, *nsinit, *a, *b;
	pid_t tnr, inr, anr, bnr, got;

	start(mode);
	nsinit = unshared_ns_init(&t, &tnr, &inr);
	a = clone_of(nsinit, SIGCHLD, &anr);
	b = clone_of(a, SIGCHLD, &bnr);
	arm(RP_RACE_EXIT_REPARENTS, a, true, true);
	x.arg = 0;
	job_start(&x, exit_job, a);
	cr_assert(await_reached(1), "the exit never reached its reparenting");
	cr_assert_eq(rp_exit_group(nsinit, 0), 0);
	release();
	cr_assert_eq(job_join(&x), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_getppid(b), 1);
	cr_assert_eq(rp_get_signal(b, NULL), -ESRCH);
	got = rp_wait4(init, -1, NULL, WNOHANG, NULL);
	rp_task_put(a);
	rp_task_put(b);
	reap_unshared(t, tnr, nsinit, inr, 0);
	cr_assert_eq(got, 0, "an orphan of an exiting init went to the table's init (%d)", got);
}

TEST_EACH_MODE(reaper_exits_during_orphaning, reaper_exits_during_orphaning)

/* exit(j->arg) of the job's thread alone. */
static long thread_exit_job(struct job *j)
{
	return rp_exit(j->t, (int)j->arg);
}

/*
 * A thread of a namespace's init is exiting, held after it left its
 * group's live threads and before it gives its children away
 * (RP_RACE_EXIT_REPARENTS), its child Z already a zombie; meanwhile the
 * leader exits, the group's last live thread, and ends the namespace.
 * The held thread's children then go to init's leader, in its end: Z
 * must be reaped there, or Z's pid keeps init's exit from ever
 * completing.  Every time: the order is the race point's.
 */
static void init_thread_hands_zombie_late(enum rp_sync_mode mode)
{
	struct job x;
	struct rp_task *t, *i, *th, *z;
	pid_t tnr, inr, znr, got;
	int status;

	start(mode);
	i = unshared_ns_init(&t, &tnr, &inr);
	th = thread_of(i);
	z = clone_of(th, SIGCHLD, &znr);
	cr_assert_eq(rp_exit(z, 0), 0);
	arm(RP_RACE_EXIT_REPARENTS, th, true, true);
	x.arg = 0;
	job_start(&x, thread_exit_job, th);
	cr_assert(await_reached(1), "the thread's exit never reached its reparenting");
	cr_assert_eq(rp_exit(i, 3), 0);
	release();
	cr_assert_eq(job_join(&x), 0);
	rp_debug_race_hook(NULL);
	got = rp_wait4(t, inr, &status, WNOHANG, NULL);
	cr_assert_eq(got, inr, "init's exit not complete (%d): its thread's zombie child %d "
		     "was handed to it after its end and never reaped", got, znr);
	cr_assert(WIFEXITED(status));
	rp_task_put(z);
	rp_task_put(th);
	rp_task_put(i);
	reap(init, t, tnr, 0);
	finish_all_reaped();
}

TEST_EACH_MODE(init_thread_hands_zombie_late, init_thread_hands_zombie_late)

/*
 * kill(-1) inside a namespace (asked of Linux 6.18, docs/namespaces.md):
 * ESRCH with only the namespace's init and the caller there; then it
 * reaches the caller's namespace and those below (a sibling, the init of
 * a namespace below), never the namespace's init nor a process outside.
 */
Test(pidns, kill_all_in_namespace)
{
	FOR_EACH_MODE(m) {
		struct rp_task *outside, *t, *nsinit, *a, *b, *nested;
		pid_t onr, tnr, inr, anr, bnr, nnr;
		siginfo_t si;

		start(m);
		outside = clone_of(init, SIGCHLD, &onr);
		handle(outside, SIGUSR1);
		nsinit = unshared_ns_init(&t, &tnr, &inr);
		handle(t, SIGUSR1);
		handle(nsinit, SIGUSR1);
		a = clone_of(nsinit, SIGCHLD, &anr);
		cr_assert_eq(rp_kill(a, -1, SIGUSR1), -ESRCH);
		b = clone_of(a, SIGCHLD, &bnr);
		nested = clone_of(a, CLONE_NEWPID | SIGCHLD, &nnr);
		cr_assert_eq(rp_kill(a, -1, SIGUSR1), 0);
		cr_assert_eq(rp_get_signal(b, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 2);
		cr_assert_eq(rp_get_signal(nested, &si), SIGUSR1);
		cr_assert_eq(si.si_pid, 0);
		cr_assert_eq(rp_get_signal(nsinit, NULL), 0, "kill(-1) reached the namespace's init");
		cr_assert_eq(rp_get_signal(t, NULL), 0, "kill(-1) reached the unsharer, outside");
		cr_assert_eq(rp_get_signal(outside, NULL), 0, "kill(-1) reached a process outside");
		reap(a, nested, nnr, 0);
		reap(a, b, bnr, 0);
		reap(nsinit, a, anr, 0);
		reap(t, nsinit, inr, 0);
		reap(init, t, tnr, 0);
		reap(init, outside, onr, 0);
		finish_all_reaped();
	}
}

/* A receiver of a group kill: it takes SIGUSR1 (it handles it) with si_pid ->want. */
struct receipt {
	struct rp_task *p;
	pid_t want;
	const char *who;
};

static void took_all(const struct receipt *r, int n)
{
	siginfo_t si;

	for (int i = 0; i < n; i++) {
		cr_assert_eq(rp_get_signal(r[i].p, &si), SIGUSR1, "%s took nothing", r[i].who);
		cr_assert_eq(si.si_pid, r[i].want, "%s: si_pid %d, Linux gives %d", r[i].who,
			     si.si_pid, r[i].want);
	}
}

/* @parent's children @c (numbered @nr there), SIGUSR1 handled by them and by @parent. */
struct brood {
	struct rp_task *c[6];
	pid_t nr[6];
	int n;
};

static struct rp_task *brood_clone(struct rp_task *parent, struct brood *b, unsigned long flags)
{
	struct rp_task *c = clone_of(parent, flags | SIGCHLD, &b->nr[b->n]);

	handle(c, SIGUSR1);
	return b->c[b->n++] = c;
}

/* The children exit, the newest first, and @parent reaps them. */
static void brood_reap(struct rp_task *parent, struct brood *b)
{
	while (b->n--)
		reap(parent, b->c[b->n], b->nr[b->n], 0);
}

/*
 * A group kill's si_pid in Linux's order (docs/namespaces.md, "si_pid of a
 * group kill"), as Linux 6.18 answered: a sender S, 2 in a namespace made
 * by unshare, leads its own group; its children in creation order P, N
 * (CLONE_NEWPID), P', all in its group, all handling SIGUSR1.  kill(0)
 * and kill(-pgrp) walk the group newest first: P' 2, then N, which does
 * not see S, 0, and so P and S 0 too.  kill(-1) walks in creation order:
 * P 2, N 0, P' 0.
 */
Test(pidns, group_kill_sender_pid_order)
{
	FOR_EACH_MODE(m) {
		struct rp_task *t, *nsinit, *s, *p, *n, *p2;
		struct brood b = { .n = 0 };
		pid_t tnr, inr, snr;

		start(m);
		nsinit = unshared_ns_init(&t, &tnr, &inr);
		s = clone_of(nsinit, SIGCHLD, &snr);
		cr_assert_eq(snr, 2);
		cr_assert_eq(rp_setpgid(s, 0, 0), 0);
		handle(s, SIGUSR1);
		p = brood_clone(s, &b, 0);
		n = brood_clone(s, &b, CLONE_NEWPID);
		p2 = brood_clone(s, &b, 0);
		for (int round = 0; round < 2; round++) {
			cr_assert_eq(rp_kill(s, round ? -snr : 0, SIGUSR1), 0);
			took_all((struct receipt[]){ { p2, 2, "P'" }, { n, 0, "N" }, { p, 0, "P" },
						     { s, 0, "the sender" } }, 4);
		}
		cr_assert_eq(rp_kill(s, -1, SIGUSR1), 0);
		took_all((struct receipt[]){ { p, 2, "P" }, { n, 0, "N" }, { p2, 0, "P'" } }, 3);
		cr_assert_eq(rp_get_signal(s, NULL), 0, "kill(-1) reached its sender");
		brood_reap(s, &b);
		reap(nsinit, s, snr, 0);
		reap(t, nsinit, inr, 0);
		reap(init, t, tnr, 0);
		finish_all_reaped();
	}
}

/*
 * The joining order, not the creation order, from a sender in the root
 * namespace (a receiver below the root does not see it either): S leads
 * its group; its children in creation order P, Q (moved to a group of its
 * own), N (CLONE_NEWPID), P'; then Q joins S's group again by setpgid,
 * last, so Linux's walk meets it first (attach_pid at the head), and R
 * (CLONE_NEWPID, another uid) is forked, the newest.  S may not signal R:
 * R is not sent to and changes nothing, though it does not see S.  So Q
 * and P' get S's number, N 0, and P and S 0 after it.
 */
Test(pidns, group_kill_sender_pid_joined)
{
	FOR_EACH_MODE(m) {
		struct rp_task *s, *p, *q, *n, *p2, *r;
		struct brood b = { .n = 0 };
		pid_t snr;

		start(m);
		s = clone_of(init, SIGCHLD, &snr);
		cr_assert_eq(rp_setpgid(s, 0, 0), 0);
		handle(s, SIGUSR1);
		p = brood_clone(s, &b, 0);
		q = brood_clone(s, &b, 0);
		cr_assert_eq(rp_setpgid(q, 0, 0), 0);
		n = brood_clone(s, &b, CLONE_NEWPID);
		p2 = brood_clone(s, &b, 0);
		cr_assert_eq(rp_setpgid(s, b.nr[1], snr), 0);
		r = brood_clone(s, &b, CLONE_NEWPID);
		cr_assert_eq(rp_setresuid(r, 1000, 1000, 1000), 0);
		cr_assert_eq(rp_cap_drop(s, RP_CAP_KILL), 0);
		cr_assert_eq(rp_kill(s, 0, SIGUSR1), 0);
		took_all((struct receipt[]){ { q, snr, "Q (joined last)" }, { p2, snr, "P'" },
					     { n, 0, "N" }, { p, 0, "P" }, { s, 0, "the sender" } }, 5);
		cr_assert_eq(rp_get_signal(r, NULL), 0, "R, of another uid, was sent to");
		brood_reap(s, &b);
		reap(init, s, snr, 0);
		finish_all_reaped();
	}
}

/* The child of clone_job, and its number in its parent's namespace. */
static struct rp_task *cloned;

static long clone_job(struct job *j)
{
	return rp_clone(j->t, (unsigned long)j->arg | SIGCHLD, &cloned);
}

/*
 * Job @j: @parent clones with @flags, held before it links the child (its
 * fork window open: docs/pgrp.md, "The rule") until release(); offline, as
 * the fork holds nothing there.  Returns once it is held.
 */
static void start_clone_held(struct job *j, struct rp_task *parent, unsigned long flags)
{
	bool reached;

	race_count_jobs();
	arm(RP_RACE_FORK_LINKS, parent, true, true);
	j->arg = (long)flags;
	job_start(j, clone_job, parent);
	/* QSBR: the table's first namespace waits for a grace period, which waits for us too. */
	rp_thread_offline();
	reached = await_reached(1);
	rp_thread_online();
	cr_assert(reached, "the clone returned without reaching its race point");
}

/* The row of process @pid in @rows (@n of them), or NULL. */
static const struct rp_ps_entry *row_of(const struct rp_ps_entry *rows, long n, pid_t pid)
{
	for (long i = 0; i < n; i++)
		if (rows[i].pid == pid)
			return &rows[i];
	return NULL;
}

/*
 * ps in a namespace lists the processes that namespace numbers, by those
 * numbers, as Linux's /proc there: a namespace's init (1, with its
 * children 2 and 3) sees no parent, group or session (all outside: 0),
 * and not init's process; the root's init lists all four by the root's
 * numbers.  Before, a caller in the namespace got every process by the
 * root's numbers.
 */
Test(pidns, ps_in_namespace)
{
	FOR_EACH_MODE(m) {
		struct rp_ps_entry rows[8];
		const struct rp_ps_entry *r;
		struct rp_task *nsinit, *a, *b;
		pid_t inr, anr, bnr;
		long n;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &inr);
		a = clone_of(nsinit, SIGCHLD, &anr);
		b = clone_of(nsinit, SIGCHLD, &bnr);
		n = rp_ps_snapshot(nsinit, rows, 8);
		cr_assert_eq(n, 3, "the namespace's 3 processes, not the table's: %ld", n);
		r = row_of(rows, n, 1);
		cr_assert(r && r->ppid == 0 && r->pgid == 0 && r->sid == 0,
			  "its init: parent, group and session outside read 0");
		for (pid_t nr = anr; nr; nr = nr == anr ? bnr : 0) {
			r = row_of(rows, n, nr);
			cr_assert(r && r->ppid == 1 && r->pgid == 0 && r->sid == 0,
				  "child %d: parent 1, group and session outside", nr);
		}
		n = rp_ps_snapshot(init, rows, 8);
		cr_assert_eq(n, 4, "init and the namespace's 3: %ld", n);
		r = row_of(rows, n, inr);
		cr_assert(r && r->ppid == 1 && r->pgid == 1, "the namespace's init by its root number");
		reap(nsinit, b, bnr, 0);
		reap(nsinit, a, anr, 0);
		reap(init, nsinit, inr, 0);
		finish_all_reaped();
	}
}

/*
 * A group kill that reaches a process while it forks is recorded for the
 * child, which takes it after the fork (docs/pgrp.md): with the sender's
 * number as the child sees it, so 0 if the child's namespace does not see
 * the sender, as a receiver's own copy is 0 then (Linux gives such a
 * child the signal with no siginfo at all: si_pid 0).  S, in the root,
 * leads its group with its children B (CLONE_NEWPID), who does not see S,
 * and A, the newest.  A's clone of C into a new namespace is held in its
 * fork window while S's kill(0) reaches A: Linux's walk meets A first (S's
 * number), then B (0, and so S 0); C gets 0.  A receiver that does not
 * see the sender comes at or after the first such one in Linux's order:
 * its copy, recorded for its child, is 0 already.
 */
Test(pidns, group_kill_recorded_for_child_sees)
{
	FOR_EACH_MODE(m) {
		struct rp_task *s, *a, *b, *c;
		pid_t snr, anr, bnr, cnr;
		struct job j;

		start(m);
		s = clone_of(init, SIGCHLD, &snr);
		cr_assert_eq(rp_setpgid(s, 0, 0), 0);
		handle(s, SIGUSR1);
		b = clone_of(s, CLONE_NEWPID | SIGCHLD, &bnr);
		handle(b, SIGUSR1);
		a = clone_of(s, SIGCHLD, &anr);
		handle(a, SIGUSR1);
		start_clone_held(&j, a, CLONE_NEWPID);
		cr_assert_eq(rp_kill(s, 0, SIGUSR1), 0);
		release();
		cnr = (pid_t)job_join(&j);
		rp_debug_race_hook(NULL);
		cr_assert_gt(cnr, 0, "A's clone: %d", cnr);
		c = cloned;
		took_all((struct receipt[]){ { a, snr, "A" }, { b, 0, "B" }, { s, 0, "the sender" },
					     { c, 0, "C (A's child, in a namespace of its own)" } }, 4);
		reap(a, c, cnr, 0);
		reap(s, a, anr, 0);
		reap(s, b, bnr, 0);
		reap(init, s, snr, 0);
		finish_all_reaped();
	}
}

/*
 * SIGSTOP recorded for the child of a CLONE_NEWPID clone: the child is its
 * namespace's init and does not see the sender, so the signal is forced
 * on it as the send path forces it on such a receiver (Linux sets the
 * recorded signals in the child's shared_pending, no init's filter on the
 * way, and an init takes SIGSTOP from there).  S leads its group with its
 * child A; A's clone of C into a new namespace is held in its fork window
 * while init's killpg of S's group sends SIGSTOP: C has it pending.
 */
/* SIGSTOP in @t's process's pending set (sigpending cannot report it: never blocked). */
static bool stop_pending(struct rp_task *t)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	bool pending = sh && (t->signal->shared_pending.signal & (1ULL << (SIGSTOP - 1)));

	if (sh)
		rp_unlock_sighand(sh);
	return pending;
}

Test(pidns, group_stop_recorded_for_child_init)
{
	FOR_EACH_MODE(m) {
		struct rp_task *s, *a, *c;
		pid_t snr, anr, cnr;
		struct job j;

		start(m);
		s = clone_of(init, SIGCHLD, &snr);
		cr_assert_eq(rp_setpgid(s, 0, 0), 0);
		a = clone_of(s, SIGCHLD, &anr);
		start_clone_held(&j, a, CLONE_NEWPID);
		cr_assert_eq(rp_killpg(init, snr, SIGSTOP), 0);
		release();
		cnr = (pid_t)job_join(&j);
		rp_debug_race_hook(NULL);
		cr_assert_gt(cnr, 0, "A's clone: %d", cnr);
		c = cloned;
		cr_assert(stop_pending(a));
		cr_assert(stop_pending(c),
			  "C, its namespace's init, dropped the SIGSTOP recorded in its fork window");
		reap(a, c, cnr, 0);
		reap(s, a, anr, 0);
		reap(init, s, snr, 0);
		finish_all_reaped();
	}
}

/*
 * A sender's group kill makes two passes while a namespace exists (order_cut
 * in src/signal/kill.c), and Linux's read-locked walk sees one set of
 * receivers: so in rcu mode the set is kept for both passes, a group's by
 * the gate shared and its M, kill(-1)'s by the gate exclusive, and in
 * rcu-global by the update mutex.  These
 * tests hold the kill between its passes (RP_RACE_KILL_BETWEEN_PASSES)
 * and let a change of the set come to it: it must wait for the kill.
 * RP_BREAK_SIPID_PASSES_UNHELD holds nothing: the change lands between
 * the passes, the second meets what the first did not rank, and the
 * answer is none Linux gives.
 */
static pthread_t passes_changer;	/* the thread that changes the set (changer_begins) */
static int passes_changer_set;		/* uatomic: passes_changer is set */
static int passes_update_waits;		/* uatomic: it waits for the gate, its mutex, an M
					   or the first namespace's grace period */

static void passes_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_GATE_EXCL_WAITS || where == RP_RACE_GATE_BACKS_OUT ||
	    where == RP_RACE_UPDATE_WAITS || where == RP_RACE_MEMBER_WAITS ||
	    where == RP_RACE_FIRST_NS_WAITS) {
		/* Another thread of the table's (its grace-period work) may wait too. */
		if (uatomic_read(&passes_changer_set) && pthread_equal(pthread_self(), passes_changer))
			uatomic_set(&passes_update_waits, 1);
		return;
	}
	race_hook(where, t);
}

/*
 * @sender's kill(@pid) of SIGUSR1, held at @where on @sender (between its
 * passes: RP_RACE_KILL_BETWEEN_PASSES); returns once it is held.
 */
static void start_kill_held(struct job *k, struct rp_task *sender, pid_t pid,
			    enum rp_race_point where)
{
	uatomic_set(&passes_changer_set, 0);
	uatomic_set(&passes_update_waits, 0);
	k->pid = pid;
	k->sig = SIGUSR1;
	start_held_with(k, kill_job, sender, where, sender, passes_hook);
}

/* A job that changes the set of receivers names its thread first. */
static void changer_begins(void)
{
	passes_changer = pthread_self();
	uatomic_set(&passes_changer_set, 1);
}

/* Until the changing job waits for the update side or has returned; true if it waits. */
static bool change_waits(void)
{
	while (!uatomic_read(&passes_update_waits) && CMM_LOAD_SHARED(race.done) < 1)
		usleep(1000);
	return uatomic_read(&passes_update_waits);
}

static long setpgid_job(struct job *j)
{
	changer_begins();
	return rp_setpgid(j->t, j->pid, (pid_t)j->arg);
}

/*
 * S, in the root, leads its group with its child A; A's child N
 * (CLONE_NEWPID), which does not see S, leads a group of its own.  S's
 * kill(0) is held between its passes, the first of which found every
 * receiver seeing S; A's setpgid of N into S's group must wait for it.
 * Linux's walk meets N first if N is in the group: then N, A and S get 0;
 * else N gets nothing and A and S S's number.  Without the hold N joins
 * between the passes and gets 0 while A and S get S's number.
 */
static void setpgid_joiner_waits_body(enum rp_sync_mode m)
{
	struct rp_task *s, *a, *n;
	pid_t snr, anr, nnr;
	struct job k, j;

	start(m);
	s = clone_of(init, SIGCHLD, &snr);
	cr_assert_eq(rp_setpgid(s, 0, 0), 0);
	handle(s, SIGUSR1);
	a = clone_of(s, SIGCHLD, &anr);
	handle(a, SIGUSR1);
	n = clone_of(a, CLONE_NEWPID | SIGCHLD, &nnr);
	handle(n, SIGUSR1);
	cr_assert_eq(rp_setpgid(a, nnr, nnr), 0);
	start_kill_held(&k, s, 0, RP_RACE_KILL_BETWEEN_PASSES);
	j.pid = nnr;
	j.arg = snr;
	job_start(&j, setpgid_job, a);
	cr_expect(change_waits(), "the setpgid into the group did not wait for the kill");
	release();
	cr_assert_eq(job_join(&k), 0);
	cr_assert_eq(job_join(&j), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_get_signal(n, NULL), 0,
		     "N joined between the passes and was sent to, while A and S keep S's number");
	took_all((struct receipt[]){ { a, snr, "A" }, { s, snr, "the sender" } }, 2);
	reap(a, n, nnr, 0);
	reap(s, a, anr, 0);
	reap(init, s, snr, 0);
	finish_all_reaped();
}

Test(pidns, group_kill_setpgid_joiner_waits)
{
	setpgid_joiner_waits_body(RP_SYNC_RCU);
}

/*
 * rcu-global has no gate: every change of a list takes its update mutex
 * while the walks are RCU readers, as in rcu mode, so the kill holds that
 * mutex across its passes.
 */
Test(pidns, group_kill_setpgid_joiner_waits_rcu_global)
{
	setpgid_joiner_waits_body(RP_SYNC_RCU_GLOBAL);
}

static struct rp_task *births[2];	/* births_job's parents: the first clones a namespace */
static long births_ret[2];

/*
 * births[0] clones a child with the flags @j->arg (CLONE_NEWPID: into a new
 * namespace; 0: into the one it unshared), then births[1] forks one.
 */
static long births_job(struct job *j)
{
	changer_begins();
	births_ret[0] = rp_clone(births[0], (unsigned long)j->arg | SIGCHLD, &cloned);
	j->ret = births_ret[0];
	births_ret[1] = rp_clone(births[1], SIGCHLD, NULL);
	return 0;
}

/*
 * kill(-1) walks in creation order in Linux.  S, in the root, has the
 * children P1 and P2, behind it on the list; P1 unshared a pid namespace
 * for its children (so the table makes the first pass).  S's kill(-1) is
 * held between its passes; meanwhile P1 forks C1, the init of that
 * namespace, which does not see S, then P2 forks C2.  Linux's walk meets
 * C1 before C2 if both are there: C2 would get 0.  With the gate held
 * exclusive, C1's fork waits for the kill, which reaches P1 in C1's fork
 * window: C1 gets the signal from that record (0: it does not see S), P1
 * and P2 S's number, and P2's fork, which starts with the signal pending,
 * restarts.  Without the hold both are born between the passes, and C2
 * gets S's number although C1, before it, does not see S.
 */
static void kill_all_births_wait_body(enum rp_sync_mode m)
{
	struct rp_task *s, *p1, *p2, *c1;
	pid_t snr, p1nr, p2nr, c1nr;
	struct job k, j;

	start(m);
	s = clone_of(init, SIGCHLD, &snr);
	handle(s, SIGUSR1);
	births[0] = p1 = clone_of(s, SIGCHLD, &p1nr);
	handle(p1, SIGUSR1);
	cr_assert_eq(rp_unshare(p1, CLONE_NEWPID), 0);
	births[1] = p2 = clone_of(s, SIGCHLD, &p2nr);
	handle(p2, SIGUSR1);
	start_kill_held(&k, s, -1, RP_RACE_KILL_BETWEEN_PASSES);
	j.arg = 0;
	job_start(&j, births_job, p1);
	cr_expect(change_waits(), "the births did not wait for the kill");
	release();
	cr_assert_eq(job_join(&k), 0);
	job_join(&j);
	rp_debug_race_hook(NULL);
	c1nr = (pid_t)births_ret[0];
	cr_assert_gt(c1nr, 0, "P1's clone: %d", c1nr);
	c1 = cloned;
	cr_assert_eq(births_ret[1], -RP_ERESTARTNOINTR,
		     "P2's fork began without the signal pending (%ld): C2 was born between the passes",
		     births_ret[1]);
	took_all((struct receipt[]){ { p1, snr, "P1" }, { p2, snr, "P2" },
				     { c1, 0, "C1 (from its parent's fork window)" } }, 3);
	reap(p1, c1, c1nr, 0);
	reap(s, p2, p2nr, 0);
	reap(s, p1, p1nr, 0);
	reap(init, s, snr, 0);
	finish_all_reaped();
}

Test(pidns, kill_all_births_wait)
{
	kill_all_births_wait_body(RP_SYNC_RCU);
}

/* rcu-global: the births take the update mutex, which the kill holds. */
Test(pidns, kill_all_births_wait_rcu_global)
{
	kill_all_births_wait_body(RP_SYNC_RCU_GLOBAL);
}

/*
 * A group kill decides before its walk whether it makes two passes
 * (two_passes in src/signal/kill.c): while the table has made no
 * namespace it makes one, holds nothing, and gives every receiver the
 * sender's number.  So the table's first namespace waits, before it can
 * number a process, until no kill that found none still walks (a grace
 * period after its tables are published: tables_settle in
 * src/task/pidns.c).  S's kill(-1) is held on S's own node (it decided on
 * one pass, in its read section); P1 clones C1 into a new namespace, the
 * table's first, then P2 forks C2.  P1's clone must wait for the kill,
 * which reaches P1 and P2 before their forks begin: both forks start with
 * the signal pending and restart.  Without the wait C1 (which does not
 * see S) and C2 are born during the walk, which meets P2, C2, P1, C1
 * (children behind their parent): C1 gets 0 and C2 S's number, while
 * Linux's walk, in creation order, meets C1 first and gives C2 0 too.
 * RP_BREAK_FIRST_NS_NO_GRACE waits for nothing and fails every run.
 */
static void kill_all_first_namespace_body(enum rp_sync_mode m)
{
	struct rp_task *s, *p1, *p2;
	pid_t snr, p1nr, p2nr;
	struct job k, j;

	start(m);
	s = clone_of(init, SIGCHLD, &snr);
	handle(s, SIGUSR1);
	births[0] = p1 = clone_of(s, SIGCHLD, &p1nr);
	handle(p1, SIGUSR1);
	births[1] = p2 = clone_of(s, SIGCHLD, &p2nr);
	handle(p2, SIGUSR1);
	start_kill_held(&k, s, -1, RP_RACE_PROCESS_WALK_NODE);
	j.arg = CLONE_NEWPID;
	job_start(&j, births_job, p1);
	cr_expect(change_waits(), "the first namespace's creation did not wait for the kill");
	release();
	/* QSBR: the grace period P1's clone waits for waits for this thread too. */
	rp_thread_offline();
	cr_assert_eq(job_join(&k), 0);
	job_join(&j);
	rp_thread_online();
	rp_debug_race_hook(NULL);
	cr_assert_eq(births_ret[0], -RP_ERESTARTNOINTR,
		     "P1's clone returned %ld: C1 was born into the first namespace during the walk",
		     births_ret[0]);
	cr_assert_eq(births_ret[1], -RP_ERESTARTNOINTR,
		     "P2's fork returned %ld: C2 was born during the walk", births_ret[1]);
	took_all((struct receipt[]){ { p1, snr, "P1" }, { p2, snr, "P2" } }, 2);
	reap(s, p2, p2nr, 0);
	reap(s, p1, p1nr, 0);
	reap(init, s, snr, 0);
	finish_all_reaped();
}

Test(pidns, kill_all_first_namespace_during_walk)
{
	kill_all_first_namespace_body(RP_SYNC_RCU);
}

/* rcu-global: its readers are RCU readers too. */
Test(pidns, kill_all_first_namespace_during_walk_rcu_global)
{
	kill_all_first_namespace_body(RP_SYNC_RCU_GLOBAL);
}

/*
 * The root's init too drops a default-action signal queued while it
 * blocked it, when it unblocks it (it died of it before).
 */
Test(pidns, root_init_drops_blocked_signal)
{
	FOR_EACH_MODE(m) {
		struct rp_task *p;
		pid_t nr;

		start(m);
		p = clone_of(init, SIGCHLD, &nr);
		mask_signal(init, SIG_BLOCK, SIGTERM);
		cr_assert_eq(rp_kill(p, 1, SIGTERM), 0);
		cr_assert(is_pending(init, SIGTERM));
		mask_signal(init, SIG_UNBLOCK, SIGTERM);
		cr_assert_eq(rp_get_signal(init, NULL), 0, "the root's init took SIGTERM");
		cr_assert_not(is_pending(init, SIGTERM));
		reap(init, p, nr, 0);
		finish_all_reaped();
	}
}

/*
 * A namespace's init (numbered *@outer by init) and its first child *@c,
 * number 2 there (*@inner).
 */
static struct rp_task *ns_init_with_child(struct rp_task **c, pid_t *outer, pid_t *inner)
{
	struct rp_task *nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, outer);

	*c = clone_of(nsinit, SIGCHLD, inner);
	cr_assert_eq(*inner, 2);
	return nsinit;
}

/* The end of ns_init_with_child's pair: each exits with 0 and is reaped. */
static void end_ns_init_with_child(struct rp_task *nsinit, pid_t outer, struct rp_task *c,
				   pid_t inner)
{
	reap(nsinit, c, inner, 0);
	reap(init, nsinit, outer, 0);
	finish_all_reaped();
}

/*
 * ptrace's pid is a number of the tracer's namespace (Linux's
 * find_task_by_vpid): a namespace's init seizes its child by the inner
 * number; the child's outer number names nothing there (ESRCH).
 */
Test(pidns, ptrace_by_inner_number)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *child;
		pid_t outer, inner, outer_child;

		start(m);
		nsinit = ns_init_with_child(&child, &outer, &inner);
		outer_child = outer + 1;
		cr_assert_eq(rp_ptrace(nsinit, PTRACE_SEIZE, outer_child, NULL, NULL), -ESRCH);
		cr_assert_eq(rp_ptrace(nsinit, PTRACE_SEIZE, inner, NULL, NULL), 0);
		cr_assert_eq(rp_ptrace(init, PTRACE_SEIZE, outer_child, NULL, NULL), -EPERM);
		end_ns_init_with_child(nsinit, outer, child, inner);
	}
}

/*
 * A stop's and a continue's SIGCHLD name the child as its parent's
 * namespace numbers it (Linux's do_notify_parent_cldstop): a namespace's
 * init hears CLD_STOPPED and CLD_CONTINUED from 2, not from the outer
 * number.
 */
Test(pidns, stop_notice_sender_pid)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *child;
		struct job cj = { 0 };
		siginfo_t si;
		pid_t outer, inner;

		start(m);
		nsinit = ns_init_with_child(&child, &outer, &inner);
		handle(nsinit, SIGCHLD);
		cr_assert_eq(rp_kill(nsinit, inner, SIGSTOP), 0);
		job_start(&cj, get_signal_job, child);
		await_task(task_stopped, child);
		/* The stop shows before its notice is sent: wait for the notice. */
		cr_assert_eq(await_signal(nsinit, &si), SIGCHLD);
		cr_assert_eq(si.si_code, CLD_STOPPED);
		cr_assert_eq(si.si_pid, inner, "CLD_STOPPED from %d", si.si_pid);
		cr_assert_eq(rp_kill(nsinit, inner, SIGCONT), 0);
		job_join(&cj);
		cr_assert_eq(rp_get_signal(nsinit, &si), SIGCHLD);
		cr_assert_eq(si.si_code, CLD_CONTINUED);
		cr_assert_eq(si.si_pid, inner, "CLD_CONTINUED from %d", si.si_pid);
		end_ns_init_with_child(nsinit, outer, child, inner);
	}
}

/*
 * PTRACE_GETEVENTMSG after a fork event: the new child's number in the
 * tracer's namespace (Linux's ptrace_event_pid): a namespace's init that
 * traces its child 2 reads the grandchild as 3.
 */
Test(pidns, fork_event_pid)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit, *child, *grandchild;
		struct job cj = { 0 };
		unsigned long msg = 0;
		int status = -1;
		pid_t outer, inner, g;

		start(m);
		nsinit = ns_init_with_child(&child, &outer, &inner);
		cr_assert_eq(rp_ptrace(nsinit, PTRACE_SEIZE, inner, NULL,
				       (void *)(intptr_t)PTRACE_O_TRACEFORK), 0);
		grandchild = clone_of(child, SIGCHLD, &g);
		cr_assert_eq(g, 3);
		job_start(&cj, get_signal_job, child);
		cr_assert_eq(rp_wait4(nsinit, inner, &status, 0, NULL), inner);
		cr_assert_eq(status >> 8, SIGTRAP | (PTRACE_EVENT_FORK << 8), "status %#x", status);
		cr_assert_eq(rp_ptrace(nsinit, PTRACE_GETEVENTMSG, inner, NULL, &msg), 0);
		cr_assert_eq(msg, 3, "fork event message %lu", msg);
		cr_assert_eq(rp_kill(nsinit, inner, SIGKILL), 0);
		job_join(&cj);
		cr_assert_eq(rp_wait4(nsinit, inner, &status, 0, NULL), inner);
		cr_assert_eq(status, SIGKILL);
		rp_task_put(child);
		reap(nsinit, grandchild, g, 0);
		reap(init, nsinit, outer, 0);
		finish_all_reaped();
	}
}

/*
 * "Every object goes, reaped or not" (rp_system_destroy), also when a
 * namespace's init has exited and its exit still waits for a process of
 * its namespace that its end killed but that never ran again to die
 * (rcuproc replay tears a system down so when a recording ends there).
 */
Test(pidns, destroy_while_init_exit_waits)
{
	FOR_EACH_MODE(m) {
		struct rp_task *t, *nsinit, *child;
		pid_t tnr, inr, cnr;

		start(m);
		nsinit = unshared_ns_init(&t, &tnr, &inr);
		child = clone_of(nsinit, SIGCHLD, &cnr);
		cr_assert_eq(rp_exit_group(nsinit, 3), 0);
		cr_assert_eq(rp_wait4(t, inr, NULL, WNOHANG, NULL), 0);
		rp_task_put(child);
		rp_task_put(nsinit);
		rp_task_put(t);
		stop_system();
	}
}

/*
 * setsid answers the new session's id in the caller's namespace: a
 * namespace's init that makes a session of its own reads 1 (Linux 6.18,
 * tests/replay/corpus/pidns_clone.strace), and so do getsid and getpgrp.
 */
Test(pidns, setsid_in_namespace)
{
	FOR_EACH_MODE(m) {
		struct rp_task *nsinit;
		pid_t inr;

		start(m);
		nsinit = clone_of(init, CLONE_NEWPID | SIGCHLD, &inr);
		cr_assert_eq(rp_getpgrp(nsinit), 0);
		cr_assert_eq(rp_setsid(nsinit), 1);
		cr_assert_eq(rp_getsid(nsinit, 0), 1);
		cr_assert_eq(rp_getpgrp(nsinit), 1);
		cr_assert_eq(rp_getsid(init, inr), inr);
		reap(init, nsinit, inr, 0);
		finish_all_reaped();
	}
}
