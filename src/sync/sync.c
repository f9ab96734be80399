/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mode set-up, deferred release and grace periods; see sync.h.  Also the
 * QSBR side of thread registration (rp_thread_online/offline/quiescent) and
 * the detection of a registered thread that holds grace periods back: the
 * stall check of debug builds (as Linux's RCU CPU stall warnings, by
 * thread) and the backlog warning of every build.
 *
 * Deferred objects go to liburcu's call_rcu as Linux's go to call_rcu
 * (kernel/rcu/tree.c), but the common case waits for its grace period on
 * the updating thread itself, as Linux's synchronize_rcu callers do: the
 * reclaim batch below.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sync.h"
#include "spin.h"
#include "../debug/cache.h"
#include "../debug/racepoint.h"
#include "../debug/threadslot.h"

static const char *const mode_names[RP_SYNC_NONE + 1] = {
	[RP_SYNC_RCU] = "rcu",
	[RP_SYNC_RWLOCK] = "rwlock",
	[RP_SYNC_QRWLOCK] = "qrwlock",
	[RP_SYNC_RCU_GLOBAL] = "rcu-global",
	[RP_SYNC_NONE] = "none",
};

__thread char rp_thread_token;
__thread unsigned int rp_shared_nest;
__thread struct rp_read_nest rp_read_nest;
__thread struct rp_defer_batch rp_defer_batch;

/*
 * The backlog's count (uatomic): the deferred releases handed over and not
 * yet run (on the reclaim batch, or queued at liburcu), plus the room that
 * threads hold ahead in their rows below.  The bound (I7) is on this sum,
 * so the releases waiting never pass it, whatever room is held.
 */
static unsigned long deferred_pending;

/*
 * The per-thread rows of the deferred-free accounting, a row per thread
 * slot (src/debug/threadslot.h), summed on demand, so that the hand-overs
 * and releases of a fork or an exit write no line that another thread
 * writes (docs/performance.md, "Shared writes").
 *
 * @room: backlog room this thread reserved ahead in deferred_pending and
 * has not used, after the batch of Linux's percpu counters
 * (include/linux/percpu_counter.h) with threads for CPUs: a hand-over takes
 * its objects' room from the row, and only when the row runs short takes
 * ROOM_CHUNK more from deferred_pending; a release by this thread puts its
 * objects' room back into the row, and only past ROOM_KEEP gives the excess
 * back.  A thread that hands objects over and releases as many, fork after
 * fork, moves no shared count at all.  Written by its thread only (plain
 * loads and stores); read by the backlog's sum.  Only registered threads
 * keep room, and only under the default bound (a lowered bound, as tests
 * set, is kept exactly, no room ahead): liburcu's worker and the
 * grace-period thread count straight in deferred_pending.  A thread gives
 * its room back when it unregisters.
 *
 * @runs: batches run, a hint of progress for the backlog check; @bound_waits:
 * batches released by their own thread after waiting at the bound;
 * @reclaim_waits: reclaim batches released by a thread after waiting for
 * their grace period; @takebacks: batches taken back from the grace-period
 * thread by the threads that handed them over; @carrier_runs: the
 * carrier's loads released.  Added with rp_slot_add.
 */
struct deferred_row {
	unsigned long room;
	unsigned long runs;
	unsigned long bound_waits;
	unsigned long reclaim_waits;
	unsigned long takebacks;
	unsigned long carrier_runs;
} __attribute__((aligned(RP_CACHE_LINE)));

static struct deferred_row deferred_rows[RP_SLOT_ROWS];

/* The room a thread takes from deferred_pending at once, and the most it keeps. */
#define ROOM_CHUNK	64UL
#define ROOM_KEEP	(2 * ROOM_CHUNK)

/* Add @delta to the calling thread's copy of row field @field. */
#define row_add(field, delta)							\
	do {									\
		unsigned int slot_ = rp_thread_slot();				\
										\
		rp_slot_add(&deferred_rows[slot_].field, slot_, (delta));	\
	} while (0)

/* The sum of row field @field over every row (a value each row had at some moment). */
#define rows_sum(field)								\
	({									\
		unsigned long sum_ = 0;						\
										\
		for (unsigned int k_ = 0; k_ < RP_SLOT_ROWS; k_++)		\
			sum_ += CMM_LOAD_SHARED(deferred_rows[k_].field);	\
		sum_;								\
	})

__thread struct rp_qs_thread rp_qs_self;

#ifdef RP_DEBUG
/* The registered threads (debug builds): a leaf lock, nothing is taken under it. */
static pthread_mutex_t qs_lock = PTHREAD_MUTEX_INITIALIZER;
static CDS_LIST_HEAD(qs_threads);
#endif

/* A debug build names a thread online and not quiescent for this long. */
#define QS_STALL_SECONDS	10.0

const char *rp_sync_mode_name(enum rp_sync_mode mode)
{
	return (unsigned int)mode <= RP_SYNC_NONE ? mode_names[mode] : NULL;
}

int rp_sync_mode_parse(const char *name, enum rp_sync_mode *mode)
{
	for (int m = 0; m < RP_SYNC_NR_NAMED; m++) {
		if (strcmp(name, mode_names[m]) == 0) {
			*mode = m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rp_rcu_flavour(void)
{
#ifdef RP_RCU_QSBR
	return "qsbr";
#else
	return "memb";
#endif
}

#ifdef RP_DEBUG
static double monotonic_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
#endif

/* Debug builds: put the calling thread on the registry, online. */
static void qs_register(void)
{
#ifdef RP_DEBUG
	rp_qs_self.thread = pthread_self();
	rp_qs_self.tid = gettid();
	rp_qs_self.count = 0;
	rp_qs_self.online = true;
	pthread_mutex_lock(&qs_lock);
	rp_qs_self.seen = 0;
	rp_qs_self.since = monotonic_seconds();
	rp_qs_self.warned = false;
	cds_list_add(&rp_qs_self.node, &qs_threads);
	pthread_mutex_unlock(&qs_lock);
#endif
}

static void qs_unregister(void)
{
#ifdef RP_DEBUG
	pthread_mutex_lock(&qs_lock);
	cds_list_del(&rp_qs_self.node);
	pthread_mutex_unlock(&qs_lock);
#endif
}

#ifdef RP_RCU_QSBR
/*
 * The registered threads online, plus ONLINE_CLOSED while the only one of
 * them waits for a grace period alone (reclaim_wait_begin): a thread that
 * comes online meanwhile first waits for the wait to end, so that the
 * grace period has no thread to wait for, and cannot be held back by one
 * that comes online and then idles there (uatomic).  liburcu's own call_rcu
 * worker is not counted: it goes offline whenever it idles.
 */
static unsigned long online_threads;
#define ONLINE_CLOSED	(1UL << (CAA_BITS_PER_LONG - 1))

/* This thread is counted in online_threads. */
static __thread bool online_counted;

void rp_online_enter(void)
{
	unsigned long old = uatomic_read(&online_threads), seen;

	if (online_counted)
		return;
	for (;;) {
		if (old & ONLINE_CLOSED) {
			caa_cpu_relax();	/* one grace period with nobody to wait for */
			old = uatomic_read(&online_threads);
			continue;
		}
		seen = uatomic_cmpxchg(&online_threads, old, old + 1);
		if (seen == old)
			break;
		old = seen;
	}
	online_counted = true;
}

void rp_online_leave(void)
{
	if (!online_counted)
		return;
	online_counted = false;
	uatomic_dec(&online_threads);
}
#endif

/* Registrations may nest: liburcu is told at the first and the last. */
static __thread unsigned int registrations;

static void reclaim_queue(bool all);
static void room_give_back(void);

void rp_thread_register(void)
{
	if (registrations++ == 0) {
#ifdef RP_RCU_QSBR
		rp_online_enter();
#endif
		rcu_register_thread();
		qs_register();
	}
}

/*
 * A thread that leaves rcuproc (unregisters, goes offline, or says that it
 * holds nothing) also hands its reclaim batch to liburcu: a batch that no
 * hand-over fills any more must not keep its objects until the next
 * rp_deferred_barrier.
 */
void rp_thread_unregister(void)
{
	if (--registrations == 0) {
		if (rp_defer_batch.n || rp_defer_batch.reclaim || rp_defer_batch.awaiting)
			rp_deferred_flush();
		reclaim_queue(false);
		room_give_back();
		qs_unregister();
		rcu_unregister_thread();
#ifdef RP_RCU_QSBR
		rp_online_leave();
#endif
	}
}

void rp_thread_offline(void)
{
	reclaim_queue(false);
	rp_sync_block_begin();
}

void rp_thread_online(void)
{
	rp_sync_block_end();
}

void rp_thread_quiescent(void)
{
	rp_sync_quiescent();
	reclaim_queue(false);
}

unsigned long rp_thread_quiescent_count(void)
{
#ifdef RP_DEBUG
	return rp_qs_self.count;
#else
	return 0;
#endif
}

#ifdef RP_DEBUG
/* @t's name (pthread_setname_np), or its thread id if it has none. */
static void thread_name(const struct rp_qs_thread *t, char *name, unsigned long len)
{
	if (len && pthread_getname_np(t->thread, name, len) != 0)
		snprintf(name, len, "thread %#lx", (unsigned long)t->thread);
}

/*
 * Under qs_lock, at @now: the registered threads other than the caller
 * that are online and have not been quiescent for @limit seconds.  Each is
 * named on stderr once per stall; the first one's name goes to @name.
 */
static int qs_check(double limit, double now, char *name, unsigned long len)
{
	struct rp_qs_thread *t;
	char buf[64];
	unsigned long c;
	int n = 0;

	cds_list_for_each_entry(t, &qs_threads, node) {
		c = CMM_LOAD_SHARED(t->count);
		if (t == &rp_qs_self || !CMM_LOAD_SHARED(t->online) || c != t->seen) {
			t->seen = c;
			t->since = now;
			t->warned = false;
			continue;
		}
		if (now - t->since < limit)
			continue;
		thread_name(t, buf, sizeof(buf));
		if (n++ == 0 && name)
			snprintf(name, len, "%s", buf);
		if (t->warned)
			continue;
		t->warned = true;
		fprintf(stderr, "rcuproc: registered thread %d \"%s\" has been online for %.1f s "
			"without a quiescent state; under QSBR it holds back every deferred free: "
			"it must call rp_thread_quiescent() now and then, or rp_thread_offline() "
			"while it is away from rcuproc (docs/sync.md)\n", (int)t->tid, buf, now - t->since);
	}
	return n;
}
#endif

int rp_thread_stalls(double seconds, char *name, unsigned long len)
{
#ifdef RP_DEBUG
	int n;

	if (name && len)
		name[0] = '\0';
	pthread_mutex_lock(&qs_lock);
	n = qs_check(seconds, monotonic_seconds(), name, len);
	pthread_mutex_unlock(&qs_lock);
	return n;
#else
	(void)seconds;
	(void)name;
	(void)len;
	return -ENOSYS;
#endif
}

/*
 * Debug builds under QSBR: look for stalled threads, at most once a second
 * and never waiting for the registry (the caller may hold table locks).
 */
static void qs_watch(void)
{
#if defined(RP_DEBUG) && defined(RP_RCU_QSBR)
	static double last;
	double now = monotonic_seconds();

	if (now - CMM_LOAD_SHARED(last) < 1.0 || pthread_mutex_trylock(&qs_lock) != 0)
		return;
	CMM_STORE_SHARED(last, now);
	qs_check(QS_STALL_SECONDS, now, NULL, 0);
	pthread_mutex_unlock(&qs_lock);
#endif
}

static void gp_settle(void);
static void gp_take_back(void);
#ifdef RP_DEBUG
static unsigned long parked_count(void);
#endif

/*
 * Debug builds: wait offline until what is queued at liburcu drains,
 * looking for stalled threads meanwhile, so that a barrier held back by a
 * quiet thread names it rather than hang in silence.
 */
static void drain_watching(void)
{
#ifdef RP_DEBUG
	struct timespec ms = { 0, 1000000 };

	while (rp_deferred_backlog() > parked_count()) {
		nanosleep(&ms, NULL);
		qs_watch();
	}
#endif
}

/*
 * Every round queues every thread's reclaim batch, which they may have
 * added to since, waits for everything queued and for the grace-period
 * thread, and takes back what that thread returned: a release may defer
 * another object, and a batch taken by a thread that waits for its grace
 * period counts until that thread has released it.
 */
void rp_deferred_barrier(void)
{
	rp_lockdep_assert_may_synchronize();
	if (rp_defer_batch.n || rp_defer_batch.reclaim)
		rp_deferred_flush();
	do {
		reclaim_queue(true);	/* online: call_rcu under QSBR wants it */
		rp_sync_block_begin();
		drain_watching();
		gp_settle();
		rcu_barrier();
		rp_sync_block_end();
		gp_take_back();
	} while (rp_deferred_backlog());
}

void rp_sync_init(struct rp_sync *s, enum rp_sync_mode mode)
{
	s->mode = mode;
	s->gate_closed = 0;
	s->gate_overflow = 0;
	s->update_owner = NULL;
	s->work = NULL;
	pthread_mutex_init(&s->update, NULL);
	/* glibc's default kind prefers readers: Linux's rwlock_t before qrwlock. */
	pthread_rwlock_init(&s->rw, NULL);
	rp_qrw_init(&s->qrw);
}

/*
 * rcu mode's update gate (sync.h): rcuproc's own, after the big-reader
 * locks (a reader's lock its own, a writer's all of them); liburcu has no
 * lock of this kind.  The shared side publishes, in the calling thread's
 * own row of gate_rows (its thread slot, src/debug/threadslot.h), the
 * rp_sync it enters, then a full barrier, then reads the gate's flag; if
 * an exclusive holder closed the gate, it takes its row back and waits on
 * the update mutex, which that holder keeps until it opens the gate again,
 * and tries anew.  The exclusive side takes the update mutex, sets the
 * flag, a full barrier, then waits until no row names its rp_sync.  Each
 * side stores, then loads what the other stores, with a full barrier
 * between (store buffering): of a shared taker and an exclusive one
 * racing, at least one sees the other (models/update_gate.pml), so both
 * are never inside.  A thread past the slots counts in the rp_sync's
 * gate_overflow with atomics instead: exact, but a shared write.
 */
struct gate_row {
	const struct rp_sync *sync;	/* W: the slot's thread; R: exclusive takers */
} __attribute__((aligned(RP_CACHE_LINE)));

static struct gate_row gate_rows[RP_THREAD_SLOTS];

__thread const struct rp_sync *rp_gate_held;
__thread unsigned int rp_gate_depth;

/*
 * The row's store and the full barrier after it in one locked instruction
 * (liburcu's uatomic_xchg and uatomic_add_return imply a full barrier
 * before and after): on x86 about a tenth of the mfence of cmm_smp_mb().
 * The barrier pairs with the one in rp_gate_close's exchange of the flag.
 */
static void gate_publish(struct rp_sync *s, unsigned int slot)
{
	if (slot == RP_SLOT_SHARED)
		rp_shared_rmw(RP_SHARED_COUNT_ROW, uatomic_add_return(&s->gate_overflow, 1));
	else
		(void)uatomic_xchg(&gate_rows[slot].sync, s);
}

/* The section's accesses before the row is free: pairs with the full
   barrier after an exclusive taker's scan. */
static void gate_withdraw(struct rp_sync *s, unsigned int slot)
{
	if (slot == RP_SLOT_SHARED) {
		cmm_smp_mb__before_uatomic_dec();
		rp_shared_rmw(RP_SHARED_COUNT_ROW, uatomic_dec(&s->gate_overflow));
	} else {
		__atomic_store_n(&gate_rows[slot].sync, NULL, __ATOMIC_RELEASE);
	}
}

/*
 * RP_BREAK_GATE_CHECK_FIRST: the shared side reads the flag before it
 * publishes its row, so an exclusive taker that closes the gate between
 * the two scans no row and goes in beside it.
 */
void rp_gate_enter_shared(struct rp_sync *s)
{
	unsigned int slot;
	bool closed;

	if (rp_gate_depth) {
		/* One gate at a time: a thread holding another's would wait for nothing. */
		RP_DEBUG_BUG_ON(rp_gate_held != s);
		rp_gate_depth++;
		return;
	}
	slot = rp_thread_slot();
	for (;;) {
#ifdef RP_BREAK_GATE_CHECK_FIRST
		closed = __atomic_load_n(&s->gate_closed, __ATOMIC_ACQUIRE);
		RP_RACE_POINT(RP_RACE_GATE_SHARED, NULL);
		gate_publish(s, slot);
#else
		gate_publish(s, slot);		/* and a full barrier */
		RP_RACE_POINT(RP_RACE_GATE_SHARED, NULL);
		/* Acquire: pairs with the release that opens the gate (sync.h). */
		closed = __atomic_load_n(&s->gate_closed, __ATOMIC_ACQUIRE);
#endif
		if (!closed)
			break;
		gate_withdraw(s, slot);
		RP_RACE_POINT(RP_RACE_GATE_BACKS_OUT, NULL);
		/* The exclusive holder keeps the mutex until the gate is open. */
		rp_sync_block_begin();
		pthread_mutex_lock(&s->update);
		pthread_mutex_unlock(&s->update);
		rp_sync_block_end();
	}
	rp_gate_held = s;
	rp_gate_depth = 1;
}

void rp_gate_leave_shared(struct rp_sync *s)
{
	RP_DEBUG_BUG_ON(!rp_gate_shared_here(s));
	if (--rp_gate_depth)
		return;
	gate_withdraw(s, rp_thread_slot());
	rp_gate_held = NULL;
}

/*
 * Does a thread hold @s's gate shared, or is about to look at its flag?
 * The rows below @high, the high-water mark of thread slots read after
 * the gate was closed: a thread whose first take of the gate takes a
 * slot above an earlier mark publishes its row after the slot, so the
 * mark read after the barrier that follows the flag covers every row
 * the flag did not stop (models/update_gate.pml).  Each load is an
 * acquire: the scan that finds none has read every row that named @s
 * freed by its holder's withdrawal, and so comes after that holder's
 * section (pairs with the release in gate_withdraw).
 */
static bool gate_busy(const struct rp_sync *s, unsigned int high)
{
	for (unsigned int k = 0; k < high; k++)
		if (__atomic_load_n(&gate_rows[k].sync, __ATOMIC_ACQUIRE) == s)
			return true;
	return __atomic_load_n(&s->gate_overflow, __ATOMIC_ACQUIRE) != 0;
}

/*
 * RP_BREAK_GATE_USED_FIRST: the high-water mark of thread slots is read
 * once, before the gate closes, so that a new thread whose slot raises it
 * meanwhile publishes a row the scan stops short of, finds the gate still
 * open, and is inside beside the exclusive holder.
 */
#ifdef RP_BREAK_GATE_USED_FIRST
#define GATE_EARLY() rp_thread_slots_used()
#define GATE_HIGH(early) (early)
#else
#define GATE_EARLY() 0U
#define GATE_HIGH(early) rp_thread_slots_used()
#endif

/* The exclusive side, the update mutex held: close, then wait for the shared holders. */
void rp_gate_close(struct rp_sync *s)
{
	unsigned int spins = 0;
	unsigned int early __attribute__((unused)) = GATE_EARLY();

	RP_RACE_POINT(RP_RACE_GATE_CLOSES, NULL);
	/*
	 * The flag's store and a full barrier in one locked exchange: pairs
	 * with the one in a shared taker's publish (gate_publish).
	 */
	(void)uatomic_xchg(&s->gate_closed, 1);
	if (gate_busy(s, GATE_HIGH(early))) {
		RP_RACE_POINT(RP_RACE_GATE_EXCL_WAITS, NULL);
		rp_sync_block_begin();
		while (gate_busy(s, GATE_HIGH(early)))
			rp_spin_wait(&spins);
		rp_sync_block_end();
	}
}

void rp_update_work_add(struct rp_sync *s, struct rp_update_work *w,
			void (*fn)(struct rp_update_work *))
{
	struct rp_update_work **at = &s->work;

	rp_assert_update_held(s);
	while (*at)
		at = &(*at)->next;
	w->next = NULL;
	w->fn = fn;
	*at = w;
}

void rp_update_run_work(struct rp_sync *s)
{
	struct rp_update_work *w;

	rp_assert_update_held(s);
	while ((w = s->work)) {
		s->work = w->next;
		w->fn(w);
	}
}

void rp_sync_destroy(struct rp_sync *s)
{
	pthread_mutex_destroy(&s->update);
	pthread_rwlock_destroy(&s->rw);
}

/* This thread runs released objects (a liburcu worker, or a flush at the bound). */
static __thread bool releasing;

/* The bound in force: RP_DEFERRED_BOUND, lowered by tests (rp_deferred_set_bound). */
static unsigned long deferred_bound = RP_DEFERRED_BOUND;

/*
 * The calling thread's room (deferred_row), or NULL where it keeps none:
 * a thread that is not registered (liburcu's worker, the grace-period
 * thread), one that runs releases, one past the slots, or a lowered bound.
 */
static unsigned long *own_room(void)
{
	unsigned int slot;

	if (!registrations || releasing ||
	    CMM_LOAD_SHARED(deferred_bound) != RP_DEFERRED_BOUND)
		return NULL;
	slot = rp_thread_slot();
	return slot == RP_SLOT_SHARED ? NULL : &deferred_rows[slot].room;
}

/* Count @n more in deferred_pending if that keeps it within the bound. */
static bool pending_add_within(unsigned long n)
{
	unsigned long old = uatomic_read(&deferred_pending), seen;

	while (old + n <= CMM_LOAD_SHARED(deferred_bound)) {
		seen = rp_shared_rmw(RP_SHARED_DEFERRED_COUNT,
				     uatomic_cmpxchg(&deferred_pending, old, old + n));
		if (seen == old)
			return true;
		old = seen;
	}
	return false;
}

/*
 * RP_BREAK_ROOM_PAST_BOUND: a thread takes its chunk of room ahead without
 * the bound's check, and the hand-overs that use the room pass the bound.
 */
#ifdef RP_BREAK_ROOM_PAST_BOUND
static bool room_take(unsigned long n)
{
	rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_add(&deferred_pending, n));
	return true;
}
#else
#define room_take pending_add_within
#endif

/*
 * Count @n more objects in the backlog if that keeps it within the bound:
 * from the thread's room, else with ROOM_CHUNK more room taken at once,
 * else (near the bound) exactly.
 */
static bool backlog_reserve(unsigned long n)
{
	unsigned long *room = own_room(), have;

	if (!room)
		return pending_add_within(n);
	have = *room;
	if (have < n) {
		if (room_take(n - have + ROOM_CHUNK))
			have = n + ROOM_CHUNK;
		else if (pending_add_within(n - have))
			have = n;
		else
			return false;
	}
	/*
	 * Once counted in deferred_pending (the cmpxchg is a full barrier):
	 * pairs with cmm_smp_rmb in rp_deferred_backlog, which subtracts no
	 * room that it does not find counted.
	 */
	CMM_STORE_SHARED(*room, have - n);
	return true;
}

/* @n objects counted in the backlog were released: their room back, to the thread's row. */
static void backlog_release(unsigned long n)
{
	unsigned long *room = own_room(), have;

	if (!room) {
		rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_sub(&deferred_pending, n));
		return;
	}
	have = *room + n;
	if (have <= ROOM_KEEP) {
		CMM_STORE_SHARED(*room, have);
		return;
	}
	CMM_STORE_SHARED(*room, ROOM_CHUNK);
	rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_sub(&deferred_pending, have - ROOM_CHUNK));
}

/* The calling thread gives back all the room it holds (it leaves, or the bound changes). */
static void room_give_back(void)
{
	unsigned int slot = rp_slot_plus1 ? rp_slot_plus1 - 1 : RP_SLOT_SHARED;
	unsigned long have;

	if (slot == RP_SLOT_SHARED || !(have = deferred_rows[slot].room))
		return;
	CMM_STORE_SHARED(deferred_rows[slot].room, 0);
	rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_sub(&deferred_pending, have));
}

void rp_deferred_set_bound(unsigned long bound)
{
	room_give_back();
	CMM_STORE_SHARED(deferred_bound, bound ? bound : RP_DEFERRED_BOUND);
}

/*
 * deferred_pending less the room the rows hold.  Exact while no thread
 * hands over or releases (a barrier's caller, a test's check); while they
 * do, off by at most the room that moves meanwhile (ROOM_KEEP a thread).
 */
unsigned long rp_deferred_backlog(void)
{
	unsigned long room = rows_sum(room), pending;

	cmm_smp_rmb();		/* pairs with the cmpxchg before a row's store in backlog_reserve */
	pending = uatomic_read(&deferred_pending);
	return pending > room ? pending - room : 0;
}

/* Release the objects of batch @d; returns how many. */
static unsigned long batch_release(struct rp_deferred *d)
{
	struct rp_deferred *next;
	unsigned long n = 0;
	bool outer = releasing;

	releasing = true;
	for (; d; d = next, n++) {
		next = d->next;		/* @d is gone once released */
		d->release(d);
	}
	releasing = outer;
	return n;
}

/* A chain of deferred objects, whole batches end to end. */
struct gp_chain {
	struct rp_deferred *head, *tail;	/* tail: the last, its ->next NULL */
	unsigned long n;			/* objects on it */
};

/* Append @more to @c, leaving @more empty. */
static void gp_chain_splice(struct gp_chain *c, struct gp_chain *more)
{
	if (!more->head)
		return;
	if (c->tail)
		c->tail->next = more->head;
	else
		c->head = more->head;
	c->tail = more->tail;
	c->n += more->n;
	*more = (struct gp_chain){ NULL, NULL, 0 };
}

/*
 * The carrier: the one rcu_head that takes deferred objects to liburcu's
 * call_rcu, so that a deferral head holds none (16 bytes fewer in every
 * object that is freed after a grace period).  A batch queued while the
 * carrier is at rest becomes its load, and the carrier goes to call_rcu;
 * a batch queued while it is in flight waits on carrier_next.  The
 * carrier's callback releases its load, then takes carrier_next as its
 * next load and goes to call_rcu again (liburcu takes a callback off its
 * queue before running it, so the rcu_head is free again there).
 *
 * The existence guarantee: the callback releases only what was loaded
 * before the call_rcu it runs for.  Every object on the load was unlinked
 * before it was queued, so before that call, and the grace period that
 * call waited for covers every reader that could see it.  What waits on
 * carrier_next was queued later, maybe after that grace period began, and
 * goes with the next call.  So an object queued while the carrier flies
 * waits for two grace periods at most; the backlog counts it meanwhile
 * as it did on a callback of its own, and the bound (I7) is unchanged.
 * carrier_lock is a leaf; none of the paths that queue (a thread leaving,
 * the barrier, a release that defers, QSBR past the bound) is a
 * fork+exit+wait's.
 */
static pthread_mutex_t carrier_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_head carrier_head;	/* at liburcu while carrier_flying */
static struct gp_chain carrier_load;	/* carrier_lock: loaded before the call_rcu in flight */
static struct gp_chain carrier_next;	/* carrier_lock: queued since, for the next call */
static bool carrier_flying;		/* carrier_lock: carrier_head is at liburcu */

/*
 * RP_BREAK_CARRIER_TAKES_LATE: the carrier's callback takes what waits on
 * carrier_next along with its load, and releases objects queued after its
 * grace period began under the readers that may still hold them.
 */
#ifdef RP_BREAK_CARRIER_TAKES_LATE
#define CARRIER_TAKES_LATE true
#else
#define CARRIER_TAKES_LATE false
#endif

unsigned long rp_deferred_carrier_runs(void)
{
	return rows_sum(carrier_runs);
}

/* liburcu's callback, a grace period after the carrier's call_rcu: its load. */
static void carrier_run(struct rcu_head *head)
{
	struct gp_chain load = { NULL, NULL, 0 };
	bool again;

	RP_RACE_POINT(RP_RACE_DEFERRED_CARRIER, NULL);
	rp_cache_release_for_others = true;	/* liburcu's worker allocates nothing */
	pthread_mutex_lock(&carrier_lock);	/* pairs with the unlock before the call_rcu */
	gp_chain_splice(&load, &carrier_load);
	if (CARRIER_TAKES_LATE)
		gp_chain_splice(&load, &carrier_next);
	pthread_mutex_unlock(&carrier_lock);
	batch_release(load.head);	/* may queue more: it waits on carrier_next */
	row_add(runs, 1);
	row_add(carrier_runs, 1);
	backlog_release(load.n);
	pthread_mutex_lock(&carrier_lock);
	gp_chain_splice(&carrier_load, &carrier_next);
	again = carrier_flying = carrier_load.head != NULL;
	pthread_mutex_unlock(&carrier_lock);
	if (again)
		call_rcu(head, carrier_run);
}

/* The backlog at which the next warning is due (doubled each time). */
static unsigned long backlog_warn_at = RP_DEFERRED_BOUND / 2;

/* Objects handed to liburcu so far (uatomic): the backlog check's clock. */
static unsigned long deferred_handed;

/*
 * Every build, every 65536 objects handed over: a backlog past the warning
 * mark with no batch run since the last look means grace periods have
 * stopped ending (under QSBR, most likely a registered thread that is
 * online and never quiescent), and updaters will soon wait at the bound.
 * Warned once per doubling of the mark.  The first look only takes note:
 * with nothing to compare, "no batch run since" would be said of a
 * process whose first hand-over is big (rp_system_destroy of a table of
 * 100,000 processes, none freed before, hands over 200,000 objects at
 * once) and whose grace periods end as they should.
 */
static void backlog_check(unsigned long backlog)
{
	static unsigned long runs_seen = ULONG_MAX;	/* no look yet */
	unsigned long runs = rows_sum(runs), mark;

	qs_watch();
	if (runs != uatomic_xchg(&runs_seen, runs))
		return;
	mark = uatomic_read(&backlog_warn_at);
	if (backlog < mark || uatomic_cmpxchg(&backlog_warn_at, mark, mark * 2) != mark)
		return;
	fprintf(stderr, "rcuproc: %lu deferred frees queued and none has run since the last "
		"65536: grace periods are not ending; under QSBR every registered thread must "
		"call rp_thread_quiescent() now and then, or rp_thread_offline() while it is "
		"away from rcuproc (docs/sync.md)\n", backlog);
}

/*
 * Queue batch @head .. @tail of @n objects, already counted in the
 * backlog, at liburcu: the carrier's load if it is at rest, else the next.
 */
static void batch_queue(struct rp_deferred *head, struct rp_deferred *tail, unsigned long n)
{
	unsigned long handed = rp_shared_rmw(RP_SHARED_DEFERRED_COUNT,
					     uatomic_add_return(&deferred_handed, n));
	struct gp_chain batch = { head, tail, n };
	bool launch;

	if (handed / 65536 != (handed - n) / 65536)
		backlog_check(rp_deferred_backlog());
	rp_shared_write(RP_SHARED_CARRIER_LOCK);
	pthread_mutex_lock(&carrier_lock);
	launch = !carrier_flying;
	gp_chain_splice(launch ? &carrier_load : &carrier_next, &batch);
	carrier_flying = true;
	pthread_mutex_unlock(&carrier_lock);
	if (launch)
		call_rcu(&carrier_head, carrier_run);
}

/* Take this thread's batch, leaving it empty. */
static struct rp_deferred *batch_take(void)
{
	struct rp_deferred *head = rp_defer_batch.head;

	rp_defer_batch.head = rp_defer_batch.tail = NULL;
	rp_defer_batch.n = 0;
	return head;
}

static void batch_add(struct rp_deferred *d)
{
	d->next = rp_defer_batch.head;
	if (!rp_defer_batch.head)
		rp_defer_batch.tail = d;
	rp_defer_batch.head = d;
	rp_defer_batch.n++;
}

/*
 * The reclaim batches: the objects handed over by each thread, counted in
 * the backlog, whose grace period nobody has waited for yet.  A batch per
 * thread slot (src/debug/threadslot.h), so that a hand-over writes no line
 * that another thread writes (docs/performance.md, "Shared writes"): the
 * thread whose hand-over fills its batch (reclaim_size objects) waits for
 * a grace period at its next quiescent state and releases the batch itself
 * (reclaim_release): the objects go back to their type caches on a thread
 * that allocates, warm, and no worker thread runs on the hot path.  Where
 * the thread may not wait (reclaim_wait_begin), the batch goes to the
 * grace-period thread, or to liburcu as one callback.
 *
 * Each row has a lock, a leaf (nothing is taken under it, and no thread
 * holds two): its own thread takes it for every hand-over, uncontended;
 * another thread takes it only to empty the row, at the bound
 * (bound_wait) and in rp_deferred_barrier (reclaim_take_all), so that a
 * batch that its thread no longer fills (an idle thread, one that ended
 * registered) neither fills the bound nor escapes a barrier.  A row
 * outlives its thread, as the counter rows do: the next thread to take the
 * slot goes on with it.  Threads past the slots share RP_SLOT_SHARED's
 * row, counted as a shared write.
 */
struct reclaim_row {
	pthread_mutex_t lock;
	struct rp_deferred *head;	/* lock */
	struct rp_deferred *tail;	/* lock: the first added */
	unsigned long n;		/* lock: objects on it */
} __attribute__((aligned(RP_CACHE_LINE)));

static struct reclaim_row reclaim_rows[RP_SLOT_ROWS] = {
	[0 ... RP_SLOT_ROWS - 1] = { .lock = PTHREAD_MUTEX_INITIALIZER },
};

/* The batches' size in force: RP_DEFERRED_RECLAIM, lowered by tests (shared loads). */
static unsigned long reclaim_size = RP_DEFERRED_RECLAIM;

void rp_deferred_set_reclaim(unsigned long objects)
{
	CMM_STORE_SHARED(reclaim_size, objects ? objects : RP_DEFERRED_RECLAIM);
}

unsigned long rp_deferred_reclaim_waits(void)
{
	return rows_sum(reclaim_waits);
}

/* The calling thread's reclaim batch, locked. */
static struct reclaim_row *reclaim_lock_own(void)
{
	unsigned int slot = rp_thread_slot();
	struct reclaim_row *row = &reclaim_rows[slot];

	if (slot == RP_SLOT_SHARED)
		rp_shared_write(RP_SHARED_RECLAIM_LOCK);
	pthread_mutex_lock(&row->lock);
	return row;
}

/* Add chain @head .. @tail of @n objects, counted in the backlog; true if the batch is full. */
static bool reclaim_add(struct rp_deferred *head, struct rp_deferred *tail, unsigned long n)
{
	struct reclaim_row *row = reclaim_lock_own();
	bool full;

	tail->next = row->head;
	if (!row->head)
		row->tail = tail;
	row->head = head;
	CMM_STORE_SHARED(row->n, row->n + n);	/* stored whole for reclaim_take_all's hint */
	full = row->n >= CMM_LOAD_SHARED(reclaim_size);
	pthread_mutex_unlock(&row->lock);
	return full;
}

/* Under @row's lock: take its batch, leaving it empty; its last in *@tail, its objects in *@n. */
static struct rp_deferred *reclaim_empty(struct reclaim_row *row, struct rp_deferred **tail,
					 unsigned long *n)
{
	struct rp_deferred *head = row->head;

	*tail = row->tail;
	*n = row->n;
	row->head = row->tail = NULL;
	CMM_STORE_SHARED(row->n, 0);
	return head;
}

/* Take the calling thread's reclaim batch, leaving it empty. */
static struct rp_deferred *reclaim_take(struct rp_deferred **tail, unsigned long *n)
{
	struct reclaim_row *row = reclaim_lock_own();
	struct rp_deferred *head = reclaim_empty(row, tail, n);

	pthread_mutex_unlock(&row->lock);
	return head;
}

/*
 * RP_BREAK_RECLAIM_OWN_ROW_ONLY: the bound's wait and the barrier take the
 * calling thread's reclaim batch only, as if there were still one batch,
 * and another thread's batch that no hand-over fills any more holds its
 * room in the backlog until that thread comes back.
 */
#ifdef RP_BREAK_RECLAIM_OWN_ROW_ONLY
#define RECLAIM_TAKES_ALL false
#else
#define RECLAIM_TAKES_ALL true
#endif

/*
 * Take every thread's reclaim batch, one row at a time, chained into one
 * (*@tail its last, *@n its objects): off the hot path only (the bound,
 * the barrier), where one lock per slot is the price.
 */
static struct rp_deferred *reclaim_take_all(struct rp_deferred **tail, unsigned long *n)
{
	struct rp_deferred *head = NULL, *h, *t;
	unsigned long k;

	if (!RECLAIM_TAKES_ALL)
		return reclaim_take(tail, n);
	*tail = NULL;
	*n = 0;
	for (unsigned int slot = 0; slot < RP_SLOT_ROWS; slot++) {
		struct reclaim_row *row = &reclaim_rows[slot];

		if (!CMM_LOAD_SHARED(row->n))
			continue;	/* a hint: a batch added meanwhile is its thread's to hand */
		rp_shared_write(RP_SHARED_RECLAIM_LOCK);
		pthread_mutex_lock(&row->lock);
		h = reclaim_empty(row, &t, &k);
		pthread_mutex_unlock(&row->lock);
		if (!h)
			continue;
		t->next = head;
		if (!head)
			*tail = t;
		head = h;
		*n += k;
	}
	return head;
}

/*
 * Hand the calling thread's reclaim batch, or with @all every thread's,
 * already counted in the backlog, to liburcu.
 */
static void reclaim_queue(bool all)
{
	struct rp_deferred *tail, *head;
	unsigned long n;

	head = all ? reclaim_take_all(&tail, &n) : reclaim_take(&tail, &n);
	if (head)
		batch_queue(head, tail, n);
}

/*
 * RP_BREAK_RECLAIM_NO_WAIT: a thread releases the full reclaim batch at
 * once, without its grace period, while readers that found its objects
 * may still hold them.  RP_BREAK_RECLAIM_WAITS_ANYWAY: it waits for the
 * grace period whoever may hold it back (a thread held at a race point in
 * a read section; under QSBR, a thread idling online).
 */
#ifdef RP_BREAK_RECLAIM_NO_WAIT
#define RECLAIM_WAITS false
#else
#define RECLAIM_WAITS true
#endif
#ifdef RP_BREAK_RECLAIM_WAITS_ANYWAY
#define RECLAIM_WAIT_CHECKED false
#else
#define RECLAIM_WAIT_CHECKED true
#endif

/*
 * May this thread wait for a grace period here?  Under memb a grace period
 * ends once the read sections in progress have, and rcuproc's read
 * sections never wait for another thread.  Under QSBR it ends only once
 * every online thread has passed a quiescent state, and one that idles
 * online (a caller in pthread_join) would make the wait last for ever:
 * there the thread waits only as the one registered thread online, and
 * keeps the others from coming online until reclaim_wait_end.  Debug
 * builds: not while a race point holds a thread, which may be in a read
 * section, waiting for this one.
 */
static bool reclaim_wait_begin(void)
{
	if (!RECLAIM_WAIT_CHECKED)
		return true;
#ifdef RP_DEBUG
	if (rp_race_point_busy())
		return false;
#endif
#ifdef RP_RCU_QSBR
	return online_counted &&
	       rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_cmpxchg(&online_threads, 1, 1 | ONLINE_CLOSED)) == 1;
#else
	return true;
#endif
}

static void reclaim_wait_end(void)
{
#ifdef RP_RCU_QSBR
	/* Pairs with the cmpxchg above. */
	rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_and(&online_threads, ~ONLINE_CLOSED));
#endif
}

/*
 * Wait for a grace period here, at a quiescent state: no lock held, no
 * read section (debug builds assert both).  Everything handed over before
 * the call is then past its readers.
 */
static void grace_period_here(enum rp_race_point where)
{
	rp_lockdep_assert_quiescent();
	(void)where;		/* release builds have no race points */
	RP_RACE_POINT(where, NULL);
	qs_watch();
	synchronize_rcu();
}

/* Release @head, @n objects counted in the backlog, after its grace period. */
static void reclaim_done(struct rp_deferred *head, unsigned long n)
{
	batch_release(head);
	row_add(runs, 1);
	backlog_release(n);
}

/*
 * The grace-period thread.  Where the thread whose hand-over filled the
 * reclaim batch may not wait for its grace period (reclaim_wait_begin:
 * under QSBR, another registered thread online), it hands the batch to
 * this library thread, which waits for the grace period off the updater's
 * path and hands the batch back: the next quiescent state of a thread that
 * handed batches over (rp_defer_batch.awaiting) takes the returned ones
 * and releases them on its own thread, into the type caches, warm.  No
 * updater waits for a grace period that another thread could hold back
 * for ever, and the objects still come back to the thread that allocates.
 *
 * A returned batch that nobody took back for a whole round of the thread
 * (one grace period, or GP_IDLE_US with nothing to do) is stale: the
 * threads that handed batches over have gone quiet, and the grace-period
 * thread releases it itself, so that none waits for a call that may never
 * come.  For that it is registered with liburcu (a release may queue
 * another object there) and online only while it releases; like
 * liburcu's own worker it is not counted in online_threads.  Both lists
 * hold whole batches, chained through ->next; gp_lock is a leaf.
 */
#define GP_IDLE_US	10000

/*
 * How long an updater that handed a batch over waits for the batches out
 * to come back (gp_hand).  For warmth and pace, not for safety: a batch
 * that takes longer is taken back later, or released stale.
 */
#define GP_HANDBACK_US	1000

static pthread_mutex_t gp_lock = PTHREAD_MUTEX_INITIALIZER;
/* Both on CLOCK_MONOTONIC, set up by gp_thread_start before anyone waits. */
static pthread_cond_t gp_work;		/* gp_lock: a batch handed over */
static pthread_cond_t gp_round;		/* gp_lock: a round ended */
static struct gp_chain gp_waiting;	/* gp_lock: handed over, grace period not yet begun */
/*
 * The two lists of returned batches: under gp_lock; gp_take_back also
 * peeks at their heads without it (shared loads), as a hint it then
 * rechecks under the lock.
 */
static struct gp_chain gp_returned;	/* past their grace period, this round */
static struct gp_chain gp_stale;	/* returned the round before, not taken back */
/* W: under gp_lock; R: shared loads: objects handed over and not yet released. */
static unsigned long gp_held;
static pthread_once_t gp_started = PTHREAD_ONCE_INIT;
static bool gp_running;		/* W: gp_thread_start, under gp_started; R: after pthread_once */

unsigned long rp_deferred_gp_takebacks(void)
{
	return rows_sum(takebacks);
}

/* @us microseconds from now, on CLOCK_MONOTONIC (gp_work's and gp_round's clock). */
static struct timespec gp_deadline(long us)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += us / 1000000;
	until.tv_nsec += us % 1000000 * 1000;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	return until;
}

/* Under gp_lock: nothing waits for a grace period or is being released stale. */
static bool gp_settled(void)
{
	return gp_held == gp_returned.n + gp_stale.n;
}

/*
 * RP_BREAK_GP_THREAD_NO_WAIT: the grace-period thread returns the batches
 * it took without waiting for their grace period, and the updater that
 * takes them back releases them under the readers that still hold them.
 */
#ifdef RP_BREAK_GP_THREAD_NO_WAIT
#define GP_THREAD_WAITS false
#else
#define GP_THREAD_WAITS true
#endif

/* Under gp_lock: end a round: @done goes back, what nobody took last round is in *@stale. */
static void gp_round_end(struct gp_chain *done, struct gp_chain *stale)
{
	*stale = gp_stale;
	gp_stale = gp_returned;
	gp_returned = (struct gp_chain){ NULL, NULL, 0 };
	gp_chain_splice(&gp_returned, done);
	pthread_cond_broadcast(&gp_round);
}

/* The grace-period thread's release of a stale batch: online for it, then offline again. */
static void gp_release_stale(struct gp_chain *stale)
{
	if (!stale->head)
		return;
	rcu_thread_online();
	reclaim_done(stale->head, stale->n);
	rcu_thread_offline();
	rp_shared_write(RP_SHARED_GP_LOCK);
	pthread_mutex_lock(&gp_lock);
	CMM_STORE_SHARED(gp_held, gp_held - stale->n);
	pthread_cond_broadcast(&gp_round);
	pthread_mutex_unlock(&gp_lock);
}

static void *gp_thread_main(void *arg)
{
	struct gp_chain batch, stale;

	(void)arg;
	pthread_setname_np(pthread_self(), "rcuproc-gp");
	rp_cache_release_for_others = true;	/* stale batches: it allocates nothing */
	rcu_register_thread();
	rcu_thread_offline();
	for (;;) {
		rp_shared_write(RP_SHARED_GP_LOCK);
		pthread_mutex_lock(&gp_lock);
		if (!gp_waiting.head && (gp_returned.head || gp_stale.head)) {
			struct timespec until = gp_deadline(GP_IDLE_US);

			pthread_cond_timedwait(&gp_work, &gp_lock, &until);
		}
		while (!gp_waiting.head && !gp_returned.head && !gp_stale.head)
			pthread_cond_wait(&gp_work, &gp_lock);
		/* Taken before the grace period begins: every object on it was unlinked before. */
		batch = gp_waiting;
		gp_waiting = (struct gp_chain){ NULL, NULL, 0 };
		pthread_mutex_unlock(&gp_lock);
		if (batch.head && GP_THREAD_WAITS)
			grace_period_here(RP_RACE_DEFERRED_GP);
		/*
		 * The mutex orders the grace period's end before the taker's
		 * release: pairs with the lock in gp_take_back.
		 */
		rp_shared_write(RP_SHARED_GP_LOCK);
		pthread_mutex_lock(&gp_lock);
		gp_round_end(&batch, &stale);
		pthread_mutex_unlock(&gp_lock);
		gp_release_stale(&stale);
	}
	return NULL;
}

static void gp_thread_start(void)
{
	pthread_condattr_t monotonic;
	pthread_attr_t attr;
	pthread_t thread;

	pthread_condattr_init(&monotonic);
	pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
	pthread_cond_init(&gp_work, &monotonic);
	pthread_cond_init(&gp_round, &monotonic);
	pthread_condattr_destroy(&monotonic);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	gp_running = pthread_create(&thread, &attr, gp_thread_main, NULL) == 0;
	pthread_attr_destroy(&attr);
}

/*
 * Hand the full reclaim batch to the grace-period thread, then wait
 * offline, GP_HANDBACK_US at most, until it holds nothing out, and take
 * back what it returned: the objects come back as they do where this
 * thread may wait itself, and an updater that fills batches faster than
 * grace periods end slows to their pace instead of taking fresh memory
 * for every fork.  A grace period held up longer (a thread idling online)
 * costs each hand-over GP_HANDBACK_US and never more: its batches are
 * taken back later, or released stale.  Without the thread (it could not
 * be started), the batch goes to liburcu as one callback.
 */
static void gp_hand(void)
{
	struct timespec until;
	struct gp_chain batch;

	pthread_once(&gp_started, gp_thread_start);
	if (!gp_running) {
		reclaim_queue(false);
		return;
	}
	batch.head = reclaim_take(&batch.tail, &batch.n);
	if (!batch.head)
		return;			/* another thread took it first */
	rp_shared_write(RP_SHARED_GP_LOCK);
	pthread_mutex_lock(&gp_lock);
	CMM_STORE_SHARED(gp_held, gp_held + batch.n);
	gp_chain_splice(&gp_waiting, &batch);
	pthread_cond_signal(&gp_work);
	pthread_mutex_unlock(&gp_lock);
	rp_defer_batch.awaiting = true;
	rp_sync_block_begin();		/* the grace period waits for this thread too */
	until = gp_deadline(GP_HANDBACK_US);
	rp_shared_write(RP_SHARED_GP_LOCK);
	pthread_mutex_lock(&gp_lock);
	while (!gp_settled() && pthread_cond_timedwait(&gp_round, &gp_lock, &until) == 0)
		;
	pthread_mutex_unlock(&gp_lock);
	rp_sync_block_end();
	gp_take_back();
}

/*
 * At a quiescent state of a thread that handed batches over: release the
 * ones returned past their grace period here.  Stops looking once the
 * grace-period thread holds nothing.
 */
static void gp_take_back(void)
{
	struct gp_chain done = { NULL, NULL, 0 };

	if (!CMM_LOAD_SHARED(gp_held)) {
		rp_defer_batch.awaiting = false;
		return;
	}
	if (!CMM_LOAD_SHARED(gp_returned.head) && !CMM_LOAD_SHARED(gp_stale.head))
		return;
	rp_shared_write(RP_SHARED_GP_LOCK);
	pthread_mutex_lock(&gp_lock);	/* pairs with the lock after the grace period */
	gp_chain_splice(&done, &gp_stale);
	gp_chain_splice(&done, &gp_returned);
	CMM_STORE_SHARED(gp_held, gp_held - done.n);
	pthread_mutex_unlock(&gp_lock);
	if (!done.head)
		return;
	reclaim_done(done.head, done.n);
	row_add(takebacks, 1);
}

/*
 * rp_deferred_barrier, offline: wait until the grace-period thread holds
 * nothing but returned batches, then (online again, at the caller's
 * quiescent state) take those back.
 */
static void gp_settle(void)
{
	rp_shared_write(RP_SHARED_GP_LOCK);
	pthread_mutex_lock(&gp_lock);
	while (!gp_settled())
		pthread_cond_wait(&gp_round, &gp_lock);
	pthread_mutex_unlock(&gp_lock);
}

#ifdef RP_DEBUG
/*
 * The backlog's objects that no grace period is running for: on the
 * reclaim batch, or returned by the grace-period thread.
 */
static unsigned long parked_count(void)
{
	unsigned long n = 0;

	for (unsigned int slot = 0; slot < RP_SLOT_ROWS; slot++) {
		pthread_mutex_lock(&reclaim_rows[slot].lock);
		n += reclaim_rows[slot].n;
		pthread_mutex_unlock(&reclaim_rows[slot].lock);
	}
	pthread_mutex_lock(&gp_lock);
	n += gp_returned.n + gp_stale.n;
	pthread_mutex_unlock(&gp_lock);
	return n;
}
#endif

/*
 * The reclaim batch is full: release it here after a grace period, or,
 * where this thread may not wait, hand it to the grace-period thread.
 */
static void reclaim_release(void)
{
	struct rp_deferred *head, *tail;
	unsigned long n;

	if (RECLAIM_WAITS && !reclaim_wait_begin()) {
		gp_hand();
		return;
	}
	head = reclaim_take(&tail, &n);	/* before the grace period starts */
	if (RECLAIM_WAITS) {
		if (head)
			grace_period_here(RP_RACE_DEFERRED_RECLAIM);
		reclaim_wait_end();
	}
	if (!head)
		return;			/* another thread took it first */
	reclaim_done(head, n);
	row_add(reclaim_waits, 1);
}

/*
 * RP_BREAK_CACHE_EARLY_REUSE: the end of an update section releases its
 * batch at once, so that the type caches (src/debug/cache.h) take the
 * objects back, and the next allocation reuses them, while readers that
 * found them before the section ended still hold them.
 */
#ifdef RP_BREAK_CACHE_EARLY_REUSE
#define SECTION_END_WAITS false
#else
#define SECTION_END_WAITS true
#endif

/*
 * Under QSBR the bound is soft: one registered thread that is online and
 * idle (a caller waiting in pthread_join, say) stops every grace period, so
 * a writer waiting at the bound would wait for ever, and the whole process
 * with it.  There a batch past the bound is queued anyway: the backlog
 * grows and backlog_check warns, as docs/sync.md says.  Under memb grace
 * periods end whatever the other threads do, and the bound holds.
 */
#ifdef RP_RCU_QSBR
#define BOUND_WAITS false
#else
#define BOUND_WAITS true
#endif

void rp_deferred_hand_over(void)
{
	unsigned long n = rp_defer_batch.n;
	struct rp_deferred *tail = rp_defer_batch.tail;

	if (!SECTION_END_WAITS) {
		batch_release(batch_take());
		return;
	}
	if (backlog_reserve(n)) {
		if (reclaim_add(batch_take(), tail, n))
			rp_defer_batch.reclaim = true;
	} else if (!BOUND_WAITS) {
		rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_add(&deferred_pending, n));
		batch_queue(batch_take(), tail, n);
	}
}

/*
 * At the bound (I7): this thread's batch, which the backlog has no room
 * for, waits for a grace period here, and so do every thread's reclaim
 * batches, which that grace period covers as well: the room that batches
 * of idle threads hold comes back.
 */
static void bound_wait(void)
{
	struct rp_deferred *own = batch_take(), *head, *tail;
	unsigned long n;

	head = reclaim_take_all(&tail, &n);
	grace_period_here(RP_RACE_DEFERRED_BOUND);
	row_add(bound_waits, 1);
	batch_release(own);
	if (head)
		reclaim_done(head, n);
}

void rp_deferred_flush(void)
{
	if (rp_defer_batch.n)
		rp_deferred_hand_over();
	if (rp_defer_batch.awaiting)
		gp_take_back();
	if (rp_defer_batch.n)
		bound_wait();
	else if (rp_defer_batch.reclaim)
		reclaim_release();
	rp_defer_batch.reclaim = false;
}

unsigned long rp_deferred_bound_waits(void)
{
	return rows_sum(bound_waits);
}

/* RP_BREAK_IMMEDIATE_FREE: rcu mode frees at once, with readers still inside. */
#ifdef RP_BREAK_IMMEDIATE_FREE
#define RCU_MODE_DEFERS false
#else
#define RCU_MODE_DEFERS true
#endif

void rp_defer_release(struct rp_sync *s, struct rp_deferred *d,
		      void (*release)(struct rp_deferred *))
{
	d->release = release;
	if (!rp_sync_mode_rcu(s->mode) || !RCU_MODE_DEFERS) {
		release(d);
		return;
	}
	d->next = NULL;
	/*
	 * Outside an update section: on the reclaim batch while the backlog
	 * has room, else kept for the thread's next quiescent state, unless
	 * this thread runs releases (queued at liburcu: a release must not
	 * wait for grace periods).
	 */
	if (!rp_update_section_here(s) && releasing) {
		rp_shared_rmw(RP_SHARED_DEFERRED_COUNT, uatomic_inc(&deferred_pending));
		batch_queue(d, d, 1);
	} else if (!rp_update_section_here(s) && backlog_reserve(1)) {
		if (reclaim_add(d, d, 1))
			rp_defer_batch.reclaim = true;
	} else {
		batch_add(d);
	}
}

void rp_sync_synchronize(struct rp_sync *s)
{
	rp_lockdep_assert_may_synchronize();
	rp_assert_update_held(s);
	if (rp_sync_mode_rcu(s->mode))
		synchronize_rcu();
}

void rp_sync_synchronize_cb(void *sync)
{
	rp_sync_synchronize(sync);
}
