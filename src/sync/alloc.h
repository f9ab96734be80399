/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Allocation of table objects.  Every object of the table is allocated with
 * rp_zalloc() and freed with rp_free(), so that one place can inject
 * allocation failures (per call site) and poison freed memory.
 */
#ifndef RP_SYNC_ALLOC_H
#define RP_SYNC_ALLOC_H

#include <stddef.h>

/* A zeroed object of @size bytes, or NULL (ENOMEM). */
#define rp_zalloc(size)	rp_zalloc_at((size), __FILE__, __LINE__)

void *rp_zalloc_at(size_t size, const char *file, int line);
void rp_free(void *p);

#endif /* RP_SYNC_ALLOC_H */
