/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Debug-build checks of the lock order in lockorder.h. */
#include "lockorder.h"

#ifdef RP_DEBUG
#include <stdio.h>
#include <stdlib.h>

#define RP_LOCKDEP_DEPTH 8

/* Per thread, so no locking: the classes this thread holds, in order, and
   the address of each where the taker gave one. */
static __thread enum rp_lock_class held[RP_LOCKDEP_DEPTH];
static __thread const void *held_obj[RP_LOCKDEP_DEPTH];
static __thread int nheld;
static __thread int read_depth;

static void lockdep_fail(const char *what, int a, int b)
{
	fprintf(stderr, "rcuproc lock order violation: %s (%d, %d)\n", what, a, b);
	abort();
}

void rp_lockdep_acquire_obj(enum rp_lock_class c, const void *lock)
{
	if (c == RP_LOCK_UPDATE && read_depth)
		lockdep_fail("update lock taken inside a read-side section", c, read_depth);
	if (nheld && held[nheld - 1] >= c)
		lockdep_fail("class taken while holding an equal or later class", c,
			     held[nheld - 1]);
	if (nheld == RP_LOCKDEP_DEPTH)
		lockdep_fail("too many locks held", c, nheld);
	held_obj[nheld] = lock;
	held[nheld++] = c;
}

/*
 * Releases need not be in reverse order: remove the latest entry of @c
 * (and of @lock, when given).
 */
void rp_lockdep_release_obj(enum rp_lock_class c, const void *lock)
{
	int i = nheld - 1;

	while (i >= 0 && (held[i] != c || (lock && held_obj[i] != lock)))
		i--;
	if (i < 0)
		lockdep_fail("release of a lock not held", c, nheld);
	for (; i < nheld - 1; i++) {
		held[i] = held[i + 1];
		held_obj[i] = held_obj[i + 1];
	}
	nheld--;
}

void rp_lockdep_assert_held(enum rp_lock_class c)
{
	for (int i = 0; i < nheld; i++)
		if (held[i] == c)
			return;
	lockdep_fail("a lock of this class must be held", c, nheld);
}

void rp_lockdep_assert_held_obj(const void *lock)
{
	for (int i = 0; lock && i < nheld; i++)
		if (held_obj[i] == lock)
			return;
	lockdep_fail("this object's lock must be held", 0, nheld);
}

void rp_lockdep_read_enter(void)
{
	if (nheld && held[nheld - 1] > RP_LOCK_UPDATE)
		lockdep_fail("read section entered holding a later lock",
			     held[nheld - 1], read_depth);
	read_depth++;
}

void rp_lockdep_read_exit(void)
{
	if (!read_depth)
		lockdep_fail("read unlock without read lock", 0, 0);
	read_depth--;
}

void rp_lockdep_assert_may_synchronize(void)
{
	if (read_depth)
		lockdep_fail("synchronize inside a read-side section", read_depth, 0);
}
#endif
