/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Signals to many processes: kill(0), kill(-pgrp), killpg, kill(-1) and the
 * session kill.  Each walks its list under rp_read_lock only (the
 * exactly-once walks of src/task/relations.c): every member is checked,
 * sent to and recorded for its forks in progress under its own siglock,
 * under which its successor is read.  Return values as Linux's __kill_pgrp_info and kill_something_info.
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
};

/* Linux's group_send_sig_info to @p (its siglock held), recorded for @p's forks. */
static int send_member(struct rp_task *p, struct group_kill *k)
{
	int err = k->self ? rp_check_kill_permission_rcu(k->self, k->sig, p) : 0;

	rp_assert_siglock_held(p);
	if (err || !k->sig)
		return err;
	err = k->self ? rp_send_signal_from_locked(k->self, p, k->sig, k->info, true) :
			rp_send_signal_locked(p, k->sig, k->info, true);
	if (!err)
		rp_fork_record_signal(p, k->sig, k->info);
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

static int kill_pid_members(struct rp_pid *pid, enum rp_pid_type type, struct group_kill *k)
{
	k->ret = -ESRCH;
	rp_for_each_pid_member_siglocked_rcu(pid, type, kill_member, k);
	return k->success ? 0 : k->ret;
}

static int kill_members(struct rp_system *sys, enum rp_pid_type type, pid_t nr,
			struct group_kill *k)
{
	struct rp_pid *pid = rp_pid_find_rcu(sys, nr);

	return pid ? kill_pid_members(pid, type, k) : -ESRCH;
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

int rp_kill_group_info(struct rp_task *self, pid_t pid, int sig, const siginfo_t *info)
{
	struct rp_system *sys = self->sys;
	struct group_kill k = { .self = self, .sig = sig, .info = info };
	int ret;

	if (pid == INT_MIN)
		return -ESRCH;	/* -INT_MIN does not exist */
	rp_read_lock(&sys->sync);
	if (pid == -1) {
		rp_for_each_process_siglocked_rcu(sys, kill_any, &k);
		ret = k.count ? k.ret : -ESRCH;
	} else {
		/*
		 * kill(-pgrp): the group as the caller's namespace numbers it;
		 * kill(0): the caller's own (pairs with rcu_assign_pointer in
		 * rp_pgrp_move).
		 */
		struct rp_pid *pgrp = pid ? rp_pid_find_vnr_rcu(self, -pid) :
					    rcu_dereference(self->signal->pgrp);

		ret = pgrp ? kill_pid_members(pgrp, RP_PIDTYPE_PGID, &k) : -ESRCH;
	}
	rp_read_unlock(&sys->sync);
	return ret;
}

int rp_kill_pgrp_info_rcu(struct rp_pid *pgrp, int sig, const siginfo_t *info)
{
	struct group_kill k = { .sig = sig, .info = info };

	rp_assert_read_section(&rp_pid_sys(pgrp)->sync);
	return kill_pid_members(pgrp, RP_PIDTYPE_PGID, &k);
}

int rp_kill_session_info_rcu(struct rp_system *sys, pid_t sid, int sig, const siginfo_t *info)
{
	struct group_kill k = { .sig = sig, .info = info };

	rp_assert_read_section(&sys->sync);
	return kill_members(sys, RP_PIDTYPE_SID, sid, &k);
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
	rp_read_lock(&sys->sync);
	ret = rp_kill_session_info_rcu(sys, sid, sig, &info);
	rp_read_unlock(&sys->sync);
	rp_sync_quiescent();
	return ret;
}
