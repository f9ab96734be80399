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
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/tty.h>
#include "oracle.h"

struct rcu_run {
	struct rp_system *sys;
	struct rp_task *init;
	struct rp_tty *tty;		/* the terminal of the OP_TIOC* steps */
	struct rp_task *task[OR_MAX_PROCS];
	bool exited[OR_MAX_PROCS];
	int fork_err[OR_MAX_PROCS];	/* why a name has no task: rp_fork's errno */
	int ncaught[OR_MAX_PROCS];
	int caught[OR_MAX_PROCS][OR_MAX_SIGS];
	siginfo_t last[OR_MAX_PROCS];	/* the siginfo of the last one caught */
	struct or_pidmap map;
};

/* Installed as the handler; rcuproc hands the signal back instead of calling it. */
static void rcu_handler(int sig)
{
	(void)sig;
}

static bool rcu_live(const struct rcu_run *run, int i)
{
	return run->task[i] && !run->exited[i];
}

/* @i returns to user space: true if a signal was delivered (or killed it). */
static bool rcu_return_to_user(struct rcu_run *run, int i)
{
	bool any = false;
	siginfo_t info;

	for (int n = 0; rcu_live(run, i) && n < 2 * OR_NSIG; n++) {
		int sig = rp_get_signal(run->task[i], &info);

		if (sig == -ESRCH)
			run->exited[i] = true;
		if (sig == 0 || (sig < 0 && sig != -ESRCH))
			break;	/* nothing left (or not implemented) */
		any = true;
		if (sig > 0)
			run->last[i] = info;
		if (sig > 0 && run->ncaught[i] < OR_MAX_SIGS)
			run->caught[i][run->ncaught[i]++] = sig;
	}
	return any;
}

static bool rcu_settle_one(void *run, int i)
{
	return rcu_return_to_user(run, i);
}

static long rcu_sigaction(struct rp_task *self, long sig, long act)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = act == ACT_IGN ? SIG_IGN : act == ACT_HANDLER ? rcu_handler : SIG_DFL;
	sa.sa_flags = act == ACT_NOCLDWAIT ? SA_NOCLDWAIT : act == ACT_HANDLER ? SA_SIGINFO : 0;
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

static long rcu_waitid(struct rp_task *self, const long *arg, struct or_reply *r)
{
	siginfo_t si;
	long ret;

	memset(&si, 0, sizeof(si));
	ret = rp_waitid(self, (idtype_t)arg[0], (id_t)arg[1], &si, (int)arg[2] | WNOHANG);
	or_reply_siginfo(r, &si);
	return ret;
}

static long rcu_clone(struct rcu_run *run, struct rp_task *self, int child,
		      unsigned long flags)
{
	long ret = rp_clone(self, flags, &run->task[child]);

	if (ret > 0)
		run->map.pid[child] = (pid_t)ret;
	else
		run->fork_err[child] = (int)-ret;
	return ret;
}

/* The new program has handlers of its own: the record starts again. */
static long rcu_exec(struct rcu_run *run, int who)
{
	long ret = rp_execve(run->task[who], "puppet");

	if (ret == 0) {
		run->ncaught[who] = 0;
		memset(&run->last[who], 0, sizeof(run->last[who]));
	}
	return ret;
}

/* The call itself: the syscall's result or -errno. */
static long rcu_call(struct rcu_run *run, const struct or_step *s, const long *arg,
		     struct or_reply *r)
{
	struct rp_task *self = run->task[s->who];

	switch (s->op) {
	case OP_FORK:
		return rcu_clone(run, self, (int)s->a, SIGCHLD);
	case OP_CLONE:
		return rcu_clone(run, self, (int)s->a, (unsigned long)s->b);
	case OP_THREAD:
		return rcu_clone(run, self, (int)s->a, CLONE_THREAD | CLONE_SIGHAND | CLONE_VM);
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
	case OP_GETPPID:
		return rp_getppid(self);
	case OP_SIGS:
		r->nsigs = run->ncaught[s->who];
		memcpy(r->sigs, run->caught[s->who], sizeof(r->sigs));
		return 0;
	case OP_SIGINFO:
		or_reply_siginfo(r, &run->last[s->who]);
		return 0;
	default:
		return -EINVAL;
	}
}

static void rcu_step(struct rcu_run *run, const struct or_step *s, struct or_reply *r)
{
	long arg[3], ret;

	memset(r, 0, sizeof(*r));
	if (!rcu_live(run, s->who)) {
		r->how = OR_NOPROC;
		r->err = run->fork_err[s->who];
		return;
	}
	or_resolve_args(s, &run->map, arg);
	ret = rcu_call(run, s, arg, r);
	r->ret = ret < 0 ? -1 : ret;
	r->err = ret < 0 ? (int)-ret : 0;
	if (s->op == OP_EXIT || s->op == OP_THREAD_EXIT) {
		run->exited[s->who] = ret == 0;
		return;
	}
	rcu_return_to_user(run, s->who);
	if (run->exited[s->who])
		r->how = OR_KILLED;
}

static void rcu_setup(struct rcu_run *run, enum rp_sync_mode mode)
{
	memset(run, 0, sizeof(*run));
	if (rp_system_create(&(struct rp_system_opts){ .mode = mode }, &run->sys))
		return;
	run->init = rp_system_init(run->sys);
	run->map.ext = rp_getpid(run->init);
	if (rp_tty_create(run->sys, &run->tty))
		return;
	if (rcu_clone(run, run->init, P0, SIGCHLD) > 0)
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

/* End every task, reap them all, and count what is left. */
static void rcu_teardown(struct rcu_run *run, struct rp_system_counts *left)
{
	siginfo_t info;

	for (int i = OR_MAX_PROCS - 1; i > P0; i--)
		if (rcu_live(run, i))
			rp_exit_group(run->task[i], 0);
	if (rcu_live(run, P0)) {
		rcu_reap(run->task[P0]);
		rp_exit_group(run->task[P0], 0);
	}
	rcu_reap(run->init);
	/* Init's pending SIGCHLDs hold queued siginfo: let it take them. */
	for (int n = 0; n < 2 * OR_NSIG; n++)
		if (rp_get_signal(run->init, &info) <= 0)
			break;
	for (int i = 0; i < OR_MAX_PROCS; i++)
		if (run->task[i])
			rp_task_put(run->task[i]);
	rp_task_put(run->init);
	if (run->tty)
		rp_tty_destroy(run->tty);
	rp_deferred_barrier();
	rp_system_counts(run->sys, left);
	rp_system_destroy(run->sys);
}

void or_run_rcuproc(const struct or_scenario *sc, enum rp_sync_mode mode,
		    struct or_results *res, struct rp_system_counts *left)
{
	struct rcu_run run;
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
	for (i = 0; sc->steps[i].op != OP_END && i < OR_MAX_STEPS; i++) {
		rcu_step(&run, &sc->steps[i], &r);
		or_settle(&run, rcu_settle_one);
		or_format(&sc->steps[i], &r, &run.map, res->step[i], OR_RESULT_LEN);
	}
	res->n = i;
	rcu_teardown(&run, left);
	rp_thread_unregister();
}
