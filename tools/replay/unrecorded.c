/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Children strace could not follow.  A clone with CLONE_UNTRACED reports
 * no fork event to a tracer, so strace -f, which follows every other task,
 * never attaches to that child and records none of its lines; the
 * program's own tracer can seize it (a child strace follows is strace's
 * tracee already).  Such a child can be replayed only if it makes no call
 * the recording would need: it pauses with the actions and the mask it
 * inherited and takes what it is sent.
 *
 * Replay gives it a user space of its own: a thread that returns to user
 * space (rp_get_signal) until nothing is left, once per round the replay
 * asks; a handler it runs returns at once.  Its stops sleep inside a
 * round, which goes on by itself once it is resumed.  After each event the
 * replay asks a round of every such child not in one, and waits until the
 * round is over or the table shows the child stopped (T, t): what the
 * event sent it has been taken.  A signal it sends (its stops' and its
 * death's SIGCHLD) may still be on its way then; the delivery waits for
 * it.  docs/replay.md, "A child strace cannot follow".
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include "replay.h"

/* Rounds until quit; a round is the child's return to user space. */
static void *user_main(void *arg)
{
	struct replay_task *t = arg;
	struct replay_user *u = t->user;
	int sig;

	rp_thread_register();
	pthread_mutex_lock(&u->lock);
	for (;;) {
		rp_thread_offline();	/* away from rcuproc while it waits */
		while (u->asked == u->answered && !u->quit)
			pthread_cond_wait(&u->cond, &u->lock);
		rp_thread_online();
		if (u->asked == u->answered)
			break;		/* quit, nothing asked */
		pthread_mutex_unlock(&u->lock);
		/* A handler the child runs returns at once: nothing to do for it. */
		while ((sig = rp_get_signal(t->task, NULL)) > 0)
			;
		pthread_mutex_lock(&u->lock);
		u->killed |= sig == -ESRCH;
		u->answered = u->asked;
		pthread_cond_broadcast(&u->cond);
	}
	pthread_mutex_unlock(&u->lock);
	rp_thread_unregister();
	return NULL;
}

void replay_add_unrecorded(struct replay_run *run, const struct replay_event *ev,
			   struct replay_task *t)
{
	struct replay_user *u = calloc(1, sizeof(*u));

	if (!u)
		abort();
	fprintf(run->out, "note %s:%d: pid %d clones pid %d with CLONE_UNTRACED, which strace "
		"does not follow: none of its calls is recorded, so replay drives it as a child "
		"that makes none and takes what it is sent\n", run->file, ev->line, ev->pid, t->rec);
	pthread_mutex_init(&u->lock, NULL);
	pthread_cond_init(&u->cond, NULL);
	t->user = u;
	if (pthread_create(&u->thread, NULL, user_main, t))
		abort();
}

/* Ask @t for a round unless it is in one; true if its last round is over. */
static bool round_over(struct replay_task *t, bool ask)
{
	struct replay_user *u = t->user;
	bool over;

	pthread_mutex_lock(&u->lock);
	if (ask && u->asked == u->answered) {
		u->asked++;
		pthread_cond_broadcast(&u->cond);
	}
	over = u->asked == u->answered;
	t->dead |= u->killed;
	pthread_mutex_unlock(&u->lock);
	return over;
}

/* Until @t's round is over or it is stopped; false if neither comes. */
static bool settle(struct replay_run *run, struct replay_task *t)
{
	char state;

	if (round_over(t, true))
		return true;
	for (long i = 0; i < REPLAY_PATIENCE; i++) {
		if (round_over(t, false))
			return true;
		state = replay_ps_state(run, t->nr);
		if (state == 'T' || state == 't')
			return true;
		sched_yield();
	}
	return false;
}

void replay_settle_unrecorded(struct replay_run *run, const struct replay_event *ev)
{
	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *t = run->tasks[i];

		if (t->user && !t->dead && !settle(run, t))
			replay_expect(run, ev, "a child strace could not follow",
				      "done or stopped", "neither");
	}
}

/* Is @sig pending for @task?  sigpending shows only blocked ones: block all a moment. */
static bool pending(struct rp_task *task, int sig)
{
	sigset_t all, old, set;

	sigfillset(&all);
	sigemptyset(&set);
	rp_sigprocmask(task, SIG_SETMASK, &all, &old);
	rp_sigpending(task, &set);
	rp_sigprocmask(task, SIG_SETMASK, &old, NULL);
	return sigismember(&set, sig);
}

void replay_await_unrecorded_signal(struct replay_run *run, struct replay_task *t,
				    const struct replay_event *ev)
{
	struct replay_task *from = replay_task_of(run, (pid_t)(ev->info_pid_root ?
								ev->info_pid_root : ev->info_pid));

	if (!from || !from->user)
		return;
	for (long i = 0; i < REPLAY_PATIENCE && !pending(t->task, ev->sig); i++)
		sched_yield();
}

/* PTRACE_GETSIGINFO's siginfo, as strace printed it: "{si_signo=10, ...}". */
static void format_siginfo(long signo, long code, long pid, long uid, char *buf, size_t len)
{
	snprintf(buf, len, "signo %ld code %ld pid %ld uid %ld", signo, code, pid, uid);
}

static void expect_siginfo(struct replay_run *run, const struct replay_task *t,
			   const struct replay_event *ev,
			   const siginfo_t *si)
{
	long signo = 0, code = 0, pid = 0, uid = 0;
	char rec[96], got[96];
	const char *arg = ev->argc > 3 ? ev->argv[3] : "";

	replay_field(arg, "si_signo", &signo);
	replay_field(arg, "si_code", &code);
	replay_field(arg, "si_pid", &pid);
	replay_field(arg, "si_uid", &uid);
	format_siginfo(signo, code, pid, uid, rec, sizeof(rec));
	format_siginfo(si->si_signo, si->si_code, replay_pid_to_rec(run, t, si->si_pid),
		       si->si_uid, got, sizeof(got));
	replay_expect(run, ev, "siginfo", rec, got);
}

/*
 * PTRACE_GETEVENTMSG's message, strace's "[N]": an exit status here (a
 * child that makes no call reports no fork, whose message is a pid).
 */
static void expect_message(struct replay_run *run, const struct replay_event *ev,
			   unsigned long msg)
{
	long recorded = 0;
	char rec[32], got[32];

	if (ev->argc > 3 && ev->argv[3][0] == '[')
		replay_parse_long(ev->argv[3] + 1, &recorded);
	snprintf(rec, sizeof(rec), "%ld", recorded);
	snprintf(got, sizeof(got), "%lu", msg);
	replay_expect(run, ev, "message", rec, got);
}

long replay_ptrace_unrecorded(struct replay_run *run, struct replay_task *t,
			      struct replay_task *target, const struct replay_event *ev)
{
	long request = replay_arg(ev, 0), ret;
	void *data = (void *)replay_arg(ev, 3);
	pid_t nr = replay_nr_in(target, t->ns);	/* in the tracer's namespace */
	unsigned long msg;
	siginfo_t si;

	switch (request) {
	case PTRACE_ATTACH:
	case PTRACE_SEIZE:
	case PTRACE_INTERRUPT:
	case PTRACE_LISTEN:
	case PTRACE_KILL:
	case PTRACE_CONT:
	case PTRACE_DETACH:
	case PTRACE_SETOPTIONS:
		/* The data: options, or the signal to deliver. */
		return rp_ptrace(t->task, request, nr, NULL, data);
	case PTRACE_GETSIGINFO:
		memset(&si, 0, sizeof(si));
		ret = rp_ptrace(t->task, request, nr, NULL, &si);
		if (!ret)
			expect_siginfo(run, t, ev, &si);
		return ret;
	case PTRACE_GETEVENTMSG:
		ret = rp_ptrace(t->task, request, nr, NULL, &msg);
		if (!ret)
			expect_message(run, ev, msg);
		return ret;
	default:
		return replay_skip(run, ev, "a ptrace request rcuproc does not model (memory, "
				   "registers, a siginfo to set)");
	}
}

void replay_end_unrecorded(struct replay_run *run)
{
	for (int i = 0; i < run->ntasks; i++) {
		struct replay_task *t = run->tasks[i];
		struct replay_user *u = t->user;

		if (!u)
			continue;
		/* The recording ended with it running: kill it, and let it die. */
		if (!t->dead && rp_kill(run->init, t->nr, SIGKILL) == 0 && !round_over(t, true))
			while (!round_over(t, false))
				sched_yield();
		pthread_mutex_lock(&u->lock);
		u->quit = true;
		pthread_cond_broadcast(&u->cond);
		pthread_mutex_unlock(&u->lock);
		pthread_join(u->thread, NULL);
		pthread_mutex_destroy(&u->lock);
		pthread_cond_destroy(&u->cond);
	}
}
