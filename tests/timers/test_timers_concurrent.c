/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * CPU timers under concurrency, in all three modes (RP_TEST_SECONDS each).
 * One OS thread, the charger, ticks CPU time into published tasks, as a
 * scheduler would, while others create and end threads, exec, and reset
 * and delete timers.
 *
 *  - exit_sample: threads come and go while a sampler reads the process
 *    clock: it never goes back and never exceeds what was charged, and
 *    whenever the charger pauses it equals exactly what the charger was
 *    told it charged (a tick past a thread's exit point must fail, not
 *    lose its time).  Each exiting thread has an interval timer on its own
 *    clock, deleted right after the thread is gone.  Catches
 *    RP_BREAK_TIMER_SAMPLE_UNLOCKED and RP_BREAK_TIMER_NO_EXIT_CHECK.
 *  - fire_count: an interval timer on the process clock while threads come
 *    and go: signals plus their overruns equal the expiries the clock
 *    passed, none lost, none twice.
 *  - exec_fire: a timer owned by one process on another's clock, which
 *    execs in a loop (deleting its own timers, which the charger fires
 *    meanwhile): the expiries are counted exactly.
 *  - reset_delete: timers are created, reset, read and deleted while the
 *    charger fires them: no signal of a timer arrives after its delete
 *    returned, and none is used after it is freed.
 *  - delete_while_firing: a fixed schedule for the same rule.  A tick is
 *    held on an expired timer it collected, before it locks and fires it
 *    (race point TIMER_FIRING, debug builds), and the timer is deleted
 *    meanwhile: the delete must cancel that firing and wait for the tick.
 *    RP_BREAK_TIMER_EARLY_FREE frees the timer under the tick, which the
 *    debug build's timer check then finds freed, on every run;
 *    reset_delete meets that window only by chance, and on a loaded
 *    machine the broken build once hung there until Criterion's timeout,
 *    a catch by timeout.
 *  - delete_while_delivering: the owner's return to user space took a
 *    periodic timer's signal off its queue and is held before it locks the
 *    timer to re-arm it (race point TIMER_DELIVERS); the timer is deleted
 *    meanwhile.  The delivery must find the timer's generation moved on and
 *    drop the signal.  RP_BREAK_TIMER_REARM_DELETED skips that check: it
 *    re-arms the deleted timer and delivers its signal after the delete,
 *    on every run.
 *  - rearm_while_released: a periodic timer on another process's clock
 *    fired; that process's release is held before it detaches its sighand
 *    (race point RELEASE_DETACHES, update lock held: rcu mode) while the
 *    owner's delivery re-arms the timer on the dying clock.  The release
 *    must take the timer off in the same siglock hold that detaches, as
 *    Linux's __exit_signal does.  RP_BREAK_TIMER_RELEASE_APART disarms in
 *    an earlier hold, so the re-armed timer stays on the dead group's
 *    armed list, which the debug build's check finds when the timer is
 *    deleted, on every run.
 */
#include <pthread.h>
#include <sched.h>
#include "../fixture/timers.h"
#include "../fixture/racehold.h"

#define SLOTS	4

/* The tasks the charger ticks, in turn. */
static struct {
	pthread_mutex_t lock;
	struct rp_task *slot[SLOTS];	/* (lock) references */
	uint64_t tick;			/* ns per tick */
	unsigned long charged;		/* (a) ns of ticks that succeeded */
	unsigned long attempted;	/* (a) ns of every tick, counted before it */
	int stop, pause, paused;	/* CMM_LOAD/STORE_SHARED */
	pthread_t thread;
} ch = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void publish(int i, struct rp_task *t)
{
	pthread_mutex_lock(&ch.lock);
	ch.slot[i] = t ? rp_task_get(t) : NULL;
	pthread_mutex_unlock(&ch.lock);
}

static void unpublish(int i)
{
	struct rp_task *t;

	pthread_mutex_lock(&ch.lock);
	t = ch.slot[i];
	ch.slot[i] = NULL;
	pthread_mutex_unlock(&ch.lock);
	if (t)
		rp_task_put(t);
}

/* Stop between two ticks while asked to. */
static void charger_pause_point(void)
{
	if (!CMM_LOAD_SHARED(ch.pause))
		return;
	CMM_STORE_SHARED(ch.paused, 1);
	while (CMM_LOAD_SHARED(ch.pause))
		sched_yield();
	CMM_STORE_SHARED(ch.paused, 0);
}

static void charge_slot(int i)
{
	struct rp_task *t;

	pthread_mutex_lock(&ch.lock);
	t = ch.slot[i] ? rp_task_get(ch.slot[i]) : NULL;
	pthread_mutex_unlock(&ch.lock);
	if (!t)
		return;
	uatomic_add(&ch.attempted, ch.tick);
	if (rp_account_cpu(t, ch.tick * 3 / 5, ch.tick - ch.tick * 3 / 5) == 0)
		uatomic_add(&ch.charged, ch.tick);
	rp_task_put(t);
}

static void *charger_main(void *arg)
{
	(void)arg;
	rp_thread_register();
	for (int i = 0; !CMM_LOAD_SHARED(ch.stop); i = (i + 1) % SLOTS) {
		charger_pause_point();
		charge_slot(i);
		if (i == SLOTS - 1)
			sched_yield();
	}
	rp_thread_unregister();
	return NULL;
}

static void charger_start(uint64_t tick)
{
	ch.tick = tick;
	ch.charged = ch.attempted = 0;
	ch.stop = ch.pause = ch.paused = 0;
	cr_assert_eq(pthread_create(&ch.thread, NULL, charger_main, NULL), 0);
}

static void charger_stop(void)
{
	CMM_STORE_SHARED(ch.stop, 1);
	pthread_join(ch.thread, NULL);
	for (int i = 0; i < SLOTS; i++)
		unpublish(i);
}

/* A worker OS thread driving one task in a loop until told to stop. */
struct worker {
	pthread_t thread;
	struct rp_task *self;
	struct rp_task *other;		/* a second task some loops use */
	int stop;			/* CMM_LOAD/STORE_SHARED */
	const char *failed;		/* what went wrong, or NULL */
	unsigned long rounds;
};

static void worker_start(struct worker *w, void *(*fn)(void *))
{
	cr_assert_eq(pthread_create(&w->thread, NULL, fn, w), 0);
}

static void worker_stop(struct worker *w)
{
	CMM_STORE_SHARED(w->stop, 1);
	pthread_join(w->thread, NULL);
	cr_assert_null(w->failed, "%s", w->failed ? w->failed : "");
}

/* Expiries of RP(1) timers taken by any thread: signals plus their overruns. */
static unsigned long expiries;	/* (a) */

/* Take @self's pending signals, counting RT(1)'s expiries. */
static void drain_expiries(struct rp_task *self)
{
	siginfo_t info;
	int sig;

	while ((sig = rp_get_signal(self, &info)) > 0)
		if (sig == RT(1))
			uatomic_add(&expiries, 1 + (unsigned long)info.si_overrun);
	cr_assert_eq(sig, 0);
}

/* clone, restarted as Linux's ERESTARTNOINTR asks while a signal is pending. */
static pid_t clone_thread(struct rp_task *self, struct rp_task **t)
{
	pid_t tid;

	while ((tid = rp_clone(self, THREAD_FLAGS, t)) == -RP_ERESTARTNOINTR)
		drain_expiries(self);
	return tid;
}

/* Make threads of w->self's process that live for a few ticks, then exit. */
static void *churn_threads(void *arg)
{
	struct worker *w = arg;
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = RT(2) };
	struct rp_task *t;
	clockid_t clock;
	int id;

	rp_thread_register();
	while (!CMM_LOAD_SHARED(w->stop) && !w->failed) {
		if (clone_thread(w->self, &t) <= 0) {
			w->failed = "clone";
			break;
		}
		id = -1;
		if (w->other && !rp_pthread_getcpuclockid(w->self, rp_gettid(t), &clock) &&
		    !rp_timer_create(w->self, clock, &sev, &id)) {
			struct itimerspec its = { { 0, 1000 }, { 0, 1000 } };

			rp_timer_settime(w->self, id, 0, &its, NULL);
		}
		publish(1 + w->rounds % (SLOTS - 1), t);
		for (int i = 0; i < 4; i++)
			sched_yield();
		if (rp_exit(t, 0))
			w->failed = "exit";
		if (id >= 0 && rp_timer_delete(w->self, id))
			w->failed = "timer_delete";
		unpublish(1 + w->rounds % (SLOTS - 1));
		rp_task_put(t);
		w->rounds++;
	}
	rp_thread_unregister();
	return NULL;
}

/* With the charger paused, the process clock is exactly what it charged. */
static void check_exact(struct rp_task *self)
{
	uint64_t v;

	double end = now_seconds() + TEST_HANG_SECONDS;

	CMM_STORE_SHARED(ch.pause, 1);
	while (!CMM_LOAD_SHARED(ch.paused)) {
		/* A tick stuck in a lock (a broken twin's freed one): not paused. */
		cr_assert_lt(now_seconds(), end, "the charger never paused: a tick is stuck");
		sched_yield();
	}
	v = clock_ns(self, CLOCK_PROCESS_CPUTIME_ID);
	cr_assert_eq(v, uatomic_read(&ch.charged), "clock %lu, charged %lu: not what was charged",
		     (unsigned long)v, uatomic_read(&ch.charged));
	CMM_STORE_SHARED(ch.pause, 0);
	while (CMM_LOAD_SHARED(ch.paused))
		sched_yield();
}

static void exit_sample(enum rp_sync_mode mode)
{
	struct worker churn = { 0 };
	struct rp_task *p;
	double deadline;
	uint64_t last = 0, v, n = 0;

	start(mode);
	p = spawn(init, SIGCHLD);
	churn.self = spawn(p, THREAD_FLAGS);
	churn.other = p;	/* with a timer on each thread's clock */
	handle(p, RT(2));
	publish(0, p);
	charger_start(10 * US);
	worker_start(&churn, churn_threads);
	deadline = now_seconds() + test_seconds();
	while (now_seconds() < deadline && !churn.failed) {
		v = clock_ns(p, CLOCK_PROCESS_CPUTIME_ID);
		cr_assert_geq(v, last, "the process clock went back: %lu < %lu",
			      (unsigned long)v, (unsigned long)last);
		cr_assert_leq(v, uatomic_read(&ch.attempted), "counted twice: %lu",
			      (unsigned long)v);
		last = v;
		if (++n % 256 == 0)
			check_exact(p);
	}
	worker_stop(&churn);
	charger_stop();
	cr_assert_eq(clock_ns(p, CLOCK_PROCESS_CPUTIME_ID), uatomic_read(&ch.charged));
	cr_assert_gt(churn.rounds, 0);
	end_task(churn.self);
	end_task(p);
	finish();
}
TEST_EACH_MODE(exit_sample, exit_sample)

#define INTERVAL	(100 * US)

/* Count @self's expiries while @w and the charger run; then stop them. */
static void count_expiries_while(struct rp_task *self, struct worker *w)
{
	double deadline = now_seconds() + test_seconds();

	while (now_seconds() < deadline && !w->failed) {
		drain_expiries(self);
		sleep_seconds(0.0002);
	}
	worker_stop(w);
	charger_stop();
	drain_expiries(self);
}

static void fire_count(enum rp_sync_mode mode)
{
	struct worker churn = { 0 };
	struct rp_task *p;
	int id;

	start(mode);
	p = spawn(init, SIGCHLD);
	churn.self = spawn(p, THREAD_FLAGS);
	handle(p, RT(1));
	id = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	arm_timer(p, id, INTERVAL, INTERVAL);
	publish(0, p);
	charger_start(7 * US);
	worker_start(&churn, churn_threads);
	count_expiries_while(p, &churn);
	cr_assert_eq(expiries, clock_ns(p, CLOCK_PROCESS_CPUTIME_ID) / INTERVAL,
		     "expiries %lu", expiries);
	end_task(churn.self);
	end_task(p);
	finish();
}
TEST_EACH_MODE(fire_count, fire_count)

/*
 * Exec in a loop, each time with a fresh timer of our own firing fast.  Its
 * signal is blocked (the mask survives exec), so that it stays queued, for
 * exec to flush, and is no fatal one: that would start the group's exit.
 */
static void *exec_loop(void *arg)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = RT(2) };
	struct worker *w = arg;
	struct itimerspec its;
	int id;

	rp_thread_register();
	while (!CMM_LOAD_SHARED(w->stop) && !w->failed) {
		its = (struct itimerspec){ { 0, 5000 }, { 0, 5000 } };
		if (rp_timer_create(w->self, CLOCK_PROCESS_CPUTIME_ID, &sev, &id) ||
		    rp_timer_settime(w->self, id, 0, &its, NULL))
			w->failed = "timer";
		else if (rp_execve(w->self, "again"))
			w->failed = "exec";
		else if (rp_timer_gettime(w->self, id, &its) != -EINVAL)
			w->failed = "a timer survived exec";
		w->rounds++;
	}
	rp_thread_unregister();
	return NULL;
}

static void exec_fire(enum rp_sync_mode mode)
{
	struct worker execer = { 0 };
	struct rp_task *q;
	clockid_t clock;
	int id;

	start(mode);
	q = spawn(init, SIGCHLD);
	execer.self = spawn(init, SIGCHLD);
	mask_signal(execer.self, SIG_BLOCK, RT(2));
	handle(q, RT(1));
	cr_assert_eq(rp_clock_getcpuclockid(q, rp_getpid(execer.self), &clock), 0);
	id = timer_on(q, clock, RT(1));
	arm_timer(q, id, INTERVAL, INTERVAL);
	publish(0, execer.self);
	charger_start(7 * US);
	worker_start(&execer, exec_loop);
	count_expiries_while(q, &execer);
	cr_assert_eq(expiries, clock_ns(q, clock) / INTERVAL, "expiries %lu", expiries);
	cr_assert_gt(execer.rounds, 0);
	end_task(execer.self);
	end_task(q);
	finish();
}
TEST_EACH_MODE(exec_fire, exec_fire)

/* Take @self's pending signals; none may come from a timer up to @deleted. */
static void drain_after_delete(struct rp_task *self, int deleted)
{
	siginfo_t info;
	int sig;

	while ((sig = rp_get_signal(self, &info)) > 0)
		cr_assert(info.si_timerid > deleted, "timer %d fired after its delete",
			  info.si_timerid);
	cr_assert_eq(sig, 0);
}

static void reset_delete(enum rp_sync_mode mode)
{
	struct itimerspec its = { { 0, 1000 }, { 0, 1000 } }, cur;
	struct rp_task *p, *t;
	clockid_t clocks[2] = { CLOCK_PROCESS_CPUTIME_ID };
	double deadline;
	int id, n = 0;

	start(mode);
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	handle(p, RT(1));
	cr_assert_eq(rp_pthread_getcpuclockid(p, rp_gettid(t), &clocks[1]), 0);
	publish(0, p);
	publish(1, t);
	charger_start(10 * US);
	deadline = now_seconds() + test_seconds();
	while (now_seconds() < deadline) {
		id = timer_on(p, clocks[n++ % 2], RT(1));
		cr_assert_eq(rp_timer_settime(p, id, 0, &its, NULL), 0);
		sched_yield();
		cr_assert_eq(rp_timer_gettime(p, id, &cur), 0);
		cr_assert_eq(rp_timer_settime(p, id, 0, &its, &cur), 0);
		cr_assert_geq(rp_timer_getoverrun(p, id), 0);
		sched_yield();
		cr_assert_eq(rp_timer_delete(p, id), 0);
		drain_after_delete(p, id);
	}
	charger_stop();
	end_task(t);
	end_task(p);
	finish();
}
TEST_EACH_MODE(reset_delete, reset_delete)

/* ------------------------------------------------- delete_while_firing */

/* Start @mode counting jobs; a process handling RT(1) with a timer sending it (*@id). */
static struct rp_task *start_race_with_timer(enum rp_sync_mode mode, int *id)
{
	struct rp_task *p;

	start(mode);
	race_count_jobs();
	p = spawn(init, SIGCHLD);
	handle(p, RT(1));
	*id = timer_on(p, CLOCK_PROCESS_CPUTIME_ID, RT(1));
	return p;
}

/* The tick: charge the job's task. */
static long tick_job(struct job *j)
{
	return rp_account_cpu(j->t, 10 * US, 0);
}

/* The delete: the job's task deletes its timer @arg. */
static long delete_job(struct job *j)
{
	return rp_timer_delete(j->t, (int)j->arg);
}

/*
 * The tick is held on the collected timer; the delete must cancel that
 * firing and wait for the tick (noted at race point TIMER_CANCEL_WAITS),
 * not return while the tick still has the timer.
 */
static void delete_while_firing(enum rp_sync_mode mode)
{
	struct itimerspec its = { { 0, 0 }, { 0, 1000 } };
	struct job tick = { .ret = -1 }, del = { .ret = -1 };
	bool hold = mode == RP_SYNC_RCU;
	struct rp_task *p;
	bool waited;
	int id;

	p = start_race_with_timer(mode, &id);
	cr_assert_eq(rp_timer_settime(p, id, 0, &its, NULL), 0);
	del.arg = id;
	if (hold)
		arm(RP_RACE_TIMER_FIRING, p, true, false);
	job_start(&tick, tick_job, p);
	if (hold)
		cr_assert(await_reached(1), "the tick never collected the timer");
	else
		job_join(&tick);
	if (hold)
		arm(RP_RACE_TIMER_CANCEL_WAITS, p, false, false);	/* the tick stays held */
	job_start(&del, delete_job, p);
	if (hold) {
		/* Until the delete waits for the tick, or returns (1 job done). */
		waited = await_reached(1);
		cr_assert(waited, "timer_delete returned while a tick was firing the timer");
		release();
		job_join(&tick);
	}
	job_join(&del);
	cr_assert_eq(tick.ret, 0);
	cr_assert_eq(del.ret, 0);
	drain_after_delete(p, id);
	end_task(p);
	rp_debug_race_hook(NULL);
	finish();
}

TEST_EACH_MODE(delete_while_firing, delete_while_firing)

/* ------------------------------------------------- delete_while_delivering */

/* The delivery: the job's task returns to user space (0: nothing delivered). */
static long deliver_job(struct job *j)
{
	return rp_get_signal(j->t, NULL);
}

static void delete_while_delivering(enum rp_sync_mode mode)
{
	struct job deliver = { .ret = -1 };
	struct rp_task *p;
	int id;

	p = start_race_with_timer(mode, &id);
	arm_timer(p, id, 10 * US, 10 * US);
	cr_assert_eq(rp_account_cpu(p, 10 * US, 0), 0);
	cr_assert(is_pending(p, RT(1)));
	/* No lock is held there: every mode can hold it. */
	arm(RP_RACE_TIMER_DELIVERS, p, true, true);
	job_start(&deliver, deliver_job, p);
	cr_assert(await_reached(1), "the delivery never took the timer's signal");
	cr_assert_eq(rp_timer_delete(p, id), 0);
	release();
	job_join(&deliver);
	cr_assert_eq(deliver.ret, 0, "signal %ld of timer %d delivered after its delete",
		     deliver.ret, id);
	cr_assert_eq(rp_account_cpu(p, 100 * US, 0), 0);
	drain_after_delete(p, id);
	end_task(p);
	rp_debug_race_hook(NULL);
	finish();
}

TEST_EACH_MODE(delete_while_delivering, delete_while_delivering)

/* ------------------------------------------------- rearm_while_released */

/* The reap: the job's task waits for its child j->pid. */
static long reap_job(struct job *j)
{
	return rp_wait4(j->t, j->pid, &j->status, 0, NULL);
}

static void rearm_while_released(enum rp_sync_mode mode)
{
	struct job reap = { .ret = -1 };
	bool hold = mode == RP_SYNC_RCU;
	struct rp_task *p, *parent, *q;
	clockid_t clock;
	siginfo_t info;
	int id;

	start(mode);
	race_count_jobs();
	p = spawn(init, SIGCHLD);
	parent = spawn(init, SIGCHLD);	/* init reaps by itself: q needs a parent that waits */
	set_action(parent, SIGCHLD, SIG_DFL);
	q = spawn(parent, SIGCHLD);
	handle(p, RT(1));
	mask_signal(p, SIG_BLOCK, RT(1));
	cr_assert_eq(rp_clock_getcpuclockid(p, rp_getpid(q), &clock), 0);
	id = timer_on(p, clock, RT(1));
	arm_timer(p, id, 10 * US, 10 * US);
	cr_assert_eq(rp_account_cpu(q, 10 * US, 0), 0);
	cr_assert(is_pending(p, RT(1)));
	reap.pid = rp_getpid(q);
	cr_assert_eq(rp_exit(q, 0), 0);
	if (hold)
		arm(RP_RACE_RELEASE_DETACHES, q, true, true);
	job_start(&reap, reap_job, parent);
	if (hold)
		cr_assert(await_reached(1), "the release never reached its detach");
	else
		job_join(&reap);
	mask_signal(p, SIG_UNBLOCK, RT(1));
	cr_assert_eq(rp_get_signal(p, &info), RT(1));	/* re-arms on q's clock, if still there */
	if (hold)
		release();
	cr_assert_eq(job_join(&reap), reap.pid);
	cr_assert_eq(rp_timer_delete(p, id), 0);
	rp_task_put(q);
	end_task(parent);
	end_task(p);
	rp_debug_race_hook(NULL);
	finish();
}

TEST_EACH_MODE(rearm_while_released, rearm_while_released)
