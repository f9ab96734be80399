/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-thread counters (src/debug/threadslot.h): live objects and
 * allocation counts exact across threads that end and slots handed on, one
 * writer per row; and the shared writes of one fork+exit+wait
 * (src/debug/shared.h), the figure docs/performance.md states.
 */
#include <pthread.h>
#include <criterion/criterion.h>
#include "../fixture/fixture.h"
#include "debug/cache.h"
#include "debug/shared.h"
#include "debug/threadslot.h"
#include "task/task.h"

/* A thread that forks @n children of init and ends, leaving them to reap. */
static void *fork_children(void *arg)
{
	unsigned long n = (unsigned long)arg;

	rp_thread_register();
	for (unsigned long i = 0; i < n; i++)
		end_task(fork_of(init));	/* zombies: reaped by the main thread */
	rp_thread_unregister();
	return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg)
{
	pthread_t th;

	cr_assert_eq(pthread_create(&th, NULL, fn, arg), 0);
	cr_assert_eq(pthread_join(th, NULL), 0);
}

/*
 * Objects counted on threads that ended, freed on another, and a slot
 * handed to a new thread that counts on from the old row: the sums stay
 * exact (what an ended thread counted is never lost).
 */
Test(counters, kept_when_thread_ends, .init = start_rcu, .fini = stop_system)
{
	unsigned long live = rp_debug_live_objects();

	run_thread(fork_children, (void *)8UL);
	run_thread(fork_children, (void *)8UL);	/* the first one's slot, handed on */
	while (rp_wait4(init, -1, NULL, __WALL, NULL) > 0)
		;
	expect_only_init_left(sys);
	cr_assert_eq(rp_debug_live_objects(), live, "live objects %lu, %lu before",
		     rp_debug_live_objects(), live);
}

/* rows_are_per_thread: thread A held inside an add, between load and store. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t held;
	bool armed, reached, go;
} window = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void hold_in_window(void)
{
	if (!pthread_equal(pthread_self(), CMM_LOAD_SHARED(window.held)))
		return;
	pthread_mutex_lock(&window.lock);
	if (window.armed) {
		window.armed = false;
		window.reached = true;
		pthread_cond_broadcast(&window.cond);
		while (!window.go)
			pthread_cond_wait(&window.cond, &window.lock);
	}
	pthread_mutex_unlock(&window.lock);
}

static void *count_one(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&window.lock);	/* window.held is set */
	pthread_mutex_unlock(&window.lock);
	rp_alloc_count(1);
	return NULL;
}

/*
 * A thread's row has one writer: thread A is held between the load and the
 * store of its add while this thread adds, and neither add is lost.  Two
 * threads on one row (RP_BREAK_SLOT_NOT_EXCLUSIVE) lose this thread's add
 * every time: A stores over it.
 */
Test(counters, rows_are_per_thread)
{
	unsigned long live = rp_debug_live_objects();
	pthread_t a;

	rp_thread_slot();		/* this thread's slot, before A's */
	rp_slot_add_window = hold_in_window;
	pthread_mutex_lock(&window.lock);
	window.armed = true;
	cr_assert_eq(pthread_create(&a, NULL, count_one, NULL), 0);
	window.held = a;
	while (!window.reached)
		pthread_cond_wait(&window.cond, &window.lock);
	pthread_mutex_unlock(&window.lock);
	rp_alloc_count(1);		/* while A holds its load */
	pthread_mutex_lock(&window.lock);
	window.go = true;
	pthread_cond_broadcast(&window.cond);
	pthread_mutex_unlock(&window.lock);
	cr_assert_eq(pthread_join(a, NULL), 0);
	rp_slot_add_window = NULL;
	cr_assert_eq(rp_debug_live_objects(), live + 2, "live objects %lu, %lu before 2 adds",
		     rp_debug_live_objects(), live);
	rp_alloc_count(-2);
}

/* shared_row_past_the_slots: threads that hold a slot until told to end. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool end;
} holders = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void *hold_a_slot(void *arg)
{
	*(unsigned int *)arg = rp_thread_slot();
	pthread_mutex_lock(&holders.lock);
	pthread_cond_broadcast(&holders.cond);
	while (!holders.end)
		pthread_cond_wait(&holders.cond, &holders.lock);
	pthread_mutex_unlock(&holders.lock);
	return NULL;
}

static void *count_in_shared_row(void *arg)
{
	unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR];

	*(unsigned int *)arg = rp_thread_slot();
	rp_debug_shared_writes(before);
	rp_alloc_count(1);
	rp_debug_shared_writes(after);
	cr_assert_eq(after[RP_SHARED_COUNT_ROW], before[RP_SHARED_COUNT_ROW] + 1,
		     "an add to the shared row is a shared write");
	return NULL;
}

/*
 * With every slot held, one more thread counts in the shared row, with
 * atomics, and its count is in the sum as exactly as a row's.
 */
Test(counters, shared_row_past_the_slots)
{
	static pthread_t threads[RP_THREAD_SLOTS];
	static unsigned int slots[RP_THREAD_SLOTS];
	unsigned long live = rp_debug_live_objects();
	unsigned int n = 0, last = 0;
	pthread_t extra;

	rp_thread_slot();
	while (rp_debug_slots_taken() < RP_THREAD_SLOTS) {
		cr_assert_lt(n, RP_THREAD_SLOTS, "more threads than slots took one");
		slots[n] = RP_SLOT_ROWS;
		cr_assert_eq(pthread_create(&threads[n], NULL, hold_a_slot, &slots[n]), 0);
		pthread_mutex_lock(&holders.lock);
		while (CMM_LOAD_SHARED(slots[n]) == RP_SLOT_ROWS)
			pthread_cond_wait(&holders.cond, &holders.lock);
		pthread_mutex_unlock(&holders.lock);
		cr_assert_lt(slots[n], RP_THREAD_SLOTS, "a thread got no slot of its own");
		n++;
	}
	cr_assert_eq(pthread_create(&extra, NULL, count_in_shared_row, &last), 0);
	cr_assert_eq(pthread_join(extra, NULL), 0);
	cr_assert_eq(last, RP_SLOT_SHARED, "slot %u with every slot held", last);
	pthread_mutex_lock(&holders.lock);
	holders.end = true;
	pthread_cond_broadcast(&holders.cond);
	pthread_mutex_unlock(&holders.lock);
	for (unsigned int i = 0; i < n; i++)
		cr_assert_eq(pthread_join(threads[i], NULL), 0);
	cr_assert_eq(rp_debug_live_objects(), live + 1);
	rp_alloc_count(-1);
}

/*
 * The shared writes of one fork+exit+wait in rcu mode, by line: what
 * docs/performance.md ("Shared writes") states.  A shared atomic or global
 * lock added to the path, and marked (src/debug/shared.h), changes a line.
 * The reclaim batch is one object, so that every free of the cycle runs on
 * this thread, in the cycle, and is counted with it.
 */
#define CYCLES	32

static const unsigned long per_cycle[RP_SHARED_NR] = {
	/* A plain fork links, a plain exit notifies and wait's plain claim
	   releases under the gate shared (the thread's own row) and object
	   locks: docs/process.md.  So none takes the update lock. */
	[RP_SHARED_UPDATE_LOCK] = 0,
	/*
	 * The task registry's lock is no line: the task goes on and off the
	 * shard its address hashes to (src/task/task.h, struct
	 * rp_registry_shard).  With one registry lock it was 2 a cycle.
	 */
	/*
	 * None: the process block comes out of this thread's magazine and
	 * goes back into it (src/debug/cache.h); only a full or an empty
	 * magazine takes the depot's lock, RP_CACHE_MAG objects at a time:
	 * cache_exchanges_max below.  With one lock per cache it was 2 a cycle.
	 */
	/*
	 * None: RLIMIT_NPROC's count up at fork and down at release come out
	 * of this thread's reserve and go back into it (src/task/cred.c), a
	 * batch taken from the uid's count by the warming cycle; and the
	 * child's reference to init's credentials, which init owns, is
	 * counted in this thread's row until init lets go of them.  With
	 * the one count of each they were 2 a cycle apiece.
	 */
	[RP_SHARED_UID_COUNT] = 0,
	[RP_SHARED_CRED_REF] = 0,
	/*
	 * None: the child's namespace is the root's, whose references are
	 * not counted (src/task/pidns.c, rp_pidns_get).  Counted, the
	 * fork's hold on its namespace for the child was 2 a cycle.
	 */
	[RP_SHARED_PIDNS_REF] = 0,
	/*
	 * None: the child shares init's limits, the static default, which
	 * takes no reference (2 when init had a block of its own).
	 */
	[RP_SHARED_RLIMIT_REF] = 0,
	[RP_SHARED_PID_CURSOR] = 1,	/* fork moves the pid cursor */
	/*
	 * None: the number's bit, set at fork and cleared at release, is in
	 * its row of the pid bitmap, which the numbers handed out around it
	 * do not write (src/task/pidmap.h, "Layout").  With 64 consecutive
	 * numbers to a word it was 2 a cycle.
	 */
	[RP_SHARED_PIDMAP] = 0,
	/*
	 * None: the reaped process's block goes onto this thread's own
	 * reclaim batch and is taken off it there (with one batch for every
	 * thread, its lock 2 a cycle and 1 more at the quiescent state), the
	 * backlog's room for that hand-over comes from the thread's row and
	 * its release puts it back there, and the counts of batches run and
	 * of reclaim batches waited for are rows too (src/sync/sync.c, struct
	 * deferred_row).  With one shared count they were 4 a cycle.
	 * Under QSBR the thread that waits for the batch's grace period
	 * closes the count of online threads and opens it again
	 * (reclaim_wait_begin, reclaim_wait_end): a word of coordination,
	 * not a count, once a reclaim batch, which is every cycle here.
	 */
#ifdef RP_RCU_QSBR
	[RP_SHARED_DEFERRED_COUNT] = 2,
#else
	[RP_SHARED_DEFERRED_COUNT] = 0,
#endif
};

/*
 * The process blocks' magazine exchanges in CYCLES cycles: one a magazine's
 * worth of frees (a full magazine to the depot) and one a magazine's worth
 * of allocations (an empty one loaded), the first of each maybe partial.
 */
static const unsigned long cache_exchanges_max = 2 * (CYCLES / RP_CACHE_MAG + 1);

Test(shared_writes, fork_exit_wait_rcu, .init = start_rcu, .fini = stop_system)
{
	unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR];
	struct rp_task *parent = fork_of(init);

	rp_deferred_set_reclaim(1);
	end_child(parent, fork_of(parent));	/* warm: caches listed, sites registered */
	rp_thread_quiescent();			/* and its frees run */
	rp_debug_shared_writes(before);
	for (int i = 0; i < CYCLES; i++)
		end_child(parent, fork_of(parent));
	rp_thread_quiescent();
	rp_debug_shared_writes(after);
	rp_deferred_set_reclaim(0);
	for (unsigned int k = 0; k < RP_SHARED_NR; k++) {
		unsigned long n = after[k] - before[k];

		cr_log_info("%s: %lu in %d cycles", rp_debug_shared_name(k), n, CYCLES);
		if (k == RP_SHARED_CACHE_LOCK)
			cr_expect_leq(n, cache_exchanges_max, "%s: %lu in %d cycles, not at most %lu",
				      rp_debug_shared_name(k), n, CYCLES, cache_exchanges_max);
		else
			cr_expect_eq(n, per_cycle[k] * CYCLES, "%s: %lu in %d cycles, not %lu each",
				     rp_debug_shared_name(k), n, CYCLES, per_cycle[k]);
	}
	end_child(init, parent);
}
