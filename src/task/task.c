/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Task references, sighand locking, wait queues and credentials. */
#include <errno.h>
#include "task.h"
#include "objects.h"
#include "../debug/cache.h"
#include "../debug/racepoint.h"

static struct rp_cache task_cache = RP_CACHE_INIT("task", struct rp_task);

bool rp_task_get_rcu(struct rp_task *t)
{
	unsigned int old = uatomic_read(&t->usage);

	rp_assert_read_section(&t->sys->sync);
	/* Increment-not-zero: retry while another thread changes the count. */
	while (old) {
		unsigned int seen = uatomic_cmpxchg(&t->usage, old, old + 1);

		if (seen == old)
			return true;
		old = seen;
	}
	return false;
}

struct rp_task *rp_task_get(struct rp_task *t)
{
	uatomic_inc(&t->usage);
	return t;
}

/* @t's shard of its table's registry: by its address, whatever thread links or unlinks it. */
static struct rp_registry_shard *registry_shard_of(struct rp_task *t)
{
	return &t->sys->registry[rp_address_bucket(t, RP_REGISTRY_BITS)];
}

/* Off the registry: its last reference is gone (registry and ->rcu share bytes). */
static void task_unregister(struct rp_task *t)
{
	struct rp_registry_shard *shard = registry_shard_of(t);

	pthread_mutex_lock(&shard->lock);
	cds_list_del(&t->registry);
	pthread_mutex_unlock(&shard->lock);
}

/* A thread's task struct. */
static void task_free_struct(struct rp_task *t)
{
	rp_count_dec(t->sys, tasks);
	rp_thread_cputime_free(t);
	rp_ptrace_part_free(t);
	rp_cache_free(&task_cache, t);
}

static void task_free(struct rp_deferred *d)
{
	task_free_struct(caa_container_of(d, struct rp_task, rcu));
}

/*
 * @t's last reference is gone and no reader can reach it any more once a
 * grace period has passed: a thread's task is freed after it, a block's
 * task part is dead (its block goes after one).
 */
static void task_release(struct rp_task *t)
{
	if (rp_task_in_process(t))
		rp_process_part_dead(rp_process_of(t->signal), RP_PART_TASK);
	else
		rp_defer_release(&t->sys->sync, &t->rcu, task_free);
}

/* Drop @t's hold on ->signal and ->cred: the last hold on the group kills its part. */
static void task_drop_group(struct rp_task *t)
{
	if (t->signal && rp_signal_put(t->signal))
		rp_process_part_dead(rp_process_of(t->signal), RP_PART_SIGNAL);
	if (t->cred)
		rp_cred_put(t->cred, t);
}

/*
 * The last reference is gone and no reader can reach @t: it was released
 * (unlinked, sighand and tid dropped) before, or never published.  A
 * thread's task is freed at once; a block's is dead, and its block goes
 * after a grace period (its pid may have been published).
 */
void rp_task_free_now(struct rp_task *t)
{
	task_drop_group(t);
	task_unregister(t);
	if (rp_task_in_process(t))
		rp_process_part_dead(rp_process_of(t->signal), RP_PART_TASK);
	else
		task_free_struct(t);
}

/*
 * ->signal and ->cred live as long as the task struct, since readers
 * holding the task may look at them: the last put drops them first, so
 * that in rcu mode the credentials join the task's batch, and the group,
 * when this was its last task, dies with the task: its block's release
 * comes after a grace period that begins after both deaths.
 */
void rp_task_put(struct rp_task *t)
{
	if (uatomic_sub_return(&t->usage, 1) == 0) {
		task_drop_group(t);
		task_unregister(t);
		task_release(t);
	}
}

struct rp_ptrace_part *rp_ptrace_part_alloc(void)
{
	return rp_zalloc(sizeof(struct rp_ptrace_part));
}

void rp_ptrace_part_free(struct rp_task *t)
{
	struct rp_ptrace_part *pt = t->ptrace_part;

	/* Unlinked from every list by the last detach and the tracer's exit. */
	RP_DEBUG_BUG_ON(pt && !cds_list_empty(&pt->ptraced));
	rp_free(pt);
}

struct rp_task *rp_task_alloc(struct rp_system *sys)
{
	struct rp_task *t = rp_cache_zalloc(&task_cache);

	if (t)
		rp_task_init(sys, t);
	return t;
}

void rp_task_init(struct rp_system *sys, struct rp_task *t)
{
	struct rp_registry_shard *shard;

	t->sys = sys;
	t->usage = 1;
	t->exit_signal = -1;
	rp_hlist_tail_init(&t->children);
	rp_hlist_node_init(&t->sibling);
	CDS_INIT_LIST_HEAD(&t->tasks);
	CDS_INIT_LIST_HEAD(&t->thread_node);
	t->pending.tail = NULL;
	t->pending.signal = 0;
	t->blocked = 0;
	shard = registry_shard_of(t);
	pthread_mutex_lock(&shard->lock);
	cds_list_add(&t->registry, &shard->tasks);
	pthread_mutex_unlock(&shard->lock);
	rp_count_inc(sys, tasks);
}

/* RP_BREAK_SIGHAND_NO_RECHECK: trust the first load of ->sighand. */
#ifdef RP_BREAK_SIGHAND_NO_RECHECK
#define SIGHAND_RECHECK false
#else
#define SIGHAND_RECHECK true
#endif

struct rp_sighand *rp_lock_task_sighand_rcu(struct rp_task *t)
{
	struct rp_sighand *sh;

	rp_assert_read_section(&t->sys->sync);
	for (;;) {
		/* Pairs with rcu_assign_pointer in exec's table switch and release. */
		sh = rcu_dereference(t->sighand);
		if (!sh)
			return NULL;
		RP_RACE_POINT(RP_RACE_SIGHAND_LOADED, t);
		rp_sighand_lock(sh);
		/* Recheck under the lock; retry if exec switched tables meanwhile. */
		if (!SIGHAND_RECHECK || sh == CMM_LOAD_SHARED(t->sighand))
			return sh;
		rp_unlock_sighand(sh);
	}
}

/*
 * RP_BREAK_RELEASED_NOT_FOLLOWED: a task released before its siglock was
 * taken ends the lookup, as if its pid (or its child's parent) were gone.
 */
#ifdef RP_BREAK_RELEASED_NOT_FOLLOWED
#define FOLLOW_RELEASED false
#else
#define FOLLOW_RELEASED true
#endif

struct rp_sighand *rp_lock_followed_sighand_rcu(struct rp_task **ref, struct rp_task **t)
{
	struct rp_task *prev = NULL;
	struct rp_sighand *sh;

	for (;;) {
		/*
		 * Pairs with rcu_assign_pointer of pid->task in fork, exec and
		 * release, and with the real_parent stores of reparenting.
		 */
		*t = rcu_dereference(*ref);
		if (!*t || *t == prev)
			return NULL;
		sh = rp_lock_task_sighand_rcu(*t);	/* asserts the read section */
		if (sh || !FOLLOW_RELEASED)
			return sh;
		prev = *t;
		/*
		 * Released: it handed its place on before.  Pairs with
		 * rcu_assign_pointer(t->sighand, NULL) in the release, which
		 * orders that handover before it.
		 */
		cmm_smp_rmb();
	}
}

struct rp_sighand *rp_lock_task_sighand(struct rp_task *t)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_sighand *sh;

	rp_read_lock(sync);
	sh = rp_lock_task_sighand_rcu(t);
	rp_read_unlock(sync);
	return sh;
}

void rp_unlock_sighand(struct rp_sighand *sh)
{
	rp_spin_unlock(&sh->siglock);
	rp_lockdep_release_obj(RP_LOCK_SIGHAND, sh);
}

static struct rp_waitq waitq_table[RP_WAITQ_BUCKETS] = {
	[0 ... RP_WAITQ_BUCKETS - 1] = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cond = PTHREAD_COND_INITIALIZER,
	},
};

struct rp_waitq *rp_waitq_of(const void *obj)
{
	return &waitq_table[rp_address_bucket(obj, RP_WAITQ_BITS)];
}

static void waitq_lock(struct rp_waitq *wq)
{
	rp_lockdep_acquire(RP_LOCK_WAITQ);
	pthread_mutex_lock(&wq->lock);
}

static void waitq_unlock(struct rp_waitq *wq)
{
	pthread_mutex_unlock(&wq->lock);
	rp_lockdep_release(RP_LOCK_WAITQ);
}

unsigned long rp_waitq_seq(struct rp_waitq *wq)
{
	unsigned long seq;

	waitq_lock(wq);
	seq = wq->seq;
	waitq_unlock(wq);
	return seq;
}

void rp_waitq_wait(struct rp_waitq *wq, unsigned long seq)
{
	rp_lockdep_assert_may_synchronize();	/* no sleeping inside a read section */
	rp_sync_block_begin();
	waitq_lock(wq);
	/* Sleep until a wake-up after @seq: pairs with the increment in rp_waitq_wake. */
	while (wq->seq == seq)
		pthread_cond_wait(&wq->cond, &wq->lock);
	waitq_unlock(wq);
	rp_sync_block_end();
}

void rp_waitq_wake(struct rp_waitq *wq)
{
	waitq_lock(wq);
	wq->seq++;
	pthread_cond_broadcast(&wq->cond);
	waitq_unlock(wq);
}
