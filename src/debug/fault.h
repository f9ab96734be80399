/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection and poisoning of the table's memory: the controls, for
 * the project's tests and torture harness (the allocator is alloc.h).
 *
 * Every object of the table is allocated at an allocation site (a call of
 * rp_zalloc in the library's sources, named "file:line").  A site is
 * registered the first time it is reached, and numbered in that order from 0.
 * Either one site can be made to fail on its Nth call, or every site at
 * random with a given rate: the failing call returns NULL and the system
 * call that made it returns Linux's errno (ENOMEM, or EAGAIN where Linux
 * says so).
 *
 * Poisoning: when on, every freed object is overwritten with RP_POISON_FREE
 * bytes (its whole usable size) before it goes back to malloc, so that a
 * reader that touches an object after it was freed reads pointers like
 * 0x6b6b6b6b6b6b6b6b and faults, even without AddressSanitizer.  On by
 * default when the library is built with debug checks (RP_DEBUG).
 *
 * The controls are process-wide; set them while no operation runs.
 */
#ifndef RP_DEBUG_FAULT_H
#define RP_DEBUG_FAULT_H

#include <stdbool.h>
#include <stdint.h>

/* Linux's POISON_FREE (include/linux/poison.h). */
#define RP_POISON_FREE	0x6b

/* Sites registered so far. */
unsigned int rp_debug_alloc_sites(void);

/* "file:line" of site @k, or NULL if @k is not registered. */
const char *rp_debug_alloc_site_name(unsigned int k);

/* Calls that reached site @k so far (0 for an unknown site). */
unsigned long rp_debug_alloc_site_calls(unsigned int k);

/*
 * Make the @nth call (1: the next) of site @k from now on fail, once.
 * 0, or -EINVAL for an unregistered site or @nth 0.  Replaces any earlier
 * injection.
 */
int rp_debug_fail_site(unsigned int k, unsigned long nth);

/*
 * Fail each allocation with probability @rate (0 < rate <= 1), drawn from a
 * generator seeded with @seed: a single-threaded run fails the same calls
 * every time.  0, or -EINVAL for a rate out of range.  Replaces any earlier
 * injection.
 */
int rp_debug_fail_random(double rate, uint64_t seed);

/* Stop injecting failures. */
void rp_debug_fail_none(void);

/* Allocations failed on purpose so far. */
unsigned long rp_debug_alloc_failures(void);

/* Objects allocated with rp_zalloc and not yet freed, process-wide. */
unsigned long rp_debug_live_objects(void);

/* Turn poisoning on or off; returns the previous setting. */
bool rp_debug_set_poison(bool on);

#endif /* RP_DEBUG_FAULT_H */
