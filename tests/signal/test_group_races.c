/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Races between the calls that act on a whole thread group or on every
 * process (kill(-1), group stop) and the calls that change a group under
 * them (exec's leader switch, fork, group exit), and between reclamation
 * and the threads that must let it happen (QSBR's quiescent states).  Each
 * test drives the racing step into its window on purpose, with a race
 * point that parks a walker (tests/fixture/racehold.h), a puppet that parks a
 * thread in a stop, or the debug builds' count of quiescent states, so
 * that the old code fails every round, not by chance.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/times.h>
#include <linux/capability.h>
#include <termios.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/snapshot.h>
#include <rcuproc/timers.h>
#include <rcuproc/tty.h>
#include <urcu/uatomic.h>
#include "../fixture/fixture.h"
#include "../fixture/racehold.h"
#include "../fixture/puppet.h"


/* Is @sig (blocked by @t) pending for thread @t, its own or its group's? */
static bool pending(struct rp_task *t, int sig)
{
	sigset_t set;

	cr_assert_eq(rp_sigpending(t, &set), 0);
	return sigismember(&set, sig);
}

/* Wait for another OS thread to set *@flag (a hang fails after TEST_HANG_SECONDS). */
static void await_flag(int *flag)
{
	double end = now_seconds() + TEST_HANG_SECONDS;

	while (!uatomic_read(flag)) {
		cr_assert_lt(now_seconds(), end, "timed out");
		sched_yield();
	}
}

/* A call over every process, run by the walker: kill(-1) or setpriority(PRIO_USER). */
struct all_op {
	struct rp_task *self;
	bool prio;		/* setpriority(PRIO_USER, root, nice), else kill(-1, SIGUSR1) */
	int nice, ret;
};

static void *all_op_main(void *arg)
{
	struct all_op *op = arg;

	rp_thread_register();
	op->ret = op->prio ? rp_setpriority(op->self, PRIO_USER, 0, op->nice) :
			     rp_kill(op->self, -1, SIGUSR1);
	rp_thread_unregister();
	return NULL;
}

/* Did @op reach @t?  As the system call, getpriority answers 20 - nice. */
static bool all_op_reached(struct all_op *op, struct rp_task *t)
{
	if (op->prio)
		return rp_getpriority(t, PRIO_PROCESS, 0) == 20 - op->nice;
	return pending(t, SIGUSR1);
}

/*
 * Bug 5 (I1, I2): kill(-1) stands on the node of a leader L; meanwhile
 * L's other thread N execs (its node replaces L's on the task list) and
 * forks C, linked right behind N's node.  The walk then signals the
 * process, through N, after C was linked: C must get the signal too.  The
 * old walk followed L's stale ->next and never reached C.  The same for
 * setpriority(PRIO_USER), the other user of the walk: C must end with the
 * new nice value.
 *
 * In rcu mode the walker is parked on L's node while N execs and forks.
 * The lock modes have no such window (the walk holds the read lock that
 * exec and fork need): they check the same answer in sequence.
 */
static bool all_after_exec_fork_round(enum rp_sync_mode mode, struct all_op *op)
{
	struct rp_task *leader, *n, *c;
	pthread_t walker;
	pid_t cpid, npid;
	bool missed;

	leader = spawn(init, 0);
	mask_signal(leader, SIG_BLOCK, SIGUSR1);	/* kept pending, seen by sigpending */
	n = spawn(leader, THREAD_FLAGS);
	cr_assert_eq(rp_exit(leader, 0), 0);	/* a zombie leader: exec takes its place */
	if (mode == RP_SYNC_RCU) {
		arm(RP_RACE_PROCESS_WALK_NODE, leader, true, false);
		cr_assert_eq(pthread_create(&walker, NULL, all_op_main, op), 0);
		cr_assert(await_reached(1), "the walk never reached the old leader");
	}
	cr_assert_eq(rp_execve(n, "after"), 0);
	cr_assert_gt(rp_fork(n, &c), 0);
	if (mode == RP_SYNC_RCU) {
		release();
		pthread_join(walker, NULL);
		rp_debug_race_hook(NULL);
	} else {
		all_op_main(op);
	}
	cr_assert_eq(op->ret, 0);
	cr_assert(all_op_reached(op, n), "the exec'd process was not reached");
	missed = !all_op_reached(op, c);
	cpid = rp_getpid(c);
	npid = rp_getpid(n);
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(n, -1, NULL, 0, NULL), cpid);
	cr_assert_eq(rp_exit_group(n, 0), 0);
	cr_assert_eq(rp_wait4(init, -1, NULL, 0, NULL), npid);
	rp_task_put(c);
	rp_task_put(n);
	rp_task_put(leader);
	return missed;
}

static void all_after_exec_fork(enum rp_sync_mode mode, bool prio)
{
	struct all_op op = { .prio = prio };
	int missed = 0, rounds = 20;

	start(mode);
	op.self = init;
	for (int i = 0; i < rounds; i++) {
		op.nice = 5 + i % 2;	/* not the value the child inherits */
		missed += all_after_exec_fork_round(mode, &op);
	}
	finish();
	cr_assert_eq(missed, 0, "in %d of %d rounds %s reached the parent after its child "
		     "was linked, and not the child", missed, rounds,
		     prio ? "setpriority(PRIO_USER)" : "kill(-1)");
}

TEST_EACH_MODE_WITH(kill_all_exec_fork, all_after_exec_fork, false)
TEST_EACH_MODE_WITH(prio_user_exec_fork, all_after_exec_fork, true)

/*
 * kill(pid) must not signal a process that took the pid's number during
 * the call.  The killer is parked after its lookup found victim V; V exits
 * and is reaped, and forks go on until a new process Q gets V's number.
 * The killer's signal then finds V released and looks again: through the
 * pid it found, which names no task now (ESRCH), not by number, which
 * would find Q (RP_BREAK_KILL_BY_NUMBER).  rcu mode only: in the lock modes
 * the lookup holds the read lock that exit and fork need, so there is no
 * window.
 */
Test(kill_pid_reuse, rcu)
{
	struct job k = { .sig = SIGUSR1 };
	struct rp_task *v, *q;
	int st;

	start(RP_SYNC_RCU);
	cr_assert_eq(rp_system_set_pid_max(sys, 16), 0);
	v = spawn(init, SIGCHLD);
	k.pid = rp_getpid(v);
	arm(RP_RACE_KILL_FOUND, v, true, false);
	job_start(&k, kill_job, init);
	cr_assert(await_reached(1), "the killer never found the victim");
	cr_assert_eq(rp_exit_group(v, 0), 0);
	cr_assert_eq(rp_wait4(init, k.pid, &st, 0, NULL), k.pid);
	for (;;) {
		q = spawn(init, SIGCHLD);
		if (rp_getpid(q) == k.pid)
			break;
		cr_assert_eq(rp_exit_group(q, 0), 0);
		rp_task_put(q);
		while (rp_wait4(init, -1, &st, WNOHANG, NULL) > 0)
			;
	}
	mask_signal(q, SIG_BLOCK, SIGUSR1);
	release();
	job_join(&k);
	rp_debug_race_hook(NULL);
	cr_assert_not(pending(q, SIGUSR1), "kill(%d) signalled the process that took the number "
		      "during the call", k.pid);
	cr_assert_eq(k.ret, -ESRCH);
	cr_assert_eq(rp_exit_group(q, 0), 0);
	rp_task_put(q);
	rp_task_put(v);
	finish();
}

/*
 * Bug 8: a group stop is pending for both threads of P; one has stopped,
 * the other (T2) has not run since.  SIGKILL ends the group: the stopped
 * thread dies, then T2 dies in the group exit without ever joining the
 * stop.  Its exit must not complete the stop: the parent is told
 * CLD_KILLED, and wait(WUNTRACED) reports the death, not a stop.  The old
 * exit counted T2 out of the stop, found the count 0 and told the parent
 * CLD_STOPPED with status 9 (the group's exit code).
 */
static void stop_then_group_exit_round(void)
{
	struct rp_task *parent, *p, *t2;
	struct puppet d1;
	siginfo_t si;
	pid_t pid;
	int st, sig;

	parent = spawn(init, SIGCHLD);
	set_action(parent, SIGCHLD, user_handler);
	mask_signal(parent, SIG_BLOCK, SIGCHLD);
	p = spawn(parent, SIGCHLD);
	pid = rp_getpid(p);
	t2 = spawn(p, THREAD_FLAGS);
	cr_assert_eq(rp_kill(parent, pid, SIGSTOP), 0);
	puppet_start(&d1, p);
	await_task(task_stopped, p);	/* T2 still owes the stop */
	cr_assert_eq(rp_kill(parent, pid, SIGKILL), 0);
	puppet_join_dead(&d1);
	cr_assert_eq(rp_get_signal(t2, &si), -ESRCH, "T2 dies in the group exit");
	mask_signal(parent, SIG_UNBLOCK, SIGCHLD);
	sig = rp_get_signal(parent, &si);
	cr_assert_eq(sig, SIGCHLD, "the parent took signal %d", sig);
	cr_assert_eq(si.si_code, CLD_KILLED, "the parent was told si_code %d (CLD_STOPPED is %d), "
		     "status %d", si.si_code, CLD_STOPPED, si.si_status);
	cr_assert_eq(si.si_status, SIGKILL);
	cr_assert_eq(rp_wait4(parent, pid, &st, WUNTRACED, NULL), pid);
	cr_assert_eq(st, SIGKILL, "wait status %#x (stopped by SIGKILL is %#x)", st,
		     STOPPED_BY(SIGKILL));
	cr_assert_eq(rp_wait4(parent, -1, &st, WUNTRACED | WNOHANG, NULL), -ECHILD);
	rp_task_put(t2);
	rp_task_put(p);
	cr_assert_eq(rp_exit_group(parent, 0), 0);
	rp_task_put(parent);
}

static void stop_then_group_exit(enum rp_sync_mode mode)
{
	start(mode);
	for (int i = 0; i < 10; i++)
		stop_then_group_exit_round();
	finish();
}

TEST_EACH_MODE(stop_group_exit, stop_then_group_exit)

/*
 * Bug 7 (I7), the class: under QSBR a registered thread that keeps calling
 * rcuproc holds back every grace period unless each call announces a
 * quiescent state.  Debug builds count this thread's announcements
 * (rp_thread_quiescent_count): each public call of a task must move the
 * count, whatever the flavour.  The old code had calls that never did.
 */
struct qs_ctx {
	struct rp_task *self;
	struct rp_tty *tty;
	pid_t pid;
	int timerid;
};

#define QS_CALL(name, expr)						\
	static long qs_##name(struct qs_ctx *c) { (void)c; return (expr); }

static struct timespec qs_ts;
static struct tms qs_tms;
static struct rusage qs_ru;
static struct rlimit qs_rl;
static struct itimerval qs_itv;
static struct itimerspec qs_its = { .it_value = { 100, 0 } };
static struct rp_ps_entry qs_ps[4];
static sigset_t qs_set;
static struct sigaction qs_sa;
static siginfo_t qs_si = { .si_signo = SIGWINCH, .si_code = SI_QUEUE };
static clockid_t qs_clock;
static pid_t qs_pgrp;

QS_CALL(getpid, rp_getpid(c->self))
QS_CALL(getppid, rp_getppid(c->self))
QS_CALL(gettid, rp_gettid(c->self))
QS_CALL(getuid, rp_getuid(c->self))
QS_CALL(geteuid, rp_geteuid(c->self))
QS_CALL(setuid, rp_setuid(c->self, 0))
QS_CALL(setresuid, rp_setresuid(c->self, -1, -1, -1))
QS_CALL(cap_has, rp_cap_has(c->self, CAP_KILL))
QS_CALL(cap_drop, rp_cap_drop(c->self, CAP_SYS_BOOT))
QS_CALL(getrlimit, rp_getrlimit(c->self, RLIMIT_NOFILE, &qs_rl))
QS_CALL(setrlimit, rp_setrlimit(c->self, RLIMIT_NOFILE, &qs_rl))
QS_CALL(prctl, rp_prctl(c->self, PR_SET_PDEATHSIG, 0))
QS_CALL(getpgrp, rp_getpgrp(c->self))
QS_CALL(getpgid, rp_getpgid(c->self, 0))
QS_CALL(getsid, rp_getsid(c->self, 0))
QS_CALL(setsid, rp_setsid(c->self))
QS_CALL(setpgid, rp_setpgid(c->self, 0, 0))
QS_CALL(kill, rp_kill(c->self, c->pid, 0))
QS_CALL(killpg, rp_killpg(c->self, c->pid, 0))
QS_CALL(kill_session, rp_kill_session(c->self, c->pid, 0))
QS_CALL(tgkill, rp_tgkill(c->self, c->pid, c->pid, 0))
QS_CALL(tkill, rp_tkill(c->self, c->pid, 0))
QS_CALL(rt_sigqueueinfo, rp_rt_sigqueueinfo(c->self, c->pid, SIGWINCH, &qs_si))
QS_CALL(sigaction, rp_sigaction(c->self, SIGUSR2, NULL, &qs_sa))
QS_CALL(sigprocmask, rp_sigprocmask(c->self, SIG_BLOCK, NULL, &qs_set))
QS_CALL(sigpending, rp_sigpending(c->self, &qs_set))
QS_CALL(get_signal, rp_get_signal(c->self, &qs_si))
QS_CALL(setpriority, rp_setpriority(c->self, PRIO_PROCESS, 0, 1))
QS_CALL(getpriority, rp_getpriority(c->self, PRIO_PROCESS, 0))
QS_CALL(ioprio_set, rp_ioprio_set(c->self, 1, 0, (2 << 13) | 4))
QS_CALL(ioprio_get, rp_ioprio_get(c->self, 1, 0))
QS_CALL(account_cpu, rp_account_cpu(c->self, 1000, 1000))
QS_CALL(clock_getcpuclockid, rp_clock_getcpuclockid(c->self, 0, &qs_clock))
QS_CALL(pthread_getcpuclockid, rp_pthread_getcpuclockid(c->self, c->pid, &qs_clock))
QS_CALL(clock_gettime, rp_clock_gettime(c->self, CLOCK_PROCESS_CPUTIME_ID, &qs_ts))
QS_CALL(clock_getres, rp_clock_getres(c->self, CLOCK_PROCESS_CPUTIME_ID, &qs_ts))
QS_CALL(times, rp_times(c->self, &qs_tms))
QS_CALL(getrusage, rp_getrusage(c->self, RUSAGE_SELF, &qs_ru))
QS_CALL(timer_create, rp_timer_create(c->self, CLOCK_PROCESS_CPUTIME_ID, NULL, &c->timerid))
QS_CALL(timer_settime, rp_timer_settime(c->self, c->timerid, 0, &qs_its, NULL))
QS_CALL(timer_gettime, rp_timer_gettime(c->self, c->timerid, &qs_its))
QS_CALL(timer_getoverrun, rp_timer_getoverrun(c->self, c->timerid))
QS_CALL(timer_delete, rp_timer_delete(c->self, c->timerid))
QS_CALL(setitimer, rp_setitimer(c->self, ITIMER_PROF, &qs_itv, NULL))
QS_CALL(getitimer, rp_getitimer(c->self, ITIMER_PROF, &qs_itv))
QS_CALL(ps_snapshot, rp_ps_snapshot(c->self, qs_ps, 4))
QS_CALL(wait4, rp_wait4(c->self, -1, NULL, WNOHANG, NULL))
QS_CALL(waitid, rp_waitid(c->self, P_ALL, 0, &qs_si, WEXITED | WNOHANG))
QS_CALL(ptrace, rp_ptrace(c->self, PTRACE_DETACH, 1, NULL, NULL))
QS_CALL(tty_ioctl, rp_tty_ioctl(c->self, c->tty, TIOCGPGRP, &qs_pgrp))
QS_CALL(tty_read, rp_tty_read(c->self, c->tty, 1))
QS_CALL(tty_write, rp_tty_write(c->self, c->tty, 1))
QS_CALL(tty_keyboard, rp_tty_keyboard(c->tty, 'x'))
QS_CALL(execve, rp_execve(c->self, "qs"))

static const struct qs_entry {
	const char *name;
	long (*call)(struct qs_ctx *c);
} qs_calls[] = {
#define QS_ENTRY(name) { #name, qs_##name }
	QS_ENTRY(getpid), QS_ENTRY(getppid), QS_ENTRY(gettid), QS_ENTRY(getuid),
	QS_ENTRY(geteuid), QS_ENTRY(setuid), QS_ENTRY(setresuid), QS_ENTRY(cap_has),
	QS_ENTRY(cap_drop), QS_ENTRY(getrlimit), QS_ENTRY(setrlimit), QS_ENTRY(prctl),
	QS_ENTRY(getpgrp), QS_ENTRY(getpgid), QS_ENTRY(getsid), QS_ENTRY(setsid),
	QS_ENTRY(setpgid), QS_ENTRY(kill), QS_ENTRY(killpg), QS_ENTRY(kill_session),
	QS_ENTRY(tgkill), QS_ENTRY(tkill), QS_ENTRY(rt_sigqueueinfo), QS_ENTRY(sigaction),
	QS_ENTRY(sigprocmask), QS_ENTRY(sigpending), QS_ENTRY(get_signal),
	QS_ENTRY(setpriority), QS_ENTRY(getpriority), QS_ENTRY(ioprio_set),
	QS_ENTRY(ioprio_get), QS_ENTRY(account_cpu), QS_ENTRY(clock_getcpuclockid),
	QS_ENTRY(pthread_getcpuclockid), QS_ENTRY(clock_gettime), QS_ENTRY(clock_getres),
	QS_ENTRY(times), QS_ENTRY(getrusage), QS_ENTRY(timer_create),
	QS_ENTRY(timer_settime), QS_ENTRY(timer_gettime), QS_ENTRY(timer_getoverrun),
	QS_ENTRY(timer_delete), QS_ENTRY(setitimer), QS_ENTRY(getitimer),
	QS_ENTRY(ps_snapshot), QS_ENTRY(wait4), QS_ENTRY(waitid), QS_ENTRY(ptrace),
	QS_ENTRY(tty_ioctl), QS_ENTRY(tty_read), QS_ENTRY(tty_write), QS_ENTRY(tty_keyboard),
	QS_ENTRY(execve),
#undef QS_ENTRY
};

static void every_call_quiescent(enum rp_sync_mode mode)
{
	struct qs_ctx c = { 0 };
	char missing[1024] = "";
	size_t n = sizeof(qs_calls) / sizeof(qs_calls[0]);
	unsigned long before;
	int silent = 0;

	if (rp_thread_stalls(0, NULL, 0) == -ENOSYS)
		cr_skip_test("the quiescent-state count needs a build with debug checks");
	start(mode);
	cr_assert_eq(rp_tty_create(sys, &c.tty), 0);
	c.self = spawn(init, SIGCHLD);
	c.pid = rp_getpid(c.self);
	for (size_t i = 0; i < n; i++) {
		before = rp_thread_quiescent_count();
		qs_calls[i].call(&c);
		if (rp_thread_quiescent_count() != before)
			continue;
		silent++;
		snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s",
			 qs_calls[i].name);
	}
	cr_assert_eq(rp_exit_group(c.self, 0), 0);
	rp_task_put(c.self);
	rp_tty_destroy(c.tty);
	finish();
	cr_assert_eq(silent, 0, "%d of %zu calls announced no quiescent state:%s", silent, n,
		     missing);
}

TEST_EACH_MODE(quiescent, every_call_quiescent)

/* A registered thread that calls nothing but rp_getppid, as long as *stop is 0. */
struct quiet_caller {
	struct rp_task *self;
	int ready, stop;
};

static void *getppid_loop(void *arg)
{
	struct quiet_caller *q = arg;

	rp_thread_register();
	uatomic_set(&q->ready, 1);
	while (!uatomic_read(&q->stop))
		rp_getppid(q->self);
	rp_thread_unregister();
	return NULL;
}

/* A registered thread that goes offline and sleeps until *stop. */
static void *offline_sleeper(void *arg)
{
	struct quiet_caller *q = arg;

	rp_thread_register();
	rp_thread_offline();
	uatomic_set(&q->ready, 1);
	while (!uatomic_read(&q->stop))
		sleep_seconds(0.001);
	rp_thread_online();
	rp_thread_unregister();
	return NULL;
}

/* Fork, exit and reap @n children of init: each queues deferred frees in rcu mode. */
static void churn(int n)
{
	struct rp_task *c;
	pid_t pid;

	for (int i = 0; i < n; i++) {
		pid = rp_fork(init, &c);
		cr_assert_gt(pid, 0);
		cr_assert_eq(rp_exit(c, 0), 0);
		cr_assert_eq(rp_wait4(init, pid, NULL, 0, NULL), pid);
		rp_task_put(c);
	}
}

/*
 * Bug 7 (I7): a registered thread that only loops on rp_getppid must not
 * stop reclamation.  Under QSBR the old rp_getppid announced no quiescent
 * state: the backlog never drained (the wait below gives up after
 * TEST_HANG_SECONDS; a drain that works needs a few milliseconds).  Then the same
 * with a thread that sleeps offline (rp_thread_offline): the barrier
 * returns.
 */
static void quiet_thread_reclaims(enum rp_sync_mode mode)
{
	struct quiet_caller q = { 0 };
	double end;
	pthread_t th;

	start(mode);
	q.self = spawn(init, SIGCHLD);
	cr_assert_eq(pthread_create(&th, NULL, getppid_loop, &q), 0);
	await_flag(&q.ready);
	churn(200);
	end = now_seconds() + TEST_HANG_SECONDS;
	while (rp_deferred_backlog() && now_seconds() < end) {
		rp_thread_quiescent();
		sleep_seconds(0.001);
	}
	cr_expect_eq(rp_deferred_backlog(), 0, "the backlog stays at %lu while a registered "
		     "thread loops on rp_getppid", rp_deferred_backlog());
	uatomic_set(&q.stop, 1);
	pthread_join(th, NULL);
	q.ready = q.stop = 0;
	cr_assert_eq(pthread_create(&th, NULL, offline_sleeper, &q), 0);
	await_flag(&q.ready);
	churn(200);
	rp_deferred_barrier();	/* hangs (the test's timeout) unless offline works */
	cr_assert_eq(rp_deferred_backlog(), 0);
	uatomic_set(&q.stop, 1);
	pthread_join(th, NULL);
	cr_assert_eq(rp_exit_group(q.self, 0), 0);
	rp_task_put(q.self);
	finish();
}

TEST_EACH_MODE(quiet_thread, quiet_thread_reclaims)

/* A registered thread, named "quiet-reader", that does what @step says and acknowledges it. */
struct quiet_reader {
	int step, done;
};

enum { QR_IDLE = 1, QR_QUIESCE, QR_OFFLINE, QR_END };

static void *quiet_reader_main(void *arg)
{
	struct quiet_reader *r = arg;
	int step, done = 0;

	rp_thread_register();
	pthread_setname_np(pthread_self(), "quiet-reader");
	uatomic_set(&r->done, QR_IDLE);
	while ((step = uatomic_read(&r->step)) != QR_END) {
		if (step == done) {
			sched_yield();
			continue;
		}
		if (step == QR_QUIESCE)
			rp_thread_quiescent();
		else if (step == QR_OFFLINE)
			rp_thread_offline();
		done = step;
		uatomic_set(&r->done, step);
	}
	if (done == QR_OFFLINE)
		rp_thread_online();
	rp_thread_unregister();
	return NULL;
}

static void quiet_reader_do(struct quiet_reader *r, int step)
{
	double end = now_seconds() + TEST_HANG_SECONDS;

	uatomic_set(&r->step, step);
	while (uatomic_read(&r->done) != step) {
		cr_assert_lt(now_seconds(), end, "timed out");
		sched_yield();
	}
}

/*
 * The detection: a registered thread online and not quiescent since the
 * last check is named (debug builds); one that announced a quiescent state
 * since, or is offline, is not.  Deterministic: checks with a limit of 0 s.
 */
static void stall_named(void)
{
	struct quiet_reader r = { 0 };
	char name[32];
	pthread_t th;

	if (rp_thread_stalls(0, NULL, 0) == -ENOSYS)
		cr_skip_test("stall detection needs a build with debug checks");
	rp_thread_register();
	cr_assert_eq(pthread_create(&th, NULL, quiet_reader_main, &r), 0);
	await_flag(&r.done);
	cr_assert_eq(rp_thread_stalls(0, name, sizeof(name)), 1);
	cr_assert_str_eq(name, "quiet-reader");
	quiet_reader_do(&r, QR_QUIESCE);
	cr_assert_eq(rp_thread_stalls(0, name, sizeof(name)), 0, "quiescent since: not stalled");
	cr_assert_eq(rp_thread_stalls(0, name, sizeof(name)), 1, "quiet again since the check");
	quiet_reader_do(&r, QR_OFFLINE);
	cr_assert_eq(rp_thread_stalls(0, name, sizeof(name)), 0, "offline: not stalled");
	cr_assert_eq(rp_thread_stalls(0, name, sizeof(name)), 0);
	uatomic_set(&r.step, QR_END);
	pthread_join(th, NULL);
	rp_thread_unregister();
}

Test(quiescent, stall_named) { stall_named(); }
