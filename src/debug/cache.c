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

/* Every cache that has held an object: for rp_cache_shrink_all. */
static pthread_mutex_t caches_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rp_cache *caches;		/* caches_lock */

unsigned int rp_cache_bound(const struct rp_cache *cache)
{
	size_t by_bytes = RP_CACHE_BYTES / cache->size;

	return by_bytes < RP_CACHE_SLOTS ? (unsigned int)by_bytes : RP_CACHE_SLOTS;
}

/* Under @cache's lock: take an object out, or NULL to go to malloc. */
static void *cache_take(struct rp_cache *cache, bool poisoned)
{
	unsigned int k;

	if (!poisoned) {
		if (!cache->nr)
			return NULL;
		k = (cache->first + --cache->nr) % RP_CACHE_SLOTS;	/* the newest */
		return cache->slots[k];
	}
	/* Poisoning: the oldest, once half the bound waits behind it. */
	if (cache->nr <= rp_cache_bound(cache) / 2)
		return NULL;
	k = cache->first;
	cache->first = (k + 1) % RP_CACHE_SLOTS;
	cache->nr--;
	return cache->slots[k];
}

void *rp_cache_zalloc_at(struct rp_alloc_site *site, struct rp_cache *cache)
{
	bool poisoned = rp_alloc_poisoning();
	void *p;

	if (!rp_alloc_admit(site))
		return NULL;
	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&cache->lock);
	p = cache_take(cache, poisoned);
	pthread_mutex_unlock(&cache->lock);
	if (!p)
		return rp_alloc_zeroed(cache->size);
	ASAN_UNPOISON_MEMORY_REGION(p, cache->size);
	if (poisoned)
		rp_alloc_check_poison(p);
	memset(p, 0, cache->size);
	rp_alloc_count(1);
	return p;
}

/* Put @cache on the list of caches, the first time it holds an object. */
static void cache_list(struct rp_cache *cache)
{
	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&caches_lock);
	cache->next = caches;
	caches = cache;
	pthread_mutex_unlock(&caches_lock);
}

void rp_cache_free(struct rp_cache *cache, void *p)
{
	bool kept = false, first_use = false;

	if (!p)
		return;
	rp_alloc_count(-1);
	if (rp_alloc_poisoning())
		rp_alloc_poison(p);
	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&cache->lock);
	if (cache->nr < rp_cache_bound(cache)) {
		cache->slots[(cache->first + cache->nr++) % RP_CACHE_SLOTS] = p;
		ASAN_POISON_MEMORY_REGION(p, cache->size);
		first_use = !cache->listed;
		cache->listed = true;
		kept = true;
	}
	pthread_mutex_unlock(&cache->lock);
	if (first_use)
		cache_list(cache);
	if (!kept)
		rp_alloc_release(p);
}

unsigned int rp_cache_count(struct rp_cache *cache)
{
	unsigned int nr;

	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&cache->lock);
	nr = cache->nr;
	pthread_mutex_unlock(&cache->lock);
	return nr;
}

/* Empty @cache: its objects go back to malloc. */
static void cache_shrink(struct rp_cache *cache)
{
	void *p;

	rp_shared_write(RP_SHARED_CACHE_LOCK);
	pthread_mutex_lock(&cache->lock);
	while (cache->nr) {
		p = cache->slots[cache->first];
		cache->first = (cache->first + 1) % RP_CACHE_SLOTS;
		cache->nr--;
		ASAN_UNPOISON_MEMORY_REGION(p, cache->size);
		rp_alloc_release(p);
	}
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
