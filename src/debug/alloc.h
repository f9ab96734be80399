/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Allocation of table objects.  Every object of the table is allocated with
 * rp_zalloc() and freed with rp_free(), so that one place can inject
 * allocation failures (per call site) and poison freed memory; the controls
 * are in fault.h.
 */
#ifndef RP_DEBUG_ALLOC_H
#define RP_DEBUG_ALLOC_H

#include <stddef.h>

/* One rp_zalloc call in the sources; registered when first reached. */
struct rp_alloc_site {
	const char *file;		/* constant */
	int line;			/* constant */
	int index;			/* atomic: -1 until registered */
	unsigned long calls;		/* atomic: calls that reached the site */
};

/* A zeroed object of @size bytes, or NULL (ENOMEM, or an injected failure). */
#define rp_zalloc(size) ({						\
	static struct rp_alloc_site rp_site_ = { __FILE__, __LINE__, -1, 0 };	\
	rp_zalloc_at(&rp_site_, (size));				\
})

void *rp_zalloc_at(struct rp_alloc_site *site, size_t size);
void rp_free(void *p);

#endif /* RP_DEBUG_ALLOC_H */
