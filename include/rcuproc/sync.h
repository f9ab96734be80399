/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rcuproc/sync.h: the three synchronization modes, chosen at run time.
 *
 *	rcu	readers run under liburcu's rcu_read_lock; unlinked objects
 *		are freed after a grace period.  Updaters go through an update
 *		gate: an operation converted to per-object locks takes it
 *		shared, every other one exclusive (one at a time, excluding
 *		the shared ones too).
 *	rcu-global  the same readers and frees, every updater under one
 *		update mutex: rcu mode before the gate, for comparison.
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

#include <rcuproc/export.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_sync_mode {
	RP_SYNC_RCU,
	RP_SYNC_RWLOCK,
	RP_SYNC_QRWLOCK,
	RP_SYNC_NR_MODES,
	/*
	 * rcu with every writer under one update mutex, as rcu mode was
	 * before its update gate: the baseline the gate is measured against.
	 * Parsed and named, but not among the modes that loops up to
	 * RP_SYNC_NR_MODES visit (the test suite's per-mode loops): its
	 * readers and frees are rcu mode's.
	 */
	RP_SYNC_RCU_GLOBAL = RP_SYNC_NR_MODES,
	RP_SYNC_NR_NAMED,		/* the modes a name selects */
	/*
	 * No synchronization: read and update sections take nothing and frees
	 * run at once.  One thread only: the benchmark's physical limit.  Not
	 * among the modes that loops up to RP_SYNC_NR_MODES visit, nor parsed.
	 */
	RP_SYNC_NONE = RP_SYNC_NR_NAMED
};

/* "rcu", "rwlock", "qrwlock", "rcu-global", "none"; NULL for a value out of range. */
RP_API const char *rp_sync_mode_name(enum rp_sync_mode mode);

/* Parse a mode name: 0, or -EINVAL for an unknown name. */
RP_API int rp_sync_mode_parse(const char *name, enum rp_sync_mode *mode);

/* liburcu flavour this library was built with: "memb" or "qsbr". */
RP_API const char *rp_rcu_flavour(void);

/*
 * Register the calling thread with liburcu (required before any other call).
 * Calls nest: each register needs its unregister, before the thread ends.
 * A registered thread is online.
 */
RP_API void rp_thread_register(void);
RP_API void rp_thread_unregister(void);

/*
 * QSBR: what a registered thread owes everyone else.  With the qsbr flavour
 * (rp_rcu_flavour()), memory freed by any thread is reclaimed only once
 * every registered, online thread has passed a quiescent state.  Every
 * rcuproc call announces one, but between calls the library cannot see the
 * thread.  So a registered thread that stops calling rcuproc for long
 * (sleeps, blocks on something else, computes) must either announce
 * quiescent states itself, or go offline while it is away:
 *
 *	rp_thread_quiescent()	"I hold no rcuproc pointer now": call it now
 *				and then in a long loop outside rcuproc;
 *	rp_thread_offline()	before blocking or leaving rcuproc for long;
 *	rp_thread_online()	before the next rcuproc call (an offline
 *				thread must not call rcuproc).
 *
 * Otherwise reclamation stops for the whole process: the deferred-free
 * backlog grows without end (under QSBR its bound, 65536 objects, is
 * soft: docs/sync.md), the library warns on stderr, and
 * rp_deferred_barrier never returns.  Do
 * not call rcuproc from inside your own liburcu read-side sections: its
 * calls announce quiescent states.  rp_thread_quiescent and
 * rp_thread_offline also hand the process's partial batch of deferred
 * frees to liburcu, so that its objects do not wait for later frees to
 * fill it.  With memb these three do nothing else but the debug builds'
 * accounting (below) and, with the backlog at its bound, the release of
 * the caller's own waiting frees after a grace period (docs/sync.md);
 * they are always safe to call outside a read-side section.
 */
RP_API void rp_thread_quiescent(void);
RP_API void rp_thread_offline(void);
RP_API void rp_thread_online(void);

/*
 * A library built with debug checks (the debug_checks build option; how
 * the caller is compiled makes no difference): quiescent states the calling
 * thread has announced so far (its rcuproc calls, rp_thread_quiescent,
 * going offline or online); 0 from other builds of the library.
 */
RP_API unsigned long rp_thread_quiescent_count(void);

/*
 * Debug builds: the registered threads, other than the caller, that are
 * online and have announced no quiescent state since a check at least
 * @seconds ago; each is also named on stderr, once per stall.  The first
 * one's name (pthread_setname_np, else its pthread id) goes to @name.
 * Returns how many, or -ENOSYS in builds without debug checks.  Under
 * QSBR, debug builds run this check themselves with 10 s while the backlog
 * grows and while rp_deferred_barrier waits; every build warns on stderr
 * when the backlog passes 32768 with no deferred free run while 65536
 * objects were queued.
 */
RP_API int rp_thread_stalls(double seconds, char *name, unsigned long len);

/*
 * Deferred frees handed over and not yet run, process-wide: the batch that
 * gathers up to 1024 of them before a thread waits for their grace period,
 * and those queued at liburcu (I7's backlog, at most 65536).
 */
RP_API unsigned long rp_deferred_backlog(void);

/* Wait until every deferred free queued so far has run. */
RP_API void rp_deferred_barrier(void);

#ifdef __cplusplus
}
#endif

#endif /* RCUPROC_SYNC_H */
