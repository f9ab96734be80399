/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Credentials (immutable, replaced whole, freed after RCU) and per-uid counts. */
#include "task.h"
#include "../debug/cache.h"

static struct rp_cache cred_cache = RP_CACHE_INIT("cred", struct rp_cred);

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

/* The accounting of @uid, created on first use; NULL on ENOMEM. */
static struct rp_user *user_get(struct rp_system *sys, uid_t uid)
{
	struct cds_hlist_head *bucket = users_bucket(sys, uid);
	struct rp_user *u;

	users_lock(sys);
	cds_hlist_for_each_entry_2(u, bucket, node)
		if (u->uid == uid)
			goto found;
	u = rp_zalloc(sizeof(*u));
	if (!u)
		goto out;
	u->uid = uid;
	cds_hlist_add_head(&u->node, bucket);
found:
	u->refs++;
out:
	users_unlock(sys);
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
		cds_hlist_del(&u->node);
		rp_free(u);
	}
	users_unlock(sys);
}

struct rp_cred *rp_cred_alloc(struct rp_system *sys, uid_t uid, uid_t euid,
			      uid_t suid, uint64_t caps)
{
	struct rp_cred *c = rp_cache_zalloc(&cred_cache);

	if (!c)
		return NULL;
	c->user = user_get(sys, uid);
	if (!c->user) {
		rp_cache_free(&cred_cache, c);
		return NULL;
	}
	c->refs = 1;
	c->uid = uid;
	c->euid = euid;
	c->suid = suid;
	c->caps = caps;
	c->caps_permitted = caps;
	c->sys = sys;
	rp_count_inc(sys, creds);
	return c;
}

struct rp_cred *rp_cred_get(struct rp_cred *c)
{
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

void rp_cred_put(struct rp_cred *c)
{
	/* Readers may still hold it under RCU (rp_task_cred_rcu): free after a grace period. */
	if (rp_shared_rmw(RP_SHARED_CRED_REF, uatomic_sub_return(&c->refs, 1)) == 0)
		rp_defer_release(&c->sys->sync, &c->rcu, cred_free);
}

/*
 * Under the update lock, so that in the lock modes (which free at once) no
 * reader still holds the old credentials, and under the siglock, which the
 * signal code holds while it charges a queued signal to the target's user.
 */
void rp_commit_creds(struct rp_task *self, struct rp_cred *new)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_cred *old = self->cred;
	struct rp_sighand *sh;

	rp_update_lock(sync);
	sh = rp_lock_task_sighand(self);
	/* Publish complete credentials: pairs with rcu_dereference in rp_task_cred_rcu. */
	rcu_assign_pointer(self->cred, new);
	if (sh)
		rp_unlock_sighand(sh);
	rp_update_unlock(sync);
	if (new->user != old->user) {	/* RLIMIT_NPROC counts by real uid, as Linux */
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_inc(&new->user->processes));
		rp_shared_rmw(RP_SHARED_UID_COUNT, uatomic_dec(&old->user->processes));
	}
	rp_cred_put(old);
}
