/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcu mode's update gate (src/sync/sync.h): shared holders beside each
 * other, an exclusive holder alone, the handshake between a shared taker
 * and an exclusive one held open at a race point, and rcu-global's update
 * side, which is one mutex for every writer.
 */
#include <unistd.h>
#include <criterion/criterion.h>
#include "sync/sync.h"
#include "debug/racepoint.h"
#include "debug/threadslot.h"
#include "../common.h"

/* Spin-wait on a flag of the test, polling (no deadline: a hang is Criterion's timeout). */
static void await_flag(const int *flag)
{
	while (!uatomic_read(flag))
		usleep(1000);
}

/* A thread that takes the update side, shared or exclusive, and stays until told. */
struct holder {
	struct rp_sync *sync;
	bool shared;
	pthread_t tid;
	int inside;	/* uatomic */
	int leave;	/* uatomic */
	int saw_other;	/* uatomic: the other holder was inside when this one got in */
	const int *other_inside;
};

static void *holder_main(void *p)
{
	struct holder *h = p;

	rp_thread_register();
	if (h->shared)
		rp_update_lock_shared(h->sync);
	else
		rp_update_lock(h->sync);
	uatomic_set(&h->inside, 1);
	if (h->other_inside)
		uatomic_set(&h->saw_other, uatomic_read(h->other_inside));
	await_flag(&h->leave);
	uatomic_set(&h->inside, 0);
	if (h->shared)
		rp_update_unlock_shared(h->sync);
	else
		rp_update_unlock(h->sync);
	rp_thread_unregister();
	return NULL;
}

static void start(struct holder *h)
{
	cr_assert_eq(pthread_create(&h->tid, NULL, holder_main, h), 0);
}

static void finish(struct holder *h)
{
	uatomic_set(&h->leave, 1);
	pthread_join(h->tid, NULL);
}

/* Two shared holders are inside at once: they exclude each other by nothing. */
Test(gate, shared_holders_side_by_side)
{
	struct rp_sync sync;
	struct holder a = { .sync = &sync, .shared = true };
	struct holder b = { .sync = &sync, .shared = true };

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	start(&a);
	await_flag(&a.inside);
	start(&b);
	await_flag(&b.inside);
	cr_assert(uatomic_read(&a.inside), "the first shared holder left early");
	finish(&a);
	finish(&b);
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}

/* Shared inside shared nests; shared inside exclusive takes nothing. */
Test(gate, nests)
{
	struct rp_sync sync;

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	rp_update_lock_shared(&sync);
	rp_update_lock_shared(&sync);
	cr_assert(rp_gate_shared_here(&sync));
	cr_assert_not(rp_update_held_here(&sync));
	rp_update_unlock_shared(&sync);
	cr_assert(rp_update_section_here(&sync));
	rp_update_unlock_shared(&sync);
	cr_assert_not(rp_update_section_here(&sync));
	rp_update_lock(&sync);
	rp_update_lock_shared(&sync);
	cr_assert_not(rp_gate_shared_here(&sync));
	rp_update_unlock_shared(&sync);
	cr_assert(rp_update_held_here(&sync));
	rp_update_unlock(&sync);
	cr_assert_eq(sync.gate_closed, 0);
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}

/*
 * rcu-global and the lock modes have no gate: the shared side is the
 * update lock, so a second "shared" holder waits for the first.
 */
Test(gate, shared_is_exclusive_without_gate)
{
	static const enum rp_sync_mode modes[] = { RP_SYNC_RCU_GLOBAL, RP_SYNC_RWLOCK,
						   RP_SYNC_QRWLOCK };

	for (unsigned int i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct rp_sync sync;
		struct holder a = { .sync = &sync, .shared = true };
		struct holder b = { .sync = &sync, .shared = true };

		rp_thread_register();
		rp_sync_init(&sync, modes[i]);
		rp_update_lock_shared(&sync);
		cr_assert(rp_update_held_here(&sync), "%s", rp_sync_mode_name(modes[i]));
		rp_update_unlock_shared(&sync);
		a.other_inside = &b.inside;
		b.other_inside = &a.inside;
		start(&a);
		await_flag(&a.inside);
		start(&b);
		finish(&a);
		await_flag(&b.inside);
		finish(&b);
		cr_assert_not(uatomic_read(&b.saw_other), "%s: two holders inside",
			      rp_sync_mode_name(modes[i]));
		rp_sync_destroy(&sync);
		rp_thread_unregister();
	}
}

/*
 * The shared side's nesting holds in every mode, not in rcu's alone: a
 * converted operation may run inside another (shared in shared) or inside
 * an unconverted one (shared in exclusive), and where the shared side is
 * the update lock that second take must be no take at all, or the thread
 * waits for itself (the lock-order checker aborts first).
 */
Test(gate, nests_in_every_mode)
{
	for (unsigned int m = 0; m < RP_SYNC_NR_NAMED; m++) {
		struct rp_sync sync;
		const char *name = rp_sync_mode_name(m);

		rp_thread_register();
		rp_sync_init(&sync, m);
		rp_update_lock_shared(&sync);
		rp_update_lock_shared(&sync);
		rp_update_unlock_shared(&sync);
		cr_assert(rp_update_section_here(&sync), "%s: the outer shared section ended", name);
		rp_update_unlock_shared(&sync);
		cr_assert_not(rp_update_section_here(&sync), "%s: a shared section left held", name);
		rp_update_lock(&sync);
		rp_update_lock_shared(&sync);
		rp_update_unlock_shared(&sync);
		cr_assert(rp_update_held_here(&sync), "%s: shared inside exclusive let go", name);
		rp_update_unlock(&sync);
		cr_assert_not(rp_update_section_here(&sync), "%s: the update lock left held", name);
		rp_sync_destroy(&sync);
		rp_thread_unregister();
	}
}

#ifdef RP_DEBUG
/*
 * The race points of the shared side: the shared taker is held between
 * its publish and its check (RP_RACE_GATE_SHARED), and after it backed
 * out (RP_RACE_GATE_BACKS_OUT), offline while held.
 */
static struct {
	int hold_shared, at_shared, go_shared;		/* uatomic */
	int hold_backout, at_backout, go_backout;	/* uatomic */
	int hold_closes, at_closes, go_closes;		/* uatomic */
	int excl_waits;					/* uatomic */
} pts;

static void hold_at(int *hold, int *at, const int *go)
{
	if (!uatomic_cmpxchg(hold, 1, 0))
		return;
	uatomic_set(at, 1);
	rp_sync_block_begin();
	await_flag(go);
	rp_sync_block_end();
}

static void gate_hook(enum rp_race_point where, struct rp_task *t)
{
	(void)t;
	if (where == RP_RACE_GATE_SHARED)
		hold_at(&pts.hold_shared, &pts.at_shared, &pts.go_shared);
	else if (where == RP_RACE_GATE_BACKS_OUT)
		hold_at(&pts.hold_backout, &pts.at_backout, &pts.go_backout);
	else if (where == RP_RACE_GATE_CLOSES)
		hold_at(&pts.hold_closes, &pts.at_closes, &pts.go_closes);
	else if (where == RP_RACE_GATE_EXCL_WAITS)
		uatomic_set(&pts.excl_waits, 1);
}

/*
 * A shared taker and an exclusive one at once: the shared one published
 * its row and is held before its check; the exclusive one closes the
 * gate.  It must wait for the shared one, which then finds the gate
 * closed, backs out, and gets in only after the exclusive one left.
 * RP_BREAK_GATE_CHECK_FIRST reads the flag before the publish: the
 * exclusive one finds no row and goes in, the shared one too (both inside).
 */
Test(gate, exclusive_waits_for_shared)
{
	struct rp_sync sync;
	struct holder a = { .sync = &sync, .shared = true };
	struct holder b = { .sync = &sync, .shared = false };
	bool both = false;

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	a.other_inside = &b.inside;
	b.other_inside = &a.inside;
	/* Armed before the shared taker starts, so it cannot pass first. */
	uatomic_set(&pts.hold_shared, 1);
	uatomic_set(&pts.hold_backout, 1);
	rp_debug_race_hook(gate_hook);
	start(&a);
	await_flag(&pts.at_shared);
	start(&b);
	while (!CMM_LOAD_SHARED(sync.gate_closed))
		usleep(1000);
	uatomic_set(&pts.go_shared, 1);
	/* The shared taker either backs out (and is held) or gets in. */
	while (!uatomic_read(&pts.at_backout) && !uatomic_read(&a.inside))
		usleep(1000);
	if (uatomic_read(&a.inside)) {
		await_flag(&b.inside);
		both = true;
	} else {
		await_flag(&b.inside);
		both = uatomic_read(&a.inside);
	}
	uatomic_set(&pts.go_backout, 1);
	finish(&b);
	finish(&a);
	rp_debug_race_hook(NULL);
	cr_assert_not(both, "an exclusive holder and a shared one were inside at once");
	cr_assert_not(uatomic_read(&b.saw_other), "the exclusive holder got in beside a shared one");
	cr_assert_not(uatomic_read(&a.saw_other), "the shared holder got in beside the exclusive one");
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}

/* A thread that holds a thread slot until told (test_gate's slot fillers). */
struct filler {
	pthread_t tid;
	int taken, leave;	/* uatomic */
};

static void *filler_main(void *p)
{
	struct filler *f = p;

	rp_thread_slot();
	uatomic_set(&f->taken, 1);
	await_flag(&f->leave);
	return NULL;
}

/*
 * A new thread whose first take of the gate raises the high-water mark
 * of thread slots while an exclusive taker, holding the update mutex, is
 * held before it closes the gate (RP_RACE_GATE_CLOSES): the new thread
 * finds the gate open and goes in; the exclusive taker, let go, closes it
 * and must find the new row, above the mark as it was when it took the
 * mutex, and wait.  The slots below are all held first (by parked
 * threads), so that the new thread's slot is above the mark.
 * RP_BREAK_GATE_USED_FIRST reads the mark before the hold: its scan stops
 * below the new row and it goes in beside the shared holder.
 */
Test(gate, scan_covers_slot_taken_meanwhile)
{
	struct rp_sync sync;
	struct holder a = { .sync = &sync, .shared = true };
	struct holder b = { .sync = &sync, .shared = false };
	struct filler fill[RP_THREAD_SLOTS];
	unsigned int nfill = 0, mark;

	rp_thread_register();
	rp_sync_init(&sync, RP_SYNC_RCU);
	a.other_inside = &b.inside;
	b.other_inside = &a.inside;
	uatomic_set(&pts.hold_closes, 1);
	rp_debug_race_hook(gate_hook);
	start(&b);
	await_flag(&pts.at_closes);
	/* Every slot below the mark held: the next thread's is a new one. */
	while (rp_debug_slots_taken() < rp_thread_slots_used()) {
		struct filler *f = &fill[nfill++];

		f->taken = f->leave = 0;
		cr_assert_eq(pthread_create(&f->tid, NULL, filler_main, f), 0);
		await_flag(&f->taken);
	}
	mark = rp_thread_slots_used();
	start(&a);
	await_flag(&a.inside);
	cr_assert_gt(rp_thread_slots_used(), mark, "the shared taker's slot is not a new one");
	uatomic_set(&pts.go_closes, 1);
	/* The exclusive taker either waits for the shared holder or (broken) is in. */
	while (!uatomic_read(&pts.excl_waits) && !uatomic_read(&b.inside))
		usleep(1000);
	finish(&a);
	finish(&b);
	rp_debug_race_hook(NULL);
	for (unsigned int i = 0; i < nfill; i++) {
		uatomic_set(&fill[i].leave, 1);
		pthread_join(fill[i].tid, NULL);
	}
	cr_assert_not(uatomic_read(&b.saw_other),
		      "the exclusive holder got in beside a shared one whose slot is new");
	rp_sync_destroy(&sync);
	rp_thread_unregister();
}
#endif
