/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What every test file of the suite shares: run length, clocks, modes. */
#ifndef RP_TESTS_COMMON_H
#define RP_TESTS_COMMON_H

#include <stdlib.h>
#include <time.h>
#include <criterion/criterion.h>
#include <rcuproc/sync.h>

/* Real-time signals glibc's sigaddset accepts (it keeps 32 and 33). */
#define RT(n)		(34 + (n))
#define THREAD_FLAGS	(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM)

/* How long each concurrency test runs: RP_TEST_SECONDS, default 1. */
static inline double test_seconds(void)
{
	const char *s = getenv("RP_TEST_SECONDS");
	double v = s ? atof(s) : 0;

	return v > 0 ? v : 1.0;
}

/*
 * How long a test waits for another thread to make progress before it calls
 * that a hang.  It is a hang detector, never a verdict on speed: on a machine
 * loaded with other work a thread can wait seconds for a CPU, so the bound is
 * as generous as the longest broken-twin run (the broken_seconds option).
 */
#define TEST_HANG_SECONDS	60

/*
 * No test sets Criterion's own timeout (.timeout): Criterion 2.4.1's timeout
 * machinery can leave its runner waiting for ever for a worker that has
 * already died (seen once: a broken twin's worker crashed, as it should,
 * and the runner sat in pthread_cond_wait until meson's 600-s timeout made
 * the caught twin a TIMEOUT; Criterion's issue #345 reports the same hang
 * with timeouts).  A test of the fixture (tests/fixture/fixture.h) that
 * hangs aborts at its hang bound, before meson's timeout (tests/meson.build)
 * would end it as a TIMEOUT, which no twin's row may be.  The
 * runner's wait for a dead worker also happens without a timeout; the
 * matrix rows run under tests/broken-row.sh, which ends it.
 */

/* Monotonic seconds. */
static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	nanosleep(&ts, NULL);
}

/*
 * One Criterion test per synchronization mode, named after the mode, each
 * calling @fn(mode); extra arguments are Criterion test options.
 */
#define TEST_EACH_MODE(suite, fn, ...)						\
	Test(suite, rcu, ##__VA_ARGS__) { fn(RP_SYNC_RCU); }			\
	Test(suite, rwlock, ##__VA_ARGS__) { fn(RP_SYNC_RWLOCK); }		\
	Test(suite, qrwlock, ##__VA_ARGS__) { fn(RP_SYNC_QRWLOCK); }

/* The same, each calling @fn(mode, @arg): one scenario in one of its variants. */
#define TEST_EACH_MODE_WITH(suite, fn, arg, ...)				\
	Test(suite, rcu, ##__VA_ARGS__) { fn(RP_SYNC_RCU, arg); }		\
	Test(suite, rwlock, ##__VA_ARGS__) { fn(RP_SYNC_RWLOCK, arg); }		\
	Test(suite, qrwlock, ##__VA_ARGS__) { fn(RP_SYNC_QRWLOCK, arg); }

/* A loop over the three modes: @m is each in turn. */
#define FOR_EACH_MODE(m) \
	for (enum rp_sync_mode m = RP_SYNC_RCU; m <= RP_SYNC_QRWLOCK; m++)

#endif /* RP_TESTS_COMMON_H */
