/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces (docs/namespaces.md): each has its own numbers (a struct
 * rp_pidmap of its own, cyclic as alloc_pid's in every namespace) and its
 * own lookup, and a pid of a task in a namespace of level L has one number
 * in each of the L + 1 namespaces from the root down to its own.
 *
 * The root namespace is the table's (sys->pidns, embedded): its numbers
 * are the pids' own ->nr, found through sys->pid_hash, so that a process
 * of the root namespace carries nothing more than before.  The numbers of
 * the levels below the root live out of line, in a struct rp_pid_levels
 * allocated only for a pid of a nested namespace (marked pid->nested):
 * the record is found from the pid through one hash, each of its numbers
 * from (namespace, number) through another; both are the table's nested
 * tables, allocated when its first namespace is created.  Readers search
 * them under rp_read_lock with no lock of their own; inserts and removals
 * take the chain's bucket lock (B, task/bucket.h), as the root's pid hash.
 */
#ifndef RP_TASK_PIDNS_H
#define RP_TASK_PIDNS_H

#include <stdbool.h>
#include <sys/types.h>
#include <urcu/hlist.h>
#include "pidmap.h"
#include "../sync/spinlock.h"
#include "../sync/sync.h"

struct rp_pid;
struct rp_task;
struct rp_system;

/* Linux's MAX_PID_NS_LEVEL: a namespace is at most 32 levels below the root. */
#define RP_PIDNS_MAX_LEVEL	32

struct rp_pidns {
	/* Read by every fork into it and every lookup in it; written rarely. */
	struct rp_pidns *parent;	/* (c) holds a reference; NULL: the root */
	unsigned int level;		/* (c) 0: the root */
	bool dying;			/* (u) its init has exited, or its first
					   fork failed: no pid may be published
					   in it any more (ENOMEM) */
	unsigned int settle_at;		/* (u) 0, or the count at which the exit
					   of its ending init completes */
	struct rp_signal *ending;	/* (u) the init group whose exit ended it:
					   it reaps its children (NULL before) */
	struct rp_task *waiter;		/* (u) that init's last thread while its
					   exit waits for the count */
	struct rp_update_work settle;	/* (u) queued when nr_pids falls to
					   settle_at (rp_pidns_await_pids) */
	struct rp_system *sys;		/* (c) */
	struct rp_deferred rcu;		/* freed after a grace period */
	/*
	 * Its numbers: max and bits with the fields above, the cursor a
	 * line apart (pidmap.h), and on the cursor's line the two counts
	 * that a fork into a nested namespace also writes; then a line
	 * apart from what follows (the root's is embedded in rp_system).
	 */
	struct rp_pidmap pidmap;	/* (a) its numbers (pidmap.h) */
	unsigned long refs;		/* (a) pids numbered in it (their level
					   records), child namespaces, handles,
					   tasks whose children go into it; not
					   counted in the root, which lives as
					   long as its table (rp_pidns_get) */
	unsigned int nr_pids;		/* (u; a shared fork's add and a plain
					   release's decrement: uatomic)
					   published pids with a number here,
					   those of the namespaces below included
					   (Linux's pid_allocated); the root's
					   is not kept */
	char apart[RP_CACHE_LINE];
};

/* One number of a pid in a namespace below the root. */
struct rp_upid {
	struct cds_hlist_node hash;	/* (r, B) in the nested tables' by-number hash */
	struct rp_pidns *ns;		/* (c) */
	int nr;				/* (c) */
	struct rp_pid *pid;		/* (c) whose number this is */
};

/*
 * The numbers of a pid of a nested namespace at levels 1..level
 * (up[i - 1] at level i; level 0 is pid->nr).  Allocated with the pid's
 * number, hashed by pid when the pid is published, unhashed and freed
 * after a grace period when the pid's memory goes.
 */
struct rp_pid_levels {
	struct cds_hlist_node hash;	/* (r, B) in the nested tables' by-pid hash */
	struct rp_pid *pid;		/* (c) */
	unsigned int level;		/* (c) its namespace's level, >= 1 */
	struct rp_system *sys;		/* (c) */
	struct rp_deferred rcu;
	struct rp_upid up[];		/* (c) numbers, see above */
};

/* The tables of the nested namespaces, one per system, made on the first namespace. */
#define RP_NSPID_HASH_BITS	16
#define RP_NSPID_HASH_SIZE	(1U << RP_NSPID_HASH_BITS)
#define RP_NSCHILD_HASH_SIZE	256U

/*
 * A task whose next children go into another namespace than its own
 * (unshare, setns: Linux's nsproxy->pid_ns_for_children): rare, so kept
 * beside the task, found by it (the task's RP_PF_NS_CHILDREN says there is one).
 */
struct rp_ns_children {
	struct cds_hlist_node hash;	/* (r, B) in the nested tables' by-task hash */
	struct rp_task *task;		/* (c) */
	struct rp_pidns *ns;		/* (c) holds a reference */
	struct rp_system *sys;		/* (c) */
	struct rp_deferred rcu;
};

/*
 * B of the nested tables: one striped array for the three, bucket i of any
 * of them under locks[i % RP_NSPID_HASH_LOCKS] (task/bucket.h): 4 KB
 * beside the tables' 1 MB.
 */
#define RP_NSPID_HASH_LOCKS	1024U

struct rp_pidns_tables {
	struct cds_hlist_head by_nr[RP_NSPID_HASH_SIZE];	/* (r, B) rp_upid */
	struct cds_hlist_head by_pid[RP_NSPID_HASH_SIZE];	/* (r, B) rp_pid_levels */
	struct cds_hlist_head children[RP_NSCHILD_HASH_SIZE];	/* (r, B) rp_ns_children */
	struct rp_spinlock locks[RP_NSPID_HASH_LOCKS];		/* B of the three */
	/* (a) set once, after a grace period that began after the tables'
	   publication: no group kill that decided "no namespace" still
	   walks (tables_settle in pidns.c) */
	bool settled;
};

/* The root namespace of @sys: its numbers below @pid_max.  0 or -ENOMEM. */
int rp_pidns_init_root(struct rp_system *sys, unsigned int pid_max);
/* Teardown of the root namespace and the nested tables (nothing runs). */
void rp_pidns_destroy_root(struct rp_system *sys);

/*
 * A new namespace below @parent (no lock): the namespace with one
 * reference, or NULL with -ENOSPC (too deep) or -ENOMEM in *@err.
 */
struct rp_pidns *rp_pidns_create(struct rp_pidns *parent, int *err);
/* A reference more; rp_pidns_put (public, rcuproc/proc.h) drops one, the last frees it after a grace period. */
struct rp_pidns *rp_pidns_get(struct rp_pidns *ns);

/*
 * The namespace @pid is numbered in (its deepest), under rp_read_lock;
 * NULL if @pid's memory is being released (never a caller's own).
 */
struct rp_pidns *rp_pid_ns(struct rp_pid *pid);
/*
 * @pid's number in @ns, 0 if it has none there or its memory is being
 * released (Linux's pid_nr_ns), under rp_read_lock.
 */
int rp_pid_nr_ns(struct rp_pid *pid, struct rp_pidns *ns);
/*
 * The namespace @t is in (Linux's task_active_pid_ns), under rp_read_lock:
 * NULL if @t, not the caller, was released meanwhile.
 */
struct rp_pidns *rp_task_pidns(struct rp_task *t);
/* @pid's number as @self sees it, 0 if none (Linux's pid_vnr), under rp_read_lock. */
int rp_pid_vnr(struct rp_pid *pid, struct rp_task *self);
/* A pid of @self's own (its tid, its tgid) as @self sees it; takes rp_read_lock if nested. */
pid_t rp_own_vnr(struct rp_task *self, struct rp_pid *pid);
/*
 * Is @t a thread of an init, the root's or a namespace's (Linux's
 * SIGNAL_UNKILLABLE)?  Takes rp_read_lock.
 */
bool rp_is_ns_init(struct rp_task *t);
/*
 * The same under rp_read_lock (or the update lock): false also if @t's
 * group's pid is being released meanwhile.
 */
bool rp_is_ns_init_rcu(struct rp_task *t);
/*
 * The namespace @t's next child goes into (pid_for_children), under
 * rp_read_lock; NULL if @t, not the caller, was released meanwhile.
 */
struct rp_pidns *rp_task_ns_children_rcu(struct rp_task *t);
/*
 * Make @ns, another namespace than @self's, the namespace of @self's next
 * children, or with NULL its own again (takes the update lock and a
 * reference to @ns): 0 or -ENOMEM.
 */
int rp_task_set_ns_children(struct rp_task *self, struct rp_pidns *ns);
/* @t is released: drop its pid_for_children (update lock held). */
void rp_task_drop_ns_children(struct rp_task *t);

/* Is @ns @anc or below it? */
bool rp_pidns_within(const struct rp_pidns *ns, const struct rp_pidns *anc);

/*
 * The pid numbered @nr in @ns, under rp_read_lock; NULL if none.  The
 * root's is rp_pid_find_rcu.
 */
struct rp_pid *rp_pid_find_ns_rcu(struct rp_pidns *ns, int nr);

/*
 * Has @ns had an init linked (Linux's child_reaper set), under
 * rp_read_lock?  Until then a handle of it as a task's pid_for_children
 * is refused (pidns_for_children_get), so that its first fork, numbered
 * 1, is the only fork into it before its init.
 */
bool rp_pidns_had_init_rcu(struct rp_pidns *ns);

/*
 * clone3's set_tid as the allocation reads it: the number wanted at each
 * level from the child's namespace outwards (tid[0] at its own level), for
 * the first @size levels.
 */
struct rp_set_tid {
	const pid_t *tid;
	size_t size;			/* at most the namespace's level + 1 */
	bool capable;			/* rp_cred_checkpoint_restore_capable(caller) */
};

/*
 * One number of a pid in @ns: the next in cyclic order, or with @st the
 * one it wants at @ns's level if it gives one (alloc_pid's checks: EINVAL
 * out of range or other than 1 before an init, EPERM, EEXIST).  The
 * number, or -errno (-EAGAIN: @ns is full).  A non-NULL @order takes the
 * number's place in @ns's order (rp_pidmap_alloc_ordered).
 */
int rp_pidns_take_nr(struct rp_pidns *ns, unsigned int child_level, const struct rp_set_tid *st,
		     unsigned int *order);
/*
 * The numbers of a pid of namespace @ns below the root, taken from each
 * level's map, the deepest first (@st: set_tid, or NULL); NULL with the
 * error in *@err (rp_pidns_take_nr's, or -ENOMEM), every number taken
 * given back.  Not yet found.
 */
struct rp_pid_levels *rp_pid_levels_alloc(struct rp_pidns *ns, const struct rp_set_tid *st,
					  int *err);
/* Give back the numbers of @lv, never published, and free it. */
void rp_pid_levels_free_unpublished(struct rp_pid_levels *lv);
/* Found by pid and by number (update lock), once @pid is the record's. */
void rp_pid_levels_publish(struct rp_pid_levels *lv);
/*
 * May nested @pid's last detach come under the gate shared?  None of its
 * namespaces is dying (their ends are exclusive: within the caller's
 * hold of the gate shared the answer stays).  True for a pid of the root
 * namespace alone; a read section held.
 */
bool rp_pid_levels_open(struct rp_pid *pid);
/*
 * Nested @pid's numbers not found any more, and given back (update lock;
 * or the gate shared, rp_pid_levels_open true in this hold of it).
 */
void rp_pid_levels_unpublish(struct rp_pid *pid);
/*
 * Nested @pid's memory goes: its record is not found by pid any more, and
 * goes after a grace period (update lock).  A reader that reached @pid
 * before reads it as having no numbers (rp_pid_ns, rp_pid_nr_ns).  Under
 * what its rp_pid_levels_unpublish was.
 */
void rp_pid_levels_release(struct rp_pid *pid);

/*
 * The exit of @init, the last thread of @ns's init (update lock held,
 * @ns ended by that exit: rp_pidns_end), completes only when @ns has no
 * pid left but @own of init's own (Linux's zap_pid_ns_processes waits
 * for pid_allocated to fall to init_pids).  False if that is already so;
 * else @init waits, and @complete runs at the end of the update section
 * in which the last other pid is freed (rp_update_work_add), given back
 * the waiting thread by rp_pidns_waiter.
 */
bool rp_pidns_await_pids(struct rp_pidns *ns, struct rp_task *init, unsigned int own,
			 void (*complete)(struct rp_update_work *));
/* The thread whose exit @w completes (@w: a namespace's settle work). */
struct rp_task *rp_pidns_waiter(struct rp_update_work *w);
/* @init's exit ends @ns (update lock held): no pid from now on, and @init's group reaps. */
void rp_pidns_end(struct rp_pidns *ns, struct rp_task *init);
/*
 * Is @t a thread of an init whose exit ended its namespace?  It reaps
 * every child that dies (Linux's zap_pid_ns_processes ignores SIGCHLD
 * and waits for them).  In an update section (a plain exit's notice asks
 * with the gate shared; the end that sets it is exclusive), a read
 * section held.
 */
bool rp_reaps_in_exit(struct rp_task *t);

#endif /* RP_TASK_PIDNS_H */
