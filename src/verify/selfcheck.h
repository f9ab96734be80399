/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Concurrent self-checks of the RCU list toolkit, for the test suite and
 * `rcuproc selfcheck`.
 *
 * Each check runs reader threads that walk a structure while one updater
 * changes it with the toolkit's operations, in a chosen synchronization mode,
 * and counts every violation of what readers are promised (a node missed or
 * seen twice, a walk that does not end, a freed node touched, a torn copy).
 * The test suite asserts zero violations, and that each RP_BREAK_* build of
 * the operations is caught; the rcuproc command prints the results.
 */
#ifndef RP_LISTS_SELFCHECK_H
#define RP_LISTS_SELFCHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <rcuproc/sync.h>
#include "verify.h"

enum rp_check_kind {
	RP_CHECK_HLIST_EXISTENCE,	/* add/del/replace vs walkers (Group 2) */
	RP_CHECK_HLIST_SPLICE,		/* block moves vs walkers (Group 4) */
	RP_CHECK_NULLS_MOVE,		/* nulls lists, moves, restarts */
	RP_CHECK_LIST_RETRY,		/* mark obsolete + retry readers (Group 3) */
	RP_CHECK_LIST_SPLICE,		/* splice_init_rcu vs walkers */
	RP_CHECK_SEQCOUNT,		/* sequence count readers */
	RP_CHECK_NR
};

struct rp_check_opts {
	enum rp_sync_mode mode;
	unsigned int readers;		/* reader threads, >= 1 */
	double seconds;			/* run time; stops early on a violation */
	double grace;			/* how long past @seconds a thread that has
					   not stepped is waited for before the run
					   counts as not run (0: 60 s) */
	uint64_t seed;			/* random choices of readers and updater */
};

struct rp_check_result {
	uint64_t walks;			/* reader walks completed */
	uint64_t updates;		/* updater steps completed */
	uint64_t restarts;		/* walks restarted (retry patterns) */
	uint64_t leaked;		/* nodes still allocated after teardown */
	double seconds;			/* time actually run */
	struct rp_verify_report report;	/* broken promises seen, the first ones' text */
};

/* Short name ("hlist-splice") and the pattern it checks; NULL if out of range. */
const char *rp_check_name(enum rp_check_kind kind);
const char *rp_check_pattern(enum rp_check_kind kind);

/* Parse a check name: 0, or -EINVAL. */
int rp_check_parse(const char *name, enum rp_check_kind *kind);

/* False for checks whose readers take no lock (the mode makes no difference). */
bool rp_check_uses_mode(enum rp_check_kind kind);

/*
 * Run one check.  0 when it ran (look at @res->report.violations and
 * @res->leaked), -EINVAL for bad options, -ENOMEM or -EAGAIN if it could not be set up.
 * The calling thread need not be registered.
 */
int rp_check_run(enum rp_check_kind kind, const struct rp_check_opts *opts,
		 struct rp_check_result *res);

#endif /* RP_LISTS_SELFCHECK_H */
