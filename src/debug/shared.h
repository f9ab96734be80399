/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared writes: the lock acquisitions and atomic read-modify-writes that
 * land on a cache line which unrelated subtrees of the process tree write
 * too (a global lock, a uid's count, credentials every process of a uid
 * shares).  Each costs a cache-line transfer between the CPUs that do it,
 * whatever the work: they are what stops forks in unrelated subtrees from
 * scaling with CPUs (docs/performance.md, "Shared writes").
 *
 * Every such write in the sources is marked where it happens: a lock by
 * rp_shared_write(RP_SHARED_..._LOCK) before it is taken, an atomic by
 * wrapping it in rp_shared_rmw().  Debug builds count them per thread and
 * per line (the counts of the calling thread: an operation's own writes,
 * whatever other threads do meanwhile); release builds compile the marks
 * to nothing.  Writes to one object's own lines (a task's usage count, its
 * thread group's siglock, the hashed wait-queue bucket of its parent, the
 * task registry's shard its address hashes to) are not shared between
 * unrelated subtrees, but by the chance of a hash, and are not marked.
 *
 * Whether an object's lock is shared, though, depends on the workload: a
 * session's M is one object's, yet every fork in the session takes it.
 * So the object locks (G, T, M, L, B, a siglock, a timer's) are counted
 * where the line moves, whatever the object: debug builds count each
 * acquisition whose previous taker was another thread, a hand-over, in
 * the RP_SHARED_HANDOVER_* line of its class (handover.c).  A single
 * thread hands nothing over, however many objects it locks.
 *
 * Not marked: what happens once per thread or per allocation site (a
 * thread's slot, threadslot.h; a site's registration, alloc.c), fault
 * injection while a test has it armed, the debug builds' own machinery
 * (the poisoning quarantine, race points, the lock-order checker), which
 * release builds do not have.  A plain store to a shared line (the
 * deferred-free accounting's count of batches run) is marked as well: it
 * moves the line as an atomic does.
 */
#ifndef RP_DEBUG_SHARED_H
#define RP_DEBUG_SHARED_H

#include <stdbool.h>

enum rp_shared_line {
	/* Locks (an acquisition each). */
	RP_SHARED_UPDATE_LOCK,		/* the table's update lock */
	RP_SHARED_READ_LOCK,		/* the global lock's read side (rwlock, qrwlock) */
	RP_SHARED_CACHE_LOCK,		/* a type cache of released objects */
	RP_SHARED_USERS_LOCK,		/* the per-uid accounting table */
	RP_SHARED_RECLAIM_LOCK,		/* the reclaim batch (sync/sync.c) */
	RP_SHARED_GP_LOCK,		/* the grace-period thread's lists (sync/sync.c) */
	RP_SHARED_CARRIER_LOCK,		/* the carrier of batches to liburcu (sync/sync.c) */
	/* Object locks handed over: taken last by another thread (handover.c). */
	RP_SHARED_HANDOVER_GROUP,	/* G, a thread group's lock */
	RP_SHARED_HANDOVER_TREE,	/* T, a task's tree lock */
	RP_SHARED_HANDOVER_MEMBER,	/* M, a process group's or session's member lock */
	RP_SHARED_HANDOVER_LINK,	/* L, a node's link lock on the tasks list */
	RP_SHARED_HANDOVER_SIGHAND,	/* a sighand table's siglock */
	RP_SHARED_HANDOVER_TIMER,	/* a CPU timer's lock */
	RP_SHARED_HANDOVER_BUCKET,	/* B, a hash chain's bucket lock */
	/* Atomic read-modify-writes. */
	RP_SHARED_UID_COUNT,		/* a uid's processes or sigpending count */
	RP_SHARED_CRED_REF,		/* credentials' reference count */
	RP_SHARED_PIDNS_REF,		/* a pid namespace's reference count */
	RP_SHARED_RLIMIT_REF,		/* a shared rlimit block's reference count */
	RP_SHARED_COUNT_ROW,		/* a per-thread counter's shared row (threadslot.h) */
	RP_SHARED_PID_CURSOR,		/* the pid allocator's cursor (task/pidmap.c) */
	RP_SHARED_PIDMAP,		/* a word of the pid bitmap: a claim or a free */
	RP_SHARED_DEFERRED_COUNT,	/* the deferred-free accounting (sync/sync.c) */
	RP_SHARED_NR
};

/* The first line that is an atomic, not a lock. */
#define RP_SHARED_FIRST_RMW	RP_SHARED_UID_COUNT

#ifdef RP_DEBUG
extern __thread unsigned long rp_shared_writes[RP_SHARED_NR];

static inline void rp_shared_write(enum rp_shared_line line)
{
	rp_shared_writes[line]++;
}
#else
static inline void rp_shared_write(enum rp_shared_line line)
{
	(void)line;
}
#endif

/* @op, an atomic read-modify-write on @line, counted; its value. */
#define rp_shared_rmw(line, op) (rp_shared_write(line), (op))

/*
 * Debug builds: the shared writes of the calling thread so far, by line,
 * into @out; release builds: zeros.
 */
void rp_debug_shared_writes(unsigned long out[RP_SHARED_NR]);

/* The name of @line ("update lock"), or NULL past the last. */
const char *rp_debug_shared_name(unsigned int line);

#endif /* RP_DEBUG_SHARED_H */
