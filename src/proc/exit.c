/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exit, reparenting and release, as Linux's kernel/exit.c.
 *
 * A dying thread's children go to the tail of a reaper's as one block, in
 * their fork order (Group 4: rp_hlist_tail_splice_pub), after each child's
 * real_parent names the reaper: wait's RCU walk, which may be on the moved
 * block, or on the reaper's list and run on into it, filters by real_parent.  A child's
 * new state becomes visible (exit_state, the splice) before its parent's
 * waiters are woken, since they look under RCU, not under our lock.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "exit.h"
#include "../signal/signal.h"
#include "ptrace.h"
#include "../pgrp/pgrp.h"
#include "../task/jobc.h"
#include "../task/objects.h"
#include "../task/relations.h"
#include "../tty/ctty.h"
#include "../timers/hooks.h"
#include "../debug/racepoint.h"

#ifdef RP_BREAK_TIMER_RELEASE_APART
#define TIMERS_DISARMED_AT_DETACH false
#else
#define TIMERS_DISARMED_AT_DETACH true
#endif

#ifdef RP_BREAK_EXEC_INIT_REAPER
#define KEEP_REAPER true
#else
#define KEEP_REAPER false
#endif

/* Is @t's group down to @t alone on its thread list?  (update lock or G held) */
static bool alone_in_group(const struct rp_task *t)
{
	rp_assert_update_or_held(&t->sys->sync, &t->signal->group_lock);
	return t->signal->nr_threads == 1;
}

/* Debug builds stop at a second release: the symptom of a double reap. */
static void check_not_released(const struct rp_task *t)
{
	RP_DEBUG_BUG_ON(!t->sighand);
}

/*
 * Drop @t's table under its siglock: pairs with rp_lock_task_sighand's
 * recheck.  The timers on @t's clocks are disarmed in the same hold, as
 * Linux's __exit_signal does: a re-arm or a timer_settime, which arm under
 * that siglock, come before (and are disarmed) or find no siglock.
 * RP_BREAK_TIMER_RELEASE_APART disarms in an earlier hold, and what is
 * armed in between stays on a dead task's list.  True if an exec by
 * another thread of the group waits for @t to go (de_thread waits for each
 * other thread's release).
 */
static bool drop_sighand(struct rp_task *t)
{
	struct rp_sighand *sh;
	struct rp_task *exec;

	if (!TIMERS_DISARMED_AT_DETACH) {
		sh = rp_lock_task_sighand(t);
		rp_cputimers_release(t);
		rp_unlock_sighand(sh);
	}
	RP_RACE_POINT(RP_RACE_RELEASE_DETACHES, t);
	sh = rp_lock_task_sighand(t);
	if (TIMERS_DISARMED_AT_DETACH)
		rp_cputimers_release(t);
	exec = rp_group_exec_task(t);

	/* Under the siglock too: the signal code walks the threads holding only it. */
	cds_list_del_rcu(&t->thread_node);
	rp_flush_sigqueue(t->sys, &t->pending);
	/* Readers that load NULL know @t is released (rp_lock_task_sighand). */
	rcu_assign_pointer(t->sighand, NULL);
	rp_unlock_sighand(sh);
	rp_sighand_put(sh);
	return exec && exec != t;
}

/*
 * RP_BREAK_RELEASE_MEMBER_UNLOCKED takes none of a plain reap's M (and
 * tells the checker it did): a fork's attach to the group beside the reap
 * loses one of the two writes.
 */
#ifdef RP_BREAK_RELEASE_MEMBER_UNLOCKED
#define REAP_UNTAKEN RP_LOCK_SET_ALL
#else
#define REAP_UNTAKEN 0U
#endif

/*
 * RP_BREAK_SESSION_UNLOCKED: the reap of a group's last member takes no M
 * of the session, whose list of groups the group leaves (and tells the
 * checker it did): a group born into the same session beside it (a
 * setpgid to a new group) writes the list and the session's count at once.
 */
#ifdef RP_BREAK_SESSION_UNLOCKED
#define REAP_TAKES_SESSION false
#else
#define REAP_TAKES_SESSION true
#endif

/* The bit of @pid's M in @m (rp_member_lock_set's @untaken). */
static unsigned int member_bit(const struct rp_lock_set *m, struct rp_pid *pid)
{
	for (unsigned int i = 0; i < m->n; i++)
		if (m->obj[i] == pid)
			return 1U << i;
	return 0;
}

/*
 * M of the pids a plain reap of @sig's process detaches, into @m (under
 * the gate shared; none under the update lock, which excludes every other
 * writer): its own (the tgid, which is also its leader's tid), its process
 * group's, and its session's if the process is its group's last member,
 * whose release ends the group (protocol (i)).  Forks into its group
 * attach under the group's M, setpgid moves under the groups' and the
 * session's, and the release of another member detaches under them.
 * Whether it is the last is read under the group's M: the set is taken
 * again with the session's added, in address order, and the group cannot
 * lose a member meanwhile (that is ours to release); one that joins
 * meanwhile leaves the session's M held for nothing.  The set's untaken
 * locks (a twin's) in the result, for rp_member_unlock_set.
 */
static unsigned int lock_reap_members(struct rp_signal *sig, struct rp_lock_set *m)
{
	unsigned int untaken = REAP_UNTAKEN, held;

	m->n = 0;
	if (!rp_gate_shared_here(&rp_signal_sys(sig)->sync))
		return 0;
	rp_member_set_add(m, rp_signal_leader_pid(sig));
	rp_member_set_add(m, sig->pgrp);
	rp_member_lock_set(m, untaken);
	if (!rp_pgrp_last_member(sig))
		return untaken;
	rp_member_unlock_set(m, untaken);
	/* Where the session's id is the group's or ours, its M is taken anyway. */
	held = member_bit(m, sig->session);
	rp_member_set_add(m, sig->session);
	if (!REAP_TAKES_SESSION && !held)
		untaken |= member_bit(m, sig->session);
	rp_member_lock_set(m, untaken);
	return untaken;
}

/*
 * Unlink @t from every list and drop its ids (Linux's __exit_signal,
 * __unhash_process).  True if an exec of the group waits for @t to go.
 * Under the update lock; or a plain reap's (wait.c: a leader alone in its
 * group, untraced, no namespace of its pids dying) under the gate shared,
 * with G of @t's group and T of its real parent held, which takes L around its
 * node on sys->tasks and then M of the pids it detaches itself, in that
 * order: a fork beside it that links behind the neighbouring node, or
 * attaches to the same group, meets each lock on its own.  Or a plain
 * thread's (exit_thread_plain: not its group's leader, whose release
 * neither ends its process nor leaves a zombie leader alone) under the
 * gate shared and G alone: such a thread is on no children list, and
 * its release changes no tie and detaches no group's id, so it reads no
 * tie and takes no T of a parent and no M.
 */
static bool unhash_task(struct rp_task *t)
{
	struct rp_signal *sig = t->signal;
	bool thread = !rp_thread_group_leader(t) && rp_gate_shared_here(&t->sys->sync);
	/* Before the count of threads. */
	struct rp_pid *tied = thread ? NULL : rp_jobc_own_tie(sig);
	struct rp_lock_set members = { .n = 0 };
	unsigned int untaken = 0;
	bool exec_waits;

	if (t->ptrace)		/* never a plain reap's */
		rp_ptrace_unlink(t);
	if (!thread) {
		rp_assert_tree_write(t->sys, t->real_parent);
		rp_hlist_tail_del_init_pub(&t->sibling, &t->real_parent->children);
	}
	if (rp_thread_group_leader(t))
		rp_tasks_unlink(t->sys, &t->tasks);
	rp_assert_group_write(t->sys, sig);
	/* Lookups by number find nothing from now on: pairs with rp_find_task_rcu. */
	rcu_assign_pointer(t->pid->task, NULL);
	if (t->flags & RP_PF_NS_CHILDREN)	/* never a plain reap's */
		rp_task_drop_ns_children(t);
	if (!thread)
		untaken = lock_reap_members(sig, &members);
	rp_pid_detach(t->pid);
	exec_waits = drop_sighand(t);
	if (--sig->nr_threads == 0) {
		rp_pgrp_exit(sig);	/* off the member lists first: they lead to the tgid */
		rp_pid_detach(rp_signal_leader_pid(sig));
	}
	rp_jobc_untie_dead(sig, tied);	/* a zombie leader left alone ties nothing */
	rp_member_unlock_set(&members, untaken);
	rp_nproc_uncharge(t->sys, t->cred->user);
	return exec_waits;
}

/*
 * @t off the table (unhash_task).  An exec of the group waits for each
 * other thread's release (de_thread): wake it.  The table's reference
 * stays the caller's to put.
 */
static void release_one(struct rp_task *t)
{
	check_not_released(t);
	if (unhash_task(t))
		rp_wake_up_parent(t);	/* de_thread sleeps on its own group's queue */
}

/*
 * Linux's release_task.  Releasing the last thread but a zombie leader makes
 * that leader reportable (delay_group_leader): tell its parent now, and
 * release it too if the parent does not want it.  Under the update lock,
 * or for a plain reap (a leader alone: no leader to tell) the gate shared
 * with the locks unhash_task names.
 */
void rp_release_task(struct rp_task *t)
{
	struct rp_task *leader = t->group_leader;

	RP_DEBUG_BUG_ON(!rp_update_held_here(&t->sys->sync) &&
			(!rp_gate_shared_here(&t->sys->sync) || leader != t || t->ptrace ||
			 t->signal->nr_threads != 1));
	release_one(t);
	if (leader != t && alone_in_group(leader) &&
	    uatomic_read(&leader->exit_state) == RP_EXIT_ZOMBIE &&
	    rp_do_notify_parent(leader, leader->exit_signal)) {
		uatomic_set(&leader->exit_state, RP_EXIT_DEAD);
		rp_release_task(leader);
	}
	rp_task_put(t);		/* the table's reference */
}

/*
 * RP_BREAK_NS_RELEASE_DYING takes a release of a nested process under the
 * gate shared whether or not one of its namespaces is dying: the last
 * pid that the ending init's exit waits for goes under the gate shared,
 * where that exit cannot complete.
 */
#ifdef RP_BREAK_NS_RELEASE_DYING
#define LEVELS_OPEN(pid) ((void)(pid), true)
#else
#define LEVELS_OPEN(pid) rp_pid_levels_open(pid)
#endif

/*
 * A process whose release the gate shared covers: its leader, alone in
 * its group (a zombie leader alone stays so: no thread is left to
 * clone), untraced (an attach, under T of its real parent, refuses a
 * zombie: protocol (f)), not the root's init, with no pid namespace for
 * its children (unshare, setns), and each pid its release may detach
 * (its own, its group's, its session's) numbered in no namespace that is
 * dying: no last detach of one ends a namespace or completes an ending
 * init's exit (pidns.c, pid_gone), and a nested namespace's init is not
 * released before its namespace is dying (its exit ends it).  Read from
 * fields that the release leaves as they are, or that only the gate
 * exclusive writes (a namespace's dying), in memory that the caller's
 * read section or reference keeps; under the gate shared and a read
 * section.  Who releases it is decided elsewhere: wait's
 * compare-and-swap of the exit state, or the exit that found its parent
 * does not wait.
 */
bool rp_release_may_be_shared(const struct rp_task *p)
{
	const struct rp_signal *sig = p->signal;

	rp_assert_read_section(&p->sys->sync);
	return rp_thread_group_leader(p) && !p->ptrace && p->parent == p->real_parent &&
	       !rp_is_global_init(p) && !(p->flags & RP_PF_NS_CHILDREN) &&
	       LEVELS_OPEN(rp_signal_leader_pid(sig)) && LEVELS_OPEN(sig->pgrp) &&
	       LEVELS_OPEN(sig->session);
}

/* The first thread of @p's group that is not exiting (Linux's find_alive_thread). */
static struct rp_task *find_alive_thread(struct rp_task *p)
{
	struct rp_task *t;

	/* Under the update lock, or RCU for a plain exit: pairs with clone's insertion. */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node)
		if (!(CMM_LOAD_SHARED(t->flags) & RP_PF_EXITING))
			return t;
	return NULL;
}

/*
 * Linux's find_child_reaper (update lock held): when the thread of init
 * that reaps orphans exits, a live thread of init takes the role, and the
 * reference that sys->child_reaper holds.  An exec by a thread of init
 * thus finds the role already its own when it takes the old leader's
 * place.  Init's last thread keeps it (init's death is not modelled).
 * RP_BREAK_EXEC_INIT_REAPER never passes it, as before: after such an exec
 * sys->child_reaper names the released old leader (its reference keeps
 * the struct), and orphans go to that dead task, where no wait finds them.
 */
static void pass_child_reaper(struct rp_task *father)
{
	struct rp_system *sys = father->sys;
	struct rp_task *t;

	rp_assert_update_held(&sys->sync);
	if (father != sys->child_reaper || KEEP_REAPER)
		return;
	t = find_alive_thread(father);
	if (!t)
		return;
	rp_task_get(t);
	CMM_STORE_SHARED(sys->child_reaper, t);
	rp_task_put(father);
}

/*
 * Linux's find_child_reaper for @father in nested namespace @ns (update
 * lock held, or a plain exit's gate shared with @ns not dying, in a read
 * section: init's exits and @ns's end wait for the gate): a live thread
 * of the namespace's init, else, init's threads all exiting, its leader:
 * an init's exit keeps its children and reaps
 * them (rp_do_exit), so an orphan given to it meanwhile is reaped too,
 * whether the hold that ends the namespace came before this one or comes
 * after (docs/namespaces.md, "Orphans").  The leader stays until init's
 * exit completes, after every other pid of the namespace, the orphan's
 * included, is freed.  RP_BREAK_NS_REAPER_EXITING skips an exiting init,
 * as the table did before init reaped in its exit: the orphans go to the
 * table's init.
 */
static struct rp_task *ns_child_reaper(struct rp_task *father, struct rp_pidns *ns)
{
	struct rp_pid *one = rp_pid_find_ns_rcu(ns, 1);
	/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
	struct rp_task *init = one ? rcu_dereference(one->task) : NULL;
	struct rp_task *t = NULL;

	if (init) {
		t = find_alive_thread(init);
#ifndef RP_BREAK_NS_REAPER_EXITING
		if (!t)
			t = init->group_leader;
#endif
	}
	return t ? t : father->sys->child_reaper;
}

/*
 * Linux's find_new_reaper: a live thread of the same group, else the
 * nearest live child subreaper above within @father's namespace, else the
 * namespace's init.  NULL when the dying thread is init's leader, or a
 * thread of the root's init with none alive (the root's death is not
 * modelled: its children stay): a namespace's init keeps its children
 * on its leader, which reaps them (rp_do_exit).
 */
static struct rp_task *find_new_reaper(struct rp_task *father)
{
	struct rp_pidns *ns = rp_task_pidns(father);
	struct rp_task *init, *r, *t;

	t = find_alive_thread(father);
	if (t)
		return t;
	init = ns->level ? ns_child_reaper(father, ns) : father->sys->child_reaper;
	/*
	 * A plain exit reads under RCU, with reparentings under the gate
	 * shared beside it: the chain still leads up to init.
	 */
	if (CMM_LOAD_SHARED(father->signal->has_child_subreaper)) {
		for (r = rcu_dereference(father->real_parent); r != init && rp_task_pidns(r) == ns;
		     r = rcu_dereference(r->real_parent)) {
			if (CMM_LOAD_SHARED(r->signal->is_child_subreaper) &&
			    (t = find_alive_thread(r)))
				return t;
		}
	}
	if (!rp_same_thread_group(father, init))
		return init;
	return ns->level && init != father ? init : NULL;
}

/* Does @a come before @b on their group's thread list?  (update lock held) */
static bool thread_precedes(struct rp_task *a, const struct rp_task *b)
{
	struct rp_task *t;

	rp_assert_update_held(&a->sys->sync);
	cds_list_for_each_entry(t, &a->signal->thread_head, thread_node) {
		if (t == a)
			return true;
		if (t == b)
			return false;
	}
	return false;
}

/*
 * @t's pdeath signal from its dying parent @father: Linux's
 * group_send_sig_info(SEND_SIG_NOINFO) from the parent, which numbers the
 * sender in @t's namespace (0 where it has no number there) and forces
 * the signal into a namespace that does not see the sender, as a kill
 * from an ancestor namespace reaches that namespace's init (read section
 * held; @info is the caller's scratch).
 */
static void send_pdeath_signal(struct rp_task *father, struct rp_task *t, siginfo_t *info)
{
	struct rp_sighand *sh;

	rp_siginfo_init(info, t->pdeath_signal, SI_USER,
			rp_pid_nr_ns(rp_signal_leader_pid(father->signal), rp_task_pidns(t)),
			rp_task_cred_rcu(father)->uid);
	sh = rp_lock_task_sighand_rcu(t);
	if (!sh)
		return;
	rp_send_signal_from_locked(father, t, t->pdeath_signal, info, true);
	rp_unlock_sighand(sh);
}

/*
 * Point every thread of child process @p at @reaper and send the parent-
 * death signals (Linux's forget_original_parent loop: pdeath_signal fires
 * when the parent *thread* dies, even for a reaper in the same group), as
 * a kill() by @father: only where its credentials allow.
 */
static void reparent_threads(struct rp_task *father, struct rp_task *p, struct rp_task *reaper)
{
	struct rp_task *t;
	siginfo_t info;

	/* Pairs with clone's insertion: a plain exit moves under RCU. */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node) {
		/* Pairs with rcu_dereference in getppid and in wait's parent filter. */
		rcu_assign_pointer(t->real_parent, reaper);
		if (!t->ptrace)
			rcu_assign_pointer(t->parent, reaper);
		if (t->pdeath_signal && !rp_check_kill_permission_rcu(father, t->pdeath_signal, t))
			send_pdeath_signal(father, t, &info);
	}
}

/*
 * Child process @p of @father to @reaper: the tie to the reaper first,
 * then @p's threads pointed at it, then the tie to @father away (jobc.h);
 * true if that took its group's count to 0 (it orphaned the group).
 */
static bool move_child(struct rp_task *father, struct rp_task *p, struct rp_task *reaper)
{
	rp_jobc_pair(p->signal, reaper, 1);
	reparent_threads(father, p, reaper);
	return rp_jobc_pair(p->signal, father, -1);
}

/*
 * Linux's reparent_leader, once @p is on the reaper's list: a zombie whose
 * group is gone is reported to its new parent, and released if that parent
 * does not want it.
 */
static void reparent_leader(struct rp_task *father, struct rp_task *p)
{
	rp_kill_orphaned_pgrp(p, father);	/* before a release: its group is read */
	p->exit_signal = SIGCHLD;	/* no odd signal to a reaper (Linux) */
	if (!p->ptrace && uatomic_read(&p->exit_state) == RP_EXIT_ZOMBIE && alone_in_group(p) &&
	    rp_do_notify_parent(p, p->exit_signal)) {
		uatomic_set(&p->exit_state, RP_EXIT_DEAD);
		rp_release_task(p);
	}
}

/*
 * Init's reap of the zombies among its children, in the hold that ends
 * its namespace, and again when another thread of init gives its
 * children away later (update lock held): they are all on its leader's
 * list (find_new_reaper), and each child that dies later is reaped at
 * its death (rp_reaps_in_exit), as Linux's init waits for them in its
 * exit.  A traced one is reaped when its tracer lets it go.
 */
static void reap_zombie_children(struct rp_task *init)
{
	struct rp_task *p;
	struct cds_hlist_node *next;

	rp_assert_update_held(&init->sys->sync);
	for (struct cds_hlist_node *n = init->group_leader->children.head.next; n; n = next) {
		next = n->next;
		p = caa_container_of(n, struct rp_task, sibling);
		if (!p->ptrace && uatomic_read(&p->exit_state) == RP_EXIT_ZOMBIE &&
		    alone_in_group(p)) {
			uatomic_set(&p->exit_state, RP_EXIT_DEAD);
			rp_release_task(p);
		}
	}
}

/*
 * Give @father's children to a reaper (update lock held).  Parents first,
 * then the block splice (never one by one: a wait walking @father's list
 * would end on a node moved last onto the reaper's and miss the rest), then
 * the notifications, oldest child first as Linux's (a coalesced SIGCHLD
 * carries the first one's siginfo), whose wake-ups must find the zombies on
 * the reaper's list.
 *
 * Within the group, a reaper thread that comes before @father on the thread
 * list may already have been passed by a wait walking the group's threads
 * (Linux's choice, the first live thread; a leader's is always behind it).
 * Such a wait either still finds @father on the list, mid-exit with an empty
 * list, and looks again (wait.c), or finds it gone: released after the
 * wake-up below, which makes the wait look again.
 */
static void forget_original_parent(struct rp_task *father)
{
	struct cds_hlist_node *node, *next;
	struct rp_task *reaper, *p;
	unsigned int n = 0;

	rp_assert_update_held(&father->sys->sync);
	node = father->children.head.next;
	if (!node)
		return;
	reaper = find_new_reaper(father);
	if (!reaper)
		return;
	cds_hlist_for_each_entry_2(p, &father->children.head, sibling) {
		move_child(father, p, reaper);	/* the kill is decided below, by a load */
		n++;
	}
	/* RP_PF_EXITING and the parents before the move: pairs with wait's cmm_smp_rmb. */
	cmm_smp_wmb();
	rp_hlist_tail_splice_pub(&father->children, &reaper->children);
	if (rp_same_thread_group(father, reaper)) {
		/*
		 * Another thread of an init whose exit ended its namespace,
		 * giving its children to init's leader after that end: its
		 * zombies are reaped now, as those init had then were.
		 * RP_BREAK_NS_LATE_ZOMBIES leaves them: their pids keep init's
		 * exit from ever completing.
		 */
#ifndef RP_BREAK_NS_LATE_ZOMBIES
		if (rp_reaps_in_exit(reaper))
			reap_zombie_children(reaper);
		else
#endif
		if (thread_precedes(reaper, father))
			rp_wake_up_parent(reaper);
		return;
	}
	/* The moved children are the @n from @node on, in order; one may be released. */
	for (; n--; node = next) {
		next = node->next;
		reparent_leader(father, caa_container_of(node, struct rp_task, sibling));
	}
}

/* SIGKILL a process of the namespace that is ending (its siglock held). */
static int kill_ns_member(struct rp_task *p, void *arg)
{
	struct rp_task *init = arg;
	struct rp_pidns *ns = rp_task_pidns(p);

	/* Forced, from the table: a nested namespace's init takes it too. */
	if (ns && !rp_same_thread_group(p, init) && rp_pidns_within(ns, rp_task_pidns(init)))
		rp_send_signal_locked(p, SIGKILL, NULL, true);
	return 0;
}

/* SIGKILL every process of @init's namespace and those below but @init's own. */
static void kill_ns_members(struct rp_task *init)
{
	rp_read_lock(&init->sys->sync);
	rp_for_each_process_siglocked_rcu(init->sys, kill_ns_member, init);
	rp_read_unlock(&init->sys->sync);
}

/*
 * Is @t the last thread of a nested namespace's init?  Then its exit
 * ends the namespace (Linux's zap_pid_ns_processes).
 */
static bool ends_pidns(struct rp_task *t, bool group_dead)
{
	return group_dead && rp_signal_leader_pid(t->signal)->nested && rp_is_ns_init(t);
}

/*
 * The end of @init's namespace (update lock held, @init its init's last
 * thread), in one hold: the namespace takes no pid any more (a fork
 * checks under this lock: docs/namespaces.md, "Init's end and a fork in
 * flight"), init's group reaps every child that dies from now on
 * (rp_reaps_in_exit), and every other process in it gets SIGKILL, the
 * children of a fork that linked before this hold included.
 * RP_BREAK_PIDNS_ZAP_BEFORE_CLOSE kills in a hold of its own before the
 * exit's (rp_do_exit): a fork that links in between is missed.
 */
static void zap_pid_ns(struct rp_task *init)
{
	rp_assert_update_held(&init->sys->sync);
	rp_pidns_end(rp_task_pidns(init), init);
#ifndef RP_BREAK_PIDNS_ZAP_BEFORE_CLOSE
	kill_ns_members(init);
#endif
}

/* Is an exec of @t's group waiting for its other threads to go?  (update lock held) */
static bool exec_waits(struct rp_task *t)
{
	struct rp_sighand *sh = rp_lock_task_sighand(t);
	struct rp_task *exec = sh ? rp_group_exec_task(t) : NULL;
	bool waits = exec && exec != t;

	rp_assert_update_held(&t->sys->sync);
	if (sh)
		rp_unlock_sighand(sh);
	return waits;
}

/*
 * RP_BREAK_AUTOREAP_DEAD_LATE: a plain exit whose parent does not wait
 * (SIGCHLD ignored) leaves its task a ZOMBIE when it lets the parent's T
 * go, and sets DEAD only in the exclusive hold of the release: the
 * parent's wait claims it in between, and the release comes twice.
 */
#ifdef RP_BREAK_AUTOREAP_DEAD_LATE
#define DEAD_WITH_THE_NOTICE false
#else
#define DEAD_WITH_THE_NOTICE true
#endif

/*
 * The groups a plain exit's decrements orphaned (its own tie's, and each
 * reparenting's), held until its kill under the gate exclusive: one for
 * its own tie and one for each child whose tie goes through it, at most
 * EXIT_KILLS in all (exit_plain_locked; more keep the exclusive gate).
 */
#define EXIT_KILLS	8

struct orphan_kills {
	struct rp_pid *held[EXIT_KILLS];
	unsigned int n;
};

/*
 * Group @group, which a plain exit of @t orphaned by a decrement: its
 * kill waits for the gate exclusive (kill_orphaned_later), where it is
 * sent only if no move tied the group again since.  Under the gate
 * shared a setpgid into the group may come between the decrement and the
 * kill, and a member that joined a group tied all along would take it.
 * Held meanwhile by an attachment under its M.
 * RP_BREAK_ORPHAN_KILL_SHARED kills under the gate shared, at once.
 */
static void kill_orphaned_held(struct rp_task *t, struct orphan_kills *k, struct rp_pid *group)
{
#ifdef RP_BREAK_ORPHAN_KILL_SHARED
	(void)k;
	rp_kill_orphaned_group_rcu(t, group);
#else
	(void)t;
	RP_BUG_ON(k->n == EXIT_KILLS);
	rp_member_lock(group);
	rp_pid_attach(group);
	rp_member_unlock(group);
	k->held[k->n++] = group;
#endif
}

/*
 * Linux's kill_orphaned_pgrp for the groups in @k, orphaned by a plain
 * exit of @t, under the gate exclusive: each only if no move tied it
 * again since (its count still 0), to its members of now, as Linux's
 * kill in one hold of tasklist_lock; then its attachment goes.  It comes
 * after the notice: a wait of @t's parent may report @t before the
 * group's SIGHUP.
 */
static void kill_orphaned_later(struct rp_task *t, struct orphan_kills *k)
{
	struct rp_sync *sync = &t->sys->sync;

	RP_RACE_POINT(RP_RACE_EXIT_KILLS_LATER, t);
	rp_update_lock(sync);
	rp_read_lock(sync);
	for (unsigned int i = 0; i < k->n; i++)
		if (!uatomic_read(rp_pgrp_jobc(k->held[i])))
			rp_kill_orphaned_group_rcu(t, k->held[i]);
	rp_read_unlock(sync);
	while (k->n)
		rp_pid_detach(k->held[--k->n]);
	rp_update_unlock(sync);
}

/*
 * Linux's kill_orphaned_pgrp for a plain exit of @t, whose decrement of
 * its group @tied's count answered @orphaned (protocol (b)): with exits
 * under the gate shared, two of them may take the last two ties of one
 * group at once, each under its own parent's T, and a load after the
 * decrement would show 0 to both; the decrement's answer is 0 for one.
 * RP_BREAK_ORPHAN_LOAD_AFTER decides by such a load: both exits decide
 * to kill the group.  The kill comes later (kill_orphaned_held).
 */
static void kill_if_orphaned(struct rp_task *t, struct rp_pid *tied, bool orphaned,
			     struct orphan_kills *k)
{
	RP_RACE_POINT(RP_RACE_EXIT_UNTIED, t);
#ifdef RP_BREAK_ORPHAN_LOAD_AFTER
	orphaned = tied && uatomic_read(rp_pgrp_jobc(tied)) == 0;
#endif
	if (orphaned)
		kill_orphaned_held(t, k, tied);
}

/*
 * The part of Linux's exit_notify that tells @t's parent: under the update
 * lock, or for a plain exit (@plain: rp_do_exit's exit_plain) the gate held
 * shared, T of @t->parent (its real parent: @t is untraced) and a read
 * section.  A leader becomes a zombie and is reported once its whole group
 * is gone; another thread is to be released at once (nobody waits for
 * threads), unless a tracer is to see it.  exit_state is set before any
 * wake-up: the waiter's scan reads it under RCU.  A task nobody will wait
 * for is set DEAD in the same hold of its parent's T as its ZOMBIE (a
 * wait's claim takes that T, and skips a DEAD task), and true is returned:
 * the caller releases it.  A plain exit's decrement that orphaned its
 * group leaves that group in @k for the caller's kill_orphaned_later.
 */
static bool exit_notify_parent(struct rp_task *t, bool plain, struct orphan_kills *k)
{
	struct rp_pid *tied;
	bool alone, autoreap, orphaned;

	rp_assert_tree_write(t->sys, t->parent);
	/* A plain exit's @t is its process's only thread, and the only one to add any. */
	alone = plain || alone_in_group(t);
	tied = rp_jobc_own_tie(t->signal);
	uatomic_set(&t->exit_state, RP_EXIT_ZOMBIE);
	/* A leader alone: its process's tie; an exclusive exit decided already. */
	orphaned = rp_jobc_untie_dead(t->signal, tied);
	if (plain)
		kill_if_orphaned(t, tied, orphaned, k);
	if (t->ptrace) {
		bool own = rp_thread_group_leader(t) && alone &&
			   rp_same_thread_group(t->parent, t->real_parent);

		autoreap = rp_do_notify_parent(t, own ? t->exit_signal : SIGCHLD);
	} else if (rp_thread_group_leader(t)) {
		autoreap = alone && rp_do_notify_parent(t, t->exit_signal);
	} else {
		autoreap = true;
	}
	if (autoreap && (DEAD_WITH_THE_NOTICE || !plain))
		uatomic_set(&t->exit_state, RP_EXIT_DEAD);
	return autoreap;
}

/* Linux's exit_notify (update lock held): the notice, then a release. */
static void exit_notify(struct rp_task *t)
{
	bool release;

	rp_assert_update_held(&t->sys->sync);
	release = exit_notify_parent(t, false, NULL);
	if (exec_waits(t))
		rp_wake_up_parent(t);		/* de_thread sleeps on its own group's queue */
	if (release)
		rp_release_task(t);
}

/* The last pid of its namespace but init's own is freed: init's exit completes (update lock held). */
static void init_exit_completes(struct rp_update_work *w)
{
	exit_notify(rp_pidns_waiter(w));
}

/* The pids of @t, init's last thread, that its exit does not wait for: its own, and the zombie leader's if it is not the leader. */
static unsigned int init_own_pids(const struct rp_task *t)
{
	return rp_thread_group_leader(t) ? 1 : 2;
}

/*
 * Must the exit of @t, the last thread of a namespace's init, wait for
 * the namespace's other pids (update lock held)?
 * RP_BREAK_PIDNS_COUNT_EARLY answers with @early, the count read before
 * the hold that ends the namespace: a fork that links a child in
 * between is not waited for.
 */
static bool init_waits(struct rp_task *t, bool early)
{
	struct rp_pidns *ns = rp_task_pidns(t);

#ifdef RP_BREAK_PIDNS_COUNT_EARLY
	if (!early)
		return false;
#else
	(void)early;
#endif
	return rp_pidns_await_pids(ns, t, init_own_pids(t), init_exit_completes);
}

/*
 * May @t's exit take the update gate shared (docs/process.md, "What is
 * built")?  What can be answered before the gate: rcu mode, the last
 * thread of its process and its only one (only @t itself could add one),
 * its leader, not the root's init (a nested namespace's init ends its
 * namespace: rp_do_exit never asks for it).  exit_plain and
 * exit_plain_locked answer the rest.
 */
static bool exit_may_be_plain(struct rp_task *t, bool group_dead)
{
	return t->sys->sync.mode == RP_SYNC_RCU && group_dead && rp_thread_group_leader(t) &&
	       CMM_LOAD_SHARED(t->signal->nr_threads) == 1 && !rp_is_global_init(t);
}

/*
 * The tree locks of a plain exit of @t: its own, its real parent's, and
 * its children's reaper's if it has children, each once, in increasing
 * address (@trees).
 */
struct exit_locks {
	struct rp_task *t, *parent, *reaper;
	struct rp_lock_set trees;
};

/*
 * RP_BREAK_EXIT_PARENT_UNLOCKED: a plain exit without children trusts the
 * gate for its parent's T (and tells the checker it took it): a child
 * becomes a zombie and tells its parent while that parent's own exit,
 * having found it alive, gives it to a reaper that is never told.
 */
#ifdef RP_BREAK_EXIT_PARENT_UNLOCKED
#define PARENT_LOCKED(l, t) ((t) != (l)->parent || (l)->reaper)
#else
#define PARENT_LOCKED(l, t) true
#endif

/* The locks of @l->trees that the twin leaves untaken (rp_tree_lock_set's @untaken). */
static unsigned int exit_untaken(const struct exit_locks *l)
{
	unsigned int untaken = 0;

	for (unsigned int i = 0; i < l->trees.n; i++)
		if (!PARENT_LOCKED(l, l->trees.obj[i]))
			untaken |= 1U << i;
	return untaken;
}

static void lock_exit(struct exit_locks *l)
{
	struct rp_lock_set *s = &l->trees;

	s->n = 0;
	rp_tree_set_add(s, l->t);
	rp_tree_set_add(s, l->parent);
	if (l->reaper)
		rp_tree_set_add(s, l->reaper);
	rp_tree_lock_set(s, exit_untaken(l));
}

static void unlock_exit(struct exit_locks *l)
{
	rp_tree_unlock_set(&l->trees, exit_untaken(l));
}

/*
 * The rest of a plain exit's conditions, under the gate shared and the
 * tree locks @l: untraced (an attach and a detach hold the gate
 * exclusive, or T of @t's real parent, l->parent: protocol (f)), no
 * tracees (an attach by @t would be @t's own; a child's TRACEME holds @t's T), not a
 * session leader with a terminal (whose loss is exclusive), and every
 * decision on an orphaned group made by a decrement (kill_if_orphaned):
 * when its parent is in another group of
 * its session, a tie (its parent not init; an exit whose parent is init
 * there decides by a load as Linux does, the group perhaps orphaned
 * already), and every child alive (a zombie's move would decide by a
 * load, and tell its new parent).  Everything else keeps the exclusive
 * gate.
 */
static bool exit_plain_locked(struct rp_task *t, struct exit_locks *l)
{
	struct rp_signal *sig = t->signal, *psig = l->parent->signal;
	struct rp_ptrace_part *pt = t->ptrace_part;
	struct rp_task *c;
	unsigned int ties = 0;

	rp_assert_tree_write(t->sys, t);
	if (t->ptrace || (pt && !cds_list_empty(&pt->ptraced)))
		return false;
	if (rp_session_leader_rcu(sig) && CMM_LOAD_SHARED(sig->tty))
		return false;
	/* Their deaths hold @t's T: frozen, as the ties through @t (moves of them or @t). */
	cds_hlist_for_each_entry_2(c, &t->children.head, sibling) {
		if (uatomic_read(&c->exit_state))
			return false;
		ties += rp_tie_group(c->signal, c->signal->pgrp, c->signal->session, t, NULL,
				     NULL) != NULL;
		if (ties == EXIT_KILLS)
			return false;	/* with its own, more than it can hold */
	}
	/* Frozen: a move of @t or of its parent holds the parent's T. */
	return psig->pgrp == sig->pgrp || psig->session != sig->session ||
	       !rp_is_global_init(l->parent);
}

/*
 * A plain exit that gives children away: counted in sys->exit_moves
 * while it does, against the subreaper walks.  Each side adds to its own
 * count, a full barrier, reads the other's (store-buffering: one sees
 * the other); a walk follows children up through real_parent, which a
 * move changes, and an exit reads the marks a walk sets: the one that
 * sees the other takes the gate exclusive, which waits for the shared
 * side (sys/ids.c).  False, not counted, if a walk is in progress.
 */
static bool begin_moves(struct rp_system *sys)
{
	uatomic_inc(&sys->exit_moves);
	cmm_smp_mb();	/* pairs with the walk's between its count and ours */
	if (!uatomic_read(&sys->subreaper_walks))
		return true;
	uatomic_dec(&sys->exit_moves);
	return false;
}

static void end_moves(struct rp_system *sys)
{
	cmm_smp_mb();	/* the moves before the count: a walk that reads 0 sees them */
	uatomic_dec(&sys->exit_moves);
}

/*
 * RP_BREAK_REPARENT_NO_CLOSED_RECHECK trusts the reaper found under RCU:
 * one that gave its children away meanwhile gets ours on its closed list,
 * where nobody will reap them.
 */
#ifdef RP_BREAK_REPARENT_NO_CLOSED_RECHECK
#define CLOSED_RECHECK false
#else
#define CLOSED_RECHECK true
#endif

/*
 * Protocol (a): the reaper @l->reaper found under RCU may be exiting too
 * and give its children away before we hold its T; then it is closed,
 * and its RP_PF_EXITING, set before it closed, is seen by the next search.
 * Are the locks @l the ones to hold (the parent still @t's, the reaper
 * open, a reaper if @t has children)?
 */
static bool exit_locks_hold(struct rp_task *t, struct exit_locks *l)
{
	if (t->real_parent != l->parent)
		return false;		/* reparented meanwhile by its parent's exit */
	if (!l->reaper)
		return !t->children.head.next;
	return !CLOSED_RECHECK || !(CMM_LOAD_SHARED(l->reaper->flags) & RP_PF_CLOSED);
}

/*
 * Give @father's children to @reaper (protocol (a), step 4; the gate
 * shared, T of both, a read section): every child is alive
 * (exit_plain_locked), so none is told or released here.  Each move that
 * orphans its child's group decides its kill by the decrement, as an
 * exit does (kill_if_orphaned); then the block splice, as
 * forget_original_parent's.
 */
static void give_children(struct rp_task *father, struct rp_task *reaper, struct orphan_kills *k)
{
	struct rp_task *p;

	cds_hlist_for_each_entry_2(p, &father->children.head, sibling) {
		if (move_child(father, p, reaper))
			kill_orphaned_held(father, k, p->signal->pgrp);
		p->exit_signal = SIGCHLD;	/* no odd signal to a reaper (Linux) */
	}
	/* The parents before the move: pairs with wait's cmm_smp_rmb. */
	cmm_smp_wmb();
	rp_hlist_tail_splice_pub(&father->children, &reaper->children);
}

/*
 * RP_BREAK_AUTOREAP_PARENT_UNLOCKED releases without T of the real parent
 * (and tells the checker it took it): the unlink from its children list
 * meets the parent's fork linking onto it.
 */
#ifdef RP_BREAK_AUTOREAP_PARENT_UNLOCKED
static void autoreap_parent_lock(struct rp_task *p)
{
	rp_lockdep_acquire_untaken_obj(RP_LOCK_TREE, &p->tree_lock);
}

static void autoreap_parent_unlock(struct rp_task *p)
{
	rp_lockdep_release_obj(RP_LOCK_TREE, &p->tree_lock);
}
#else
#define autoreap_parent_lock	rp_tree_lock
#define autoreap_parent_unlock	rp_tree_unlock
#endif

/*
 * The release of release_dead under the gate shared, if @t is a process
 * whose release it covers (rp_release_may_be_shared): G of its group, T
 * of its real parent, the rest as a plain reap's (rp_release_task).  The
 * parent cannot change meanwhile: its writers are reparenting and exec,
 * an exclusive one waits for the gate, and a plain exit of the parent
 * gives its children away only if none is a zombie or dead
 * (exit_plain_locked).  False, nothing done, for the gate exclusive.
 */
static bool release_dead_shared(struct rp_task *t)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_signal *sig = t->signal;	/* kept by the table's reference */
	struct rp_task *parent;
	bool shared;

	if (sync->mode != RP_SYNC_RCU)
		return false;
	rp_update_lock_shared(sync);
	rp_group_lock(sig);
	rp_read_lock(sync);
	parent = rcu_dereference(t->real_parent);
	autoreap_parent_lock(parent);
	shared = rp_release_may_be_shared(t);
	rp_read_unlock(sync);	/* @parent stays: its exit needs the T we hold */
	if (shared) {
#ifdef RP_BREAK_AUTOREAP_DEAD_LATE
		uatomic_set(&t->exit_state, RP_EXIT_DEAD);
#endif
		rp_release_task(t);
	}
	autoreap_parent_unlock(parent);
	rp_group_unlock(sig);
	rp_update_unlock_shared(sync);
	return shared;
}

/*
 * Release @t, which a plain exit set DEAD under its parent's T: under
 * the gate shared where release_dead_shared may, else exclusive.  Every
 * wait, and a reparenting, skip a DEAD task, so the release may come
 * after those locks are gone, as Linux's wait sets EXIT_DEAD and
 * releases after.
 */
static void release_dead(struct rp_task *t)
{
	struct rp_sync *sync = &t->sys->sync;

	RP_RACE_POINT(RP_RACE_EXIT_RELEASES, t);
	if (release_dead_shared(t))
		return;
	rp_update_lock(sync);
#ifdef RP_BREAK_AUTOREAP_DEAD_LATE
	uatomic_set(&t->exit_state, RP_EXIT_DEAD);
#endif
	rp_release_task(t);
	rp_update_unlock(sync);
}

/*
 * A plain exit: under the gate shared, in a read section (the parent and
 * the reaper are found, and their T taken, under RCU), T of @t, of its
 * real parent and of its children's reaper; the children given away,
 * @t closed, then the notice.  A member of a nested namespace gives its
 * children away here only while none of its namespaces is dying, read
 * in this hold: its reaper is a subreaper of the namespace or its init
 * (ns_child_reaper), and every exit of a thread of a nested init, the
 * end of its namespace with it, takes the gate exclusive, so it comes
 * wholly after this hold and finds the children on init's list, as
 * those it forked (protocol (a), "An init that is exiting").  With
 * children in a dying namespace it exits exclusive.  Its release goes
 * under the gate shared only while its namespaces are open
 * (rp_release_may_be_shared).
 * True if done, false (nothing written) if @t's exit must take the gate
 * exclusive.
 */
static bool exit_plain(struct rp_task *t, bool group_dead)
{
	struct rp_sync *sync = &t->sys->sync;
	struct exit_locks l = { .t = t };
	struct orphan_kills kills = { .n = 0 };
	bool moves = false, done = false, release = false;

	if (!exit_may_be_plain(t, group_dead))
		return false;
	rp_update_lock_shared(sync);
	rp_read_lock(sync);
	for (;;) {
		l.reaper = NULL;
		if (rcu_dereference(t->children.head.next)) {
			/* A nested member's reaper: none of its namespaces dying (protocol (a)). */
			if (!rp_pid_levels_open(rp_signal_leader_pid(t->signal)))
				goto out;
			if (!moves && !(moves = begin_moves(t->sys)))
				goto out;
			/* Our RP_PF_EXITING, then the reaper's: pairs with the same in its exit. */
			cmm_smp_mb();
			l.reaper = find_new_reaper(t);
			if (!l.reaper)
				goto out;
			RP_RACE_POINT(RP_RACE_EXIT_REAPER_FOUND, t);
		}
		l.parent = rcu_dereference(t->real_parent);
		lock_exit(&l);
		if (exit_locks_hold(t, &l))
			break;
		unlock_exit(&l);
	}
	if (exit_plain_locked(t, &l)) {
		if (l.reaper) {
			RP_RACE_POINT(RP_RACE_EXIT_CHILDREN_CHECKED, t);
			give_children(t, l.reaper, &kills);
		}
		CMM_STORE_SHARED(t->flags, t->flags | RP_PF_CLOSED);
		release = exit_notify_parent(t, true, &kills);
		done = true;
	}
	unlock_exit(&l);
out:
	rp_read_unlock(sync);
	if (moves)
		end_moves(t->sys);
	rp_update_unlock_shared(sync);
	if (kills.n)
		kill_orphaned_later(t, &kills);
	if (release)
		release_dead(t);
	return done;
}

/*
 * May @t's exit be a plain thread's (docs/process.md, "A thread's
 * exit")?  What can be answered before the gate: rcu mode, not its
 * group's leader, its group alive (another thread still runs: its
 * release never ends the process), of the root namespace (its tid has no
 * nested number to end a namespace with), not init's (whose threads pass
 * the reaper's role), with no pid namespace for its children (its record
 * in the nested tables is dropped under the update lock, as a plain
 * reap's rp_release_may_be_shared leaves it; the flag is @t's own to set and
 * clear).  exit_thread_locked answers the rest.
 */
static bool thread_exit_may_be_plain(const struct rp_task *t, bool group_dead)
{
	return t->sys->sync.mode == RP_SYNC_RCU && !group_dead && !rp_thread_group_leader(t) &&
	       !rp_signal_leader_pid(t->signal)->nested && !rp_is_global_init(t) &&
	       !(t->flags & RP_PF_NS_CHILDREN);
}

/*
 * RP_BREAK_THREAD_EXIT_LEADER_UNCHECKED trusts thread_exit_may_be_plain's
 * "another thread still runs", read before the gate: that thread's exit,
 * under the gate exclusive, may be done before ours takes it shared, and
 * our release then leaves a zombie leader alone that nobody tells its
 * parent of.
 */
#ifdef RP_BREAK_THREAD_EXIT_LEADER_UNCHECKED
#define LEADER_CHECKED false
#else
#define LEADER_CHECKED true
#endif

/*
 * RP_BREAK_THREAD_EXIT_GROUP_UNLOCKED takes no G (and tells the checker
 * it did): the thread list and its count are written while a clone by
 * another thread of the group holds G to link its own.
 */
#ifdef RP_BREAK_THREAD_EXIT_GROUP_UNLOCKED
#define EXIT_TAKES_GROUP false
#else
#define EXIT_TAKES_GROUP true
#endif

/*
 * The rest of a plain thread's exit conditions, under the gate shared, G
 * of @t's group and T of @t: untraced (an attach of a thread holds G:
 * protocol (f)), no tracees (an attach by @t would be @t's own; a
 * child's TRACEME holds @t's T), no children (they would go to a reaper; a plain exit that
 * chose @t as its children's reaper holds @t's T to splice, and then
 * finds @t closed), and a release that does not leave a zombie leader
 * alone on the thread list (its notice to its parent keeps the gate
 * exclusive): the leader's exit state changes under the gate exclusive
 * while it has other threads, and the count of threads under G.
 */
static bool exit_thread_locked(struct rp_task *t)
{
	struct rp_ptrace_part *pt = t->ptrace_part;
	struct rp_signal *sig = t->signal;

	rp_assert_group_write(t->sys, sig);
	rp_assert_tree_write(t->sys, t);
	if (t->ptrace || (pt && !cds_list_empty(&pt->ptraced)) || t->children.head.next)
		return false;
	return !LEADER_CHECKED || sig->nr_threads > 2 ||
	       !uatomic_read(&t->group_leader->exit_state);
}

/*
 * A plain thread's exit (Linux's exit_notify and release_task for a
 * thread that nobody waits for): under the gate shared, G of its group
 * and its own T, @t closed (protocol (a): a reparenting onto @t that
 * takes @t's T later looks for another reaper) and set DEAD; then its
 * release under G (unhash_task), the siglock inside it for the thread
 * list and the group's signal state, B for its tid's bucket.  Nobody
 * reads a thread's exit state under a lock: set once, DEAD at once, as
 * exit_notify_parent does for an untraced thread.  True if done, false
 * (nothing written) if @t's exit must take the gate exclusive.
 */
static bool exit_thread_plain(struct rp_task *t, bool group_dead)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_signal *sig = t->signal;
	bool done;

	if (!thread_exit_may_be_plain(t, group_dead))
		return false;
	rp_update_lock_shared(sync);
	rp_group_lock_if(sig, EXIT_TAKES_GROUP);
	rp_tree_lock(t);
	done = exit_thread_locked(t);
	if (done) {
		CMM_STORE_SHARED(t->flags, t->flags | RP_PF_CLOSED);
		uatomic_set(&t->exit_state, RP_EXIT_DEAD);
	}
	rp_tree_unlock(t);
	if (done)
		release_one(t);
	rp_group_unlock_if(sig, EXIT_TAKES_GROUP);
	rp_update_unlock_shared(sync);
	if (done)
		rp_task_put(t);		/* the table's reference */
	return done;
}

void rp_do_exit(struct rp_task *t, int code)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_sighand *sh;
	bool group_dead, ns_ends, early = true;

	/* Linux's ptrace_event(PTRACE_EVENT_EXIT): still a live task while stopped. */
	rp_ptrace_exit_stop(t, code);
	sh = rp_lock_task_sighand(t);	/* not released: @t runs */
	/* Senders stop picking @t; find_new_reaper skips it. */
	CMM_STORE_SHARED(t->flags, t->flags | RP_PF_EXITING);
	t->exit_code = code;
	rp_flush_sigqueue(t->sys, &t->pending);
	rp_unlock_sighand(sh);
	rp_cputimers_exit(t);	/* no tick on @t from now on; its times to the group */
	rp_jobctl_exit(t);	/* a group stop waits for @t no more */
	group_dead = uatomic_sub_return(&t->signal->live, 1) == 0;
	RP_RACE_POINT(RP_RACE_EXIT_REPARENTS, t);
	ns_ends = ends_pidns(t, group_dead);
	if (ns_ends) {
#ifdef RP_BREAK_PIDNS_COUNT_EARLY
		rp_read_lock(sync);
		early = CMM_LOAD_SHARED(rp_task_pidns(t)->nr_pids) > init_own_pids(t);
		rp_read_unlock(sync);
#endif
#ifdef RP_BREAK_PIDNS_ZAP_BEFORE_CLOSE
		rp_update_lock(sync);
		kill_ns_members(t);
		rp_update_unlock(sync);
#endif
		RP_RACE_POINT(RP_RACE_NS_INIT_EXITS, t);
	}
	if (!ns_ends && (exit_plain(t, group_dead) || exit_thread_plain(t, group_dead)))
		return;
	rp_update_lock(sync);
	rp_exit_ptrace(t);
	pass_child_reaper(t);
	if (ns_ends)
		zap_pid_ns(t);
	forget_original_parent(t);
	if (group_dead) {	/* Linux: disassociate_ctty, then kill_orphaned_pgrp */
		rp_tty_session_exit(t);
		rp_kill_orphaned_pgrp(t->group_leader, NULL);
	}
	if (ns_ends)
		reap_zombie_children(t);
	/* Else init's exit completes when the namespace's last other pid goes. */
	if (!ns_ends || !init_waits(t, early))
		exit_notify(t);
	rp_update_unlock(sync);
}

/*
 * Linux's do_group_exit: the first thread to get here sets the group's code
 * and kills the others; later ones (and the killed threads) exit with that
 * code.  During an exec the killed threads exit quietly (code 0) and the
 * group lives on.
 */
void rp_do_group_exit(struct rp_task *t, int code)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_signal *sig = t->signal;
	struct rp_sighand *sh;

	rp_read_lock(sync);	/* rp_zap_other_threads walks the thread list */
	sh = rp_lock_task_sighand_rcu(t);
	if (sig->flags & RP_SIGNAL_GROUP_EXIT) {
		code = sig->group_exit_code;
	} else if (rp_group_exec_task(t)) {
		code = 0;
	} else {
		/* As Linux: a dying group is neither stopped nor continued any more. */
		sig->flags = RP_SIGNAL_GROUP_EXIT;
		sig->group_exit_code = code;
		rp_zap_other_threads(t);
	}
	rp_unlock_sighand(sh);
	rp_read_unlock(sync);
	rp_do_exit(t, code);
}

int rp_exit(struct rp_task *self, int status)
{
	if (rp_task_exited(self))
		return -ESRCH;
	rp_do_exit(self, (status & 0xff) << 8);
	rp_sync_quiescent();
	return 0;
}

int rp_exit_group(struct rp_task *self, int status)
{
	if (rp_task_exited(self))
		return -ESRCH;
	rp_do_group_exit(self, (status & 0xff) << 8);
	rp_sync_quiescent();
	return 0;
}
