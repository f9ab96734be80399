/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Credentials (immutable, replaced whole, freed after RCU) and per-uid
 * accounting.  Two counts that every fork and release would move on a line
 * shared by every process of a uid are kept per thread slot instead
 * (docs/process.md, "Shared counts of fork and exit"):
 *
 * - RLIMIT_NPROC's count of a user (Linux's ucounts) is batched, as
 *   Linux's percpu counters are: a thread slot holds a reserve taken from
 *   the user's count, spends it at fork and refills it at release, with
 *   atomics on its own row, and only a slot that runs dry or holds too much
 *   moves the shared count.  The count is the tasks plus the reserves, so
 *   it never reads low; a comparison it does not settle takes every
 *   reserve back first (nproc_drain_locked).
 * - The references to credentials (which every child takes from its
 *   parent) are counted in the rows of the slots that take and drop them
 *   while the credentials' owner, the task that committed them, holds
 *   them; the owner's put switches them to their one atomic count and
 *   folds the rows into it a grace period later, which is the idea of
 *   Linux's percpu_ref, written here for rcuproc's thread slots (liburcu
 *   has no such count).
 */
#include <errno.h>
#include "task.h"
#include "../debug/cache.h"
#include "../debug/racepoint.h"

static struct rp_cache cred_cache = RP_CACHE_INIT("cred", struct rp_cred);

/* A thread slot's reserve of a user's count is refilled this many at a time. */
#define NPROC_BATCH	16UL

/*
 * Added to a per-slot count's ->refs until its fold, so that no put in
 * the shared count can take it to zero while the rows still count
 * references (a get in a row and its put in ->refs).
 * RP_BREAK_CRED_NO_BIAS: none, and such a put between the owner's put
 * and the fold frees the credentials under their other holders.
 */
#ifdef RP_BREAK_CRED_NO_BIAS
#define CRED_BIAS	0UL
#else
#define CRED_BIAS	(1UL << 62)
#endif

static struct cds_hlist_head *users_bucket(struct rp_system *sys, uid_t uid)
{
	return &sys->users[uid % (sizeof(sys->users) / sizeof(sys->users[0]))];
}

static void users_lock(struct rp_system *sys)
{
	rp_lockdep_acquire(RP_LOCK_USERS);
	rp_shared_write(RP_SHARED_USERS_LOCK);
	pthread_mutex_lock(&sys->users_lock);
}

static void users_unlock(struct rp_system *sys)
{
	pthread_mutex_unlock(&sys->users_lock);
	rp_lockdep_release(RP_LOCK_USERS);
}

/* A free column of @used (under the users lock), taken: 1 + its number, 0 if none. */
static unsigned char column_take(unsigned char *used)
{
	unsigned int free = (unsigned char)~*used;

	if (!free)
		return 0;
	*used |= (unsigned char)(free & -free);
	return (unsigned char)(__builtin_ctz(free) + 1);
}

/* Give column 1 + @column - 1 of @used back (under the users lock). */
static void column_give(unsigned char *used, unsigned char column)
{
	*used &= (unsigned char)~(1U << (column - 1));
}

/* The accounting of @uid, created on first use, referenced (users lock); NULL on ENOMEM. */
static struct rp_user *user_get_locked(struct rp_system *sys, uid_t uid)
{
	struct cds_hlist_head *bucket = users_bucket(sys, uid);
	struct rp_user *u;

	cds_hlist_for_each_entry_2(u, bucket, node)
		if (u->uid == uid)
			goto found;
	u = rp_zalloc(sizeof(*u));
	if (!u)
		return NULL;
	u->uid = uid;
	u->column = column_take(&sys->nproc_columns);
	cds_hlist_add_head(&u->node, bucket);
found:
	u->refs++;
	return u;
}

void rp_user_ref(struct rp_system *sys, struct rp_user *u)
{
	users_lock(sys);
	u->refs++;
	users_unlock(sys);
}

void rp_user_put(struct rp_system *sys, struct rp_user *u)
{
	users_lock(sys);
	if (--u->refs == 0) {
		/*
		 * No task of the uid is left to charge or release (each holds
		 * credentials that hold @u): the reserves go with it, and the
		 * column is clear for the next user that takes it.
		 */
		if (u->column) {
			unsigned int used = rp_thread_slots_used();

			for (unsigned int s = 0; s < used; s++)
				uatomic_set(&sys->ref_rows[s].nproc[u->column - 1], 0);
			column_give(&sys->nproc_columns, u->column);
		}
		cds_hlist_del(&u->node);
		rp_free(u);
	}
	users_unlock(sys);
}

/* ---- RLIMIT_NPROC: a user's count, batched in thread slots ---- */

/*
 * The calling thread's row of @sys->ref_rows for a count of column
 * 1 + @column - 1; NULL if the count has no column (0) or the thread no slot.
 */
static struct rp_ref_row *own_row(struct rp_system *sys, unsigned char column)
{
	unsigned int slot;

	if (!column)
		return NULL;
	slot = rp_thread_slot();
	return slot == RP_SLOT_SHARED ? NULL : &sys->ref_rows[slot];
}

/* This thread's reserve of @u's count; NULL if @u has no column or the thread no slot. */
static unsigned long *nproc_row(struct rp_system *sys, const struct rp_user *u)
{
	struct rp_ref_row *row = own_row(sys, u->column);

	return row ? &row->nproc[u->column - 1] : NULL;
}

/* Take one from the reserve at @row, if it holds any. */
static bool row_spend(unsigned long *row)
{
	unsigned long v = uatomic_read(row);

	while (v) {
		unsigned long seen = uatomic_cmpxchg(row, v, v - 1);

		if (seen == v)
			return true;
		v = seen;
	}
	return false;
}

/*
 * RP_BREAK_NPROC_NO_DRAIN: a comparison over the limit believes the
 * shared count, reserves and all, and fails forks that fit.
 */
#ifdef RP_BREAK_NPROC_NO_DRAIN
#define DRAINS false
#else
#define DRAINS true
#endif

/*
 * Every slot's reserve of @u back into its count (users lock held), so
 * that the count is the tasks of @u: reserves are taken from the count
 * and given back under this lock only, so none is on its way meanwhile,
 * and each slot's spend or refill of its own row is one atomic on it,
 * before or after the exchange that empties the row.
 */
static void nproc_drain_locked(struct rp_system *sys, struct rp_user *u)
{
	unsigned int used = rp_thread_slots_used();
	unsigned long back = 0;

	if (!u->column || !DRAINS)
		return;
	for (unsigned int s = 0; s < used; s++)
		back += uatomic_xchg(&sys->ref_rows[s].nproc[u->column - 1], 0);
	if (back)
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_sub(&u->processes, back));
}

/* Is @u's count over @limit once the reserves are back in it? */
static bool over_drained(struct rp_system *sys, struct rp_user *u, rlim_t limit)
{
	unsigned long n;

	users_lock(sys);
	nproc_drain_locked(sys, u);
	n = uatomic_read(&u->processes);
	users_unlock(sys);
	return n > limit;
}

bool rp_nproc_over(struct rp_system *sys, struct rp_user *u, rlim_t limit)
{
	/* The count never reads low: at or under the limit, so are the tasks. */
	if (limit == RLIM_INFINITY || uatomic_read(&u->processes) <= limit)
		return false;
	return over_drained(sys, u, limit);
}

/* Root and CAP_SYS_RESOURCE or CAP_SYS_ADMIN fork past the limit (copy_process). */
static bool nproc_exempt(const struct rp_cred *c)
{
	return c->uid == 0 || rp_cred_capable(c, RP_CAP_SYS_RESOURCE) ||
	       rp_cred_capable(c, RP_CAP_SYS_ADMIN);
}

/* Fill this thread's empty reserve of @u at @row. */
static void nproc_refill(struct rp_system *sys, struct rp_user *u, unsigned long *row)
{
	users_lock(sys);
	/* Counted before the row holds it, so that the count never reads low. */
	rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_add(&u->processes, NPROC_BATCH));
	uatomic_add(row, NPROC_BATCH);
	users_unlock(sys);
}

/*
 * RP_BREAK_NPROC_SPEND_UNCHECKED: a fork that finds a reserve in its
 * thread's row takes it for room under its own limit, which the reserve
 * was never checked against (another process of the uid, with a higher
 * limit or none, took it).
 */
#ifdef RP_BREAK_NPROC_SPEND_UNCHECKED
#define SPEND_COMPARES false
#else
#define SPEND_COMPARES true
#endif

/*
 * RP_BREAK_NPROC_CHECK_FIRST: the shared count is compared with the
 * limit before the child is counted in it, so that two forks at the limit
 * may both compare, then both count, and both pass.
 */
int rp_nproc_charge(struct rp_task *self, const struct rp_cred *c, rlim_t limit)
{
	struct rp_system *sys = c->sys;
	struct rp_user *u = c->user;
	bool checked = limit != RLIM_INFINITY && !nproc_exempt(c);
	unsigned long *row = nproc_row(sys, u);
	unsigned long n;

	if (row && row_spend(row)) {
		RP_RACE_POINT(RP_RACE_NPROC_COUNTED, self);
		/*
		 * The spend (a full barrier) counted the child: the count read
		 * after it is at least the tasks, this child and those of every
		 * charge before it in that order, as a count that never reads
		 * low (pairs with the full barriers of every other charge).
		 */
		if (!checked || !SPEND_COMPARES || uatomic_read(&u->processes) <= limit)
			return 0;
		uatomic_inc(row);	/* back: the shared count decides */
	}
#ifdef RP_BREAK_NPROC_CHECK_FIRST
	n = uatomic_read(&u->processes) + 1;
	RP_RACE_POINT(RP_RACE_NPROC_COUNTED, self);
	rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_inc(&u->processes));
#else
	n = rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_add_return(&u->processes, 1));
	RP_RACE_POINT(RP_RACE_NPROC_COUNTED, self);
#endif
	/*
	 * Counted first, then compared, as Linux's copy_creds and
	 * copy_process: of two forks at the limit, the one that counts second
	 * reads both (the add is a full barrier).
	 */
	if (checked && n > limit && over_drained(sys, u, limit)) {
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&u->processes));
		return -EAGAIN;
	}
	if (row && (!checked || n + NPROC_BATCH <= limit))
		nproc_refill(sys, u, row);
	return 0;
}

void rp_nproc_uncharge(struct rp_system *sys, struct rp_user *u)
{
	unsigned long *row = nproc_row(sys, u);
	unsigned long v;

	if (!row) {
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&u->processes));
		return;
	}
	if (uatomic_add_return(row, 1) <= 2 * NPROC_BATCH)
		return;
	/* Give back what passes a batch: only this thread adds to its row. */
	users_lock(sys);
	v = uatomic_read(row);
	if (v > NPROC_BATCH) {
		uatomic_sub(row, v - NPROC_BATCH);
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_sub(&u->processes, v - NPROC_BATCH));
	}
	users_unlock(sys);
}

/* ---- credentials and their references ---- */

struct rp_cred *rp_cred_alloc(struct rp_system *sys, const struct rp_task *owner,
			      uid_t uid, uid_t euid, uid_t suid, uint64_t caps)
{
	struct rp_cred *c = rp_cache_zalloc(&cred_cache);

	if (!c)
		return NULL;
	users_lock(sys);
	c->user = user_get_locked(sys, uid);
	/* Only rcu mode has the grace period that the fold waits for. */
	if (c->user && sys->sync.mode == RP_SYNC_RCU)
		c->column = column_take(&sys->cred_columns);
	users_unlock(sys);
	if (!c->user) {
		rp_cache_free(&cred_cache, c);
		return NULL;
	}
	c->refs = c->column ? CRED_BIAS + 1 : 1;
	c->per_slot = c->column != 0;
	c->owner = owner;
	c->uid = uid;
	c->euid = euid;
	c->suid = suid;
	c->caps = caps;
	c->caps_permitted = caps;
	c->sys = sys;
	rp_count_inc(sys, creds);
	return c;
}

/*
 * The calling thread's count of @c's references, in a read section that
 * cred_row_done leaves; NULL, outside any section, if @c is counted in
 * ->refs alone (no column, the owner's put seen, or a thread past the
 * slots).  liburcu's read lock directly: @c has a column in rcu mode
 * only, and it nests in whatever the caller holds.
 */
static long *cred_row(struct rp_cred *c)
{
	struct rp_ref_row *row = own_row(c->sys, c->column);

	if (!row)
		return NULL;
	rcu_read_lock();
	/*
	 * Pairs with the grace period between the owner's put clearing it
	 * and the fold (cred_put_owner): a section that sees it set adds to
	 * its row before the fold reads the row.
	 */
	if (CMM_LOAD_SHARED(c->per_slot)) {
		RP_RACE_POINT(RP_RACE_CRED_PER_SLOT, NULL);
		return &row->cred[c->column - 1];
	}
	rcu_read_unlock();
	return NULL;
}

static void cred_row_done(long *row, long delta)
{
	CMM_STORE_SHARED(*row, *row + delta);	/* only this slot's thread writes it */
	rcu_read_unlock();
}

struct rp_cred *rp_cred_get(struct rp_cred *c)
{
	long *row = cred_row(c);

	if (row)
		cred_row_done(row, 1);
	else
		rp_shared_rmw(RP_SHARED_CRED_REF, uatomic_inc(&c->refs));
	return c;
}

static void cred_free(struct rp_deferred *d)
{
	struct rp_cred *c = caa_container_of(d, struct rp_cred, rcu);
	struct rp_system *sys = c->sys;

	rp_user_put(sys, c->user);
	rp_count_dec(sys, creds);
	rp_cache_free(&cred_cache, c);
}

/* Drop one reference from ->refs; the last frees @c after a grace period. */
static void cred_put_shared(struct rp_cred *c, unsigned long n)
{
	/* Readers may still hold it under RCU (rp_task_cred_rcu): free after a grace period. */
	if (rp_shared_rmw(RP_SHARED_CRED_REF, uatomic_sub_return(&c->refs, n)) == 0)
		rp_defer_release(&c->sys->sync, &c->rcu, cred_free);
}

/*
 * A grace period after the owner's put: no get or put adds to @c's column
 * any more (each that saw ->per_slot set has left its read section), so
 * the rows' sum is what they counted.  Into ->refs with the owner's
 * reference and the bias out; the column is clear for other credentials.
 */
static void cred_fold(struct rp_deferred *d)
{
	struct rp_cred *c = caa_container_of(d, struct rp_cred, rcu);
	struct rp_system *sys = c->sys;
	unsigned int used = rp_thread_slots_used();
	unsigned int col = c->column - 1U;
	long sum = 0;

	for (unsigned int s = 0; s < used; s++) {
		sum += CMM_LOAD_SHARED(sys->ref_rows[s].cred[col]);
		CMM_STORE_SHARED(sys->ref_rows[s].cred[col], 0);
	}
	users_lock(sys);
	column_give(&sys->cred_columns, c->column);
	users_unlock(sys);
	cred_put_shared(c, CRED_BIAS + 1 - (unsigned long)sum);
}

/*
 * RP_BREAK_CRED_FOLD_EARLY: the owner's put folds the rows at once, and a
 * get that saw the rows still counting adds to its row after the fold:
 * its reference is lost, and the credentials are freed while it holds
 * them.
 */
#ifdef RP_BREAK_CRED_FOLD_EARLY
#define FOLD_AFTER_GRACE_PERIOD false
#else
#define FOLD_AFTER_GRACE_PERIOD true
#endif

/* The owner lets go of its reference: from now on ->refs counts alone. */
static void cred_put_owner(struct rp_cred *c)
{
	CMM_STORE_SHARED(c->owner, NULL);
	if (!c->column) {
		cred_put_shared(c, 1);
		return;
	}
	CMM_STORE_SHARED(c->per_slot, 0);
	if (FOLD_AFTER_GRACE_PERIOD)
		rp_defer_release(&c->sys->sync, &c->rcu, cred_fold);
	else
		cred_fold(&c->rcu);
}

void rp_cred_put(struct rp_cred *c, const struct rp_task *holder)
{
	long *row;

	/* Only the owner finds itself there: another holder reads it or NULL. */
	if (holder && CMM_LOAD_SHARED(c->owner) == holder) {
		cred_put_owner(c);
		return;
	}
	row = cred_row(c);
	if (row)
		cred_row_done(row, -1);
	else
		cred_put_shared(c, 1);
}

/*
 * RP_BREAK_NPROC_COUNT_LATE: the task is counted in its new user only
 * after the credentials are published, so that a fork of that user in
 * between reads the count one low and passes a limit that Linux enforces.
 */
#ifdef RP_BREAK_NPROC_COUNT_LATE
#define COUNT_BEFORE_PUBLISH false
#else
#define COUNT_BEFORE_PUBLISH true
#endif

/*
 * Under the update side shared: in the lock modes that is the update
 * lock, so that no reader still holds the old credentials (they free at
 * once); in rcu mode the gate shared, since readers of another task's
 * credentials take them under RCU (rp_task_cred_rcu) and the old ones go
 * after a grace period, and only @self writes its own.  And under the
 * siglock, which the signal code holds while it charges a queued signal
 * to the target's user.
 * RLIMIT_NPROC counts by real uid, as Linux's commit_creds: the task is
 * added to its new user's count before anyone can see it as that user's
 * (the publication's release store orders the add before it), and taken from the
 * old one's after, so that neither count reads low ("the count never
 * reads low": rp_nproc_charge and rp_nproc_over rely on it).
 */
void rp_commit_creds(struct rp_task *self, struct rp_cred *new)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_cred *old = self->cred;
	bool moves = new->user != old->user;
	struct rp_sighand *sh;

	if (moves && COUNT_BEFORE_PUBLISH)
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_inc(&new->user->processes));
	rp_update_lock_shared(sync);
	sh = rp_lock_task_sighand(self);
	/* Publish complete credentials: pairs with rcu_dereference in rp_task_cred_rcu. */
	rcu_assign_pointer(self->cred, new);
	if (sh)
		rp_unlock_sighand(sh);
	rp_update_unlock_shared(sync);
	RP_RACE_POINT(RP_RACE_CREDS_PUBLISHED, self);
	if (moves) {
		if (!COUNT_BEFORE_PUBLISH)
			rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_inc(&new->user->processes));
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&old->user->processes));
	}
	rp_cred_put(old, self);
}
