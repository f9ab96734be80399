/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Allocation of table objects.  Every object of the table is allocated with
 * rp_zalloc() and freed with rp_free(), so that one place can inject
 * allocation failures (per call site) and poison freed memory; the controls
 * are in fault.h.
 */
#ifndef RP_DEBUG_ALLOC_H
#define RP_DEBUG_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* One rp_zalloc call in the sources; registered when first reached. */
struct rp_alloc_site {
	const char *file;		/* constant */
	int line;			/* constant */
	int index;			/* atomic: -1 until registered; its calls
					   are counted per thread (alloc.c) */
};

/* A zeroed object of @size bytes, or NULL (ENOMEM, or an injected failure). */
#define rp_zalloc(size) ({						\
	static struct rp_alloc_site rp_site_ = { __FILE__, __LINE__, -1 };	\
	rp_zalloc_at(&rp_site_, (size));				\
})

void *rp_zalloc_at(struct rp_alloc_site *site, size_t size);
void rp_free(void *p);

/*
 * The steps of rp_zalloc and rp_free, for the type caches (cache.h), so
 * that their objects pass the same injection, accounting and poisoning.
 */
bool rp_alloc_admit(struct rp_alloc_site *site);	/* false: an injected failure */
void *rp_alloc_zeroed(size_t size);			/* calloc, counted live */
void rp_alloc_count(long delta);			/* live objects */
bool rp_alloc_poisoning(void);
void rp_alloc_poison(void *p);				/* its whole usable size */
void rp_alloc_check_poison(const void *p);		/* stops if written since */
void rp_alloc_release(void *p);	/* to malloc, through the quarantine if poisoning */

#endif /* RP_DEBUG_ALLOC_H */
