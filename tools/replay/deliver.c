/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * strace's own records: a signal delivered ("--- SIGX {...} ---") and a task's
 * end ("+++ exited with N +++", "+++ killed by SIGX +++").  Both are replayed
 * as the task's return to user space, rp_get_signal().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay.h"

#define SIGBIT(sig)	(1ULL << ((sig) - 1))
#define DEFAULT_IGNORE	(SIGBIT(SIGCHLD) | SIGBIT(SIGURG) | SIGBIT(SIGWINCH) | SIGBIT(SIGCONT))
#define DEFAULT_STOP	(SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) | SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU))

enum disposition replay_disposition(struct rp_task *task, int sig)
{
	struct sigaction sa;

	if (sig == SIGKILL || sig == SIGSTOP || rp_sigaction(task, sig, NULL, &sa) < 0)
		return sig == SIGSTOP ? DISP_STOP : DISP_KILL;
	if (sa.sa_handler == SIG_IGN)
		return DISP_IGNORE;
	if (sa.sa_handler != SIG_DFL)
		return DISP_HANDLER;
	if (sig <= 64 && (DEFAULT_IGNORE & SIGBIT(sig)))
		return DISP_IGNORE;
	return sig <= 64 && (DEFAULT_STOP & SIGBIT(sig)) ? DISP_STOP : DISP_KILL;
}

static void format_info(int sig, long code, long pid, long uid,
			long status, char *buf, size_t len)
{
	char name[16];

	snprintf(buf, len, "%s code %ld pid %ld uid %ld status %ld",
		 replay_signal_name(sig, name, sizeof(name)), code, pid, uid, status);
}

/* What rp_get_signal answered, in the words of the recording. */
static void format_got(struct replay_run *run, const struct replay_task *t, int got,
		       const siginfo_t *info, char *buf, size_t len)
{
	if (got == 0)
		snprintf(buf, len, "nothing delivered");
	else if (got == -ESRCH)
		snprintf(buf, len, "killed");
	else if (got < 0)
		snprintf(buf, len, "-1 %s", replay_errno_name(-got));
	else
		format_info(got, info->si_code, replay_pid_to_rec(run, t, info->si_pid), info->si_uid,
			    got == SIGCHLD ? info->si_status : 0, buf, len);
}

/*
 * A wall-clock timer's signal (SI_TIMER): rcuproc has not got such timers,
 * so the expiry is replayed as the task queueing the recorded siginfo to
 * itself.  A CPU timer's fires in rcuproc (timers.c).
 */
static void inject_timer_signal(struct replay_task *t, const struct replay_event *ev)
{
	siginfo_t info;

	memset(&info, 0, sizeof(info));
	info.si_signo = ev->sig;
	info.si_code = (int)ev->info_code;
	rp_rt_sigqueueinfo(t->task, rp_getpid(t->task), ev->sig, &info);
}

/*
 * What Linux does as it sets up a handler's frame (signal_delivered): save
 * the mask for rt_sigreturn (sigsuspend's saved one if it was suspended),
 * then block the handler's sa_mask and, unless SA_NODEFER, the signal.
 */
static sigset_t *push_frame(struct replay_task *t)
{
	if (t->nframes == t->frames_cap) {
		t->frames_cap = t->frames_cap ? 2 * t->frames_cap : 4;
		t->frames = realloc(t->frames, t->frames_cap * sizeof(*t->frames));
		if (!t->frames)
			abort();
	}
	return &t->frames[t->nframes++];
}

static void enter_handler(struct replay_task *t, int sig)
{
	struct sigaction sa;
	sigset_t block;
	sigset_t *frame = push_frame(t);

	rp_sigprocmask(t->task, SIG_BLOCK, NULL, frame);
	if (t->suspended)
		*frame = t->saved_mask;
	t->suspended = false;
	rp_sigaction(t->task, sig, NULL, &sa);
	block = sa.sa_mask;
	if (!(sa.sa_flags & SA_NODEFER))
		sigaddset(&block, sig);
	rp_sigprocmask(t->task, SIG_BLOCK, &block, NULL);
}

void replay_restore_suspended_mask(struct replay_task *t)
{
	if (!t->suspended)
		return;
	t->suspended = false;
	rp_sigprocmask(t->task, SIG_SETMASK, &t->saved_mask, NULL);
}

void replay_delivery(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	char rec[96], got_text[96];
	bool cpu_timer = false;
	enum disposition d;
	siginfo_t info;
	int got;

	if (t->dead) {
		replay_expect(run, ev, "signal", "delivered", "task already exited");
		return;
	}
	if (ev->info_code == SI_TIMER)
		cpu_timer = replay_fire_cpu_timer(run, t, ev);
	if (ev->info_code == SI_TIMER && !cpu_timer)
		inject_timer_signal(t, ev);
	d = replay_disposition(t->task, ev->sig);
	if (d == DISP_STOP) {
		replay_stop(run, t, ev);
		return;
	}
	if (d == DISP_KILL)
		return;		/* it dies at its "+++ killed" line */
	if (d == DISP_IGNORE) {
		/* Only a traced task queues it (docs/replay.md); no handler runs. */
		replay_restore_suspended_mask(t);
		return;
	}
	replay_await_unrecorded_signal(run, t, ev);
	memset(&info, 0, sizeof(info));
	got = rp_get_signal(t->task, &info);
	if (got == -ESRCH)
		t->dead = true;
	if (got > 0)
		enter_handler(t, got);
	format_info(ev->sig, ev->info_code, ev->info_pid, ev->info_uid,
		    ev->sig == SIGCHLD ? ev->info_status : 0, rec, sizeof(rec));
	format_got(run, t, got, &info, got_text, sizeof(got_text));
	replay_expect(run, ev, "signal", rec, got_text);
	if (cpu_timer && got == ev->sig)
		replay_expect_timer_info(run, t, ev, &info);
}

/* "+++ exited/killed +++": the task must be gone; if it still runs, it
 * returns to user space, where a pending group exit or fatal signal ends it. */
void replay_end(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	int got;

	t->ended = true;
	t->end_status = ev->kind == REPLAY_EXITED ? ev->status << 8 : ev->sig;
	if (t->dead)
		return;
	got = rp_get_signal(t->task, NULL);
	if (got == -ESRCH) {
		t->dead = true;
		return;
	}
	replay_expect(run, ev, "end", ev->kind == REPLAY_EXITED ? "exited" : "killed",
		      "still running");
}
