/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setpriority/getpriority and ioprio_set/ioprio_get, as Linux's
 * kernel/sys.c and block/ioprio.c.  Nice and ioprio are per thread, as in
 * Linux: PRIO_PROCESS names one thread by its tid, PRIO_PGRP and PRIO_USER
 * reach every thread of every process they cover.  Each value is written
 * under its thread group's siglock.
 *
 * A group change walks the group as a group kill does (src/task/relations.c), setting
 * each member's threads under the member's siglock and reading its
 * successor under that lock; fork copies the caller's values when it starts
 * and again after linking the child, under the caller's siglock (the
 * article's exercise, models/prio_fork.pml): a child forked while its
 * group's value changes ends with the new value.
 */
#include <errno.h>
#include <rcuproc/pgrp.h>
#include "pgrp.h"

#define NICE_MIN	-20
#define NICE_MAX	19
#define IOPRIO_CLASS(v)	(((v) >> RP_IOPRIO_CLASS_SHIFT) & 0x7)
#define IOPRIO_LEVEL(v)	((v) & 0x7)

void rp_prio_copy(struct rp_task *self, struct rp_task *p)
{
	rp_assert_siglock_held(self);
	p->nice = self->nice;
	p->ioprio = self->ioprio;
}

/* One request: its caller, its value, and the answer so far. */
struct prio_op {
	struct rp_task *self;
	int value;
	int ret;
	bool by_uid;				/* PRIO_USER: threads of uid only */
	bool raw;				/* ioprio_get of one thread: as set */
	uid_t uid;
	int (*fn)(struct rp_task *t, struct prio_op *op);	/* per thread; non-zero stops */
};

/*
 * @fn on every thread of @p's process (PRIO_USER: those of uid op->uid),
 * under @p's siglock: the thread list is stable under it.
 */
static int each_thread(struct rp_task *p, void *arg)
{
	struct prio_op *op = arg;
	struct rp_task *t;
	int stop = 0;

	/* Pairs with cds_list_add_tail_rcu of thread_node in clone (under this siglock). */
	cds_list_for_each_entry_rcu(t, &p->signal->thread_head, thread_node)
		if (!stop && (!op->by_uid || rp_task_cred_rcu(t)->uid == op->uid))
			stop = op->fn(t, op);
	return stop;
}

/*
 * PRIO_PROCESS: thread @who (0: the caller), under its siglock; a thread
 * released by an exec meanwhile is followed to the one that took its pid.
 */
static void one_thread(struct prio_op *op, pid_t who)
{
	struct rp_pid *pid = who ? rp_pid_find_rcu(op->self->sys, who) : NULL;
	struct rp_task *t = op->self;
	struct rp_sighand *sh;

	if (who)
		sh = pid ? rp_lock_followed_sighand_rcu(&pid->task, &t) : NULL;
	else
		sh = rp_lock_task_sighand_rcu(t);
	if (!sh)
		return;
	op->fn(t, op);
	rp_unlock_sighand(sh);
}

/* Run @op over what @which (PRIO_*) and @who name, under rp_read_lock. */
static void prio_walk_rcu(struct prio_op *op, int which, int who)
{
	struct rp_task *self = op->self;
	struct rp_system *sys = self->sys;

	rp_read_lock(&sys->sync);
	if (which == PRIO_PROCESS) {
		one_thread(op, who);
	} else if (which == PRIO_PGRP) {
		rp_for_each_member_siglocked_rcu(sys,
					      who ? who : rp_task_pgrp_nr_rcu(self), each_thread, op);
	} else {
		op->by_uid = true;
		op->uid = who ? (uid_t)who : rp_task_cred_rcu(self)->uid;
		rp_for_each_process_siglocked_rcu(sys, each_thread, op);
	}
	rp_read_unlock(&sys->sync);
}

/* Linux's set_one_prio_perm and can_nice, for thread @t (its siglock held). */
static int nice_permission(struct rp_task *self, struct rp_task *t, int nice)
{
	const struct rp_cred *c = rp_task_cred_rcu(self), *tc = rp_task_cred_rcu(t);
	bool cap = rp_cred_capable(c, RP_CAP_SYS_NICE);

	rp_assert_siglock_held(t);
	if (tc->uid != c->euid && tc->euid != c->euid && !cap)
		return -EPERM;
	/* Lowering nice (raising priority) needs RLIMIT_NICE >= 20 - nice, or the capability. */
	if (nice < t->nice && (rlim_t)(20 - nice) > rp_task_rlimit(t, RLIMIT_NICE)->rlim_cur &&
	    !cap)
		return -EACCES;
	return 0;
}

/* Linux's set_one_prio: a refusal sticks, a success only replaces -ESRCH. */
static int set_nice(struct rp_task *t, struct prio_op *op)
{
	int err = nice_permission(op->self, t, op->value);

	if (err) {
		op->ret = err;
		return 0;
	}
	if (op->ret == -ESRCH)
		op->ret = 0;
	CMM_STORE_SHARED(t->nice, op->value);
	return 0;
}

/* getpriority: the highest priority (lowest nice) as 20 - nice. */
static int get_nice(struct rp_task *t, struct prio_op *op)
{
	if (20 - t->nice > op->ret)
		op->ret = 20 - t->nice;
	return 0;
}

static bool prio_which_valid(int which)
{
	return which == PRIO_PROCESS || which == PRIO_PGRP || which == PRIO_USER;
}

int rp_setpriority(struct rp_task *self, int which, id_t who, int niceval)
{
	struct prio_op op = { .self = self, .ret = -ESRCH, .fn = set_nice };

	if (!prio_which_valid(which))
		return -EINVAL;
	if (rp_task_exited(self))
		return -ESRCH;
	op.value = niceval < NICE_MIN ? NICE_MIN : niceval > NICE_MAX ? NICE_MAX : niceval;
	prio_walk_rcu(&op, which, (int)who);
	rp_sync_quiescent();
	return op.ret;
}

int rp_getpriority(struct rp_task *self, int which, id_t who)
{
	struct prio_op op = { .self = self, .ret = -ESRCH, .fn = get_nice };

	if (!prio_which_valid(which))
		return -EINVAL;
	if (rp_task_exited(self))
		return -ESRCH;
	prio_walk_rcu(&op, which, (int)who);
	rp_sync_quiescent();
	return op.ret;
}

/* Linux's ioprio_check_cap: the class and level exist; RT needs a capability. */
static int ioprio_check(struct rp_task *self, int ioprio)
{
	const struct rp_cred *c = self->cred;

	switch (IOPRIO_CLASS(ioprio)) {
	case RP_IOPRIO_CLASS_RT:
		if (!rp_cred_capable(c, RP_CAP_SYS_NICE) && !rp_cred_capable(c, RP_CAP_SYS_ADMIN))
			return -EPERM;
		return 0;
	case RP_IOPRIO_CLASS_BE:
	case RP_IOPRIO_CLASS_IDLE:
		return 0;
	case RP_IOPRIO_CLASS_NONE:
		return IOPRIO_LEVEL(ioprio) ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/* Linux's set_task_ioprio: the first refusal ends a group or user request. */
static int set_ioprio(struct rp_task *t, struct prio_op *op)
{
	const struct rp_cred *c = rp_task_cred_rcu(op->self), *tc = rp_task_cred_rcu(t);

	if (tc->uid != c->euid && tc->uid != c->uid && !rp_cred_capable(c, RP_CAP_SYS_NICE)) {
		op->ret = -EPERM;
		return 1;
	}
	/* Stored past the exit point too (ioc_ioprio never reads it there), so
	 * that a group request leaves every member with the one value (I2). */
	CMM_STORE_SHARED(t->ioprio, op->value);
	op->ret = 0;
	return 0;
}

/* The value its io context holds: 0 once it exited (Linux's exit_io_context). */
static int ioc_ioprio(const struct rp_task *t)
{
	return rp_task_exited(t) ? 0 : t->ioprio;
}

/* A thread's effective ioprio: class NONE follows its nice (best effort). */
static int task_ioprio(const struct rp_task *t)
{
	int v = ioc_ioprio(t);

	if (IOPRIO_CLASS(v) != RP_IOPRIO_CLASS_NONE)
		return v;
	return RP_IOPRIO_PRIO_VALUE(RP_IOPRIO_CLASS_BE, (t->nice + 20) / 5);
}

/*
 * ioprio_get: one thread's value as set (0: never set), or the best
 * (numerically lowest) effective value of a group's or user's threads.
 */
static int get_ioprio(struct rp_task *t, struct prio_op *op)
{
	int v = op->raw ? ioc_ioprio(t) : task_ioprio(t);

	if (op->ret == -ESRCH || v < op->ret)
		op->ret = v;
	return 0;
}

/* IOPRIO_WHO_* are PRIO_* + 1; user ids must be valid. */
static int ioprio_walk(struct prio_op *op, int which, int who)
{
	if (which < RP_IOPRIO_WHO_PROCESS || which > RP_IOPRIO_WHO_USER)
		return -EINVAL;
	if (rp_task_exited(op->self))
		return -ESRCH;
	op->raw = which == RP_IOPRIO_WHO_PROCESS;
	if (which != RP_IOPRIO_WHO_USER || who != -1)
		prio_walk_rcu(op, which - 1, who);
	rp_sync_quiescent();
	return op->ret;
}

int rp_ioprio_set(struct rp_task *self, int which, int who, int ioprio)
{
	/* Stored in 16 bits, as Linux's io_context. */
	struct prio_op op = { .self = self, .value = ioprio & 0xffff, .ret = -ESRCH,
			      .fn = set_ioprio };
	int err = ioprio_check(self, ioprio);

	return err ? err : ioprio_walk(&op, which, who);
}

int rp_ioprio_get(struct rp_task *self, int which, int who)
{
	struct prio_op op = { .self = self, .ret = -ESRCH, .fn = get_ioprio };

	return ioprio_walk(&op, which, who);
}
