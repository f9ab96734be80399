/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Mode set-up, deferred release and grace periods; see sync.h. */
#include <errno.h>
#include <string.h>
#include "sync.h"

static const char *const mode_names[RP_SYNC_NONE + 1] = {
	[RP_SYNC_RCU] = "rcu",
	[RP_SYNC_RWLOCK] = "rwlock",
	[RP_SYNC_QRWLOCK] = "qrwlock",
	[RP_SYNC_NONE] = "none",
};

__thread char rp_thread_token;
__thread struct rp_read_nest rp_read_nest;

/* Deferred releases queued and not yet run (uatomic). */
static unsigned long deferred_pending;

const char *rp_sync_mode_name(enum rp_sync_mode mode)
{
	return (unsigned int)mode <= RP_SYNC_NONE ? mode_names[mode] : NULL;
}

int rp_sync_mode_parse(const char *name, enum rp_sync_mode *mode)
{
	for (int m = 0; m < RP_SYNC_NR_MODES; m++) {
		if (strcmp(name, mode_names[m]) == 0) {
			*mode = m;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rp_rcu_flavour(void)
{
#ifdef RP_RCU_QSBR
	return "qsbr";
#else
	return "memb";
#endif
}

/* Registrations may nest: liburcu is told at the first and the last. */
static __thread unsigned int registrations;

void rp_thread_register(void)
{
	if (registrations++ == 0)
		rcu_register_thread();
}

void rp_thread_unregister(void)
{
	if (--registrations == 0)
		rcu_unregister_thread();
}

unsigned long rp_deferred_backlog(void)
{
	return uatomic_read(&deferred_pending);
}

void rp_deferred_barrier(void)
{
	rp_lockdep_assert_may_synchronize();
	rp_sync_block_begin();
	/* A callback may queue another (a task's free puts its group): drain them all. */
	do
		rcu_barrier();
	while (uatomic_read(&deferred_pending));
	rp_sync_block_end();
}

void rp_sync_init(struct rp_sync *s, enum rp_sync_mode mode)
{
	s->mode = mode;
	s->update_owner = NULL;
	pthread_mutex_init(&s->update, NULL);
	/* glibc's default kind prefers readers: Linux's rwlock_t before qrwlock. */
	pthread_rwlock_init(&s->rw, NULL);
	rp_qrw_init(&s->qrw);
}

void rp_sync_destroy(struct rp_sync *s)
{
	pthread_mutex_destroy(&s->update);
	pthread_rwlock_destroy(&s->rw);
}

static void deferred_run(struct rcu_head *head)
{
	struct rp_deferred *d = caa_container_of(head, struct rp_deferred, rcu);

	uatomic_dec(&deferred_pending);
	d->release(d);
}

/* RP_BREAK_IMMEDIATE_FREE: rcu mode frees at once, with readers still inside. */
#ifdef RP_BREAK_IMMEDIATE_FREE
#define RCU_MODE_DEFERS false
#else
#define RCU_MODE_DEFERS true
#endif

void rp_defer_release(struct rp_sync *s, struct rp_deferred *d,
		      void (*release)(struct rp_deferred *))
{
	d->release = release;
	if (s->mode == RP_SYNC_RCU && RCU_MODE_DEFERS) {
		uatomic_inc(&deferred_pending);
		call_rcu(&d->rcu, deferred_run);
		return;
	}
	release(d);
}

void rp_sync_synchronize(struct rp_sync *s)
{
	rp_lockdep_assert_may_synchronize();
	if (s->mode == RP_SYNC_RCU)
		synchronize_rcu();
}

void rp_sync_synchronize_cb(void *sync)
{
	rp_sync_synchronize(sync);
}
