/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Thread slots of the per-thread counters (threadslot.h) and the shared-write counts (shared.h). */
#include "threadslot.h"
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include "bug.h"
#include "shared.h"

__thread unsigned int rp_slot_plus1;

static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;
#define SLOT_WORDS	(RP_THREAD_SLOTS / (sizeof(unsigned long) * CHAR_BIT))
static unsigned long slots_taken[SLOT_WORDS];	/* slots_lock: a bit per slot held */
static unsigned int nr_taken;			/* slots_lock; shared loads */
static unsigned int slots_used;			/* slots_lock; shared loads: 1 + the
						   highest slot ever taken */

static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

/* The thread that held slot @value - 1 ends: the slot is free (its row stays). */
static void slot_put(void *value)
{
	unsigned int k = (unsigned int)(uintptr_t)value - 1;

	pthread_mutex_lock(&slots_lock);
	slots_taken[k / (sizeof(unsigned long) * CHAR_BIT)] &=
		~(1UL << (k % (sizeof(unsigned long) * CHAR_BIT)));
	CMM_STORE_SHARED(nr_taken, nr_taken - 1);
	pthread_mutex_unlock(&slots_lock);
	rp_slot_plus1 = 0;	/* a count in a later destructor takes one again */
}

static void slot_key_create(void)
{
	RP_BUG_ON_MSG(pthread_key_create(&slot_key, slot_put) != 0,
		      "no pthread key left for the thread slots");
}

/*
 * RP_BREAK_SLOT_NOT_EXCLUSIVE: a slot handed out stays free, so the next
 * thread takes it too and two threads add to one row with plain stores.
 */
#ifdef RP_BREAK_SLOT_NOT_EXCLUSIVE
#define SLOT_MARKED_TAKEN 0UL
#else
#define SLOT_MARKED_TAKEN 1UL
#endif

/* The lowest free slot, taken; RP_SLOT_SHARED if every slot is held. */
static unsigned int lowest_free(void)
{
	for (unsigned int w = 0; w < SLOT_WORDS; w++) {
		if (~slots_taken[w]) {
			unsigned int b = (unsigned int)__builtin_ctzl(~slots_taken[w]);
			unsigned int k = w * (sizeof(unsigned long) * CHAR_BIT) + b;

			slots_taken[w] |= SLOT_MARKED_TAKEN << b;
			CMM_STORE_SHARED(nr_taken, nr_taken + 1);
			if (k >= slots_used)
				CMM_STORE_SHARED(slots_used, k + 1);
			return k;
		}
	}
	return RP_SLOT_SHARED;
}

unsigned int rp_thread_slot_take(void)
{
	unsigned int k;

	pthread_once(&slot_key_once, slot_key_create);
	pthread_mutex_lock(&slots_lock);
	k = lowest_free();
	pthread_mutex_unlock(&slots_lock);
	/* The key's destructor gives a slot back; the shared row is nobody's. */
	if (k != RP_SLOT_SHARED)
		pthread_setspecific(slot_key, (void *)(uintptr_t)(k + 1));
	rp_slot_plus1 = k + 1;
	return k;
}

void rp_slot_add_shared(unsigned long *counter, long delta)
{
	rp_shared_rmw(RP_SHARED_COUNT_ROW, uatomic_add(counter, delta));
}

unsigned int rp_thread_slots_used(void)
{
	return CMM_LOAD_SHARED(slots_used);
}

unsigned int rp_debug_slots_taken(void)
{
	return CMM_LOAD_SHARED(nr_taken);
}

#ifdef RP_DEBUG
void (*rp_slot_add_window)(void);
__thread unsigned long rp_shared_writes[RP_SHARED_NR];
#endif

void rp_debug_shared_writes(unsigned long out[RP_SHARED_NR])
{
	for (unsigned int i = 0; i < RP_SHARED_NR; i++)
#ifdef RP_DEBUG
		out[i] = rp_shared_writes[i];
#else
		out[i] = 0;
#endif
}

static const char *const shared_names[RP_SHARED_NR] = {
	[RP_SHARED_UPDATE_LOCK] = "update lock",
	[RP_SHARED_READ_LOCK] = "global read lock",
	[RP_SHARED_CACHE_LOCK] = "type cache lock",
	[RP_SHARED_USERS_LOCK] = "uid table lock",
	[RP_SHARED_RECLAIM_LOCK] = "reclaim batch lock",
	[RP_SHARED_GP_LOCK] = "grace-period thread lock",
	[RP_SHARED_CARRIER_LOCK] = "carrier lock",
	[RP_SHARED_HANDOVER_GROUP] = "G handed over",
	[RP_SHARED_HANDOVER_TREE] = "T handed over",
	[RP_SHARED_HANDOVER_MEMBER] = "M handed over",
	[RP_SHARED_HANDOVER_LINK] = "L handed over",
	[RP_SHARED_HANDOVER_SIGHAND] = "siglock handed over",
	[RP_SHARED_HANDOVER_TIMER] = "timer lock handed over",
	[RP_SHARED_HANDOVER_BUCKET] = "B handed over",
	[RP_SHARED_UID_COUNT] = "uid count",
	[RP_SHARED_CRED_REF] = "cred reference",
	[RP_SHARED_PIDNS_REF] = "pid namespace reference",
	[RP_SHARED_RLIMIT_REF] = "rlimit reference",
	[RP_SHARED_COUNT_ROW] = "shared counter row",
	[RP_SHARED_PID_CURSOR] = "pid cursor",
	[RP_SHARED_PIDMAP] = "pid bitmap word",
	[RP_SHARED_DEFERRED_COUNT] = "deferred-free count",
};

const char *rp_debug_shared_name(unsigned int line)
{
	return line < RP_SHARED_NR ? shared_names[line] : NULL;
}
