/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tests of the type caches' per-thread magazines (src/debug/cache.h): what
 * a thread held when it ended is neither lost nor leaked, rp_cache_shrink_all
 * gives back what every thread holds, and with poisoning on a given-back
 * object waits behind half its thread's ring.
 */
#include <pthread.h>
#include <criterion/criterion.h>
#include "debug/cache.h"
#include "debug/fault.h"
#include "debug/threadslot.h"

struct object {
	unsigned long word[8];
};

static struct rp_cache test_cache = RP_CACHE_INIT("test", struct object);

/* Objects a thread takes and gives back: three magazines' worth. */
#define HELD	(3 * RP_CACHE_MAG)

struct holder {
	struct object *objs[HELD];
};

/* Take HELD objects, give them all back, and end: they stay cached. */
static void *take_and_give_back(void *arg)
{
	struct holder *h = arg;

	for (int i = 0; i < HELD; i++)
		h->objs[i] = rp_cache_zalloc(&test_cache);
	for (int i = 0; i < HELD; i++)
		rp_cache_free(&test_cache, h->objs[i]);
	return NULL;
}

/* Take one object: the one in *@arg. */
static void *take_one(void *arg)
{
	*(struct object **)arg = rp_cache_zalloc(&test_cache);
	return NULL;
}

static bool held_by(const struct holder *h, const struct object *o)
{
	for (int i = 0; i < HELD; i++)
		if (h->objs[i] == o)
			return true;
	return false;
}

/*
 * A thread's magazine outlives it: what it gave back is still counted, and
 * the next thread of its slot is handed it; rp_cache_shrink_all then gives
 * everything back, magazines and depot, and nothing counts as live.
 * RP_BREAK_SHRINK_DEPOT_ONLY (the shrink leaves the magazines) leaves the
 * ended thread's last magazine cached, every time.
 */
Test(cache, thread_leftovers_kept_then_shrunk)
{
	bool poison = rp_debug_set_poison(false);	/* newest first: the reuse is visible */
	unsigned long live = rp_debug_live_objects();
	struct holder h = { { 0 } };
	struct object *again = NULL;
	pthread_t t;

	cr_assert_eq(pthread_create(&t, NULL, take_and_give_back, &h), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	for (int i = 0; i < HELD; i++)
		cr_assert_not_null(h.objs[i]);
	cr_expect_eq(rp_cache_count(&test_cache), HELD, "%u cached after the thread ended",
		     rp_cache_count(&test_cache));
	cr_expect_eq(rp_debug_live_objects(), live);
	cr_assert_eq(pthread_create(&t, NULL, take_one, &again), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	cr_expect(held_by(&h, again), "the ended thread's objects were not handed out again");
	rp_cache_free(&test_cache, again);
	rp_cache_shrink_all();
	cr_expect_eq(rp_cache_count(&test_cache), 0, "%u left after the shrink",
		     rp_cache_count(&test_cache));
	cr_expect_eq(rp_debug_live_objects(), live);
	rp_debug_set_poison(poison);
}

/* Take HELD objects and give them back as a thread that releases for others. */
static void *give_back_for_others(void *arg)
{
	rp_cache_release_for_others = true;
	return take_and_give_back(arg);
}

/*
 * What a thread that releases for others gives back (liburcu's worker,
 * the grace-period thread) goes to the depot, and another thread's
 * allocations take it there; kept in that thread's own ring, which no
 * allocation of its empties, it would sit there until the shrink.
 */
Test(cache, released_for_others_to_the_depot)
{
	bool poison = rp_debug_set_poison(false);	/* the depot newest first, none kept back */
	struct holder h = { { 0 } }, again = { { 0 } };
	pthread_t t;

	rp_cache_shrink_all();
	(void)rp_thread_slot();		/* ours before the other's: its slot is not handed to us */
	cr_assert_eq(pthread_create(&t, NULL, give_back_for_others, &h), 0);
	cr_assert_eq(pthread_join(t, NULL), 0);
	for (int i = 0; i < HELD; i++) {
		again.objs[i] = rp_cache_zalloc(&test_cache);
		cr_expect(held_by(&h, again.objs[i]), "allocation %d did not come from the depot", i);
	}
	for (int i = 0; i < HELD; i++)
		rp_cache_free(&test_cache, again.objs[i]);
	rp_cache_shrink_all();
	rp_debug_set_poison(poison);
}

/*
 * Poisoning: objects given back by this thread, fewer than half its ring,
 * are not handed out again; once half the ring waits behind the first, it
 * is the first handed out.  RP_BREAK_MAG_REUSES_POISONED (a magazine hands
 * out its own given-back objects, newest first) hands out the last one at
 * once.
 */
Test(cache, poisoned_wait_behind_half_the_ring)
{
	bool poison = rp_debug_set_poison(true);
	unsigned int half = rp_cache_ring_cap(&test_cache) / 2, n = half + 2 * RP_CACHE_MAG;
	struct object **objs = calloc(n, sizeof(*objs)), *more[2 * RP_CACHE_MAG], *o;

	cr_assert_not_null(objs);
	for (unsigned int i = 0; i < n; i++)
		objs[i] = rp_cache_zalloc(&test_cache);
	for (unsigned int i = 0; i < half; i++)
		rp_cache_free(&test_cache, objs[i]);
	for (int i = 0; i < 2 * RP_CACHE_MAG; i++) {
		more[i] = rp_cache_zalloc(&test_cache);
		for (unsigned int k = 0; k < half; k++)
			cr_assert_neq(more[i], objs[k], "object %u of the %u given back handed out again",
				      k, half);
	}
	for (int i = 0; i < 2 * RP_CACHE_MAG; i++)
		rp_cache_free(&test_cache, more[i]);
	for (unsigned int i = half; i < n; i++)
		rp_cache_free(&test_cache, objs[i]);
	o = rp_cache_zalloc(&test_cache);
	cr_expect_eq(o, objs[0], "not the oldest handed out first");
	rp_cache_free(&test_cache, o);
	rp_cache_shrink_all();
	free(objs);
	rp_debug_set_poison(poison);
}
