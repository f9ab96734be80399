/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Concurrent tests of the RCU list toolkit: every self-check in every mode
 * must finish with no violation and no leaked node, having really run
 * (readers walked, the updater updated).  The same file built with an
 * RP_BREAK_* switch must fail (tests/meson.build, the broken matrix).
 *
 * RP_TEST_SECONDS sets how long each check runs (default 1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu/uatomic.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include "debug/racepoint.h"
#include "verify/selfcheck.h"
#include "../common.h"

static void expect_clean(enum rp_check_kind kind, enum rp_sync_mode mode)
{
	struct rp_check_opts opts = {
		.mode = mode, .readers = 2, .seconds = test_seconds(), .seed = 1,
	};
	struct rp_check_result r;
	int err = rp_check_run(kind, &opts, &r);

	cr_assert_eq(err, 0, "%s could not run: %d", rp_check_name(kind), err);
	cr_log_info("%s/%s: %llu walks, %llu updates, %llu restarts in %.2f s",
		    rp_check_name(kind), rp_sync_mode_name(mode),
		    (unsigned long long)r.walks, (unsigned long long)r.updates,
		    (unsigned long long)r.restarts, r.seconds);
	cr_assert_eq(r.report.violations, 0, "%s/%s: %llu violations, first: %s",
		     rp_check_name(kind), rp_sync_mode_name(mode),
		     (unsigned long long)r.report.violations, r.report.first[0]);
	cr_assert_eq(r.leaked, 0, "%llu nodes leaked", (unsigned long long)r.leaked);
	cr_assert_gt(r.walks, 0, "no reader walked");
	cr_assert_gt(r.updates, 0, "the updater never updated");
}

#define CHECK_IN_EVERY_MODE(suite, kind)				\
	Test(suite, rcu, .timeout = 300) { expect_clean(kind, RP_SYNC_RCU); } \
	Test(suite, rwlock, .timeout = 300) { expect_clean(kind, RP_SYNC_RWLOCK); } \
	Test(suite, qrwlock, .timeout = 300) { expect_clean(kind, RP_SYNC_QRWLOCK); }

CHECK_IN_EVERY_MODE(hlist_existence, RP_CHECK_HLIST_EXISTENCE)
CHECK_IN_EVERY_MODE(hlist_splice, RP_CHECK_HLIST_SPLICE)
CHECK_IN_EVERY_MODE(nulls_move, RP_CHECK_NULLS_MOVE)
CHECK_IN_EVERY_MODE(list_retry, RP_CHECK_LIST_RETRY)
CHECK_IN_EVERY_MODE(list_splice, RP_CHECK_LIST_SPLICE)

/* The seqcount's readers take no lock: the mode makes no difference. */
Test(seqcount, lockfree, .timeout = 300)
{
	expect_clean(RP_CHECK_SEQCOUNT, RP_SYNC_RCU);
}

/* Bad options are refused, as the header says. */
Test(selfcheck, rejects_bad_options)
{
	struct rp_check_opts opts = { .mode = RP_SYNC_RCU, .readers = 1, .seconds = 0.1 };
	struct rp_check_result r;
	enum rp_check_kind kind;

	cr_assert_eq(rp_check_run(RP_CHECK_NR, &opts, &r), -EINVAL);
	opts.readers = 0;
	cr_assert_eq(rp_check_run(RP_CHECK_SEQCOUNT, &opts, &r), -EINVAL);
	opts.readers = 1;
	opts.seconds = 0;
	cr_assert_eq(rp_check_run(RP_CHECK_SEQCOUNT, &opts, &r), -EINVAL);
	opts.seconds = 0.1;
	opts.grace = -1;
	cr_assert_eq(rp_check_run(RP_CHECK_SEQCOUNT, &opts, &r), -EINVAL);
	opts.grace = 0;
	opts.mode = RP_SYNC_NONE;	/* no concurrency check without synchronization */
	cr_assert_eq(rp_check_run(RP_CHECK_SEQCOUNT, &opts, &r), -EINVAL);
	cr_assert_eq(rp_check_parse("no-such-check", &kind), -EINVAL);
	cr_assert_eq(rp_check_parse("list-retry", &kind), 0);
	cr_assert_eq(kind, RP_CHECK_LIST_RETRY);
	cr_assert_null(rp_check_name(RP_CHECK_NR));
}

/*
 * A check that did not run must not pass: a run far shorter than a thread
 * start still sees every reader walk and the updater update (before, each
 * thread saw the deadline passed at its first look and did nothing).
 */
Test(selfcheck, every_thread_steps_in_a_short_run, .timeout = 300)
{
	struct rp_check_opts opts = { .mode = RP_SYNC_RCU, .readers = 2, .seconds = 1e-9 };
	struct rp_check_result r;

	for (int kind = 0; kind < RP_CHECK_NR; kind++) {
		cr_assert_eq(rp_check_run(kind, &opts, &r), 0, "%s", rp_check_name(kind));
		cr_assert_eq(r.report.violations, 0, "%s: %s", rp_check_name(kind),
			     r.report.first[0]);
		cr_assert_geq(r.walks, opts.readers, "%s: %llu walks", rp_check_name(kind),
			      (unsigned long long)r.walks);
		cr_assert_geq(r.updates, 1, "%s", rp_check_name(kind));
	}
}

/*
 * ... and a thread that never steps makes the run fail, not pass with
 * nothing checked.  The first reader is held at its start until its own
 * entry time plus the run's length and grace have passed: it entered after
 * the run started, so by then the run has given up on it, and its first
 * look at the clock sends it home with no walk.  The schedule decides, not
 * the machine's load.
 */
#define HELD_SECONDS	0.01
#define HELD_GRACE	0.05

static int held_readers;

static void hold_first_reader(enum rp_race_point where, struct rp_task *t)
{
	struct timespec until;

	(void)t;
	if (where != RP_RACE_CHECK_READER_STARTS || uatomic_add_return(&held_readers, 1) != 1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += (long)((HELD_SECONDS + HELD_GRACE + 0.01) * 1e9);
	until.tv_sec += until.tv_nsec / 1000000000L;
	until.tv_nsec %= 1000000000L;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL))
		;
}

Test(selfcheck, a_thread_that_never_steps_fails_the_run, .timeout = 300)
{
	struct rp_check_opts opts = {
		.mode = RP_SYNC_RCU, .readers = 2, .seconds = HELD_SECONDS,
		.grace = HELD_GRACE,
	};
	struct rp_check_result r;
	unsigned int idle = 0;

	held_readers = 0;
	rp_debug_race_hook(hold_first_reader);
	cr_assert_eq(rp_check_run(RP_CHECK_HLIST_EXISTENCE, &opts, &r), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(held_readers, 2, "both readers passed the race point");
	cr_assert_geq(r.report.violations, 1, "a reader never walked, yet the run passed");
	/*
	 * The held reader at least; on a loaded machine the other two may
	 * also have had no CPU for the run's few tens of milliseconds.
	 */
	cr_assert(sscanf(r.report.first[0], "did not run: %u of 3 threads", &idle) == 1 &&
		  idle >= 1 && idle <= 3, "first violation: %s", r.report.first[0]);
}
