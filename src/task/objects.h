/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Constructors and destructors of the objects in task.h. */
#ifndef RP_TASK_OBJECTS_H
#define RP_TASK_OBJECTS_H

#include <time.h>
#include "task.h"

/*
 * A process block (struct rp_process) for fork or init: its group with no
 * threads yet, sigcnt 1, the default rlimits, and its task as
 * rp_task_alloc makes one, in that group; NULL on ENOMEM.
 */
struct rp_process *rp_process_alloc(struct rp_system *sys);
/* Take @proc's own handler table into use (not yet published): as rp_sighand_alloc's. */
struct rp_sighand *rp_process_sighand(struct rp_process *proc);
/* exec's table of its own, every action SIG_DFL, count 1; NULL on ENOMEM. */
struct rp_sighand *rp_sighand_alloc(struct rp_system *sys);
/* One user less; the last frees it after a grace period. */
void rp_sighand_put(struct rp_sighand *sh);
/*
 * Give @dst (nobody else's yet) the actions of @src, whose siglock is held:
 * the shared default table, or a private copy.  0 or -ENOMEM.
 */
int rp_sighand_copy_actions(struct rp_sighand *dst, const struct rp_sighand *src);
/*
 * The action of @sig in @sh, to change (siglock held): a sighand still on
 * the shared default table gets its private copy first.  NULL on ENOMEM.
 * RP_BREAK_SHARED_ACTIONS_WRITTEN skips the copy: the change lands in the
 * table every other sighand shares.
 */
struct rp_ksigaction *rp_sighand_action_write(struct rp_sighand *sh, int sig);
/*
 * exec's reset (Linux's flush_signal_handlers(t, 0)): every action SIG_DFL
 * with no flags and an empty mask, SIG_IGN kept; a table left all default
 * returns to the shared one (siglock held).
 */
void rp_sighand_flush_handlers(struct rp_sighand *sh);

/*
 * One reference less: true if it was the last, and the group's part of its
 * block is dead.  Only a task holds a reference, so the last is dropped by
 * a task's last put, once that task is unpublished.
 */
bool rp_signal_put(struct rp_signal *sig);

/* @sig's rarely used state, allocated on first use (@sig's siglock held); NULL on ENOMEM. */
struct rp_signal_extra *rp_signal_extra_get(struct rp_signal *sig);

/*
 * Limit @resource of @t's group, to change (siglock held): its own block,
 * copied from a shared one first; NULL on ENOMEM.
 */
struct rlimit *rp_task_rlimit_write(struct rp_task *t, int resource);
/*
 * Give @child (not yet published) the limits of @parent (its siglock held):
 * 0, or -ENOMEM if @parent has limits of its own and @child's ->extra,
 * which holds them, cannot be allocated.
 */
int rp_signal_share_rlimits(struct rp_signal *child, struct rp_signal *parent);

/* A queued-signal entry charged to @user (RLIMIT_SIGPENDING is the caller's check). */
struct rp_sigqueue *rp_sigqueue_alloc(struct rp_system *sys, struct rp_user *user);
/* A timer's preallocated entry is not freed: its timer's reference is dropped. */
void rp_sigqueue_free(struct rp_system *sys, struct rp_sigqueue *q);
/* Free every entry of @p and clear its set (siglock held, or no sharers left). */
void rp_flush_sigqueue(struct rp_system *sys, struct rp_sigpending *p);

/*
 * The POSIX CPU timers a thread group owns (src/timers creates, arms and
 * fires them; the group frees those never deleted, at teardown).
 */

/* A decoded CPU clock id. */
struct rp_cpu_clock {
	pid_t pid;		/* 0: the caller (its thread or its process) */
	int which;		/* RP_CPUCLOCK_PROF, _VIRT or _SCHED */
	bool thread;		/* a thread's clock, not a process's */
};

/* rp_cpu_timer.status (Linux's it_status). */
enum {
	RP_TIMER_DISARMED,		/* not armed, no re-arm owed */
	RP_TIMER_ARMED,			/* on its target's armed list (or a tick's firing list) */
	RP_TIMER_REQUEUE_PENDING,	/* a periodic timer fired: re-armed when its signal is delivered */
};

/*
 * A POSIX CPU timer (Linux's struct k_itimer with its cpu_timer).  Its
 * references (refs): the owner's list, each call working on it, its signal
 * while queued, its place on the owner's ignored list.  The last one frees
 * it (rp_cpu_timer_put); the tasks it names are let go at timer_delete.
 */
struct rp_cpu_timer {
	unsigned long magic;		/* first: free() overwrites it; see rp_cpu_timer_check_held */
	struct rp_spinlock lock;	/* the timer's own lock (Linux's it_lock) */
	unsigned long refs;		/* (a) */
	int id;				/* (c) */
	struct rp_cpu_clock clock;	/* (c) */
	struct rp_task *target;		/* (c) whose clock it runs on (a reference until delete) */
	struct rp_signal *owner;	/* (c) the process that created it */
	struct rp_task *notify_thread;	/* (c) SIGEV_THREAD_ID's thread (a reference until delete) */
	int notify;			/* (c) SIGEV_NONE or SIGEV_SIGNAL */
	bool deleted;			/* (lock, and the owner's s to set) timer_delete ran */
	int status;			/* (lock) RP_TIMER_* */
	uint64_t incr;			/* (lock) the interval, ns */
	/*
	 * (lock) The arming's generation: settime, delete and each re-arm at
	 * delivery move it on; a signal queued under another generation is
	 * dropped at delivery (Linux's it_signal_seq).
	 */
	unsigned int signal_seq;
	unsigned int sigqueue_seq;	/* (lock, and the notified siglock to set) signal_seq at queueing */
	int64_t overrun;		/* (lock) expiries since the signal's, from -1 (Linux's it_overrun) */
	int64_t overrun_last;		/* (lock) of the last signal delivered: timer_getoverrun */
	/* (lock; and the target's s while armed: the tick reads it there) 0: disarmed */
	uint64_t expires;
	/*
	 * (target's s to set, lock to clear) 1: a tick collected it and will
	 * fire it; -1: settime or delete cancelled that firing; 0: no tick
	 * holds it.  While it is not 0, ->node belongs to that tick.
	 */
	int firing;
	struct cds_list_head node;	/* (target's s) on the target's armed list;
					   or on a tick's firing list (see ->firing) */
	struct cds_list_head owner_node; /* (owner's s) on the owner's timers' ->owned */
	/* (owner's s) on the owner's timers' ->ignored, or empty */
	struct cds_list_head ignored_node;
	bool sig_periodic;		/* (owner's s) the signal last sent was a periodic timer's */
	/* (owner's s) preallocated, charged for the timer's life; ->list empty when not queued */
	struct rp_sigqueue sigq;
};

/* Drop a reference to @tm; the last one gives back its entry's charge and frees it. */
void rp_cpu_timer_put(struct rp_system *sys, struct rp_cpu_timer *tm);

#define RP_CPU_TIMER_MAGIC	0x74696d6572UL	/* "timer" */

#endif /* RP_TASK_OBJECTS_H */
