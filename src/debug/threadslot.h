/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-thread counters without shared writes, after Linux's percpu counters
 * (include/linux/percpu_counter.h) with threads for CPUs.  A counter that
 * every fork and exit moves (live objects, allocations per site) is kept as
 * one row per thread slot: a thread adds to its own row with a plain load
 * and store, and a reader sums every row on demand.  Nothing is written to
 * a line that another thread writes, so the counters cost forks in
 * unrelated subtrees nothing (docs/performance.md, "Shared writes").
 *
 * Slots: each thread takes a slot number the first time it counts, and
 * gives it back when it ends (a pthread key's destructor).  A row is never
 * cleared: the next thread to take the slot goes on from the value the last
 * one left, so what an ended thread counted stays in the sum, exactly.  The
 * hand-over is ordered by slots_lock: the ended thread's last store to its
 * row comes before its unlock in rp_thread_slot_put, which comes before the
 * next owner's lock in rp_thread_slot_take and its first load of the row.
 * (Linux folds a CPU's count into the total when the CPU goes offline,
 * percpu_counter_cpu_dead; a row kept is the same sum without the fold.)
 *
 * Past RP_THREAD_SLOTS threads alive at once, a thread counts in the one
 * shared row, RP_SLOT_SHARED, with atomics: exact still, but a shared write.
 *
 * A sum is exact when no counting operation runs (the tests' leak checks);
 * while operations run it is a value each row had at some moment.
 */
#ifndef RP_DEBUG_THREADSLOT_H
#define RP_DEBUG_THREADSLOT_H

#include <urcu/compiler.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>

#define RP_THREAD_SLOTS	256
#define RP_SLOT_SHARED	RP_THREAD_SLOTS		/* the row of threads past the slots */
#define RP_SLOT_ROWS	(RP_THREAD_SLOTS + 1)

/* Rows are this far apart, so that two threads never write one line. */
#define RP_CACHE_LINE	64

/* This thread's slot plus one; 0 until it first counts. */
extern __thread unsigned int rp_slot_plus1;

/* Take a slot for the calling thread (its first count): the slot number. */
unsigned int rp_thread_slot_take(void);

/* The calling thread's slot: its row in every per-thread counter. */
static inline unsigned int rp_thread_slot(void)
{
	unsigned int k = rp_slot_plus1;

	return caa_likely(k) ? k - 1 : rp_thread_slot_take();
}

void rp_slot_add_shared(unsigned long *counter, long delta);

#ifdef RP_DEBUG
/*
 * Tests: called by an add to a thread's own row between its load and its
 * store (NULL: none), where another writer of the row would be lost.  Set
 * while no operation runs.
 */
extern void (*rp_slot_add_window)(void);
#endif

/*
 * Add @delta to @counter, the calling thread's copy in slot @slot's row
 * (rp_thread_slot).  Its own row only this thread writes: a plain load and
 * store, stored whole for the readers that sum it.  The shared row: an
 * atomic add, counted as a shared write (debug builds, shared.h).
 */
static inline void rp_slot_add(unsigned long *counter, unsigned int slot, long delta)
{
	unsigned long v;

	if (caa_unlikely(slot == RP_SLOT_SHARED)) {
		rp_slot_add_shared(counter, delta);
		return;
	}
	v = CMM_LOAD_SHARED(*counter);
#ifdef RP_DEBUG
	void (*window)(void) = CMM_LOAD_SHARED(rp_slot_add_window);

	if (caa_unlikely(window != NULL))
		window();
#endif
	CMM_STORE_SHARED(*counter, v + delta);
}

/*
 * One past the highest slot ever taken: a scan of every row that may have
 * been written stops there.  Stored under the lock that hands the slot out,
 * before its thread's first write to any row.
 */
unsigned int rp_thread_slots_high(void);

/* Threads that hold a slot now (tests). */
unsigned int rp_debug_slots_taken(void);

#endif /* RP_DEBUG_THREADSLOT_H */
