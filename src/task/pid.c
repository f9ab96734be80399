/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pids: a number from the table's allocator (pidmap.c, no lock), and a
 * hash of struct pids (Group 2 existence: hlists of the toolkit, freed
 * after a grace period) that readers search under rp_read_lock with no
 * lock of their own; each chain's inserts and removals take its bucket
 * lock (B, bucket.h), not the update lock.
 */
#include <errno.h>
#include "task.h"
#include "bucket.h"
#include "../debug/cache.h"

static struct rp_cache tid_cache = RP_CACHE_INIT("tid", struct rp_tid);

unsigned int rp_pid_hash_index(int nr)
{
	/* Multiplicative hash: consecutive pids land far apart. */
	uint32_t h = (uint32_t)nr * 0x9e370001U;

	return h >> (32 - RP_PID_HASH_BITS);
}

static struct cds_hlist_head *pid_bucket(struct rp_system *sys, int nr)
{
	return &sys->pid_hash[rp_pid_hash_index(nr)];
}

/* B of bucket @i: the stripe its index falls on. */
static struct rp_spinlock *pid_bucket_lock(struct rp_system *sys, unsigned int i)
{
	return &sys->pid_hash_locks[i % RP_PID_HASH_LOCKS];
}

void rp_pid_hash_add(struct rp_pid *pid)
{
	struct rp_system *sys = rp_pid_sys(pid);
	unsigned int i = rp_pid_hash_index(pid->nr);

	rp_bucket_add(&sys->sync, pid_bucket_lock(sys, i), &pid->hash, &sys->pid_hash[i]);
}

void rp_pid_hash_del(struct rp_pid *pid)
{
	struct rp_system *sys = rp_pid_sys(pid);

	rp_bucket_del(&sys->sync, pid_bucket_lock(sys, rp_pid_hash_index(pid->nr)), &pid->hash);
}

/* The table @pid is numbered in. */
struct rp_system *rp_pid_sys(struct rp_pid *pid)
{
	if (pid->in_process)
		return caa_container_of(pid, struct rp_process, pid)->task.sys;
	return caa_container_of(pid, struct rp_tid, pid)->sys;
}

/*
 * Give @pid (zeroed) its numbers in @ns and every namespace above it: the
 * levels below the root first (their record in *@lv, NULL in the root
 * namespace), the root's last, so a failure gives back what was taken.
 * @st: clone3's set_tid, or NULL.  0, -EAGAIN (a level is full), -ENOMEM,
 * or set_tid's errors (rp_pidns_take_nr).
 */
static int pid_number(struct rp_pidns *ns, const struct rp_set_tid *st, struct rp_pid *pid,
		      struct rp_pid_levels **lv, unsigned int *order)
{
	int err = 0, nr;

	*lv = NULL;
	if (ns->level && !(*lv = rp_pid_levels_alloc(ns, st, &err)))
		return err;
	nr = rp_pidns_take_nr(&ns->sys->pidns, ns->level, st, order);
	if (nr < 0) {
		if (*lv)
			rp_pid_levels_free_unpublished(*lv);
		return nr;
	}
	pid->nr = nr;
	pid->nested = *lv != NULL;
	pid->users = 1;
	rp_count_inc(ns->sys, pids);
	return 0;
}

/* A thread's tid, in a struct of its own. */
static struct rp_pid *tid_alloc(struct rp_pidns *ns, const struct rp_set_tid *st,
				struct rp_pid_levels **lv, int *err)
{
	struct rp_tid *tid = rp_cache_zalloc(&tid_cache);

	if (!tid) {
		*err = -ENOMEM;
		return NULL;
	}
	tid->sys = ns->sys;
	*err = pid_number(ns, st, &tid->pid, lv, NULL);
	if (*err) {
		rp_cache_free(&tid_cache, tid);
		return NULL;
	}
	return &tid->pid;
}

struct rp_pid *rp_pid_alloc(struct rp_system *sys, int *err)
{
	struct rp_pid_levels *lv;
	struct rp_pid *pid;

	rp_assert_update_held(&sys->sync);
	pid = tid_alloc(&sys->pidns, NULL, &lv, err);
	if (pid)
		rp_pid_publish(pid, lv);
	return pid;
}

struct rp_pid *rp_pid_alloc_for(struct rp_task *t, struct rp_pidns *ns,
				const struct rp_set_tid *st, struct rp_pid_levels **lv, int *err)
{
	struct rp_process *proc;
	unsigned int order;

	if (!rp_task_in_process(t))
		return tid_alloc(ns, st, lv, err);
	proc = rp_process_of(t->signal);
	proc->pid.in_process = true;
	*err = pid_number(ns, st, &proc->pid, lv, &order);
	if (*err)
		return NULL;
	/*
	 * A plain store: no other part of the block can die meanwhile (@t and
	 * its group are not published), nor the pid, which is not yet found.
	 * The process's place in creation order goes in beside the parts
	 * (rp_signal_birth): the root's count of the number taken, which the
	 * fork's one shared write made.
	 */
	proc->signal.parts_live |= order << RP_BIRTH_SHIFT;
#ifndef RP_BREAK_PROCESS_PID_UNCOUNTED
	proc->signal.parts_live |= RP_PART_PID;
#endif
	return &proc->pid;
}

void rp_pid_publish(struct rp_pid *pid, struct rp_pid_levels *lv)
{
	struct rp_system *sys = rp_pid_sys(pid);

	/* Into the hashes under the gate shared: B alone (and the nested counts, pidns.c). */
	RP_DEBUG_BUG_ON(!rp_update_section_here(&sys->sync));
	if (lv) {
		lv->pid = pid;
		rp_pid_levels_publish(lv);
	}
	rp_pid_hash_add(pid);	/* complete before found: its rcu_assign_pointer */
}

/* One terminal's hold in pid->users: the top byte counts them, the rest attachments. */
#define RP_PID_TTY_HOLD		(1U << 24)
#define RP_PID_ATTACHMENTS	(RP_PID_TTY_HOLD - 1)

void rp_pid_attach(struct rp_pid *pid)
{
	unsigned int users = pid->users;

	/* Under the gate shared, a fork attaches its members under the pid's M. */
	rp_assert_update_or_held(&rp_pid_sys(pid)->sync,
				 pid->in_process ? rp_member_lock_of(pid) : NULL);
	/* Below 2^24: one per thread, process and member, at most RP_PID_MAX_LIMIT (2^22) each. */
	RP_BUG_ON((users & RP_PID_ATTACHMENTS) == RP_PID_ATTACHMENTS);
	/* Read, not yet stored: a second writer of the count now would be lost. */
	RP_RACE_POINT(RP_RACE_MEMBER_ATTACH,
		      pid->in_process ? &caa_container_of(pid, struct rp_process, pid)->task : NULL);
	pid->users = users + 1;
}

void rp_pid_attach_new(struct rp_pid *pid)
{
	RP_DEBUG_BUG_ON(!rp_update_section_here(&rp_pid_sys(pid)->sync) || pid->task);
	pid->users++;
}

static void tid_free(struct rp_deferred *d)
{
	struct rp_tid *tid = caa_container_of(d, struct rp_tid, rcu);

	rp_count_dec(tid->sys, pids);
	rp_cache_free(&tid_cache, tid);
}

/*
 * Readers may be on @pid in the hash chain or through a terminal: free it
 * after a grace period, once neither attachments nor holds are left.
 */
static void pid_release(struct rp_pid *pid)
{
	struct rp_tid *tid;

	if (pid->users)
		return;
	if (pid->nested)
		rp_pid_levels_release(pid);
	if (pid->in_process) {
		rp_process_part_dead(caa_container_of(pid, struct rp_process, pid), RP_PART_PID);
		return;
	}
	tid = caa_container_of(pid, struct rp_tid, pid);
	rp_defer_release(&tid->sys->sync, &tid->rcu, tid_free);
}

void rp_pid_detach(struct rp_pid *pid)
{
	struct rp_system *sys = rp_pid_sys(pid);

	/*
	 * Under the gate shared, setpgid, setsid and wait's plain reap detach
	 * a process's pid (its own, or a group's or session's id) under its M;
	 * a thread's plain release its tid, whose one attachment is its own
	 * thread's, under G of its group (proc/exit.c).
	 */
	if (pid->in_process)
		rp_assert_update_or_held(&sys->sync, rp_member_lock_of(pid));
	else
		RP_DEBUG_BUG_ON(!rp_update_section_here(&sys->sync));
	RP_BUG_ON(!(pid->users & RP_PID_ATTACHMENTS));
	if (--pid->users & RP_PID_ATTACHMENTS)
		return;
	/*
	 * A nested pid's last detach may end its namespace: the gate
	 * exclusive, or shared by a plain reap that found its namespaces
	 * open (rp_pid_levels_open, pidns.c's pid_gone).
	 */
	/* No attachment can come back: the number is no longer found. */
	rp_pid_hash_del(pid);
	if (pid->nested)
		rp_pid_levels_unpublish(pid);
	rp_pidmap_free(&sys->pidns.pidmap, pid->nr);
#ifdef RP_BREAK_TTY_HOLD_EARLY
	pid->users = 0;		/* the terminal's hold forgotten: freed under it */
#endif
	pid_release(pid);
}

/*
 * The lock of a terminal's hold on @pid besides the update lock: M, for
 * a process's own pid numbered in the root namespace alone (TIOCSPGRP
 * under the gate shared); the hold is one more user of the count that
 * attachments write under M.
 */
static const struct rp_bytelock *tty_hold_lock(struct rp_pid *pid)
{
	return pid->in_process && !pid->nested ? rp_member_lock_of(pid) : NULL;
}

void rp_pid_tty_hold(struct rp_pid *pid)
{
	rp_assert_update_or_held(&rp_pid_sys(pid)->sync, tty_hold_lock(pid));
	/* Only a pid with its number can become a foreground group. */
	RP_BUG_ON(!(pid->users & RP_PID_ATTACHMENTS));
	pid->users += RP_PID_TTY_HOLD;
}

void rp_pid_tty_unhold(struct rp_pid *pid)
{
	rp_assert_update_or_held(&rp_pid_sys(pid)->sync, tty_hold_lock(pid));
#ifdef RP_BREAK_TTY_HOLD_EARLY
	if (!(pid->users & RP_PID_ATTACHMENTS))
		return;		/* already freed at its number's release */
#endif
	RP_BUG_ON(pid->users < RP_PID_TTY_HOLD);
	pid->users -= RP_PID_TTY_HOLD;
	pid_release(pid);
}

struct rp_pid *rp_pid_find_rcu(struct rp_system *sys, int nr)
{
	struct rp_pid *pid;

	rp_assert_read_section(&sys->sync);
	if (nr <= 0 || nr >= RP_PID_MAX_LIMIT)
		return NULL;
	/* Pairs with rcu_assign_pointer in rp_bucket_add. */
	cds_hlist_for_each_entry_rcu_2(pid, pid_bucket(sys, nr), hash)
		if (pid->nr == nr)
			return pid;
	return NULL;
}

/* The task whose tid @pid is (NULL: none), under rp_read_lock. */
static struct rp_task *task_of_rcu(struct rp_pid *pid)
{
	/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
	return pid ? rcu_dereference(pid->task) : NULL;
}

struct rp_task *rp_find_task_rcu(struct rp_system *sys, int nr)
{
	rp_assert_read_section(&sys->sync);
	return task_of_rcu(rp_pid_find_rcu(sys, nr));
}

struct rp_pid *rp_pid_find_vnr_rcu(struct rp_task *self, int nr)
{
	return rp_pid_find_ns_rcu(rp_task_pidns(self), nr);
}

struct rp_task *rp_find_task_vnr_rcu(struct rp_task *self, int nr)
{
	return task_of_rcu(rp_pid_find_vnr_rcu(self, nr));
}
