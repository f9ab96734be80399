/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Type-stable caches of table objects (cache.h), after Linux's mm/slab_common.c. */
#include "cache.h"
#include "shared.h"
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define RP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RP_ASAN 1
#endif
#endif
#ifdef RP_ASAN
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#define ASAN_UNPOISON_MEMORY_REGION(p, n) ((void)(p), (void)(n))
#endif

/*
 * Every cache that has held an object: for rp_cache_shrink_all.  The lock
 * order of the caches' locks, all leaves of the table's order: caches_lock,
 * then a magazine's lock, then a depot's lock.
 */
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rp_cache *caches;		/* caches_lock */

unsigned int rp_cache_bound(const struct rp_cache *cache)
{
	size_t by_bytes = RP_CACHE_BYTES / cache->size;

	return by_bytes < RP_CACHE_SLOTS ? (unsigned int)by_bytes : RP_CACHE_SLOTS;
}

/* Under the depot's lock: take an object out, or NULL to go to malloc. */
static void *depot_take(struct rp_cache *cache, bool poisoned)
{
	unsigned int k;

	if (!poisoned) {
		if (!cache->nr)
			return NULL;
		k = (cache->first + cache->nr - 1) % RP_CACHE_SLOTS;	/* the newest */
		CMM_STORE_SHARED(cache->nr, cache->nr - 1);
		return cache->slots[k];
	}
	/* Poisoning: the oldest, once half the bound waits behind it. */
	if (cache->nr <= rp_cache_bound(cache) / 2)
		return NULL;
	k = cache->first;
	cache->first = (k + 1) % RP_CACHE_SLOTS;
	CMM_STORE_SHARED(cache->nr, cache->nr - 1);
	return cache->slots[k];
}

/* Under the depot's lock: add @p as its newest, if the bound leaves room. */
static bool depot_put(struct rp_cache *cache, void *p)
{
	if (cache->nr >= rp_cache_bound(cache))
		return false;
	cache->slots[(cache->first + cache->nr) % RP_CACHE_SLOTS] = p;
	CMM_STORE_SHARED(cache->nr, cache->nr + 1);
	return true;
}

static void depot_lock(struct rp_cache *cache)
{
	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&cache->lock);
}

/* The calling thread's magazine of @cache, locked. */
static struct rp_cache_mag *mag_lock(struct rp_cache *cache)
{
	unsigned int slot = rp_thread_slot();
	struct rp_cache_mag *mag = &cache->mags[slot];

	if (slot == RP_SLOT_SHARED)
		rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&mag->lock);
	return mag;
}

/*
 * Under @mag's lock, its loaded objects all handed out: take a magazine's
 * worth from the depot, in the depot's order (newest first; poisoning:
 * oldest first, each with half the bound behind it).  The depot's count,
 * read first without its lock, spares the lock when there is nothing to
 * take: a read, not a shared write.
 */
static void mag_load(struct rp_cache *cache, struct rp_cache_mag *mag, bool poisoned)
{
	void *taken[RP_CACHE_MAG], *p;
	unsigned int n = 0, have = CMM_LOAD_SHARED(cache->nr);

	if (poisoned ? have <= rp_cache_bound(cache) / 2 : !have)
		return;
	depot_lock(cache);
	while (n < RP_CACHE_MAG && (p = depot_take(cache, poisoned)))
		taken[n++] = p;
	pthread_mutex_unlock(&cache->lock);
	/* The first taken is handed out first: the last of the array. */
	for (unsigned int i = 0; i < n; i++)
		mag->loaded[n - 1 - i] = taken[i];
	mag->nr_loaded = n;
}

/*
 * The objects a ring of @cache holds: RP_CACHE_RING, fewer for a big type;
 * with poisoning twice that, so that beside the half the quarantine keeps
 * back there is the same room as without, and a thread's reclaim batch
 * comes back to it in debug builds as in release ones (the hand-overs the
 * debug counters see are those of release builds).
 * RP_BREAK_RING_THROUGH_DEPOT holds a load's worth, RP_CACHE_MAG, as the
 * magazines did before the rings: most of a reclaim batch then goes
 * through the shared depot, and the other thread's forks take it.
 */
static unsigned int ring_cap(const struct rp_cache *cache, bool poisoned)
{
	size_t by_bytes = RP_CACHE_RING_BYTES / cache->size;
	unsigned int cap;

#ifdef RP_BREAK_RING_THROUGH_DEPOT
	by_bytes = 0;
#endif
	if (by_bytes < RP_CACHE_MAG)
		return RP_CACHE_MAG;
	cap = by_bytes < RP_CACHE_RING ? (unsigned int)by_bytes : RP_CACHE_RING;
	return poisoned ? 2 * cap : cap;
}

unsigned int rp_cache_ring_cap(const struct rp_cache *cache)
{
	return ring_cap(cache, rp_alloc_poisoning());
}

/* Under @mag's lock: the ring's oldest object, taken out. */
static void *ring_oldest(struct rp_cache_mag *mag)
{
	void *p = mag->ring[mag->first];

	mag->first = (mag->first + 1) % mag->cap;
	mag->nr_freed--;
	return p;
}

/*
 * RP_BREAK_MAG_REUSES_POISONED: with poisoning on, a thread hands out the
 * objects it gave back itself, newest first, as with poisoning off, and a
 * freed object comes back without half the ring waiting behind it.
 */
#ifdef RP_BREAK_MAG_REUSES_POISONED
#define QUARANTINED(poisoned) false
#else
#define QUARANTINED(poisoned) (poisoned)
#endif

/*
 * Under @mag's lock: an object to hand out, or NULL to go to malloc.  The
 * ring's newest, the warmest; with poisoning its oldest, once half the
 * ring waits behind it; then the depot's.
 */
static void *mag_take(struct rp_cache *cache, struct rp_cache_mag *mag, bool poisoned)
{
	if (!QUARANTINED(poisoned) && mag->nr_freed) {
		mag->nr_freed--;
		return mag->ring[(mag->first + mag->nr_freed) % mag->cap];
	}
	if (QUARANTINED(poisoned) && mag->nr_freed > mag->cap / 2)
		return ring_oldest(mag);
	if (!mag->nr_loaded)
		mag_load(cache, mag, poisoned);
	return mag->nr_loaded ? mag->loaded[--mag->nr_loaded] : NULL;
}

void *rp_cache_zalloc_at(struct rp_alloc_site *site, struct rp_cache *cache)
{
	bool poisoned = rp_alloc_poisoning();
	struct rp_cache_mag *mag;
	void *p;

	if (!rp_alloc_admit(site))
		return NULL;
	mag = mag_lock(cache);
	p = mag_take(cache, mag, poisoned);
	pthread_mutex_unlock(&mag->lock);
	if (!p)
		return rp_alloc_zeroed(cache->size);
	ASAN_UNPOISON_MEMORY_REGION(p, cache->size);
	if (poisoned)
		rp_alloc_check_poison(p);
	memset(p, 0, cache->size);
	rp_alloc_count(1);
	return p;
}

/* Put @cache on the list of caches, before it first holds an object. */
static void cache_list(struct rp_cache *cache)
{
	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&caches_lock);
	if (!cache->listed) {
		cache->next = caches;
		caches = cache;
		CMM_STORE_SHARED(cache->listed, true);
	}
	pthread_mutex_unlock(&caches_lock);
}

/* Under the depot's lock: @o to the depot, or past its bound to @spill[*@n]. */
static void depot_put_or_spill(struct rp_cache *cache, void *o, void **spill, unsigned int *n)
{
	if (!depot_put(cache, o))
		spill[(*n)++] = o;
}

/*
 * Under @mag's lock, its ring full: its oldest RP_CACHE_MAG objects to the
 * depot, oldest first, so that the depot's order stays the order of the
 * frees; those past its bound go to @spill (how many: the result).
 */
static unsigned int ring_unload(struct rp_cache *cache, struct rp_cache_mag *mag,
				void *spill[RP_CACHE_MAG])
{
	unsigned int n = 0;

	depot_lock(cache);
	for (unsigned int i = 0; i < RP_CACHE_MAG && mag->nr_freed; i++)
		depot_put_or_spill(cache, ring_oldest(mag), spill, &n);
	pthread_mutex_unlock(&cache->lock);
	return n;
}

/* @p straight to the depot (no ring to keep it): 1 if it went to @spill instead. */
static unsigned int depot_give(struct rp_cache *cache, void *p, void *spill[1])
{
	unsigned int n = 0;

	depot_lock(cache);
	depot_put_or_spill(cache, p, spill, &n);
	pthread_mutex_unlock(&cache->lock);
	return n;
}

/* @p, poisoned for ASan if it was cached, back to malloc. */
static void cache_release(struct rp_cache *cache, void *p)
{
	ASAN_UNPOISON_MEMORY_REGION(p, cache->size);
	rp_alloc_release(p);
}

__thread bool rp_cache_release_for_others;

/*
 * @p into the calling thread's ring (its oldest RP_CACHE_MAG to the depot
 * if it is full), or to the depot if no ring could be had: how many went
 * to @spill instead.
 */
static unsigned int mag_give(struct rp_cache *cache, void *p, bool poisoned,
			     void *spill[RP_CACHE_MAG])
{
	struct rp_cache_mag *mag = mag_lock(cache);
	unsigned int n = 0;

	/* The ring is plain malloc's: it is the cache's own, neither counted nor injected. */
	if (!mag->ring) {
		mag->cap = ring_cap(cache, poisoned);
		mag->ring = malloc(mag->cap * sizeof(*mag->ring));
	}
	if (!mag->ring) {
		n = depot_give(cache, p, spill);
	} else {
		if (mag->nr_freed == mag->cap)
			n = ring_unload(cache, mag, spill);
		mag->ring[(mag->first + mag->nr_freed) % mag->cap] = p;
		mag->nr_freed++;
	}
	pthread_mutex_unlock(&mag->lock);
	return n;
}

void rp_cache_free(struct rp_cache *cache, void *p)
{
	void *spill[RP_CACHE_MAG];
	bool poisoned = rp_alloc_poisoning();
	unsigned int n;

	if (!p)
		return;
	rp_alloc_count(-1);
	if (poisoned)
		rp_alloc_poison(p);
	ASAN_POISON_MEMORY_REGION(p, cache->size);
	if (!CMM_LOAD_SHARED(cache->listed))
		cache_list(cache);
	n = rp_cache_release_for_others ? depot_give(cache, p, spill) :
					  mag_give(cache, p, poisoned, spill);
	for (unsigned int i = 0; i < n; i++)
		cache_release(cache, spill[i]);
}

unsigned int rp_cache_count(struct rp_cache *cache)
{
	unsigned int nr;

	depot_lock(cache);
	nr = cache->nr;
	pthread_mutex_unlock(&cache->lock);
	for (unsigned int k = 0; k < RP_SLOT_ROWS; k++) {
		struct rp_cache_mag *mag = &cache->mags[k];

		pthread_mutex_lock(&mag->lock);
		nr += mag->nr_freed + mag->nr_loaded;
		pthread_mutex_unlock(&mag->lock);
	}
	return nr;
}

/*
 * RP_BREAK_SHRINK_DEPOT_ONLY: the shrink empties the depots alone, as when
 * there was nothing else, and what the threads' magazines hold, an ended
 * thread's too, stays cached.
 */
#ifdef RP_BREAK_SHRINK_DEPOT_ONLY
#define SHRINKS_MAGS false
#else
#define SHRINKS_MAGS true
#endif

/* Empty @cache, every magazine and the depot: their objects go back to malloc. */
static void cache_shrink(struct rp_cache *cache)
{
	for (unsigned int k = 0; SHRINKS_MAGS && k < RP_SLOT_ROWS; k++) {
		struct rp_cache_mag *mag = &cache->mags[k];

		pthread_mutex_lock(&mag->lock);
		while (mag->nr_freed)
			cache_release(cache, ring_oldest(mag));
		while (mag->nr_loaded)
			cache_release(cache, mag->loaded[--mag->nr_loaded]);
		free(mag->ring);
		mag->ring = NULL;
		mag->first = 0;
		pthread_mutex_unlock(&mag->lock);
	}
	depot_lock(cache);
	while (cache->nr)
		cache_release(cache, depot_take(cache, false));
	pthread_mutex_unlock(&cache->lock);
}

void rp_cache_shrink_all(void)
{
	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&caches_lock);
	for (struct rp_cache *c = caches; c; c = c->next)
		cache_shrink(c);
	pthread_mutex_unlock(&caches_lock);
}
