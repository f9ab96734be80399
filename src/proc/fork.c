/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clone(2), clone3(2) and fork(2), as Linux's kernel_clone and copy_process
 * (v6.18; clone3's set_tid as copy_clone_args_from_user and alloc_pid).
 * The child is built off line (credentials, tables, mask, name), then
 * linked under the update gate (shared with object locks for a plain fork
 * or a thread in rcu mode, else exclusive) and the caller's siglock: every
 * field a reader looks at is set before the list insertion that publishes
 * the child (Group 2), and the check for a dying caller is made under the same
 * siglock as the thread-list insertion, so a group exit either sees the
 * new thread (and kills it) or makes the fork fail.
 *
 * Group 5's ordering (docs/pgrp.md): a new process is linked right behind
 * its parent on the member lists and on sys->tasks, under the parent's
 * siglock, in the same hold that closes the fork window: group signals that
 * reached the parent while it forked (recorded) go to the child, and a
 * group walker that comes later meets the child behind the parent.  A
 * signal pending when the fork starts restarts it (RP_ERESTARTNOINTR), as
 * does a fatal one at the link; other signals never do.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include "../task/task.h"
#include "../task/objects.h"
#include "ptrace.h"
#include "../pgrp/pgrp.h"
#include "../task/jobc.h"
#include "../signal/signal.h"
#include "../debug/racepoint.h"

#define CLONE_SUPPORTED (CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_PARENT | \
			 CLONE_PTRACE | CLONE_NEWPID | CSIGNAL)

/* Linux's flag checks of copy_process and of clone's exit signal. */
static int check_flags(struct rp_task *self, unsigned long flags)
{
	if (flags & ~(unsigned long)CLONE_SUPPORTED)
		return -EINVAL;
	if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
		return -EINVAL;
	if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
		return -EINVAL;
	if ((flags & CSIGNAL) >= RP_NSIG)
		return -EINVAL;
	/*
	 * A new namespace's init is no thread of its caller's group.  It may
	 * be its caller's sibling (CLONE_PARENT), unless the caller is an init.
	 */
	if ((flags & CLONE_NEWPID) && (flags & CLONE_THREAD))
		return -EINVAL;
	/* An init (a namespace's too) may not make siblings: nobody would reap them. */
	if ((flags & CLONE_PARENT) && rp_is_ns_init(self))
		return -EINVAL;
	return 0;
}

/*
 * The namespace the child goes into, with a reference: the caller's
 * pid_for_children, or a new one below it (copy_namespaces and
 * copy_pid_ns).  A thread stays in its group's, which must be where the
 * caller's children go.  NULL with the error in *@err.
 */
static struct rp_pidns *child_ns(struct rp_task *self, unsigned long flags, int *err)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_pidns *own, *children;

	rp_read_lock(sync);
	own = rp_task_pidns(self);
	children = rp_pidns_get(rp_task_ns_children_rcu(self));
	rp_read_unlock(sync);
	*err = -EINVAL;
	if ((flags & (CLONE_THREAD | CLONE_NEWPID)) && children != own)
		goto fail;
	if (!(flags & CLONE_NEWPID))
		return children;
	*err = -EPERM;
	if (!rp_cred_capable(self->cred, RP_CAP_SYS_ADMIN))
		goto fail;
	own = rp_pidns_create(children, err);
	rp_pidns_put(children);
	return own;
fail:
	rp_pidns_put(children);
	return NULL;
}

/*
 * The child's task: a thread's, allocated on its own; a process's, in a
 * block with its group and, unless CLONE_SIGHAND, its own handler table
 * (struct rp_process).  NULL on ENOMEM.
 */
static struct rp_task *alloc_child(struct rp_system *sys, unsigned long flags)
{
	struct rp_process *proc;

	if (flags & CLONE_THREAD)	/* CLONE_SIGHAND too: check_flags */
		return rp_task_alloc(sys);
	proc = rp_process_alloc(sys);
	if (!proc)
		return NULL;
	if (!(flags & CLONE_SIGHAND))
		proc->task.sighand = rp_process_sighand(proc);
	return &proc->task;
}

/*
 * Share or copy the caller's tables, mask, limits and priorities, under its
 * siglock (exec may switch its table; sigaction, sigprocmask, setrlimit and
 * setpriority write them), and open the fork window (@rec, NULL for a
 * thread).  A signal already pending restarts the fork: -RP_ERESTARTNOINTR
 * before anything is shared; -ENOMEM if the caller's private action table
 * cannot be copied, or its own limits not shared (the child's ->extra).
 * Else the caller's RLIMIT_NPROC in *@nproc.
 */
static int copy_from_caller(struct rp_task *self, struct rp_task *p, unsigned long flags,
			    struct rp_pidns *ns, struct rp_fork_record *rec, rlim_t *nproc)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);	/* @self runs: never NULL */

	if (rp_signal_pending_locked(self)) {
		rp_unlock_sighand(sh);
		return -RP_ERESTARTNOINTR;
	}
	*nproc = rp_task_rlimit(self, RLIMIT_NPROC)->rlim_cur;
	if (flags & CLONE_SIGHAND) {
		uatomic_inc(&sh->count);
		p->sighand = sh;
	} else if (rp_sighand_copy_actions(p->sighand, sh)) {
		rp_unlock_sighand(sh);
		return -ENOMEM;
	}
	if (flags & CLONE_THREAD) {
		uatomic_inc(&self->signal->sigcnt);
		p->signal = self->signal;
	} else if (rp_signal_share_rlimits(p->signal, self->signal)) {
		rp_unlock_sighand(sh);
		return -ENOMEM;
	} else {
		p->signal->dumpable = self->signal->dumpable;
	}
	p->blocked = self->blocked;
	rp_prio_copy(self, p);
#ifdef RP_BREAK_THREAD_STOP_JOIN_EARLY
	/* A stop that begins before the link marks the group without @p. */
	if (flags & CLONE_THREAD)
		rp_jobctl_join_group_stop(self, p);
#endif
	if (rec)
		rp_fork_record_open(self, rec, ns);
	rp_unlock_sighand(sh);
	return 0;
}

/* Close the fork window on a failure before the link. */
static void cancel_record(struct rp_task *self, struct rp_fork_record *rec)
{
	struct rp_sighand *sh;

	if (!rec)
		return;
	sh = rp_lock_task_sighand(self);
	rp_fork_record_close(rec, NULL, sh);
	rp_unlock_sighand(sh);
}

/* Must the fork be abandoned?  The caller's group is dying (siglock held). */
static bool fork_interrupted(const struct rp_task *self)
{
	rp_assert_siglock_held(self);
	return (self->signal->flags & RP_SIGNAL_GROUP_EXIT) ||
	       (self->pending.signal & RP_SIGBIT(SIGKILL)) ||
	       (self->signal->shared_pending.signal & RP_SIGBIT(SIGKILL));
}

/* Does @psig, or an ancestor of it, take orphans (PR_SET_CHILD_SUBREAPER)? */
static bool subreaper_above(const struct rp_signal *psig)
{
	return CMM_LOAD_SHARED(psig->has_child_subreaper) ||
	       CMM_LOAD_SHARED(psig->is_child_subreaper);
}

/* A new process's own group: its ids, and what it inherits (update gate held). */
static void init_group(struct rp_task *p)
{
	struct rp_signal *sig = p->signal;

	RP_DEBUG_BUG_ON(p->pid != rp_signal_leader_pid(sig));
	rp_pid_attach_new(p->pid);
#ifdef RP_BREAK_FORK_SUBREAPER_EARLY
	/* Copied before the link only: a walk that marks the parent and reads
	   its children meanwhile (both under the gate shared) misses the child. */
	sig->has_child_subreaper = subreaper_above(p->real_parent->signal);
#endif
	sig->nr_threads = 1;
	sig->live = 1;
}

/*
 * The parent's subreaper mark, read after @p is on its children list.
 * prctl(PR_SET_CHILD_SUBREAPER)'s walk runs under the gate shared too: it
 * stores a process's mark, then reads that process's children.  We link,
 * then read the mark: the full barrier pairs with the walk's between its
 * store and its read, so the walk sees @p (and marks it) or we see the
 * mark.  The mark is only ever set, so both storing it is harmless.
 */
static void copy_subreaper_mark(struct rp_task *p)
{
#ifndef RP_BREAK_FORK_SUBREAPER_EARLY
	cmm_smp_mb();
	if (subreaper_above(p->real_parent->signal))
		CMM_STORE_SHARED(p->signal->has_child_subreaper, true);
#else
	(void)p;
#endif
}

/*
 * Fill in the family fields, then publish: each insertion (liburcu's
 * _rcu adds) comes after the fields its readers use.  Children join their
 * parent's list at the tail, as Linux's: wait reports, and a reparenting
 * notifies, the oldest first.  @parent is the child's real parent: @self,
 * or for a thread or CLONE_PARENT @self's real parent, read where its T
 * keeps it (lock_thread).
 * The update lock, or for a plain fork the gate shared and the object
 * locks (lock_family); and the caller's siglock.
 */
static void link_child(struct rp_task *self, struct rp_task *p, unsigned long flags,
		       struct rp_task *parent)
{
	rp_assert_siglock_held(self);
	p->flags |= RP_PF_FORKNOEXEC;
	p->real_parent = p->parent = parent;
	rp_assert_tree_write(self->sys, p->real_parent);
	p->self_exec_id = self->self_exec_id;
	p->parent_exec_id = (flags & (CLONE_PARENT | CLONE_THREAD)) ?
			    self->parent_exec_id : self->self_exec_id;
	if (flags & CLONE_THREAD) {
		p->group_leader = self->group_leader;
		p->exit_signal = -1;
		/* The thread list and its count: G (lock_thread), as a reap's. */
		rp_assert_group_write(self->sys, p->signal);
		p->signal->nr_threads++;
		uatomic_inc(&p->signal->live);
#ifndef RP_BREAK_THREAD_STOP_JOIN_EARLY
		/* In the hold that links it: a group stop marks @p or counts it. */
		rp_jobctl_join_group_stop(self, p);
#endif
	} else {
		p->group_leader = p;
		/* CLONE_PARENT: the parent gets the signal the caller would have sent. */
		p->exit_signal = (flags & CLONE_PARENT) ? self->group_leader->exit_signal :
							  (int8_t)(flags & CSIGNAL);
		init_group(p);
	}
	cds_list_add_tail_rcu(&p->thread_node, &p->signal->thread_head);
	if (!(flags & CLONE_THREAD)) {
		/* Its tie before it is a member: its group and session are ours (jobc.h). */
		rp_jobc_pair(self->signal, p->real_parent, 1);
		rp_pgrp_fork_link(self, p);	/* member lists and sys->tasks */
#ifndef RP_BREAK_TTY_COPY_EARLY
		/* The caller's terminal, with its session, in this hold (copy_process). */
		rp_signal_set_tty(p->signal, self->signal->tty);
#endif
		RP_RACE_POINT(RP_RACE_FORK_SUBREAPER_COPY, self);
		rp_hlist_tail_add_pub(&p->sibling, &p->real_parent->children);
		copy_subreaper_mark(p);
	}
	/* Found by number last, complete: pairs with rcu_dereference in rp_find_task_rcu. */
	rcu_assign_pointer(p->pid->task, p);
}

/*
 * Close the fork window and link @p, in one hold of the caller's siglock: a
 * fatal signal abandons the fork; else @p gets the group signals recorded
 * and is linked, so a group walker, which reads the parent's successor
 * under this siglock, either recorded its signal or will meet @p.  Then
 * the priorities again: a group change that set the caller after the first
 * copy passed it before @p was behind it.  RP_BREAK_CHECK_BEFORE_LINK
 * closes the window in a hold of its own; RP_BREAK_PRIO_NO_FORK_ORDER
 * skips the second copy.
 */
static int link_under_siglock(struct rp_task *self, struct rp_task *p, unsigned long flags,
			      struct rp_fork_record *rec, struct rp_task *parent)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);
#ifdef RP_BREAK_THREAD_KILL_UNCHECKED
	/* A thread trusts copy_from_caller's look, before its locks: a group
	   kill since then misses it, and it outlives its process's death. */
	int err = (rec && fork_interrupted(self)) ? -RP_ERESTARTNOINTR : 0;
#else
	int err = fork_interrupted(self) ? -RP_ERESTARTNOINTR : 0;
#endif

	if (rec)
		rp_fork_record_close(rec, err ? NULL : p, sh);
#ifdef RP_BREAK_CHECK_BEFORE_LINK
	rp_unlock_sighand(sh);
	for (int i = 0; i < 16; i++)
		RP_TORTURE_DELAY();
	sh = rp_lock_task_sighand(self);
#endif
	if (!err) {
		link_child(self, p, flags, parent);
#ifndef RP_BREAK_PRIO_NO_FORK_ORDER
		rp_prio_copy(self, p);
#endif
	}
	rp_unlock_sighand(sh);
	return err;
}

/*
 * Does the child become its namespace's init (number 1 at the deepest of
 * its levels @lv; NULL: the root namespace's only)?  That fork makes the
 * namespace's reaper, and its failure ends the namespace.
 */
static bool makes_ns_init(const struct rp_pid_levels *lv)
{
	return lv && lv->up[lv->level - 1].nr == 1;
}

/*
 * Take the update gate for the link: shared, with the object locks after
 * it (lock_family), for a plain fork or clone of a process, or a thread,
 * by an untraced caller in rcu mode, into the root namespace or a nested
 * one whose init it does not make (docs/process.md, "What is built"); true
 * then.  Every other clone takes it exclusive, as every fork in the other
 * modes: CLONE_PARENT (a second parent's T), a traced caller or
 * CLONE_PTRACE (the ptrace set-up), CLONE_NEWPID and the first fork into
 * an unshared namespace (a namespace's init and its failure's end, under
 * the exclusive gate).  A nested namespace's count of pids takes a shared
 * fork's add atomically (task/pidns.c), and its end, under the exclusive
 * gate, comes wholly before the fork's hold (which then finds it dying)
 * or after (and kills the child).  ->ptrace is read inside the gate: an
 * attach under it shared (ptrace.c, protocol (f)) that links the caller
 * after this read comes after the fork, whose child starts untraced, as
 * Linux's kernel_clone reads current->ptrace once.
 */
static bool enter_gate(struct rp_task *self, unsigned long flags, const struct rp_pid_levels *lv)
{
	struct rp_sync *sync = &self->sys->sync;

	if (sync->mode == RP_SYNC_RCU && !(flags & (CLONE_PARENT | CLONE_PTRACE | CLONE_NEWPID)) &&
	    !makes_ns_init(lv)) {
		rp_update_lock_shared(sync);
		if (!self->ptrace)
			return true;
		rp_update_unlock_shared(sync);
	}
	rp_update_lock(sync);
	return false;
}

/*
 * RP_BREAK_THREAD_NO_PARENT_RECHECK keeps the real parent a thread fork
 * read before its T: a reparenting in between has moved the group's other
 * threads, and the new one goes to the parent that gave them away.
 * RP_BREAK_THREAD_PARENT_UNLOCKED tells the checker it took that T and
 * takes nothing: a reparenting's walk of the thread list runs inside the
 * fork's hold and misses the new thread.
 */
#ifdef RP_BREAK_THREAD_NO_PARENT_RECHECK
#define THREAD_PARENT_RECHECK false
#else
#define THREAD_PARENT_RECHECK true
#endif

static void thread_parent_lock(struct rp_task *parent)
{
#ifdef RP_BREAK_THREAD_PARENT_UNLOCKED
	rp_lockdep_acquire_untaken_obj(RP_LOCK_TREE, &parent->tree_lock);
#else
	rp_tree_lock(parent);
#endif
}

static void thread_parent_unlock(struct rp_task *parent)
{
#ifdef RP_BREAK_THREAD_PARENT_UNLOCKED
	rp_lockdep_release_obj(RP_LOCK_TREE, &parent->tree_lock);
#else
	rp_tree_unlock(parent);
#endif
}

/*
 * A thread's object locks under the gate shared: G of @self's group (the
 * thread list and nr_threads, which setpgid, exec's looks and a thread's
 * release read or write under it), then, in a read section, T of the
 * group's real parent, the new thread's: read under RCU, and again under
 * its T, since a plain exit of that parent moves the group's threads to
 * a reaper under it (exit.c's reparent_threads walks the thread list
 * there), so the walk sees the new thread or the fork sees the reaper.
 * The same T keeps a plain ptrace attach or detach of the leader, which
 * judges the group one thread under it, on one side of the fork.  The
 * parent, whose T is held, is returned; the read section stays open
 * until unlock_family.  The siglock comes later, in link_under_siglock.
 */
static struct rp_task *lock_thread(struct rp_task *self)
{
	struct rp_task *parent;

	rp_group_lock(self->signal);
	rp_read_lock(&self->sys->sync);
	for (;;) {
		parent = rcu_dereference(self->real_parent);
		RP_RACE_POINT(RP_RACE_THREAD_PARENT_READ, self);
		thread_parent_lock(parent);
		if (!THREAD_PARENT_RECHECK || CMM_LOAD_SHARED(self->real_parent) == parent)
			break;
		thread_parent_unlock(parent);
	}
	RP_RACE_POINT(RP_RACE_THREAD_LOCKED, self);
	return parent;
}

/*
 * A plain fork's object locks (protocol (c)'s fork half): T of @self, the
 * child's parent, and only then its group's id, frozen by it (a move of
 * @self's process under the gate shared holds T of each of its threads:
 * pgrp/setpgid.c), and its M.  Not the session's: the child joins a group
 * that has a member, @self, so the session's list of groups does not
 * change (protocol (i)).  A thread's are lock_thread's, its parent's T in
 * @held.  The siglock and L come later, in link_under_siglock.  The
 * child's real parent, whose T is held.
 */
static struct rp_task *lock_family(struct rp_task *self, unsigned long flags,
				   struct rp_lock_set *held)
{
	held->n = 0;
	if (flags & CLONE_THREAD) {
		rp_tree_set_add(held, lock_thread(self));
		return held->obj[0];
	}
	rp_tree_lock(self);
	rp_member_set_add(held, self->signal->pgrp);
	RP_RACE_POINT(RP_RACE_FORK_IDS_READ, self);
	rp_member_lock_set(held, 0);
	return self;
}

static void unlock_family(struct rp_task *self, unsigned long flags,
			  const struct rp_lock_set *held)
{
	if (flags & CLONE_THREAD) {
		thread_parent_unlock(held->obj[0]);
		rp_read_unlock(&self->sys->sync);
		rp_group_unlock(self->signal);
		return;
	}
	rp_member_unlock_set(held, 0);
	rp_tree_unlock(self);
}

/*
 * Number @p, then publish and link it under the update gate, or fail with
 * nothing linked.  The number is claimed before the gate, as Linux's
 * alloc_pid comes before tasklist_lock: the allocator needs no lock
 * (task/pidmap.h), and the gate is held for the links alone.
 */
static int attach_child(struct rp_task *self, struct rp_task *p, unsigned long flags,
			struct rp_pidns *ns, const struct rp_set_tid *st,
			struct rp_fork_record *rec)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_pid_levels *lv;
	struct rp_task *parent;
	struct rp_lock_set held;
	bool shared;
	int err = 0;

	p->pid = rp_pid_alloc_for(p, ns, st, &lv, &err);
	if (!p->pid) {
		cancel_record(self, rec);
		return err;
	}
#ifdef RP_BREAK_PIDNS_CHECK_EARLY
	/* Checked before the lock: an init reaped before the link goes unseen. */
	bool closed = CMM_LOAD_SHARED(ns->dying);
#endif
	RP_RACE_POINT(RP_RACE_FORK_LINKS, self);
	shared = enter_gate(self, flags, lv);
	rp_pid_publish(p->pid, lv);	/* under the pid's bucket lock (B) */
	/*
	 * alloc_pid's PIDNS_ADDING check: a namespace whose init is gone
	 * takes no pid, checked in the hold that links the child, so that
	 * init's end (which marks the namespace under this lock) either comes
	 * first and the fork fails, or comes after and finds the child
	 * (docs/namespaces.md, "Init's end and a fork in flight").
	 * RP_BREAK_PIDNS_CHECK_EARLY checks before the lock.  Under the gate
	 * shared the mark is stable: init's end makes it under the gate
	 * exclusive.
	 */
#ifndef RP_BREAK_PIDNS_CHECK_EARLY
	bool closed = ns->dying;
#endif
	if (shared) {
		parent = lock_family(self, flags, &held);
		/* What the update lock implied: the record's close sends under RCU. */
		rp_read_lock(sync);
		err = closed ? -ENOMEM : 0;	/* untraced: no ptrace set-up */
	} else {
		parent = (flags & (CLONE_PARENT | CLONE_THREAD)) ? self->real_parent : self;
		err = closed ? -ENOMEM : rp_ptrace_prepare_child(self, p, flags);
	}
	if (err)
		cancel_record(self, rec);
	else
		err = link_under_siglock(self, p, flags, rec, parent);
	if (shared) {
		rp_read_unlock(sync);
		unlock_family(self, flags, &held);
	}
	if (err && shared) {
		/* A pid's last detach may end its number's namespace: exclusive. */
		rp_update_unlock_shared(sync);
		rp_update_lock(sync);
		shared = false;
	}
	if (err) {
		rp_pid_detach(p->pid);
		p->pid = NULL;
	} else if (!shared) {
		rp_ptrace_init_task(self, p, flags);	/* takes the siglocks */
	}
	if (shared)
		rp_update_unlock_shared(sync);
	else
		rp_update_unlock(sync);
	return err;
}

/* Undo a child that was never published. */
static void free_unlinked(struct rp_task *p, bool charged)
{
	if (charged)
		rp_nproc_uncharge(p->sys, p->cred->user);
	if (p->sighand)
		rp_sighand_put(p->sighand);
	rp_task_free_now(p);		/* drops ->signal and ->cred */
	rp_sync_quiescent();		/* the failed fork returns: after its frees (docs/sync.md) */
}

/*
 * Linux's copy_process, the child going into @ns, numbered as @st says
 * (clone3's set_tid, or NULL): its tid as @self sees it, or -errno.
 */
static pid_t copy_process(struct rp_task *self, unsigned long flags, struct rp_pidns *ns,
			  const struct rp_set_tid *st, struct rp_task **child)
{
	struct rp_fork_record record, *rec = (flags & CLONE_THREAD) ? NULL : &record;
	struct rp_task *p;
	rlim_t nproc;
	pid_t tid;
	int err;

	p = alloc_child(self->sys, flags);
	if (!p)
		return -ENOMEM;
	p->cred = rp_cred_get(self->cred);
	err = copy_from_caller(self, p, flags, ns, rec, &nproc);
	if (err) {
		free_unlinked(p, false);
		return err;
	}
	memcpy(p->comm, self->comm, sizeof(p->comm));
	/* The fork window is open: widen it (torture). */
	RP_TORTURE_DELAY();
	/* RLIMIT_NPROC, counted first, then compared; released in rp_release_task. */
	err = rp_nproc_charge(self, p->cred, nproc);
	if (err) {
		cancel_record(self, rec);
		free_unlinked(p, false);
		return err;
	}
	/* Linux's copy_process: the child keeps the mark; the caller is under the limit. */
	p->flags = self->flags & RP_PF_NPROC_EXCEEDED;
	CMM_STORE_SHARED(self->flags, self->flags & ~RP_PF_NPROC_EXCEEDED);
#ifdef RP_BREAK_TTY_COPY_EARLY
	/* The terminal copied before the hold that links the child: the
	   session's loss meanwhile does not see the child and leaves it one. */
	if (!(flags & CLONE_THREAD))
		p->signal->tty = CMM_LOAD_SHARED(self->signal->tty);
#endif
	err = attach_child(self, p, flags, ns, st, rec);
	if (err) {
		free_unlinked(p, true);
		return err;
	}
	rp_read_lock(&self->sys->sync);
	tid = rp_pid_nr_ns(p->pid, rp_task_pidns(self));
	rp_read_unlock(&self->sys->sync);
	if (child)
		*child = rp_task_get(p);
	return tid;
}

/* clone and clone3 (kernel_clone): @tids and @ntids are set_tid's, NULL and 0 for none. */
static pid_t clone_with(struct rp_task *self, unsigned long flags, const pid_t *tids,
			size_t ntids, struct rp_task **child)
{
	struct rp_set_tid st = { tids, ntids, false };
	struct rp_pidns *ns;
	pid_t tid = check_flags(self, flags);
	int err;

	if (tid)
		return tid;
	if (rp_task_exited(self))
		return -ESRCH;
	ns = child_ns(self, flags, &err);
	if (!ns)
		return err;
	/* alloc_pid: no more numbers than the child has levels. */
	if (ntids > ns->level + 1) {
		rp_pidns_put(ns);
		return -EINVAL;
	}
	st.capable = rp_cred_checkpoint_restore_capable(self->cred);
	tid = copy_process(self, flags, ns, ntids ? &st : NULL, child);
	rp_pidns_put(ns);
	rp_sync_quiescent();
	return tid;
}

pid_t rp_clone(struct rp_task *self, unsigned long flags, struct rp_task **child)
{
	return clone_with(self, flags, NULL, 0, child);
}

/* Are the bytes of @args past the fields known here zero (copy_struct_from_user)? */
static bool tail_zero(const struct rp_clone_args *args, size_t size)
{
	const unsigned char *tail = (const unsigned char *)args;

	for (size_t i = sizeof(*args); i < size; i++)
		if (tail[i])
			return false;
	return true;
}

pid_t rp_clone3(struct rp_task *self, const struct rp_clone_args *args, size_t size,
		struct rp_task **child)
{
	/* copy_clone_args_from_user and clone3_args_valid. */
	if (size < sizeof(*args))
		return -EINVAL;
	if (!tail_zero(args, size))
		return -E2BIG;
	if (args->set_tid_size > RP_PIDNS_MAX_LEVEL || (!args->set_tid) != (!args->set_tid_size))
		return -EINVAL;
	if ((args->flags & CSIGNAL) || args->exit_signal >= RP_NSIG)
		return -EINVAL;
	return clone_with(self, (unsigned long)(args->flags | args->exit_signal), args->set_tid,
			  args->set_tid_size, child);
}

pid_t rp_fork(struct rp_task *self, struct rp_task **child)
{
	return rp_clone(self, SIGCHLD, child);
}
