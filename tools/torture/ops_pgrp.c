/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Operations on process groups, sessions, priorities and CPU timers. */
#include <errno.h>
#include <time.h>
#include <sys/resource.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/timers.h>
#include "torture.h"

/* A group send: its receipts carry SI_USER and the sender, no id. */
void tt_log_group_send(struct worker *w, struct handle *h, pid_t target, int sig,
		    uint64_t start, int ret)
{
	struct event *e = tt_log_event(w, EV_GROUP);

	e->start = start;
	e->end = tt_clock_tick();
	e->a = h->tgid;
	e->b = -target;
	e->sig = (int16_t)sig;
	e->result = ret < 0 ? (int16_t)ret : 0;
}

static void group_send(struct worker *w, enum op_kind k, struct handle *h)
{
	int sig = SIG_FIRST + (int)(rng_next(&w->rng) % SIG_COUNT);
	uint64_t start = tt_clock_tick();
	pid_t target;
	int ret;

	if (k == OP_KILLPG) {
		target = rp_getpgrp(h->t);
		ret = target < 0 ? target : rp_killpg(h->t, target, sig);
	} else if (k == OP_KILL_SESSION) {
		target = rp_getsid(h->t, 0);
		ret = target < 0 ? target : rp_kill_session(h->t, target, sig);
	} else {
		target = 1;
		ret = rp_kill(h->t, -1, sig);
	}
	tt_log_group_send(w, h, target, sig, start, ret);
	tt_worker_drive(w, h, ret);
}

/* Now and then a CPU timer signalling the process; then charge CPU time to fire it. */
static void op_timer(struct worker *w, struct handle *h)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIG_FIRST };
	struct itimerspec its = { .it_value = { 0, 500000 }, .it_interval = { 0, 500000 } };
	int id;

	if (rng_next(&w->rng) % 8 == 0 &&
	    rp_timer_create(h->t, CLOCK_PROCESS_CPUTIME_ID, &sev, &id) == 0)
		rp_timer_settime(h->t, id, 0, &its, NULL);
	tt_worker_drive(w, h, rp_account_cpu(h->t, rng_next(&w->rng) % 1000000, 0));
}

void tt_run_group_op(struct worker *w, enum op_kind k, struct handle *h)
{
	uint64_t nice;

	switch (k) {
	case OP_KILLPG:
	case OP_KILL_ALL:
	case OP_KILL_SESSION:
		group_send(w, k, h);
		break;
	case OP_SETPGID:
		tt_worker_drive(w, h, rp_setpgid(h->t, 0, rng_next(&w->rng) % 2 ? 0 : tt_pick_target(w)));
		break;
	case OP_SETSID:
		tt_worker_drive(w, h, rp_setsid(h->t));
		break;
	case OP_SETPRIORITY:
		nice = rng_next(&w->rng) % 40;
		tt_worker_drive(w, h, rp_setpriority(h->t, PRIO_PGRP, 0, (int)nice - 20));
		break;
	case OP_IOPRIO:
		tt_worker_drive(w, h, rp_ioprio_set(h->t, RP_IOPRIO_WHO_PGRP, 0,
			RP_IOPRIO_PRIO_VALUE(RP_IOPRIO_CLASS_BE, (int)(rng_next(&w->rng) % 8))));
		break;
	default:
		op_timer(w, h);
		break;
	}
}
