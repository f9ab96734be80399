/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Process groups, sessions, priorities and terminal ioctls, replayed.
 * Recordings run in a session of their own without a controlling terminal
 * (scripts/record.sh), so the recorder leads a new session here too, and
 * every terminal ioctl goes to one terminal that is nobody's controlling
 * terminal: file descriptors are not modelled.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/tty.h>
#include "replay.h"

static long call_setpgid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return rp_setpgid(t->task, replay_pid_arg(run, t, ev, 0), replay_pid_arg(run, t, ev, 1));
}

static long call_getpgid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return rp_getpgid(t->task, replay_pid_arg(run, t, ev, 0));
}

static long call_getpgrp(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	(void)run;
	(void)ev;
	return rp_getpgrp(t->task);
}

static long call_setsid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	(void)run;
	(void)ev;
	return rp_setsid(t->task);
}

static long call_getsid(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	return rp_getsid(t->task, replay_pid_arg(run, t, ev, 0));
}

/* PRIO_PROCESS and PRIO_PGRP name a pid or group; PRIO_USER a uid. */
static id_t prio_who(struct replay_run *run, struct replay_task *t, const struct replay_event *ev,
		     int user_which)
{
	return replay_arg(ev, 0) == user_which ? (id_t)replay_arg(ev, 1) :
		(id_t)replay_pid_arg(run, t, ev, 1);
}

static long call_setpriority(struct replay_run *run, struct replay_task *t,
			     const struct replay_event *ev)
{
	return rp_setpriority(t->task, (int)replay_arg(ev, 0), prio_who(run, t, ev, PRIO_USER),
			      (int)replay_arg(ev, 2));
}

static long call_getpriority(struct replay_run *run, struct replay_task *t,
			     const struct replay_event *ev)
{
	return rp_getpriority(t->task, (int)replay_arg(ev, 0), prio_who(run, t, ev, PRIO_USER));
}

static long call_ioprio_set(struct replay_run *run, struct replay_task *t,
			    const struct replay_event *ev)
{
	return rp_ioprio_set(t->task, (int)replay_arg(ev, 0), (int)prio_who(run, t, ev, RP_IOPRIO_WHO_USER),
			     (int)replay_arg(ev, 2));
}

static long call_ioprio_get(struct replay_run *run, struct replay_task *t,
			    const struct replay_event *ev)
{
	return rp_ioprio_get(t->task, (int)replay_arg(ev, 0), (int)prio_who(run, t, ev, RP_IOPRIO_WHO_USER));
}

/* "[N]": the int a terminal ioctl reads or writes. */
static bool bracketed(const struct replay_event *ev, int i, long *v)
{
	return i < ev->argc && ev->argv[i][0] == '[' && replay_parse_long(ev->argv[i] + 1, v);
}

static long tty_pgrp_ioctl(struct replay_run *run, struct replay_task *t,
			   const struct replay_event *ev, unsigned long request)
{
	char rec[24], got[24];
	long rec_pgrp;
	pid_t pgrp = 0;
	long ret;

	if (request == TIOCSPGRP && bracketed(ev, 2, &rec_pgrp))
		pgrp = (pid_t)replay_pid_to_sim(run, t, rec_pgrp, 0);
	ret = rp_tty_ioctl(t->task, run->tty, request, &pgrp);
	if (request == TIOCGPGRP && ret == 0 && bracketed(ev, 2, &rec_pgrp)) {
		snprintf(rec, sizeof(rec), "%ld", rec_pgrp);
		snprintf(got, sizeof(got), "%ld", replay_pid_to_rec(run, t, pgrp));
		replay_expect(run, ev, "foreground group", rec, got);
	}
	return ret;
}

static long call_ioctl(struct replay_run *run, struct replay_task *t, const struct replay_event *ev)
{
	unsigned long request = (unsigned long)replay_arg(ev, 1);

	switch (request) {
	case TIOCSPGRP:
	case TIOCGPGRP:
		return tty_pgrp_ioctl(run, t, ev, request);
	case TIOCSCTTY:
		return rp_tty_ioctl(t->task, run->tty, request, (void *)replay_arg(ev, 2));
	case TIOCNOTTY:
		return rp_tty_ioctl(t->task, run->tty, request, NULL);
	default:
		return replay_skip(run, ev, "a terminal ioctl outside the process table");
	}
}

const struct replay_call_def replay_group_calls[] = {
	{ "setpgid", call_setpgid, false, false },
	{ "getpgid", call_getpgid, true, false },
	{ "getpgrp", call_getpgrp, true, false },
	{ "setsid", call_setsid, true, false },
	{ "getsid", call_getsid, true, false },
	{ "setpriority", call_setpriority, false, false },
	{ "getpriority", call_getpriority, false, false },
	{ "ioprio_set", call_ioprio_set, false, false },
	{ "ioprio_get", call_ioprio_get, false, false },
	{ "ioctl", call_ioctl, false, false },
	{ 0 },
};

void replay_setup_recorder(struct replay_run *run)
{
	rp_setsid(run->recorder);
	if (rp_tty_create(run->sys, &run->tty))
		run->tty = NULL;
}

void replay_teardown_recorder(struct replay_run *run)
{
	if (run->tty)
		rp_tty_destroy(run->tty);
}
