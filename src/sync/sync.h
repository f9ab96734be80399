/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The interface through which all of rcuproc enters read-side and update-side
 * sections and defers frees.  Inline, because readers are the hot path.
 */
#ifndef RP_SYNC_SYNC_H
#define RP_SYNC_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <rcuproc/sync.h>
#include "rcu.h"
#include "../debug/bug.h"
#include "../debug/lockorder.h"
#include "../debug/racepoint.h"
#include "../debug/shared.h"
#include "qrwlock.h"

struct rp_update_work;

struct rp_sync {
	enum rp_sync_mode mode;		/* R: anyone; W: rp_sync_init only */
	pthread_mutex_t update;		/* rcu modes: the exclusive updaters' mutex */
	unsigned int gate_closed;	/* rcu mode: the update gate's exclusive flag
					   (below); W: the mutex holder; R: anyone */
	unsigned long gate_overflow;	/* rcu mode: shared holders past the thread
					   slots (uatomic) */
	pthread_rwlock_t rw;		/* rwlock mode: readers and updaters */
	struct rp_qrwlock qrw;		/* qrwlock mode: readers and updaters */
	void *update_owner;		/* R: anyone, compared with its own token;
					   W: the update-lock holder */
	struct rp_update_work *work;	/* R, W: the update-lock holder: what runs
					   at the end of its section (below) */
};

/*
 * A step that must run in the update section that made it due, but not
 * where it became due: at the section's end, when the steps of the
 * section are done and only the update lock is held (lock order: every
 * other lock of the table nests inside it and is released by then).  The
 * pid namespace's end uses it: the free of a namespace's last pid but
 * init's completes init's exit (task/pidns.h), and a pid is freed deep
 * inside releases and group moves that hold siglocks or walk lists.
 */
struct rp_update_work {
	struct rp_update_work *next;		/* W: the update-lock holder */
	void (*fn)(struct rp_update_work *);	/* W: rp_update_work_add */
};

/*
 * Run @fn(@w) at the end of the caller's update section (update lock
 * held), after the works added before it.  @fn runs holding the update
 * lock and nothing else, and may add works of its own.
 */
void rp_update_work_add(struct rp_sync *s, struct rp_update_work *w,
			void (*fn)(struct rp_update_work *));
/* Run the section's works (rp_update_unlock, update lock held). */
void rp_update_run_work(struct rp_sync *s);

/*
 * A per-thread token: its address names the thread.  The update side is also
 * a read side: in the lock modes a read section nested inside the update lock
 * of the same rp_sync takes nothing (the write lock already excludes everyone;
 * read-locking it would self-deadlock).  rcu_read_lock nests anywhere.
 */
extern __thread char rp_thread_token;

static inline bool rp_update_held_here(const struct rp_sync *s)
{
	return CMM_LOAD_SHARED(s->update_owner) == &rp_thread_token;
}

/*
 * A precondition "update lock held": debug builds stop when it is not.  A
 * macro, so that the report names the function that states it.
 */
#define rp_assert_update_held(s) RP_DEBUG_BUG_ON(!rp_update_held_here(s))

/* Are @mode's readers RCU readers (rcu and rcu-global)? */
static inline bool rp_sync_mode_rcu(enum rp_sync_mode mode)
{
	return mode == RP_SYNC_RCU || mode == RP_SYNC_RCU_GLOBAL;
}

/*
 * rcu mode's update gate (sync.c): after the big-reader locks, a shared
 * side that writes only the calling thread's own row and an exclusive side
 * that is the update mutex plus a flag and a scan of the rows.  An
 * operation converted to per-object locks (docs/process.md, "Without the
 * update lock") takes it shared, rp_update_lock_shared; every other one
 * takes it exclusive, rp_update_lock, and so excludes everything as the
 * one update mutex did.  In every other mode the shared side is the
 * exclusive one.
 */
void rp_gate_close(struct rp_sync *s);
void rp_gate_enter_shared(struct rp_sync *s);
void rp_gate_leave_shared(struct rp_sync *s);

/* The gate this thread holds shared, and how deeply it nests (sync.c). */
extern __thread const struct rp_sync *rp_gate_held;
extern __thread unsigned int rp_gate_depth;

/*
 * Does this thread hold @s's gate shared (rcu mode)?  Inline: a
 * fork+exit+wait asks about nine times.
 */
static inline bool rp_gate_shared_here(const struct rp_sync *s)
{
	return rp_gate_depth && rp_gate_held == s;
}

/* Does this thread hold @s's update side, shared (rcu mode) or exclusive? */
static inline bool rp_update_section_here(const struct rp_sync *s)
{
	return rp_update_held_here(s) || rp_gate_shared_here(s);
}

/*
 * A precondition of a write that a converted operation makes under the
 * object lock at @lock: the exclusive update side, or that lock (debug
 * builds; only rcu mode takes object locks).  A macro, so that the report
 * names its caller.
 */
#define rp_assert_update_or_held(s, lock) \
	RP_DEBUG_BUG_ON(!rp_update_held_here(s) && !rp_lockdep_holds(lock))

/*
 * Per thread, in the lock modes: the rp_sync whose global lock this thread
 * read-holds, and how deeply its read sections nest.  Nested sections take
 * the lock once: taking a queued rwlock's read side again while a writer
 * waits would deadlock (the writer waits for us, we queue behind it).
 */
struct rp_read_nest {
	struct rp_sync *sync;
	unsigned int depth;
};
extern __thread struct rp_read_nest rp_read_nest;

/*
 * Is this thread in a read section of @s, as @s's mode makes one?  rcu:
 * rcu_read_lock, by liburcu's rcu_read_ongoing (under QSBR an online thread
 * is always "ongoing", so the lock-order checker's count of rp_read_lock
 * answers instead, debug builds only); lock modes: @s's global lock
 * read-held.  Holding @s's update lock counts in every mode: it excludes
 * every writer, and in the lock modes every reader too.
 */
static inline bool rp_read_section_here(const struct rp_sync *s)
{
	if (rp_update_held_here(s))
		return true;
	switch (s->mode) {
	case RP_SYNC_NONE:
		return true;
	case RP_SYNC_RCU:
	case RP_SYNC_RCU_GLOBAL:
#ifdef RP_RCU_QSBR
		return rp_lockdep_in_read_section();
#else
		return rcu_read_ongoing();
#endif
	default:
		return rp_read_nest.sync == s;
	}
}

/* A precondition "in a read section (or the update lock held)": debug builds. */
#define rp_assert_read_section(s) RP_DEBUG_BUG_ON(!rp_read_section_here(s))

/* Lock modes: does this read section need the global lock taken? */
static inline bool rp_read_takes_lock(struct rp_sync *s)
{
	if (rp_update_held_here(s))
		return false;
	if (rp_read_nest.sync == s) {
		rp_read_nest.depth++;
		return false;
	}
	if (!rp_read_nest.sync) {
		rp_read_nest.sync = s;
		rp_read_nest.depth = 1;
	}
	return true;
}

/* Lock modes: does leaving this read section release the global lock? */
static inline bool rp_read_drops_lock(struct rp_sync *s)
{
	if (rp_update_held_here(s))
		return false;
	if (rp_read_nest.sync == s && --rp_read_nest.depth > 0)
		return false;
	if (rp_read_nest.sync == s)
		rp_read_nest.sync = NULL;
	return true;
}

/*
 * Embedded in an object whose free must wait for readers.  The deferrals
 * of one update section form a batch, chained through ->next; batches go
 * on chained end to end (the reclaim batch, the grace-period thread's
 * lists, the carrier's load), so the head needs no rcu_head of its own:
 * what goes to liburcu goes as the load of the one carrier (sync.c).
 */
struct rp_deferred {
	struct rp_deferred *next;		/* W: the batch or chain it is on */
	void (*release)(struct rp_deferred *);	/* W: rp_defer_release */
};

/*
 * The deferrals this thread made in rcu mode and has not handed over yet:
 * those of its current update section, or those kept back while the
 * backlog was at its bound.  Handed over at the end of the section
 * (rp_deferred_hand_over) or at the thread's next quiescent state
 * (rp_deferred_flush).  @reclaim: a hand-over filled the process's reclaim
 * batch (sync.c), which this thread's next quiescent state releases.
 * @awaiting: this thread handed a reclaim batch to the grace-period thread
 * (sync.c), and its next quiescent states take back the batches returned.
 */
struct rp_defer_batch {
	struct rp_deferred *head;		/* this thread only */
	struct rp_deferred *tail;		/* this thread only: the first added */
	unsigned long n;			/* this thread only: objects on it */
	bool reclaim;				/* this thread only */
	bool awaiting;				/* this thread only */
};
extern __thread struct rp_defer_batch rp_defer_batch;

/*
 * The most deferred releases waiting for a grace period at any time (I7):
 * on the reclaim batch or queued at liburcu.  A batch that does not fit
 * stays with its thread until the thread's next quiescent state, where the
 * thread waits for a grace period itself and releases it (sync.c,
 * docs/sync.md).
 */
#define RP_DEFERRED_BOUND	65536UL

/*
 * The objects the reclaim batch gathers before a thread waits for a grace
 * period and releases them itself, warm, into the type caches: about 250
 * processes, within the 1024 objects a type cache holds (sync.c).
 */
#define RP_DEFERRED_RECLAIM	1024UL

void rp_sync_init(struct rp_sync *s, enum rp_sync_mode mode);
void rp_sync_destroy(struct rp_sync *s);

/*
 * Run @release(@d) once no reader can still hold a pointer to @d's object:
 * after a grace period in rcu mode, at once in the lock modes (whose readers
 * are excluded by the lock the caller held while unlinking).  In rcu mode,
 * inside an update section of @s, @d joins the thread's batch, which the
 * section's end hands over as one callback.  RP_BREAK_IMMEDIATE_FREE
 * releases at once in rcu mode too.
 */
void rp_defer_release(struct rp_sync *s, struct rp_deferred *d,
		      void (*release)(struct rp_deferred *));

/*
 * Add this thread's batch to the process's reclaim batch if the backlog has
 * room for it; else keep it for rp_deferred_flush.
 */
void rp_deferred_hand_over(void);

/*
 * At a quiescent state (no lock held, no read section): hand this thread's
 * batch over or, with the backlog at its bound, wait for a grace period
 * and release it here; take back and release the batches the grace-period
 * thread returned; then, if a hand-over of this thread filled the reclaim
 * batch, release that batch after a grace period, or hand it to the
 * grace-period thread (sync.c).
 */
void rp_deferred_flush(void);

/* Tests: a lower bound than RP_DEFERRED_BOUND in force (0: back to it). */
void rp_deferred_set_bound(unsigned long bound);

/* Tests: a smaller reclaim batch than RP_DEFERRED_RECLAIM (0: back to it). */
void rp_deferred_set_reclaim(unsigned long objects);

/* Batches released by their own thread after waiting at the bound, so far. */
unsigned long rp_deferred_bound_waits(void);

/* Reclaim batches released by the thread that waited for their grace period, so far. */
unsigned long rp_deferred_reclaim_waits(void);
/*
 * Reclaim batches handed to the grace-period thread and taken back, past
 * their grace period, by the threads that handed them over, so far.
 */
unsigned long rp_deferred_gp_takebacks(void);
/* Loads the carrier took to liburcu and released, so far (sync.c). */
unsigned long rp_deferred_carrier_runs(void);

/*
 * Wait for every reader that might see the state before the caller's last
 * update.  Called with the update lock held; in the lock modes that lock
 * already excludes readers, so there is nothing to wait for.
 */
void rp_sync_synchronize(struct rp_sync *s);

/* A (void *) wrapper of rp_sync_synchronize for rp_list_splice_init_pub. */
void rp_sync_synchronize_cb(void *sync);

static inline void rp_read_lock(struct rp_sync *s)
{
	switch (s->mode) {
	case RP_SYNC_NONE:
		break;
	case RP_SYNC_RCU:
	case RP_SYNC_RCU_GLOBAL:
		rcu_read_lock();
		break;
	case RP_SYNC_RWLOCK:
		if (rp_read_takes_lock(s)) {
			rp_shared_write(RP_SHARED_READ_LOCK);
			pthread_rwlock_rdlock(&s->rw);
		}
		break;
	default:
		if (rp_read_takes_lock(s)) {
			rp_shared_write(RP_SHARED_READ_LOCK);
			rp_qrw_read_lock(&s->qrw);
		}
		break;
	}
	rp_lockdep_read_enter();
}

static inline void rp_read_unlock(struct rp_sync *s)
{
	rp_lockdep_read_exit();
	switch (s->mode) {
	case RP_SYNC_NONE:
		break;
	case RP_SYNC_RCU:
	case RP_SYNC_RCU_GLOBAL:
		rcu_read_unlock();
		break;
	case RP_SYNC_RWLOCK:
		if (rp_read_drops_lock(s))
			pthread_rwlock_unlock(&s->rw);
		break;
	default:
		if (rp_read_drops_lock(s))
			rp_qrw_read_unlock(&s->qrw);
		break;
	}
}

/*
 * Debug builds keep, for each registered thread, how often it announced a
 * quiescent state (or went offline or online) and whether it is online, so
 * that a thread holding grace periods back can be found and named
 * (rp_thread_stalls, and the checks of rp_defer_release and
 * rp_deferred_barrier).  Linked on a registry in sync.c.
 */
struct rp_qs_thread {
	struct cds_list_head node;	/* registry: under sync.c's qs_lock */
	pthread_t thread;		/* W: at registration */
	pid_t tid;			/* W: at registration */
	unsigned long count;		/* W: the thread itself; R: anyone (shared loads) */
	bool online;			/* W: the thread itself; R: anyone (shared loads) */
	unsigned long seen;		/* the checker's, under qs_lock: count last seen */
	double since;			/* under qs_lock: when count last moved */
	bool warned;			/* under qs_lock: this stall was reported */
};
extern __thread struct rp_qs_thread rp_qs_self;

/* Debug builds: count one quiescent state of this thread, and whether it is online. */
static inline void rp_qs_note(bool online)
{
#ifdef RP_DEBUG
	CMM_STORE_SHARED(rp_qs_self.count, rp_qs_self.count + 1);
	CMM_STORE_SHARED(rp_qs_self.online, online);
#else
	(void)online;
#endif
}

#ifdef RP_RCU_QSBR
/*
 * QSBR: the count of registered threads online, which tells a thread
 * whether it may wait for a grace period alone (sync.c).  Called around
 * every change of a registered thread between online and offline:
 * rp_online_enter before it goes online, rp_online_leave after it went
 * offline.
 */
void rp_online_enter(void);
void rp_online_leave(void);
#endif

/* QSBR: a registered thread must be offline while it blocks. */
static inline void rp_sync_block_begin(void)
{
#ifdef RP_RCU_QSBR
	rcu_thread_offline();
	rp_online_leave();
#endif
	rp_qs_note(false);
}

static inline void rp_sync_block_end(void)
{
#ifdef RP_RCU_QSBR
	rp_online_enter();
	rcu_thread_online();
#endif
	rp_qs_note(true);
}

/*
 * Every public call announces a quiescent state, outside any read section
 * (debug builds assert it), at its end or, for a call that returns from
 * many places, at its start, and then again after its last free (at the
 * backlog's bound a free waits here, on its thread, and must not outlive
 * the call; a full reclaim batch is released here too): QSBR's
 * rcu_quiescent_state (two loads when no grace period waits), nothing
 * else for memb.  Without it, a registered
 * thread that keeps calling rcuproc would hold back every grace period
 * under QSBR (docs/sync.md).  test_group_races's quiescent/ checks each
 * call through the debug builds' count.
 */
static inline void rp_sync_quiescent(void)
{
	rp_lockdep_assert_may_synchronize();
	if (rp_defer_batch.n || rp_defer_batch.reclaim || rp_defer_batch.awaiting)
		rp_deferred_flush();
#ifdef RP_RCU_QSBR
	rcu_quiescent_state();
#endif
	rp_qs_note(true);
}

static inline void rp_update_lock(struct rp_sync *s)
{
	rp_lockdep_acquire(RP_LOCK_UPDATE);
	if (s->mode != RP_SYNC_NONE)
		rp_shared_write(RP_SHARED_UPDATE_LOCK);
	switch (s->mode) {
	case RP_SYNC_NONE:
		break;
	case RP_SYNC_RCU:
	case RP_SYNC_RCU_GLOBAL:
		if (pthread_mutex_trylock(&s->update) != 0) {
			RP_RACE_POINT(RP_RACE_UPDATE_WAITS, NULL);
			rp_sync_block_begin();
			pthread_mutex_lock(&s->update);
			rp_sync_block_end();
		}
		if (s->mode == RP_SYNC_RCU)
			rp_gate_close(s);
		break;
	case RP_SYNC_RWLOCK:
		pthread_rwlock_wrlock(&s->rw);
		break;
	default:
		rp_qrw_write_lock(&s->qrw);
		break;
	}
	CMM_STORE_SHARED(s->update_owner, &rp_thread_token);
}

static inline void rp_update_unlock(struct rp_sync *s)
{
	if (s->work)
		rp_update_run_work(s);
	CMM_STORE_SHARED(s->update_owner, NULL);
	switch (s->mode) {
	case RP_SYNC_NONE:
		break;
	case RP_SYNC_RCU:
		/* The section's writes before the flag: pairs with the acquire
		   load of a shared taker's check (sync.c). */
		__atomic_store_n(&s->gate_closed, 0, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&s->update);
		break;
	case RP_SYNC_RCU_GLOBAL:
		pthread_mutex_unlock(&s->update);
		break;
	case RP_SYNC_RWLOCK:
		pthread_rwlock_unlock(&s->rw);
		break;
	default:
		rp_qrw_write_unlock(&s->qrw);
		break;
	}
	rp_lockdep_release(RP_LOCK_UPDATE);
	if (rp_defer_batch.n)
		rp_deferred_hand_over();
}

/*
 * Per thread, in the modes without the gate: how many shared sections
 * this thread opened inside an update lock it held already (its own
 * shared one, or an unconverted caller's), which took nothing.
 */
extern __thread unsigned int rp_shared_nest;

/*
 * The update side of an operation converted to per-object locks: rcu
 * mode's gate shared, which excludes only the exclusive holders (the
 * object locks the operation takes next exclude the rest); every other
 * mode's update lock.  In every mode, inside the exclusive side (an
 * unconverted caller) it takes nothing, and it nests inside itself.  Its
 * writes hold their object locks and assert so (rp_assert_update_or_held).
 */
static inline void rp_update_lock_shared(struct rp_sync *s)
{
	if (s->mode != RP_SYNC_RCU) {
		if (rp_update_held_here(s))
			rp_shared_nest++;
		else
			rp_update_lock(s);
		return;
	}
	if (rp_update_held_here(s))
		return;
	if (!rp_gate_shared_here(s))
		rp_lockdep_acquire(RP_LOCK_UPDATE);
	rp_gate_enter_shared(s);
}

static inline void rp_update_unlock_shared(struct rp_sync *s)
{
	if (s->mode != RP_SYNC_RCU) {
		if (rp_shared_nest)
			rp_shared_nest--;
		else
			rp_update_unlock(s);
		return;
	}
	if (rp_update_held_here(s))
		return;
	rp_gate_leave_shared(s);
	if (rp_gate_shared_here(s))
		return;
	rp_lockdep_release(RP_LOCK_UPDATE);
	if (rp_defer_batch.n)
		rp_deferred_hand_over();
}

#endif /* RP_SYNC_SYNC_H */
