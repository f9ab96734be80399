/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Races between the calls that act on a whole thread group or on every
 * process (kill(-1), group stop) and the calls that change a group under
 * them (exec's leader switch, fork, group exit).  Each test drives the
 * racing step into its window on purpose, with a torture point that parks
 * a walker (rcuproc/torture.h) or with a puppet that parks a thread in a
 * stop, so that the old code fails every round, not by chance.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <rcuproc/torture.h>
#include <urcu/uatomic.h>
#include "world.h"
#include "../jobctl/puppet.h"

#define STOPPED_BY(sig)	(((sig) << 8) | 0x7f)	/* WIFSTOPPED, WSTOPSIG @sig */

/* Is @sig (blocked by @t) pending for thread @t, its own or its group's? */
static bool pending(struct rp_task *t, int sig)
{
	sigset_t set;

	cr_assert_eq(rp_sigpending(t, &set), 0);
	return sigismember(&set, sig);
}

/* Wait (at most 10 s) for another OS thread to set *@flag. */
static void await_flag(int *flag)
{
	double end = now_seconds() + 10;

	while (!uatomic_read(flag)) {
		cr_assert_lt(now_seconds(), end, "timed out");
		sched_yield();
	}
}

/*
 * A walker parked at a torture point: the hook, on the walking thread,
 * stops at the node of @at, says so and spins (in its read section) until
 * the test lets it go.
 */
struct park {
	const void *at;
	int parked, go;
};

static void park_hook(enum rp_torture_point pt, const void *obj, void *arg)
{
	struct park *pk = arg;

	(void)pt;
	if (obj != pk->at || uatomic_read(&pk->parked))
		return;
	uatomic_set(&pk->parked, 1);
	while (!uatomic_read(&pk->go))
		sched_yield();
}

struct kill_all {
	struct rp_task *self;
	int sig, ret;
};

static void *kill_all_main(void *arg)
{
	struct kill_all *k = arg;

	rp_thread_register();
	k->ret = rp_kill(k->self, -1, k->sig);
	rp_thread_unregister();
	return NULL;
}

/*
 * Bug 5 (I1, I2): kill(-1) stands on the node of a leader L; meanwhile
 * L's other thread N execs (its node replaces L's on the task list) and
 * forks C, linked right behind N's node.  The walk then signals the
 * process, through N, after C was linked: C must get the signal too.  The
 * old walk followed L's stale ->next and never reached C.
 *
 * In rcu mode the walker is parked on L's node while N execs and forks.
 * The lock modes have no such window (the walk holds the read lock that
 * exec and fork need): they check the same answer in sequence.
 */
static bool kill_all_after_exec_fork_round(enum rp_sync_mode mode)
{
	struct kill_all k = { .self = init, .sig = SIGUSR1 };
	struct rp_task *leader, *n, *c;
	struct park pk = { 0 };
	pthread_t walker;
	pid_t cpid, npid;
	bool missed;

	leader = spawn(init, 0);
	mask_signal(leader, SIG_BLOCK, SIGUSR1);	/* kept pending, seen by sigpending */
	n = spawn(leader, THREAD_FLAGS);
	cr_assert_eq(rp_exit(leader, 0), 0);	/* a zombie leader: exec takes its place */
	if (mode == RP_SYNC_RCU) {
		pk.at = leader;
		cr_assert_eq(rp_torture_point_set(RP_TP_PROCESS_WALK_NODE, park_hook, &pk), 0);
		cr_assert_eq(pthread_create(&walker, NULL, kill_all_main, &k), 0);
		await_flag(&pk.parked);
	}
	cr_assert_eq(rp_execve(n, "after"), 0);
	cr_assert_gt(rp_fork(n, &c), 0);
	if (mode == RP_SYNC_RCU) {
		uatomic_set(&pk.go, 1);
		pthread_join(walker, NULL);
		cr_assert_eq(rp_torture_point_set(RP_TP_PROCESS_WALK_NODE, NULL, NULL), 0);
	} else {
		kill_all_main(&k);
	}
	cr_assert_eq(k.ret, 0);
	cr_assert(pending(n, SIGUSR1), "the exec'd process was not signalled");
	missed = !pending(c, SIGUSR1);
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

static void kill_all_after_exec_fork(enum rp_sync_mode mode)
{
	int missed = 0, rounds = 20;

	if (rp_torture_point_set(RP_TP_PROCESS_WALK_NODE, NULL, NULL) == -ENOSYS)
		cr_skip_test("torture points need a build with debug checks");
	start(mode);
	for (int i = 0; i < rounds; i++)
		missed += kill_all_after_exec_fork_round(mode);
	finish();
	cr_assert_eq(missed, 0, "in %d of %d rounds kill(-1) reached the parent after its "
		     "child was linked, and not the child", missed, rounds);
}

TEST_EACH_MODE(kill_all_exec_fork, kill_all_after_exec_fork, .timeout = 60)

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

TEST_EACH_MODE(stop_group_exit, stop_then_group_exit, .timeout = 60)
