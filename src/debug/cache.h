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
 * Bounded (rp_cache_bound): an object given back to a full cache goes back
 * to malloc, and rp_cache_shrink_all empties every cache.
 */
#ifndef RP_DEBUG_CACHE_H
#define RP_DEBUG_CACHE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include "alloc.h"

/* The most objects a cache holds, and the most bytes. */
#define RP_CACHE_SLOTS		1024
#define RP_CACHE_BYTES		(4UL << 20)

struct rp_cache {
	const char *name;		/* constant */
	size_t size;			/* constant: bytes per object */
	pthread_mutex_t lock;		/* a leaf: nothing is taken under it */
	void *slots[RP_CACHE_SLOTS];	/* lock: a ring of dead objects */
	unsigned int first;		/* lock: the oldest object's slot */
	unsigned int nr;		/* lock: objects held */
	bool listed;			/* lock: on cache.c's list of caches */
	struct rp_cache *next;		/* cache.c's list: under its lock */
};

/* A cache of objects of @type, named @name; a static definition's initializer. */
#define RP_CACHE_INIT(name_, type) \
	{ .name = (name_), .size = sizeof(type), .lock = PTHREAD_MUTEX_INITIALIZER }

/* A zeroed object of @cache's type, or NULL (ENOMEM, or an injected failure). */
#define rp_cache_zalloc(cache) ({					\
	static struct rp_alloc_site rp_site_ = { __FILE__, __LINE__, -1 };	\
	rp_cache_zalloc_at(&rp_site_, (cache));				\
})

void *rp_cache_zalloc_at(struct rp_alloc_site *site, struct rp_cache *cache);

/* Give @p back to @cache: no reader may hold it any more. */
void rp_cache_free(struct rp_cache *cache, void *p);

/* The most objects @cache holds. */
unsigned int rp_cache_bound(const struct rp_cache *cache);

/* Objects @cache holds now. */
unsigned int rp_cache_count(struct rp_cache *cache);

/* Give every cached object of every cache back to malloc. */
void rp_cache_shrink_all(void);

#endif /* RP_DEBUG_CACHE_H */
