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
