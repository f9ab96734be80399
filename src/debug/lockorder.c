/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Debug-build checks of the lock order in lockorder.h. */
#include "lockorder.h"
#include <stdint.h>

#ifdef RP_DEBUG
#include "bug.h"
#include "handover.h"

#define RP_LOCKDEP_DEPTH 16

/* Per thread, so no locking: the classes this thread holds, in order, and
   the address of each where the taker gave one. */
static __thread enum rp_lock_class held[RP_LOCKDEP_DEPTH];
static __thread const void *held_obj[RP_LOCKDEP_DEPTH];
static __thread int nheld;
static __thread int read_depth;

/* Check the order of @c's lock at @lock, and note it held. */
static void check_and_hold(enum rp_lock_class c, const void *lock)
{
	RP_BUG_ON_MSG(c == RP_LOCK_UPDATE && read_depth,
		      "lock order violation: update lock taken inside a read-side section");
	RP_BUG_ON_MSG(nheld && held[nheld - 1] == RP_LOCK_BUCKET,
		      "lock order violation: class %d taken while holding a bucket lock (a leaf)", c);
	if (nheld && held[nheld - 1] == c && rp_lock_class_by_address(c)) {
		RP_BUG_ON_MSG(!lock, "lock order: a class %d lock taken without its address", c);
		/* Within the class, by increasing address. */
		RP_BUG_ON_MSG((uintptr_t)held_obj[nheld - 1] >= (uintptr_t)lock,
			      "lock order violation: class %d lock %p taken while holding %p",
			      c, lock, held_obj[nheld - 1]);
	} else if (nheld && c == RP_LOCK_LINK && held[nheld - 1] == c) {
		/* A node after its predecessor, in list order: two at most. */
		RP_BUG_ON_MSG(nheld > 1 && held[nheld - 2] == c,
			      "lock order violation: a third link lock taken");
	} else {
		RP_BUG_ON_MSG(nheld && held[nheld - 1] >= c,
			      "lock order violation: class %d taken while holding class %d",
			      c, held[nheld - 1]);
	}
	RP_BUG_ON_MSG(nheld == RP_LOCKDEP_DEPTH, "lock order: more than %d locks held",
		      RP_LOCKDEP_DEPTH);
	held_obj[nheld] = lock;
	held[nheld++] = c;
}

void rp_lockdep_acquire_obj(enum rp_lock_class c, const void *lock)
{
	check_and_hold(c, lock);
	if (lock)
		rp_handover_count(c, lock);
}

void rp_lockdep_acquire_untaken_obj(enum rp_lock_class c, const void *lock)
{
	check_and_hold(c, lock);
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
	RP_BUG_ON_MSG(i < 0, "lock order: release of a class %d lock not held", c);
	for (; i < nheld - 1; i++) {
		held[i] = held[i + 1];
		held_obj[i] = held_obj[i + 1];
	}
	nheld--;
}

bool rp_lockdep_holds(const void *lock)
{
	for (int i = 0; lock && i < nheld; i++)
		if (held_obj[i] == lock)
			return true;
	return false;
}

bool rp_lockdep_in_read_section(void)
{
	return read_depth > 0;
}

/* The latest lock held that is not one of rcu mode's object locks (RP_LOCK_NONE: none). */
static enum rp_lock_class latest_shared_by_modes(void)
{
	for (int i = nheld - 1; i >= 0; i--)
		if (!rp_lock_class_rcu_only(held[i]))
			return held[i];
	return RP_LOCK_NONE;
}

void rp_lockdep_read_enter(void)
{
	enum rp_lock_class c = latest_shared_by_modes();

	RP_BUG_ON_MSG(c > RP_LOCK_UPDATE,
		      "lock order violation: read section entered holding class %d", c);
	read_depth++;
}

void rp_lockdep_read_exit(void)
{
	RP_BUG_ON_MSG(!read_depth, "lock order: read unlock without read lock");
	read_depth--;
}

void rp_lockdep_assert_may_synchronize(void)
{
	RP_BUG_ON_MSG(read_depth, "lock order violation: synchronize inside a read-side section");
}

void rp_lockdep_assert_quiescent(void)
{
	rp_lockdep_assert_may_synchronize();
	RP_BUG_ON_MSG(nheld, "lock order violation: a grace period waited for holding class %d",
		      nheld ? held[nheld - 1] : RP_LOCK_NONE);
}
#endif
