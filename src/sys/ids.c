/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Ids, credentials, capabilities, rlimits and prctl of the calling task. */
#include <errno.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include "../task/task.h"
#include "../task/objects.h"
#include "../debug/racepoint.h"

/*
 * A review found (docs/verification.md, "Bugs found by review") that
 * these calls announced no quiescent state, so under QSBR a registered
 * thread looping on rp_getppid held back every grace period.
 * RP_BREAK_QSBR_NO_QUIESCE restores that for the calls of this file that
 * had none (getpid, getppid, getuid, setresuid, get/setrlimit, prctl).
 */
#ifdef RP_BREAK_QSBR_NO_QUIESCE
#define ids_quiescent() do { } while (0)
#else
#define ids_quiescent() rp_sync_quiescent()
#endif

pid_t rp_getpid(struct rp_task *self)
{
	ids_quiescent();
	return rp_task_exited(self) ? -ESRCH : rp_own_vnr(self, rp_signal_leader_pid(self->signal));
}

pid_t rp_gettid(struct rp_task *self)
{
	rp_sync_quiescent();
	return rp_task_exited(self) ? -ESRCH : rp_own_vnr(self, self->pid);
}

pid_t rp_getppid(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	pid_t ppid;

	ids_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	rp_read_lock(sync);
	/* Pairs with the reparenting store of real_parent (update lock). */
	ppid = rp_pid_vnr(rp_signal_leader_pid(rcu_dereference(self->real_parent)->signal), self);
	rp_read_unlock(sync);
	return ppid;
}

uid_t rp_getuid(struct rp_task *self)
{
	ids_quiescent();
	return self->cred->uid;
}

uid_t rp_geteuid(struct rp_task *self)
{
	rp_sync_quiescent();
	return self->cred->euid;
}

static bool cap_valid(int cap)
{
	return cap >= 0 && cap < 64;
}

int rp_cap_has(struct rp_task *self, int cap)
{
	rp_sync_quiescent();
	return cap_valid(cap) ? rp_cred_capable(self->cred, cap) : -EINVAL;
}

/*
 * Linux's flag_nproc_exceeded, for a new real user: one already over
 * @self's RLIMIT_NPROC does not fail the set*uid call (programs do not check
 * it) but marks @self, and its next exec fails while the user is still
 * over (rp_execve).  Root's user is exempt.  @self's siglock held (limits).
 */
static void flag_nproc_exceeded(struct rp_task *self, const struct rp_cred *new)
{
	rp_assert_siglock_held(self);
	if (new->uid != 0 &&
	    rp_nproc_over(self->sys, new->user, rp_task_rlimit(self, RLIMIT_NPROC)->rlim_cur))
		CMM_STORE_SHARED(self->flags, self->flags | RP_PF_NPROC_EXCEEDED);
	else
		CMM_STORE_SHARED(self->flags, self->flags & ~RP_PF_NPROC_EXCEEDED);
}

/*
 * RP_BREAK_QUIESCENT_BEFORE_FREE: set*uid and cap_drop announce their
 * quiescent state at their start only, before they free the old
 * credentials, so that at the backlog's bound the free outlives the call.
 */
#ifdef RP_BREAK_QUIESCENT_BEFORE_FREE
#define QUIESCENT_AFTER_FREE false
#else
#define QUIESCENT_AFTER_FREE true
#endif

/* New credentials for @self: ids and capability sets given; 0 or -ENOMEM. */
static int set_creds(struct rp_task *self, uid_t uid, uid_t euid, uid_t suid,
		     uint64_t caps, uint64_t permitted)
{
	struct rp_cred *old = self->cred;
	struct rp_cred *new = rp_cred_alloc(self->sys, self, uid, euid, suid, caps);
	bool changed_identity;
	struct rp_sighand *sh;

	if (!new)
		return -ENOMEM;
	new->caps_permitted = permitted;
	/*
	 * Changed identity (Linux's commit_creds): no longer dumpable (ptrace
	 * needs CAP_SYS_PTRACE, no core is dumped), and no parent-death signal.
	 */
	changed_identity = new->euid != old->euid || (permitted & ~old->caps_permitted);
	if (changed_identity || new->user != old->user) {
		sh = rp_lock_task_sighand(self);
		if (sh) {
			if (changed_identity)
				self->signal->dumpable = false;
			if (new->user != old->user)
				flag_nproc_exceeded(self, new);
			rp_unlock_sighand(sh);
		}
	}
	if (changed_identity)
		CMM_STORE_SHARED(self->pdeath_signal, 0);
	rp_commit_creds(self, new);
	/*
	 * The callers announced their quiescent state first; the old
	 * credentials' free comes after it.  At the backlog's bound that free
	 * waits on this thread for its next quiescent state: this one, not
	 * one after the call has returned (docs/sync.md).
	 */
	if (QUIESCENT_AFTER_FREE)
		rp_sync_quiescent();
	return 0;
}

int rp_cap_drop(struct rp_task *self, int cap)
{
	const struct rp_cred *c = self->cred;
	uint64_t bit;

	rp_sync_quiescent();
	if (!cap_valid(cap))
		return -EINVAL;
	if (rp_task_exited(self))
		return -ESRCH;
	bit = 1ULL << cap;
	return set_creds(self, c->uid, c->euid, c->suid, c->caps & ~bit,
			 c->caps_permitted & ~bit);
}

static bool is_one_of(uid_t id, const struct rp_cred *c)
{
	return id == c->uid || id == c->euid || id == c->suid;
}

/*
 * Linux's cap_emulate_setxuid: losing every root id clears both sets;
 * leaving euid 0 clears the effective set; regaining euid 0 restores it.
 */
static void emulate_setxuid(const struct rp_cred *old, uid_t uid, uid_t euid,
			    uid_t suid, uint64_t *caps, uint64_t *permitted)
{
	*caps = old->caps;
	*permitted = old->caps_permitted;
	if ((old->uid == 0 || old->euid == 0 || old->suid == 0) &&
	    uid != 0 && euid != 0 && suid != 0)
		*caps = *permitted = 0;
	else if (old->euid == 0 && euid != 0)
		*caps = 0;
	else if (old->euid != 0 && euid == 0)
		*caps = *permitted;
}

int rp_setresuid(struct rp_task *self, uid_t ruid, uid_t euid, uid_t suid)
{
	const struct rp_cred *old = self->cred;
	bool privileged = rp_cred_capable(old, RP_CAP_SETUID);
	uint64_t caps, permitted;

	ids_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	if (!privileged && ((ruid != (uid_t)-1 && !is_one_of(ruid, old)) ||
			    (euid != (uid_t)-1 && !is_one_of(euid, old)) ||
			    (suid != (uid_t)-1 && !is_one_of(suid, old))))
		return -EPERM;
	ruid = ruid == (uid_t)-1 ? old->uid : ruid;
	euid = euid == (uid_t)-1 ? old->euid : euid;
	suid = suid == (uid_t)-1 ? old->suid : suid;
	emulate_setxuid(old, ruid, euid, suid, &caps, &permitted);
	return set_creds(self, ruid, euid, suid, caps, permitted);
}

/* Linux's setuid(2): all three ids with CAP_SETUID, else only the effective one. */
int rp_setuid(struct rp_task *self, uid_t uid)
{
	const struct rp_cred *old = self->cred;

	rp_sync_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	if (rp_cred_capable(old, RP_CAP_SETUID))
		return rp_setresuid(self, uid, uid, uid);
	if (uid != old->uid && uid != old->suid)
		return -EPERM;
	return rp_setresuid(self, (uid_t)-1, uid, (uid_t)-1);
}

int rp_getrlimit(struct rp_task *self, int resource, struct rlimit *rlim)
{
	struct rp_sighand *sh;

	ids_quiescent();
	if (resource < 0 || resource >= RLIM_NLIMITS)
		return -EINVAL;
	sh = rp_lock_task_sighand(self);
	if (!sh)
		return -ESRCH;
	*rlim = *rp_task_rlimit(self, resource);
	rp_unlock_sighand(sh);
	return 0;
}

int rp_setrlimit(struct rp_task *self, int resource, const struct rlimit *rlim)
{
	struct rp_sighand *sh;
	struct rlimit *cur;
	int err = 0;

	ids_quiescent();
	if (resource < 0 || resource >= RLIM_NLIMITS || rlim->rlim_cur > rlim->rlim_max)
		return -EINVAL;
	sh = rp_lock_task_sighand(self);
	if (!sh)
		return -ESRCH;
	if (rlim->rlim_max > rp_task_rlimit(self, resource)->rlim_max &&
	    !rp_cred_capable(self->cred, RP_CAP_SYS_RESOURCE))
		err = -EPERM;
	else if ((cur = rp_task_rlimit_write(self, resource)))
		*cur = *rlim;
	else
		err = -ENOMEM;
	rp_unlock_sighand(sh);
	return err;
}

/* The thread of @sig after the list position @at (the list's head: the first); NULL past the last. */
static struct rp_task *thread_after(struct rp_signal *sig, struct cds_list_head *at)
{
	/* Pairs with cds_list_add_tail_rcu in fork. */
	struct cds_list_head *n = rcu_dereference(at->next);

	return n == &sig->thread_head ? NULL : cds_list_entry(n, struct rp_task, thread_node);
}

/* The child after the children-list position @next (a head's first, or a sibling's next). */
static struct rp_task *child_at(struct cds_hlist_node *next)
{
	return next ? caa_container_of(next, struct rp_task, sibling) : NULL;
}

/* Pairs with the publication of a child on its parent's list (fork, exec's switch). */
#define first_child(t)	child_at(rcu_dereference((t)->children.head.next))
#define next_child(c)	child_at(rcu_dereference((c)->sibling.next))

/*
 * Mark every descendant process of @p's group as having a subreaper above it
 * (the update side, shared or exclusive, and a read section).  Children
 * hang off the thread that forked them: walk them all.  The flag is only
 * ever set, so two walks at once store the same value; a walk that finds
 * a child marked skips its subtree, which another walk may still be
 * marking: that walk holds the update gate shared, so no reader of the
 * flag that holds the update lock (exit's reaper choice) runs before it
 * is done.  A plain fork holds the gate shared too: it reads its parent's
 * flag after linking the child, and the walk a process's children after
 * marking it, a full barrier in each, so one of them sees the other.
 *
 * Depth first without recursion, so that the stack does not grow with the
 * tree (a chain of processes may be as deep as pid_max): a marked child's
 * group is walked next, and a group walked to its end gives the walk back
 * to the list it was found on, after it, through its leader's real_parent.
 * No child leaves a list and no leader changes meanwhile (exit, reaping,
 * reparenting and exec's switch take the update side exclusive, and a
 * plain exit that moves children does not run beside a walk:
 * set_child_subreaper's count); a plain fork may add a child to a list
 * being walked, which the barriers above settle.  A group's child on its parent's list is its leader (fork links
 * the leader; exec's switch puts the new leader in the old one's place).
 */
static void propagate_has_subreaper(struct rp_task *p)
{
	struct rp_signal *sig = p->signal;
	struct rp_task *entered = NULL;	/* the child whose group is walked; NULL: @p's */
	struct rp_task *thread = thread_after(sig, &sig->thread_head);
	struct rp_task *child = thread ? first_child(thread) : NULL;

	for (;;) {
		if (child) {
			if (CMM_LOAD_SHARED(child->signal->has_child_subreaper)) {
				child = next_child(child);	/* known, or being marked */
				continue;
			}
			CMM_STORE_SHARED(child->signal->has_child_subreaper, true);
			/* Marked, then its children read: pairs with fork's link-then-read. */
			cmm_smp_mb();
			RP_RACE_POINT(RP_RACE_SUBREAPER_WALK, child);
			entered = child;
			sig = child->signal;
			thread = thread_after(sig, &sig->thread_head);
			child = thread ? first_child(thread) : NULL;
			continue;
		}
		if (thread && (thread = thread_after(sig, &thread->thread_node))) {
			child = first_child(thread);
			continue;
		}
		if (!entered)
			return;
		/* @entered's group is done: on with the list it hangs on. */
		child = next_child(entered);
		thread = rcu_dereference(entered->real_parent);
		sig = thread->signal;
		entered = sig == p->signal ? NULL : thread->group_leader;
	}
}

/* Leave the update side taken as @exclusive says. */
static void update_unlock_as(struct rp_sync *sync, bool exclusive)
{
	if (exclusive)
		rp_update_unlock(sync);
	else
		rp_update_unlock_shared(sync);
}

/*
 * The first operation converted to rcu mode's object locks (docs/process.md,
 * "Without the update lock"): the update gate shared, then G of the
 * caller's group for its own flag; the walk in a read section inside the
 * gate.  RP_BREAK_SUBREAPER_WALK_UNGATED walks after leaving the gate: an
 * exclusive holder that comes meanwhile (an exit choosing a reaper) may find
 * a subtree another walk skipped still unmarked.
 */
static int set_child_subreaper(struct rp_task *self, bool on)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_system *sys = self->sys;
	bool exclusive = false;

	rp_update_lock_shared(sync);
	rp_group_lock(self->signal);
	rp_assert_group_write(self->sys, self->signal);
	CMM_STORE_SHARED(self->signal->is_child_subreaper, on);
	rp_group_unlock(self->signal);
	if (on) {
		/*
		 * A plain exit moving children beside the walk would change
		 * the real_parent it climbs by: counted, full barrier, the
		 * exits' count read (pairs with proc/exit.c's begin_moves);
		 * if one runs, the walk takes the gate exclusive, which waits
		 * for it.
		 */
		uatomic_inc(&sys->subreaper_walks);
		cmm_smp_mb();
		if (uatomic_read(&sys->exit_moves)) {
			uatomic_dec(&sys->subreaper_walks);
			rp_update_unlock_shared(sync);
			rp_update_lock(sync);
			exclusive = true;
		}
	}
#ifdef RP_BREAK_SUBREAPER_WALK_UNGATED
	update_unlock_as(sync, exclusive);
#endif
	if (on) {
		/* Set, then our children read: pairs with fork's link-then-read. */
		cmm_smp_mb();
		rp_read_lock(sync);
		propagate_has_subreaper(self);
		rp_read_unlock(sync);
		if (!exclusive) {
			cmm_smp_mb();	/* the marks before the count: pairs with begin_moves */
			uatomic_dec(&sys->subreaper_walks);
		}
	}
#ifndef RP_BREAK_SUBREAPER_WALK_UNGATED
	update_unlock_as(sync, exclusive);
#endif
	return 0;
}

static int set_dumpable(struct rp_task *self, unsigned long value)
{
	struct rp_sighand *sh;

	if (value > 1)
		return -EINVAL;
	sh = rp_lock_task_sighand(self);
	if (!sh)
		return -ESRCH;
	self->signal->dumpable = value;
	rp_unlock_sighand(sh);
	return 0;
}

int rp_prctl(struct rp_task *self, int option, unsigned long arg2)
{
	ids_quiescent();
	if (rp_task_exited(self))
		return -ESRCH;
	switch (option) {
	case PR_SET_CHILD_SUBREAPER:
		return set_child_subreaper(self, arg2 != 0);
	case PR_GET_CHILD_SUBREAPER:
		/* Unlocked: one load, against another thread's store under G. */
		*(int *)arg2 = CMM_LOAD_SHARED(self->signal->is_child_subreaper);
		return 0;
	case PR_SET_PDEATHSIG:
		if (arg2 >= RP_NSIG)
			return -EINVAL;
		CMM_STORE_SHARED(self->pdeath_signal, (int)arg2);
		return 0;
	case PR_GET_PDEATHSIG:
		*(int *)arg2 = CMM_LOAD_SHARED(self->pdeath_signal);
		return 0;
	case PR_SET_DUMPABLE:
		return set_dumpable(self, arg2);
	case PR_GET_DUMPABLE:
		return CMM_LOAD_SHARED(self->signal->dumpable);
	default:
		return -EINVAL;
	}
}
