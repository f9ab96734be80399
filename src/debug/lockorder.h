/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * THE LOCK ORDER.  This enum is the one place it is written down: a thread
 * may take a lock only if its class is greater than the class of every lock
 * it already holds, but for rcu mode's object locks: a T after T or an M
 * after M in increasing address, an L after one L (list order).  Debug builds (-Ddebug_checks=true, the project default;
 * benchmarks build with false) assert it on every acquisition, together with two RCU rules:
 * no rp_sync_synchronize() inside a read-side section (liburcu would
 * deadlock silently) and no update-side lock taken inside a read-side section
 * (in the rwlock modes that is a self-deadlocking lock upgrade).  A thread
 * that waits for a grace period to release deferred objects itself does so
 * at a quiescent state, holding no lock at all
 * (rp_lockdep_assert_quiescent).
 *
 * Read-side sections (rcu_read_lock, or the global lock's read side in the
 * rwlock modes) rank with RP_LOCK_UPDATE: in the lock modes they are that
 * lock's read side, so a read section may be entered while holding the update
 * lock (rp_read_lock then takes nothing) but never while holding any later
 * lock (a writer holding the global lock and waiting for that lock would
 * deadlock with us).  rcu_read_lock could nest anywhere; the rule is kept in
 * rcu mode too, so that all three modes run the same code.  rcuproc's private spin locks that are
 * never held across another acquisition (the qrwlock's wait queue) are leaves
 * and are not tracked.
 */
#ifndef RP_DEBUG_LOCKORDER_H
#define RP_DEBUG_LOCKORDER_H

#include <stdbool.h>
#include <stddef.h>
#include "bug.h"

enum rp_lock_class {
	RP_LOCK_NONE = 0,
	/* A task's CPU tick lock (src/timers: rp_account_cpu, the exit point). */
	RP_LOCK_CPU_TICK,
	/* rp_sync update side: the write side of the global table lock; in
	   rcu mode the update gate, exclusive or shared (src/sync/sync.h). */
	RP_LOCK_UPDATE,
	/*
	 * rcu mode's per-object locks, taken inside the update gate held
	 * shared by the operations converted to them (docs/process.md,
	 * "Without the update lock"); in the other modes the same code takes
	 * them inside the update lock, which leaves them uncontended.  G: a
	 * thread group's lock, at most one.  T: a task's tree
	 * lock, and M: a process-group or session pid's member lock, any
	 * number of each, in increasing address order (an inversion aborts).
	 * A read section may be entered holding them: in rcu mode
	 * rcu_read_lock nests anywhere, and in the lock modes they sit inside
	 * the update lock, inside which a read section takes nothing.
	 */
	RP_LOCK_GROUP,
	RP_LOCK_TREE,
	RP_LOCK_MEMBER,
	/* A terminal's lock (src/tty): never held while taking another lock. */
	RP_LOCK_TTY,
	/* A POSIX CPU timer's own lock (src/timers), inside a read section. */
	RP_LOCK_TIMER,
	/* A sighand table's siglock (src/task: rp_lock_task_sighand). */
	RP_LOCK_SIGHAND,
	/* The new table's siglock while exec switches tables (old, then new). */
	RP_LOCK_SIGHAND_NEW,
	/*
	 * A hash chain's bucket lock, B (src/task/bucket.h): a leaf, nothing
	 * is taken while one is held (lockorder.c asserts it), so never two
	 * at once; by its place here it is taken under any class above it,
	 * not under L, a wait queue or the per-uid table.
	 */
	RP_LOCK_BUCKET,
	/* L: the link lock of a process's node on sys->tasks (rcu mode's
	   object locks, as G): two at most, a node's predecessor's and then
	   its own (list order: the lazy list's), and nothing else taken
	   while one is held but a wait queue or the uid table. */
	RP_LOCK_LINK,
	/* A wait queue's mutex (src/task: rp_waitq_*). */
	RP_LOCK_WAITQ,
	/* The per-uid accounting table (src/task: rp_user). */
	RP_LOCK_USERS,
	RP_LOCK_NR
};

/*
 * A lock is tracked by its class and, where a precondition names one
 * object's lock (a task's siglock), by its address: the _obj forms.
 * Preconditions ask rp_lockdep_holds() through the assertion macros
 * (rp_assert_siglock_held in src/task/task.h, docs/sync.md).  A class that
 * may be held many times at once (rp_lock_class_by_address) must be
 * taken with its address, in increasing order.
 */
static inline bool rp_lock_class_by_address(enum rp_lock_class c)
{
	return c == RP_LOCK_TREE || c == RP_LOCK_MEMBER;
}

/* Is @c one of rcu mode's object locks, inside which read sections nest? */
static inline bool rp_lock_class_rcu_only(enum rp_lock_class c)
{
	return c == RP_LOCK_GROUP || c == RP_LOCK_TREE || c == RP_LOCK_MEMBER ||
	       c == RP_LOCK_LINK;
}

/*
 * rp_lockdep_acquire_obj also counts the lock's hand-overs (handover.h).  A
 * broken twin that leaves a lock untaken yet tells the checker it took it
 * (so that a test sees the race, not the assertion) uses the _untaken form:
 * checked the same, but no acquisition, so no hand-over.
 */
#ifdef RP_DEBUG
void rp_lockdep_acquire_obj(enum rp_lock_class c, const void *lock);
void rp_lockdep_acquire_untaken_obj(enum rp_lock_class c, const void *lock);
void rp_lockdep_release_obj(enum rp_lock_class c, const void *lock);
void rp_lockdep_read_enter(void);
void rp_lockdep_read_exit(void);
void rp_lockdep_assert_may_synchronize(void);
void rp_lockdep_assert_quiescent(void);
#else
static inline void rp_lockdep_acquire_obj(enum rp_lock_class c, const void *lock)
{ (void)c; (void)lock; }
static inline void rp_lockdep_acquire_untaken_obj(enum rp_lock_class c, const void *lock)
{ (void)c; (void)lock; }
static inline void rp_lockdep_release_obj(enum rp_lock_class c, const void *lock)
{ (void)c; (void)lock; }
static inline void rp_lockdep_read_enter(void) { }
static inline void rp_lockdep_read_exit(void) { }
static inline void rp_lockdep_assert_may_synchronize(void) { }
static inline void rp_lockdep_assert_quiescent(void) { }
#endif

/*
 * Questions for preconditions, defined in debug builds only: they are asked
 * only from RP_DEBUG_BUG_ON (src/debug/bug.h), which release builds never
 * evaluate.
 */
/* Does this thread hold the lock at @lock (of any class)? */
bool rp_lockdep_holds(const void *lock);
/* Is this thread inside rp_read_lock (any mode, any rp_sync)? */
bool rp_lockdep_in_read_section(void);

/*
 * A precondition: this thread holds the lock at @lock, taken with an _obj
 * acquire (debug builds).  A macro, so that the report names its caller.
 */
#define rp_lockdep_assert_held_obj(lock) RP_DEBUG_BUG_ON(!rp_lockdep_holds(lock))

static inline void rp_lockdep_acquire(enum rp_lock_class c)
{
	rp_lockdep_acquire_obj(c, NULL);
}

static inline void rp_lockdep_release(enum rp_lock_class c)
{
	rp_lockdep_release_obj(c, NULL);
}

#endif /* RP_DEBUG_LOCKORDER_H */
