/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rcuproc side of the oracle: the same steps as rcuproc calls, each
 * process driven by this thread through its struct rp_task handle.
 *
 * Returning to user space is rp_get_signal(): after its own call a task runs
 * it first (so a signal it sent itself, or unblocked, acts before the call
 * "returns", as on Linux), then every live task runs it until nothing is left
 * (the settling the real driver does by pinging its puppets).  A signal with a
 * handler is recorded, as the puppet's handler records it.
 *
 * rp_get_signal sleeps while its task is stopped (a group stop, a ptrace
 * stop), so each task returns to user space on a thread of its own (its
 * worker), and the driver waits for the worker's round to end or for the
 * task to be stopped, as the real driver waits for a reply or a stop.  A
 * stopped task's worker goes on by itself once someone resumes it; the
 * driver meets it again at the next settling.  A task's record (exited,
 * caught, last) is written under its worker's lock, by the worker, or by
 * the driver while the worker is idle; read under the same lock.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/snapshot.h>
#include <rcuproc/timers.h>
#include <rcuproc/tty.h>
#include "oracle.h"

struct rcu_worker {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long asked, answered;	/* rounds of returning to user space */
	bool delivered;			/* since the driver last looked */
	bool quit;
	/* A call to make before the round, set by the driver while it is idle: */
	const struct or_step *step;
	long arg[3];
	bool called;			/* the call returned: its answer is in */
	long ret;			/* its result or -errno, */
	struct or_reply reply;		/* and what it filled in */
	struct rcu_run *run;		/* what it works on: */
	int index;			/* its task's name */
};

struct rcu_run {
	struct rp_system *sys;
	struct rp_task *init;
	struct rp_tty *tty;		/* the terminal of the OP_TIOC* steps */
	struct rp_task *task[OR_MAX_PROCS];
	struct rcu_worker worker[OR_MAX_PROCS];
	bool exited[OR_MAX_PROCS];
	int fork_err[OR_MAX_PROCS];	/* why a name has no task: rp_fork's errno */
	int ncaught[OR_MAX_PROCS];
	int caught[OR_MAX_PROCS][OR_MAX_SIGS];
	siginfo_t last[OR_MAX_PROCS];	/* the siginfo of the last one caught */
	struct or_pidmap map;
	struct rp_pidns *ns[OR_MAX_PROCS * OR_MAX_LEVELS];	/* the namespaces of */
	int nns;			/* the places, held: their handles stay theirs */
	struct rp_pidns *root_ns;	/* init's */
	bool failed;			/* a process could not be placed, or hung */
	int hung;			/* the process that neither finished a settling
					   round nor stopped in it; -1: none */
};

/* Installed as the handler; rcuproc hands the signal back instead of calling it. */
static void rcu_handler(int sig)
{
	(void)sig;
}

static bool rcu_live(struct rcu_run *run, int i)
{
	struct rcu_worker *w = &run->worker[i];
	bool live;

	if (!run->task[i])
		return false;
	pthread_mutex_lock(&w->lock);
	live = !run->exited[i];
	pthread_mutex_unlock(&w->lock);
	return live;
}

/*
 * @i returns to user space (its worker): true if a signal was delivered (or
 * killed it).  Linux gives every signal it dequeues on one return to user
 * space a frame of its own before any handler runs (the puppets' handlers
 * block no other signal), each frame on top of the one before: the handlers
 * run last-dequeued first, and the last to run is the first dequeued.  The
 * record takes them in that order.
 */
static bool rcu_return_to_user(struct rcu_run *run, int i)
{
	struct rcu_worker *w = &run->worker[i];
	int frames[2 * OR_NSIG], nframes = 0;
	siginfo_t info, first;
	bool any = false, exited = false;

	for (int n = 0; rcu_live(run, i) && n < 2 * OR_NSIG; n++) {
		int sig = rp_get_signal(run->task[i], &info);

		if (sig == 0 || (sig < 0 && sig != -ESRCH))
			break;	/* nothing left (or not implemented) */
		any = true;
		if (sig == -ESRCH) {
			exited = true;
			break;
		}
		if (nframes == 0)
			first = info;
		frames[nframes++] = sig;
	}
	pthread_mutex_lock(&w->lock);
	if (exited)
		run->exited[i] = true;
	if (nframes)
		run->last[i] = first;
	while (nframes && run->ncaught[i] < OR_MAX_SIGS)
		run->caught[i][run->ncaught[i]++] = frames[--nframes];
	pthread_mutex_unlock(&w->lock);
	return any;
}

static long rcu_call(struct rcu_run *run, const struct or_step *s, const long *arg,
		     struct or_reply *r);

/* Make the call the driver left (it may stop inside, as exit for its tracer). */
static void rcu_worker_call(struct rcu_worker *w)
{
	const struct or_step s = *w->step;	/* the driver's copy may go meanwhile */
	struct or_reply r;
	long ret;

	memset(&r, 0, sizeof(r));
	ret = rcu_call(w->run, &s, w->arg, &r);
	pthread_mutex_lock(&w->lock);
	if ((s.op == OP_EXIT || s.op == OP_THREAD_EXIT) && ret == 0)
		w->run->exited[w->index] = true;
	w->ret = ret;
	w->reply = r;
	w->called = true;
	w->step = NULL;
	pthread_mutex_unlock(&w->lock);
}

static void *rcu_worker_main(void *arg)
{
	struct rcu_worker *w = arg;
	struct rcu_run *run = w->run;
	int i = w->index;
	bool any;

	rp_thread_register();
	pthread_mutex_lock(&w->lock);
	for (;;) {
		rp_thread_offline();	/* away from rcuproc while it waits */
		while (w->asked == w->answered && !w->quit)
			pthread_cond_wait(&w->cond, &w->lock);
		rp_thread_online();
		if (w->asked == w->answered)
			break;		/* quit, nothing asked */
		pthread_mutex_unlock(&w->lock);
		if (w->step)	/* written before asked, under the lock */
			rcu_worker_call(w);
		any = rcu_return_to_user(run, i);
		pthread_mutex_lock(&w->lock);
		w->delivered |= any;
		w->answered = w->asked;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	rp_thread_unregister();
	return NULL;
}

/* A worker for new task @i (the driver's thread is the only one that starts them). */
static void rcu_worker_start(struct rcu_run *run, int i)
{
	struct rcu_worker *w = &run->worker[i];

	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->run = run;
	w->index = i;
	w->started = pthread_create(&w->thread, NULL, rcu_worker_main, w) == 0;
}

/*
 * @i's own state as /proc/PID/stat says it (T, t, ...; 0 if gone), a
 * thread's too: the process listing has only each process's leader.
 */
static char rcu_state(struct rcu_run *run, int i)
{
	int state = rp_proc_state(run->init, run->map.pid[i]);

	return state > 0 ? (char)state : 0;
}

/*
 * @i is in a ptrace stop (t): it tells its tracer just after, and the
 * tracer's requests wait until it has (as Linux's wait for the tracee to
 * sleep).  A request that changes nothing, PTRACE_GETEVENTMSG, made as
 * every other task (all but the tracer's answer ESRCH at once) waits for
 * that here, so that the step after a ptrace stop finds its notice sent,
 * however late the stopped task's thread runs.
 */
static void rcu_await_told(struct rcu_run *run, int i)
{
	unsigned long msg;

	for (int k = 0; k < OR_MAX_PROCS; k++)
		if (k != i && rcu_live(run, k))
			rp_ptrace(run->task[k], PTRACE_GETEVENTMSG, run->map.pid[i], NULL, &msg);
}

/* Is process @i stopped (T or t), its stop told if it is a ptrace stop? */
static bool rcu_stopped(struct rcu_run *run, int i)
{
	char state = rcu_state(run, i);

	if (state == 't')
		rcu_await_told(run, i);
	return state == 'T' || state == 't';
}

/*
 * Wait until @i's worker has answered every round asked, or @i is stopped:
 * true if it is idle (done), false if it is stopped (or hung: reported as
 * OR_TIMEOUT by the step).  The driver is offline while it sleeps: a
 * grace period the worker waits for must not wait for it.
 */
static bool rcu_worker_wait(struct rcu_run *run, int i, bool *hung)
{
	struct rcu_worker *w = &run->worker[i];
	struct timespec until;
	bool idle;

	for (int ms = 0; ms < OR_HANG_MS; ms++) {
		pthread_mutex_lock(&w->lock);
		idle = w->asked == w->answered;
		if (!idle) {
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_nsec += 1000000L;
			if (until.tv_nsec >= 1000000000L) {
				until.tv_sec++;
				until.tv_nsec -= 1000000000L;
			}
			rp_thread_offline();
			pthread_cond_timedwait(&w->cond, &w->lock, &until);
			rp_thread_online();
			idle = w->asked == w->answered;
		}
		pthread_mutex_unlock(&w->lock);
		if (idle)
			return true;
		if (rcu_stopped(run, i))
			return false;
	}
	*hung = true;
	return false;
}

/* Is @i's worker in a round (stopped in it, or running after a resume)? */
static bool rcu_worker_busy(struct rcu_worker *w)
{
	bool busy;

	pthread_mutex_lock(&w->lock);
	busy = w->asked != w->answered;
	pthread_mutex_unlock(&w->lock);
	return busy;
}

/*
 * @i makes call @s (NULL: none) and returns to user space: a new round
 * unless it is still in one; then wait for the round's end or a stop.  Returns OR_OK, OR_STOPPED or
 * OR_TIMEOUT; *@delivered: a signal was delivered since the last look.
 */
static int rcu_user_round(struct rcu_run *run, int i, const struct or_step *s,
			  const long *arg, bool *delivered)
{
	struct rcu_worker *w = &run->worker[i];
	bool hung = false, idle;

	pthread_mutex_lock(&w->lock);
	if (w->asked == w->answered) {
		w->step = s;
		if (s)
			memcpy(w->arg, arg, sizeof(w->arg));
		w->called = false;
		w->asked++;
		pthread_cond_broadcast(&w->cond);
	}
	pthread_mutex_unlock(&w->lock);
	idle = rcu_worker_wait(run, i, &hung);
	pthread_mutex_lock(&w->lock);
	*delivered = w->delivered;
	w->delivered = false;
	pthread_mutex_unlock(&w->lock);
	return idle ? OR_OK : hung ? OR_TIMEOUT : OR_STOPPED;
}

/*
 * A settling round of @i.  One that reaches the hang bound is a hang, never
 * a settled state: it ends the run (or_run_rcuproc reports it), and later
 * settlings leave @i to its end (rcu_end), not to wait the bound again.
 */
static bool rcu_settle_one(void *arg, int i)
{
	struct rcu_run *run = arg;
	bool delivered = false;

	if (rcu_live(run, i) && run->worker[i].started && run->hung != i &&
	    rcu_user_round(run, i, NULL, NULL, &delivered) == OR_TIMEOUT && run->hung < 0) {
		run->hung = i;
		run->failed = true;
	}
	return delivered;
}

static long rcu_sigaction(struct rp_task *self, long sig, long act)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = act == ACT_IGN ? SIG_IGN : or_act_catches(act) ? rcu_handler : SIG_DFL;
	sa.sa_flags = or_act_flags(act);
	return rp_sigaction(self, (int)sig, &sa, NULL);
}

static long rcu_sigprocmask(struct rp_task *self, long how, long sig)
{
	sigset_t set;

	sigemptyset(&set);
	if (sig)
		sigaddset(&set, (int)sig);
	return rp_sigprocmask(self, (int)how, &set, NULL);
}

/* tcgetpgrp(3): the foreground group, or -errno. */
static long rcu_tcgetpgrp(struct rp_task *self, struct rp_tty *tty)
{
	pid_t pgrp;
	int ret = rp_tty_ioctl(self, tty, TIOCGPGRP, &pgrp);

	return ret ? ret : pgrp;
}

static long rcu_waitid(struct rp_task *self, const long *arg, struct or_reply *r)
{
	siginfo_t si;
	long ret;

	memset(&si, 0, sizeof(si));
	ret = rp_waitid(self, (idtype_t)arg[0], (id_t)arg[1], &si, (int)arg[2] | WNOHANG);
	or_reply_siginfo(r, &si);
	return ret;
}

/*
 * Where the task init numbers @pid is: rp_proc_nspid as init, and each
 * level's namespace from its handle up by rp_pidns_parent, held.  0, or -1
 * if it cannot be told.
 */
static int rcu_place(struct rcu_run *run, pid_t pid, struct or_place *pl)
{
	struct rp_pidns *ns, *up;
	int n = rp_proc_nspid(run->init, pid, pl->nr, OR_MAX_LEVELS);

	if (n <= 0 || n > OR_MAX_LEVELS || rp_pidns_open(run->init, pid, 0, &ns))
		return -1;
	for (int l = n - 1; l >= 0; l--) {
		if (run->nns == OR_MAX_PROCS * OR_MAX_LEVELS) {
			rp_pidns_put(ns);
			return -1;
		}
		run->ns[run->nns++] = ns;
		pl->ns[l] = (uintptr_t)ns;
		if (l == 0)
			break;
		if (rp_pidns_parent(run->init, ns, &up))
			return -1;
		ns = up;
	}
	pl->levels = n;
	return pl->ns[0] == (uintptr_t)run->root_ns ? 0 : -1;
}

/*
 * Init's number of the child that @who's clone numbered @ret (@who -1:
 * init's own clone): @ret unless @who is in a namespace below; then @who's child that no name has yet, in
 * init's listing (a thread there is not supported: 0).
 */
static pid_t rcu_child_pid(struct rcu_run *run, int who, unsigned long flags, long ret)
{
	struct rp_ps_entry ps[4 * OR_MAX_PROCS];
	long n;

	if (who < 0 || run->map.place[who].levels <= 1)
		return (pid_t)ret;
	if (flags & CLONE_THREAD)
		return 0;
	n = rp_ps_snapshot(run->init, ps, 4 * OR_MAX_PROCS);
	for (long k = 0; k < n && k < 4 * OR_MAX_PROCS; k++) {
		bool named = false;

		for (int i = 0; i < OR_MAX_PROCS; i++)
			named |= run->map.pid[i] == ps[k].pid;
		if (ps[k].ppid == run->map.pid[who] && !named)
			return ps[k].pid;
	}
	return 0;
}

static long rcu_clone(struct rcu_run *run, int who, struct rp_task *self, int child,
		      unsigned long flags)
{
	long ret = rp_clone(self, flags, &run->task[child]);

	if (ret > 0) {
		run->map.pid[child] = rcu_child_pid(run, who, flags, ret);
		if (!run->map.pid[child] ||
		    rcu_place(run, run->map.pid[child], &run->map.place[child])) {
			fprintf(stderr, "oracle: cannot tell where P%d (pid %ld to its parent) is\n",
				child, ret);
			run->failed = true;
		}
		rcu_worker_start(run, child);
	} else
		run->fork_err[child] = (int)-ret;
	return ret;
}

/* The new program has handlers of its own: the record starts again. */
static long rcu_exec(struct rcu_run *run, int who)
{
	struct rcu_worker *w = &run->worker[who];
	long ret = rp_execve(run->task[who], "puppet");

	pthread_mutex_lock(&w->lock);
	if (ret == 0) {
		run->ncaught[who] = 0;
		memset(&run->last[who], 0, sizeof(run->last[who]));
	}
	pthread_mutex_unlock(&w->lock);
	return ret;
}

/* The signals @who caught, and the last one's siginfo. */
static void rcu_record(struct rcu_run *run, int who, struct or_reply *r)
{
	struct rcu_worker *w = &run->worker[who];

	pthread_mutex_lock(&w->lock);
	r->nsigs = run->ncaught[who];
	memcpy(r->sigs, run->caught[who], sizeof(r->sigs));
	or_reply_siginfo(r, &run->last[who]);
	pthread_mutex_unlock(&w->lock);
}

/* ptrace as the puppet makes it (real.c's puppet_ptrace). */
static long rcu_ptrace(struct rp_task *self, const long *arg, struct or_reply *r)
{
	void *data = arg[0] == PTRACE_GETEVENTMSG ? (void *)&r->msg : (void *)arg[2];
	siginfo_t si;
	long ret;

	if (arg[0] != PTRACE_GETSIGINFO && arg[0] != PTRACE_SETSIGINFO)
		return rp_ptrace(self, arg[0], (pid_t)arg[1], NULL, data);
	memset(&si, 0, sizeof(si));
	ret = rp_ptrace(self, PTRACE_GETSIGINFO, (pid_t)arg[1], NULL, &si);
	if (ret || arg[0] == PTRACE_GETSIGINFO) {
		or_reply_siginfo(r, &si);
		return ret;
	}
	si.si_signo = (int)arg[2];
	si.si_code = SI_QUEUE;
	return rp_ptrace(self, PTRACE_SETSIGINFO, (pid_t)arg[1], NULL, &si);
}

static long rcu_timer_create(struct rp_task *self, long sig)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = (int)sig };
	int id;
	long ret = rp_timer_create(self, CLOCK_PROCESS_CPUTIME_ID, &sev, &id);

	return ret ? ret : id;
}

static long rcu_timer_set(struct rp_task *self, const long *arg)
{
	struct itimerspec its = {
		{ arg[2] / 1000000000L, arg[2] % 1000000000L },
		{ arg[1] / 1000000000L, arg[1] % 1000000000L },
	};

	return rp_timer_settime(self, (int)arg[0], TIMER_ABSTIME, &its, NULL);
}

static long rcu_sigpending(struct rp_task *self, struct or_reply *r)
{
	uint64_t set = 0;
	sigset_t ss;
	long ret = rp_sigpending(self, &ss);

	memcpy(&set, &ss, sizeof(set));
	or_reply_sigset(r, set);
	return ret;
}

/* setns(2) with the handle of the process init numbers @pid (as /proc/PID/ns/pid, or
 * pid_for_children, opened through the root's /proc). */
static long rcu_setns(struct rcu_run *run, struct rp_task *self, pid_t pid, long for_children)
{
	struct rp_pidns *ns;
	long ret = rp_pidns_open(run->init, pid, (int)for_children, &ns);

	if (ret)
		return ret;
	ret = rp_setns(self, ns, CLONE_NEWPID);
	rp_pidns_put(ns);
	return ret;
}

static long rcu_children_cpu(struct rp_task *self)
{
	struct rusage ru;
	long ret = rp_getrusage(self, RUSAGE_CHILDREN, &ru);

	return ret ? ret : or_rusage_ns(&ru);
}

/* The call itself: the syscall's result or -errno. */
static long rcu_call(struct rcu_run *run, const struct or_step *s, const long *arg,
		     struct or_reply *r)
{
	struct rp_task *self = run->task[s->who];
	long ret;

	switch (s->op) {
	case OP_FORK:
		return rcu_clone(run, s->who, self, (int)s->a, SIGCHLD);
	case OP_CLONE:
		return rcu_clone(run, s->who, self, (int)s->a, (unsigned long)s->b);
	case OP_THREAD:
		return rcu_clone(run, s->who, self, (int)s->a,
				 CLONE_THREAD | CLONE_SIGHAND | CLONE_VM);
	case OP_THREAD_EXIT:
		return rp_exit(self, (int)arg[0]);
	case OP_EXIT:
		return rp_exit_group(self, (int)arg[0]);
	case OP_EXEC:
		return rcu_exec(run, s->who);
	case OP_WAIT4:
		return rp_wait4(self, (pid_t)arg[0], &r->status, (int)arg[1] | WNOHANG, NULL);
	case OP_WAITID:
		return rcu_waitid(self, arg, r);
	case OP_KILL:
		return rp_kill(self, (pid_t)arg[0], (int)arg[1]);
	case OP_TGKILL:
		return rp_tgkill(self, (pid_t)arg[0], (pid_t)arg[1], (int)arg[2]);
	case OP_SIGACTION:
		return rcu_sigaction(self, arg[0], arg[1]);
	case OP_SIGPROCMASK:
		return rcu_sigprocmask(self, arg[0], arg[1]);
	case OP_SETRESUID:
		return rp_setresuid(self, (uid_t)arg[0], (uid_t)arg[1], (uid_t)arg[2]);
	case OP_PRCTL:
		return rp_prctl(self, (int)arg[0], (unsigned long)arg[1]);
	case OP_SETPGID:
		return rp_setpgid(self, (pid_t)arg[0], (pid_t)arg[1]);
	case OP_IOPRIO_SET:
		return rp_ioprio_set(self, (int)arg[0], (int)arg[1], (int)arg[2]);
	case OP_IOPRIO_GET:
		return rp_ioprio_get(self, (int)arg[0], (int)arg[1]);
	case OP_SETRLIMIT:
		return rp_setrlimit(self, (int)arg[0], &(struct rlimit){ (rlim_t)arg[1], (rlim_t)arg[1] });
	case OP_GETPID:
		return rp_getpid(self);
	case OP_SETSID:
		return rp_setsid(self);
	case OP_TIOCSCTTY:
		return rp_tty_ioctl(self, run->tty, TIOCSCTTY, (void *)0L);
	case OP_TIOCSPGRP:
		return rp_tty_ioctl(self, run->tty, TIOCSPGRP, &(pid_t){ (pid_t)arg[0] });
	case OP_TIOCNOTTY:
		return rp_tty_ioctl(self, run->tty, TIOCNOTTY, NULL);
	case OP_TIOCGPGRP:
		return rcu_tcgetpgrp(self, run->tty);
	case OP_GETPPID:
		return rp_getppid(self);
	case OP_SIGS:
	case OP_SIGINFO:
		rcu_record(run, s->who, r);
		return 0;
	case OP_PTRACE:
		return rcu_ptrace(self, arg, r);
	case OP_BURN:
		return rp_account_cpu(self, (uint64_t)arg[0], 0);
	case OP_TIMER_CREATE:
		return rcu_timer_create(self, arg[0]);
	case OP_TIMER_SET:
		return rcu_timer_set(self, arg);
	case OP_TIMER_GETOVERRUN:
		return rp_timer_getoverrun(self, (int)arg[0]);
	case OP_TIMER_DELETE:
		return rp_timer_delete(self, (int)arg[0]);
	case OP_SIGPENDING:
		return rcu_sigpending(self, r);
	case OP_CHILDREN_CPU:
		return rcu_children_cpu(self);
	case OP_UNSHARE:
		return rp_unshare(self, (unsigned long)arg[0]);
	case OP_SETNS:
		return rcu_setns(run, self, run->map.pid[s->a], arg[1]);
	case OP_NSPID:
		r->nspids = rp_proc_nspid(self, (pid_t)arg[0], r->nspid, OR_MAX_LEVELS);
		return r->nspids < 0 ? r->nspids : 0;
	case OP_ATTACH_POLL:
		ret = rp_ptrace(self, arg[0], (pid_t)arg[1], NULL, NULL);
		return ret ? ret : rp_wait4(self, (pid_t)arg[1], &r->status, __WALL | WNOHANG, NULL);
	default:
		return -EINVAL;
	}
}

/*
 * One step: @who makes the call and returns to user space, both on its
 * worker (its task may stop in either: exit stops for a tracer that asked,
 * a traced fork reports its event on the way out).  A stopped task answers
 * nothing, as a stopped process cannot: the step says so.
 */
static void rcu_step(struct rcu_run *run, const struct or_step *s, struct or_reply *r)
{
	struct rcu_worker *w = &run->worker[s->who];
	struct or_pidmap view;
	bool delivered;
	long arg[3];
	int how;

	memset(r, 0, sizeof(*r));
	if (!rcu_live(run, s->who)) {
		r->how = OR_NOPROC;
		r->err = run->fork_err[s->who];
		return;
	}
	if (rcu_worker_busy(w)) {
		r->how = OR_STOPPED;	/* settling left it stopped */
		return;
	}
	or_view(&run->map, s->who, &view);
	or_resolve_args(s, &view, arg);
	how = rcu_user_round(run, s->who, s, arg, &delivered);
	pthread_mutex_lock(&w->lock);
	if (w->called) {
		*r = w->reply;
		r->ret = w->ret < 0 ? -1 : w->ret;
		r->err = w->ret < 0 ? (int)-w->ret : 0;
	}
	pthread_mutex_unlock(&w->lock);
	if (s->op == OP_EXIT || s->op == OP_THREAD_EXIT) {
		if (how != OR_OK)
			r->how = how;	/* stopped for its tracer on the way out */
		return;
	}
	if (!rcu_live(run, s->who))
		r->how = OR_KILLED;
	else if (how != OR_OK)
		r->how = how;	/* stopped before the answer reached user space */
}

static void rcu_setup(struct rcu_run *run, enum rp_sync_mode mode)
{
	memset(run, 0, sizeof(*run));
	run->hung = -1;
	if (rp_system_create(&(struct rp_system_opts){ .mode = mode }, &run->sys))
		return;
	run->init = rp_system_init(run->sys);
	run->map.ext = rp_getpid(run->init);
	if (rp_pidns_open(run->init, run->map.ext, 0, &run->root_ns))
		run->failed = true;
	if (rp_tty_create(run->sys, &run->tty))
		return;
	if (rcu_clone(run, -1, run->init, P0, SIGCHLD) > 0)
		rp_prctl(run->task[P0], PR_SET_CHILD_SUBREAPER, 1);
}

/* Reap what @reaper can reap now. */
static void rcu_reap(struct rp_task *reaper)
{
	int st;

	for (int n = 0; n < 4 * OR_MAX_PROCS; n++)
		if (rp_wait4(reaper, -1, &st, WNOHANG | __WALL, NULL) <= 0)
			return;
}

/*
 * End @i: it exits by its own call, or, stopped, is killed (it cannot call
 * anything); its worker then takes what the end leaves it.
 */
static void rcu_end(struct rcu_run *run, int i)
{
	const struct or_step exit0 = { i, OP_EXIT, 0, 0, 0 };
	const long arg[3] = { 0, 0, 0 };
	bool delivered;

	or_settle(run, rcu_settle_one);
	if (!rcu_live(run, i))
		return;
	if (rcu_worker_busy(&run->worker[i])) {
		rp_kill(run->init, run->map.pid[i], SIGKILL);
		rcu_user_round(run, i, NULL, NULL, &delivered);
	} else if (rcu_user_round(run, i, &exit0, arg, &delivered) == OR_STOPPED) {
		/* Stopped in its exit for its tracer: the kill ends the stop. */
		rp_kill(run->init, run->map.pid[i], SIGKILL);
		rcu_user_round(run, i, NULL, NULL, &delivered);
	}
}

/* End the worker threads: each task has exited or been released. */
static void rcu_workers_quit(struct rcu_run *run)
{
	for (int i = 0; i < OR_MAX_PROCS; i++) {
		struct rcu_worker *w = &run->worker[i];

		if (!w->started)
			continue;
		pthread_mutex_lock(&w->lock);
		w->quit = true;
		pthread_cond_broadcast(&w->cond);
		pthread_mutex_unlock(&w->lock);
		rp_thread_offline();	/* a worker's last grace period must not wait for us */
		pthread_join(w->thread, NULL);
		rp_thread_online();
		pthread_cond_destroy(&w->cond);
		pthread_mutex_destroy(&w->lock);
	}
}

/* End every task, reap them all, and count what is left. */
static void rcu_teardown(struct rcu_run *run, struct rp_system_counts *left)
{
	siginfo_t info;

	for (int i = OR_MAX_PROCS - 1; i > P0; i--)
		rcu_end(run, i);
	or_settle(run, rcu_settle_one);
	if (rcu_live(run, P0))
		rcu_reap(run->task[P0]);
	rcu_end(run, P0);
	rcu_workers_quit(run);
	rcu_reap(run->init);
	/* Init's pending SIGCHLDs hold queued siginfo: let it take them. */
	for (int n = 0; n < 2 * OR_NSIG; n++)
		if (rp_get_signal(run->init, &info) <= 0)
			break;
	for (int i = 0; i < OR_MAX_PROCS; i++)
		if (run->task[i])
			rp_task_put(run->task[i]);
	for (int i = 0; i < run->nns; i++)
		rp_pidns_put(run->ns[i]);
	if (run->root_ns)
		rp_pidns_put(run->root_ns);
	rp_task_put(run->init);
	if (run->tty)
		rp_tty_destroy(run->tty);
	rp_deferred_barrier();
	rp_system_counts(run->sys, left);
	rp_system_destroy(run->sys);
}

/*
 * Answer @step says first that @i hung after it (neither returned to user
 * space nor stopped), so that no cut at OR_RESULT_LEN hides that.
 */
static void rcu_say_hung(char *step, int i)
{
	char answer[OR_RESULT_LEN];

	memcpy(answer, step, OR_RESULT_LEN);
	snprintf(step, OR_RESULT_LEN, "then P%d hung; %.100s", i, answer);
}

void or_run_rcuproc(const struct or_scenario *sc, enum rp_sync_mode mode,
		    struct or_results *res, struct rp_system_counts *left)
{
	struct rcu_run run;
	struct or_pidmap view;
	struct or_reply r;
	int i;

	memset(res, 0, sizeof(*res));
	memset(left, 0, sizeof(*left));
	rp_thread_register();
	rcu_setup(&run, mode);
	if (!run.sys) {
		rp_thread_unregister();
		return;
	}
	/*
	 * A process that cannot be placed, or hangs in the settling after a
	 * step (said in that step's answer), ends the run: the rest read "not run".
	 */
	for (i = 0; !run.failed && sc->steps[i].op != OP_END && i < OR_MAX_STEPS; i++) {
		rcu_step(&run, &sc->steps[i], &r);
		or_settle(&run, rcu_settle_one);
		or_view(&run.map, sc->steps[i].who, &view);
		or_format(&sc->steps[i], &r, &view, res->step[i], OR_RESULT_LEN);
		if (run.hung >= 0)
			rcu_say_hung(res->step[i], run.hung);
	}
	res->n = i;
	rcu_teardown(&run, left);
	rp_thread_unregister();
}
