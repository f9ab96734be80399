/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid namespaces (pidns.h): models Linux's kernel/pid_namespace.c
 * (create_pid_namespace, put_pid_ns, pidns_install's ancestry check) and
 * the per-level numbering of alloc_pid, free_pid and pid_nr_ns in
 * kernel/pid.c, as of v6.18.  Linux's struct pid holds its numbers in an
 * array sized by its level; here a pid of the root namespace keeps its one
 * number inline and only a nested pid has the out-of-line record, found
 * through the nested tables, so that a root-namespace process does not
 * grow (docs/namespaces.md, "The model").  The hashes are this project's
 * own, built on liburcu's RCU hlists.
 */
#include <errno.h>
#include "task.h"
#include "bucket.h"
#include "../debug/cache.h"

static unsigned int ptr_hash(const void *p, unsigned int bits)
{
	uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL;

	return (unsigned int)(h >> (64 - bits));
}

static unsigned int nr_index(const struct rp_pidns *ns, int nr)
{
	/* The root's multiplicative hash of the number, mixed with the namespace. */
	uint32_t h = (uint32_t)nr * 0x9e370001U ^ (uint32_t)ptr_hash(ns, 32);

	return h >> (32 - RP_NSPID_HASH_BITS);
}

static struct cds_hlist_head *nr_bucket(struct rp_pidns_tables *tb, const struct rp_pidns *ns,
					int nr)
{
	return &tb->by_nr[nr_index(ns, nr)];
}

static struct cds_hlist_head *pid_bucket(struct rp_pidns_tables *tb, const struct rp_pid *pid)
{
	return &tb->by_pid[ptr_hash(pid, RP_NSPID_HASH_BITS)];
}

static struct cds_hlist_head *task_bucket(struct rp_pidns_tables *tb, const struct rp_task *t)
{
	return &tb->children[ptr_hash(t, 8)];
}

/* B of bucket @i of any of @tb's tables. */
static struct rp_spinlock *stripe(struct rp_pidns_tables *tb, unsigned int i)
{
	return &tb->locks[i % RP_NSPID_HASH_LOCKS];
}

static struct rp_spinlock *nr_lock(struct rp_pidns_tables *tb, const struct rp_upid *up)
{
	return stripe(tb, nr_index(up->ns, up->nr));
}

static struct rp_spinlock *pid_lock(struct rp_pidns_tables *tb, const struct rp_pid *pid)
{
	return stripe(tb, ptr_hash(pid, RP_NSPID_HASH_BITS));
}

static struct rp_spinlock *task_lock(struct rp_pidns_tables *tb, const struct rp_task *t)
{
	return stripe(tb, ptr_hash(t, 8));
}

/* The nested tables: made with the first namespace, before any can be found. */
static struct rp_pidns_tables *tables(struct rp_system *sys)
{
	/* Pairs with rcu_assign_pointer in rp_pidns_create. */
	return rcu_dereference(sys->pidns_tables);
}

int rp_pidns_init_root(struct rp_system *sys, unsigned int pid_max)
{
	sys->pidns.sys = sys;
	return rp_pidmap_init(&sys->pidns.pidmap, pid_max);
}

void rp_pidns_destroy_root(struct rp_system *sys)
{
	rp_pidmap_destroy(&sys->pidns.pidmap);
	rp_free(sys->pidns_tables);
}

/*
 * Return once no group kill that found no nested tables @tb can still be
 * sending.  Such a kill makes one pass, giving every receiver the
 * sender's number, and decides so in the read section of its walk
 * (kill_enter in signal/kill.c): a process born into the first namespace
 * during that walk, which may not see the sender, would then get a
 * si_pid that Linux's one walk under tasklist_lock never gives.  The
 * tables were published before this call: a grace period that begins
 * now ends after every read section that could have missed them (pairs
 * with the rcu_read_lock before kill_enter's load), and no namespace
 * numbers a process before its creator returns from here.  A second
 * creator that finds the tables published but not settled waits for a
 * grace period of its own, which began after the publication too.  The
 * lock modes wait for nothing: their kill decides and walks under the
 * read lock, which the publication's update lock excluded.
 *
 * At a quiescent state (no lock, no read section; lockorder.h asserts
 * it), offline while it waits, as every wait of a registered thread
 * (QSBR).  Not under the update gate, which the publication takes
 * exclusive: a grace period there would end (no reader waits for the
 * update side inside its read section, lockorder.h, and the releases that
 * liburcu's call_rcu worker and the grace-period thread run take no lock
 * of the table's update side), but every update of the table would wait
 * with it.
 * RP_BREAK_FIRST_NS_NO_GRACE waits for nothing.
 */
static void tables_settle(struct rp_system *sys, struct rp_pidns_tables *tb)
{
	/* Pairs with the release store below: that grace period came first. */
	if (__atomic_load_n(&tb->settled, __ATOMIC_ACQUIRE))
		return;
#ifdef RP_BREAK_FIRST_NS_NO_GRACE
	(void)sys;
#else
	rp_lockdep_assert_quiescent();
	RP_RACE_POINT(RP_RACE_FIRST_NS_WAITS, NULL);
	if (rp_sync_mode_rcu(sys->sync.mode)) {
		rp_sync_block_begin();
		synchronize_rcu();
		rp_sync_block_end();
	}
#endif
	__atomic_store_n(&tb->settled, true, __ATOMIC_RELEASE);
}

/*
 * Make the nested tables if this is the table's first namespace, and
 * return once they are settled (tables_settle).
 */
static int tables_ready(struct rp_system *sys)
{
	struct rp_pidns_tables *tb;

	rp_update_lock(&sys->sync);
	tb = sys->pidns_tables;
	if (!tb) {
		tb = rp_zalloc(sizeof(*tb));
		if (tb)
			/* Empty heads first: pairs with tables()'s rcu_dereference. */
			rcu_assign_pointer(sys->pidns_tables, tb);
	}
	rp_update_unlock(&sys->sync);
	if (!tb)
		return -ENOMEM;
	tables_settle(sys, tb);
	return 0;
}

struct rp_pidns *rp_pidns_create(struct rp_pidns *parent, int *err)
{
	struct rp_system *sys = parent->sys;
	struct rp_pidns *ns;

	/* create_pid_namespace: ENOSPC past MAX_PID_NS_LEVEL. */
	if (parent->level >= RP_PIDNS_MAX_LEVEL) {
		*err = -ENOSPC;
		return NULL;
	}
	*err = tables_ready(sys);
	if (*err)
		return NULL;
	ns = rp_zalloc(sizeof(*ns));
	/* Linux 6.14 and later: a new namespace's pid_max is PID_MAX_LIMIT, not its parent's. */
	if (!ns || rp_pidmap_init(&ns->pidmap, RP_PID_MAX_LIMIT)) {
		rp_free(ns);
		*err = -ENOMEM;
		return NULL;
	}
	ns->refs = 1;
	rp_count_inc(sys, pidns);
	ns->parent = rp_pidns_get(parent);
	ns->level = parent->level + 1;
	ns->sys = sys;
	return ns;
}

/*
 * The root namespace is the table's and lives as long as it: its
 * references are not counted, as Linux's get_pid_ns and put_pid_ns skip
 * init_pid_ns (include/linux/pid_namespace.h).  Every fork of the root
 * namespace takes and drops one (clone_with's namespace for the child),
 * and two atomics on one line for every fork on every CPU would be
 * writes to a line that unrelated forks share (docs/performance.md).
 */
static bool pidns_counted(const struct rp_pidns *ns)
{
	return ns->parent != NULL;
}

struct rp_pidns *rp_pidns_get(struct rp_pidns *ns)
{
	if (pidns_counted(ns))
		rp_shared_rmw(RP_SHARED_PIDNS_REF, uatomic_inc(&ns->refs));
	return ns;
}

static void pidns_free(struct rp_deferred *d)
{
	struct rp_pidns *ns = caa_container_of(d, struct rp_pidns, rcu);
	struct rp_pidns *parent = ns->parent;

	rp_count_dec(ns->sys, pidns);
	rp_pidmap_destroy(&ns->pidmap);
	rp_free(ns);
	rp_pidns_put(parent);
}

void rp_pidns_put(struct rp_pidns *ns)
{
	if (!pidns_counted(ns))
		return;
	/* Full barrier (uatomic_sub_return): our last use before the free. */
	if (rp_shared_rmw(RP_SHARED_PIDNS_REF, uatomic_sub_return(&ns->refs, 1)) != 0)
		return;
	/* A reader may still read it through a task found under RCU. */
	rp_defer_release(&ns->sys->sync, &ns->rcu, pidns_free);
}

bool rp_pidns_within(const struct rp_pidns *ns, const struct rp_pidns *anc)
{
	while (ns && ns->level > anc->level)
		ns = ns->parent;
	return ns == anc;
}

/* The record of nested @pid; NULL once its memory is being released (a late reader). */
static struct rp_pid_levels *levels_of(struct rp_pid *pid)
{
	struct rp_pid_levels *lv;

	rp_assert_read_section(&rp_pid_sys(pid)->sync);
	/* Pairs with rcu_assign_pointer in rp_bucket_add (rp_pid_levels_publish). */
	cds_hlist_for_each_entry_rcu_2(lv, pid_bucket(tables(rp_pid_sys(pid)), pid), hash)
		if (lv->pid == pid)
			return lv;
	return NULL;
}

/* The record of @pid, which its owner holds published (update lock held). */
static struct rp_pid_levels *levels_held(struct rp_pid *pid)
{
	struct rp_pid_levels *lv = levels_of(pid);

	/* A nested pid is found from its publication to its memory's release. */
	RP_BUG_ON(!lv);
	return lv;
}

struct rp_pidns *rp_pid_ns(struct rp_pid *pid)
{
	struct rp_pid_levels *lv;

	if (!pid->nested)
		return &rp_pid_sys(pid)->pidns;
	lv = levels_of(pid);
	return lv ? lv->up[lv->level - 1].ns : NULL;
}

int rp_pid_nr_ns(struct rp_pid *pid, struct rp_pidns *ns)
{
	struct rp_pid_levels *lv;

	if (!ns->level)
		return pid->nr;
	if (!pid->nested)
		return 0;
	lv = levels_of(pid);
	if (!lv || ns->level > lv->level || lv->up[ns->level - 1].ns != ns)
		return 0;
	return lv->up[ns->level - 1].nr;
}

struct rp_pidns *rp_task_pidns(struct rp_task *t)
{
	return rp_pid_ns(t->pid);
}

int rp_pid_vnr(struct rp_pid *pid, struct rp_task *self)
{
	return rp_pid_nr_ns(pid, rp_task_pidns(self));
}

pid_t rp_own_vnr(struct rp_task *self, struct rp_pid *pid)
{
	pid_t nr;

	if (!pid->nested)
		return pid->nr;
	rp_read_lock(&self->sys->sync);
	nr = rp_pid_vnr(pid, self);
	rp_read_unlock(&self->sys->sync);
	return nr;
}

bool rp_is_ns_init_rcu(struct rp_task *t)
{
	struct rp_pid *tgid = rp_signal_leader_pid(t->signal);
	struct rp_pid_levels *lv;

	if (!tgid->nested)
		return rp_is_global_init(t);
	lv = levels_of(tgid);
	return lv && lv->up[lv->level - 1].nr == 1;
}

bool rp_is_ns_init(struct rp_task *t)
{
	bool init;

	if (!rp_signal_leader_pid(t->signal)->nested)
		return rp_is_global_init(t);
	rp_read_lock(&t->sys->sync);
	init = rp_is_ns_init_rcu(t);
	rp_read_unlock(&t->sys->sync);
	return init;
}

struct rp_pid *rp_pid_find_ns_rcu(struct rp_pidns *ns, int nr)
{
	struct rp_upid *up;

	rp_assert_read_section(&ns->sys->sync);
	if (!ns->level)
		return rp_pid_find_rcu(ns->sys, nr);
	if (nr <= 0 || nr >= RP_PID_MAX_LIMIT)
		return NULL;
	/* Pairs with rcu_assign_pointer in rp_bucket_add (rp_pid_levels_publish). */
	cds_hlist_for_each_entry_rcu_2(up, nr_bucket(tables(ns->sys), ns, nr), hash)
		if (up->ns == ns && up->nr == nr)
			return up->pid;
	return NULL;
}

bool rp_pidns_had_init_rcu(struct rp_pidns *ns)
{
	/*
	 * Its pid 1 is published in the hold that links init (the gate held:
	 * a fork that then uses a handle of @ns waits for that hold to end),
	 * or its end or a failed first fork marked it dying.  Not had_init:
	 * that one is true from the claim of number 1, while the first fork
	 * is still in flight, as alloc_pid's set_tid check wants.
	 */
	return !ns->level || rp_pid_find_ns_rcu(ns, 1) || CMM_LOAD_SHARED(ns->dying);
}

/* Give back the numbers of @lv's levels from @from up to the deepest. */
static void give_back(struct rp_pid_levels *lv, unsigned int from)
{
	for (unsigned int i = from; i < lv->level; i++)
		rp_pidmap_free(&lv->up[i].ns->pidmap, lv->up[i].nr);
}

/*
 * Has @ns had an init (Linux's child_reaper, set by its first fork and
 * kept after it)?  Its number 1 is taken, or it is dying.
 */
static bool had_init(struct rp_pidns *ns)
{
	return !ns->level || rp_pidmap_used(&ns->pidmap, 1) || CMM_LOAD_SHARED(ns->dying);
}

int rp_pidns_take_nr(struct rp_pidns *ns, unsigned int child_level, const struct rp_set_tid *st,
		     unsigned int *order)
{
	unsigned int at = child_level - ns->level;	/* set_tid's index of this level */
	pid_t want;

	if (!st || at >= st->size)
		return order ? rp_pidmap_alloc_ordered(&ns->pidmap, order) :
			       rp_pidmap_alloc(&ns->pidmap);
	want = st->tid[at];
	if (want < 1 || want >= (pid_t)uatomic_read(&ns->pidmap.max))
		return -EINVAL;
	/* alloc_pid: a number other than 1 only where there is an init. */
	if (want != 1 && !had_init(ns))
		return -EINVAL;
	if (!st->capable)
		return -EPERM;
	if (rp_pidmap_claim(&ns->pidmap, want))
		return -EEXIST;		/* idr_alloc's ENOSPC: in use */
	if (order)	/* a place in the order all the same (a write a plain fork never makes) */
		*order = rp_pidmap_next_order(&ns->pidmap);
	return want;
}

struct rp_pid_levels *rp_pid_levels_alloc(struct rp_pidns *ns, const struct rp_set_tid *st,
					  int *err)
{
	struct rp_pid_levels *lv = rp_zalloc(sizeof(*lv) + ns->level * sizeof(lv->up[0]));
	struct rp_pidns *at = ns;

	if (!lv) {
		*err = -ENOMEM;
		return NULL;
	}
	lv->level = ns->level;
	lv->sys = ns->sys;
	/*
	 * The deepest first, as alloc_pid: the namespace the task goes into
	 * is the smallest and the likeliest to be full, so a failure gives
	 * back the fewest numbers.
	 */
	for (unsigned int i = ns->level; i > 0; i--, at = at->parent) {
		int nr = rp_pidns_take_nr(at, ns->level, st, NULL);

		if (nr < 0) {
			give_back(lv, i);
			rp_free(lv);
			*err = nr;
			return NULL;
		}
		lv->up[i - 1].ns = at;
		lv->up[i - 1].nr = nr;
	}
	rp_pidns_get(ns);
	return lv;
}

void rp_pid_levels_free_unpublished(struct rp_pid_levels *lv)
{
	give_back(lv, 0);
	rp_pidns_put(lv->up[lv->level - 1].ns);
	rp_free(lv);
}

/*
 * One pid more numbered in @ns.  Under the gate shared two forks into one
 * namespace count at once, and a plain release's decrement (pid_gone)
 * meets them, so the add is atomic; every read that decides (an init's
 * end) is made under the gate exclusive, which waits for every shared
 * holder, so none of them meets an add in flight.
 * RP_BREAK_NS_COUNT_UNLOCKED adds by a plain load and store: two forks
 * side by side count one pid.
 */
static void pid_counted(struct rp_pidns *ns)
{
#ifdef RP_BREAK_NS_COUNT_UNLOCKED
	unsigned int n = CMM_LOAD_SHARED(ns->nr_pids);

	RP_RACE_POINT(RP_RACE_NS_COUNT, NULL);
	CMM_STORE_SHARED(ns->nr_pids, n + 1);
#else
	RP_RACE_POINT(RP_RACE_NS_COUNT, NULL);
	uatomic_inc(&ns->nr_pids);
#endif
}

void rp_pid_levels_publish(struct rp_pid_levels *lv)
{
	struct rp_pidns_tables *tb = lv->sys->pidns_tables;

	/* A fork into an open namespace takes the gate shared (proc/fork.c). */
	RP_DEBUG_BUG_ON(!rp_update_section_here(&lv->sys->sync));
	/* Complete before found: rp_bucket_add's rcu_assign_pointer. */
	rp_bucket_add(&lv->sys->sync, pid_lock(tb, lv->pid), &lv->hash, pid_bucket(tb, lv->pid));
	for (unsigned int i = 0; i < lv->level; i++) {
		struct rp_upid *up = &lv->up[i];

		pid_counted(up->ns);
		up->pid = lv->pid;
		rp_bucket_add(&lv->sys->sync, nr_lock(tb, up), &up->hash,
			      nr_bucket(tb, up->ns, up->nr));
	}
}

/*
 * RP_BREAK_NS_UNCOUNT_UNLOCKED takes a pid off its namespace's count by a
 * plain load and store: two plain releases side by side, or a release
 * beside a fork's add, lose one of the two writes.
 */
static unsigned int uncount(struct rp_pidns *ns)
{
#ifdef RP_BREAK_NS_UNCOUNT_UNLOCKED
	unsigned int n = CMM_LOAD_SHARED(ns->nr_pids);

	RP_BUG_ON(!n);
	RP_RACE_POINT(RP_RACE_NS_UNCOUNT, NULL);
	CMM_STORE_SHARED(ns->nr_pids, n - 1);
	return n - 1;
#else
	RP_RACE_POINT(RP_RACE_NS_UNCOUNT, NULL);
	return uatomic_sub_return(&ns->nr_pids, 1);
#endif
}

/*
 * One pid fewer numbered in @ns: at its ending init's own, that init's
 * exit completes at the end of this update section, when this pid's
 * numbers are given back and whatever freed it is done.  Under the
 * update lock, or the gate shared for a plain release of a pid whose
 * namespaces are all open (rp_pid_levels_open): none has ended, so no
 * init waits on its count (settle_at is set in the exclusive hold that
 * ends it) and its init's own pid keeps the count above 0.  An end
 * waits for the gate exclusive, so a shared decrement comes wholly
 * before it (and is counted in what it reads) or, the namespace then
 * dying, is not made shared.  Shared decrements and adds meet each
 * other only: atomic (uncount).
 */
static void pid_gone(struct rp_pidns *ns)
{
	unsigned int n = uncount(ns);

	RP_BUG_ON(n + 1 == 0);
	if (n != ns->settle_at || !ns->settle_at)
		return;
	rp_assert_update_held(&ns->sys->sync);
	ns->settle_at = 0;
	rp_update_work_add(&ns->sys->sync, &ns->settle, ns->settle.fn);
}

bool rp_pid_levels_open(struct rp_pid *pid)
{
	struct rp_pid_levels *lv;

	if (!pid->nested)
		return true;
	lv = levels_of(pid);
	if (!lv)
		return false;
	for (unsigned int i = 0; i < lv->level; i++)
		if (CMM_LOAD_SHARED(lv->up[i].ns->dying))
			return false;
	return true;
}

/*
 * The record of @pid, whose last detach or release the caller makes:
 * under the update lock, or under the gate shared with @pid's namespaces
 * all open (pid_gone), in a read section of our own for the lookup
 * (debug builds stop at a shared one whose namespaces are not).  @lv
 * stays after it: its release is the caller's to make (pid_release).
 */
static struct rp_pid_levels *levels_detached(struct rp_pid *pid)
{
	struct rp_sync *sync = &rp_pid_sys(pid)->sync;
	struct rp_pid_levels *lv;

	if (rp_update_held_here(sync))
		return levels_held(pid);
	RP_DEBUG_BUG_ON(!rp_update_section_here(sync));
	rp_read_lock(sync);
	lv = levels_held(pid);
	RP_DEBUG_BUG_ON(!rp_pid_levels_open(pid));
	rp_read_unlock(sync);
	return lv;
}

void rp_pid_levels_unpublish(struct rp_pid *pid)
{
	struct rp_sync *sync = &rp_pid_sys(pid)->sync;
	struct rp_pid_levels *lv;

	lv = levels_detached(pid);
	for (unsigned int i = 0; i < lv->level; i++) {
		rp_bucket_del(&lv->sys->sync, nr_lock(lv->sys->pidns_tables, &lv->up[i]),
			      &lv->up[i].hash);
		pid_gone(lv->up[i].ns);
	}
	/*
	 * Its namespace's pid 1 gone: the namespace takes no pid any more, as
	 * Linux's free_pid clears PIDNS_ADDING after a failed first fork.  An
	 * init that ran closed it already at its exit (src/proc/exit.c,
	 * zap_pid_ns); this is for the fork that was to make it and failed.
	 * Under the update lock, as the check (a plain release never frees
	 * an init's pid: its namespace is dying by then).
	 */
	if (lv->up[lv->level - 1].nr == 1) {
		rp_assert_update_held(sync);
		lv->up[lv->level - 1].ns->dying = true;
	}
	give_back(lv, 0);
}

static void levels_free(struct rp_deferred *d)
{
	struct rp_pid_levels *lv = caa_container_of(d, struct rp_pid_levels, rcu);

	rp_pidns_put(lv->up[lv->level - 1].ns);
	rp_free(lv);
}

void rp_pid_levels_release(struct rp_pid *pid)
{
	struct rp_pid_levels *lv = levels_detached(pid);

	rp_bucket_del(&lv->sys->sync, pid_lock(lv->sys->pidns_tables, pid), &lv->hash);
	rp_defer_release(&lv->sys->sync, &lv->rcu, levels_free);
}

/* The record of @t's pid_for_children, if it has one. */
static struct rp_ns_children *children_of(struct rp_task *t)
{
	struct rp_pidns_tables *tb = tables(t->sys);
	struct rp_ns_children *c;

	rp_assert_read_section(&t->sys->sync);
	if (!tb)
		return NULL;
	/* Pairs with rcu_assign_pointer in rp_bucket_add (rp_task_set_ns_children). */
	cds_hlist_for_each_entry_rcu_2(c, task_bucket(tb, t), hash)
		if (c->task == t)
			return c;
	return NULL;
}

struct rp_pidns *rp_task_ns_children_rcu(struct rp_task *t)
{
	struct rp_ns_children *c;

	/* Set and cleared by @t itself, then by its release. */
	if (!(CMM_LOAD_SHARED(t->flags) & RP_PF_NS_CHILDREN))
		return rp_task_pidns(t);
	c = children_of(t);
	return c ? c->ns : rp_task_pidns(t);
}

static void children_free(struct rp_deferred *d)
{
	struct rp_ns_children *c = caa_container_of(d, struct rp_ns_children, rcu);

	rp_pidns_put(c->ns);
	rp_free(c);
}

void rp_task_drop_ns_children(struct rp_task *t)
{
	struct rp_ns_children *c;

	rp_assert_update_held(&t->sys->sync);
	if (!(t->flags & RP_PF_NS_CHILDREN))
		return;
	c = children_of(t);
	rp_bucket_del(&t->sys->sync, task_lock(t->sys->pidns_tables, t), &c->hash);
	rp_defer_release(&t->sys->sync, &c->rcu, children_free);
	CMM_STORE_SHARED(t->flags, t->flags & ~RP_PF_NS_CHILDREN);
}

int rp_task_set_ns_children(struct rp_task *self, struct rp_pidns *ns)
{
	struct rp_ns_children *c = NULL;

	if (ns) {
		c = rp_zalloc(sizeof(*c));
		if (!c)
			return -ENOMEM;
		c->task = self;
		c->ns = rp_pidns_get(ns);
		c->sys = self->sys;
	}
	rp_update_lock(&self->sys->sync);
	rp_task_drop_ns_children(self);
	if (c) {
		struct rp_pidns_tables *tb = self->sys->pidns_tables;

		/* Complete before found: rp_bucket_add's rcu_assign_pointer. */
		rp_bucket_add(&self->sys->sync, task_lock(tb, self), &c->hash, task_bucket(tb, self));
		CMM_STORE_SHARED(self->flags, self->flags | RP_PF_NS_CHILDREN);
	}
	rp_update_unlock(&self->sys->sync);
	return 0;
}

bool rp_pidns_await_pids(struct rp_pidns *ns, struct rp_task *init, unsigned int own,
			 void (*complete)(struct rp_update_work *))
{
	rp_assert_update_held(&ns->sys->sync);
	RP_BUG_ON(!own || ns->nr_pids < own || ns->waiter);
	if (ns->nr_pids == own)
		return false;
	ns->waiter = init;
	ns->settle.fn = complete;
	ns->settle_at = own;
	return true;
}

struct rp_task *rp_pidns_waiter(struct rp_update_work *w)
{
	struct rp_pidns *ns = caa_container_of(w, struct rp_pidns, settle);
	struct rp_task *init = ns->waiter;

	rp_assert_update_held(&ns->sys->sync);
	ns->waiter = NULL;
	return init;
}

void rp_pidns_end(struct rp_pidns *ns, struct rp_task *init)
{
	rp_assert_update_held(&ns->sys->sync);
	ns->dying = true;
	ns->ending = init->signal;
}

bool rp_reaps_in_exit(struct rp_task *t)
{
	struct rp_pid *tgid = rp_signal_leader_pid(t->signal);
	struct rp_pidns *ns;

	/* A plain exit's notice asks with the gate shared: ending is written exclusive. */
	if (!tgid->nested)
		return false;
	RP_DEBUG_BUG_ON(!rp_update_section_here(&t->sys->sync));
	ns = rp_pid_ns(tgid);
	/* Only a process of @ns compares: no other is ever published in it again. */
	return ns && ns->ending == t->signal;
}
