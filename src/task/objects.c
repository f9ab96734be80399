/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thread-group and signal-handler objects, queued signals, and the CPU-timer parts. */
#include "task.h"
#include "objects.h"
#include "../debug/cache.h"

static struct rp_cache sighand_cache = RP_CACHE_INIT("sighand", struct rp_sighand);
static struct rp_cache signal_cache = RP_CACHE_INIT("signal", struct rp_signal);

struct rp_sighand *rp_sighand_alloc(struct rp_system *sys)
{
	struct rp_sighand *sh = rp_cache_zalloc(&sighand_cache);

	if (!sh)
		return NULL;
	sh->count = 1;
	sh->sys = sys;
	for (int sig = 1; sig < RP_NSIG; sig++)
		sh->action[sig].sa_handler = SIG_DFL;
	rp_count_inc(sys, sighands);
	return sh;
}

static void sighand_free(struct rp_deferred *d)
{
	struct rp_sighand *sh = caa_container_of(d, struct rp_sighand, rcu);

	rp_count_dec(sh->sys, sighands);
	rp_cache_free(&sighand_cache, sh);
}

void rp_sighand_put(struct rp_sighand *sh)
{
	/* lock_task_sighand may still hold it under RCU: free after a grace period. */
	if (uatomic_sub_return(&sh->count, 1) == 0)
		rp_defer_release(&sh->sys->sync, &sh->rcu, sighand_free);
}

void rp_cputimers_task_init(struct rp_task *t)
{
	CDS_INIT_LIST_HEAD(&t->cputimers.armed);
}

void rp_cputimers_group_init(struct rp_signal *sig)
{
	CDS_INIT_LIST_HEAD(&sig->cputimers.armed);
	CDS_INIT_LIST_HEAD(&sig->cputimers.owned);
}

struct rp_signal *rp_signal_alloc(struct rp_system *sys)
{
	struct rp_signal *sig = rp_cache_zalloc(&signal_cache);

	if (!sig)
		return NULL;
	sig->sigcnt = 1;
	sig->sys = sys;
	CDS_INIT_LIST_HEAD(&sig->thread_head);
	CDS_INIT_LIST_HEAD(&sig->shared_pending.list);
	sigemptyset(&sig->shared_pending.signal);
	rp_waitq_init(&sig->wait_chldexit);
	for (int r = 0; r < RLIM_NLIMITS; r++)
		sig->rlim[r] = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
	sig->dumpable = true;
	rp_cputimers_group_init(sig);
	rp_count_inc(sys, signals);
	return sig;
}

/* Teardown: the timers never deleted; the tasks they name are being freed too. */
static void cputimers_group_free(struct rp_signal *sig)
{
	struct rp_cpu_timer *tm, *next;

	cds_list_for_each_entry_safe(tm, next, &sig->cputimers.owned, owner_node)
		rp_free(tm);
}

static void signal_free(struct rp_deferred *d)
{
	struct rp_signal *sig = caa_container_of(d, struct rp_signal, rcu);

	rp_waitq_destroy(&sig->wait_chldexit);
	cputimers_group_free(sig);
	rp_count_dec(sig->sys, signals);
	rp_cache_free(&signal_cache, sig);
}

void rp_signal_put(struct rp_signal *sig)
{
	if (uatomic_sub_return(&sig->sigcnt, 1) != 0)
		return;
	rp_flush_sigqueue(sig->sys, &sig->shared_pending);
	rp_defer_release(&sig->sys->sync, &sig->rcu, signal_free);
}

struct rp_sigqueue *rp_sigqueue_alloc(struct rp_system *sys, struct rp_user *user)
{
	struct rp_sigqueue *q = rp_zalloc(sizeof(*q));

	if (!q)
		return NULL;
	q->user = user;
	rp_user_ref(sys, user);		/* the target's uid may change meanwhile */
	uatomic_inc(&user->sigpending);
	rp_count_inc(sys, sigqueues);
	return q;
}

void rp_sigqueue_free(struct rp_system *sys, struct rp_sigqueue *q)
{
	if (q->preallocated)
		return;
	uatomic_dec(&q->user->sigpending);
	rp_user_put(sys, q->user);
	rp_count_dec(sys, sigqueues);
	rp_free(q);
}

void rp_flush_sigqueue(struct rp_system *sys, struct rp_sigpending *p)
{
	struct rp_sigqueue *q, *tmp;

	cds_list_for_each_entry_safe(q, tmp, &p->list, list) {
		cds_list_del(&q->list);
		rp_sigqueue_free(sys, q);
	}
	sigemptyset(&p->signal);
}
