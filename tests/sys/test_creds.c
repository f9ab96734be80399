/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The two counts of src/task/cred.c that fork and release keep per thread
 * slot: RLIMIT_NPROC's count of a uid, batched in reserves, still gives
 * Linux's answers (a reserve is no room under a lower limit, the reserves
 * of other threads are room once taken back, and of two forks at the
 * limit at most one passes); and credentials counted in the rows outlive
 * every holder when their owner lets go of them while a get is on its way
 * to its row.
 */
#include <errno.h>
#include <sys/resource.h>
#include <criterion/criterion.h>
#include "../fixture/racehold.h"
#include "task/task.h"

/* fork as the job's task; the child's handle in child_of[j->arg]. */
static struct rp_task *child_of[2];

static long fork_job(struct job *j)
{
	return rp_fork(j->t, &child_of[j->arg]);
}

static void set_nproc(struct rp_task *t, rlim_t cur)
{
	struct rlimit r = { cur, RLIM_INFINITY };

	cr_assert_eq(rp_setrlimit(t, RLIMIT_NPROC, &r), 0);
}

/* A child of init that left root for uid 1000: the uid's first task. */
static struct rp_task *user_process(void)
{
	struct rp_task *p = fork_of(init);

	cr_assert_eq(rp_setresuid(p, 1000, 1000, 1000), 0);
	return p;
}

/*
 * Two forks at once at the limit: the first has counted its child and is
 * held before it compares; the second, which counts after it, must read
 * both and fail, and the first then passes.  RP_BREAK_NPROC_CHECK_FIRST
 * (compare, then count) lets both pass.
 */
static void two_forks_body(void)
{
	struct rp_task *p = user_process(), *q, *b = NULL;
	struct job a = { .arg = 0 };
	long got;

	set_nproc(p, 3);
	q = fork_of(p);			/* uid 1000: p and q */
	arm(RP_RACE_NPROC_COUNTED, p, true, true);
	race_count_jobs();
	job_start(&a, fork_job, p);
	cr_assert(await_reached(1), "the fork passed the point unheld");
	got = rp_fork(q, &b);
	release();
	cr_assert_gt(job_join(&a), 0, "the held fork counted first and fits: %ld", a.ret);
	if (got > 0)
		end_child(q, b);
	cr_expect_eq(got, -EAGAIN, "two forks at a limit of 3 with 2 tasks both passed (%ld)", got);
	cr_assert_eq(rp_fork(q, &b), -EAGAIN, "3 tasks of uid 1000 at a limit of 3");
	end_child(p, child_of[0]);
	end_child(p, q);
	end_child(init, p);
}

Test(nproc, two_forks_at_the_limit)
{
	FOR_EACH_MODE(m) {
		start(m);
		two_forks_body();
		finish_all_reaped();
	}
}

/*
 * A reserve in the thread's row, taken by a process of the uid without a
 * limit, is no room under another's lower limit.  RP_BREAK_NPROC_SPEND_UNCHECKED
 * spends it unchecked.
 */
static void reserve_body(void)
{
	struct rp_task *p = user_process(), *u, *c = NULL;
	long got;

	u = fork_of(p);			/* no limit: a batch into this thread's row */
	set_nproc(p, 2);
	got = rp_fork(p, &c);
	if (got > 0)
		end_child(p, c);
	cr_assert_eq(got, -EAGAIN, "a third task of uid 1000 under a limit of 2 (%ld)", got);
	end_child(p, u);
	end_child(init, p);
}

Test(nproc, reserve_is_no_room)
{
	FOR_EACH_MODE(m) {
		start(m);
		reserve_body();
		finish_all_reaped();
	}
}

/*
 * A reserve held in another thread's row is counted in the uid's count
 * until a comparison takes it back: a fork that fits the limit passes.
 * RP_BREAK_NPROC_NO_DRAIN fails it.
 */
static void drained_body(void)
{
	struct rp_task *p = user_process(), *u, *c = NULL;
	struct job a = { .arg = 0 };

	u = fork_of(p);
	job_start(&a, fork_job, u);	/* another thread: a batch into its row */
	cr_assert_gt(job_join(&a), 0);
	set_nproc(p, 4);		/* p, u, u's child and one more */
	cr_assert_gt(rp_fork(p, &c), 0, "4 tasks of uid 1000 under a limit of 4");
	cr_assert_eq(rp_fork(p, &child_of[1]), -EAGAIN, "a fifth under a limit of 4");
	end_child(p, c);
	end_child(u, child_of[0]);
	end_child(p, u);
	end_child(init, p);
}

Test(nproc, reserves_drained_for_the_limit)
{
	FOR_EACH_MODE(m) {
		start(m);
		drained_body();
		finish_all_reaped();
	}
}

/*
 * Credentials counted per slot (rcu mode): their owner replaces them
 * while another holder's fork has seen them counted in the rows and not
 * yet added its child's reference to its row (held there, in its read
 * section).  The fold waits for that section: the child's reference is
 * counted, and the credentials stay for their last holder.
 * RP_BREAK_CRED_FOLD_EARLY folds at once and loses it: the credentials
 * are freed under their holder: its uid reads the poison of the freed
 * object (ASan: use after poison), and one live credential is missing.
 * The child's put then comes before the fold (a deferred release waits
 * for the test's barrier: the reclaim batch is far from full), from
 * ->refs: RP_BREAK_CRED_NO_BIAS, without the bias that keeps ->refs above
 * 0 until the fold, frees them there.
 */
/* The credentials were freed under their holder: no teardown walks into them. */
static bool creds_lost;

static void finish_unless_lost(void)
{
	if (!creds_lost)
		finish();
}

Test(cred_fold, get_while_owner_lets_go, .init = start_rcu, .fini = finish_unless_lost)
{
	struct rp_system_counts before, after;
	struct rp_task *o, *x;
	struct job a = { .arg = 0 };

	rp_deferred_barrier();
	rp_system_counts(sys, &before);
	o = user_process();		/* owns new credentials, counted per slot */
	x = fork_of(o);			/* holds them too */
	arm(RP_RACE_CRED_PER_SLOT, NULL, true, false);
	race_count_jobs();
	job_start(&a, fork_job, x);
	cr_assert(await_reached(1), "the fork's get passed the point unheld");
	cr_assert_eq(rp_setresuid(o, 1000, 1000, 1000), 0);	/* new ones: the owner lets go */
	release();
	cr_assert_gt(job_join(&a), 0);
	end_child(x, child_of[0]);	/* the reference the held get took goes */
	rp_deferred_barrier();
	rp_system_counts(sys, &after);
	creds_lost = after.creds != before.creds + 2;
	cr_expect_eq(rp_getuid(x), 1000, "x's credentials were freed under it");
	cr_assert(!creds_lost, "live credentials: %lu, not init's, x's and o's new ones",
		  after.creds);
	end_child(o, x);
	end_child(init, o);
}

static long setresuid_job(struct job *j)
{
	return rp_setresuid(j->t, 1000, 1000, 1000);
}

/*
 * A task that becomes uid 1000 counts in uid 1000's RLIMIT_NPROC count
 * once anyone can see it as uid 1000: s is held after publishing its new
 * credentials, and p's fork (p and s at a limit of 2) must fail, as on
 * Linux, whose commit_creds counts before it publishes.
 * RP_BREAK_NPROC_COUNT_LATE counts after: the fork passes.
 */
static void commit_counts_body(void)
{
	struct rp_task *p = user_process(), *s, *b = NULL;
	struct job a = { .arg = 0 };
	long got;

	set_nproc(p, 2);
	s = fork_of(init);		/* root, about to become uid 1000 */
	arm(RP_RACE_CREDS_PUBLISHED, s, true, true);
	race_count_jobs();
	job_start(&a, setresuid_job, s);
	cr_assert(await_reached(1), "the setresuid passed the point unheld");
	cr_assert_eq(CMM_LOAD_SHARED(s->cred)->uid, 1000, "s is not seen as uid 1000 yet");
	got = rp_fork(p, &b);
	release();
	cr_assert_eq(job_join(&a), 0);
	if (got > 0)
		end_child(p, b);
	cr_expect_eq(got, -EAGAIN, "p and s of uid 1000 at a limit of 2, yet p's fork passed (%ld)",
		     got);
	end_child(init, s);
	end_child(init, p);
}

Test(nproc, commit_counts_before_publishing)
{
	FOR_EACH_MODE(m) {
		start(m);
		commit_counts_body();
		finish_all_reaped();
	}
}
