/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * execve(2): what the kernel's begin_new_exec does to the process table.
 *
 * de_thread: every other thread is killed and waited for until it is
 * released (a traced zombie, until its tracer reaps it); a non-leader that
 * execs takes over the leader's pid and its place in every list, and the old
 * leader is released.  unshare_sighand: a signal-handler table shared with
 * another process (CLONE_SIGHAND without CLONE_THREAD) is copied, and the
 * copy published with rcu_assign_pointer (commit e56d090310d7): a sender
 * that locked the old table sees, in rp_lock_task_sighand's recheck, that
 * it is no longer ours and retries (I6).  Then handlers are reset to
 * SIG_DFL except ignored ones; the blocked mask and pending signals stay.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include "../task/task.h"
#include "../task/objects.h"
#include "../signal/signal.h"
#include "exit.h"
#include "ptrace.h"
#include "../timers/hooks.h"
#include "../debug/racepoint.h"

#ifdef RP_BREAK_EXEC_ZOMBIE_GONE
#define EXEC_ZOMBIE_GONE true
#else
#define EXEC_ZOMBIE_GONE false
#endif

#ifdef RP_BREAK_EXEC_HIDES_CHILD
#define EXEC_HIDES_CHILD true
#else
#define EXEC_HIDES_CHILD false
#endif

/*
 * Are the other threads of @self's group gone (update lock held, or G of
 * the group: a look under the gate shared)?  Released,
 * not merely exited: a zombie still holds the group's handler table, and a
 * traced one stays until its tracer reaps it (Linux's de_thread waits for
 * notify_count, counted down in __exit_signal).  Only the old leader stays,
 * as a zombie, for a non-leader to take its place.
 * RP_BREAK_EXEC_ZOMBIE_GONE counts any zombie as gone, as before.
 */
static bool others_released(struct rp_task *self)
{
	struct rp_task *t;

	rp_assert_group_write(self->sys, self->signal);
	cds_list_for_each_entry(t, &self->signal->thread_head, thread_node) {
		if (t == self)
			continue;
		if (!uatomic_read(&t->exit_state))
			return false;
		/* A zombie other than the leader is gone only once released. */
		if (t != self->group_leader && !EXEC_ZOMBIE_GONE)
			return false;
	}
	return true;
}

/*
 * One look at the group, update lock (or G, under the gate shared) and
 * siglock held.  -ESRCH if @self is
 * to die (a group exit, a SIGKILL, or another thread's exec got there
 * first: that one zapped us), 1 once the other threads are released (the
 * old leader a zombie), 0 to wait.  The first look kills the others and,
 * if it must wait for them, claims the exec in the group's ->extra:
 * -ENOMEM, with nothing done, if that cannot be allocated.  An exec that
 * need not wait (no other thread, or only the old leader, a zombie) ends
 * in this look and stores no claim.
 */
static int de_thread_step(struct rp_task *self)
{
	struct rp_signal *sig = self->signal;
	struct rp_signal_extra *extra;

	rp_assert_group_write(self->sys, sig);
	rp_assert_siglock_held(self);
	if (rp_fatal_signal_pending(self)) {
		if (rp_group_exec_task(self) == self)
			sig->extra->group_exec_task = NULL;
		return -ESRCH;
	}
	if (!rp_group_exec_task(self)) {
		if (others_released(self)) {
			rp_zap_other_threads(self);
			return 1;
		}
		extra = rp_signal_extra_get(sig);
		if (!extra)
			return -ENOMEM;
		extra->group_exec_task = self;
		rp_zap_other_threads(self);
		return 0;
	}
	if (!others_released(self))
		return 0;
	sig->extra->group_exec_task = NULL;
	return 1;
}

/*
 * Linux's exchange_tids and the list replacement of de_thread: @self takes
 * the zombie leader's tid (the tgid), its place on sys->tasks and in its
 * parent's children, and becomes every thread's leader; the old leader
 * keeps @self's former tid and is released.  Update lock held.
 *
 * The parent's wait scans its children under RCU alone, so the process must
 * count for it at every moment of the switch (I3): @self goes on the list
 * with its exit signal already SIGCHLD, and the old leader, which a scan
 * may stand on after its release, is claimed as RP_EXIT_TRACE (its process
 * lives on) rather than DEAD, before anything is published.
 * RP_BREAK_EXEC_HIDES_CHILD restores the old order: @self published with
 * exit signal -1, the old leader DEAD.
 */
static void take_leadership(struct rp_task *self)
{
	struct rp_task *leader = self->group_leader, *t;
	struct rp_pid *tgid = leader->pid, *tid = self->pid;
	/* Init is its own parent and on no children list. */
	bool init = leader->real_parent == leader;

	rp_assert_update_held(&self->sys->sync);

	if (!EXEC_HIDES_CHILD) {
		/* No wait may claim it now; ordered before the lists by the replacements. */
		uatomic_set(&leader->exit_state, RP_EXIT_TRACE);
		CMM_STORE_SHARED(leader->exit_signal, SIGCHLD);
		CMM_STORE_SHARED(self->exit_signal, SIGCHLD);
	}
	/* Pairs with rcu_dereference(pid->task) in rp_find_task_rcu. */
	rcu_assign_pointer(tgid->task, self);
	rcu_assign_pointer(tid->task, leader);
	CMM_STORE_SHARED(self->pid, tgid);
	CMM_STORE_SHARED(leader->pid, tid);
	RP_RACE_POINT(RP_RACE_EXEC_TGID_MOVED, self);
	/* Parents before the lists: a reader that finds @self there filters by them. */
	CMM_STORE_SHARED(self->real_parent, init ? self : leader->real_parent);
	if (!self->ptrace)
		CMM_STORE_SHARED(self->parent, self->real_parent);
	/*
	 * A reader sees exactly one of the two on each list (Group 2, Group 4).
	 * The replacements' rcu_assign_pointer orders every store above before
	 * them: pairs with the rcu_dereference of ->next in wait's scan.
	 */
	cds_list_replace_rcu(&leader->tasks, &self->tasks);
	if (!init)
		rp_hlist_tail_replace_pub(&leader->sibling, &self->sibling,
					  &self->real_parent->children);
	cds_list_for_each_entry(t, &self->signal->thread_head, thread_node)
		CMM_STORE_SHARED(t->group_leader, self);
	RP_RACE_POINT(RP_RACE_EXEC_PUBLISHED, self);
	if (EXEC_HIDES_CHILD) {
		leader->exit_signal = -1;
		uatomic_set(&leader->exit_state, RP_EXIT_DEAD);
	}
	/* Released silently: its tracer, if any, must not wait for it. */
	if (leader->ptrace)
		rp_wake_up_parent(leader->parent);
	rp_release_task(leader);
}

/*
 * What every exec changes of @self once the other threads are gone: its
 * exit signal (T of its real parent, whose wait selects by it and whose
 * exit's reparenting resets it), its count of execs (T of @self: a
 * child's exit notice reads it under that T and sends an odd exit signal
 * only while it is the count the child was forked under) and its
 * RP_PF_FORKNOEXEC (T of @self: the parent's setpgid reads it under that
 * T, and G, for EACCES).  The update lock, or G and T under the gate shared (look_shared).
 */
static void exec_new_domain(struct rp_task *self)
{
	struct rp_system *sys = self->sys;

	/* "We have changed execution domain": Linux resets it for every exec. */
	rp_assert_tree_write(sys, self->real_parent);
	CMM_STORE_SHARED(self->exit_signal, SIGCHLD);
	/* Children forked before now lose their own exit signals (notify.c). */
	rp_assert_tree_write(sys, self);
	rp_assert_group_write(sys, self->signal);
	CMM_STORE_SHARED(self->self_exec_id, self->self_exec_id + 1);
	CMM_STORE_SHARED(self->flags, self->flags & ~RP_PF_FORKNOEXEC);
}

/*
 * ---- de_thread under the gate shared (rcu mode; docs/process.md,
 * protocol (e) and "What is built") ----
 *
 * Each look, the kill pass and every look after it alike, holds G of the
 * group, T of @self and of its real parent (increasing address; one lock
 * for init, its own parent), rechecked after they are taken (a
 * reparenting moves @self under T of its old parent), and the siglock
 * (de_thread_step).  G orders the look against a thread's clone and a
 * thread's plain release, which link and unlink under it; the siglock
 * against the group kill and the release's read of the claim.  Between
 * looks the exec holds nothing: a release it waits for may need the gate
 * exclusive (a traced thread reaped by its tracer, a thread with
 * children).  The last look of the group's leader makes exec_new_domain's
 * writes under those locks; the last look of another thread, which must
 * take the zombie leader's place, answers EXEC_EXCLUSIVE: the leader
 * switch runs under the update lock, after a look of its own.
 * RP_BREAK_EXEC_SHARED_UNLOCKED trusts the gate, as before the
 * conversion: it tells the checker and takes none of G and T, and a
 * child's notice or the parent's setpgid reads across the exec's writes.
 */
#ifdef RP_BREAK_EXEC_SHARED_UNLOCKED
#define EXEC_TAKES_LOCKS false
#else
#define EXEC_TAKES_LOCKS true
#endif

/*
 * RP_BREAK_EXEC_NO_PARENT_RECHECK keeps the real parent read before its T
 * was taken: a reparenting in between leaves the exit signal written
 * under the old parent's T (the debug build's assertion stops it).
 */
#ifdef RP_BREAK_EXEC_NO_PARENT_RECHECK
#define EXEC_PARENT_RECHECK false
#else
#define EXEC_PARENT_RECHECK true
#endif

/*
 * RP_BREAK_EXEC_WAITS_IN_GATE sleeps between looks with the gate still
 * held shared, as a reader would keep its read lock: a release that must
 * take the gate exclusive (a traced thread's, by its tracer's wait) never
 * comes, and the exec sleeps for ever.
 */
#ifdef RP_BREAK_EXEC_WAITS_IN_GATE
#define EXEC_LEAVES_GATE false
#else
#define EXEC_LEAVES_GATE true
#endif

/* What a look answers to take the gate exclusive instead. */
#define EXEC_EXCLUSIVE	2

/* Of a set of T, those the twin leaves untaken (rp_tree_lock_set): all of them. */
#define EXEC_UNTAKEN	(EXEC_TAKES_LOCKS ? 0U : ~0U)

/*
 * G of @self's group and T of @self and of its real parent, in @trees.
 * In a read section: the parent read under RCU is not freed before its T
 * is taken.
 */
static void shared_lock(struct rp_task *self, struct rp_lock_set *trees)
{
	struct rp_task *parent;

	rp_group_lock_if(self->signal, EXEC_TAKES_LOCKS);
	do {
		rp_tree_unlock_set(trees, EXEC_UNTAKEN);	/* a parent read before */
		parent = rcu_dereference(self->real_parent);
		RP_RACE_POINT(RP_RACE_EXEC_PARENT_READ, self);
		rp_tree_set_add(trees, self);
		rp_tree_set_add(trees, parent);
		rp_tree_lock_set(trees, EXEC_UNTAKEN);
	} while (EXEC_PARENT_RECHECK && self->real_parent != parent);
}

/* de_thread_step in a siglock hold: -ESRCH if @self is released. */
static int look(struct rp_task *self)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);
	int ret = sh ? de_thread_step(self) : -ESRCH;

	if (sh)
		rp_unlock_sighand(sh);
	return ret;
}

/*
 * One look of de_thread under the gate shared: 1 (and the new domain's
 * writes made), -ESRCH, -ENOMEM, 0 to wait, or EXEC_EXCLUSIVE (the others
 * are released and the leader switch is left to the update lock).  The
 * gate is let go, except by the twin that keeps it to wait.
 */
static int look_shared(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_lock_set trees = { .n = 0 };
	int ret;

	if (EXEC_LEAVES_GATE || !rp_gate_shared_here(sync))
		rp_update_lock_shared(sync);
	rp_read_lock(sync);
	shared_lock(self, &trees);
	ret = look(self);
	/* group_leader: changed by this group's exec alone, which is @self. */
	if (ret > 0 && !rp_thread_group_leader(self))
		ret = EXEC_EXCLUSIVE;
	else if (ret > 0)
		exec_new_domain(self);
	rp_tree_unlock_set(&trees, EXEC_UNTAKEN);
	rp_group_unlock_if(self->signal, EXEC_TAKES_LOCKS);
	rp_read_unlock(sync);
	if (EXEC_LEAVES_GATE || ret)
		rp_update_unlock_shared(sync);
	return ret;
}

/* One look of de_thread under the update lock, kept unless it answers 0. */
static int look_exclusive(struct rp_task *self)
{
	int ret;

	rp_update_lock(&self->sys->sync);
	ret = look(self);
	if (!ret)
		rp_update_unlock(&self->sys->sync);
	return ret;
}

/*
 * Linux's de_thread.  Sleeps on the group's wait queue (rp_chldexit_waitq),
 * which each other thread wakes once it is a zombie (exit_notify) and once
 * it is released (rp_release_task, also when a tracer reaps it later),
 * seeing the group's exec task (rp_group_exec_task) set under the
 * siglock.  In rcu mode each look takes the gate shared (look_shared), and
 * only a non-leader's leader switch the update lock.
 */
static int de_thread(struct rp_task *self)
{
	struct rp_signal *sig = self->signal;
	struct rp_sync *sync = &self->sys->sync;
	bool shared = sync->mode == RP_SYNC_RCU;
	unsigned long seq;
	int ret;

	for (;;) {
		/* Sampled before the look: an exit after it wakes the wait below. */
		seq = rp_waitq_seq(rp_chldexit_waitq(sig));
		ret = shared ? look_shared(self) : look_exclusive(self);
		if (ret == EXEC_EXCLUSIVE) {
			shared = false;
			RP_RACE_POINT(RP_RACE_EXEC_SWITCH_LOOK, self);
			continue;
		}
		if (ret)
			break;
		RP_RACE_POINT(RP_RACE_EXEC_WAITS, self);
		rp_waitq_wait(rp_chldexit_waitq(sig), seq);
	}
	if (shared)
		return ret < 0 ? ret : 0;
	if (ret > 0) {
		if (!rp_thread_group_leader(self))
			take_leadership(self);
		exec_new_domain(self);
	}
	rp_update_unlock(sync);
	return ret < 0 ? ret : 0;
}

/*
 * Linux's unshare_sighand: a table that someone else uses too is copied
 * and the copy switched in under the old siglock and the new one, inside
 * the update gate shared (rcu mode; the update lock in the other modes):
 * ->sighand's writers are @self (here) and its release, its lock-free
 * readers (senders, rp_lock_task_sighand) recheck it under the siglock
 * they took, and what reads it under the update lock alone (the table
 * walk) takes the gate exclusive.  The old table is freed after a grace
 * period (rp_sighand_put).
 */
static int unshare_sighand(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_sighand *old, *new;

	/* Only @self switches its own ->sighand: no lock needed to read it. */
	if (rp_sighand_users(uatomic_read(&CMM_LOAD_SHARED(self->sighand)->count)) == 1)
		return 0;
	new = rp_sighand_alloc(self->sys);
	if (!new)
		return -ENOMEM;
	rp_update_lock_shared(sync);
	old = rp_lock_task_sighand(self);
	rp_sighand_lock_new(new);
	if (rp_sighand_copy_actions(new, old)) {
		rp_sighand_unlock_new(new);
		rp_unlock_sighand(old);
		rp_update_unlock_shared(sync);
		rp_sighand_put(new);
		return -ENOMEM;
	}
	/* Widen the window in which senders load the old pointer (torture). */
	RP_TORTURE_DELAY();
	/*
	 * Publish the complete copy: pairs with rcu_dereference and the recheck
	 * in rp_lock_task_sighand; a sender spinning on the old lock finds,
	 * once it gets it, that ->sighand moved on, and retries on the new one.
	 */
	rp_assert_siglock_held(self);
	RP_DEBUG_BUG_ON(!rp_lockdep_holds(new));
	rcu_assign_pointer(self->sighand, new);
	rp_sighand_unlock_new(new);
	rp_unlock_sighand(old);
	rp_update_unlock_shared(sync);
	rp_sighand_put(old);
	return 0;
}

/* Linux's flush_signal_handlers(t, 0): default actions, ignored ones kept. */
static void flush_signal_handlers(struct rp_task *self)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);

	rp_sighand_flush_handlers(sh);
	rp_unlock_sighand(sh);
}

/*
 * Linux's deferred RLIMIT_NPROC failure of set*uid (flag_nproc_exceeded in
 * ids.c): -EAGAIN while @self's user is still over its limit, else the mark
 * is forgotten.
 */
static int check_nproc_exceeded(struct rp_task *self)
{
	struct rp_sighand *sh;
	rlim_t limit;

	if (!(self->flags & RP_PF_NPROC_EXCEEDED))
		return 0;
	sh = rp_lock_task_sighand(self);
	if (!sh)
		return -ESRCH;
	limit = rp_task_rlimit(self, RLIMIT_NPROC)->rlim_cur;
	rp_unlock_sighand(sh);
	if (rp_nproc_over(self->sys, self->cred->user, limit))
		return -EAGAIN;
	CMM_STORE_SHARED(self->flags, self->flags & ~RP_PF_NPROC_EXCEEDED);
	return 0;
}

/*
 * @self's tid as the namespace of its tracer (else its parent) numbers it,
 * 0 if it has none there: Linux's exec_binprm reads it (old_vpid) before
 * de_thread, which gives a non-leader the leader's pid.
 */
static pid_t tid_for_tracer(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_pidns *ns;
	pid_t nr = 0;

	rp_read_lock(sync);
	/*
	 * ->parent changes under the update lock, or T of the tracer and of the
	 * real parent (ptrace.c, protocol (f)); the task it names goes after a
	 * grace period.
	 */
	ns = rp_task_pidns(rcu_dereference(self->parent));
	if (ns)			/* else the tracer was released meanwhile: 0 */
		nr = rp_pid_nr_ns(self->pid, ns);
	rp_read_unlock(sync);
	return nr;
}

int rp_execve(struct rp_task *self, const char *comm)
{
	pid_t old_tid = tid_for_tracer(self);
	int ret;

	if (rp_task_exited(self))
		return -ESRCH;
	ret = check_nproc_exceeded(self);
	if (ret)
		return ret;
	ret = de_thread(self);
	if (ret == -ESRCH) {
		/* As Linux: the exec fails and the thread dies of its pending kill. */
		rp_get_signal(self, NULL);
		return ret;
	}
	if (ret)
		return ret;	/* -ENOMEM before anything was done */
	ret = unshare_sighand(self);
	if (ret) {
		rp_sync_quiescent();	/* after de_thread's frees (docs/sync.md) */
		return ret;
	}
	flush_signal_handlers(self);
	rp_cputimers_exec(self);
	snprintf(self->comm, sizeof(self->comm), "%s", comm);
	/* The tid it had before the exec (a thread that execs takes the leader's), as its tracer sees it. */
	rp_ptrace_event(self, PTRACE_EVENT_EXEC, (unsigned long)old_tid);
	rp_sync_quiescent();
	return 0;
}
