/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process groups and sessions one call at a time: every errno of setpgid,
 * setsid, getpgid and getsid; the answers of kill(0), kill(-pgrp), kill(-1),
 * killpg and the session kill; the fork restart rule; setpriority,
 * getpriority, ioprio_set and ioprio_get with their permission rules; and
 * the leak check with proxies.  Answers are those of Linux 6.x (checked on
 * this machine's kernel with small programs: see docs/pgrp.md).
 */
#include <limits.h>
#include <sys/resource.h>
#include "../fixture/pgrp.h"

/* Drain @t, returning how many instances of @sig it took (handled). */
static int take_all(struct rp_task *t, int sig, siginfo_t *last)
{
	siginfo_t info;
	int n = 0, s;

	while ((s = rp_get_signal(t, &info)) > 0)
		if (s == sig) {
			n++;
			if (last)
				*last = info;
		}
	return n;
}

/* ---- ids ---- */

Test(ids, inherited_and_queried, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *a = fork_of(init), *t = thread_of(a);

	cr_assert_eq(rp_getpgrp(init), 1);
	cr_assert_eq(rp_getsid(init, 0), 1);
	cr_assert_eq(rp_getpgid(a, 0), 1);
	cr_assert_eq(rp_getpgid(init, rp_gettid(t)), 1, "a thread's tid names its process");
	cr_assert_eq(rp_getsid(a, rp_getpid(a)), 1);
	cr_assert_eq(rp_getpgid(a, 99999), -ESRCH);
	cr_assert_eq(rp_getsid(a, 99999), -ESRCH);
	cr_assert_eq(rp_setpgid(a, 0, 0), 0);
	cr_assert_eq(rp_getpgid(init, rp_getpid(a)), rp_getpid(a));
	cr_assert_eq(rp_getpgrp(t), rp_getpid(a), "threads share the group");
}

/* ---- setpgid ---- */

Test(setpgid, errnos, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *c = fork_of(p), *other = fork_of(init);
	struct rp_task *pt = thread_of(p), *leader = fork_of(p);
	pid_t cpid = rp_getpid(c);

	cr_assert_eq(rp_setpgid(p, cpid, -1), -EINVAL);
	cr_assert_eq(rp_setpgid(p, 99999, 0), -ESRCH);
	cr_assert_eq(rp_setpgid(p, rp_getpid(other), 0), -ESRCH, "not our child");
	cr_assert_eq(rp_setpgid(p, 1, 0), -ESRCH);
	cr_assert_eq(rp_setpgid(p, rp_gettid(pt), 0), -EINVAL, "a thread is no group leader");
	cr_assert_eq(rp_setpgid(p, cpid, 99999), -EPERM, "no such group");
	cr_assert_eq(rp_setsid(leader), rp_getpid(leader));
	cr_assert_eq(rp_setpgid(p, rp_getpid(leader), 0), -EPERM, "a child in another session");
	cr_assert_eq(rp_setpgid(p, cpid, rp_getpid(leader)), -EPERM, "a group of another session");
	cr_assert_eq(rp_setpgid(leader, 0, 0), -EPERM, "a session leader");
	cr_assert_eq(rp_execve(c, "prog"), 0);
	cr_assert_eq(rp_setpgid(p, cpid, 0), -EACCES, "a child that has exec'd");
	cr_assert_eq(rp_getpgid(c, 0), 1, "nothing changed");
}

Test(setpgid, moves, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *c = fork_of(p), *c2 = fork_of(p);
	struct rp_task *pt = thread_of(p);
	pid_t ppid = rp_getpid(p), cpid = rp_getpid(c);

	cr_assert_eq(rp_setpgid(p, 0, 0), 0);
	cr_assert_eq(rp_getpgrp(p), ppid);
	cr_assert_eq(rp_getpgrp(c), 1, "a child stays where it was");
	cr_assert_eq(rp_setpgid(pt, cpid, cpid), 0, "another thread of the parent may move it");
	cr_assert_eq(rp_getpgrp(c), cpid);
	cr_assert_eq(rp_setpgid(p, rp_getpid(c2), cpid), 0, "into a group of the session");
	cr_assert_eq(rp_getpgrp(c2), cpid);
	cr_assert_eq(rp_setpgid(c, 0, ppid), 0, "a process moves itself");
	cr_assert_eq(rp_getpgrp(c), ppid);
	cr_assert_eq(rp_getpgrp(c2), cpid, "the group outlives its leader's move");
	cr_assert_eq(rp_setpgid(c, 0, ppid), 0, "no move: already there");
	cr_assert_eq(rp_kill(init, -cpid, 0), 0, "c2 is still in group cpid");
}

/* ---- setsid ---- */

Test(setsid, rules, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *c = fork_of(p);
	pid_t ppid = rp_getpid(p), cpid = rp_getpid(c);

	cr_assert_eq(rp_setsid(init), -EPERM, "init leads its session");
	cr_assert_eq(rp_setpgid(p, 0, 0), 0);
	cr_assert_eq(rp_setsid(p), -EPERM, "a group leader");
	cr_assert_eq(rp_setpgid(p, cpid, ppid), 0);
	cr_assert_eq(rp_setpgid(p, 0, 1), 0);
	cr_assert_eq(rp_setsid(p), -EPERM, "a group with our id exists (c is in it)");
	cr_assert_eq(rp_setsid(c), cpid);
	cr_assert_eq(rp_getsid(p, cpid), cpid);
	cr_assert_eq(rp_getpgid(p, cpid), cpid);
	cr_assert_eq(rp_setsid(c), -EPERM, "already a session leader");
	cr_assert_eq(rp_setsid(p), ppid, "group ppid emptied");
	cr_assert_eq(rp_getsid(init, ppid), ppid);
}

/* ---- group signals ---- */

Test(kill, pgrp_answers, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *a = fork_of(p), *b = fork_of(p);
	struct rp_task *out = fork_of(p);
	pid_t ppid = rp_getpid(p);

	cr_assert_eq(rp_setpgid(p, 0, 0), 0);
	cr_assert_eq(rp_setpgid(p, rp_getpid(a), ppid), 0);
	cr_assert_eq(rp_setpgid(p, rp_getpid(b), ppid), 0);
	for (struct rp_task **t = (struct rp_task *[]){ p, a, b, out, NULL }; *t; t++)
		handle(*t, SIGUSR1);
	cr_assert_eq(rp_kill(a, 0, SIGUSR1), 0);
	cr_assert(is_pending(p, SIGUSR1) && is_pending(a, SIGUSR1) && is_pending(b, SIGUSR1));
	cr_assert_not(is_pending(out, SIGUSR1), "not in the group");
	cr_assert_eq(rp_killpg(out, ppid, SIGUSR1), 0);
	cr_assert_eq(rp_killpg(out, -ppid, SIGUSR1), -EINVAL);
	cr_assert_eq(rp_kill(out, -99999, SIGUSR1), -ESRCH);
	cr_assert_eq(rp_kill(out, INT_MIN, SIGUSR1), -ESRCH);
	cr_assert_eq(rp_kill(out, -ppid, 99), -EINVAL);
	cr_assert_eq(rp_kill(out, -rp_getpid(a), SIGUSR1), -ESRCH, "a leads no group");
	/* A group where the sender may signal nobody: EPERM; somebody: 0. */
	cr_assert_eq(rp_setresuid(out, 1000, 1000, 1000), 0);
	cr_assert_eq(rp_kill(out, -ppid, SIGUSR1), -EPERM);
	cr_assert_eq(rp_setresuid(b, 1000, 1000, 1000), 0);
	cr_assert_eq(rp_kill(out, -ppid, 0), 0);
}

Test(kill, everyone, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *a = fork_of(init), *b = fork_of(init), *bt = thread_of(b);
	pid_t bpid = rp_getpid(b);
	siginfo_t info;

	for (struct rp_task **t = (struct rp_task *[]){ a, b, NULL }; *t; t++)
		handle(*t, RT(1));
	cr_assert_eq(rp_kill(bt, -1, RT(1)), 0);
	cr_assert_eq(take_all(a, RT(1), &info), 1);
	cr_assert_eq(info.si_code, SI_USER);
	cr_assert_eq(info.si_pid, rp_getpid(b));
	cr_assert_eq(take_all(b, RT(1), NULL), 0, "not the sender's own process");
	cr_assert_eq(rp_setresuid(a, 1000, 1000, 1000), 0);
	cr_assert_eq(rp_kill(a, -1, RT(1)), 0, "refusals (b) do not change the answer");
	cr_assert_eq(rp_exit_group(b, 0), 0);
	cr_assert_eq(rp_get_signal(bt, NULL), -ESRCH, "the group exit's SIGKILL");
	cr_assert_eq(rp_wait4(init, bpid, NULL, 0, NULL), bpid);
	cr_assert_eq(rp_kill(a, -1, RT(1)), -ESRCH, "nobody but init and us");
}

Test(kill, session, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *s = fork_of(init), *m, *o = fork_of(init);
	pid_t sid = rp_getpid(s);
	siginfo_t info;

	cr_assert_eq(rp_setsid(s), sid);
	m = fork_of(s);
	for (struct rp_task **t = (struct rp_task *[]){ s, m, o, NULL }; *t; t++)
		handle(*t, RT(2));
	cr_assert_eq(rp_setpgid(s, rp_getpid(m), 0), 0, "another group, same session");
	cr_assert_eq(rp_kill_session(o, sid, RT(2)), 0);
	cr_assert_eq(take_all(s, RT(2), &info), 1);
	cr_assert_eq(info.si_code, SI_KERNEL);
	cr_assert_eq(take_all(m, RT(2), NULL), 1);
	cr_assert_eq(take_all(o, RT(2), NULL), 0);
	cr_assert_eq(rp_kill_session(o, rp_getpid(m), RT(2)), -ESRCH, "m leads no session");
	cr_assert_eq(rp_kill_session(o, 99999, RT(2)), -ESRCH);
	cr_assert_eq(rp_kill(o, 0, 0), 0, "kill(0) reaches o's own group (init's)");
}

/* ---- the fork restart rule ---- */

Test(fork, restart_rule, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *c;
	sigset_t set;

	handle(p, SIGUSR1);
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGUSR1), 0);
	cr_assert_eq(rp_fork(p, &c), -RP_ERESTARTNOINTR, "a signal pending when the fork starts");
	cr_assert_eq(rp_get_signal(p, NULL), SIGUSR1);
	c = fork_of(p);
	cr_assert_not(is_pending(c, SIGUSR1));
	/* Blocked, it waits in the parent; the child does not inherit it. */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	cr_assert_eq(rp_sigprocmask(p, SIG_BLOCK, &set, NULL), 0);
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGUSR2), 0);
	c = fork_of(p);
	cr_assert(is_pending(p, SIGUSR2));
	cr_assert_not(is_pending(c, SIGUSR2));
}

/* ---- priorities ---- */

Test(prio, setpriority_rules, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *t = thread_of(p), *c = fork_of(p);
	struct rp_task *u = fork_of(init), *v = fork_of(init);
	pid_t ppid = rp_getpid(p);

	cr_assert_eq(rp_setpriority(p, 7, 0, 0), -EINVAL);
	cr_assert_eq(rp_getpriority(p, -1, 0), -EINVAL);
	cr_assert_eq(rp_setpriority(p, PRIO_PROCESS, 99999, 0), -ESRCH);
	cr_assert_eq(rp_getpriority(p, PRIO_PGRP, 99999), -ESRCH);
	cr_assert_eq(rp_setpriority(p, PRIO_PROCESS, 0, 100), 0);
	cr_assert_eq(rp_getpriority(p, PRIO_PROCESS, 0), 20 - 19, "clamped to 19");
	cr_assert_eq(rp_getpriority(p, PRIO_PROCESS, rp_gettid(t)), 20, "per thread");
	cr_assert_eq(rp_setpriority(p, PRIO_PROCESS, 0, -100), 0, "root may lower");
	cr_assert_eq(rp_getpriority(p, PRIO_PROCESS, 0), 40);
	/* A group: every thread of every member; get returns the highest priority. */
	cr_assert_eq(rp_setpgid(p, 0, 0), 0);
	cr_assert_eq(rp_setpgid(p, rp_getpid(c), ppid), 0);
	cr_assert_eq(rp_setpriority(c, PRIO_PROCESS, 0, 10), 0);
	cr_assert_eq(rp_getpriority(u, PRIO_PGRP, ppid), 40);
	cr_assert_eq(rp_setpriority(u, PRIO_PGRP, ppid, 5), 0);
	cr_assert_eq(rp_getpriority(u, PRIO_PROCESS, rp_gettid(t)), 15);
	cr_assert_eq(rp_getpriority(u, PRIO_PROCESS, rp_getpid(c)), 15);
	cr_assert_eq(rp_getpriority(u, PRIO_PGRP, ppid), 15);
	cr_assert_eq(rp_getpriority(fork_of(p), PRIO_PROCESS, 0), 15, "fork copies nice");
	/* Permission: uid 1000 without CAP_SYS_NICE. */
	cr_assert_eq(rp_setresuid(u, 1000, 1000, 1000), 0);
	cr_assert_eq(rp_setpriority(u, PRIO_PROCESS, ppid, 6), -EPERM, "another uid");
	cr_assert_eq(rp_setpriority(u, PRIO_PROCESS, 0, 3), 0, "raising nice is free");
	cr_assert_eq(rp_setpriority(u, PRIO_PROCESS, 0, 2), -EACCES, "lowering needs CAP_SYS_NICE");
	cr_assert_eq(rp_setpriority(u, PRIO_PROCESS, 0, 3), 0);
	cr_assert_eq(rp_setresuid(v, 1000, 1000, 1000), 0);
	cr_assert_eq(rp_setpriority(init, PRIO_USER, 1000, 8), 0);
	cr_assert_eq(rp_getpriority(init, PRIO_PROCESS, rp_getpid(u)), 12);
	cr_assert_eq(rp_getpriority(init, PRIO_USER, 1000), 12);
	cr_assert_eq(rp_getpriority(u, PRIO_USER, 0), 12, "who 0: the caller's uid");
	cr_assert_eq(rp_getpriority(init, PRIO_USER, 4242), -ESRCH);
	cr_assert_eq(rp_setpriority(u, PRIO_PGRP, ppid, 9), -EPERM, "nobody of the group is ours");
}

Test(prio, ioprio_rules, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *c = fork_of(p), *u = fork_of(init);
	int be6 = RP_IOPRIO_PRIO_VALUE(RP_IOPRIO_CLASS_BE, 6);
	int be4 = RP_IOPRIO_PRIO_VALUE(RP_IOPRIO_CLASS_BE, 4);
	int rt0 = RP_IOPRIO_PRIO_VALUE(RP_IOPRIO_CLASS_RT, 0);
	pid_t ppid = rp_getpid(p);

	cr_assert_eq(rp_ioprio_set(p, 0, 0, be6), -EINVAL);
	cr_assert_eq(rp_ioprio_get(p, 4, 0), -EINVAL);
	cr_assert_eq(rp_ioprio_set(p, RP_IOPRIO_WHO_PROCESS, 0, 4 << 13), -EINVAL, "no class 4");
	cr_assert_eq(rp_ioprio_set(p, RP_IOPRIO_WHO_PROCESS, 0, 1), -EINVAL, "NONE has no level");
	cr_assert_eq(rp_ioprio_get(p, RP_IOPRIO_WHO_PROCESS, 0), 0, "never set");
	cr_assert_eq(rp_setpgid(p, 0, 0), 0);
	cr_assert_eq(rp_setpgid(p, rp_getpid(c), ppid), 0);
	cr_assert_eq(rp_ioprio_get(p, RP_IOPRIO_WHO_PGRP, 0), be4, "unset: from nice 0");
	cr_assert_eq(rp_ioprio_set(p, RP_IOPRIO_WHO_PROCESS, 0, be6), 0);
	cr_assert_eq(rp_ioprio_get(p, RP_IOPRIO_WHO_PROCESS, 0), be6);
	cr_assert_eq(rp_ioprio_get(p, RP_IOPRIO_WHO_PGRP, ppid), be4, "the best of the group");
	cr_assert_eq(rp_ioprio_set(init, RP_IOPRIO_WHO_PGRP, ppid, rt0), 0);
	cr_assert_eq(rp_ioprio_get(init, RP_IOPRIO_WHO_PROCESS, rp_getpid(c)), rt0);
	cr_assert_eq(rp_ioprio_get(init, RP_IOPRIO_WHO_PROCESS, rp_getpid(fork_of(c))), rt0,
		     "fork copies it");
	cr_assert_eq(rp_ioprio_set(p, RP_IOPRIO_WHO_PGRP, 99999, be6), -ESRCH);
	cr_assert_eq(rp_ioprio_get(p, RP_IOPRIO_WHO_USER, -1), -ESRCH);
	cr_assert_eq(rp_setresuid(u, 1000, 1000, 1000), 0);
	cr_assert_eq(rp_ioprio_set(u, RP_IOPRIO_WHO_PROCESS, 0, rt0), -EPERM, "RT needs a capability");
	cr_assert_eq(rp_ioprio_set(u, RP_IOPRIO_WHO_PROCESS, ppid, be6), -EPERM, "another uid");
	cr_assert_eq(rp_ioprio_set(u, RP_IOPRIO_WHO_USER, 0, be6), 0);
	cr_assert_eq(rp_ioprio_get(init, RP_IOPRIO_WHO_USER, 1000), be6);
}

/* ---- leaks (I7) ---- */

Test(leaks, proxies_released, .init = start_rcu, .fini = stop_system)
{
	struct rp_task *p = fork_of(init), *c = fork_of(p), *t = thread_of(p);
	pid_t ppid = rp_getpid(p);

	cr_assert_eq(rp_setpgid(p, 0, 0), 0);
	cr_assert_eq(rp_setsid(c), rp_getpid(c));
	cr_assert_eq(rp_setpgid(c, 0, 0), -EPERM);
	end_child(p, c);
	cr_assert_eq(rp_exit(t, 0), 0);
	rp_task_put(t);
	end_child(init, p);
	cr_assert_eq(rp_kill(init, -ppid, 0), -ESRCH, "the group is gone with its last member");
	expect_only_init_with_proxies();
}
