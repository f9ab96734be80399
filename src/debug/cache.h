/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Type-stable caches of table objects, after Linux's slab caches
 * (mm/slab_common.c, kmem_cache_alloc and kmem_cache_free): one cache per
 * object type takes objects back once they are dead and hands them to the
 * next allocation of that type warm, instead of going through malloc.
 *
 * The caller gives an object back only when no reader can hold it any more:
 * from its rp_defer_release callback, after the grace period in rcu mode.
 * Nothing is reused inside a grace period (no SLAB_TYPESAFE_BY_RCU).
 * Allocations pass the same fault injection as rp_zalloc (each call of
 * rp_cache_zalloc is a site).  With poisoning on (debug builds) an object
 * waits in the cache poisoned, and under ASan unaddressable, and is
 * checked and zeroed when handed out; the cache is then first in, first
 * out and keeps half its bound back, as the quarantine of rp_free does.
 * Otherwise it is last in, first out: the warmest object goes first.
 *
 * Per thread, after the magazines of Linux's per-CPU slabs (mm/slub.c,
 * the per-CPU freelist and its slab exchange; Bonwick's magazines): each
 * thread slot (threadslot.h) has a magazine of each cache, under the
 * magazine's own lock, which no other thread takes but the shrink and the
 * count.  Its ring keeps the objects its thread gives back, and hands
 * them to that thread's next allocations: a thread releases its own
 * reclaim batch (src/sync/sync.c), so what it freed comes back to it,
 * still in its CPU's cache, and no block with its locks moves between
 * threads (a block that did was a cache-line transfer for each of its
 * lines; docs/performance.md).  The ring holds a reclaim batch's worth of
 * one type, RP_CACHE_RING objects but RP_CACHE_RING_BYTES at most, taken
 * from malloc at the thread's first give-back to the cache (twice that
 * with poisoning, below).  Only a full
 * ring (its oldest RP_CACHE_MAG go to the cache's shared depot) or an
 * empty one (RP_CACHE_MAG are loaded from the depot) takes the depot's
 * lock, so that forks on different threads share no lock.  A magazine
 * outlives its thread, as the counter rows do: the next thread of the
 * slot goes on with it.  Threads past the slots share the shared slot's
 * magazine, whose lock is a shared write.
 *
 * With poisoning, a thread's ring is its first quarantine: it hands out
 * its oldest object only while half its capacity waits behind it, and the
 * depot keeps half its bound back after that.  The ring is then twice as
 * big, so that the objects handed out come from the same thread as
 * without poisoning.
 *
 * Bounded: the depot holds at most rp_cache_bound objects (one given back
 * to a full depot goes back to malloc), a ring its capacity, a magazine's
 * loaded objects RP_CACHE_MAG, and rp_cache_shrink_all empties every
 * magazine and depot and gives the rings back.
 */
#ifndef RP_DEBUG_CACHE_H
#define RP_DEBUG_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "alloc.h"
#include "threadslot.h"

/* The most objects a depot holds, and the most bytes. */
#define RP_CACHE_SLOTS		1024
#define RP_CACHE_BYTES		(4UL << 20)

/* The objects a magazine loads from the depot or unloads to it at once. */
#define RP_CACHE_MAG		16

/* A ring's objects: a reclaim batch's worth (RP_DEFERRED_RECLAIM), and its bytes. */
#define RP_CACHE_RING		1024
#define RP_CACHE_RING_BYTES	(512UL << 10)

/*
 * A thread slot's magazine.  @ring: the objects this thread gave back,
 * @nr_freed of them from slot @first on, oldest first, in @cap slots
 * (NULL until the first give-back).  @loaded: objects taken from the
 * depot, the next to hand out last.
 */
struct rp_cache_mag {
	pthread_mutex_t lock;		/* its thread's; the shrink's and the count's */
	unsigned int first;		/* lock */
	unsigned int nr_freed;		/* lock */
	unsigned int nr_loaded;		/* lock */
	unsigned int cap;		/* lock */
	void **ring;			/* lock */
	void *loaded[RP_CACHE_MAG];	/* lock */
} __attribute__((aligned(RP_CACHE_LINE)));

struct rp_cache {
	const char *name;		/* constant */
	size_t size;			/* constant: bytes per object */
	/* The depot, shared by every thread. */
	pthread_mutex_t lock;		/* taken under a magazine's lock, nothing under it */
	void *slots[RP_CACHE_SLOTS];	/* lock: a ring of dead objects */
	unsigned int first;		/* lock: the oldest object's slot */
	unsigned int nr;		/* lock, shared loads: objects held */
	bool listed;			/* cache.c's caches_lock, shared loads: on its list */
	struct rp_cache *next;		/* cache.c's list: under its lock */
	struct rp_cache_mag mags[RP_SLOT_ROWS];	/* one per thread slot */
};

/* A cache of objects of @type, named @name; a static definition's initializer. */
#define RP_CACHE_INIT(name_, type)					\
	{								\
		.name = (name_), .size = sizeof(type),			\
		.lock = PTHREAD_MUTEX_INITIALIZER,			\
		.mags = { [0 ... RP_SLOT_ROWS - 1] = {			\
			.lock = PTHREAD_MUTEX_INITIALIZER } },		\
	}

/* A zeroed object of @cache's type, or NULL (ENOMEM, or an injected failure). */
#define rp_cache_zalloc(cache) ({					\
	static struct rp_alloc_site rp_site_ = { __FILE__, __LINE__, -1 };	\
	rp_cache_zalloc_at(&rp_site_, (cache));				\
})

void *rp_cache_zalloc_at(struct rp_alloc_site *site, struct rp_cache *cache);

/* Give @p back to @cache: no reader may hold it any more. */
void rp_cache_free(struct rp_cache *cache, void *p);

/*
 * Set on a thread that releases what other threads gave up (liburcu's
 * call_rcu worker, the grace-period thread's stale batches): what it gives
 * back goes to the depot, where the threads that allocate find it, not to
 * a ring of its own that no allocation of its would ever empty.
 */
extern __thread bool rp_cache_release_for_others;

/* The most objects @cache's depot holds. */
unsigned int rp_cache_bound(const struct rp_cache *cache);

/* The most objects a thread's ring of @cache holds, poisoning as it is now. */
unsigned int rp_cache_ring_cap(const struct rp_cache *cache);

/* Objects @cache holds now, in its depot and its magazines. */
unsigned int rp_cache_count(struct rp_cache *cache);

/* Give every cached object of every cache, magazines and depots, back to malloc. */
void rp_cache_shrink_all(void);

#endif /* RP_DEBUG_CACHE_H */
