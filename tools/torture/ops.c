/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The operations a torture worker runs on the processes it drives. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <urcu/uatomic.h>
#include "../../src/debug/racepoint.h"
#include "torture.h"

#define RECENT		1024

const char *const tt_op_names[OP_NR] = {
	"fork", "clone", "exit", "exit_group", "exec", "wait4", "waitid",
	"kill", "tgkill", "ptrace", "sigaction", "sigprocmask", "drain",
	"killpg", "kill_all", "kill_session", "setpgid", "setsid",
	"setpriority", "ioprio", "timer", "stop", "trace_reap",
	"trace_exec", "claim", "exec_kill_all", "init_exec", "hot", "mt",
	"ns", "fork_group", "setpgid_tie",
};

static uint64_t clock_now;		/* atomic: the log's clock */
static pid_t recent[RECENT];		/* atomic slots: tgids forked lately */
static unsigned long nr_recent;		/* atomic */

/* A new run on a new system: the pids forked lately named another system's processes. */
void tt_ops_forget_recent(void)
{
	for (unsigned int i = 0; i < RECENT; i++)
		uatomic_set(&recent[i], 0);
	uatomic_set(&nr_recent, 0);
}

uint64_t tt_clock_tick(void)
{
	return uatomic_add_return(&clock_now, 1);
}

struct event *tt_log_event(struct worker *w, enum ev_kind kind)
{
	struct event *e;

	if (w->nev == w->evcap) {
		w->evcap = w->evcap ? 2 * w->evcap : 4096;
		w->ev = realloc(w->ev, w->evcap * sizeof(*w->ev));
		if (!w->ev)
			abort();
	}
	e = &w->ev[w->nev++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	return e;
}

static unsigned int rng_below(struct worker *w, unsigned int n)
{
	return (unsigned int)(rng_next(&w->rng) % n);
}

/* A handler the harness never runs: rp_get_signal hands the signal back. */
static void torture_handler(int sig)
{
	(void)sig;
}

void tt_set_handler(struct rp_task *t, int sig)
{
	struct sigaction act = { .sa_handler = torture_handler, .sa_flags = SA_RESTART };

	rp_sigaction(t, sig, &act, NULL);
}

void tt_install_handlers(struct rp_task *t)
{
	/* SIG_NS too: a kill(-1) from inside a namespace that leaks out is seen, not fatal. */
	for (int s = SIG_FIRST; s <= SIG_NS; s++)
		tt_set_handler(t, s);
}

void tt_add_handle(struct worker *w, struct rp_task *t, pid_t tid, pid_t tgid)
{
	if (w->nh == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		w->h = realloc(w->h, w->cap * sizeof(*w->h));
		if (!w->h)
			abort();
	}
	w->h[w->nh++] = (struct handle){ .t = t, .tid = tid, .tgid = tgid };
}

void tt_drop_handle(struct worker *w, unsigned int i)
{
	rp_task_put(w->h[i].t);
	w->h[i] = w->h[--w->nh];
}

/*
 * After a call returned @ret as @h: drop @h if it has exited; false then.
 * A handle outside w->h (the worker's thread of the hot process, a thread
 * lent to a helper: ops_hot.c) is its holder's to drop.
 */
bool tt_worker_drive(struct worker *w, struct handle *h, int ret)
{
	if (ret != -ESRCH || rp_gettid(h->t) != -ESRCH)
		return true;
	if ((uintptr_t)h < (uintptr_t)w->h || (uintptr_t)h >= (uintptr_t)(w->h + w->nh))
		return false;
	tt_drop_handle(w, (unsigned int)(h - w->h));
	return false;
}

/* A handle of @h's parent process, if we drive it. */
struct handle *tt_find_parent(struct worker *w, struct handle *h)
{
	pid_t ppid = rp_getppid(h->t);

	for (unsigned int i = 0; i < w->nh; i++)
		if (w->h[i].tgid == ppid)
			return &w->h[i];
	return NULL;
}

struct handle *tt_pick_live(struct worker *w)
{
	return &w->h[rng_below(w, w->nh)];
}

/* A process to signal: one of ours, one forked lately by anyone, or none. */
pid_t tt_pick_target(struct worker *w)
{
	unsigned int r = rng_below(w, 16);
	unsigned long n = uatomic_read(&nr_recent);

	if (r == 0)
		return 1 << 21;		/* most likely no such process: ESRCH */
	if (r < 8 || n == 0 || tt_disjoint(w->cfg))
		return tt_pick_live(w)->tgid;
	return uatomic_read(&recent[rng_below(w, n < RECENT ? (unsigned int)n : RECENT)]);
}

static bool is_root_leader(struct worker *w, struct handle *h)
{
	return h->tgid == w->root && h->tid == h->tgid;
}

static int16_t clip(long ret)
{
	return ret < -32767 ? -32767 : ret > 0 ? 0 : (int16_t)ret;
}

void tt_log_recv(struct worker *w, struct handle *h, int sig, const siginfo_t *info)
{
	struct event *e = tt_log_event(w, EV_RECV);

	e->start = e->end = tt_clock_tick();
	e->a = h->tgid;
	e->b = h->tid;
	e->sig = (int16_t)sig;
	e->c = info->si_pid;
	e->result = (int16_t)info->si_code;
	e->id = info->si_code == SI_QUEUE ? (uint64_t)(uintptr_t)info->si_value.sival_ptr : 0;
}

/* Process @tracer traced thread @tracee from @start (its PTRACE_SEIZE) until now. */
void tt_log_trace(struct worker *w, pid_t tracer, pid_t tracee, uint64_t start)
{
	struct event *e = tt_log_event(w, EV_TRACE);

	e->start = start;
	e->end = tt_clock_tick();
	e->a = tracer;
	e->b = tracee;
}

/* Dequeue until nothing is left, logging each receipt. */
int tt_drain(struct worker *w, struct handle *h)
{
	siginfo_t info;
	int sig;

	while ((sig = rp_get_signal(h->t, &info)) > 0)
		tt_log_recv(w, h, sig, &info);
	return sig;
}

static void op_drain(struct worker *w, struct handle *h)
{
	sigset_t none;
	uint64_t start;
	bool unblock = rng_below(w, 2);
	int ret;

	sigemptyset(&none);
	if (unblock && rp_sigprocmask(h->t, SIG_SETMASK, &none, NULL) < 0)
		unblock = false;
	start = tt_clock_tick();
	ret = tt_drain(w, h);
	if (ret == 0 && unblock) {
		struct event *e = tt_log_event(w, EV_DRAIN);

		e->start = start;
		e->end = tt_clock_tick();
		e->a = h->tgid;
		e->b = h->tid;
	}
	tt_worker_drive(w, h, ret);
}

/*
 * A new process, its handle last; with @flags CLONE_SIGHAND | CLONE_VM it
 * shares our handlers.  Its pid, or < 0.
 */
pid_t tt_fork_process(struct worker *w, struct handle *h, unsigned long flags)
{
	struct rp_task *child = NULL;
	struct event *e;
	uint64_t start = tt_clock_tick();
	pid_t pid = rp_clone(h->t, flags | SIGCHLD, &child);

	e = tt_log_event(w, EV_FORK);
	e->start = start;
	e->end = tt_clock_tick();
	e->a = h->tgid;
	e->b = pid > 0 ? pid : 0;
	e->result = clip(pid);
	if (pid > 0) {
		tt_add_handle(w, child, pid, pid);
		uatomic_set(&recent[uatomic_add_return(&nr_recent, 1) % RECENT], pid);
	} else if (pid == -RP_ERESTARTNOINTR) {
		tt_drain(w, h);
	} else {
		tt_worker_drive(w, h, pid);
	}
	return pid;
}

static void op_fork(struct worker *w, struct handle *h)
{
	tt_fork_process(w, h, 0);
}

/* A new thread of @h's process; its tid, or < 0.  The handles may move. */
pid_t tt_new_thread(struct worker *w, struct handle *h)
{
	struct rp_task *child = NULL;
	pid_t tid = rp_clone(h->t, THREAD_FLAGS, &child);

	if (tid > 0)
		tt_add_handle(w, child, tid, h->tgid);
	else if (tid == -RP_ERESTARTNOINTR)
		tt_drain(w, h);
	else
		tt_worker_drive(w, h, tid);
	return tid;
}

/* A thread, or now and then a process sharing our handler table (exec unshares it). */
static void op_clone(struct worker *w, struct handle *h)
{
	if (rng_below(w, 4) == 0)
		tt_fork_process(w, h, CLONE_SIGHAND | CLONE_VM);
	else
		tt_new_thread(w, h);
}

static void op_exit(struct worker *w, struct handle *h, bool group)
{
	if (is_root_leader(w, h) || (group && h->tgid == w->root))
		return;
	if (group)
		rp_exit_group(h->t, 0);
	else
		rp_exit(h->t, 0);
	tt_drop_handle(w, (unsigned int)(h - w->h));
}

/* The RT signals blocked across exec, whose handlers it resets. */
void tt_rt_set(sigset_t *set)
{
	sigemptyset(set);
	for (int s = SIG_FIRST; s < SIG_FIRST + SIG_COUNT; s++)
		sigaddset(set, s);
}

/*
 * Wait for a helper thread unregistered: a QSBR reader that blocks while
 * registered would hold up every grace period the helper may wait for.
 */
void tt_join_offline(pthread_t thread)
{
	rp_thread_unregister();
	pthread_join(thread, NULL);
	rp_thread_register();
}

/* An exec run by a thread of our own while the worker drives the other threads. */
struct exec_run {
	struct handle *h;
	struct hold *note;		/* counts the exec's sleeps, or NULL */
	uint64_t start, end;
	int ret;
};

static void *exec_thread(void *arg)
{
	struct exec_run *run = arg;

	rp_thread_register();
	if (run->note)
		tt_hold_arm(run->note);
	run->start = tt_clock_tick();
	run->ret = rp_execve(run->h->t, "torture");
	run->end = tt_clock_tick();
	tt_hold_disarm();
	rp_thread_unregister();
	return NULL;
}

/*
 * exec kills the caller's other threads and waits until they are gone, and
 * a thread dies at its return to user space: take each to it until it has.
 */
static void run_others_to_death(struct worker *w, struct exec_run *run)
{
	pid_t tgid = run->h->tgid, tid = run->h->tid;

	for (unsigned int i = 0; i < w->nh; i++) {
		struct handle *o = &w->h[i];

		if (o->tgid != tgid || o->tid == tid)
			continue;
		while (tt_drain(w, o) == 0 && !uatomic_read(&run->end))
			sched_yield();
	}
}

/*
 * While the exec runs, the parent (@pt, if ours) polls for the process, by
 * any child and by its pid in turn: a process changing leaders is still
 * its child, never ECHILD.
 */
static void poll_parent(struct worker *w, struct handle *pt, struct exec_run *run)
{
	int status;

	for (unsigned int n = 0; pt && !uatomic_read(&run->end); n++) {
		pid_t pid = n % 2 ? run->h->tgid : -1;
		uint64_t start = tt_clock_tick();

		tt_log_wait(w, pt, pid, start, rp_wait4(pt->t, pid, &status, WNOHANG, NULL));
		sched_yield();
	}
}

/* The handle of process @tgid's leader, if we drive it. */
static struct handle *leader_of(struct worker *w, pid_t tgid)
{
	for (unsigned int i = 0; i < w->nh; i++)
		if (w->h[i].tid == tgid)
			return &w->h[i];
	return NULL;
}

/*
 * The parent's wait for the process by its pid, held (rcu mode) on the
 * node of the old leader, which a non-leader's exec replaces and hands its
 * own tid: released once the exec has returned, it must still count the
 * process (bug of RP_BREAK_WAIT_PID_BY_TASK: it compared that tid).
 * Started if @h is not its leader; false if it is not held.
 */
static bool start_held_poll(struct worker *w, struct handle *h, struct handle *pt,
			    struct held_call *run)
{
	struct handle *leader = leader_of(w, h->tgid);

	/* The lock modes: a scan held in the read lock would keep the exec out. */
	if (!pt || !leader || leader == h || !tt_rcu_readers(w->cfg->mode) || !tt_hold_available())
		return false;
	*run = (struct held_call){ .t = pt->t, .pid = h->tgid,
		.hold = { .where = RP_RACE_WAIT_VISIT, .t = leader->t, .stay = true } };
	if (tt_start_held(run, tt_held_wait_thread))
		return true;
	tt_join_offline(run->thread);
	return false;
}

/*
 * A kill of @h's process by another of ours (not its parent @pt, which the
 * worker drives meanwhile), held (rcu mode) once it has loaded the
 * leader's handler table and before it locks it: the exec, if the process
 * shares its table (CLONE_SIGHAND), switches to a new one meanwhile.  The
 * send must lock the table that is current then, and the signal must
 * reach the process (I6; RP_BREAK_SIGHAND_NO_RECHECK locks the old one).
 * False if it is not held.
 */
static bool start_held_send(struct worker *w, struct handle *h, struct handle *pt,
			    struct held_call *run)
{
	struct handle *leader = leader_of(w, h->tgid), *from = tt_pick_live(w);

	if (!leader || from->tgid == h->tgid || (pt && from->tgid == pt->tgid) ||
	    !tt_rcu_readers(w->cfg->mode) || !tt_hold_available())
		return false;
	*run = (struct held_call){ .t = from->t, .pid = h->tgid,
		.sig = SIG_FIRST + (int)rng_below(w, SIG_COUNT),
		.hold = { .where = RP_RACE_SIGHAND_LOADED, .t = leader->t, .stay = true } };
	if (tt_start_held(run, tt_held_send_thread))
		return true;
	tt_join_offline(run->thread);
	return false;
}

/* The held send is over: log it as op_kill logs its sends (the sender lives: no one drove it). */
static void log_held_send(struct worker *w, struct held_call *run)
{
	struct event *e = tt_log_event(w, EV_SEND);

	e->start = e->id = run->start;
	e->end = tt_clock_tick();
	e->a = rp_getpid(run->t);
	e->b = run->pid;
	e->sig = (int16_t)run->sig;
	e->result = clip(run->ret);
}

/*
 * A traced zombie thread for @h's exec: a new thread of its process,
 * seized by another process of ours, exits; it stays a zombie until its
 * tracer reaps it, and the exec must wait for that (a bug a review found).
 * Returns the tracer (its tid in *@ztid), or NULL; *@hp follows @h's handle.
 */
static struct rp_task *traced_zombie(struct worker *w, struct handle **hp, pid_t *ztid)
{
	struct rp_task *self = (*hp)->t, *tracer = NULL, *z;
	pid_t tid, tracer_tgid = 0;
	struct handle *tr;
	uint64_t start;

	for (int i = 0; i < 4 && !tracer; i++) {
		tr = tt_pick_live(w);
		if (tr->tgid != (*hp)->tgid) {
			tracer = tr->t;
			tracer_tgid = tr->tgid;
		}
	}
	if (!tracer || (tid = tt_new_thread(w, *hp)) < 0) {
		*hp = tt_handle_of(w, self);
		return NULL;
	}
	z = w->h[w->nh - 1].t;
	start = tt_clock_tick();
	if (rp_ptrace(tracer, PTRACE_SEIZE, tid, NULL, NULL) != 0) {
		*hp = tt_handle_of(w, self);
		return NULL;	/* an ordinary thread: the exec kills it */
	}
	rp_exit(z, 0);
	tt_log_trace(w, tracer_tgid, tid, start);
	tt_drop_handle(w, w->nh - 1);
	*hp = tt_handle_of(w, self);
	*ztid = tid;
	return tracer;
}

/*
 * The exec has killed the others: until it returns, or sleeps again (the
 * traced zombie is all it waits for), or 20 ms have passed.  Then the
 * group's threads must still share one handler table (I6), and the
 * tracer reaps the zombie, which lets a waiting exec go on.
 */
static void reap_traced_zombie(struct worker *w, struct exec_run *run, struct hold *note,
			       struct rp_task *tracer, pid_t ztid)
{
	unsigned int seen = uatomic_read(&note->reached);
	double until = tt_hold_now() + 0.02;
	struct event *e;

	while (!uatomic_read(&run->end) && uatomic_read(&note->reached) == seen &&
	       tt_hold_now() < until) {
		rp_thread_quiescent();
		sched_yield();
	}
	e = tt_log_event(w, EV_SIGHANDS);
	e->start = tt_clock_tick();
	e->a = run->h->tgid;
	e->b = (int32_t)rp_verify_walk_group_sighands(run->h->t);
	e->end = tt_clock_tick();
	tt_tracer_reap(w, tt_handle_of(w, tracer), ztid);
}

/* exec has killed the other threads of @keep's group: drop their handles. */
static void drop_other_threads(struct worker *w, struct rp_task *keep, pid_t tgid)
{
	for (unsigned int i = w->nh; i-- > 0;)
		if (w->h[i].tgid == tgid && w->h[i].t != keep)
			tt_drop_handle(w, i);
}

/*
 * exec by @h, any thread of its process; @traced: with a traced zombie
 * thread in its group (trace_exec).
 */
void tt_op_exec(struct worker *w, struct handle *h, bool traced)
{
	struct hold note = { .where = RP_RACE_EXEC_WAITS };
	struct exec_run run = { .h = h };
	struct rp_task *tracer = NULL;
	struct held_call hp, hs;
	struct handle *pt;
	sigset_t rt, old;
	pthread_t thread;
	struct event *e;
	pid_t ztid = 0;
	bool held, sent;

	tt_rt_set(&rt);
	if (!tt_worker_drive(w, h, rp_sigprocmask(h->t, SIG_BLOCK, &rt, &old)))
		return;
	if (traced && !(tracer = traced_zombie(w, &h, &ztid)))
		return;
	run.h = h;
	note.t = h->t;
	run.note = tracer ? &note : NULL;
	pt = tt_find_parent(w, h);
	held = start_held_poll(w, h, pt, &hp);
	sent = !tracer && start_held_send(w, h, pt, &hs);
	if (pthread_create(&thread, NULL, exec_thread, &run))
		abort();
	run_others_to_death(w, &run);
	if (tracer)
		reap_traced_zombie(w, &run, &note, tracer, ztid);
	poll_parent(w, pt, &run);
	tt_join_offline(thread);
	if (held) {
		tt_end_held(&hp);
		tt_log_wait(w, tt_handle_of(w, hp.t), hp.pid, hp.start, (pid_t)hp.ret);
	}
	if (sent) {
		tt_end_held(&hs);
		log_held_send(w, &hs);
	}
	e = tt_log_event(w, EV_EXEC);
	e->start = run.start;
	e->end = run.end;
	e->a = h->tgid;
	e->result = clip(run.ret);
	if (run.ret == 0) {
		struct rp_task *t = h->t;

		h->tid = h->tgid;	/* exec takes over the leader's pid */
		tt_install_handlers(t);
		drop_other_threads(w, t, h->tgid);
		rp_sigprocmask(t, SIG_SETMASK, &old, NULL);
	} else if (tt_worker_drive(w, h, run.ret)) {
		rp_sigprocmask(h->t, SIG_SETMASK, &old, NULL);
	}
}

/*
 * Log what a wait of @h for @pid that began at @start answered: a reap, or
 * ECHILD (the checker knows which children @h had then).
 */
void tt_log_wait(struct worker *w, struct handle *h, pid_t pid, uint64_t start, pid_t ret)
{
	struct event *e;

	if (ret <= 0 && ret != -ECHILD)
		return;
	e = tt_log_event(w, ret > 0 ? EV_REAP : EV_ECHILD);
	e->start = start;
	e->end = tt_clock_tick();
	e->a = h->tgid;
	e->b = ret > 0 ? ret : pid;
}

static void op_wait(struct worker *w, struct handle *h, bool waitid)
{
	siginfo_t info = { 0 };
	uint64_t start = tt_clock_tick();
	int status, ret;

	if (waitid) {
		ret = rp_waitid(h->t, P_ALL, 0, &info, WEXITED | WNOHANG);
		tt_log_wait(w, h, -1, start, ret == 0 ? info.si_pid : ret);
	} else {
		ret = rp_wait4(h->t, -1, &status, WNOHANG, NULL);
		tt_log_wait(w, h, -1, start, ret);
	}
	tt_worker_drive(w, h, ret);
}

static int random_sig(struct worker *w)
{
	return SIG_FIRST + (int)rng_below(w, SIG_COUNT);
}

/* rt_sigqueueinfo: kill(2) with the send id in si_value. */
static void op_kill(struct worker *w, struct handle *h)
{
	siginfo_t info = { .si_code = SI_QUEUE };
	pid_t target = tt_pick_target(w);
	int sig = random_sig(w);
	uint64_t start = tt_clock_tick();
	struct event *e;
	int ret;

	info.si_pid = h->tgid;
	info.si_value.sival_ptr = (void *)(uintptr_t)start;
	ret = rp_rt_sigqueueinfo(h->t, target, sig, &info);
	e = tt_log_event(w, EV_SEND);
	e->start = e->id = start;
	e->end = tt_clock_tick();
	e->a = h->tgid;
	e->b = target;
	e->sig = (int16_t)sig;
	e->result = clip(ret);
	tt_worker_drive(w, h, ret);
}

static void op_tgkill(struct worker *w, struct handle *h)
{
	struct handle *to = tt_pick_live(w);
	int sig = random_sig(w);
	uint64_t start = tt_clock_tick();
	int ret = rp_tgkill(h->t, to->tgid, to->tid, sig);
	struct event *e = tt_log_event(w, EV_TGKILL);

	e->start = start;
	e->end = tt_clock_tick();
	e->a = h->tgid;
	e->b = to->tid;
	e->c = to->tgid;
	e->sig = (int16_t)sig;
	e->result = clip(ret);
	tt_worker_drive(w, h, ret);
}

static void op_sigaction(struct worker *w, struct handle *h)
{
	tt_set_handler(h->t, random_sig(w));
}

static void op_sigprocmask(struct worker *w, struct handle *h)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, random_sig(w));
	tt_worker_drive(w, h, rp_sigprocmask(h->t, rng_below(w, 2) ? SIG_BLOCK : SIG_UNBLOCK,
					  &set, NULL));
}

/* The tracee's side of a ptrace op: it traps, then runs on once detached. */
struct tracee_run {
	struct handle *h;
	int sig;
	siginfo_t info;
};

static void *tracee_thread(void *arg)
{
	struct tracee_run *run = arg;

	rp_thread_register();
	run->sig = rp_get_signal(run->h->t, &run->info);
	rp_thread_unregister();
	return NULL;
}

/*
 * PTRACE_SEIZE another process of ours, make it trap (PTRACE_INTERRUPT, a
 * thread of our own plays the tracee), wait for the stop, PTRACE_DETACH.
 */
static void op_ptrace(struct worker *w, struct handle *h)
{
	struct handle *to = tt_pick_live(w);
	struct tracee_run run = { .h = to };
	pthread_t thread;
	int status, ret;
	uint64_t start;

	/* A thread an exit_group or exec has killed dies here, not as a tracee. */
	if (to->tgid == h->tgid || !tt_worker_drive(w, to, tt_drain(w, to)))
		return;
	start = tt_clock_tick();
	if (rp_ptrace(h->t, PTRACE_SEIZE, to->tid, NULL, NULL) != 0)
		return;
	rp_ptrace(h->t, PTRACE_INTERRUPT, to->tid, NULL, NULL);
	if (pthread_create(&thread, NULL, tracee_thread, &run))
		abort();
	/* A signal to the tracer may cut the wait short: take it and wait again. */
	do
		ret = rp_wait4(h->t, to->tid, &status, __WALL, NULL);
	while (ret < 0 && ret != -ECHILD && tt_drain(w, h) >= 0);
	rp_ptrace(h->t, PTRACE_DETACH, to->tid, NULL, NULL);
	tt_log_trace(w, h->tgid, to->tid, start);
	tt_join_offline(thread);
	if (run.sig > 0)
		tt_log_recv(w, to, run.sig, &run.info);
	tt_worker_drive(w, to, run.sig);
}

int tt_worker_setup(struct worker *w, struct rp_task *root)
{
	int ret = rp_prctl(root, PR_SET_CHILD_SUBREAPER, 1);

	if (ret == 0) {
		w->root = rp_getpid(root);
		tt_add_handle(w, root, w->root, w->root);
	}
	return ret;
}

/* Draw an operation by weight. */
static enum op_kind pick_op(struct worker *w)
{
	unsigned int total = 0, r;
	int k;

	for (k = 0; k < OP_NR; k++)
		total += w->cfg->weights[k];
	r = rng_below(w, total);
	for (k = 0; r >= w->cfg->weights[k]; k++)
		r -= w->cfg->weights[k];
	return (enum op_kind)k;
}

/* Does @w drive its share of --procs (and two more) already: no new task then. */
bool tt_worker_full(const struct worker *w)
{
	return w->nh >= w->cfg->procs / w->cfg->threads + 2;
}

/* --overlap P: P percent of the operations run on the shared part of the tree. */
static bool shared_turn(struct worker *w)
{
	return w->cfg->overlap_given && w->cfg->overlap && rng_below(w, 100) < w->cfg->overlap;
}

void tt_worker_run_op(struct worker *w)
{
	enum op_kind k = shared_turn(w) ? OP_HOT : pick_op(w);
	struct handle *h = tt_pick_live(w);

	if (tt_worker_full(w) && (k == OP_FORK || k == OP_CLONE))
		k = OP_EXIT_GROUP;
	switch (k) {
	case OP_FORK: op_fork(w, h); break;
	case OP_CLONE: op_clone(w, h); break;
	case OP_EXIT: op_exit(w, h, false); break;
	case OP_EXIT_GROUP: op_exit(w, h, true); break;
	case OP_EXEC: tt_op_exec(w, h, false); break;
	case OP_TRACE_EXEC: tt_op_exec(w, h, true); break;
	case OP_CLAIM: tt_op_claim(w, h); break;
	case OP_EXEC_KILL_ALL: tt_op_exec_kill_all(w, h); break;
	case OP_INIT_EXEC: tt_op_init_exec(w); break;
	case OP_HOT: tt_op_hot(w, h); break;
	case OP_MT: tt_op_mt(w, h); break;
	case OP_NS: tt_op_ns(w, h); break;
	case OP_FORK_GROUP: tt_op_fork_group(w, h); break;
	case OP_SETPGID_TIE: tt_op_setpgid_tie(w, h); break;
	case OP_WAIT4: op_wait(w, h, false); break;
	case OP_WAITID: op_wait(w, h, true); break;
	case OP_KILL: op_kill(w, h); break;
	case OP_TGKILL: op_tgkill(w, h); break;
	case OP_PTRACE: op_ptrace(w, h); break;
	case OP_SIGACTION: op_sigaction(w, h); break;
	case OP_SIGPROCMASK: op_sigprocmask(w, h); break;
	case OP_DRAIN: op_drain(w, h); break;
	case OP_STOP: tt_op_stop(w, h); break;
	case OP_TRACE_REAP: tt_op_trace_reap(w, h); break;
	default: tt_run_group_op(w, k, h); break;
	}
	w->ops[k]++;
	uatomic_inc(&w->done_ops);
}

/* Reap every child of @h until none is left, logging each. */
void tt_reap_all(struct worker *w, struct handle *h)
{
	uint64_t start = tt_clock_tick();
	int status, ret;

	while ((ret = rp_wait4(h->t, -1, &status, 0, NULL)) != -ECHILD) {
		tt_log_wait(w, h, -1, start, ret);
		if (ret <= 0 && tt_drain(w, h) < 0)
			return;
		start = tt_clock_tick();
	}
	tt_log_wait(w, h, -1, start, ret);
}

/*
 * End every process but the root, let the root (their subreaper) reap them
 * all, then end the root; its parent reaps it.
 */
void tt_worker_teardown(struct worker *w)
{
	for (unsigned int i = w->nh; i-- > 0;) {
		if (is_root_leader(w, &w->h[i]))
			continue;
		if (w->h[i].tgid != w->root)
			rp_exit_group(w->h[i].t, 0);
		else
			rp_exit(w->h[i].t, 0);
		tt_drop_handle(w, i);
	}
	if (!w->nh)
		return;		/* the root died: init reaps what it leaves */
	tt_reap_all(w, &w->h[0]);
	rp_exit_group(w->h[0].t, 0);
	tt_drop_handle(w, 0);
}
