/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The per-thread counters (src/debug/threadslot.h): live objects and
 * allocation counts exact across threads that end and slots handed on, one
 * writer per row; the shared writes of one fork+exit+wait
 * (src/debug/shared.h), the figure docs/performance.md states; and the
 * object locks handed over between threads (src/debug/handover.c).
 */
#include <pthread.h>
#include <criterion/criterion.h>
#include <rcuproc/pgrp.h>
#include "../fixture/fixture.h"
#include "debug/cache.h"
#include "debug/handover.h"
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

/*
 * Two threads that take turns, strictly: each runs its step only in its
 * turn, so that which thread took a lock last is fixed, not luck.  Turns
 * before @warm are not counted; the counts are each thread's own.
 */
struct turn_taker {
	int id;					/* 0 or 1: whose turn */
	void (*step)(struct turn_taker *me);
	void *obj;				/* what the step works on */
	unsigned int warm, counted;
	unsigned long shared[RP_SHARED_NR];	/* in the counted turns */
	unsigned long evictions;		/* in the counted turns */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int turn;
} turns = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* Wait for @id's turn (offline meanwhile: a waiting thread holds up no grace period). */
static void turn_wait(int id)
{
	rp_thread_offline();
	pthread_mutex_lock(&turns.lock);
	while (turns.turn != id)
		pthread_cond_wait(&turns.cond, &turns.lock);
	pthread_mutex_unlock(&turns.lock);
	rp_thread_online();
}

static void turn_pass(int id)
{
	pthread_mutex_lock(&turns.lock);
	turns.turn = 1 - id;
	pthread_cond_broadcast(&turns.cond);
	pthread_mutex_unlock(&turns.lock);
}

static void *take_turns(void *arg)
{
	struct turn_taker *me = arg;
	unsigned long before[RP_SHARED_NR], evictions = 0;

	rp_thread_register();
	for (unsigned int i = 0; i < me->warm + me->counted; i++) {
		turn_wait(me->id);
		if (i == me->warm) {
			rp_debug_shared_writes(before);
			evictions = rp_debug_handover_evictions();
		}
		me->step(me);
		turn_pass(me->id);
	}
	rp_debug_shared_writes(me->shared);
	for (unsigned int k = 0; k < RP_SHARED_NR; k++)
		me->shared[k] -= before[k];
	me->evictions = rp_debug_handover_evictions() - evictions;
	rp_thread_unregister();
	return NULL;
}

/* @a and @b take turns, @a first; the counts of both, summed, by line, into @sum. */
static void run_in_turns(struct turn_taker *a, struct turn_taker *b,
			 unsigned long sum[RP_SHARED_NR])
{
	pthread_t th[2];

	a->id = 0;
	b->id = 1;
	turns.turn = 0;
	rp_thread_offline();
	cr_assert_eq(pthread_create(&th[0], NULL, take_turns, a), 0);
	cr_assert_eq(pthread_create(&th[1], NULL, take_turns, b), 0);
	cr_assert_eq(pthread_join(th[0], NULL), 0);
	cr_assert_eq(pthread_join(th[1], NULL), 0);
	rp_thread_online();
	for (unsigned int k = 0; k < RP_SHARED_NR; k++) {
		sum[k] = a->shared[k] + b->shared[k];
		if (sum[k])
			cr_log_info("%s: %lu", rp_debug_shared_name(k), sum[k]);
	}
	/* Mostly stale entries, of objects freed since (src/debug/handover.c). */
	cr_log_info("locks pushed out of the hand-over table: %lu",
		    a->evictions + b->evictions);
}

static void take_tree_lock(struct turn_taker *me)
{
	rp_tree_lock(me->obj);
	rp_tree_unlock(me->obj);
}

#define TURNS	16

/*
 * One object lock taken by two threads in turn moves every turn: one
 * hand-over each, of its class; taken again and again by one thread it
 * moves never.  The main thread takes it last before the turns, so that
 * the first counted turn is a hand-over too.
 */
Test(handover, one_per_turn, .init = start_rcu, .fini = finish)
{
	struct rp_task *t = fork_of(init);
	struct turn_taker a = { .step = take_tree_lock, .obj = t, .counted = TURNS };
	struct turn_taker b = a;
	unsigned long before[RP_SHARED_NR], after[RP_SHARED_NR], sum[RP_SHARED_NR];

	take_tree_lock(&a);
	rp_debug_shared_writes(before);
	for (int i = 0; i < TURNS; i++)
		take_tree_lock(&a);
	rp_debug_shared_writes(after);
	cr_expect_eq(after[RP_SHARED_HANDOVER_TREE], before[RP_SHARED_HANDOVER_TREE],
		     "one thread's takes handed over %lu times",
		     after[RP_SHARED_HANDOVER_TREE] - before[RP_SHARED_HANDOVER_TREE]);
	run_in_turns(&a, &b, sum);
	cr_expect_eq(sum[RP_SHARED_HANDOVER_TREE], 2 * TURNS, "%lu hand-overs in %d turns",
		     sum[RP_SHARED_HANDOVER_TREE], 2 * TURNS);
	cr_expect_eq(a.shared[RP_SHARED_HANDOVER_TREE], TURNS, "the first thread's: %lu",
		     a.shared[RP_SHARED_HANDOVER_TREE]);
	end_task(t);
}

/* A fork+exit+wait by the taker's process, its frees run in its turn. */
static void fork_exit_wait(struct turn_taker *me)
{
	end_child(me->obj, fork_of(me->obj));
	rp_thread_quiescent();
}

/*
 * Two processes, each leading its own group (@own_session: its own
 * session too), fork+exit+wait in turns, CYCLES each: the two threads'
 * counts, by line, into @sum.
 */
static void fork_in_turns(bool own_session, unsigned long sum[RP_SHARED_NR])
{
	struct rp_task *p[2] = { fork_of(init), fork_of(init) };
	struct turn_taker a = { .step = fork_exit_wait, .obj = p[0], .warm = 2, .counted = CYCLES };
	struct turn_taker b = a;

	b.obj = p[1];
	for (int i = 0; i < 2; i++) {
		if (own_session)
			cr_assert_gt(rp_setsid(p[i]), 1);
		else
			cr_assert_eq(rp_setpgid(p[i], 0, 0), 0);
	}
	rp_deferred_set_reclaim(1);
	run_in_turns(&a, &b, sum);
	rp_deferred_set_reclaim(0);
	end_child(init, p[0]);
	end_child(init, p[1]);
}

/*
 * Two processes in init's session, each in a group of its own, fork in
 * turns (the bench's fork_own).  A session lists its groups, not its
 * processes (docs/process.md, protocol (i)): the fork joins its parent's
 * group and the reap leaves it, and neither takes the session's M, so no
 * M moves.  When each took the session's M, to put the child on the
 * session's members and to take it off, it moved once a cycle (64 here):
 * at the fork, from the other thread's reap.
 */
Test(handover, fork_one_session, .init = start_rcu, .fini = finish)
{
	unsigned long n[RP_SHARED_NR];

	fork_in_turns(false, n);
	cr_expect_eq(n[RP_SHARED_HANDOVER_MEMBER], 0, "M handed over %lu times in %d cycles",
		     n[RP_SHARED_HANDOVER_MEMBER], 2 * CYCLES);
}

/* Each process leads its own session (fork_ownsess): no M moves either. */
Test(handover, fork_own_sessions, .init = start_rcu, .fini = finish)
{
	unsigned long n[RP_SHARED_NR];

	fork_in_turns(true, n);
	cr_expect_eq(n[RP_SHARED_HANDOVER_MEMBER], 0, "M handed over %lu times in %d cycles",
		     n[RP_SHARED_HANDOVER_MEMBER], 2 * CYCLES);
}

/* Cycles a turn, and the reclaim batch: more than a magazine's load (RP_CACHE_MAG). */
#define BATCH_CYCLES	64

/* BATCH_CYCLES fork+exit+wait, then the batch of their frees runs, in the turn. */
static void fork_exit_wait_batch(struct turn_taker *me)
{
	for (int i = 0; i < BATCH_CYCLES; i++)
		end_child(me->obj, fork_of(me->obj));
	rp_thread_quiescent();
}

/*
 * A process block that a thread's release gives back comes back to that
 * thread's forks (src/debug/cache.h, the magazines' rings), whether its
 * reclaim batch is one object or many: the block's own locks (G, T, the
 * tgid's M, the siglock) never move to the other thread.  Two processes in
 * groups of their own fork in turns, BATCH_CYCLES a turn with a reclaim
 * batch as big, past the quarantine of poisoning (@poison) in the counted
 * turns.  When a magazine held 16 and the rest of a batch went through the
 * shared depot, the other thread's blocks came back: in strict turns every
 * cycle handed each of those locks over (1,024 of 1,024), in the bench's
 * free-running threads about a quarter.  RP_BREAK_RING_THROUGH_DEPOT (a
 * ring of 16) does so again.  (L and B, locks striped by address and by
 * pid, are shared by chance, so not counted here.)
 */
static void batch_stays_on_its_thread(bool poison)
{
	bool was = rp_debug_set_poison(poison);
	struct rp_task *p[2] = { fork_of(init), fork_of(init) };
	struct turn_taker a = { .step = fork_exit_wait_batch, .obj = p[0],
				.warm = RP_CACHE_RING / BATCH_CYCLES, .counted = 8 };
	struct turn_taker b = a;
	static const enum rp_shared_line own[] = {
		RP_SHARED_HANDOVER_GROUP, RP_SHARED_HANDOVER_TREE,
		RP_SHARED_HANDOVER_MEMBER, RP_SHARED_HANDOVER_SIGHAND,
	};
	unsigned long n[RP_SHARED_NR];

	b.obj = p[1];
	for (int i = 0; i < 2; i++)
		cr_assert_eq(rp_setpgid(p[i], 0, 0), 0);
	rp_deferred_set_reclaim(BATCH_CYCLES);
	run_in_turns(&a, &b, n);
	rp_deferred_set_reclaim(0);
	end_child(init, p[0]);
	end_child(init, p[1]);
	rp_debug_set_poison(was);
	for (unsigned int k = 0; k < sizeof(own) / sizeof(own[0]); k++)
		cr_expect_eq(n[own[k]], 0, "%s: %lu in %d cycles", rp_debug_shared_name(own[k]),
			     n[own[k]], 2 * 8 * BATCH_CYCLES);
}

Test(handover, batch_stays_on_its_thread, .init = start_rcu, .fini = finish)
{
	batch_stays_on_its_thread(false);
}

Test(handover, batch_stays_on_its_thread_poisoned, .init = start_rcu, .fini = finish)
{
	batch_stays_on_its_thread(true);
}
