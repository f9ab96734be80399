/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Races between exec, wait and ptrace that a review found, each made
 * deterministic: a race point (src/debug/racepoint.h, debug builds) holds one
 * thread inside the window while the test acts, so that the old code fails
 * on every run, not now and then.  A hold that would keep the global lock
 * (the lock modes, where the window does not exist) is armed in rcu mode
 * only; the other modes run the same steps one after another.
 *
 *  - claim_freed_parent (I5): wait's claim rechecked the candidate's parent
 *    before seeing that it was dead; the parent thread was freed by then.
 *    RP_BREAK_CLAIM_PARENT_FIRST.
 *  - wait_reused_number (I8): waitpid(N) matched children by number, so a
 *    wait overtaken while N came round again reported (or reaped) a child
 *    born after it began.  RP_BREAK_WAIT_PID_BY_NUMBER.
 *  - reap_handback (I3): a tracer handing a zombie back to its real parent
 *    made it DEAD for a moment; the parent's wait answered ECHILD.
 *    RP_BREAK_NO_EXIT_TRACE.
 *  - exec_publish, exec_old_leader (I3): a non-leader's exec hid the
 *    process from its parent's wait, through the new leader's exit signal
 *    and through the dead old leader.  RP_BREAK_EXEC_HIDES_CHILD.
 *  - exec_traced_tgid_waited (I8): a tracer's waitpid(tgid) begun before
 *    a non-leader tracee's exec missed that thread, which took the tgid:
 *    the wait matched tracees with the task that held the pid at its start.
 *  - exec_traced_zombie (I6, I7): exec went on while a traced zombie thread
 *    held the old handler table.  RP_BREAK_EXEC_ZOMBIE_GONE.
 *  - exec_init_thread: exec by a non-leader thread of init crashed.
 *  - exec_switch_send (I6): a sender that loaded the target's handler
 *    table before exec switched it must lock the new one.
 *    RP_BREAK_SIGHAND_NO_RECHECK.
 *  - exec_process_clock (I8): the CPU clock of a live process was unknown
 *    while a non-leader thread execed: the tgid named the new leader
 *    before its ->group_leader did.  RP_BREAK_CLOCK_NAMES_LEADER.
 *  - exec_getpriority, exec_setpriority (I8): PRIO_PROCESS of a live
 *    process answered ESRCH when the old leader it found was released by
 *    an exec before its siglock was taken.  RP_BREAK_RELEASED_NOT_FOLLOWED.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <criterion/criterion.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/timers.h>
#include "../fixture/fixture.h"
#include "task/task.h"
#include "task/objects.h"
#include "../fixture/racehold.h"

/* ------------------------------------------------------ jobs on other threads */

static long exec_job(struct job *j)
{
	return rp_execve(j->t, "next");
}

/* The user space of a thread killed by an exec: takes signals until it is dead. */
static long die_job(struct job *j)
{
	int sig;

	for (;;) {
		/* Sampled first: the kill after it wakes the wait below. */
		unsigned long seq = rp_waitq_seq(rp_task_waitq(j->t));

		sig = rp_get_signal(j->t, NULL);
		if (sig < 0)
			return sig;
		if (sig == 0)
			rp_waitq_wait(rp_task_waitq(j->t), seq);
	}
}

static void start_races(enum rp_sync_mode mode)
{
	start(mode);
	race_count_jobs();
}

static void finish_races(void)
{
	rp_debug_race_hook(NULL);
	finish();
}

/*
 * The exec races' process: p, a child of init, and its thread t, which
 * execs on its own OS thread (exec_race_go) while p's user space takes its
 * signals until the exec kills it; exec_race_join waits for both.
 */
struct exec_race {
	struct rp_task *p, *t;
	struct job ex, die;
	pid_t tgid;
};

static void exec_race_start(struct exec_race *r)
{
	*r = (struct exec_race){ .p = spawn(init, SIGCHLD) };
	r->t = spawn(r->p, THREAD_FLAGS);
	r->tgid = rp_getpid(r->p);
}

static void exec_race_go(struct exec_race *r)
{
	job_start(&r->die, die_job, r->p);
	job_start(&r->ex, exec_job, r->t);
}

static void exec_race_join(struct exec_race *r)
{
	cr_assert_eq(job_join(&r->ex), 0);
	cr_assert_eq(job_join(&r->die), -ESRCH);
}

/* t, now the leader, exits with @code; init reaps the process. */
static void exec_race_end(struct exec_race *r, int code)
{
	int status;

	cr_assert_eq(rp_exit_group(r->t, code), 0);
	cr_assert_eq(rp_wait4(init, r->tgid, &status, 0, NULL), r->tgid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == code);
	rp_task_put(r->p);
	rp_task_put(r->t);
}

/* ------------------------------------------------------ wait's claim (I5) */

/*
 * @c exits, and @waiter's waitpid(@c, WNOHANG), on job @w, is held at its
 * claim of the zombie it found (RP_RACE_WAIT_CLAIM); @c's pid.
 */
static pid_t wait_held_at_claim(struct job *w, struct rp_task *waiter, struct rp_task *c)
{
	pid_t pid = rp_getpid(c);

	cr_assert_eq(rp_exit(c, 0), 0);
	arm(RP_RACE_WAIT_CLAIM, c, true, true);
	*w = (struct job){ .pid = pid, .options = WNOHANG };
	job_start(w, wait_job, waiter);
	cr_assert(await_reached(1), "the wait never found its zombie child");
	return pid;
}

/*
 * Thread a of a process finds the zombie child of its sibling thread b and
 * is held just before the claim.  b reaps the child, exits and is freed.
 * The claim must see that the child is dead before it looks at the child's
 * parent: reading b now is a use after free (debug builds stop at it:
 * rp_task_assert_not_freed; ASan too).
 */
static void claim_freed_parent(enum rp_sync_mode mode)
{
	struct rp_task *a, *b, *c;
	struct job w;
	int status;
	pid_t cpid;

	start_races(mode);
	a = spawn(init, SIGCHLD);
	b = spawn(a, THREAD_FLAGS);
	c = spawn(b, SIGCHLD);
	cpid = wait_held_at_claim(&w, a, c);
	/* a holds its candidate; b reaps it, exits, and is freed. */
	cr_assert_eq(rp_wait4(b, cpid, &status, 0, NULL), cpid);
	cr_assert_eq(rp_exit(b, 0), 0);
	rp_task_put(b);
	rp_task_put(c);
	rp_deferred_barrier();
	release();
	cr_assert_eq(job_join(&w), -ECHILD, "a's wait answered %ld", w.ret);
	cr_assert_eq(rp_exit_group(a, 0), 0);
	rp_task_put(a);
	finish_races();
}

TEST_EACH_MODE(claim_freed_parent, claim_freed_parent)

/* ------------------------------------------------------ wait by a number that comes back (I8) */

/*
 * waitpid(N) of process p found its zombie child c (pid N) and is held
 * before its claim; p's other thread a reaps c, and p forks d, which gets
 * the number N again (pid_max 5: init, p, a and c take 1 to 4, and the
 * cursor wraps).  The wait selected c's pid when it began, as Linux's
 * wait4 takes a reference to the struct pid (find_get_pid) and compares
 * pids: d is another pid, so the held wait answers ECHILD, whether d is
 * alive (not reported) or a zombie (not reaped: left for another wait).
 * Matched by number, it reported on d or reaped it.
 */
static void wait_reused_number_run(enum rp_sync_mode mode, bool d_zombie)
{
	struct rp_task *p, *a, *c, *d;
	struct job w;
	int status;
	pid_t n;

	start_with(mode, 5);
	race_count_jobs();
	p = spawn(init, SIGCHLD);
	a = spawn(p, THREAD_FLAGS);
	c = spawn(p, SIGCHLD);
	n = wait_held_at_claim(&w, p, c);
	cr_assert_eq(rp_wait4(a, n, &status, 0, NULL), n);
	rp_task_put(c);
	d = spawn(p, SIGCHLD);
	cr_assert_eq(rp_getpid(d), n, "precondition: d got %d, not c's number %d",
		     rp_getpid(d), n);
	if (d_zombie)
		cr_assert_eq(rp_exit(d, 7), 0);
	release();
	cr_assert_eq(job_join(&w), -ECHILD,
		     "waitpid(%d), begun before c was reaped, answered %ld (status %#x) about d, "
		     "a child born later with the same number (Linux: ECHILD)", n, w.ret, w.status);
	if (!d_zombie)
		cr_assert_eq(rp_exit_group(d, 7), 0);
	cr_assert_eq(rp_wait4(a, n, &status, 0, NULL), n, "d was reaped by the held wait");
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	rp_task_put(d);
	cr_assert_eq(rp_exit(a, 0), 0);
	rp_task_put(a);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	rp_task_put(p);
	finish_races();
}

TEST_EACH_MODE_WITH(wait_reused_number, wait_reused_number_run, false)
TEST_EACH_MODE_WITH(wait_reused_number_zombie, wait_reused_number_run, true)

/* ------------------------------------------------------ a tracer hands back (I3) */

/*
 * A tracer reaps a traced zombie whose real parent is elsewhere: it hands
 * it back to that parent.  Held in the middle of that, the real parent's
 * wait must still count the child (0 for WNOHANG), not answer ECHILD.
 */
static void reap_handback(enum rp_sync_mode mode)
{
	struct rp_task *parent, *c, *tracer;
	struct job tr = { .options = __WALL };
	bool hold = mode == RP_SYNC_RCU;
	int status;
	pid_t pid;
	long r;

	start_races(mode);
	parent = spawn(init, SIGCHLD);
	c = spawn(parent, SIGCHLD);
	tracer = spawn(init, SIGCHLD);
	pid = rp_getpid(c);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, pid, NULL, NULL), 0);
	cr_assert_eq(rp_exit(c, 7), 0);
	if (hold)
		arm(RP_RACE_REAP_HANDBACK, c, true, false);
	tr.pid = pid;
	job_start(&tr, wait_job, tracer);
	if (hold) {
		cr_assert(await_reached(1), "the tracer did not hand the zombie back");
		r = rp_wait4(parent, -1, &status, WNOHANG, NULL);
		release();
		cr_assert_eq(r, 0, "the real parent's wait answered %ld mid hand-back", r);
	}
	cr_assert_eq(job_join(&tr), pid);
	cr_assert(WIFEXITED(tr.status) && WEXITSTATUS(tr.status) == 7);
	/* Handed back: now the real parent's to reap. */
	cr_assert_eq(rp_wait4(parent, -1, &status, 0, NULL), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	cr_assert_eq(rp_exit_group(parent, 0), 0);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(parent);
	rp_task_put(c);
	rp_task_put(tracer);
	finish_races();
}

TEST_EACH_MODE(reap_handback, reap_handback)

/* ------------------------------------------------------ exec switches leaders (I3) */

/*
 * Thread t of the parent's child execs: it becomes the leader.  Held with
 * t already on the parent's children list in the old leader's place, the
 * parent's wait must count it: 0 for WNOHANG, not ECHILD (t was published
 * with exit_signal -1 and did not count for a plain wait).
 */
static void exec_publish(enum rp_sync_mode mode)
{
	struct exec_race x;
	bool hold = mode == RP_SYNC_RCU;
	int status;
	long r;

	start_races(mode);
	exec_race_start(&x);
	if (hold)
		arm(RP_RACE_EXEC_PUBLISHED, x.t, true, false);
	exec_race_go(&x);
	if (hold) {
		cr_assert(await_reached(2), "the exec never switched leaders");
		r = rp_wait4(init, -1, &status, WNOHANG, NULL);
		release();
		cr_assert_eq(r, 0, "the parent's wait answered %ld mid exec", r);
	}
	exec_race_join(&x);
	cr_assert_eq(rp_wait4(init, -1, &status, WNOHANG, NULL), 0);
	exec_race_end(&x, 5);
	finish_races();
}

TEST_EACH_MODE(exec_publish, exec_publish)

/*
 * The second window: the parent's wait stands on the old leader's node
 * (held there, inside its read section) while the exec replaces it and
 * releases it.  The node it stands on is the old leader, dead, and leads
 * nowhere new; the wait must still count the process, not answer ECHILD.
 * A wait for the process's pid (@by_pid) must match it by its tgid: the
 * old leader has already handed that number to the thread that execs and
 * carries the thread's tid instead.
 */
static void exec_old_leader_waiting(enum rp_sync_mode mode, bool by_pid)
{
	struct exec_race x;
	struct job w = { .pid = -1, .options = WNOHANG };
	bool hold = mode == RP_SYNC_RCU;

	start_races(mode);
	exec_race_start(&x);
	w.pid = by_pid ? x.tgid : -1;
	if (hold) {
		arm(RP_RACE_WAIT_VISIT, x.p, true, false);
		job_start(&w, wait_job, init);
		cr_assert(await_reached(1), "the wait never reached the leader");
	}
	exec_race_go(&x);
	exec_race_join(&x);
	if (hold) {
		release();
		cr_assert_eq(job_join(&w), 0, "the parent's wait answered %ld across the exec",
			     w.ret);
	}
	exec_race_end(&x, 6);
	finish_races();
}

TEST_EACH_MODE_WITH(exec_old_leader, exec_old_leader_waiting, false)
TEST_EACH_MODE_WITH(exec_old_leader_pid, exec_old_leader_waiting, true)

/*
 * A tracer that traces both threads of the process waits for its pid (the
 * tgid), and the wait has begun (it visited the tracer's own child c)
 * before the non-leader thread t execs.  The exec hands the tgid to t and
 * releases the old leader; t, now the leader and still traced, exits.
 * Linux's do_wait_pid finds the tracee by the struct pid it holds
 * (pid_task(pid, PIDTYPE_PID), now t) and reports its exit to the tracer.
 * Matched with the task that held the pid when the wait began, the old
 * leader, t was no tracee of the wait's and it answered ECHILD.
 */
static void exec_traced_tgid_waited(enum rp_sync_mode mode)
{
	struct job w = { .pid = 0 };
	struct rp_task *tracer, *c;
	struct exec_race x;
	int status;
	pid_t c_pid;

	start_races(mode);
	exec_race_start(&x);
	tracer = spawn(init, SIGCHLD);
	c = spawn(tracer, SIGCHLD);
	c_pid = rp_getpid(c);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, x.tgid, NULL, NULL), 0);
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, rp_gettid(x.t), NULL, NULL), 0);
	/* Noted, not held: the wait has selected the tgid's pid. */
	arm(RP_RACE_WAIT_VISIT, c, false, false);
	w.pid = x.tgid;
	w.options = __WALL;
	job_start(&w, wait_job, tracer);
	cr_assert(await_reached(1), "the tracer's wait never began");
	exec_race_go(&x);
	exec_race_join(&x);
	cr_assert_eq(rp_exit_group(x.t, 6), 0);
	cr_assert_eq(job_join(&w), x.tgid,
		     "the tracer's waitpid(%d), begun before the exec, answered %ld "
		     "(Linux: the exit of the traced thread that took the tgid)", x.tgid, w.ret);
	cr_assert(WIFEXITED(w.status) && WEXITSTATUS(w.status) == 6);
	/* The tracer reported it: back to its real parent. */
	cr_assert_eq(rp_wait4(init, x.tgid, &status, 0, NULL), x.tgid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 6);
	cr_assert_eq(rp_exit_group(c, 0), 0);
	cr_assert_eq(rp_wait4(tracer, -1, &status, 0, NULL), c_pid);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(c);
	rp_task_put(tracer);
	rp_task_put(x.p);
	rp_task_put(x.t);
	finish_races();
}

TEST_EACH_MODE(exec_traced_tgid_waited, exec_traced_tgid_waited)

/* ------------------------------------------------------ exec and a traced zombie (I6, I7) */

/*
 * A traced thread of the process has exited and its tracer has not reaped
 * it yet: a zombie that still holds the group's handler table.  The exec
 * must wait until the tracer releases it (Linux's de_thread), not take it
 * for gone and switch only itself to a new table: one thread group over
 * two tables, where a signal to the zombie's tid is queued under the old
 * siglock while the leader dequeues under the new one.
 */
static void exec_traced_zombie(enum rp_sync_mode mode)
{
	struct rp_task *p, *t2, *tracer;
	struct rp_sighand *table;
	struct job ex = { .pid = 0 };
	int status;
	pid_t tid2;

	start_races(mode);
	p = spawn(init, SIGCHLD);
	t2 = spawn(p, THREAD_FLAGS);
	tracer = spawn(init, SIGCHLD);
	tid2 = rp_gettid(t2);
	table = p->sighand;
	cr_assert_eq(rp_ptrace(tracer, PTRACE_SEIZE, tid2, NULL, NULL), 0);
	cr_assert_eq(rp_exit(t2, 0), 0);
	cr_assert_eq(uatomic_read(&t2->exit_state), RP_EXIT_ZOMBIE);
	/* Noted, not held: tells the test that the exec sleeps for the zombie. */
	arm(RP_RACE_EXEC_WAITS, p, false, false);
	job_start(&ex, exec_job, p);
	if (await_reached(1))
		cr_assert_eq(rp_wait4(tracer, tid2, &status, __WALL, NULL), tid2);
	cr_assert_eq(job_join(&ex), 0);
	cr_assert(t2->sighand == NULL,
		  "the exec returned while its traced zombie thread kept the old table");
	/* Only the group used the table: the exec kept it, and it is the group's alone. */
	cr_assert_eq(p->sighand, table);
	cr_assert_eq(rp_sighand_users(uatomic_read(&p->sighand->count)), 1);
	/* Every signal sent to the group is dequeued by it. */
	set_action(p, SIGUSR1, user_handler);
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGUSR1), 0);
	cr_assert_eq(rp_get_signal(p, NULL), SIGUSR1);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	cr_assert_eq(rp_exit_group(tracer, 0), 0);
	rp_task_put(p);
	rp_task_put(t2);
	rp_task_put(tracer);
	finish_races();
}

TEST_EACH_MODE(exec_traced_zombie, exec_traced_zombie)

/* ------------------------------------------------------ exec by a thread of init */

/*
 * A non-leader thread of init execs: it becomes init (pid 1, the child
 * reaper) in place of the old leader, which is released.  Init is on no
 * parent's children list, and orphans must go to the new leader, not to
 * the released one.
 */
static void exec_init_thread(enum rp_sync_mode mode)
{
	struct rp_task *t, *c, *g;
	struct job die = { .pid = 0 };
	int status;
	pid_t cpid, gpid;

	start_races(mode);
	t = spawn(init, THREAD_FLAGS);
	c = spawn(init, SIGCHLD);
	g = spawn(c, SIGCHLD);
	cpid = rp_getpid(c);
	gpid = rp_getpid(g);
	job_start(&die, die_job, init);
	cr_assert_eq(rp_execve(t, "init"), 0);
	cr_assert_eq(job_join(&die), -ESRCH);
	cr_assert_eq(rp_getpid(t), 1);
	cr_assert_eq(rp_gettid(t), 1);
	cr_assert(rp_thread_group_leader(t));
	cr_assert_eq(sys->child_reaper, t);
	cr_assert_eq(rp_getppid(c), 1);
	/* Init's handle is the new leader's from here on. */
	rp_task_put(init);
	init = t;
	/* c's child is orphaned: it goes to the new init, which reaps both. */
	cr_assert_eq(rp_exit(c, 0), 0);
	cr_assert_eq(rp_getppid(g), 1);
	cr_assert_eq(g->real_parent, t);
	cr_assert_eq(rp_wait4(init, cpid, &status, 0, NULL), cpid);
	cr_assert_eq(rp_exit(g, 4), 0);
	cr_assert_eq(rp_wait4(init, gpid, &status, 0, NULL), gpid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 4);
	rp_task_put(c);
	rp_task_put(g);
	finish_races();
}

TEST_EACH_MODE(exec_init_thread, exec_init_thread)

/* ------------------------------------------------------ a send across exec's table switch (I6) */

/*
 * A sender loaded the target's handler table and is held before locking
 * it; meanwhile the target execs and, its table being shared with another
 * process, switches to a copy.  Released, the sender must see the switch
 * and lock the new table: it queues the signal under the target's current
 * siglock, which rp_send_signal_locked asserts (debug builds).  Locking
 * the old one, as RP_BREAK_SIGHAND_NO_RECHECK does, queues under a lock
 * the target's own dequeues no longer take.  The sharer's reference is
 * taken by hand, as tests/proc/test_exec_ptrace.c's exec_kill does.
 */
static void exec_switch_send(enum rp_sync_mode mode)
{
	struct rp_task *p, *sender;
	struct rp_sighand *old;
	struct job snd = { .sig = SIGUSR1 };
	bool hold = mode == RP_SYNC_RCU;
	sigset_t set;

	start_races(mode);
	p = spawn(init, SIGCHLD);
	sender = spawn(init, SIGCHLD);
	mask_signal(p, SIG_BLOCK, SIGUSR1);
	old = p->sighand;
	uatomic_inc(&old->count);
	snd.pid = rp_getpid(p);
	if (hold)
		arm(RP_RACE_SIGHAND_LOADED, p, true, false);
	job_start(&snd, kill_job, sender);
	if (hold)
		cr_assert(await_reached(1), "the sender never loaded the table");
	cr_assert_eq(rp_execve(p, "next"), 0);
	cr_assert_neq(p->sighand, old, "the exec kept a shared table");
	if (hold)
		release();
	cr_assert_eq(job_join(&snd), 0);
	rp_sighand_put(old);
	cr_assert_eq(rp_sigpending(p, &set), 0);
	cr_assert(sigismember(&set, SIGUSR1), "the signal sent across the exec is not pending");
	cr_assert_eq(rp_exit_group(p, 0), 0);
	cr_assert_eq(rp_exit_group(sender, 0), 0);
	rp_task_put(p);
	rp_task_put(sender);
	finish_races();
}

TEST_EACH_MODE(exec_switch_send, exec_switch_send)

/* ------------------------------------------------------ a process's CPU clock across exec (I8) */

/*
 * Thread t of process p execs and is held where p's tgid already names t
 * while every ->group_leader still names p.  p's CPU clock is there at
 * every moment: clock_getcpuclockid, clock_gettime and timer_create on it
 * must succeed (Linux asks whether the pid is a tgid, not whether the task
 * it names leads its group).
 */
static void exec_process_clock(enum rp_sync_mode mode)
{
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	struct exec_race x;
	bool hold = mode == RP_SYNC_RCU;
	struct timespec ts;
	clockid_t clock, again;
	int timer;

	start_races(mode);
	exec_race_start(&x);
	cr_assert_eq(rp_clock_getcpuclockid(init, x.tgid, &clock), 0);
	if (hold)
		arm(RP_RACE_EXEC_TGID_MOVED, x.t, true, false);
	exec_race_go(&x);
	if (hold)
		cr_assert(await_reached(2), "the exec never moved the tgid");
	cr_assert_eq(rp_clock_getcpuclockid(init, x.tgid, &again), 0,
		     "clock_getcpuclockid(%d) of a live process failed mid exec", x.tgid);
	cr_assert_eq(rp_clock_gettime(init, clock, &ts), 0,
		     "clock_gettime of a live process's CPU clock failed mid exec");
	cr_assert_eq(rp_timer_create(init, clock, &sev, &timer), 0,
		     "timer_create on a live process's CPU clock failed mid exec");
	cr_assert_eq(rp_timer_delete(init, timer), 0);
	if (hold)
		release();
	exec_race_join(&x);
	exec_race_end(&x, 0);
	finish_races();
}

TEST_EACH_MODE(exec_process_clock, exec_process_clock)

/* ------------------------------------------------------ PRIO_PROCESS across exec (I8) */

static long getprio_job(struct job *j)
{
	return rp_getpriority(j->t, PRIO_PROCESS, (id_t)j->pid);
}

static long setprio_job(struct job *j)
{
	return rp_setpriority(j->t, PRIO_PROCESS, (id_t)j->pid, 5);
}

/*
 * Observer q asks for (or sets) the priority of p's pid and is held after
 * loading the old leader's handler table, before locking it; thread t of p
 * execs to the end, which releases the old leader.  The pid was never
 * free: the call must follow it to t, not answer ESRCH.  The exec's own
 * thread comes after the observer reached its hold: die_job locks p's
 * table too.
 */
static void exec_prio_old_leader(enum rp_sync_mode mode, bool set)
{
	struct exec_race x;
	struct rp_task *q;
	struct job rd = { .pid = 0 };
	bool hold = mode == RP_SYNC_RCU;

	start_races(mode);
	exec_race_start(&x);
	q = spawn(init, SIGCHLD);
	rd.pid = x.tgid;
	if (hold)
		arm(RP_RACE_SIGHAND_LOADED, x.p, true, false);
	job_start(&rd, set ? setprio_job : getprio_job, q);
	if (hold)
		cr_assert(await_reached(1), "the lookup never loaded the old leader's table");
	exec_race_go(&x);
	exec_race_join(&x);
	if (hold)
		release();
	job_join(&rd);
	if (set)
		cr_assert_eq(rd.ret, 0, "setpriority(PRIO_PROCESS, %d) of a live process answered "
			     "%ld across an exec", x.tgid, rd.ret);
	else
		cr_assert_eq(rd.ret, 20, "getpriority(PRIO_PROCESS, %d) of a live process answered "
			     "%ld across an exec (want 20: nice 0)", x.tgid, rd.ret);
	exec_race_end(&x, 0);
	cr_assert_eq(rp_exit_group(q, 0), 0);
	rp_task_put(q);
	finish_races();
}

TEST_EACH_MODE_WITH(exec_getpriority, exec_prio_old_leader, false)
TEST_EACH_MODE_WITH(exec_setpriority, exec_prio_old_leader, true)
