/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Signals to many processes: kill(0), kill(-pgrp), killpg, kill(-1) and the
 * session kill.  Each walks its list under rp_read_lock only (the
 * exactly-once walks of src/task/relations.c): every member is checked,
 * sent to and recorded for its forks in progress under its own siglock,
 * under which its successor is read.  Return values as Linux's __kill_pgrp_info and kill_something_info.
 *
 * si_pid of a sender's group kill, as Linux's: Linux fills one siginfo for
 * the whole send and writes 0 into it for the first receiver whose pid
 * namespace does not see the sender, so that every receiver it walks after
 * that one gets 0 too.  Its walks go in other orders than these: a group's
 * newest member first (attach_pid adds at the head, at fork and at
 * setpgid), every process in creation order (for_each_process).  So a send
 * that may meet such a receiver makes two passes over its list (order_cut):
 * the first finds, among the receivers it will signal, the first in Linux's
 * order that does not see the sender, by each process's birth or joining
 * order (rp_signal_birth, rp_signal_pgrp_joined); the second sends, with
 * si_pid 0 to that one and every receiver after it in Linux's order.
 * Both passes must see one set of receivers, as Linux's one walk under
 * tasklist_lock does (passes_hold).
 */
#include <errno.h>
#include <limits.h>
#include <rcuproc/pgrp.h>
#include "signal.h"
#include "../task/relations.h"

struct group_kill {
	struct rp_task *self;		/* the sender; NULL: the table (no permission check) */
	int sig;
	const siginfo_t *info;
	bool success;			/* some member took it */
	int ret;			/* the answer so far */
	unsigned int count;		/* kill(-1): processes tried */
	/* Linux's order (order_cut): */
	bool by_group;			/* a group's, newest joiner first; else creation order */
	bool cut;			/* a receiver does not see the sender: */
	uint32_t cut_rank;		/* its rank (rank_of), the first in Linux's order */
	struct rp_signal *cut_sig;	/* its process, for the ranks equal to its own */
	bool past_cut;			/* the second pass has met it */
};

/*
 * @p's place in the walk Linux would make, as a rank: a smaller one comes
 * first (rp_order_before).  Creation order for kill(-1); for a group, the
 * joining order reversed.  Two processes' ranks are equal only in a group,
 * when both moved in at one root order (RP_JOINED_MOVE, no fork between):
 * then the one nearer the head of the group's list, met first by the
 * walk, moved in last and comes first in Linux's order too.  Under @p's
 * siglock.
 */
static uint32_t rank_of(struct rp_task *p, const struct group_kill *k)
{
	return k->by_group ? 0U - rp_signal_pgrp_joined(p->signal) : rp_signal_birth(p->signal);
}

/* The first pass: a receiver @p the sender does not see, and first so far in Linux's order? */
static void order_cut_member(struct rp_task *p, struct group_kill *k)
{
	uint32_t rank;

	if (rp_check_kill_permission_rcu(k->self, k->sig, p) || rp_sees_sender_rcu(k->self, p))
		return;		/* refused: not sent to, so no write of Linux's 0 */
	rank = rank_of(p, k);
	if (!k->cut || rp_order_before(rank, k->cut_rank)) {	/* equal: the first met */
		k->cut = true;
		k->cut_rank = rank;
		k->cut_sig = p->signal;
	}
}

/* Does @p, about to be sent to, come at or after the cut in Linux's order (si_pid 0)? */
static bool past_order_cut(struct rp_task *p, struct group_kill *k)
{
	uint32_t rank;

	if (!k->cut)
		return false;
	if (p->signal == k->cut_sig)
		k->past_cut = true;
	rank = rank_of(p, k);
	return rp_order_before(k->cut_rank, rank) || (rank == k->cut_rank && k->past_cut);
}

/* Linux's group_send_sig_info to @p (its siglock held), recorded for @p's forks. */
static int send_member(struct rp_task *p, struct group_kill *k)
{
	int err = k->self ? rp_check_kill_permission_rcu(k->self, k->sig, p) : 0;
	const siginfo_t *info = k->info;
	siginfo_t zeroed;

	rp_assert_siglock_held(p);
	if (err || !k->sig)
		return err;
	if (k->self && past_order_cut(p, k)) {
		zeroed = *info;
		zeroed.si_pid = 0;
		info = &zeroed;
	}
	err = k->self ? rp_send_signal_from_locked(k->self, p, k->sig, info, true) :
			rp_send_signal_locked(p, k->sig, info, true);
	if (!err)
		rp_fork_record_signal(p, k->self, k->sig, info);
	return err;
}

/* A member of the group or session: 0 if any member took it, else the last error. */
static int kill_member(struct rp_task *p, void *arg)
{
	struct group_kill *k = arg;

	k->ret = send_member(p, k);
	k->success |= !k->ret;
	return 0;
}

static int kill_pid_members(struct rp_pid *pid, struct group_kill *k)
{
	k->ret = -ESRCH;
	rp_for_each_pid_member_siglocked_rcu(pid, kill_member, k);
	return k->success ? 0 : k->ret;
}

/*
 * Is process @p out of kill(-1)'s reach from @self?  As Linux's
 * kill_something_info: its number in @self's namespace must be above 1,
 * so that only the processes of @self's namespace and those below are
 * reached, and not that namespace's init (Linux 6.18 answered so:
 * docs/namespaces.md).  In a read section.
 * RP_BREAK_KILL_ALL_ROOT_VIEW tests the root's number whoever calls (the
 * test before pid namespaces): a kill(-1) inside a namespace reaches the
 * processes outside it and the inits above it too.
 */
static bool out_of_reach(struct rp_task *self, struct rp_task *p)
{
	struct rp_pid *tgid = rp_signal_leader_pid(p->signal);

#ifdef RP_BREAK_KILL_ALL_ROOT_VIEW
	(void)self;
	return tgid->nr <= 1;
#else
	if (!tgid->nested && !rp_signal_leader_pid(self->signal)->nested)
		return tgid->nr <= 1;		/* both in the root */
	return rp_pid_vnr(tgid, self) <= 1;
#endif
}

/* The first pass over a group. */
static int order_cut_group(struct rp_task *p, void *arg)
{
	order_cut_member(p, arg);
	return 0;
}

/* The first pass of kill(-1), over the processes kill_any sends to. */
static int order_cut_any(struct rp_task *p, void *arg)
{
	struct group_kill *k = arg;

	if (!out_of_reach(k->self, p) && !rp_same_thread_group(p, k->self))
		order_cut_member(p, k);
	return 0;
}

/*
 * Has the table made a pid namespace (its nested tables)?  Non-NULL once
 * and for ever.  A kill that makes one pass on the answer NULL asks in
 * the read section of its walk (kill_enter).  (Unused by
 * RP_BREAK_SIPID_PER_RECEIVER's build.)
 */
static bool __attribute__((unused)) namespace_made(struct rp_system *sys)
{
	return uatomic_read(&sys->pidns_tables) != NULL;
}

/*
 * Does a sender's group kill of @sig make a first pass (order_cut)?  Only
 * if a receiver may not see the sender, and only a process of a namespace
 * below the root can fail to: the root's namespace numbers every process.
 * So while the table has never made a namespace (no nested tables: they
 * come before the first nested pid), every receiver sees the sender and
 * no si_pid is written 0: no first pass.  Signal 0 delivers no siginfo:
 * none either.  A root sender is no such case once namespaces exist (a
 * receiver below the root does not see it), so the rule is the table's,
 * not the sender's.  RP_BREAK_SIPID_PER_RECEIVER makes no first pass:
 * each receiver gets the sender's number as it sees it, as a kill of one
 * process (the answer before this rule).
 */
static bool two_passes(struct rp_system *sys, int sig)
{
#ifdef RP_BREAK_SIPID_PER_RECEIVER
	(void)sys;
	(void)sig;
	return false;
#else
	return sig && namespace_made(sys);
#endif
}

/*
 * What keeps one set of receivers across the two passes.  The lock modes'
 * read side does: every change of a list takes their update lock.  The
 * rcu modes' read side keeps out no writer.  rcu-global's writers all take
 * its update mutex, so the kill holds that mutex across both passes.  In
 * rcu mode the list a pass walks changes under the gate shared and an
 * object lock, so the kill holds the update side across both passes:
 * - a group's: the gate shared and the group's M, which every change of
 *   its member list holds (a fork into it, a reap out of it, setpgid and
 *   setsid: M; the rest: the gate exclusive), so that no process joins or
 *   leaves between the passes (a receiver that does not see the sender
 *   and joins after the first would be met first by Linux's walk, and
 *   the others would have got the sender's number);
 * - kill(-1)'s, every process: the gate exclusive, for sys->tasks, whose
 *   links and unlinks hold L under the gate shared.
 * Returns what was taken.  RP_BREAK_SIPID_PASSES_UNHELD takes nothing.
 */
enum passes_hold { HOLD_NONE, HOLD_MEMBER, HOLD_EXCLUSIVE };

bool rp_group_kill_holds_update(struct rp_system *sys)
{
#if defined(RP_BREAK_SIPID_PASSES_UNHELD) || defined(RP_BREAK_SIPID_PER_RECEIVER)
	(void)sys;
	return false;
#else
	return rp_sync_mode_rcu(sys->sync.mode) && namespace_made(sys);
#endif
}

static enum passes_hold passes_hold(struct rp_system *sys, bool whole_table)
{
	if (!rp_group_kill_holds_update(sys))
		return HOLD_NONE;
	/* rcu-global has no gate: its update mutex is every writer's. */
	if (whole_table || sys->sync.mode != RP_SYNC_RCU) {
		rp_update_lock(&sys->sync);
		return HOLD_EXCLUSIVE;
	}
	rp_update_lock_shared(&sys->sync);
	return HOLD_MEMBER;
}

static void passes_release(struct rp_system *sys, enum passes_hold hold)
{
	if (hold == HOLD_EXCLUSIVE)
		rp_update_unlock(&sys->sync);
	else if (hold == HOLD_MEMBER)
		rp_update_unlock_shared(&sys->sync);
}

/* kill_enter's two passes: the hold, taken outside the read section (lock order). */
static enum passes_hold enter_holding(struct rp_system *sys, bool whole_table)
{
	enum passes_hold hold;

	rp_read_unlock(&sys->sync);
	hold = passes_hold(sys, whole_table);
	rp_read_lock(&sys->sync);
	return hold;
}

/*
 * Enter the read section of a sender's group kill of @sig and decide in
 * it whether the kill makes two passes (returned); what holds its set of
 * receivers in *@hold (@whole_table: kill(-1)'s, every process).
 *
 * One pass is decided and walked in this one read section, to the last
 * send: the table's first namespace is published (its nested tables)
 * and then waits for a grace period before any namespace can number a
 * process (tables_settle in task/pidns.c; pairs with its
 * synchronize_rcu).  So a kill that found no tables here has sent its
 * last signal before a process that may not see the sender is born: its
 * read section began before the publication and ends before the grace
 * period does.  Under QSBR the section runs from the call's last
 * quiescent state, and nothing between the decision and the last send
 * goes offline (no wait inside a read section: lockorder.h).  In the lock
 * modes the read lock excludes the tables' publication, made under the
 * update lock.
 *
 * Two passes take their hold outside a read section (lock order), so the
 * section is left and entered again (enter_holding): the tables, once
 * made, stay, and the decision stands.
 */
static inline bool kill_enter(struct rp_system *sys, int sig, bool whole_table,
			      enum passes_hold *hold)
{
	*hold = HOLD_NONE;
	rp_read_lock(&sys->sync);
	if (!two_passes(sys, sig))
		return false;
	*hold = enter_holding(sys, whole_table);
	return true;
}

/*
 * Make the first pass of a sender's group kill (@pgrp's members, or with
 * NULL every process), the set of receivers held (passes_hold).
 */
static void order_cut(struct rp_system *sys, struct rp_pid *pgrp, struct group_kill *k)
{
	k->by_group = pgrp != NULL;
	if (pgrp)
		rp_for_each_pid_member_siglocked_rcu(pgrp, order_cut_group, k);
	else
		rp_for_each_process_siglocked_rcu(sys, order_cut_any, k);
	RP_RACE_POINT(RP_RACE_KILL_BETWEEN_PASSES, k->self);
}

/* kill(-1): all in reach but the sender's own; a refusal does not change the answer. */
static int kill_any(struct rp_task *p, void *arg)
{
	struct group_kill *k = arg;
	int err;

	if (out_of_reach(k->self, p) || rp_same_thread_group(p, k->self))
		return 0;
	err = send_member(p, k);
	k->count++;
	if (err != -EPERM)
		k->ret = err;
	return 0;
}

/* kill(-1) from @self. */
static int kill_all(struct rp_task *self, struct group_kill *k)
{
	struct rp_system *sys = self->sys;
	enum passes_hold hold;

	if (kill_enter(sys, k->sig, true, &hold))
		order_cut(sys, NULL, k);
	rp_for_each_process_siglocked_rcu(sys, kill_any, k);
	rp_read_unlock(&sys->sync);
	passes_release(sys, hold);
	return k->count ? k->ret : -ESRCH;
}

/*
 * The group kill(-@nr) names (kill(-pgrp): as the caller's namespace
 * numbers it), or with 0 the caller's own (pairs with rcu_assign_pointer
 * in rp_pgrp_move).  In a read section.
 */
static struct rp_pid *target_group_rcu(struct rp_task *self, pid_t nr)
{
	return nr ? rp_pid_find_vnr_rcu(self, nr) : rcu_dereference(self->signal->pgrp);
}

/*
 * kill(0) and kill(-pgrp) from @self.  With two passes in rcu mode, the
 * group is looked up, its M taken, and looked up again under it: a move
 * of the caller (kill(0)) or the number's reuse (kill(-pgrp)) meanwhile
 * makes it another pid, and the search starts anew (TIOCSPGRP's
 * lock_session_pgrp does the same).  The group's members then stay as
 * they are until the kill ends (passes_hold).
 */
static int kill_group(struct rp_task *self, pid_t nr, struct group_kill *k)
{
	struct rp_system *sys = self->sys;
	enum passes_hold hold;
	bool passes = kill_enter(sys, k->sig, false, &hold);
	struct rp_lock_set m = { .n = 0 };
	struct rp_pid *pgrp;
	int ret = -ESRCH;

	for (;;) {
		pgrp = target_group_rcu(self, nr);
		/* A thread's tid is no group's id: it has no members, nor M. */
		if (!pgrp || !pgrp->in_process || hold != HOLD_MEMBER)
			break;
		rp_member_set_add(&m, pgrp);
		rp_member_lock_set(&m, 0);
		if (target_group_rcu(self, nr) == pgrp)
			break;
		rp_member_unlock_set(&m, 0);
		m.n = 0;
	}
	if (pgrp) {
		if (passes)
			order_cut(sys, pgrp, k);
		ret = kill_pid_members(pgrp, k);
	}
	rp_member_unlock_set(&m, 0);
	rp_read_unlock(&sys->sync);
	passes_release(sys, hold);
	return ret;
}

int rp_kill_group_info(struct rp_task *self, pid_t pid, int sig, const siginfo_t *info)
{
	struct group_kill k = { .self = self, .sig = sig, .info = info };

	if (pid == INT_MIN)
		return -ESRCH;	/* -INT_MIN does not exist */
	return pid == -1 ? kill_all(self, &k) : kill_group(self, -pid, &k);
}

int rp_kill_pgrp_info_rcu(struct rp_pid *pgrp, int sig, const siginfo_t *info)
{
	struct group_kill k = { .sig = sig, .info = info };

	rp_assert_read_section(&rp_pid_sys(pgrp)->sync);
	return kill_pid_members(pgrp, &k);
}

int rp_kill_session_info_locked(struct rp_system *sys, pid_t sid, int sig, const siginfo_t *info)
{
	struct group_kill k = { .sig = sig, .info = info, .ret = -ESRCH };
	int err;

	err = rp_for_each_session_member_locked(sys, sid, kill_member, &k);
	return err ? err : k.success ? 0 : k.ret;
}

int rp_killpg(struct rp_task *self, pid_t pgrp, int sig)
{
	return pgrp < 0 ? -EINVAL : rp_kill(self, -pgrp, sig);
}

int rp_kill_session(struct rp_task *self, pid_t sid, int sig)
{
	struct rp_system *sys = self->sys;
	siginfo_t info;
	int ret;

	if (rp_task_exited(self))
		return -ESRCH;
	rp_siginfo_init(&info, sig, SI_KERNEL, 0, 0);
	/* A session is walked group by group: the update lock (protocol (i)). */
	rp_update_lock(&sys->sync);
	rp_read_lock(&sys->sync);
	ret = rp_kill_session_info_locked(sys, sid, sig, &info);
	rp_read_unlock(&sys->sync);
	rp_update_unlock(&sys->sync);
	rp_sync_quiescent();
	return ret;
}
