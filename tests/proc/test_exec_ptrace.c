/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * exec and ptrace, in all three modes.
 *
 * exec: the other threads die and a non-leader takes over the leader's pid;
 * a handler table shared with another process is unshared (that process
 * keeps its handlers); handlers reset to SIG_DFL except ignored ones; the
 * blocked mask and pending signals survive.  ptrace: the errnos of Linux
 * (EPERM for the own group, another uid, a non-dumpable target, a traced
 * target; ESRCH for no such pid or a tracee not stopped; EIO/EINVAL for
 * bad SEIZE arguments, SUSPEND_SECCOMP not provided), attach -> the tracer's wait4 reports the stop,
 * CONT with a signal, DETACH, and a tracer's exit detaches its tracees.
 *
 * Concurrency (RP_TEST_SECONDS each, default 1):
 *  - exec_kill (I6): senders queue numbered real-time signals to a process
 *    that execs in a loop, each exec switching its handler table; every
 *    signal whose send returned 0 is received exactly once.  Caught by
 *    RP_BREAK_SIGHAND_NO_RECHECK (see the report on how reliably).
 *  - ptrace_wait (I3, I4): tracees move between two tracers by detach and
 *    attach while each tracer's group scans with waitid(WNOWAIT|__WALL):
 *    a tracer never reports a tracee only the other one ever had.  Caught
 *    by RP_BREAK_NO_OBSOLETE_MARK (the scan follows a moved tracee onto the
 *    other tracer's list).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <criterion/criterion.h>
#include <rcuproc/snapshot.h>
#include "../fixture/puppet.h"
#include "../fixture/nomem.h"
#include "task/task.h"
#include "task/objects.h"

#define PDATA(sig)	((void *)(intptr_t)(sig))

static void (*action_of(struct rp_task *t, int sig))(int)
{
	struct sigaction sa;

	cr_assert_eq(rp_sigaction(t, sig, NULL, &sa), 0);
	return sa.sa_handler;
}

static bool ptrace_stopped(struct rp_task *t)
{
	return task_jobctl_any(t, RP_JOBCTL_TRACED);
}

static bool running(struct rp_task *t)
{
	return !ptrace_stopped(t);
}

/* ---------------------------------------------------------------- exec */

static void exec_from_thread(enum rp_sync_mode mode)
{
	struct rp_task *p, *t1, *t2;
	struct puppet dp, d2;
	pid_t tgid, tid1, tid2;
	int status;

	start(mode);
	p = spawn(init, SIGCHLD);
	t1 = spawn(p, THREAD_FLAGS);
	t2 = spawn(p, THREAD_FLAGS);
	tgid = rp_getpid(p);
	tid1 = rp_gettid(t1);
	tid2 = rp_gettid(t2);
	puppet_start(&dp, p);
	puppet_start(&d2, t2);
	cr_assert_eq(rp_execve(t1, "next"), 0);
	/* Both other threads died of the exec's SIGKILL. */
	puppet_join_dead(&dp);
	puppet_join_dead(&d2);
	/* The non-leader took over the leader's pid; its old tid is gone. */
	cr_assert_eq(rp_getpid(t1), tgid);
	cr_assert_eq(rp_gettid(t1), tgid);
	cr_assert_eq(rp_getppid(t1), 1);
	cr_assert(rp_thread_group_leader(t1));
	cr_assert_eq(t1->signal->nr_threads, 1);
	cr_assert_eq(rp_tkill(init, tid1, 0), -ESRCH);
	cr_assert_eq(rp_tkill(init, tid2, 0), -ESRCH);
	cr_assert_eq(rp_tgkill(init, tgid, tgid, 0), 0);
	cr_assert_eq(rp_getpid(p), -ESRCH);
	cr_assert_str_eq(t1->comm, "next");
	cr_assert_not(t1->flags & RP_PF_FORKNOEXEC);
	cr_assert_eq(t1->exit_signal, SIGCHLD);
	/* The parent reaps the process under its old pid. */
	cr_assert_eq(rp_exit_group(t1, 3), 0);
	cr_assert_eq(rp_wait4(init, tgid, &status, 0, NULL), tgid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 3);
	rp_task_put(p);
	rp_task_put(t1);
	rp_task_put(t2);
	finish();
}

Test(exec, from_thread_kills_others_and_takes_leader_pid)
{
	FOR_EACH_MODE(m)
		exec_from_thread(m);
}

/* A leader's exec: the thread dies, the pid and the table stay. */
static void exec_from_leader(enum rp_sync_mode mode)
{
	struct rp_task *p, *t;
	struct rp_sighand *sh;
	struct puppet d;
	pid_t tgid, tid;

	start(mode);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	tgid = rp_getpid(p);
	tid = rp_gettid(t);
	sh = p->sighand;
	puppet_start(&d, t);
	cr_assert_eq(rp_execve(p, "again"), 0);
	puppet_join_dead(&d);
	cr_assert_eq(rp_gettid(p), tgid);
	cr_assert_eq(rp_tkill(init, tid, 0), -ESRCH);
	/* Shared only within the group, which is gone: no copy. */
	cr_assert_eq(p->sighand, sh);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	rp_task_put(p);
	rp_task_put(t);
	finish();
}

Test(exec, from_leader)
{
	FOR_EACH_MODE(m)
		exec_from_leader(m);
}

static void exec_unshares(enum rp_sync_mode mode)
{
	struct rp_task *p, *q;
	struct rp_system_counts c;
	sigset_t set;
	siginfo_t si = { .si_code = SI_QUEUE };

	start(mode);
	p = spawn(init, SIGCHLD);
	q = spawn(p, CLONE_SIGHAND | CLONE_VM | SIGCHLD);
	cr_assert_eq(p->sighand, q->sighand);
	set_action(p, SIGUSR1, user_handler);
	set_action(p, SIGUSR2, SIG_IGN);
	cr_assert_eq(action_of(q, SIGUSR1), user_handler);
	mask_signal(p, SIG_BLOCK, SIGINT);
	mask_signal(p, SIG_BLOCK, RT(1));
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGINT), 0);
	si.si_value.sival_int = 42;
	cr_assert_eq(rp_rt_sigqueueinfo(init, rp_getpid(p), RT(1), &si), 0);

	cr_assert_eq(rp_execve(p, "fresh"), 0);
	cr_assert_neq(p->sighand, q->sighand);
	rp_system_counts(sys, &c);
	cr_assert_eq(c.sighands, 3);
	cr_assert_eq(action_of(p, SIGUSR1), SIG_DFL);
	cr_assert_eq(action_of(p, SIGUSR2), SIG_IGN);
	/* The other process keeps its handlers. */
	cr_assert_eq(action_of(q, SIGUSR1), user_handler);
	cr_assert_eq(action_of(q, SIGUSR2), SIG_IGN);
	/* Blocked mask and pending signals survive. */
	cr_assert_eq(rp_sigprocmask(p, SIG_BLOCK, NULL, &set), 0);
	cr_assert(sigismember(&set, SIGINT) && sigismember(&set, RT(1)));
	cr_assert_eq(rp_sigpending(p, &set), 0);
	cr_assert(sigismember(&set, SIGINT) && sigismember(&set, RT(1)));
	set_action(p, RT(1), user_handler);
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(rp_get_signal(p, &si), RT(1));
	cr_assert_eq(si.si_value.sival_int, 42);

	pid_t qpid = rp_getpid(q);
	cr_assert_eq(rp_exit_group(q, 0), 0);
	cr_assert_eq(rp_wait4(p, qpid, NULL, 0, NULL), qpid);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	rp_task_put(p);
	rp_task_put(q);
	finish();
}

Test(exec, unshares_sighand_resets_handlers_keeps_mask_and_pending)
{
	FOR_EACH_MODE(m)
		exec_unshares(m);
}

/* Another thread's exit_group first: the exec fails and the thread dies. */
static void exec_after_group_exit(enum rp_sync_mode mode)
{
	struct rp_task *p, *t;
	int status;
	pid_t pid;

	start(mode);
	p = spawn(init, SIGCHLD);
	pid = rp_getpid(p);
	t = spawn(p, THREAD_FLAGS);
	cr_assert_eq(rp_exit_group(p, 5), 0);
	cr_assert_eq(rp_execve(t, "late"), -ESRCH);
	cr_assert_eq(rp_getpid(t), -ESRCH);
	cr_assert_eq(rp_wait4(init, -1, &status, 0, NULL), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 5);
	rp_task_put(p);
	rp_task_put(t);
	finish();
}

Test(exec, fails_after_group_exit)
{
	FOR_EACH_MODE(m)
		exec_after_group_exit(m);
}

/* -------------------------------------------------------------- ptrace */

static long ptrace_at(struct rp_task *self, long req, struct rp_task *t, long data)
{
	return rp_ptrace(self, req, rp_gettid(t), NULL, PDATA(data));
}

static void ptrace_errors(enum rp_sync_mode mode)
{
	struct rp_task *a, *a2, *b, *u, *v, *w, *x;

	start(mode);
	a = spawn(init, SIGCHLD);
	a2 = spawn(a, THREAD_FLAGS);
	b = spawn(init, SIGCHLD);
	/* Own group, own thread: EPERM.  No such pid: ESRCH. */
	cr_assert_eq(ptrace_at(a, PTRACE_ATTACH, a, 0), -EPERM);
	cr_assert_eq(ptrace_at(a, PTRACE_ATTACH, a2, 0), -EPERM);
	cr_assert_eq(rp_ptrace(a, PTRACE_ATTACH, 30000, NULL, NULL), -ESRCH);
	cr_assert_eq(rp_ptrace(a, PTRACE_ATTACH, -1, NULL, NULL), -ESRCH);
	/* Not our tracee: ESRCH for every request. */
	cr_assert_eq(ptrace_at(a, PTRACE_CONT, b, 0), -ESRCH);
	cr_assert_eq(ptrace_at(a, PTRACE_DETACH, b, 0), -ESRCH);
	cr_assert_eq(ptrace_at(a, PTRACE_KILL, b, 0), -ESRCH);
	cr_assert_eq(ptrace_at(a, PTRACE_INTERRUPT, b, 0), -ESRCH);
	/* SEIZE's arguments: addr must be 0, options known and provided (not SUSPEND_SECCOMP). */
	cr_assert_eq(rp_ptrace(a, PTRACE_SEIZE, rp_gettid(b), PDATA(1), NULL), -EIO);
	cr_assert_eq(ptrace_at(a, PTRACE_SEIZE, b, 0x40000000), -EIO);
	cr_assert_eq(ptrace_at(a, PTRACE_SEIZE, b, PTRACE_O_SUSPEND_SECCOMP), -EINVAL);
	/* Traced already: EPERM, for another tracer and for TRACEME. */
	cr_assert_eq(ptrace_at(a, PTRACE_SEIZE, b, 0), 0);
	cr_assert_eq(ptrace_at(init, PTRACE_ATTACH, b, 0), -EPERM);
	cr_assert_eq(rp_ptrace(b, PTRACE_TRACEME, 0, NULL, NULL), -EPERM);
	/* A running tracee: ESRCH for CONT and DETACH; KILL and INTERRUPT work. */
	cr_assert_eq(ptrace_at(a, PTRACE_CONT, b, 0), -ESRCH);
	cr_assert_eq(ptrace_at(a, PTRACE_DETACH, b, 0), -ESRCH);
	cr_assert_eq(ptrace_at(a, PTRACE_INTERRUPT, b, 0), 0);
	cr_assert_eq(ptrace_at(a, PTRACE_KILL, b, 0), 0);
	cr_assert_eq(rp_get_signal(b, NULL), -ESRCH);

	/* Credentials: another uid without CAP_SYS_PTRACE is refused. */
	u = spawn(init, SIGCHLD);
	v = spawn(init, SIGCHLD);
	cr_assert_eq(rp_setresuid(u, 1000, 1000, 1000), 0);
	cr_assert_eq(ptrace_at(u, PTRACE_ATTACH, v, 0), -EPERM);
	/* Same uid, but setuid made it non-dumpable: refused until PR_SET_DUMPABLE. */
	cr_assert_eq(rp_setresuid(v, 1000, 1000, 1000), 0);
	cr_assert_eq(ptrace_at(u, PTRACE_SEIZE, v, 0), -EPERM);
	cr_assert_eq(rp_prctl(v, PR_SET_DUMPABLE, 1), 0);
	cr_assert_eq(ptrace_at(u, PTRACE_SEIZE, v, 0), 0);
	cr_assert_eq(ptrace_at(u, PTRACE_INTERRUPT, v, 0), 0);
	/* An uid in one slot only is not enough; CAP_SYS_PTRACE is. */
	w = spawn(init, SIGCHLD);
	cr_assert_eq(rp_setresuid(w, 1000, 1000, 0), 0);
	cr_assert_eq(rp_prctl(w, PR_SET_DUMPABLE, 1), 0);
	cr_assert_eq(ptrace_at(u, PTRACE_SEIZE, w, 0), -EPERM);
	cr_assert_eq(ptrace_at(init, PTRACE_SEIZE, w, 0), 0);
	cr_assert_eq(ptrace_at(init, PTRACE_DETACH, w, 0), -ESRCH);
	/* Same uid 0 without the capability; a legacy tracee refuses INTERRUPT. */
	cr_assert_eq(rp_cap_drop(init, RP_CAP_SYS_PTRACE), 0);
	x = spawn(init, SIGCHLD);
	cr_assert_eq(ptrace_at(init, PTRACE_ATTACH, x, 0), 0);
	cr_assert_eq(ptrace_at(init, PTRACE_INTERRUPT, x, 0), -EIO);
	cr_assert_eq(rp_ptrace(x, PTRACE_TRACEME, 0, NULL, NULL), -EPERM);

	/* b is dead already (PTRACE_KILL); a2 dies of a's exit_group. */
	struct rp_task *all[] = { a, u, v, w, x };
	for (unsigned int i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		cr_assert_eq(rp_exit_group(all[i], 0), 0);
		rp_task_put(all[i]);
	}
	cr_assert_eq(rp_get_signal(a2, NULL), -ESRCH);
	rp_task_put(a2);
	rp_task_put(b);
	finish();
}

Test(ptrace, errors)
{
	FOR_EACH_MODE(m)
		ptrace_errors(m);
}

static void ptrace_attach_cont_detach(enum rp_sync_mode mode)
{
	struct rp_task *tracer, *c;
	struct puppet d;
	int status;
	pid_t pid;

	start(mode);
	tracer = spawn(init, SIGCHLD);
	c = spawn(init, SIGCHLD);
	pid = rp_gettid(c);
	set_action(c, SIGUSR1, user_handler);
	set_action(c, SIGUSR2, user_handler);
	puppet_start(&d, c);
	/* ATTACH stops the tracee with SIGSTOP; the tracer's wait4 reports it. */
	cr_assert_eq(ptrace_at(tracer, PTRACE_ATTACH, c, 0), 0);
	cr_assert_eq(c->parent, tracer);
	cr_assert_eq(rp_wait4(tracer, pid, &status, __WALL, NULL), pid);
	cr_assert(WIFSTOPPED(status));
	cr_assert_eq(WSTOPSIG(status), SIGSTOP);
	cr_assert_eq(rp_wait4(tracer, pid, &status, WNOHANG | __WALL, NULL), 0);
	/* CONT with SIGUSR1: the tracee takes that signal instead. */
	cr_assert_eq(ptrace_at(tracer, PTRACE_CONT, c, SIGUSR1), 0);
	cr_assert_eq(ptrace_at(tracer, PTRACE_CONT, c, 0), -ESRCH);
	/* A signal sent to the tracee stops it again for the tracer. */
	cr_assert_eq(rp_kill(init, pid, SIGUSR2), 0);
	cr_assert_eq(rp_wait4(tracer, pid, &status, __WALL, NULL), pid);
	cr_assert(WIFSTOPPED(status));
	cr_assert_eq(WSTOPSIG(status), SIGUSR2);
	cr_assert_eq(uatomic_read(&d.handled[SIGUSR1]), 1);
	cr_assert_eq(ptrace_at(tracer, PTRACE_CONT, c, 65), -EIO);
	/* DETACH with 0: SIGUSR2 is suppressed, the tracee is free. */
	cr_assert_eq(ptrace_at(tracer, PTRACE_DETACH, c, 0), 0);
	cr_assert_eq(c->ptrace, 0u);
	cr_assert_eq(c->parent, init);
	await_task(running, c);
	cr_assert_eq(rp_wait4(tracer, -1, &status, WNOHANG | __WALL, NULL), -ECHILD);
	cr_assert_eq(rp_kill(init, pid, SIGUSR1), 0);
	while (uatomic_read(&d.handled[SIGUSR1]) != 2)
		sched_yield();
	cr_assert_eq(uatomic_read(&d.handled[SIGUSR2]), 0);
	/* TRACEME: traced by the real parent. */
	cr_assert_eq(puppet_quit(&d), 0);
	cr_assert_eq(rp_ptrace(c, PTRACE_TRACEME, 0, NULL, NULL), 0);
	cr_assert_eq(c->parent, init);
	cr_assert(c->ptrace & RP_PT_PTRACED);
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(tracer);
	rp_task_put(c);
	finish();
}

Test(ptrace, attach_wait_cont_detach)
{
	FOR_EACH_MODE(m)
		ptrace_attach_cont_detach(m);
}

static void ptrace_tracer_exit(enum rp_sync_mode mode)
{
	struct rp_task *tracer, *c1, *c2;
	struct puppet d1, d2;
	int status;
	pid_t tpid;

	start(mode);
	tracer = spawn(init, SIGCHLD);
	tpid = rp_getpid(tracer);
	c1 = spawn(init, SIGCHLD);
	c2 = spawn(init, SIGCHLD);
	puppet_start(&d1, c1);
	puppet_start(&d2, c2);
	cr_assert_eq(ptrace_at(tracer, PTRACE_ATTACH, c1, 0), 0);
	cr_assert_eq(ptrace_at(tracer, PTRACE_SEIZE, c2, 0), 0);
	cr_assert_eq(rp_wait4(tracer, rp_gettid(c1), &status, __WALL, NULL), rp_gettid(c1));
	cr_assert(WIFSTOPPED(status));
	/* The tracer dies: both tracees are detached, the stopped one resumes. */
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	cr_assert_eq(c1->ptrace, 0u);
	cr_assert_eq(c2->ptrace, 0u);
	cr_assert_eq(c1->parent, init);
	cr_assert_eq(c2->parent, init);
	await_task(running, c1);
	cr_assert_eq(rp_wait4(init, tpid, &status, 0, NULL), tpid);
	cr_assert_eq(puppet_quit(&d1), 0);
	cr_assert_eq(puppet_quit(&d2), 0);
	cr_assert_eq(rp_exit_group(c1, 0), 0);
	cr_assert_eq(rp_exit_group(c2, 0), 0);
	rp_task_put(tracer);
	rp_task_put(c1);
	rp_task_put(c2);
	finish();
}

Test(ptrace, tracer_exit_detaches)
{
	FOR_EACH_MODE(m)
		ptrace_tracer_exit(m);
}

/*
 * A task's own state (rp_proc_state, /proc/TID/stat): a seized thread in
 * its trap reads t while its leader reads S; resumed, it reads S again.
 * A tid nobody has: ESRCH.
 */
static void ptrace_thread_state(enum rp_sync_mode mode)
{
	struct rp_task *tracer, *p, *t;
	struct puppet dp, dt;
	pid_t tid;

	start(mode);
	p = spawn(init, SIGCHLD);
	t = thread_of(p);
	tid = rp_gettid(t);
	cr_assert_eq(rp_proc_state(init, tid), 'S');
	puppet_start(&dp, p);
	puppet_start(&dt, t);
	tracer = spawn(init, SIGCHLD);
	cr_assert_eq(ptrace_at(tracer, PTRACE_SEIZE, t, 0), 0);
	cr_assert_eq(ptrace_at(tracer, PTRACE_INTERRUPT, t, 0), 0);
	cr_assert_eq(rp_wait4(tracer, tid, NULL, __WALL, NULL), tid);
	cr_assert_eq(rp_proc_state(init, tid), 't');
	cr_assert_eq(rp_proc_state(init, rp_getpid(p)), 'S');
	cr_assert_eq(ptrace_at(tracer, PTRACE_CONT, t, 0), 0);
	cr_assert_eq(rp_proc_state(init, tid), 'S');
	cr_assert_eq(rp_proc_state(init, 30000), -ESRCH);
	/* The tracer goes, then the process, whose thread runs its own exit. */
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(tracer);
	cr_assert_eq(puppet_quit(&dp), 0);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	rp_task_put(p);
	puppet_join_dead(&dt);
	rp_task_put(t);
	finish();
}

Test(ptrace, thread_state_is_its_own)
{
	FOR_EACH_MODE(m)
		ptrace_thread_state(m);
}

/* ------------------------------------------------- the ptrace part without memory */

/*
 * The allocation site of the ptrace parts: the one site that a first
 * PTRACE_SEIZE between two tasks with none reaches, twice (tracer, tracee).
 * The seize is undone (the tracee detached, the tracer's part kept).
 */
static unsigned int part_site(void)
{
	static unsigned long before[MAX_SITES], after[MAX_SITES];
	struct rp_task *tracer = spawn(init, SIGCHLD), *c = spawn(init, SIGCHLD);
	unsigned int n0 = site_calls(before, MAX_SITES), n1, found = MAX_SITES;

	cr_assert_eq(ptrace_at(tracer, PTRACE_SEIZE, c, 0), 0);
	n1 = site_calls(after, MAX_SITES);
	for (unsigned int k = 0; k < n1; k++) {
		unsigned long grew = after[k] - (k < n0 ? before[k] : 0);

		if (!grew)
			continue;
		cr_assert_eq(found, MAX_SITES, "the seize reached two sites");
		cr_assert_eq(grew, 2, "the seize allocated %lu parts", grew);
		found = k;
	}
	cr_assert_neq(found, MAX_SITES, "the seize allocated nothing");
	end_child(init, tracer);
	end_child(init, c);
	return found;
}

/*
 * The first attach on each side allocates that side's part: out of memory
 * for the tracer's (the first call) or for the tracee's (the second), the
 * attach fails with -ENOMEM and links nothing; the next succeeds.
 */
Test(ptrace, attach_without_memory, .init = start_rcu, .fini = finish)
{
	unsigned int site = part_site();

	for (unsigned long nth = 1; nth <= 2; nth++) {
		struct rp_task *tracer = spawn(init, SIGCHLD), *c = spawn(init, SIGCHLD);
		unsigned long failures = rp_debug_alloc_failures();

		cr_assert_eq(rp_debug_fail_site(site, nth), 0);
		cr_expect_eq(ptrace_at(tracer, PTRACE_SEIZE, c, 0), -ENOMEM, "call %lu", nth);
		rp_debug_fail_none();
		cr_expect_eq(rp_debug_alloc_failures(), failures + 1, "the part's site failed");
		cr_expect_eq(c->ptrace, 0u, "a failed attach traced its target");
		cr_expect_null(c->ptrace_part, "the tracee kept a part it failed to get");
		cr_expect_eq(tracer->ptrace_part != NULL, nth == 2, "the tracer's part");
		cr_expect_eq(ptrace_at(tracer, PTRACE_SEIZE, c, 0), 0, "the next attach");
		cr_expect_eq(c->parent, tracer);
		end_child(init, tracer);
		end_child(init, c);
	}
}

/*
 * A traced fork whose child starts traced (PTRACE_O_TRACEFORK) gives the
 * child its part before linking it: out of memory, the fork fails with
 * -ENOMEM and leaves nothing behind; the next one is traced.
 */
Test(ptrace, traced_fork_without_memory, .init = start_rcu, .fini = finish)
{
	unsigned int site = part_site();
	struct rp_task *tracer = spawn(init, SIGCHLD), *p = spawn(init, SIGCHLD), *d = NULL;

	cr_assert_eq(ptrace_at(tracer, PTRACE_SEIZE, p, PTRACE_O_TRACEFORK), 0);
	expect_fork_without_memory(p, site);
	cr_assert_gt(rp_fork(p, &d), 0);
	cr_expect_eq(d->parent, tracer, "the next fork's child starts traced");
	cr_assert_not_null(d->ptrace_part);
	end_child(init, tracer);	/* detaches both */
	end_child(p, d);
	end_child(init, p);
}

/* ------------------------------------------------- exec_kill (I6) */

#define SENDERS		3
#define MAX_SEQ		(1 << 20)
#define EK_SIG		RT(2)

struct exec_kill {
	struct rp_task *target;
	pid_t pid;
	volatile bool stop;
	unsigned long sent[SENDERS];
	unsigned char *seen[SENDERS];	/* times each sequence number arrived */
};

struct sender {
	struct exec_kill *ek;
	int id;
	struct rp_task *self;
};

static void *send_loop(void *arg)
{
	struct sender *s = arg;
	struct exec_kill *ek = s->ek;
	siginfo_t si = { .si_code = SI_QUEUE };
	unsigned long n = 0;

	rp_thread_register();
	while (!CMM_LOAD_SHARED(ek->stop) && n < MAX_SEQ) {
		si.si_value.sival_int = s->id << 24 | (int)n;
		if (rp_rt_sigqueueinfo(s->self, ek->pid, EK_SIG, &si) == 0)
			n++;
		/* Gaps between readers: rwlock mode prefers readers and would starve exec. */
		if (n % 16 == 0)
			nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
	ek->sent[s->id] = n;
	rp_thread_unregister();
	return NULL;
}

/*
 * Take queued EK_SIGs, at most @limit (the senders may outpace us): the
 * handler is installed first, then the signal unblocked, then blocked again
 * before the next exec resets the handler.
 */
static void collect(struct exec_kill *ek, unsigned long limit)
{
	struct rp_task *t = ek->target;
	siginfo_t si;
	int sig = 0;

	set_action(t, EK_SIG, user_handler);
	mask_signal(t, SIG_UNBLOCK, EK_SIG);
	while (limit-- && (sig = rp_get_signal(t, &si)) > 0) {
		int id = si.si_value.sival_int >> 24, seq = si.si_value.sival_int & 0xffffff;

		cr_assert_eq(sig, EK_SIG);
		cr_assert(id >= 0 && id < SENDERS && seq < MAX_SEQ);
		cr_assert_eq(ek->seen[id][seq]++, 0, "signal %d/%d received twice", id, seq);
	}
	mask_signal(t, SIG_BLOCK, EK_SIG);
}

/*
 * Each exec must switch tables, so each needs a table shared with another
 * process: the sharer's reference is taken by hand (creating and reaping a
 * CLONE_SIGHAND process per exec would time fork, not the switch), and
 * dropped after the exec, as that process's exit would.
 */
static void exec_shared(struct rp_task *t)
{
	struct rp_sighand *old = t->sighand;

	uatomic_inc(&old->count);
	cr_assert_eq(rp_execve(t, "loop"), 0);
	cr_assert_neq(t->sighand, old);
	rp_sighand_put(old);
}

static void exec_kill(enum rp_sync_mode mode)
{
	struct exec_kill ek = { 0 };
	struct sender s[SENDERS];
	pthread_t th[SENDERS];
	unsigned long execs = 0;
	double end;

	start(mode);
	ek.target = spawn(init, SIGCHLD);
	ek.pid = rp_getpid(ek.target);
	mask_signal(ek.target, SIG_BLOCK, EK_SIG);
	for (int i = 0; i < SENDERS; i++) {
		ek.seen[i] = calloc(MAX_SEQ, 1);
		s[i] = (struct sender){ .ek = &ek, .id = i, .self = spawn(init, SIGCHLD) };
		cr_assert_eq(pthread_create(&th[i], NULL, send_loop, &s[i]), 0);
	}
	end = now_seconds() + test_seconds();
	while (now_seconds() < end) {
		exec_shared(ek.target);
		collect(&ek, 10000);
		execs++;
	}
	CMM_STORE_SHARED(ek.stop, true);
	for (int i = 0; i < SENDERS; i++)
		pthread_join(th[i], NULL);
	collect(&ek, ~0UL);
	for (int i = 0; i < SENDERS; i++) {
		for (unsigned long n = 0; n < ek.sent[i]; n++)
			cr_assert_eq(ek.seen[i][n], 1, "signal %d/%lu lost (%lu execs)", i, n, execs);
		cr_assert_eq(rp_exit_group(s[i].self, 0), 0);
		rp_task_put(s[i].self);
		free(ek.seen[i]);
	}
	cr_assert_gt(execs, 1);
	cr_assert_eq(rp_exit_group(ek.target, 0), 0);
	rp_task_put(ek.target);
	finish();
}

TEST_EACH_MODE(exec_kill, exec_kill)

/* ------------------------------------------------- ptrace_wait (I3, I4) */

#define OWN		2	/* tracees only one tracer ever has */
#define MOVING		6	/* tracees moved between the tracers */

struct tracer_side {
	struct rp_task *scanner;	/* the leader: scans with waitid */
	struct rp_task *mover;		/* another thread: attaches, detaches */
	pid_t own[OWN];
	unsigned long reports;
	pid_t stranger;		/* a pid reported that was never its tracee */
	int error;		/* a waitid failure */
};

struct ptrace_wait {
	struct tracer_side side[2];
	struct rp_task *moving[MOVING];
	volatile bool stop;
};

struct scan_arg {
	struct ptrace_wait *pw;
	int side;
};

static bool is_own(const struct ptrace_wait *pw, int side, pid_t pid)
{
	for (int i = 0; i < OWN; i++)
		if (pw->side[side].own[i] == pid)
			return true;
	for (int i = 0; i < MOVING; i++)
		if (rp_task_tid(pw->moving[i]) == pid)
			return true;
	return false;
}

static void *scan_loop(void *arg)
{
	struct scan_arg *a = arg;
	struct tracer_side *me = &a->pw->side[a->side];
	siginfo_t si;

	rp_thread_register();
	while (!CMM_LOAD_SHARED(a->pw->stop)) {
		int err;

		memset(&si, 0, sizeof(si));
		err = rp_waitid(me->scanner, P_ALL, 0, &si,
				WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL);
		if (err) {
			me->error = err;
			break;
		}
		if (!si.si_pid)
			continue;
		if (!is_own(a->pw, a->side, si.si_pid)) {
			me->stranger = si.si_pid;
			break;
		}
		me->reports++;
	}
	rp_thread_unregister();
	return NULL;
}

/*
 * @from's mover detaches each stopped moving tracee, @to's attaches it at
 * once; then @to's waits for each to stop (the stops overlap).
 */
static void move_all(struct ptrace_wait *pw, struct tracer_side *from, struct tracer_side *to)
{
	int status;

	for (int i = 0; i < MOVING; i++) {
		cr_assert_eq(ptrace_at(from->mover, PTRACE_DETACH, pw->moving[i], 0), 0);
		cr_assert_eq(ptrace_at(to->mover, PTRACE_ATTACH, pw->moving[i], 0), 0);
	}
	for (int i = 0; i < MOVING; i++) {
		pid_t pid = rp_task_tid(pw->moving[i]);

		cr_assert_eq(rp_wait4(to->mover, pid, &status, __WALL, NULL), pid);
		cr_assert(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	}
}

/* Attach @t and let it stop; the stop stays unclaimed, reportable for good. */
static void attach_stopped(struct tracer_side *side, struct rp_task *t)
{
	cr_assert_eq(ptrace_at(side->mover, PTRACE_ATTACH, t, 0), 0);
	await_task(ptrace_stopped, t);
}

static void ptrace_wait(enum rp_sync_mode mode)
{
	struct ptrace_wait pw = { 0 };
	struct puppet own_d[2][OWN], mov_d[MOVING];
	struct rp_task *own_t[2][OWN];
	struct scan_arg sa[2];
	pthread_t scanners[2];
	unsigned long moves = 0;
	int where = 0;
	double end;

	start(mode);
	for (int s = 0; s < 2; s++) {
		pw.side[s].scanner = spawn(init, SIGCHLD);
		pw.side[s].mover = spawn(pw.side[s].scanner, THREAD_FLAGS);
		for (int i = 0; i < OWN; i++) {
			own_t[s][i] = spawn(init, SIGCHLD);
			pw.side[s].own[i] = rp_task_tid(own_t[s][i]);
			puppet_start(&own_d[s][i], own_t[s][i]);
			attach_stopped(&pw.side[s], own_t[s][i]);
		}
	}
	for (int i = 0; i < MOVING; i++) {
		pw.moving[i] = spawn(init, SIGCHLD);
		puppet_start(&mov_d[i], pw.moving[i]);
		attach_stopped(&pw.side[0], pw.moving[i]);
	}
	for (int s = 0; s < 2; s++) {
		sa[s] = (struct scan_arg){ .pw = &pw, .side = s };
		cr_assert_eq(pthread_create(&scanners[s], NULL, scan_loop, &sa[s]), 0);
	}
	end = now_seconds() + test_seconds();
	while (now_seconds() < end && !pw.side[0].stranger && !pw.side[1].stranger) {
		move_all(&pw, &pw.side[where], &pw.side[!where]);
		where = !where;
		moves += MOVING;
	}
	CMM_STORE_SHARED(pw.stop, true);
	for (int s = 0; s < 2; s++) {
		pthread_join(scanners[s], NULL);
		cr_assert_eq(pw.side[s].error, 0);
		cr_assert_eq(pw.side[s].stranger, 0, "tracer %d reported pid %d, not its tracee",
			     s, pw.side[s].stranger);
		cr_assert_gt(pw.side[s].reports, 0);
	}
	cr_assert_gt(moves, 0);
	/*
	 * The tracers' exit detaches every tracee; a detached tracee left in
	 * its ptrace stop stays stopped (as Linux: state T, and its parent's
	 * WUNTRACED reports SIGSTOP) until SIGCONT.
	 */
	for (int s = 0; s < 2; s++) {
		cr_assert_eq(rp_exit_group(pw.side[s].scanner, 0), 0);
		cr_assert_eq(rp_get_signal(pw.side[s].mover, NULL), -ESRCH);
		for (int i = 0; i < OWN; i++) {
			cr_assert_eq(own_t[s][i]->ptrace, 0u);
			cr_assert_eq(rp_kill(init, rp_task_tid(own_t[s][i]), SIGCONT), 0);
			puppet_quit(&own_d[s][i]);
			cr_assert_eq(rp_exit_group(own_t[s][i], 0), 0);
			rp_task_put(own_t[s][i]);
		}
	}
	for (int i = 0; i < MOVING; i++) {
		puppet_quit(&mov_d[i]);
		cr_assert_eq(rp_exit_group(pw.moving[i], 0), 0);
		rp_task_put(pw.moving[i]);
	}
	for (int s = 0; s < 2; s++) {
		rp_task_put(pw.side[s].scanner);
		rp_task_put(pw.side[s].mover);
	}
	finish();
}

TEST_EACH_MODE(ptrace_wait, ptrace_wait)
