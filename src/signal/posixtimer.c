/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The signals of POSIX timers, as Linux's kernel/signal.c sends them after
 * commit df7a996b4dab ("signal: Queue ignored posixtimers on ignore list")
 * and the rest of its series (v6.13; as the code stands in v6.18): posixtimer_send_sigqueue,
 * posixtimer_sig_ignore, posixtimer_sig_unignore, flush_itimer_signals.
 *
 * A timer's signal uses its preallocated entry, so that firing never
 * allocates.  While queued the entry holds a reference to the timer; so
 * does a place on the owner's ignored list.  The timer is re-armed when its
 * signal is delivered (src/timers, rp_cputimers_deliver), so a periodic
 * timer whose signal is ignored would stop for good: its entry is parked
 * on the ignored list instead, and sigaction queues it again when the
 * signal stops being ignored.  A one-shot timer's ignored signal is
 * dropped.
 */
#include "signal.h"
#include "../task/objects.h"

/* Linux's posixtimer_queue_sigqueue: onto @t's queue, or its process's. */
static void queue_sigqueue(struct rp_task *t, struct rp_cpu_timer *tm)
{
	struct rp_sigqueue *q = &tm->sigq;
	int sig = q->info.si_signo;
	bool group = !tm->notify_thread;
	struct rp_sigpending *pending = group ? &t->signal->shared_pending : &t->pending;

	rp_assert_siglock_held(t);
	rp_sigpending_add_tail(pending, q);
	pending->signal |= RP_SIGBIT(sig);
	rp_complete_signal(t, sig, group);
}

static bool parked(struct rp_cpu_timer *tm)
{
	return !cds_list_empty(&tm->ignored_node);
}

static void park(struct rp_cpu_timer *tm)
{
	cds_list_add(&tm->ignored_node, &rp_group_timers_of(tm->owner)->ignored);
}

void rp_posixtimer_send_locked(struct rp_task *t, struct rp_cpu_timer *tm)
{
	struct rp_sigqueue *q = &tm->sigq;
	bool queued = rp_sigqueue_queued(q);

	rp_assert_siglock_held(t);
	rp_lockdep_assert_held_obj(tm);
	/* Under the siglock: pairs with the dequeue (rp_cputimers_deliver's check). */
	tm->sigqueue_seq = tm->signal_seq;
	/* Under the siglock too: sigaction's flush reads it. */
	tm->sig_periodic = tm->status == RP_TIMER_REQUEUE_PENDING;
	if (!rp_prepare_signal_rcu(t, q->info.si_signo, false)) {	/* as Linux's send_sigqueue */
		/*
		 * Queued already (blocked when it was queued, or a dying group):
		 * it stays, as a regular signal would.
		 */
		if (queued)
			return;
		if (tm->sig_periodic && !parked(tm)) {
			uatomic_inc(&tm->refs);
			park(tm);
		} else if (!tm->sig_periodic && parked(tm)) {
			/* Periodic once, one-shot now: the parked signal is stale. */
			cds_list_del_init(&tm->ignored_node);
			rp_cpu_timer_put(t->sys, tm);
		}
		return;
	}
	if (queued)
		return;		/* it holds its reference already */
	/* Parked, then blocked, and never unignored: it moves back with its reference. */
	if (parked(tm))
		cds_list_del_init(&tm->ignored_node);
	else
		uatomic_inc(&tm->refs);
	queue_sigqueue(t, tm);
}

void rp_sigqueue_free_ignored(struct rp_task *t, struct rp_sigqueue *q)
{
	struct rp_cpu_timer *tm;

	rp_assert_siglock_held(t);
	if (!q->preallocated) {
		rp_sigqueue_free(t->sys, q);
		return;
	}
	tm = caa_container_of(q, struct rp_cpu_timer, sigq);
	if (tm->deleted || !tm->sig_periodic) {
		rp_sigqueue_free(t->sys, q);
		return;
	}
	park(tm);		/* off its queue already (rp_sigpending_del) */		/* with the queued entry's reference */
}

/* The thread @tm notifies, or @self for its process; NULL if that thread was released. */
static struct rp_task *unignore_target(struct rp_task *self, struct rp_cpu_timer *tm)
{
	struct rp_task *t = tm->notify_thread;

	/* Its group's siglock, ours, is held: release clears ->sighand under it. */
	if (t && !rcu_dereference(t->sighand))
		return NULL;
	return t ? t : self;
}

void rp_posixtimer_unignore_rcu(struct rp_task *self, int sig)
{
	struct rp_group_timers *timers = rp_group_timers_of(self->signal);
	struct rp_cpu_timer *tm, *next;
	struct rp_task *t;

	rp_assert_read_section(&self->sys->sync);
	rp_assert_siglock_held(self);
	if (!timers)
		return;
	/*
	 * The timer's lock ranks before the siglock: no re-arm here.  Queued
	 * again, the signal's delivery decides (Linux does the same).
	 */
	cds_list_for_each_entry_safe(tm, next, &timers->ignored, ignored_node) {
		if (tm->sigq.info.si_signo != sig)
			continue;
		cds_list_del_init(&tm->ignored_node);
		t = unignore_target(self, tm);
		if (t)
			queue_sigqueue(t, tm);
		else
			rp_cpu_timer_put(self->sys, tm);
	}
}

void rp_posixtimer_forget_ignored(struct rp_system *sys, struct rp_cpu_timer *tm)
{
	if (!parked(tm))
		return;
	cds_list_del_init(&tm->ignored_node);
	rp_cpu_timer_put(sys, tm);	/* the list's reference; the caller holds one */
}

/* Take the SI_TIMER entries off @p (siglock held). */
static void flush_itimer_signals(struct rp_system *sys, struct rp_sigpending *p)
{
	struct rp_sigqueue *q, *prev, *next;
	uint64_t retain = 0, flushed = 0;

	rp_sigpending_for_each_safe(q, prev, next, p) {
		if (q->info.si_code != SI_TIMER) {
			retain |= RP_SIGBIT(q->info.si_signo);
			continue;
		}
		flushed |= RP_SIGBIT(q->info.si_signo);
		rp_sigpending_del(p, prev, q);
		rp_sigqueue_free(sys, q);
	}
	/* A flushed signal's bit stays only if another of its entries does (Linux's). */
	p->signal &= ~flushed | retain;
}

void rp_flush_itimer_signals(struct rp_task *self)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);

	if (!sh)
		return;
	flush_itimer_signals(self->sys, &self->pending);
	flush_itimer_signals(self->sys, &self->signal->shared_pending);
	rp_unlock_sighand(sh);
}
