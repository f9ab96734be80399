/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/sync.h: the three synchronization modes, chosen at run time.
 *
 *	rcu	readers run under liburcu's rcu_read_lock; updaters take one
 *		update mutex; unlinked objects are freed after a grace period.
 *	rwlock	one global pthread rwlock (reader-preferring, as glibc's
 *		default and Linux's rwlock_t before qrwlock) taken by every
 *		reader and updater, as tasklist_lock was before RCU signal
 *		delivery (2006); objects are freed at once.
 *	qrwlock	the same with a fair queued rwlock modelled on Linux's qrwlock.
 *
 * Every thread that uses rcuproc registers itself first.
 */
#ifndef RCUPROC_SYNC_H
#define RCUPROC_SYNC_H

enum rp_sync_mode {
	RP_SYNC_RCU,
	RP_SYNC_RWLOCK,
	RP_SYNC_QRWLOCK,
	RP_SYNC_NR_MODES,
	/*
	 * No synchronization: read and update sections take nothing and frees
	 * run at once.  One thread only: the benchmark's physical limit.  Not
	 * among the modes that loops up to RP_SYNC_NR_MODES visit, nor parsed.
	 */
	RP_SYNC_NONE = RP_SYNC_NR_MODES
};

/* "rcu", "rwlock", "qrwlock", "none"; NULL for a value out of range. */
const char *rp_sync_mode_name(enum rp_sync_mode mode);

/* Parse a mode name: 0, or -EINVAL for an unknown name. */
int rp_sync_mode_parse(const char *name, enum rp_sync_mode *mode);

/* liburcu flavour this library was built with: "memb" or "qsbr". */
const char *rp_rcu_flavour(void);

/*
 * Register the calling thread with liburcu (required before any other call).
 * Calls nest: each register needs its unregister.
 */
void rp_thread_register(void);
void rp_thread_unregister(void);

/* Deferred frees queued and not yet run, process-wide (I7's backlog). */
unsigned long rp_deferred_backlog(void);

/* Wait until every deferred free queued so far has run. */
void rp_deferred_barrier(void);

#endif /* RCUPROC_SYNC_H */
