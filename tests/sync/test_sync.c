/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the synchronization layer: mode names, deferred release (after a
 * grace period in rcu mode, at once in the lock modes), readers against the
 * update lock in each mode, and the debug-build lock-order assertions.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include "sync/sync.h"
#include "../common.h"

Test(modes, names_round_trip)
{
	for (int m = 0; m < RP_SYNC_NR_MODES; m++) {
		enum rp_sync_mode parsed;

		cr_assert_eq(rp_sync_mode_parse(rp_sync_mode_name(m), &parsed), 0);
		cr_assert_eq(parsed, (enum rp_sync_mode)m);
	}
	/* rcu-global is named and parsed, outside the loop's modes. */
	cr_assert_eq(rp_sync_mode_parse("rcu-global", &(enum rp_sync_mode){ 0 }), 0);
	cr_assert_str_eq(rp_sync_mode_name(RP_SYNC_RCU_GLOBAL), "rcu-global");
	/* The single-threaded baseline has a name but is not parsed. */
	cr_assert_str_eq(rp_sync_mode_name(RP_SYNC_NONE), "none");
	cr_assert_eq(rp_sync_mode_parse("none", &(enum rp_sync_mode){ 0 }), -EINVAL);
	cr_assert_null(rp_sync_mode_name(RP_SYNC_NONE + 1));
#ifdef RP_RCU_QSBR
	cr_assert_str_eq(rp_rcu_flavour(), "qsbr");
#else
	cr_assert_str_eq(rp_rcu_flavour(), "memb");
#endif
}

Test(modes, unknown_name_is_einval)
{
	enum rp_sync_mode m = RP_SYNC_RCU;

	cr_assert_eq(rp_sync_mode_parse("tasklist", &m), -EINVAL);
	cr_assert_eq(rp_sync_mode_parse("", &m), -EINVAL);
	cr_assert_eq(m, RP_SYNC_RCU, "a failed parse must not change the output");
}

/* A reader thread that enters a read section and stays until told to leave. */
struct parked_reader {
	struct rp_sync *sync;
	pthread_t tid;
	int trying;	/* uatomic: about to take the read side */
	int inside;	/* uatomic */
	int leave;	/* uatomic */
};

static void *parked_reader_main(void *p)
{
	struct parked_reader *r = p;

	rp_thread_register();
	uatomic_set(&r->trying, 1);
	rp_read_lock(r->sync);
	uatomic_set(&r->inside, 1);
	while (!uatomic_read(&r->leave))
		usleep(1000);
	rp_read_unlock(r->sync);
	rp_thread_unregister();
	return NULL;
}

static void park_reader(struct parked_reader *r, struct rp_sync *sync)
{
	*r = (struct parked_reader){ .sync = sync };
	cr_assert_eq(pthread_create(&r->tid, NULL, parked_reader_main, r), 0);
	while (!uatomic_read(&r->inside))
		usleep(1000);
}

static void release_reader(struct parked_reader *r)
{
	uatomic_set(&r->leave, 1);
	pthread_join(r->tid, NULL);
}

struct tracked {
	struct rp_deferred deferred;
	int released;	/* uatomic */
};

static void mark_released(struct rp_deferred *d)
{
	struct tracked *t = caa_container_of(d, struct tracked, deferred);

	uatomic_set(&t->released, 1);
}

/* rcu mode: nothing is released while a reader that could see it is inside. */
Test(defer, waits_for_readers)
{
	struct rp_sync sync;
	struct parked_reader reader;
	struct tracked obj = { 0 };

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	park_reader(&reader, &sync);
	rp_defer_release(&sync, &obj.deferred, mark_released);
	cr_assert_geq(rp_deferred_backlog(), 1);
	/* Give a wrong implementation ample time to release early. */
	usleep(200 * 1000);
	cr_assert_eq(uatomic_read(&obj.released), 0,
		     "released while a reader was still inside");
	release_reader(&reader);
	rp_deferred_barrier();
	cr_assert_eq(uatomic_read(&obj.released), 1);
	cr_assert_eq(rp_deferred_backlog(), 0);
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}

/*
 * The backlog's bound holds though each thread takes room ahead in chunks
 * (src/sync/sync.c, struct deferred_row): hand over one object at a time
 * past the default bound, with a reclaim batch too large to fill, so that
 * nothing is released meanwhile.  Every hand-over within the bound is
 * counted, none past it: the last ones stay with this thread.  A chunk
 * taken without the bound's check (RP_BREAK_ROOM_PAST_BOUND) lets the
 * hand-overs that use it pass the bound, every time: the schedule is this
 * one thread's.
 */
#define PAST_BOUND	10

Test(defer, room_within_bound)
{
	static struct tracked objs[RP_DEFERRED_BOUND + PAST_BOUND];
	unsigned long n = 0, worst = 0;
	struct rp_sync sync;

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	rp_deferred_set_reclaim(1UL << 40);
	for (unsigned long i = 0; i < RP_DEFERRED_BOUND + PAST_BOUND; i++) {
		rp_defer_release(&sync, &objs[i].deferred, mark_released);
		if (rp_deferred_backlog() > worst)
			worst = rp_deferred_backlog();
	}
	cr_expect_leq(worst, RP_DEFERRED_BOUND, "a backlog of %lu, past the bound %lu", worst,
		      RP_DEFERRED_BOUND);
	cr_expect_eq(rp_deferred_backlog(), RP_DEFERRED_BOUND);
	cr_expect_eq(rp_defer_batch.n, PAST_BOUND, "%lu kept by the thread", rp_defer_batch.n);
	rp_deferred_set_reclaim(0);
	rp_deferred_flush();		/* waits at the bound, releases everything */
	rp_deferred_barrier();
	for (unsigned long i = 0; i < RP_DEFERRED_BOUND + PAST_BOUND; i++)
		n += uatomic_read(&objs[i].released);
	cr_expect_eq(n, RP_DEFERRED_BOUND + PAST_BOUND, "%lu released", n);
	cr_expect_eq(rp_deferred_backlog(), 0);
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}

/*
 * Reclaim batches are per thread (src/sync/sync.c, struct reclaim_row): a
 * thread that handed objects over and then idles, registered, leaves them
 * on its batch, where no hand-over of its own fills it.  They must still
 * come back: at the bound, whose room they hold, and at a barrier.  Memb
 * only: under QSBR the idle thread, online, would hold every grace period
 * back, and going offline hands its batch over itself.
 */
#ifndef RP_RCU_QSBR
#define IDLE_OBJECTS	8

struct idle_updater {
	struct rp_sync *sync;
	struct tracked objs[IDLE_OBJECTS];
	pthread_t tid;
	int handed;	/* uatomic */
	int leave;	/* uatomic */
};

static void *idle_updater_main(void *p)
{
	struct idle_updater *u = p;

	rp_thread_register();
	for (int i = 0; i < IDLE_OBJECTS; i++)
		rp_defer_release(u->sync, &u->objs[i].deferred, mark_released);
	uatomic_set(&u->handed, 1);
	while (!uatomic_read(&u->leave))
		usleep(1000);
	rp_thread_unregister();
	return NULL;
}

/* Start an updater that hands IDLE_OBJECTS over to its reclaim batch and idles. */
static void start_idle_updater(struct idle_updater *u, struct rp_sync *sync)
{
	*u = (struct idle_updater){ .sync = sync };
	rp_deferred_set_reclaim(1UL << 40);	/* never full */
	cr_assert_eq(pthread_create(&u->tid, NULL, idle_updater_main, u), 0);
	while (!uatomic_read(&u->handed))
		usleep(1000);
}

static unsigned long idle_released(struct idle_updater *u)
{
	unsigned long n = 0;

	for (int i = 0; i < IDLE_OBJECTS; i++)
		n += uatomic_read(&u->objs[i].released);
	return n;
}

static void stop_idle_updater(struct idle_updater *u)
{
	uatomic_set(&u->leave, 1);
	pthread_join(u->tid, NULL);
	rp_deferred_set_reclaim(0);
	rp_deferred_barrier();
}

/*
 * The idle thread's batch fills the (lowered) bound: this thread's next
 * hand-over waits at the bound, and its grace period must release the
 * idle batch too, else the bound stays full for as long as that thread
 * idles.  RP_BREAK_RECLAIM_OWN_ROW_ONLY (the wait takes its own thread's
 * batch only) leaves the idle batch unreleased, every time: the schedule
 * is fixed by the handshake.
 */
Test(defer, bound_takes_idle_batches)
{
	struct idle_updater idle;
	struct tracked own = { 0 };
	struct rp_sync sync;

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	rp_deferred_set_bound(IDLE_OBJECTS);
	start_idle_updater(&idle, &sync);
	cr_expect_eq(rp_deferred_backlog(), IDLE_OBJECTS);
	rp_defer_release(&sync, &own.deferred, mark_released);
	cr_expect_eq(rp_defer_batch.n, 1, "past the bound, kept by the thread");
	rp_deferred_flush();		/* waits at the bound */
	cr_expect_eq(uatomic_read(&own.released), 1);
	cr_expect_eq(idle_released(&idle), IDLE_OBJECTS,
		     "%lu of the idle thread's %d released at the bound", idle_released(&idle),
		     IDLE_OBJECTS);
	cr_expect_eq(rp_deferred_backlog(), 0);
	stop_idle_updater(&idle);
	rp_deferred_set_bound(0);
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}

/* A barrier releases what an idle thread's batch holds: nothing waits past it. */
Test(defer, barrier_takes_idle_batches)
{
	struct idle_updater idle;
	struct rp_sync sync;

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	start_idle_updater(&idle, &sync);
	cr_expect_eq(idle_released(&idle), 0, "released before any grace period");
	rp_deferred_barrier();
	cr_expect_eq(idle_released(&idle), IDLE_OBJECTS, "%lu of %d released by the barrier",
		     idle_released(&idle), IDLE_OBJECTS);
	cr_expect_eq(rp_deferred_backlog(), 0);
	stop_idle_updater(&idle);
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}
#endif

/* The lock modes free at once: the caller's lock excluded every reader. */
Test(defer, immediate_in_lock_modes)
{
	for (int m = RP_SYNC_RWLOCK; m < RP_SYNC_NR_MODES; m++) {
		struct rp_sync sync;
		struct tracked obj = { 0 };

		rp_sync_init(&sync, m);
		rp_defer_release(&sync, &obj.deferred, mark_released);
		cr_assert_eq(obj.released, 1, "%s did not release at once",
			     rp_sync_mode_name(m));
		rp_sync_destroy(&sync);
	}
}

/*
 * Does a reader thread get in while this thread holds the update lock?  In
 * rcu mode it must, and the test waits for it without a deadline (a hang is
 * Criterion's timeout).  In the lock modes it must not: once the reader is at
 * the lock, it is given 200 ms to get in wrongly.  A loaded machine can only
 * make that check weaker (the reader may not run in time), never wrong.
 */
static bool reader_enters_during_update(enum rp_sync_mode mode)
{
	struct rp_sync sync;
	struct parked_reader reader = { .sync = &sync };
	bool entered;

	rp_thread_register();
	rp_sync_init(&sync, mode);
	rp_update_lock(&sync);
	cr_assert_eq(pthread_create(&reader.tid, NULL, parked_reader_main, &reader), 0);
	while (!uatomic_read(&reader.trying))
		usleep(1000);
	if (mode == RP_SYNC_RCU) {
		while (!uatomic_read(&reader.inside))
			usleep(1000);
	} else {
		usleep(200 * 1000);
	}
	entered = uatomic_read(&reader.inside);
	rp_update_unlock(&sync);
	release_reader(&reader);
	cr_assert_eq(uatomic_read(&reader.inside), 1, "the reader never got in");
	rp_sync_destroy(&sync);
	rp_thread_unregister();
	return entered;
}

Test(readers, run_beside_updater_in_rcu_mode)
{
	cr_assert(reader_enters_during_update(RP_SYNC_RCU));
}

Test(readers, excluded_by_updater_in_lock_modes)
{
	cr_assert_not(reader_enters_during_update(RP_SYNC_RWLOCK));
	cr_assert_not(reader_enters_during_update(RP_SYNC_QRWLOCK));
}

/* A read section inside the update lock is allowed in every mode. */
Test(readers, nest_inside_update)
{
	for (int m = 0; m < RP_SYNC_NR_MODES; m++) {
		struct rp_sync sync;

		rp_thread_register();
		rp_sync_init(&sync, m);
		rp_update_lock(&sync);
		rp_read_lock(&sync);
		rp_read_unlock(&sync);
		rp_update_unlock(&sync);
		/* And the lock is free again for readers and updaters. */
		rp_read_lock(&sync);
		rp_read_unlock(&sync);
		rp_update_lock(&sync);
		rp_update_unlock(&sync);
		rp_sync_destroy(&sync);
		rp_thread_unregister();
	}
}

#ifdef RP_DEBUG
/* The lock-order assertions of src/debug/lockorder.h abort the process. */
static struct rp_sync order_sync;

static void order_setup(void)
{
	rp_thread_register();
	rp_sync_init(&order_sync, RP_SYNC_RCU);
}

Test(lockorder, update_inside_read_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_read_lock(&order_sync);
	rp_update_lock(&order_sync);
}

Test(lockorder, synchronize_inside_read_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_read_lock(&order_sync);
	rp_sync_synchronize(&order_sync);
}

Test(lockorder, update_twice_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_update_lock(&order_sync);
	rp_update_lock(&order_sync);
}

Test(lockorder, unlock_without_lock_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_update_unlock(&order_sync);
}

/* rcu mode's object locks: within T and within M, by increasing address. */
static char objs[4];

Test(lockorder, tree_inversion_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[1]);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[0]);
}

Test(lockorder, member_inversion_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[3]);
	rp_lockdep_acquire_obj(RP_LOCK_MEMBER, &objs[2]);
	rp_lockdep_acquire_obj(RP_LOCK_MEMBER, &objs[1]);
}

Test(lockorder, tree_twice_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[0]);
}

Test(lockorder, tree_after_member_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_MEMBER, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[1]);
}

Test(lockorder, group_twice_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_GROUP, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_GROUP, &objs[1]);
}

Test(lockorder, tree_inside_link_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_LINK, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[1]);
}

Test(lockorder, third_link_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_lockdep_acquire_obj(RP_LOCK_LINK, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_LINK, &objs[1]);
	rp_lockdep_acquire_obj(RP_LOCK_LINK, &objs[2]);
}

/* The right order is accepted, and read sections nest inside the object locks. */
Test(lockorder, object_locks_in_order_are_fine, .init = order_setup)
{
	rp_update_lock_shared(&order_sync);
	rp_lockdep_acquire_obj(RP_LOCK_GROUP, &objs[3]);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[2]);
	rp_lockdep_acquire_obj(RP_LOCK_MEMBER, &objs[1]);
	rp_lockdep_acquire_obj(RP_LOCK_MEMBER, &objs[3]);
	rp_read_lock(&order_sync);
	rp_read_unlock(&order_sync);
	rp_lockdep_acquire_obj(RP_LOCK_SIGHAND, &objs[2]);
	rp_lockdep_acquire_obj(RP_LOCK_LINK, &objs[0]);
	rp_lockdep_acquire_obj(RP_LOCK_LINK, &objs[1]);
	cr_assert(rp_lockdep_holds(&objs[1]));
	rp_assert_update_or_held(&order_sync, &objs[1]);
	rp_lockdep_release_obj(RP_LOCK_LINK, &objs[1]);
	rp_lockdep_release_obj(RP_LOCK_LINK, &objs[0]);
	rp_lockdep_release_obj(RP_LOCK_SIGHAND, &objs[2]);
	rp_lockdep_release_obj(RP_LOCK_MEMBER, &objs[3]);
	rp_lockdep_release_obj(RP_LOCK_MEMBER, &objs[1]);
	rp_lockdep_release_obj(RP_LOCK_TREE, &objs[2]);
	rp_lockdep_release_obj(RP_LOCK_TREE, &objs[0]);
	rp_lockdep_release_obj(RP_LOCK_GROUP, &objs[3]);
	rp_update_unlock_shared(&order_sync);
}

/* A write's precondition: the exclusive side, or the object's lock. */
Test(lockorder, write_without_its_lock_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_update_lock_shared(&order_sync);
	rp_lockdep_acquire_obj(RP_LOCK_TREE, &objs[0]);
	rp_assert_update_or_held(&order_sync, &objs[1]);
}

Test(lockorder, write_under_exclusive_is_fine, .init = order_setup)
{
	rp_update_lock(&order_sync);
	rp_assert_update_or_held(&order_sync, &objs[1]);
	rp_update_unlock(&order_sync);
}

/* A thread holding the gate shared may not take it exclusive: it would wait for itself. */
Test(lockorder, exclusive_inside_shared_aborts, .init = order_setup, .signal = SIGABRT)
{
	rp_update_lock_shared(&order_sync);
	rp_update_lock(&order_sync);
}

Test(lockorder, synchronize_outside_read_is_fine, .init = order_setup)
{
	rp_update_lock(&order_sync);
	rp_sync_synchronize(&order_sync);
	rp_update_unlock(&order_sync);
	cr_assert_eq(order_sync.update_owner, NULL);
}
#endif

/* An updater that waits for the lock, for the nesting test below. */
static void *queued_updater(void *p)
{
	struct rp_sync *sync = p;

	rp_thread_register();
	rp_update_lock(sync);
	rp_update_unlock(sync);
	rp_thread_unregister();
	return NULL;
}

/*
 * A read section nested in another, while an updater waits: in the qrwlock
 * mode taking the read side twice would queue the inner one behind the
 * writer, which waits for the outer one.  Nested sections take the lock once.
 */
Test(readers, nest_while_updater_waits)
{
	for (int m = 0; m < RP_SYNC_NR_MODES; m++) {
		struct rp_sync sync;
		pthread_t updater;

		rp_thread_register();
		rp_sync_init(&sync, m);
		rp_read_lock(&sync);
		cr_assert_eq(pthread_create(&updater, NULL, queued_updater, &sync), 0);
		usleep(50 * 1000);	/* let the updater queue up */
		rp_read_lock(&sync);
		rp_read_unlock(&sync);
		rp_read_unlock(&sync);
		pthread_join(updater, NULL);
		rp_sync_destroy(&sync);
		rp_thread_unregister();
	}
}
