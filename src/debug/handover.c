/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lock hand-overs (debug builds): an object lock taken by a thread other
 * than the one that took it last.  That is the cache-line transfer a lock
 * costs, whatever the object: a session's M that every fork of the session
 * takes moves between the CPUs that fork, while a task's T that only its
 * own thread takes never does.  Which object locks are shared depends on
 * the workload, not on the code, so they cannot be marked by hand as the
 * global lines are (shared.h); the lock-order checker's hook, which every
 * object lock calls with its address, counts them here instead, per lock
 * class, in the calling thread's rp_shared_writes.
 *
 * The last taker of each recent lock is kept in a table of sets of
 * HANDOVER_WAYS entries, each entry one 64-bit word: the lock's address and
 * the taker's thread slot (threadslot.h).  The words are loaded and stored
 * with relaxed atomics, whole, so that an entry never tears into one
 * thread's address and another's slot; a load and a later store are not
 * one read-modify-write, so two threads that take one lock at the same
 * moment may both see the previous taker, as two CPUs racing for a line
 * may both miss.  Serialized takers (the lock itself serializes them but
 * for the moment between this hook and the acquisition) count exactly.
 *
 * A set keeps its locks most recent first, and a lock not among them
 * pushes out the least recent: forgotten, its next take counts nothing
 * whoever took it (an eviction, rp_debug_handover_evictions).  A
 * direct-mapped table (one way) forgot too much: with a Fibonacci hash of
 * the address, the blocks two threads' allocator arenas hand out, 64 MiB
 * apart plus a constant, fell on the same entries pairwise (half the
 * cycles of two threads forking in turns), and even with a good hash a
 * lock that a cycle takes among some twenty others loses its entry with
 * odds of twenty in the table's size each cycle: by that estimate a test
 * of 64 cycles on 4096 entries would miss a count one run in three.
 * Four ways, least recent out, and a
 * hash that mixes every bit of the address (splitmix64's finalizer) lose a
 * lock only if four others taken since fall in its set.  Evictions are
 * mostly of stale entries, locks of objects freed since, which no take
 * will miss.  The size is the benches': their deferred frees keep about a
 * thousand process blocks in flight, each with its locks, and at 1024
 * sets `rcuproc bench --quick --threads 2` evicted on 7 to 13 % of its
 * takes in fork_own, fork_ownsess, fork_onepg and fork_ns, at 4096 sets
 * on 1 to 15 %, at 8192 sets (256 KiB) on 0.2 % at most.
 *
 * Not counted either: the hand-overs among threads past the slots, which
 * share one (RP_SLOT_SHARED).
 */
#include "handover.h"
#include <stdint.h>

#ifdef RP_DEBUG
#include <urcu/system.h>
#include "bug.h"
#include "shared.h"
#include "threadslot.h"

#define HANDOVER_SET_BITS	13
#define HANDOVER_WAYS		4	/* a set: 32 bytes, in one line */
#define SLOT_BITS		16	/* a thread slot, up to RP_SLOT_SHARED, in the low bits */

/* The last take of each lock: address << SLOT_BITS | slot, most recent first; 0 none. */
static uint64_t last_take[1U << HANDOVER_SET_BITS][HANDOVER_WAYS]
	__attribute__((aligned(HANDOVER_WAYS * sizeof(uint64_t))));

static __thread unsigned long evictions;

/* The line of @c's hand-overs; RP_SHARED_NR for a class not counted. */
static enum rp_shared_line handover_line(enum rp_lock_class c)
{
	switch (c) {
	case RP_LOCK_GROUP:		return RP_SHARED_HANDOVER_GROUP;
	case RP_LOCK_TREE:		return RP_SHARED_HANDOVER_TREE;
	case RP_LOCK_MEMBER:		return RP_SHARED_HANDOVER_MEMBER;
	case RP_LOCK_LINK:		return RP_SHARED_HANDOVER_LINK;
	case RP_LOCK_SIGHAND:
	case RP_LOCK_SIGHAND_NEW:	return RP_SHARED_HANDOVER_SIGHAND;
	case RP_LOCK_TIMER:		return RP_SHARED_HANDOVER_TIMER;
	case RP_LOCK_BUCKET:		return RP_SHARED_HANDOVER_BUCKET;
	default:			return RP_SHARED_NR;
	}
}

/* The set of the lock at @addr. */
static uint64_t *set_of(uint64_t addr)
{
	uint64_t z = addr;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return last_take[z >> (64 - HANDOVER_SET_BITS)];
}

void rp_handover_count(enum rp_lock_class c, const void *lock)
{
	enum rp_shared_line line = handover_line(c);
	uint64_t addr = (uintptr_t)lock;
	uint64_t key, *set;
	unsigned int w = 0;

	if (line == RP_SHARED_NR)
		return;
	RP_BUG_ON_MSG(addr >> (64 - SLOT_BITS), "hand-overs: lock %p past the packed bits", lock);
	set = set_of(addr);
	key = addr << SLOT_BITS | rp_thread_slot();
	while (w < HANDOVER_WAYS && CMM_LOAD_SHARED(set[w]) >> SLOT_BITS != addr)
		w++;
	if (w == 0 && CMM_LOAD_SHARED(set[0]) == key)
		return;		/* this thread's again, and the latest: nothing to store */
	if (w < HANDOVER_WAYS) {
		if (CMM_LOAD_SHARED(set[w]) != key)
			rp_shared_writes[line]++;
	} else {
		w = HANDOVER_WAYS - 1;
		if (CMM_LOAD_SHARED(set[w]))
			evictions++;
	}
	for (; w > 0; w--)
		CMM_STORE_SHARED(set[w], CMM_LOAD_SHARED(set[w - 1]));
	CMM_STORE_SHARED(set[0], key);
}

unsigned long rp_debug_handover_evictions(void)
{
	return evictions;
}
#endif
