/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The object model of the process table, the floor every subsystem stands
 * on (docs/architecture.md): the objects, who may touch each field, and
 * the calls on them (tasks, credentials, wait queues, sighand locking,
 * pids).  The relations between processes are in relations.h.
 *
 * Every shared field says who may read it and who may write it, in the
 * manner of FreeBSD's sys/proc.h:
 *
 *	(c)  constant once the object is published
 *	(r)  readable under rp_read_lock (RCU in rcu mode; the global lock's
 *	     read side in the lock modes), with CMM_LOAD_SHARED/rcu_dereference
 *	(u)  written under the update lock (rp_update_lock: the write side of
 *	     the kernel's tasklist_lock; in rcu mode the update gate held
 *	     exclusive, src/sync/sync.h)
 *	(G)  written under the update lock, or, by an operation converted to
 *	     rcu mode's object locks (the update gate held shared), under the
 *	     group's G lock (rp_group_lock); readers of a (u) field that hold
 *	     the update lock see it stable either way, since the exclusive
 *	     side waits for every shared holder
 *	(s)  read and written under the thread group's sighand->siglock
 *	(a)  atomic (uatomic_*)
 *	(t)  touched only by the thread driving the task
 *	(w)  under that wait queue's own mutex
 *	(U)  under sys->users_lock
 *	(B)  written under the hash chain's bucket lock (task/bucket.h) in
 *	     rcu mode, under the global write lock in the lock modes
 *	(T), (M), (L)  as (G), with T of the task named (rp_tree_lock), M of
 *	     the pid named (rp_member_lock), L of the sys->tasks nodes around
 *	     the link (rp_link_lock): what a plain fork (proc/fork.c) and a
 *	     plain exit (proc/exit.c) write under the update gate shared;
 *	     what wait's plain reap writes under it (proc/wait.c, proc/exit.c:
 *	     G of the zombie's group, T of its real parent, L around its node,
 *	     M of the pids it detaches); and setpgid and setsid of a
 *	     one-thread process (pgrp/setpgid.c: G, then T of the process
 *	     and of its real parent, then M of the ids that change, then
 *	     the siglock); ptrace attach and detach of a one-thread process
 *	     (proc/ptrace.c: T of the tracer and of the tracee's real
 *	     parent, then the tracee's siglock); the other ptrace requests
 *	     (proc/ptrace.c: T of the tracer, then the tracee's siglock:
 *	     the options of ->ptrace, the stop); and exec of a one-thread
 *	     process (proc/exec.c: G, then T of the task and of its real
 *	     parent, then the siglock; the handler table's switch under the
 *	     old and the new siglock); and a thread's clone (proc/fork.c:
 *	     G of the group, then T of the group's real parent, read again
 *	     under it, then the caller's siglock); every other writer holds
 *	     the update lock.  wait's stopped and continued reports of a
 *	     child (proc/wait.c, under the gate shared) write no such field:
 *	     they read the child's link, selection and ptrace state under T
 *	     of its real parent and consume its group's (s) stop state under
 *	     its siglock
 *
 * "r, u" means: readers under rp_read_lock, writers under the update lock.
 * The lock order is in src/debug/lockorder.h: update lock, then rcu mode's
 * object locks (G, T, M), then a siglock, then L, then a wait-queue mutex
 * or the users lock.  Which operations take the update gate shared, and
 * the fields they write: docs/process.md, "Without the update lock".
 */
#ifndef RP_TASK_TASK_H
#define RP_TASK_TASK_H

#include "../debug/alloc.h"
#include "../debug/bug.h"
#include "../debug/fault.h"
#include "../debug/racepoint.h"
#include "../debug/threadslot.h"
#include "../sync/sync.h"
#include "cputimers.h"
#include "pidmap.h"
#include "pidns.h"
#include "../sync/spinlock.h"
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../debug/list_twins.h"
#include <rcuproc/proc.h>

#define RP_NSIG		65	/* signals 1..64, as Linux's _NSIG */
#define RP_COMM_LEN	16

/*
 * A condition to sleep on: a sequence number bumped by every wake-up.  The
 * objects do not embed one: a task or a thread group sleeps on the bucket
 * its address hashes to in one table of RP_WAITQ_BUCKETS (rp_waitq_of, as
 * Linux's bit wait queues), so a wake-up also wakes the other sleepers of
 * its bucket.  Every sleeper samples the count, checks its own condition,
 * sleeps until the count moves and checks again: a wake-up meant for
 * another object costs a recheck, and none is lost.
 */
struct rp_waitq {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long seq;		/* (w) */
} __attribute__((aligned(128)));

#define RP_WAITQ_BITS		8
#define RP_WAITQ_BUCKETS	(1U << RP_WAITQ_BITS)

/*
 * @obj's bucket among 2^@bits, by Fibonacci hashing: the multiply spreads
 * the address's middle bits to the top.
 */
static inline unsigned int rp_address_bucket(const void *obj, unsigned int bits)
{
	return (unsigned int)(((uint64_t)(uintptr_t)obj * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

/*
 * Per-uid accounting (Group 1: not read-mostly, so its own lock).
 * RLIMIT_NPROC's count is batched (cred.c, docs/process.md, "The uid
 * count"): @processes is the tasks of this uid plus the reserve that
 * thread slots hold in their rows of @column, taken from it and given
 * back under the (U) lock, and spent and refilled by their own thread
 * with atomics on their own row.
 */
struct rp_user {
	uid_t uid;			/* (c) */
	unsigned char column;		/* (c) 1 + its column of sys->ref_rows'
					   nproc reserves; 0: none, counted in
					   @processes alone */
	unsigned long refs;		/* (U) */
	unsigned long processes;	/* (a) tasks of this uid and the reserves
					   of its column: RLIMIT_NPROC */
	unsigned long sigpending;	/* (a) queued signals: RLIMIT_SIGPENDING */
	struct cds_hlist_node node;	/* (U) in sys->users */
};

/*
 * Credentials: immutable once published; replaced whole, freed after RCU.
 * Counted per thread slot while their owner (the task that committed
 * them) holds them: a get or put of another holder adds to its own
 * slot's row of @column, and the owner's put folds the rows into @refs a
 * grace period later (cred.c, docs/process.md, "The credentials'
 * reference").
 */
struct rp_cred {
	unsigned long refs;		/* (a) the references, plus a bias while the
					   rows count the others' (cred.c) */
	uid_t uid, euid, suid;		/* (c) */
	unsigned char column;		/* (c) 1 + its column of sys->ref_rows'
					   references; 0: counted in @refs alone */
	unsigned char per_slot;		/* (a) the rows count gets and puts: set at
					   the allocation, cleared by the owner's put;
					   read under RCU */
	uint64_t caps;			/* (c) effective capabilities, bit = RP_CAP_* */
	uint64_t caps_permitted;	/* (c) what caps may be raised back to */
	struct rp_user *user;		/* (c) holds a reference: uid's accounting */
	struct rp_system *sys;		/* (c) */
	const struct rp_task *owner;	/* (a) the task whose reference is the
					   creator's, until it puts it; NULL after */
	struct rp_deferred rcu;
};

/*
 * A thread slot's row of the counts that fork and exit move on lines every
 * process of a uid would share (cred.c): a line apart from every other
 * slot's, so that a slot's thread writes no line another thread writes.
 */
#define RP_CRED_COLUMNS		8	/* credentials counted per slot at once */
#define RP_NPROC_COLUMNS	8	/* users whose RLIMIT_NPROC count is batched */

struct rp_ref_row {
	/* (t) the slot's gets minus its puts of the credentials of each
	   column; read and cleared by the fold, a grace period after the
	   owner's put (no thread adds to the column then). */
	long cred[RP_CRED_COLUMNS];
	/* (a) the slot's reserve of each column's user, taken from its
	   ->processes: spent and refilled by the slot's thread, taken back
	   by any thread under the (U) lock. */
	unsigned long nproc[RP_NPROC_COLUMNS];
} __attribute__((aligned(RP_CACHE_LINE)));

/* A queued signal with its siginfo (real-time signals queue, others coalesce). */
struct rp_sigqueue {
	struct rp_sigqueue *next;	/* (s) the next on its queue (circular); NULL
					   while on none (rp_sigqueue_queued) */
	siginfo_t info;			/* (s) */
	struct rp_user *user;		/* (c) charged for RLIMIT_SIGPENDING */
	bool preallocated;		/* (c) a timer's: freeing it drops the timer's reference */
};

/*
 * Pending signals: the set, and the queue of rp_sigqueue entries in the
 * order they were sent.  The queue is one word, its last entry, whose
 * ->next is the first (a circular singly linked list): a send appends and
 * every walk starts at the first, both in O(1), and an entry is taken off
 * only by a walk, which knows the one before it.  Written here because no
 * library has a one-word FIFO: liburcu's lists and glibc's <sys/queue.h>
 * STAILQ take two words for a head, and a head of one word (hlist, SLIST)
 * has no tail to append at.  A task and a group hold one each: 8 bytes
 * less than a list head apiece, and 8 less in each queued entry.
 */
struct rp_sigpending {
	struct rp_sigqueue *tail;	/* (s) the last entry; NULL: none queued */
	uint64_t signal;		/* (s) signals pending, bit sig - 1 (RP_SIGBIT) */
};

/* Is @q on a queue? */
static inline bool rp_sigqueue_queued(const struct rp_sigqueue *q)
{
	return q->next != NULL;
}

/* Append @q, on no queue, to @p. */
static inline void rp_sigpending_add_tail(struct rp_sigpending *p, struct rp_sigqueue *q)
{
	RP_DEBUG_BUG_ON(rp_sigqueue_queued(q));
	if (p->tail) {
		q->next = p->tail->next;
		p->tail->next = q;
	} else {
		q->next = q;
	}
	p->tail = q;
}

/* Take @q off @p; @prev is the entry before it (the tail if @q is the first). */
static inline void rp_sigpending_del(struct rp_sigpending *p, struct rp_sigqueue *prev,
				     struct rp_sigqueue *q)
{
	RP_DEBUG_BUG_ON(prev->next != q);
	if (prev == q) {
		p->tail = NULL;			/* it was the only one */
	} else {
		prev->next = q->next;
		if (p->tail == q)
			p->tail = prev;
	}
	q->next = NULL;
}

/*
 * Walk @p from its first entry to its last, @q the entry, @prev the one
 * before it (pass both to rp_sigpending_del), @n the next to visit: the
 * body may take @q off and free it (nothing else).  The step does not
 * look at @q: @q was taken off if @prev no longer leads to it, and then
 * @prev stays where it was (@prev, never taken off, is still queued
 * unless it was @q itself, the only entry, and then the walk is over).
 */
#define rp_sigpending_for_each_safe(q, prev, n, p)				\
	for ((prev) = (p)->tail, (q) = (prev) ? (prev)->next : NULL;		\
	     (q) && ((n) = (q) == (p)->tail ? NULL : (q)->next, true);		\
	     (prev) = (n) && (prev)->next == (q) ? (q) : (prev), (q) = (n))

/*
 * A signal action as Linux keeps it (struct k_sigaction): the handler, the
 * flags and the mask, 24 bytes, where glibc's struct sigaction is 152.
 * rp_sigaction converts at the API boundary; glibc's sa_restorer is not
 * kept (the library delivers no signal frames, so nothing would use it).
 */
struct rp_ksigaction {
	__sighandler_t handler;		/* SIG_DFL, SIG_IGN or sa_handler/sa_sigaction */
	uint64_t mask;			/* blocked while it runs, bit sig - 1 */
	int flags;			/* SA_* */
};

/* The actions of signals 1..64, at index sig - 1 (rp_sighand_action). */
struct rp_action_table {
	struct rp_ksigaction action[RP_NSIG - 1];
};

/*
 * Signal-handler table, shared by CLONE_SIGHAND (commit e56d090310d7).
 *
 * ->actions is the one all-default table every sighand starts with and
 * shares (rp_default_actions: all zero, in read-only memory, never freed)
 * until a first change, which copies it into a private table under the
 * siglock (rp_sighand_action_write); exec's reset that leaves every action
 * default returns to the shared one.  Every read of an action holds the
 * siglock of the sighand it reads through (rp_sighand_action asserts it):
 * a private table is written and switched under that lock only, so it is
 * freed at once when exec gives it up, else with its sighand.
 */
struct rp_sighand {
	struct rp_spinlock siglock;	/* the lock of (s) fields */
	/*
	 * (a) the tasks using it (rp_sighand_users), and in the top bit,
	 * (c), RP_SIGHAND_IN_PROCESS: fork's, in a struct rp_process; else
	 * exec's, a struct rp_exec_sighand.  One word beside the lock, so
	 * that a table is 16 bytes.
	 */
	unsigned int count;
	const struct rp_action_table *actions; /* (s) shared default or private */
};

#define RP_SIGHAND_IN_PROCESS	0x80000000u

/* The tasks using a table whose ->count is @count. */
static inline unsigned int rp_sighand_users(unsigned int count)
{
	return count & ~RP_SIGHAND_IN_PROCESS;
}

/*
 * The table exec makes for itself (unshare_sighand) when it shares its
 * own: the only one allocated on its own, freed after a grace period once
 * its last task lets go.
 */
struct rp_exec_sighand {
	struct rp_sighand sighand;
	struct rp_system *sys;		/* (c) */
	struct rp_deferred rcu;
};

/* The shared all-default action table (objects.c). */
extern const struct rp_action_table rp_default_actions;

/*
 * Resource limits, shared copy-on-write between thread groups: fork takes
 * a reference to its parent's block, the first change (setrlimit, the
 * RLIMIT_CPU tick) copies a shared one (rp_task_rlimit_write).  A group
 * reads and switches its ->extra->rlim under its siglock; a block another
 * group holds is never written (it is copied), and a group drops its
 * reference under its own siglock: so a block is freed at once when its
 * last group lets go.  rp_default_rlimits (the limits init boots with) is
 * never counted or freed: a group that has no ->extra uses it.
 */
struct rp_rlimits {
	unsigned long refs;		/* (a) groups holding it */
	struct rlimit rlim[RLIM_NLIMITS]; /* (c) while shared; its group's (s) once private */
};

extern const struct rp_rlimits rp_default_rlimits;

/* rp_signal.flags */
#define RP_SIGNAL_GROUP_EXIT	0x1	/* exit_group or a fatal signal began */
#define RP_SIGNAL_STOP_STOPPED	0x2	/* the group is stopped */
#define RP_SIGNAL_STOP_CONTINUED 0x4	/* continued, not yet reported */
/* A notice the group owes its parent (src/signal/jobctl.c). */
#define RP_SIGNAL_CLD_STOPPED	0x100	/* SIGCONT cut a group stop short */
#define RP_SIGNAL_CLD_CONTINUED	0x200	/* SIGCONT resumed a stopped group */
#define RP_SIGNAL_CLD_MASK	(RP_SIGNAL_CLD_STOPPED | RP_SIGNAL_CLD_CONTINUED)
#define RP_SIGNAL_STOP_MASK	(RP_SIGNAL_CLD_MASK | RP_SIGNAL_STOP_STOPPED | \
				 RP_SIGNAL_STOP_CONTINUED)

/*
 * A process's entry on the member list of its process group (the
 * article's Group 5: the role of Linux's struct pid links).  A move
 * publishes a new proxy and retires the old one: a proxy is linked once,
 * marked obsolete when its process leaves, unlinked, and kept until no
 * walker can stand on it, so that a walker standing on it walks on along
 * the list it was on.  The one a process gets at fork is embedded in its
 * thread group (rp_signal.member) and goes with it; a move links one
 * allocated for it (src/pgrp/membership.c), freed after a grace period.
 * A session has no entries of its own: its processes are its groups'
 * (POSIX keeps a group inside one session), and it lists its groups
 * (rp_pid.groups; docs/process.md, protocol (i)).
 */
struct rp_proxy {
	struct cds_hlist_node node;	/* (r, u) on pid->members */
	/*
	 * The member process's thread group, (c), and in its low bit
	 * RP_PROXY_OBSOLETE, (r, u): left the list, walkers skip it; set
	 * under the process's siglock too while it lives (a move).  One word,
	 * so that a proxy is 24 bytes (a group is aligned: bit 0 is free).
	 */
	uintptr_t member;
};

#define RP_PROXY_OBSOLETE	1UL

/*
 * A proxy a move links (setpgid, setsid: src/pgrp/membership.c), with
 * its place in its list's joining order, ->joined (c: set under M of the
 * list's pid before it is published): the root pid map's order at the
 * move shifted as a birth (rp_signal_birth), plus RP_JOINED_MOVE, so that
 * it lies after every fork whose number came before it and before every
 * later one.  In the 8 bytes the proxy's heap chunk had spare.
 */
struct rp_moved_proxy {
	struct rp_proxy px;
	uint32_t joined;
	struct rp_system *sys;		/* (c) */
	struct rp_deferred rcu;
};

#define RP_JOINED_MOVE		(1U << (RP_BIRTH_SHIFT - 1))

/* The thread group @px is the entry of. */
static inline struct rp_signal *rp_proxy_signal(const struct rp_proxy *px)
{
	/* The word's other bit may be set meanwhile: a shared load. */
	return (struct rp_signal *)(CMM_LOAD_SHARED(px->member) & ~RP_PROXY_OBSOLETE);
}

/* Has @px left its list (walkers skip it)? */
static inline bool rp_proxy_obsolete(const struct rp_proxy *px)
{
	return CMM_LOAD_SHARED(px->member) & RP_PROXY_OBSOLETE;
}

/*
 * A thread group's rarely used state, allocated by its first use
 * (rp_signal_extra_get: a CPU charge or timer, a limit changed, a
 * multithreaded exec) and freed with the group, after its grace period.
 * Stored once, complete, under the group's siglock and read under it only
 * (or before the group is published): the siglock orders the set-up
 * before every read (the writer's unlock pairs with a reader's lock), and
 * no reader needs an RCU publication.
 */
struct rp_signal_extra {
	struct rp_group_timers timers;	/* (s) see src/timers */
	const struct rp_rlimits *rlim;	/* (s) shared copy-on-write: rp_task_rlimit */
	struct rp_task *group_exec_task; /* (s) the thread exec'ing, if any: rp_group_exec_task */
};

/* A thread group: what the threads of a process share. */
struct rp_signal {
	unsigned int sigcnt;		/* (a) references: its tasks (rp_signal_put) */
	unsigned int live;		/* (a) threads that have not exited */
	unsigned int nr_threads;	/* (u, G: a plain reap; G and T of the
					   group's real parent: a thread's clone)
					   threads on thread_head; setpgid reads
					   it under G, a plain
					   ptrace attach under that T */
	/*
	 * (a) Its block's RP_PART_* in use and not dead (rp_process_part_dead):
	 * the block's word, kept here in the 4 bytes beside the counts; in the
	 * bits above RP_PARTS_MASK (c: set by the fork that numbers the block's
	 * pid, before the group is published) its birth, rp_signal_birth.
	 */
	unsigned int parts_live;
	struct cds_list_head thread_head; /* (r, u, G: a plain reap, a thread's
					   clone) Group 2: the threads */
	struct rp_sigpending shared_pending; /* (s) process-directed signals */
	unsigned int flags;		/* (s) RP_SIGNAL_*; wait consumes
					   STOP_CONTINUED under the siglock */
	int group_exit_code;		/* (s) wait consumes a stop's under the
					   siglock */
	int group_stop_count;		/* (s) */
	bool is_child_subreaper;	/* (G, and u for reading; PR_GET reads it
					   with one load) PR_SET_CHILD_SUBREAPER */
	bool has_child_subreaper;	/* (u, or a store of true under the gate shared
					   by prctl's walk, or by a plain fork after
					   its link: proc/fork.c) an ancestor is a
					   subreaper */
	bool dumpable;			/* (s) PR_SET_DUMPABLE; ptrace attach */
	struct rp_bytelock group_lock;	/* G, rcu mode only: rp_group_lock */
	/*
	 * (r, u; or under the gate shared, setpgid and setsid: G of this
	 * group, T of each of its threads and of its real parent, M of the
	 * old and the new id, and the siglock; each of a thread's T, M and
	 * the siglock is enough to read them stably) process group and session
	 */
	struct rp_pid *pgrp;
	struct rp_pid *session;
	struct rp_tty *tty;		/* (u, M of ->pgrp at fork and setsid) the controlling
					   terminal, copied at fork;
					   read by its own process (CMM_LOAD_SHARED)
					   or under the update lock (src/tty) */
	struct rp_proxy *proxy;		/* (r, u, as ->pgrp) Group 5: our entry on
					   pgrp's member list */
	struct rp_proxy member;		/* (see rp_proxy) the entry fork links;
					   ->proxy until the first move */
	struct cds_hlist_head multiprocess; /* (s) open fork records (src/pgrp) */
	struct rp_signal_extra *extra;	/* (s) NULL until its first use */
	struct rp_group_cputimers cputimers; /* CPU times of reaped children: see src/timers */
	/* The table: rp_signal_sys, its block's task's (c) ->sys. */
};

/*
 * rp_task.exit_state: a zombie is claimed by moving it to DEAD (cmpxchg).
 * TRACE (Linux's EXIT_TRACE) is a claim that is not the end of a process:
 * a tracer reaping a zombie it hands back to the real parent (set and
 * cleared in one update-lock section), or an old leader that exec replaced
 * by another thread and released.  Only RCU readers see it: the real
 * parent's wait counts such a child (no ECHILD) and reports nothing.
 */
#define RP_EXIT_ZOMBIE		16
#define RP_EXIT_DEAD		32
#define RP_EXIT_TRACE		(RP_EXIT_ZOMBIE | RP_EXIT_DEAD)

/* rp_task.flags */
#define RP_PF_EXITING		0x1	/* (s) past the exit point */
#define RP_PF_FORKNOEXEC	0x2	/* (u, or G and T of the task: a plain exec
					   clears it; setpgid under the gate shared
					   reads it under both) forked, not yet exec'd */
#define RP_PF_NPROC_EXCEEDED	0x4	/* (t) set*uid into a user over RLIMIT_NPROC:
					   the next exec checks again */
#define RP_PF_NS_CHILDREN	0x8	/* (t, and its release) unshare or setns: its
					   next children go into another pid
					   namespace (pidns.h, struct rp_ns_children) */
#define RP_PF_CLOSED		0x10	/* (t, under its T: the exiting task sets its
					   own, read under that T) a plain exit gave
					   its children away: no reparenting gives it
					   any (docs/process.md, protocol (a)).  A bit
					   of flags, which only the task itself writes
					   until its release: no room taken */

/* rp_task.jobctl (s) */
#define RP_JOBCTL_TRACED	0x1	/* stopped for its tracer (ptrace stop) */
#define RP_JOBCTL_STOPPED	0x2	/* stopped by a group stop */
#define RP_JOBCTL_TRAP_STOP	0x4	/* to trap for its tracer: PTRACE_INTERRUPT, its
					   group stop, an attach while stopped */
#define RP_JOBCTL_EXIT_TRAP	0x8	/* its ptrace stop is PTRACE_EVENT_EXIT's, in exit */
#define RP_JOBCTL_TRAP_NOTIFY	0x10	/* seized: to trap, its group's stop state changed */
#define RP_JOBCTL_LISTENING	0x20	/* PTRACE_LISTEN: stays TRACED, but neither its
					   tracer's wait nor its requests see it */
#define RP_JOBCTL_TRAPPING	0x40	/* entering a ptrace stop it has not told of
					   yet: its tracer's requests and an attach
					   wait (Linux's JOBCTL_TRAPPING) */
#define RP_JOBCTL_STOP_PENDING	0x100	/* to take part in its group's stop */
#define RP_JOBCTL_STOP_DEQUEUED	0x200	/* dequeued a stop signal; SIGCONT clears it */
#define RP_JOBCTL_STOP_CONSUME	0x400	/* counted in group_stop_count (a detached
					   tracee rejoins a stop uncounted) */

/* rp_task.ptrace: the flags, then the PTRACE_O_* options shifted up (as Linux) */
#define RP_PT_PTRACED		0x1
#define RP_PT_SEIZED		0x2
#define RP_PT_OPT_SHIFT		3
#define RP_PT_EVENT_FLAG(event)	(1u << (RP_PT_OPT_SHIFT + (event)))	/* PTRACE_O_TRACE* */
#define RP_PT_EXITKILL		(0x100000u << RP_PT_OPT_SHIFT)	/* PTRACE_O_EXITKILL */

/*
 * What only a tracer or a tracee uses, out of the task (Linux keeps it in
 * task_struct): the ptrace links and a stop's state.  Allocated by the
 * task's first attach on either side (PTRACE_ATTACH, PTRACE_SEIZE,
 * PTRACE_TRACEME, or a fork whose child starts traced), initialised, and
 * only then published in ->ptrace_part, under the update lock, or under
 * the gate shared by a compare-and-swap from NULL (two attaches with no
 * lock in common may make one task's part at once: protocol (f),
 * docs/process.md): a lock-free reader (wait's walk of the ptraced lists,
 * rp_tracer_rcu) sees NULL or a whole part.  A task keeps its part until it
 * is freed, after its grace period, so a task that is traced has one, and
 * so has a task that traces (its tracees are on its list).
 */
struct rp_ptrace_part {
	struct rp_task *task;		/* (c) whose part this is: wait's walk of a
					   tracer's list reaches each tracee by it */
	struct cds_list_head ptraced;	/* (r, u, T of ->task: a plain attach or
					   detach) Group 3: tracees' ->entry */
	struct rp_owned_link entry;	/* (r, u, T of the tracer: a plain attach
					   or detach) on the tracer's ->ptraced;
					   owner: the tracer task */
	unsigned long message;		/* (s) PTRACE_GETEVENTMSG's answer */
	siginfo_t *last_siginfo;	/* (s) a ptrace stop's siginfo, in the stopped
					   task's own frame; NULL when not stopped */
	int event;			/* (s) PTRACE_EVENT_* to stop for at the next
					   return to user space; 0: none */
};

/*
 * Fields in three groups by who touches them: what lock-free readers follow
 * (the relations and the exit state, first), what the siglock guards, and
 * the rest.  Small ranges are kept in small types (nice, pdeath_signal).
 */
struct rp_task {
	unsigned int usage;		/* (a) references; get under RCU with
					   rp_task_get_rcu (increment-not-zero) */
	int exit_state;			/* (a, u; a plain exit's ZOMBIE, and its DEAD
					   when nobody waits: T of ->parent; a plain
					   reap's claim: compare-and-swap to DEAD
					   under T of real_parent)
					   0, RP_EXIT_ZOMBIE, _DEAD, _TRACE */
	struct rp_system *sys;		/* (c) */
	/* Read under rp_read_lock. */
	struct rp_pid *pid;		/* (r, u) tid; exec may swap with leader */
	struct rp_task *group_leader;	/* (r, u) */
	struct rp_task *real_parent;	/* (r, u, T of the old and the new one: a
					   plain exit's move; a thread's clone
					   reads its caller's under that T) who
					   gets the exit signal */
	struct rp_task *parent;		/* (r, u, T as ->real_parent's while
					   untraced; T of the tracer and of
					   ->real_parent: a plain attach or
					   detach) the tracer, or real_parent */
	struct rp_signal *signal;	/* (c) */
	struct rp_sighand *sighand;	/* (r, u+s; exec in rcu mode: the gate shared,
					   the old and the new siglock) switched by
					   exec; NULL once released: use
					   rp_lock_task_sighand */
	struct rp_cred *cred;		/* (r, t) replaced with rcu_assign_pointer */
	unsigned int flags;		/* RP_PF_*: see each */
	unsigned int ptrace;		/* (u, s; a plain attach or detach: T of
					   the tracer and of ->real_parent, and
					   s; the options alone, SETOPTIONS: T of
					   the tracer and s) RP_PT_*: the flags
					   read under either T or the siglock,
					   the options under T of the tracer or
					   the siglock */
	int exit_code;			/* (u, s; a ptrace request: T of the
					   tracer and s) status for wait, stop
					   reports; read again under s */
	/*
	 * CPU time (src/timers): held by a tick (rp_account_cpu) on this
	 * thread from its exit check to its last timer fired, and taken by the
	 * thread's exit point once RP_PF_EXITING is set: no tick runs on a
	 * thread past its exit point (the tick of Linux runs on the thread
	 * itself).  Here rather than in ->cputimers: 8 bytes less.  A byte,
	 * so that the word also holds rcu mode's object locks of the task
	 * (docs/process.md, "Without the update lock"), which take no room.
	 */
	struct rp_bytelock cputime_tick;
	struct rp_bytelock tree_lock;	/* T, rcu mode only: rp_tree_lock */
	struct rp_bytelock link_lock;	/* L of ->tasks, rcu mode only: rp_link_lock */
	struct rp_bytelock member_lock;	/* M of the block's pid, in a process block's
					   task only (the pids that name groups and
					   sessions): rp_member_lock */
	struct rp_hlist_tail_head children; /* (r, u, T: this task's; a plain exit's
					   splice holds both lists' T) Group 4: in
					   fork order, spliced on reparent */
	struct cds_hlist_node sibling;	/* (r, u, T of real_parent) in its ->children */
	struct cds_list_head tasks;	/* (r, u, L of this node and of its
					   predecessor: a plain fork's link, a plain
					   reap's unlink, validated; ->prev NULL once
					   off the list) Group 2: sys->tasks, leaders */
	struct cds_list_head thread_node; /* (r, u, G: a plain reap, a thread's
					   clone) Group 2: signal->thread_head */
	struct rp_ptrace_part *ptrace_part; /* (r, u, a) NULL until its first attach,
					   as tracer or tracee; then kept until
					   the task is freed (rcu_assign_pointer,
					   or compare-and-swap under the gate
					   shared) */
	/* Under the siglock. */
	uint64_t blocked;		/* (s) bit sig - 1, as the API's sigset_t's first word */
	struct rp_sigpending pending;	/* (s) thread-directed signals */
	unsigned int jobctl;		/* (s) RP_JOBCTL_* */
	int ioprio;			/* (s) ioprio_set's value; 0: from nice */
	int8_t nice;			/* (s) -20..19, per thread as Linux */
	int8_t stop_signr;		/* (s) its group's last stop signal, what its
					   tracer's group-stop trap reports */
	int8_t pdeath_signal;		/* (t) set by the task (PR_SET_PDEATHSIG, cleared
					   by its credential changes), read (u) */
	int8_t exit_signal;		/* (u, T of the old and the new real_parent:
					   a plain exit's move; T of real_parent: a
					   plain exec) to real_parent at exit,
					   below RP_NSIG
					   (clone checks); -1: none */
	/*
	 * (a, written under the update lock, or T of the pair's parent:
	 * a plain fork's and a plain exit's, whose decrement to 0 decides
	 * the orphaned-group kill) In the task of a struct
	 * rp_process only, while the block's pid is a process group's id:
	 * that group's ties, the members whose real parent is in another
	 * group of their session (jobc.h).  In the 4 bytes the alignment
	 * leaves here, so that a process is no bigger for it.
	 */
	unsigned int pgrp_jobc;
	/* The rest. */
	unsigned long self_exec_id;	/* (u, or G of its group and T of the task:
					   a plain exec; a child's notice reads it
					   under that T) execs so far (Linux's
					   self_exec_id) */
	unsigned long parent_exec_id;	/* (u) real_parent's self_exec_id at fork:
					   exit_signal only while they match */
	char comm[RP_COMM_LEN];		/* (t) */
	struct rp_task_cputimers cputimers; /* CPU time and timers: see src/timers */
	/*
	 * Never in use at once: the task is on the registry until its last
	 * reference is dropped, which takes it off before deferring its
	 * release (rp_task_put).
	 */
	union {
		struct cds_list_head registry;	/* (its registry shard's lock) every task
						   struct with a reference, for teardown */
		struct rp_deferred rcu;		/* freed after a grace period */
	};
};

/* A pid number and who uses it. */
enum rp_pid_type { RP_PIDTYPE_PID, RP_PIDTYPE_TGID, RP_PIDTYPE_PGID, RP_PIDTYPE_SID,
		   RP_PIDTYPE_MAX };

struct rp_pid {
	int nr : 30;			/* (c) below RP_PID_MAX_LIMIT: the number in the
					   root namespace */
	bool in_process : 1;		/* (c) fork's, in a struct rp_process; else a
					   thread's, a struct rp_tid */
	bool nested : 1;		/* (c) of a namespace below the root: its other
					   numbers in a struct rp_pid_levels (pidns.h) */
	/*
	 * (u, M of a process's pid for a plain fork's attachment of its
	 * group, a plain reap's detaches, and a group's attachment of its
	 * session while it has members) attachments, and
	 * in the top byte the terminals' holds (u)
	 * (RP_PID_TTY_HOLD each): the number is freed when the attachments
	 * reach 0, the memory when the holds are gone too (pid.c).
	 */
	unsigned int users;
	struct rp_task *task;		/* (r, u, G: a plain reap clears it) the task
					   whose tid this is */
	struct cds_hlist_node hash;	/* (r, B) Group 2: in sys->pid_hash, under
					   its bucket's lock */
	struct cds_hlist_head members;	/* (r, u, M) Group 5: proxies of the processes
					   whose pgrp this is */
	struct cds_hlist_head groups;	/* (u, M) the groups of the session this is
					   the id of, while each has members: their
					   ids' blocks' ->in_session */
};

/* A thread's tid, allocated by clone on its own; freed after a grace period. */
struct rp_tid {
	struct rp_pid pid;
	struct rp_system *sys;		/* (c) */
	struct rp_deferred rcu;
};

/*
 * The parts of a struct rp_process, in its group's ->parts_live.  Which
 * are in use needs no word of its own: the group and the task always; the
 * handler table if its count has RP_SIGHAND_IN_PROCESS, the pid if its
 * ->in_process is set (both set before the part is published).
 */
#define RP_PART_SIGNAL		0x1	/* dead: its last task let go (sigcnt 0) */
#define RP_PART_TASK		0x2	/* dead: its last reference put (usage 0) */
#define RP_PART_SIGHAND		0x4	/* dead: its last task let go (count 0) */
#define RP_PART_PID		0x8	/* dead: its last user detached (users 0) */
#define RP_PARTS_MASK		0xfU	/* the parts; the birth above them */
#define RP_BIRTH_SHIFT		4

/*
 * A process as one allocation (Linux allocates the four apart): the thread
 * group fork (or the table's set-up, for init) made, its first thread,
 * its handler table unless CLONE_SIGHAND shared the caller's, and the pid
 * allocated for that thread, which is the group's tgid
 * (rp_signal_leader_pid; exec's de_thread may give it to another thread of
 * the group: it stays the tgid).  Threads, their tids and exec's own handler tables are
 * allocated on their own.
 *
 * The existence guarantee: each part dies as it did when it was an object
 * of its own (the moment that used to defer its release, named beside
 * RP_PART_*), and the last death defers the block's release, after which
 * the cache may hand it out again: one grace period that begins after
 * every part was unpublished covers every reader that could see any of
 * the four.  So the block outlives its longest-lived part: a process
 * group or session id that outlives its process (the pid of a group
 * leader whose members live on) keeps the whole block, as does a thread
 * that outlives the group's first thread, or the first thread a tracer or
 * a waiter still holds.
 */
struct rp_process {
	struct rp_signal signal;
	struct rp_task task;		/* ->rcu: the block's deferral head (the
					   task is off the registry once dead) */
	struct rp_sighand sighand;	/* unused under CLONE_SIGHAND */
	struct rp_pid pid;		/* unused until the fork gets its number */
	struct cds_hlist_node in_session; /* (u, M of the session) ->pid as a process
					   group's id, on its session's ->groups while
					   the group has members (protocol (i)) */
};

/*
 * The block whose pid is @id, a process group's or a session's id: such
 * a pid is always a process block's, kept past that process's death.
 */
static inline struct rp_process *rp_id_block(struct rp_pid *id)
{
	RP_DEBUG_BUG_ON(!id->in_process);
	return caa_container_of(id, struct rp_process, pid);
}

/* M of @pid, a process group's or a session's id (rp_member_lock): a byte of its block's task. */
static inline struct rp_bytelock *rp_member_lock_of(struct rp_pid *pid)
{
	return &rp_id_block(pid)->task.member_lock;
}

/* The block @sig is the group of (every group is in one). */
static inline struct rp_process *rp_process_of(struct rp_signal *sig)
{
	return caa_container_of(sig, struct rp_process, signal);
}

/*
 * The table @sig belongs to: the ->sys of its block's task, set with it
 * and constant, and kept until the block's release whether or not that
 * task is still alive (a group has no ->sys of its own: one word less).
 */
static inline struct rp_system *rp_signal_sys(const struct rp_signal *sig)
{
	return rp_process_of((struct rp_signal *)sig)->task.sys;
}

/*
 * The tgid of @sig: its block's pid, numbered for the group's first thread
 * by the fork (or the table's set-up) that made the group, before the
 * group is published, and constant (exec's de_thread gives it to the
 * thread that execs: it stays the tgid).  No pointer in the group.
 */
static inline struct rp_pid *rp_signal_leader_pid(const struct rp_signal *sig)
{
	return &rp_process_of((struct rp_signal *)sig)->pid;
}

/*
 * @sig's place in the order processes were created (Linux's order of
 * for_each_process): the root pid map's count when its fork took its
 * number there (rp_pidmap_alloc_ordered), in the top 28 bits of a 32-bit
 * word (->parts_live's).  Constant once the group is published; compare
 * two with rp_order_before, which holds for processes created less than
 * 2^27 root numbers apart.
 */
static inline uint32_t rp_signal_birth(struct rp_signal *sig)
{
	return CMM_LOAD_SHARED(sig->parts_live) & ~RP_PARTS_MASK;
}

/* Serial-number arithmetic on births and joining orders: does @a come before @b? */
static inline bool rp_order_before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/*
 * @sig's place in its process group's joining order (Linux's order of a
 * group's list, the newest first): its birth if it joined at its fork,
 * else its last move's (rp_moved_proxy).  Under @sig's siglock, M of its
 * group's pid, or the update lock (->proxy is stable under each).
 */
static inline uint32_t rp_signal_pgrp_joined(struct rp_signal *sig)
{
	struct rp_proxy *px = sig->proxy;

	if (px == &sig->member)
		return rp_signal_birth(sig);
	return caa_container_of(px, struct rp_moved_proxy, px)->joined;
}

/*
 * Part @part of @proc died (RP_PART_*: its last reference dropped, once it
 * was unpublished); the last part's death releases the block after a
 * grace period (objects.c).
 */
void rp_process_part_dead(struct rp_process *proc, unsigned int part);

/*
 * The live objects of each kind that one thread slot counted, created less
 * freed (src/debug/threadslot.h): a row of the system's per-thread counts.
 * A cache line of its own, so that no two threads write one line.
 */
struct rp_count_row {
	unsigned long tasks;
	unsigned long signals;
	unsigned long sighands;
	unsigned long pids;
	unsigned long creds;
	unsigned long sigqueues;
	unsigned long proxies;
	unsigned long pidns;
} __attribute__((aligned(RP_CACHE_LINE)));

/*
 * The task registry, sharded by the task's address (rp_registry_shard_of),
 * so that the forks and last puts of unrelated subtrees take the same
 * shard's lock only when their tasks' addresses hash alike: a registry
 * lock is no line that every fork writes.  Each lock is a leaf.
 */
#define RP_REGISTRY_BITS	8
#define RP_REGISTRY_SHARDS	(1U << RP_REGISTRY_BITS)

/*
 * B of the pid hash: 4,096 packed stripes (16 KB beside the hash's 4 MB;
 * task/bucket.h says why striped and packed).
 */
#define RP_PID_HASH_LOCKS	4096U

struct rp_registry_shard {
	pthread_mutex_t lock;
	struct cds_list_head tasks;	/* lock: their ->registry */
} __attribute__((aligned(RP_CACHE_LINE)));

struct rp_system {
	struct rp_sync sync;		/* the table's read and update sides */
	struct rp_pidns pidns;		/* the root pid namespace; its pidmap (a): pid
					   numbers, pid_max, the cursor and the
					   bitmap, no lock (pidmap.h) */
	struct rp_pidns_tables *pidns_tables; /* (r, u) the nested namespaces' hashes,
					   made with the first (pidns.h); NULL before */
	struct cds_hlist_head *pid_hash; /* (r, B) RP_PID_HASH_SIZE buckets: each
					   chain's inserts and removals under its
					   bucket lock (task/bucket.h) */
	struct cds_list_head tasks;	/* (r, u, L of the nodes around a link or
					   an unlink)
					   Group 2: every process leader */
	struct rp_bytelock tasks_lock;	/* L of the list's head (rp_link_lock) */
	/*
	 * (a) prctl(PR_SET_CHILD_SUBREAPER) walks under the gate shared, and
	 * plain exits moving children under it: each side adds to its own,
	 * full barrier, reads the other's, and takes the gate exclusive if
	 * it is not 0 (a walk follows children up through real_parent,
	 * which a move changes: sys/ids.c, proc/exit.c).
	 */
	unsigned int subreaper_walks;
	unsigned int exit_moves;
	struct rp_task *child_reaper;	/* (u) init's thread that reaps orphans, with
					   a reference: the leader, or when it
					   exits a live thread of init (proc/exit.c) */
	struct rp_signal *init_signal;	/* (c) init's thread group (exec keeps it):
					   what rp_is_global_init compares */
	pthread_mutex_t users_lock;	/* the lock of (U) fields */
	struct cds_hlist_head users[64]; /* (U) rp_user by uid */
	unsigned char cred_columns;	/* (U) the columns of ref_rows' cred in use, a bit each */
	unsigned char nproc_columns;	/* (U) the columns of ref_rows' nproc in use */
	struct rp_ref_row *ref_rows;	/* (c) a row per thread slot (cred.c) */
	void *ref_rows_block;		/* (c) the allocation ref_rows is aligned in */
	struct rp_registry_shard *registry; /* (c) RP_REGISTRY_SHARDS lists: every
					   task struct with a reference, for
					   teardown (rp_registry_shard_of) */
	struct rp_count_row *counts;	/* (c) live objects: a row per thread slot,
					   each written by its slot's thread
					   alone (rp_count_inc), summed on read */
	void *counts_block;		/* (c) the allocation counts is aligned in */
	void *registry_block;		/* (c) the allocation registry is aligned in */
	struct rp_spinlock pid_hash_locks[RP_PID_HASH_LOCKS]; /* B of sys->pid_hash:
					   bucket i's is i % RP_PID_HASH_LOCKS */
};

/* 2^19 buckets: chains of at most 8 pids on average at RP_PID_MAX_LIMIT. */
#define RP_PID_HASH_BITS	19
#define RP_PID_HASH_SIZE	(1U << RP_PID_HASH_BITS)

/* ---- src/task: tasks, credentials, wait queues, sighand locking ---- */

/* Take a reference under rp_read_lock: false if @t is already being freed. */
bool rp_task_get_rcu(struct rp_task *t);

/* Free @t now (no reader can reach it); drops its ->signal and ->cred. */
void rp_task_free_now(struct rp_task *t);

/* Allocate a thread's task: zeroed, registered with @sys, usage 1; NULL on ENOMEM. */
struct rp_task *rp_task_alloc(struct rp_system *sys);
/* Set up @t, zeroed, as rp_task_alloc does (a process block's task). */
void rp_task_init(struct rp_system *sys, struct rp_task *t);

/*
 * A ptrace part, zeroed, not yet initialised nor published (ptrace.c
 * does both); NULL on ENOMEM.  Freed with the task (rp_ptrace_part_free).
 */
struct rp_ptrace_part *rp_ptrace_part_alloc(void);
/* Free @t's part, if it has one: @t is being freed, no reader can reach it. */
void rp_ptrace_part_free(struct rp_task *t);

/* Is @t its process block's task (not a thread allocated on its own)? */
static inline bool rp_task_in_process(struct rp_task *t)
{
	/* A thread's ->signal is set by its fork; a block's task's, with it. */
	return t->signal && t == &rp_process_of(t->signal)->task;
}

static inline bool rp_thread_group_leader(const struct rp_task *t)
{
	return t->group_leader == t;
}

static inline pid_t rp_task_tid(const struct rp_task *t)
{
	return t->pid->nr;
}

static inline pid_t rp_task_tgid(const struct rp_task *t)
{
	return rp_signal_leader_pid(t->signal)->nr;
}

/* Has @t exited (a zombie or past its exit point)?  Its calls return -ESRCH. */
static inline bool rp_task_exited(const struct rp_task *t)
{
	return uatomic_read(&t->exit_state) != 0 ||
	       (CMM_LOAD_SHARED(t->flags) & RP_PF_EXITING);
}

/*
 * Debug builds: stop at a task that was freed under the caller.  rp_free
 * poisons what it frees (src/debug/fault.h), and a poisoned task read as if
 * alive gives a plausible wrong answer (its ->signal matches nothing)
 * instead of a fault; this makes such a use after free (I5) fail loudly
 * in builds without ASan.  Nothing in release builds.
 */
static inline void rp_task_assert_not_freed(const struct rp_task *t)
{
	/* Every byte of a freed task's ->sys is RP_POISON_FREE. */
	RP_DEBUG_BUG_ON((uintptr_t)CMM_LOAD_SHARED(t->sys) ==
			RP_POISON_FREE * (UINTPTR_MAX / 0xff));
}

/* Is @t a thread of init?  Lock-free: init's thread group never changes. */
static inline bool rp_is_global_init(const struct rp_task *t)
{
	return t->signal == t->sys->init_signal;
}

/*
 * Set @sig's controlling terminal (update lock held): TIOCSCTTY and the
 * terminal's loss (src/tty), fork, setsid.  Pairs with own_tty's
 * CMM_LOAD_SHARED in src/tty/tty.c.
 */
static inline void rp_signal_set_tty(struct rp_signal *sig, struct rp_tty *tty)
{
	/*
	 * A converted fork sets its child's, and setsid the caller's, under
	 * M of the process's group; every other writer, and the session's
	 * walk that forgets the terminal, holds the update lock.
	 */
	rp_assert_update_or_held(&rp_signal_sys(sig)->sync, rp_member_lock_of(sig->pgrp));
	CMM_STORE_SHARED(sig->tty, tty);
}

static inline bool rp_same_thread_group(const struct rp_task *a, const struct rp_task *b)
{
	return a->signal == b->signal;
}

/*
 * The task that traces @t, or NULL (read section held): its ptrace link's
 * owner.  ptrace's unlink clears the owner before anything else changes,
 * and its link sets it before @t's ->ptrace, so a tracee that saw itself
 * traced under its siglock finds its tracer here unless a detach has begun
 * since (as Linux reads current->ptrace under tasklist_lock).  The tracer
 * outlives the section: its exit unlinks every tracee before its release.
 */
static inline struct rp_task *rp_tracer_rcu(const struct rp_task *t)
{
	struct rp_ptrace_part *pt;

	rp_assert_read_section(&t->sys->sync);
	/* Pairs with the publication of the part in ptrace.c (ptrace_part). */
	pt = rcu_dereference(t->ptrace_part);
	/* Pairs with the owner stores of rp_owned_add_pub and rp_owned_del_pub. */
	return pt ? rcu_dereference(pt->entry.owner) : NULL;
}

/*
 * The ptrace part of @t, which a task traced or tracing has (its siglock
 * or the update lock held, so that @t is not freed; NULL if @t never was
 * either).  Pairs with ptrace.c's publication (ptrace_part).
 */
static inline struct rp_ptrace_part *rp_task_ptrace_part(const struct rp_task *t)
{
	return rcu_dereference(t->ptrace_part);
}

/*
 * Lock @t's sighand and return it, or NULL if @t has been released (its
 * sighand is gone).  Loads the pointer, locks, rechecks that it is still
 * @t's, and retries if exec switched it meanwhile (commit e56d090310d7).
 * RP_BREAK_SIGHAND_NO_RECHECK skips the recheck.
 */
struct rp_sighand *rp_lock_task_sighand(struct rp_task *t);

/*
 * One of rcu mode's object locks (G, T, L below), a byte lock of @class
 * that the lock-order checker knows by its address (debug builds).
 */
static inline void rp_object_lock(enum rp_lock_class class, struct rp_bytelock *l)
{
	rp_lockdep_acquire_obj(class, l);
	rp_byte_lock(l);
}

static inline void rp_object_unlock(enum rp_lock_class class, struct rp_bytelock *l)
{
	rp_byte_unlock(l);
	rp_lockdep_release_obj(class, l);
}

/*
 * G, the group lock of @sig (rcu mode's object locks, docs/process.md):
 * taken by an operation that holds the update gate shared, for the
 * group's (G) fields.  The lock-order checker knows it by its address.
 */
static inline void rp_group_lock(struct rp_signal *sig)
{
#ifdef RP_DEBUG
	/* Another converted writer of the group is in: we are about to wait. */
	if (CMM_LOAD_SHARED(sig->group_lock.locked))
		RP_RACE_POINT(RP_RACE_GROUP_WAITS,
			      &caa_container_of(sig, struct rp_process, signal)->task);
#endif
	rp_object_lock(RP_LOCK_GROUP, &sig->group_lock);
}

static inline void rp_group_unlock(struct rp_signal *sig)
{
	rp_object_unlock(RP_LOCK_GROUP, &sig->group_lock);
}

/*
 * G of @sig if @take; else, a broken twin's, the checker is told and
 * nothing is taken, so that what a test sees is the race, not an
 * assertion (as rp_tree_lock_set's @untaken).
 */
static inline void rp_group_lock_if(struct rp_signal *sig, bool take)
{
	if (take)
		rp_group_lock(sig);
	else
		rp_lockdep_acquire_untaken_obj(RP_LOCK_GROUP, &sig->group_lock);
}

static inline void rp_group_unlock_if(struct rp_signal *sig, bool take)
{
	if (take)
		rp_group_unlock(sig);
	else
		rp_lockdep_release_obj(RP_LOCK_GROUP, &sig->group_lock);
}

/* A (G) field's write: the update lock, or @sig's G (debug builds). */
#define rp_assert_group_write(sys, sig) \
	rp_assert_update_or_held(&(sys)->sync, &(sig)->group_lock)

/*
 * T, the tree lock of @t (rcu mode's object locks): taken by a converted
 * operation, inside the gate held shared, for @t's children list and what
 * a child's link to it writes.  Several at once in increasing address.
 */
static inline void rp_tree_lock(struct rp_task *t)
{
#ifdef RP_DEBUG
	/* Another converted writer of @t's tree is in: we are about to wait. */
	if (CMM_LOAD_SHARED(t->tree_lock.locked))
		RP_RACE_POINT(RP_RACE_TREE_WAITS, t);
#endif
	rp_object_lock(RP_LOCK_TREE, &t->tree_lock);
}

static inline void rp_tree_unlock(struct rp_task *t)
{
	rp_object_unlock(RP_LOCK_TREE, &t->tree_lock);
}

/* A (T) write to @t's tree fields: the update lock, or @t's T (debug builds). */
#define rp_assert_tree_write(sys, t) \
	rp_assert_update_or_held(&(sys)->sync, &(t)->tree_lock)

/*
 * M, the member lock of @pid, a process group's or a session's id: such a
 * pid is always its process block's (the tgid of the process it was made
 * for, kept by the block past that process's death), and its lock is a
 * byte of the block's task (rp_member_lock_of).  Several at once in
 * increasing address.
 */
static inline void rp_member_lock(struct rp_pid *pid)
{
	struct rp_bytelock *l = rp_member_lock_of(pid);

#ifdef RP_BREAK_MEMBER_UNLOCKED
	rp_lockdep_acquire_untaken_obj(RP_LOCK_MEMBER, l);
#else
	rp_lockdep_acquire_obj(RP_LOCK_MEMBER, l);
#endif
#ifdef RP_DEBUG
	/* Another converted writer of this group is in: we are about to wait. */
	if (CMM_LOAD_SHARED(l->locked))
		RP_RACE_POINT(RP_RACE_MEMBER_WAITS,
			      &caa_container_of(pid, struct rp_process, pid)->task);
#endif
	/* RP_BREAK_MEMBER_UNLOCKED: the naive twin trusts the gate, takes no
	   lock, and tells the checker it did (what a test sees is the lost
	   update, not the assertion). */
#ifndef RP_BREAK_MEMBER_UNLOCKED
	rp_byte_lock(l);
#endif
}

static inline void rp_member_unlock(struct rp_pid *pid)
{
#ifndef RP_BREAK_MEMBER_UNLOCKED
	rp_byte_unlock(rp_member_lock_of(pid));
#endif
	rp_lockdep_release_obj(RP_LOCK_MEMBER, rp_member_lock_of(pid));
}

/*
 * The objects whose locks of one class (T, M) an operation takes together:
 * each once, in increasing address of its lock, the order within a class
 * (src/debug/lockorder.h).  rp_lock_set_add keeps them so; the caller
 * takes them in that order and lets them go in the reverse.
 */
#define RP_LOCK_SET_MAX	9	/* setpgid's T: eight threads and their real parent */

struct rp_lock_set {
	void *obj[RP_LOCK_SET_MAX];
	const struct rp_bytelock *lock[RP_LOCK_SET_MAX];
	unsigned int n;
};

/* Add @obj, whose lock is @lock, to @s unless it is there. */
static inline void rp_lock_set_add(struct rp_lock_set *s, void *obj,
				   const struct rp_bytelock *lock)
{
	unsigned int j = s->n;

	for (unsigned int k = 0; k < s->n; k++)
		if (s->lock[k] == lock)
			return;
	RP_BUG_ON(s->n == RP_LOCK_SET_MAX);
	while (j && (uintptr_t)s->lock[j - 1] > (uintptr_t)lock) {
		s->obj[j] = s->obj[j - 1];
		s->lock[j] = s->lock[j - 1];
		j--;
	}
	s->obj[j] = obj;
	s->lock[j] = lock;
	s->n++;
}

static inline void rp_tree_set_add(struct rp_lock_set *s, struct rp_task *t)
{
	rp_lock_set_add(s, t, &t->tree_lock);
}

static inline void rp_member_set_add(struct rp_lock_set *s, struct rp_pid *pid)
{
	rp_lock_set_add(s, pid, rp_member_lock_of(pid));
}

/* Every lock of a set untaken (a broken twin's that takes none). */
#define RP_LOCK_SET_ALL		(~0U)

/*
 * M of every pid of @s, in its order, but those whose bit (1 << i) is set
 * in @untaken: a broken twin's, for which the checker is told and nothing
 * is taken, so that what a test sees is the lost update, not an
 * assertion.
 */
static inline void rp_member_lock_set(const struct rp_lock_set *s, unsigned int untaken)
{
	for (unsigned int i = 0; i < s->n; i++) {
		if (untaken & (1U << i))
			rp_lockdep_acquire_untaken_obj(RP_LOCK_MEMBER, s->lock[i]);
		else
			rp_member_lock(s->obj[i]);
	}
}

static inline void rp_member_unlock_set(const struct rp_lock_set *s, unsigned int untaken)
{
	for (unsigned int i = s->n; i--;) {
		if (untaken & (1U << i))
			rp_lockdep_release_obj(RP_LOCK_MEMBER, s->lock[i]);
		else
			rp_member_unlock(s->obj[i]);
	}
}

/*
 * T of every task of @s, in its order, but those whose bit (1 << i) is
 * set in @untaken: a broken twin's, for which the checker is told and
 * nothing is taken, so that what a test sees is the race, not an
 * assertion.
 */
static inline void rp_tree_lock_set(const struct rp_lock_set *s, unsigned int untaken)
{
	for (unsigned int i = 0; i < s->n; i++) {
		if (untaken & (1U << i))
			rp_lockdep_acquire_untaken_obj(RP_LOCK_TREE, s->lock[i]);
		else
			rp_tree_lock(s->obj[i]);
	}
}

/* Let go of what rp_tree_lock_set(@s, @untaken) took, in reverse; @s is left empty. */
static inline void rp_tree_unlock_set(struct rp_lock_set *s, unsigned int untaken)
{
	while (s->n) {
		unsigned int i = --s->n;

		if (untaken & (1U << i))
			rp_lockdep_release_obj(RP_LOCK_TREE, s->lock[i]);
		else
			rp_tree_unlock(s->obj[i]);
	}
}

/* A (M) write to @pid's member lists or attachments: the update lock or its M. */
#define rp_assert_member_write(sys, pid) \
	rp_assert_update_or_held(&(sys)->sync, rp_member_lock_of(pid))

/*
 * L of a node of sys->tasks: a leader's ->tasks, or the list's head.  A
 * link takes its predecessor's alone; an unlink its predecessor's and
 * then its own (list order).
 */
static inline struct rp_bytelock *rp_link_lock_of(struct rp_system *sys,
						  struct cds_list_head *node)
{
	if (node == &sys->tasks)
		return &sys->tasks_lock;
	return &caa_container_of(node, struct rp_task, tasks)->link_lock;
}

static inline void rp_link_lock(struct rp_bytelock *l)
{
	rp_object_lock(RP_LOCK_LINK, l);
}

static inline void rp_link_unlock(struct rp_bytelock *l)
{
	rp_object_unlock(RP_LOCK_LINK, l);
}
/* The same, for a caller already inside rp_read_lock. */
struct rp_sighand *rp_lock_task_sighand_rcu(struct rp_task *t);
/*
 * The task that *@ref (a pid's ->task, a task's ->real_parent) names now,
 * in *@t, with its sighand locked; NULL if it names none.  A task found but
 * released before its lock is taken had handed its place on first (exec's
 * de_thread gives its pid to the thread that takes over, exit's
 * reparenting gives its children another parent), so *@ref is followed
 * again, as the lock modes' readers, which exclude the release, would have
 * found the successor.  rp_read_lock held.
 */
struct rp_sighand *rp_lock_followed_sighand_rcu(struct rp_task **ref, struct rp_task **t);
void rp_unlock_sighand(struct rp_sighand *sh);

static inline void rp_sighand_lock(struct rp_sighand *sh)
{
	rp_lockdep_acquire_obj(RP_LOCK_SIGHAND, sh);
	rp_spin_lock(&sh->siglock);
}

/*
 * Lock @sh, a table nobody else can reach yet (exec's copy, a new child's),
 * while holding another siglock: the class after it in the lock order.
 */
static inline void rp_sighand_lock_new(struct rp_sighand *sh)
{
	rp_lockdep_acquire_obj(RP_LOCK_SIGHAND_NEW, sh);
	rp_spin_lock(&sh->siglock);
}

static inline void rp_sighand_unlock_new(struct rp_sighand *sh)
{
	rp_spin_unlock(&sh->siglock);
	rp_lockdep_release_obj(RP_LOCK_SIGHAND_NEW, sh);
}

/*
 * A precondition: this thread holds @t's siglock, the lock of @t's current
 * table (debug builds).  Holding another table's lock is not enough: exec
 * may have switched @t away from it.
 */
#define rp_assert_siglock_held(t) RP_DEBUG_BUG_ON(!rp_siglock_held_here(t))

/* Does this thread hold @t's current siglock?  Asked by debug builds only. */
static inline bool rp_siglock_held_here(const struct rp_task *t)
{
	return rp_lockdep_holds(CMM_LOAD_SHARED(t->sighand));
}

/*
 * A precondition: this thread holds the siglock of @sig's group, the table
 * its threads not yet released share (debug builds).  For code that
 * reaches the group and not one thread: a process clock's timers.
 */
#define rp_assert_group_siglock_held(sig) RP_DEBUG_BUG_ON(!rp_group_siglock_held_here(sig))

/* Does this thread hold the siglock of @sig's group?  Debug builds only. */
static inline bool rp_group_siglock_held_here(struct rp_signal *sig)
{
	struct rp_sighand *sh;
	struct rp_task *t;

	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &sig->thread_head, thread_node)
		if ((sh = CMM_LOAD_SHARED(t->sighand)))
			return rp_lockdep_holds(sh);
	return false;
}

/* The action of @sig in @sh, to read: @sh's siglock held. */
static inline const struct rp_ksigaction *rp_sighand_action(const struct rp_sighand *sh,
							    int sig)
{
	rp_lockdep_assert_held_obj(sh);
	return &sh->actions->action[sig - 1];
}

/* Limit @resource of @t's group: @t's siglock held. */
static inline const struct rlimit *rp_task_rlimit(const struct rp_task *t, int resource)
{
	const struct rp_signal_extra *extra = t->signal->extra;

	rp_assert_siglock_held(t);
	return &(extra ? extra->rlim : &rp_default_rlimits)->rlim[resource];
}

/*
 * The timers of @sig, NULL if its ->extra was never needed: its siglock
 * held, or the group dead (its teardown).  Loaded shared for the broken
 * twin of rp_group_cputime, which samples without the siglock.
 */
static inline struct rp_group_timers *rp_group_timers_of(const struct rp_signal *sig)
{
	struct rp_signal_extra *extra = CMM_LOAD_SHARED(sig->extra);

	return extra ? &extra->timers : NULL;
}

/* The thread exec'ing in @t's group, if any: @t's siglock held. */
static inline struct rp_task *rp_group_exec_task(const struct rp_task *t)
{
	const struct rp_signal_extra *extra = t->signal->extra;

	rp_assert_siglock_held(t);
	return extra ? extra->group_exec_task : NULL;
}

/* The wait queue of the object at @obj: its bucket of the hashed table. */
struct rp_waitq *rp_waitq_of(const void *obj);
/* Where a stopped or traced task sleeps (rp_signal_wake_up wakes it). */
static inline struct rp_waitq *rp_task_waitq(const struct rp_task *t)
{
	return rp_waitq_of(t);
}
/* Where wait(2) and exec's de_thread sleep: a child or a thread changed state. */
static inline struct rp_waitq *rp_chldexit_waitq(const struct rp_signal *sig)
{
	return rp_waitq_of(sig);
}
/* The wake-up count now: sample before checking the condition. */
unsigned long rp_waitq_seq(struct rp_waitq *wq);
/* Sleep until a wake-up after @seq (goes offline for QSBR while asleep). */
void rp_waitq_wait(struct rp_waitq *wq, unsigned long seq);
void rp_waitq_wake(struct rp_waitq *wq);

/* Wake every thread of @p's group sleeping in wait(2): a child changed state. */
static inline void rp_wake_up_parent(struct rp_task *p)
{
	rp_waitq_wake(rp_chldexit_waitq(p->signal));
}

/* Credentials and per-uid accounting. */
void rp_user_ref(struct rp_system *sys, struct rp_user *u);
void rp_user_put(struct rp_system *sys, struct rp_user *u);
/*
 * Credentials whose one reference is @owner's, the task that will commit
 * them (counted per thread slot until @owner puts that reference, in rcu
 * mode while a column is free); NULL on ENOMEM.
 */
struct rp_cred *rp_cred_alloc(struct rp_system *sys, const struct rp_task *owner,
			      uid_t uid, uid_t euid, uid_t suid, uint64_t caps);
/* A reference for a new holder of @c, which a holder of @c takes. */
struct rp_cred *rp_cred_get(struct rp_cred *c);
/* @holder lets go of its reference to @c (its owner's, or one rp_cred_get took). */
void rp_cred_put(struct rp_cred *c, const struct rp_task *holder);
/*
 * RLIMIT_NPROC (Linux's inc_rlimit_ucounts and is_rlimit_overlimit): count
 * @self's new task of @c's user and compare the count with @limit unless @c is
 * exempt (root, CAP_SYS_RESOURCE, CAP_SYS_ADMIN): 0, or -EAGAIN and
 * nothing counted.  No lock held.
 */
int rp_nproc_charge(struct rp_task *self, const struct rp_cred *c, rlim_t limit);
/* A task of @u's counted by rp_nproc_charge is gone (released or never published). */
void rp_nproc_uncharge(struct rp_system *sys, struct rp_user *u);
/* Does @u have more tasks than @limit?  Exact when no task of @u forks or goes meanwhile. */
bool rp_nproc_over(struct rp_system *sys, struct rp_user *u, rlim_t limit);
/* The credentials of @t, under rp_read_lock. */
static inline struct rp_cred *rp_task_cred_rcu(struct rp_task *t)
{
	rp_assert_read_section(&t->sys->sync);
	/* Pairs with rcu_assign_pointer in rp_commit_creds. */
	return rcu_dereference(t->cred);
}
/* Replace the calling task's credentials (takes over @new's reference). */
void rp_commit_creds(struct rp_task *self, struct rp_cred *new);
static inline bool rp_cred_capable(const struct rp_cred *c, int cap)
{
	return (c->caps >> cap) & 1;
}
/*
 * Linux's checkpoint_restore_ns_capable: CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE (clone3's set_tid, ns_last_pid).  User
 * namespaces are not modelled: every pid namespace is owned by the one
 * the table's credentials live in, so one check answers for each level.
 */
static inline bool rp_cred_checkpoint_restore_capable(const struct rp_cred *c)
{
	return rp_cred_capable(c, RP_CAP_SYS_ADMIN) ||
	       rp_cred_capable(c, RP_CAP_CHECKPOINT_RESTORE);
}

/* Counting live objects (I7), in the calling thread's row. */
#define rp_count_add(sys, what, delta) do {					\
	unsigned int slot_ = rp_thread_slot();					\
										\
	rp_slot_add(&(sys)->counts[slot_].what, slot_, (delta));		\
} while (0)
#define rp_count_inc(sys, what) rp_count_add(sys, what, 1)
#define rp_count_dec(sys, what) rp_count_add(sys, what, -1)

/* ---- pids (pid.c) ---- */

/*
 * A pid numbered for @t in namespace @ns and each above it (@st: clone3's
 * set_tid, or NULL), not yet published, with no lock (pidmap.h): its
 * block's pid if it is its block's task, else a tid of its own, and in
 * *@lv the record of its numbers below the root (NULL in the root
 * namespace); NULL (EAGAIN/ENOMEM, or set_tid's EINVAL/EPERM/EEXIST, in
 * *err).  rp_pid_publish makes it found by number.
 */
struct rp_pid *rp_pid_alloc_for(struct rp_task *t, struct rp_pidns *ns,
				const struct rp_set_tid *st, struct rp_pid_levels **lv, int *err);
/*
 * Into the pid hash, and with @lv (rp_pid_alloc_for's) into the nested
 * tables (update lock); rp_pid_detach's last takes it out.
 */
void rp_pid_publish(struct rp_pid *pid, struct rp_pid_levels *lv);
/* A tid of its own, numbered and published at once (update lock): NULL as above. */
struct rp_pid *rp_pid_alloc(struct rp_system *sys, int *err);
/* The table @pid belongs to (its block's or its tid's). */
struct rp_system *rp_pid_sys(struct rp_pid *pid);
/* A new user of @pid (update lock, or its M if it is a group's or session's id). */
void rp_pid_attach(struct rp_pid *pid);
/* A fork's own new pid, whose task is not linked yet: the update gate, shared or not. */
void rp_pid_attach_new(struct rp_pid *pid);
/*
 * One user less (update lock, or its M if it is a group's or session's
 * id; a nested pid's last, only the update lock); the last frees the
 * number, and the struct after RCU unless a terminal holds it.
 */
void rp_pid_detach(struct rp_pid *pid);
/*
 * A terminal's hold on @pid, its foreground group (update lock, or the
 * pid's M for a process's own pid of the root namespace alone): the
 * struct outlives the number, as a struct pid a tty holds in Linux.  A pid
 * is held by two terminals at most (docs/jobctl.md, "The terminal").
 */
void rp_pid_tty_hold(struct rp_pid *pid);
/* Let go of that hold (the same locks); the struct goes after RCU if nothing else holds it. */
void rp_pid_tty_unhold(struct rp_pid *pid);
/*
 * @pid into sys->pid_hash and out of it, under its bucket's lock alone (B,
 * task/bucket.h): safe without the update lock in rcu mode, the global
 * write lock held in the lock modes.  rp_pid_publish and rp_pid_detach
 * call them; the tests call them without the update lock.
 */
void rp_pid_hash_add(struct rp_pid *pid);
void rp_pid_hash_del(struct rp_pid *pid);
/* The pid hash's bucket of number @nr (0 .. RP_PID_HASH_SIZE - 1). */
unsigned int rp_pid_hash_index(int nr);
/* The pid numbered @nr, under rp_read_lock; NULL if none. */
struct rp_pid *rp_pid_find_rcu(struct rp_system *sys, int nr);
/* The task whose tid is @nr, under rp_read_lock; NULL if none. */
struct rp_task *rp_find_task_rcu(struct rp_system *sys, int nr);
/*
 * The same, @nr as @self sees it: a number of @self's pid namespace
 * (Linux's find_vpid, find_task_by_vpid); NULL if none there.
 */
struct rp_pid *rp_pid_find_vnr_rcu(struct rp_task *self, int nr);
struct rp_task *rp_find_task_vnr_rcu(struct rp_task *self, int nr);

#endif /* RP_TASK_TASK_H */
