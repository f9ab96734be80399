/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Table allocations: site registry, fault injection, poisoning (fault.h). */
#include "alloc.h"
#include "bug.h"
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/uatomic.h>
#include "cache.h"
#include "fault.h"
#include "threadslot.h"

#define MAX_SITES	256
#define SITE_NAME_LEN	80

enum inject { INJECT_NONE, INJECT_SITE, INJECT_RANDOM };

static pthread_mutex_t sites_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rp_alloc_site *sites[MAX_SITES];	/* sites_lock; read after nr_sites */
static char site_names[MAX_SITES][SITE_NAME_LEN]; /* written before nr_sites grows */
static unsigned int nr_sites;			/* atomic */

/* The injection armed; set while no operation runs (debug.h), read atomically. */
static int inject_mode = INJECT_NONE;
static struct rp_alloc_site *fail_site;
static long fail_countdown;			/* atomic: fail_site's calls to go; 0 fails */
static uint64_t fail_threshold;			/* random: fail if draw < threshold */
static uint64_t fail_seed;
static unsigned long random_calls;		/* atomic: draws so far */

/*
 * The counters every allocation and free moves, one row per thread slot
 * (threadslot.h: written by the slot's thread alone, summed on demand).
 * The atomics above are the injection's, written only while one is armed.
 */
struct alloc_row {
	unsigned long live;			/* objects allocated less freed */
	unsigned long failures;			/* injected failures */
	unsigned long calls[MAX_SITES];		/* calls that reached each site */
} __attribute__((aligned(RP_CACHE_LINE)));

static struct alloc_row rows[RP_SLOT_ROWS];
#ifdef RP_DEBUG
static bool poison = true;
#else
static bool poison;
#endif

/* "../src/proc/fork.c" as "src/proc/fork.c". */
static const char *short_file(const char *file)
{
	while (!strncmp(file, "../", 3))
		file += 3;
	return file;
}

static void register_site(struct rp_alloc_site *site)
{
	pthread_mutex_lock(&sites_lock);
	RP_BUG_ON_MSG(site->index < 0 && nr_sites == MAX_SITES,
		      "more than %d allocation sites: raise MAX_SITES", MAX_SITES);
	if (site->index < 0) {
		unsigned int k = nr_sites;

		sites[k] = site;
		snprintf(site_names[k], SITE_NAME_LEN, "%s:%d", short_file(site->file), site->line);
		uatomic_set(&site->index, (int)k);
		/* Publishes sites[k] and its name; pairs with the rmb in site_at(). */
		cmm_smp_wmb();
		uatomic_set(&nr_sites, k + 1);
	}
	pthread_mutex_unlock(&sites_lock);
}

static struct rp_alloc_site *site_at(unsigned int k)
{
	if (k >= uatomic_read(&nr_sites))
		return NULL;
	/* Pairs with the wmb before nr_sites grows in register_site(). */
	cmm_smp_rmb();
	return sites[k];
}

/* splitmix64: one well-mixed draw per call number. */
static uint64_t draw(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static bool should_fail(struct rp_alloc_site *site)
{
	int mode = uatomic_read(&inject_mode);

	/* Pairs with the wmb that arms the injection (rp_debug_fail_*). */
	cmm_smp_rmb();
	switch (mode) {
	case INJECT_SITE:
		/* The countdown's one step to 0 fails; it never comes back to 0. */
		return site == fail_site && uatomic_add_return(&fail_countdown, -1) == 0;
	case INJECT_RANDOM:
		return draw(fail_seed + uatomic_add_return(&random_calls, 1)) < fail_threshold;
	default:
		return false;
	}
}

bool rp_alloc_admit(struct rp_alloc_site *site)
{
	unsigned int slot = rp_thread_slot();

	if (uatomic_read(&site->index) < 0)
		register_site(site);
	rp_slot_add(&rows[slot].calls[uatomic_read(&site->index)], slot, 1);
	if (should_fail(site)) {
		rp_slot_add(&rows[slot].failures, slot, 1);
		return false;
	}
	return true;
}

void *rp_alloc_zeroed(size_t size)
{
	void *p = calloc(1, size);

	if (p)
		rp_alloc_count(1);
	return p;
}

void rp_alloc_count(long delta)
{
	unsigned int slot = rp_thread_slot();

	rp_slot_add(&rows[slot].live, slot, delta);
}

/* The sum of one counter over every row: the count of the whole process. */
static unsigned long rows_sum(size_t offset)
{
	unsigned long sum = 0;

	for (unsigned int k = 0; k < RP_SLOT_ROWS; k++)
		sum += CMM_LOAD_SHARED(*(unsigned long *)((char *)&rows[k] + offset));
	return sum;
}

void *rp_zalloc_at(struct rp_alloc_site *site, size_t size)
{
	return rp_alloc_admit(site) ? rp_alloc_zeroed(size) : NULL;
}

/*
 * Poisoned objects wait in a FIFO quarantine before malloc may reuse them,
 * as KASAN's: a late reader then meets poison, not a recycled object.  When
 * one leaves, its poison must be intact: a write after the free would not be.
 */
#define QUARANTINE	4096

static pthread_mutex_t quarantine_lock = PTHREAD_MUTEX_INITIALIZER;
static void *quarantine[QUARANTINE];	/* quarantine_lock */
static unsigned int quarantine_next;	/* quarantine_lock */

bool rp_alloc_poisoning(void)
{
	return CMM_LOAD_SHARED(poison);
}

void rp_alloc_poison(void *p)
{
	memset(p, RP_POISON_FREE, malloc_usable_size(p));
}

void rp_alloc_check_poison(const void *p)
{
	const unsigned char *b = p;
	size_t n = malloc_usable_size((void *)p);

	for (size_t i = 0; i < n; i++)
		RP_BUG_ON_MSG(b[i] != RP_POISON_FREE,
			      "object %p written at offset %zu after it was freed", p, i);
}

static void quarantine_put(void *p)
{
	void *old;

	pthread_mutex_lock(&quarantine_lock);
	old = quarantine[quarantine_next];
	quarantine[quarantine_next] = p;
	quarantine_next = (quarantine_next + 1) % QUARANTINE;
	pthread_mutex_unlock(&quarantine_lock);
	if (old) {
		rp_alloc_check_poison(old);
		free(old);
	}
}

void rp_alloc_release(void *p)
{
	if (rp_alloc_poisoning())
		quarantine_put(p);
	else
		free(p);
}

void rp_free(void *p)
{
	if (!p)
		return;
	rp_alloc_count(-1);
	if (rp_alloc_poisoning())
		rp_alloc_poison(p);
	rp_alloc_release(p);
}

unsigned int rp_debug_alloc_sites(void)
{
	return uatomic_read(&nr_sites);
}

const char *rp_debug_alloc_site_name(unsigned int k)
{
	return site_at(k) ? site_names[k] : NULL;
}

unsigned long rp_debug_alloc_site_calls(unsigned int k)
{
	return site_at(k) ? rows_sum(offsetof(struct alloc_row, calls[k])) : 0;
}

int rp_debug_fail_site(unsigned int k, unsigned long nth)
{
	struct rp_alloc_site *site = site_at(k);

	if (!site || nth == 0)
		return -EINVAL;
	rp_debug_fail_none();
	fail_site = site;
	uatomic_set(&fail_countdown, (long)nth);
	/* Arms the injection after its parameters; pairs with should_fail's rmb. */
	cmm_smp_wmb();
	uatomic_set(&inject_mode, INJECT_SITE);
	return 0;
}

int rp_debug_fail_random(double rate, uint64_t seed)
{
	if (!(rate > 0 && rate <= 1))
		return -EINVAL;
	rp_debug_fail_none();
	fail_threshold = rate >= 1 ? UINT64_MAX : (uint64_t)(rate * 18446744073709551616.0);
	fail_seed = seed;
	uatomic_set(&random_calls, 0);
	/* Arms the injection after its parameters; pairs with should_fail's rmb. */
	cmm_smp_wmb();
	uatomic_set(&inject_mode, INJECT_RANDOM);
	return 0;
}

void rp_debug_fail_none(void)
{
	uatomic_set(&inject_mode, INJECT_NONE);
}

unsigned long rp_debug_alloc_failures(void)
{
	return rows_sum(offsetof(struct alloc_row, failures));
}

unsigned long rp_debug_live_objects(void)
{
	return rows_sum(offsetof(struct alloc_row, live));
}

bool rp_debug_set_poison(bool on)
{
	bool old = CMM_LOAD_SHARED(poison);

	/* The cached objects go back as they came: poisoned or not. */
	rp_cache_shrink_all();
	CMM_STORE_SHARED(poison, on);
	return old;
}
