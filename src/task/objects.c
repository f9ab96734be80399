/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process block (its group and handler table, and its release), exec's
 * handler tables, queued signals, and the CPU-timer parts.
 */
#include "task.h"
#include "objects.h"
#include "../debug/cache.h"
#include <errno.h>

static struct rp_cache process_cache = RP_CACHE_INIT("process", struct rp_process);
static struct rp_cache exec_sighand_cache = RP_CACHE_INIT("exec sighand",
							  struct rp_exec_sighand);

/* Zero is SIG_DFL with no flags and an empty mask: every action default. */
const struct rp_action_table rp_default_actions;

/* Set up @sh, zeroed: every action SIG_DFL, count 1. */
static void sighand_init(struct rp_system *sys, struct rp_sighand *sh)
{
	sh->count = 1;
	sh->actions = &rp_default_actions;
	rp_count_inc(sys, sighands);
}

struct rp_sighand *rp_sighand_alloc(struct rp_system *sys)
{
	struct rp_exec_sighand *own = rp_cache_zalloc(&exec_sighand_cache);

	if (!own)
		return NULL;
	own->sys = sys;
	sighand_init(sys, &own->sighand);
	return &own->sighand;
}

static void actions_free(const struct rp_action_table *actions)
{
	if (actions != &rp_default_actions)
		rp_free((void *)actions);
}

static void exec_sighand_free(struct rp_deferred *d)
{
	struct rp_exec_sighand *own = caa_container_of(d, struct rp_exec_sighand, rcu);

	actions_free(own->sighand.actions);
	rp_count_dec(own->sys, sighands);
	rp_cache_free(&exec_sighand_cache, own);
}

/* A private copy of @actions; NULL on ENOMEM. */
static struct rp_action_table *actions_dup(const struct rp_action_table *actions)
{
	struct rp_action_table *copy = rp_zalloc(sizeof(*copy));

	if (copy)
		*copy = *actions;
	return copy;
}

int rp_sighand_copy_actions(struct rp_sighand *dst, const struct rp_sighand *src)
{
	const struct rp_action_table *actions;

	rp_lockdep_assert_held_obj(src);
	actions = src->actions;
	if (actions != &rp_default_actions && !(actions = actions_dup(actions)))
		return -ENOMEM;
	actions_free(dst->actions);
	dst->actions = actions;
	return 0;
}

struct rp_ksigaction *rp_sighand_action_write(struct rp_sighand *sh, int sig)
{
	struct rp_action_table *own;

	rp_lockdep_assert_held_obj(sh);
#ifndef RP_BREAK_SHARED_ACTIONS_WRITTEN
	if (sh->actions == &rp_default_actions) {
		own = actions_dup(sh->actions);
		if (!own)
			return NULL;
		/* Readers hold our siglock, as we do: a plain store. */
		sh->actions = own;
	}
#endif
	own = (struct rp_action_table *)sh->actions;
	return &own->action[sig - 1];
}

void rp_sighand_flush_handlers(struct rp_sighand *sh)
{
	struct rp_action_table *own;

	rp_lockdep_assert_held_obj(sh);
	if (sh->actions == &rp_default_actions)
		return;
	own = (struct rp_action_table *)sh->actions;
	for (int i = 0; i < RP_NSIG - 1; i++) {
		struct rp_ksigaction *ka = &own->action[i];

		if (ka->handler != SIG_IGN)
			ka->handler = SIG_DFL;
		ka->flags = 0;
		ka->mask = 0;
	}
	/* Nothing ignored: back to the shared table, no reader left on ours. */
	if (!memcmp(own, &rp_default_actions, sizeof(*own))) {
		sh->actions = &rp_default_actions;
		rp_free(own);
	}
}

void rp_sighand_put(struct rp_sighand *sh)
{
	unsigned int count = uatomic_sub_return(&sh->count, 1);
	struct rp_exec_sighand *own;

	if (rp_sighand_users(count) != 0)
		return;
	/* lock_task_sighand may still hold it under RCU: free after a grace period. */
	if (count & RP_SIGHAND_IN_PROCESS) {
		rp_process_part_dead(caa_container_of(sh, struct rp_process, sighand),
				     RP_PART_SIGHAND);
		return;
	}
	own = caa_container_of(sh, struct rp_exec_sighand, sighand);
	rp_defer_release(&own->sys->sync, &own->rcu, exec_sighand_free);
}

/*
 * @sig's rarely used state, allocated on first use: @sig's siglock held,
 * or @sig not yet published (fork's child).  NULL on ENOMEM.
 */
static struct rp_signal_extra *signal_extra(struct rp_signal *sig)
{
	struct rp_signal_extra *extra = sig->extra;

	if (extra)
		return extra;
	extra = rp_zalloc(sizeof(*extra));
	if (!extra)
		return NULL;
	CDS_INIT_LIST_HEAD(&extra->timers.armed);
	CDS_INIT_LIST_HEAD(&extra->timers.owned);
	CDS_INIT_LIST_HEAD(&extra->timers.ignored);
	extra->rlim = &rp_default_rlimits;
	/* Complete before it is stored: every reader holds our siglock. */
	sig->extra = extra;
	return extra;
}

struct rp_signal_extra *rp_signal_extra_get(struct rp_signal *sig)
{
	rp_assert_group_siglock_held(sig);
	return signal_extra(sig);
}

struct rp_group_timers *rp_group_timers_get(struct rp_signal *sig)
{
	struct rp_signal_extra *extra = rp_signal_extra_get(sig);

	return extra ? &extra->timers : NULL;
}

struct rp_thread_cputime *rp_thread_cputime_get(struct rp_task *t)
{
	struct rp_thread_cputime *ct = t->cputimers.state;

	rp_assert_siglock_held(t);
	if (ct)
		return ct;
	/* The group's first: what the thread's exit point folds into. */
	if (!rp_group_timers_get(t->signal))
		return NULL;
	ct = rp_zalloc(sizeof(*ct));
	if (!ct)
		return NULL;
	CDS_INIT_LIST_HEAD(&ct->armed);
	/* Complete before it is stored: every reader holds our siglock. */
	t->cputimers.state = ct;
	return ct;
}

void rp_thread_cputime_free(struct rp_task *t)
{
	/* Every timer on the clock was disarmed at the task's release. */
	RP_DEBUG_BUG_ON(t->cputimers.state && !cds_list_empty(&t->cputimers.state->armed));
	rp_free(t->cputimers.state);
}

/*
 * Init's, and so every group's until it changes one: unlimited but for
 * RLIMIT_NICE 0 as Linux boots with (raising priority needs CAP_SYS_NICE)
 * and, as Linux's init, no core files unless a process raises RLIMIT_CORE.
 */
#define UNLIMITED	{ RLIM_INFINITY, RLIM_INFINITY }
_Static_assert(RLIMIT_CORE < RLIMIT_NICE, "the ranges below");
const struct rp_rlimits rp_default_rlimits = {
	.rlim = {
		[0 ... RLIMIT_CORE - 1] = UNLIMITED,
		[RLIMIT_CORE] = { 0, RLIM_INFINITY },
		[RLIMIT_CORE + 1 ... RLIMIT_NICE - 1] = UNLIMITED,
		[RLIMIT_NICE] = { 0, 0 },
		[RLIMIT_NICE + 1 ... RLIM_NLIMITS - 1] = UNLIMITED,
	},
};
#undef UNLIMITED

static void rlimits_put(const struct rp_rlimits *rl)
{
	if (rl != &rp_default_rlimits &&
	    rp_shared_rmw(RP_SHARED_RLIMIT_REF, uatomic_sub_return((unsigned long *)&rl->refs, 1)) == 0)
		rp_free((void *)rl);
}

/* The limits of @sig, not yet published or its siglock held, made its own; NULL on ENOMEM. */
static struct rp_rlimits *signal_own_rlimits(struct rp_signal *sig)
{
	struct rp_signal_extra *extra = signal_extra(sig);
	const struct rp_rlimits *old;
	struct rp_rlimits *own;

	if (!extra)
		return NULL;
	old = extra->rlim;

	/*
	 * One holder: no other group can take a reference (that takes a fork
	 * of ours, under our siglock).  A group that held it too copied it
	 * before it let go: our writes come after that copy's reads, which
	 * pairs with the full barrier of uatomic_sub_return in rlimits_put.
	 */
	if (old != &rp_default_rlimits && uatomic_read(&old->refs) == 1) {
		cmm_smp_mb();
		return (struct rp_rlimits *)old;
	}
	own = rp_zalloc(sizeof(*own));
	if (!own)
		return NULL;
	memcpy(own->rlim, old->rlim, sizeof(own->rlim));
	own->refs = 1;
	extra->rlim = own;
	rlimits_put(old);
	return own;
}

struct rlimit *rp_task_rlimit_write(struct rp_task *t, int resource)
{
	struct rp_rlimits *own;

	rp_assert_siglock_held(t);
	own = signal_own_rlimits(t->signal);
	return own ? &own->rlim[resource] : NULL;
}

int rp_signal_share_rlimits(struct rp_signal *child, struct rp_signal *parent)
{
	const struct rp_rlimits *rl;
	struct rp_signal_extra *extra;

	rp_assert_group_siglock_held(parent);
	rl = parent->extra ? parent->extra->rlim : &rp_default_rlimits;
	if (rl == &rp_default_rlimits)
		return 0;	/* the child's, new, has no ->extra yet */
	extra = signal_extra(child);
	if (!extra)
		return -ENOMEM;
	rp_shared_rmw(RP_SHARED_RLIMIT_REF, uatomic_inc((unsigned long *)&rl->refs));
	rlimits_put(extra->rlim);
	extra->rlim = rl;
	return 0;
}

/* Set up @sig, zeroed: no threads yet, sigcnt 1, the default rlimits (no ->extra). */
static void signal_init(struct rp_system *sys, struct rp_signal *sig)
{
	sig->sigcnt = 1;
	CDS_INIT_LIST_HEAD(&sig->thread_head);
	sig->shared_pending.tail = NULL;
	sig->shared_pending.signal = 0;
	sig->dumpable = true;
	rp_hlist_node_init(&sig->member.node);
	rp_count_inc(sys, signals);
}

struct rp_process *rp_process_alloc(struct rp_system *sys)
{
	struct rp_process *proc = rp_cache_zalloc(&process_cache);

	if (!proc)
		return NULL;
	signal_init(sys, &proc->signal);
	rp_task_init(sys, &proc->task);
	proc->task.signal = &proc->signal;
	proc->signal.parts_live = RP_PART_SIGNAL | RP_PART_TASK;
	return proc;
}

struct rp_sighand *rp_process_sighand(struct rp_process *proc)
{
	struct rp_sighand *sh = &proc->sighand;

	sighand_init(proc->task.sys, sh);
	sh->count |= RP_SIGHAND_IN_PROCESS;	/* not yet published: a plain store */
	proc->signal.parts_live |= RP_PART_SIGHAND;
	return sh;
}

/*
 * Teardown: the timers never deleted, each held by the owned list and
 * perhaps the ignored list (the queues that held the others are flushed);
 * the tasks they name are being freed too.
 */
static void cputimers_group_free(struct rp_signal *sig, struct rp_group_timers *timers)
{
	struct rp_cpu_timer *tm, *next;

	cds_list_for_each_entry_safe(tm, next, &timers->ignored, ignored_node)
		rp_cpu_timer_put(rp_signal_sys(sig), tm);
	cds_list_for_each_entry_safe(tm, next, &timers->owned, owner_node)
		rp_cpu_timer_put(rp_signal_sys(sig), tm);
}

/* What a dead group holds, once no reader can reach it. */
static void signal_destroy(struct rp_signal *sig)
{
	struct rp_signal_extra *extra = sig->extra;

	if (!extra)
		return;
	cputimers_group_free(sig, &extra->timers);
	rlimits_put(extra->rlim);
	rp_free(extra);
}

/*
 * The block's release, a grace period after its last part died: each part
 * in use lets go of what it holds (the task's group and credentials went
 * at its last put), and the block goes back to its cache.
 */
static void process_free(struct rp_deferred *d)
{
	struct rp_process *proc = caa_container_of(d, struct rp_process, task.rcu);

	if (proc->sighand.count & RP_SIGHAND_IN_PROCESS)
		actions_free(proc->sighand.actions);
	rp_thread_cputime_free(&proc->task);
	rp_ptrace_part_free(&proc->task);
	signal_destroy(&proc->signal);
	rp_cache_free(&process_cache, proc);
}

/*
 * A block's part leaves the live counts when it dies: a block that an
 * outliving part keeps holds no live task, group, table or pid besides
 * that part (the allocator's own count, in debug builds, still sees the
 * block until its release).
 */
static void part_uncount(struct rp_system *sys, unsigned int part)
{
	if (part == RP_PART_SIGNAL)
		rp_count_dec(sys, signals);
	else if (part == RP_PART_TASK)
		rp_count_dec(sys, tasks);
	else if (part == RP_PART_SIGHAND)
		rp_count_dec(sys, sighands);
	else
		rp_count_dec(sys, pids);
}

void rp_process_part_dead(struct rp_process *proc, unsigned int part)
{
	unsigned int live = uatomic_sub_return(&proc->signal.parts_live, part);

	/* A part that was not alive borrows from the bits above it: its own shows set. */
	RP_DEBUG_BUG_ON(live & part);
	part_uncount(proc->task.sys, part);
	if (live & RP_PARTS_MASK)	/* the bits above are the birth (rp_signal_birth) */
		return;
	/*
	 * Every part is unpublished: a reader that could see any of them
	 * began before this point.  The task, dead, is off the registry, so
	 * its ->rcu is free to carry the block's deferral.
	 */
	rp_defer_release(&proc->task.sys->sync, &proc->task.rcu, process_free);
}

bool rp_signal_put(struct rp_signal *sig)
{
	if (uatomic_sub_return(&sig->sigcnt, 1) != 0)
		return false;
	rp_flush_sigqueue(rp_signal_sys(sig), &sig->shared_pending);
	return true;
}

struct rp_sigqueue *rp_sigqueue_alloc(struct rp_system *sys, struct rp_user *user)
{
	struct rp_sigqueue *q = rp_zalloc(sizeof(*q));

	if (!q)
		return NULL;
	q->user = user;
	rp_user_ref(sys, user);		/* the target's uid may change meanwhile */
	rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_inc(&user->sigpending));
	rp_count_inc(sys, sigqueues);
	return q;
}

void rp_cpu_timer_put(struct rp_system *sys, struct rp_cpu_timer *tm)
{
	if (uatomic_sub_return(&tm->refs, 1) != 0)
		return;
	rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&tm->sigq.user->sigpending));
	rp_user_put(sys, tm->sigq.user);
	tm->magic = 0;
	rp_free(tm);
}

void rp_sigqueue_free(struct rp_system *sys, struct rp_sigqueue *q)
{
	if (q->preallocated) {
		/* Off its queue: it may be queued again.  Its timer's reference goes. */
		RP_DEBUG_BUG_ON(rp_sigqueue_queued(q));
		rp_cpu_timer_put(sys, caa_container_of(q, struct rp_cpu_timer, sigq));
		return;
	}
	rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&q->user->sigpending));
	rp_user_put(sys, q->user);
	rp_count_dec(sys, sigqueues);
	rp_free(q);
}

void rp_flush_sigqueue(struct rp_system *sys, struct rp_sigpending *p)
{
	struct rp_sigqueue *q, *prev, *next;

	rp_sigpending_for_each_safe(q, prev, next, p) {
		rp_sigpending_del(p, prev, q);
		rp_sigqueue_free(sys, q);
	}
	p->signal = 0;
}
