/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pid hash's writers without the update lock (src/task/bucket.h): in
 * rcu mode the inserts and removals of one chain exclude each other by
 * the chain's bucket lock, B, alone; in the lock modes the global write
 * lock does, and an insert without it is a bug the debug build stops.
 * The tests call the hash's functions directly, holding nothing.
 */
#include <limits.h>
#include <criterion/criterion.h>
#include "../common.h"
#include "../fixture/racehold.h"
#include "task/task.h"

/* Pids of numbers no process has (the system's pid_max is 1000). */
#define FAR_NR	100000
#define NPIDS	3

static struct rp_tid pids[NPIDS];

/* pids[0..NPIDS-1] numbered alike for the hash: one bucket, so one stripe of B. */
static void number_pids(void)
{
	unsigned int b = rp_pid_hash_index(FAR_NR);
	int n = 0;

	for (int nr = FAR_NR; n < NPIDS && nr < RP_PID_MAX_LIMIT; nr++) {
		if (rp_pid_hash_index(nr) != b)
			continue;
		memset(&pids[n], 0, sizeof(pids[n]));
		pids[n].sys = sys;
		pids[n].pid.nr = nr;
		n++;
	}
	cr_assert_eq(n, NPIDS, "no %d numbers share a bucket", NPIDS);
}

static void setup(void)
{
	start_with(RP_SYNC_RCU, 1000);
	number_pids();
}

static bool found(struct rp_tid *tid)
{
	bool there;

	rp_read_lock(&sys->sync);
	there = rp_pid_find_rcu(sys, tid->pid.nr) == &tid->pid;
	rp_read_unlock(&sys->sync);
	return there;
}

static long add_job(struct job *j)
{
	rp_pid_hash_add(&pids[j->arg].pid);
	return 0;
}

/*
 * Thread A puts pids[0] into the bucket and is held inside its insert
 * (RP_RACE_BUCKET_ADD: the chain's first node read, its own not yet
 * published), until a writer of the same chain waits for the bucket lock
 * (RP_RACE_BUCKET_WAITS), which lets A go; a writer that does not wait
 * acts while A is held.  This thread's @act on @other is that writer.
 * A's insert stands either way.
 */
static void while_insert_held(void (*act)(struct rp_pid *), struct rp_tid *other)
{
	struct job a = { .arg = 0 };

	arm_until(RP_RACE_BUCKET_ADD, NULL, RP_RACE_BUCKET_WAITS);
	job_start(&a, add_job, NULL);
	cr_assert(await_reached(UINT_MAX));
	act(&other->pid);
	release();
	job_join(&a);
	rp_debug_race_hook(NULL);
	cr_assert(found(&pids[0]), "the held insert lost");
}

/*
 * insert_race: A is held inside its insert of pids[0] while this thread
 * inserts pids[1] into the same chain.  This insert waits for B, which
 * lets A finish first: both are found.  With no bucket lock
 * (RP_BREAK_BUCKET_UNLOCKED) pids[1] goes in while A is held, and A then
 * publishes its pid ahead of the chain it read before, empty: pids[1] is
 * lost, every time.
 */
Test(pid_hash, insert_race, .init = setup, .fini = stop_system)
{
	while_insert_held(rp_pid_hash_add, &pids[1]);
	cr_assert(found(&pids[1]), "an insert into the chain while another was inside it lost");
	rp_pid_hash_del(&pids[0].pid);
	rp_pid_hash_del(&pids[1].pid);
	cr_assert_not(found(&pids[0]) || found(&pids[1]));
}

/*
 * remove_race: pids[2] is on the chain; A is held inside its insert of
 * pids[0], having read pids[2] as the chain's first, while this thread
 * removes pids[2].  The removal waits for B: A's insert completes, and the
 * removal takes pids[2] from behind pids[0].  With no bucket lock the
 * removal runs while A is held, and A then links its pid to pids[2], which
 * is back on the chain after its removal (and would be freed under
 * readers): found, every time.
 */
Test(pid_hash, remove_race, .init = setup, .fini = stop_system)
{
	rp_pid_hash_add(&pids[2].pid);
	while_insert_held(rp_pid_hash_del, &pids[2]);
	cr_assert_not(found(&pids[2]), "a removed pid back on the chain");
	rp_pid_hash_del(&pids[0].pid);
	cr_assert_not(found(&pids[0]));
}

/*
 * The lock modes take no bucket lock: the global write lock excludes the
 * other writers, and a write without it stops the debug build.
 */
static void setup_rwlock(void)
{
	start_with(RP_SYNC_RWLOCK, 1000);
	number_pids();
}

Test(pid_hash, lock_mode_insert_needs_write_lock, .init = setup_rwlock, .signal = SIGABRT)
{
	rp_pid_hash_add(&pids[0].pid);
}

Test(pid_hash, lock_mode_under_write_lock, .init = setup_rwlock, .fini = stop_system)
{
	rp_update_lock(&sys->sync);
	rp_pid_hash_add(&pids[0].pid);
	rp_update_unlock(&sys->sync);
	cr_assert(found(&pids[0]));
	rp_update_lock(&sys->sync);
	rp_pid_hash_del(&pids[0].pid);
	rp_update_unlock(&sys->sync);
	cr_assert_not(found(&pids[0]));
}
