/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pid allocator without a lock (src/task/pidmap.h): Linux's cyclic
 * order when one thread allocates, and no number held twice when several
 * allocate and free at once.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <criterion/criterion.h>
#include <urcu/uatomic.h>
#include "../common.h"
#include "../fixture/racehold.h"
#include "task/pidmap.h"

static struct rp_pidmap map;

static void map_init(unsigned int max)
{
	cr_assert_eq(rp_pidmap_init(&map, max), 0);
}

static void map_destroy(void)
{
	rp_pidmap_destroy(&map);
}

/* Every number of 1..@max-1 free: each allocated once, then EAGAIN; all freed. */
static void expect_all_free(unsigned int max)
{
	static char got[RP_PID_MAX_LIMIT];
	unsigned int n;

	memset(got, 0, max);
	for (n = 1; n < max; n++) {
		int nr = rp_pidmap_alloc(&map);

		cr_assert(nr > 0 && nr < (int)max, "number %d of %u", nr, max);
		cr_assert_not(got[nr], "%d handed out twice", nr);
		got[nr] = 1;
	}
	cr_assert_eq(rp_pidmap_alloc(&map), -EAGAIN, "%u numbers left free", max - 1);
	for (n = 1; n < max; n++)
		rp_pidmap_free(&map, (int)n);
}

/* pid_max of 300 or less: the wrap goes to 1, as Linux's. */
Test(pidmap, small_max_wraps_to_1, .fini = map_destroy)
{
	map_init(10);
	for (int nr = 1; nr < 10; nr++)
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	rp_pidmap_free(&map, 4);
	rp_pidmap_free(&map, 2);
	cr_assert_eq(rp_pidmap_alloc(&map), 2, "after the wrap the first free from 1");
	cr_assert_eq(rp_pidmap_alloc(&map), 4);
	cr_assert_eq(rp_pidmap_alloc(&map), -EAGAIN);
}

/* A run of numbers in use is passed over; the search goes on after it. */
Test(pidmap, skips_full_words, .fini = map_destroy)
{
	map_init(1000);
	for (int nr = 1; nr < 200; nr++)
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	for (int nr = 1; nr < 200; nr++)
		if (nr != 130)
			rp_pidmap_free(&map, nr);
	rp_pidmap_set_max(&map, 200);		/* the cursor, 199, stays: below 200 */
	cr_assert_eq(rp_pidmap_alloc(&map), 1, "wrapped to 1 (pid_max 200)");
	rp_pidmap_free(&map, 1);
	rp_pidmap_set_max(&map, 1000);
	for (int nr = 2; nr < 130; nr++)
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	cr_assert_eq(rp_pidmap_alloc(&map), 131, "130 still in use");
}

/*
 * A cursor past a lowered pid_max wraps the next search to 300, as Linux's
 * alloc_pid (idr_alloc_cyclic from a cursor past the end, with pid_min
 * RESERVED_PIDS since the cursor is above it); raised again, the search
 * goes on after the cursor, which the lowering left where it was.
 */
Test(pidmap, lowered_max_wraps_to_reserved, .fini = map_destroy)
{
	map_init(1000);
	for (int nr = 1; nr <= 600; nr++)
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	for (int nr = 2; nr <= 600; nr++)
		rp_pidmap_free(&map, nr);
	rp_pidmap_set_max(&map, 500);
	cr_assert_eq(rp_pidmap_alloc(&map), 300, "Linux wraps to RESERVED_PIDS");
	rp_pidmap_free(&map, 300);
	rp_pidmap_set_max(&map, 1000);
	cr_assert_eq(rp_pidmap_alloc(&map), 301, "after the cursor");
}

/*
 * A cursor below 300 wraps to 1 even with a pid_max above 300: Linux picks
 * the wrap's start from the cursor, not from pid_max.  The cursor gets
 * below 300 while pid_max is 300 (a wrap to 1), and pid_max is raised
 * with every number above the cursor in use.
 */
Test(pidmap, wrap_below_reserved_goes_to_1, .fini = map_destroy)
{
	map_init(1000);
	for (int nr = 1; nr < 1000; nr++)
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	for (int nr = 2; nr <= 50; nr++)
		rp_pidmap_free(&map, nr);
	rp_pidmap_set_max(&map, 300);
	for (int nr = 2; nr <= 50; nr++)
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	rp_pidmap_free(&map, 10);
	rp_pidmap_set_max(&map, 1000);
	cr_assert_eq(rp_pidmap_alloc(&map), 10, "the cursor at 50: [51, 1000) in use, the "
		     "wrap goes to 1");
}

/*
 * claim_race: thread A found number 1 free and is held before its claim
 * (RP_RACE_PID_CLAIM) while this thread claims 1.  A's compare-and-swap
 * then fails, it looks again and takes 2.  A plain read-modify-write of the
 * word (RP_BREAK_PIDMAP_PLAIN_RMW) stores A's stale word over this claim:
 * both hand out 1, every time.
 */
static void *alloc_one(void *arg)
{
	*(int *)arg = rp_pidmap_alloc(&map);
	return NULL;
}

/* Thread *@a runs @fn(@arg), held at RP_RACE_PID_CLAIM; this thread's own claims pass. */
static void hold_at_claim(pthread_t *a, void *(*fn)(void *), void *arg)
{
	arm(RP_RACE_PID_CLAIM, NULL, true, false);
	cr_assert_eq(pthread_create(a, NULL, fn, arg), 0);
	cr_assert(await_reached(UINT_MAX));
}

/* Let thread @a go on, and wait for it. */
static void release_held(pthread_t a)
{
	release();
	cr_assert_eq(pthread_join(a, NULL), 0);
	rp_debug_race_hook(NULL);
}

Test(pidmap, claim_race, .fini = map_destroy)
{
	pthread_t a;
	int theirs = 0, ours;

	map_init(64);
	hold_at_claim(&a, alloc_one, &theirs);
	ours = rp_pidmap_alloc(&map);		/* the hook lets this one pass */
	release_held(a);
	cr_assert_eq(ours, 1);
	cr_assert_neq(theirs, ours, "number %d handed out twice", ours);
	cr_assert_eq(theirs, 2);
	rp_pidmap_free(&map, 1);
	rp_pidmap_free(&map, 2);
	expect_all_free(64);
}

/*
 * order_race: thread A read the cursor, and with it the count of
 * allocations, and is held before its claim while this thread takes a
 * number: A loses the cursor, searches again, and its place in the order
 * (a process's birth: docs/namespaces.md) must come after ours, from the
 * compare-and-swap that handed its number out.  RP_BREAK_PIDMAP_ORDER_STALE
 * keeps the count A read before its search: both get the first place.
 * Then ns_last_pid moves the number alone, a set_tid claim's place the
 * count alone.
 */
struct ordered {
	int nr;
	unsigned int order;
};

static void *alloc_ordered(void *arg)
{
	struct ordered *o = arg;

	o->nr = rp_pidmap_alloc_ordered(&map, &o->order);
	return NULL;
}

Test(pidmap, order_race, .fini = map_destroy)
{
	struct ordered theirs = { 0, 0 }, ours;
	pthread_t a;

	map_init(64);
	hold_at_claim(&a, alloc_ordered, &theirs);
	ours.nr = rp_pidmap_alloc_ordered(&map, &ours.order);	/* the hook lets this one pass */
	release_held(a);
	cr_assert_eq(ours.nr, 1);
	cr_assert_eq(theirs.nr, 2);
	cr_assert_eq(ours.order, 1);
	cr_assert_eq(theirs.order, 2, "A's place %u: shared with ours", theirs.order);
	rp_pidmap_set_last(&map, 40);
	cr_assert_eq(rp_pidmap_order(&map), 2, "ns_last_pid moved the count");
	cr_assert_eq(rp_pidmap_next_order(&map), 3);
	cr_assert_eq(rp_pidmap_last(&map), 40, "a set_tid's place moved the number");
	rp_pidmap_free(&map, 1);
	rp_pidmap_free(&map, 2);
	expect_all_free(64);
}

/*
 * stale_cursor: thread A read the cursor (0) and is held before claiming 1
 * while this thread takes 1 to 200 and frees 1 to 150.  A's claim of 1
 * then fails, and it finds 1 free again; but the cursor is at 200, so the
 * number A hands out must be 201, the next in cyclic order, not 1, which
 * the order would reach again only after wrapping.  Linux serializes the
 * search under a lock; a stale cursor must not undo that order.
 */
Test(pidmap, stale_cursor, .fini = map_destroy)
{
	pthread_t a;
	int theirs = 0;

	map_init(1000);
	hold_at_claim(&a, alloc_one, &theirs);
	for (int nr = 1; nr <= 200; nr++)	/* the hook lets these pass */
		cr_assert_eq(rp_pidmap_alloc(&map), nr);
	for (int nr = 1; nr <= 150; nr++)
		rp_pidmap_free(&map, nr);
	release_held(a);
	cr_assert_eq(theirs, 201, "a stale cursor handed out %d", theirs);
	cr_assert_eq(rp_pidmap_alloc(&map), 202, "the order goes on from A's number");
	for (int nr = 151; nr <= 202; nr++)
		rp_pidmap_free(&map, nr);
}

/*
 * ns_last_pid and clone3's set_tid: the next allocation follows a cursor
 * set anywhere below pid_max (to pid_max itself, it wraps); a number
 * claimed by itself does not move the cursor, and one in use is EEXIST.
 */
Test(pidmap, set_last_and_claim, .fini = map_destroy)
{
	map_init(1000);
	rp_pidmap_set_last(&map, 500);
	cr_assert_eq(rp_pidmap_last(&map), 500);
	cr_assert_eq(rp_pidmap_alloc(&map), 501);
	cr_assert_eq(rp_pidmap_claim(&map, 700), 0);
	cr_assert_eq(rp_pidmap_claim(&map, 700), -EEXIST);
	cr_assert_eq(rp_pidmap_last(&map), 501, "a claimed number leaves the cursor");
	rp_pidmap_set_last(&map, 699);
	cr_assert_eq(rp_pidmap_alloc(&map), 701, "700 is in use");
	rp_pidmap_set_last(&map, 1000);
	cr_assert_eq(rp_pidmap_alloc(&map), 300, "past pid_max: the wrap");
	rp_pidmap_set_last(&map, 0);
	cr_assert_eq(rp_pidmap_alloc(&map), 1);
	for (int nr = 1; nr < 1000; nr++)
		if (nr == 1 || nr == 300 || nr == 501 || nr == 700 || nr == 701)
			rp_pidmap_free(&map, nr);
	rp_pidmap_set_last(&map, 0);	/* past 300 the wrap would skip 1..299 */
	expect_all_free(1000);
}

/* One claim_exact job: claim the number given, the result in its place. */
static void *claim_given(void *arg)
{
	int *nr = arg;

	*nr = rp_pidmap_claim(&map, *nr);
	return NULL;
}

/*
 * exact_claim_race: thread A found number 5 free and is held before its
 * compare-and-swap (RP_RACE_PID_CLAIM) while this thread claims 5 +
 * RP_PIDMAP_ROWS, in the same word (the same row).  A's swap then fails,
 * it looks again and takes 5: both claims stand.  A plain
 * read-modify-write (RP_BREAK_PIDMAP_PLAIN_RMW) stores A's stale word over
 * the other claim, whose number is then free while held: claimed again,
 * every time.
 */
#define SAME_ROW	(5 + (int)RP_PIDMAP_ROWS)

Test(pidmap, exact_claim_race, .fini = map_destroy)
{
	pthread_t a;
	int theirs = 5;

	map_init(2 * RP_PIDMAP_ROWS);
	rp_pidmap_set_last(&map, 5);
	hold_at_claim(&a, claim_given, &theirs);
	cr_assert_eq(rp_pidmap_claim(&map, SAME_ROW), 0);	/* the hook lets this one pass */
	release_held(a);
	cr_assert_eq(theirs, 0);
	cr_assert_eq(rp_pidmap_claim(&map, SAME_ROW), -EEXIST,
		     "number %d, claimed, free again", SAME_ROW);
	cr_assert_eq(rp_pidmap_alloc(&map), 6);
	rp_pidmap_free(&map, 5);
	rp_pidmap_free(&map, 6);
	rp_pidmap_free(&map, SAME_ROW);
	rp_pidmap_set_last(&map, 0);	/* past 300 the wrap would skip 1..299 */
	expect_all_free(2 * RP_PIDMAP_ROWS);
}

/*
 * neighbours_apart: thread A found number 1 free and is held before its
 * compare-and-swap (RP_RACE_PID_CLAIM) while this thread claims 2 and
 * gives back 3, the numbers handed out around A's in the cursor's order.
 * They are in other rows (pidmap.h, "Layout"), so A's word is unchanged
 * and its swap succeeds at its first look: nothing of A's claim is on a
 * line its neighbours wrote.  With 64 consecutive numbers to a word
 * (RP_BREAK_PIDMAP_DENSE) the neighbours changed A's word and A looks
 * again, every time.
 */
static __thread bool counted;
static unsigned int counted_looks;

static void count_looks(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_PID_CLAIM && counted)
		uatomic_inc(&counted_looks);
	race_hook(where, t);
}

static void *alloc_counted(void *arg)
{
	counted = true;
	return alloc_one(arg);
}

Test(pidmap, neighbours_apart, .fini = map_destroy)
{
	pthread_t a;
	int theirs = 0;

	map_init(64);
	cr_assert_eq(rp_pidmap_claim(&map, 3), 0);
	counted_looks = 0;
	arm(RP_RACE_PID_CLAIM, NULL, true, false);
	rp_debug_race_hook(count_looks);
	cr_assert_eq(pthread_create(&a, NULL, alloc_counted, &theirs), 0);
	cr_assert(await_reached(UINT_MAX));
	cr_assert_eq(rp_pidmap_claim(&map, 2), 0);	/* the hook lets this one pass */
	rp_pidmap_free(&map, 3);
	release_held(a);
	cr_assert_eq(theirs, 1);
	cr_assert_eq(uatomic_read(&counted_looks), 1,
		     "a claim looked %u times at its word: its neighbours wrote it",
		     uatomic_read(&counted_looks));
	rp_pidmap_free(&map, 1);
	rp_pidmap_free(&map, 2);
	expect_all_free(64);
}

/*
 * The whole space, RP_PID_MAX_LIMIT numbers over every row and every word:
 * each handed out once in order, then EAGAIN; one given back in the middle
 * of the last row's words is found by the wrap, the search passing over
 * every other number in use.
 */
Test(pidmap, whole_space, .fini = map_destroy)
{
	const int mid = RP_PID_MAX_LIMIT / 2 + (int)RP_PIDMAP_ROWS - 1;

	map_init(RP_PID_MAX_LIMIT);
	for (int nr = 1; nr < RP_PID_MAX_LIMIT; nr++)
		if (rp_pidmap_alloc(&map) != nr)
			cr_assert_fail("number %d not handed out in order", nr);
	cr_assert_eq(rp_pidmap_alloc(&map), -EAGAIN);
	rp_pidmap_free(&map, mid);
	cr_assert_not(rp_pidmap_used(&map, mid));
	cr_assert(rp_pidmap_used(&map, mid - 1) && rp_pidmap_used(&map, mid + 1));
	cr_assert_eq(rp_pidmap_alloc(&map), mid);
	cr_assert_eq(rp_pidmap_alloc(&map), -EAGAIN);
	for (int nr = 1; nr < RP_PID_MAX_LIMIT; nr++)
		rp_pidmap_free(&map, nr);
	rp_pidmap_set_last(&map, 0);
	cr_assert_eq(rp_pidmap_alloc(&map), 1);
	rp_pidmap_free(&map, 1);
}

/*
 * last_set_race: thread A read the cursor (0) and is held before claiming
 * 1 while this thread sets ns_last_pid to 40.  A's move of the cursor then
 * fails, and it searches again from 40: it hands out 41.  An allocation
 * that keeps its number after losing the cursor
 * (RP_BREAK_PIDMAP_STALE_CURSOR) hands out 1, every time.
 */
Test(pidmap, last_set_race, .fini = map_destroy)
{
	pthread_t a;
	int theirs = 0;

	map_init(64);
	hold_at_claim(&a, alloc_one, &theirs);
	rp_pidmap_set_last(&map, 40);
	release_held(a);
	cr_assert_eq(theirs, 41, "a write of ns_last_pid overlapped, and %d was handed out",
		     theirs);
	rp_pidmap_free(&map, 41);
	expect_all_free(64);
}

/*
 * pidmap_churn/numbers_unique: threads allocate and free over 64 numbers for the
 * test's run, each holding up to 8; every number handed out is marked as
 * its holder's, and a number already marked is a number held twice.  At
 * the end no number is lost: all are free again.
 */
#define CHURN_THREADS	4
#define CHURN_MAX	64
#define CHURN_HOLD	8

static unsigned long holder[CHURN_MAX];
static unsigned long churn_errors;

static void *churn(void *arg)
{
	unsigned long self = (unsigned long)arg;
	int held[CHURN_HOLD], n = 0;
	double end = now_seconds() + test_seconds();
	unsigned int seed = (unsigned int)self;

	while (now_seconds() < end && !uatomic_read(&churn_errors)) {
		for (int i = 0; i < 64; i++) {
			if (n < CHURN_HOLD && (n == 0 || rand_r(&seed) % 2)) {
				int nr = rp_pidmap_alloc(&map);

				if (nr == -EAGAIN)
					continue;	/* the others hold the rest */
				if (nr <= 0 || nr >= CHURN_MAX ||
				    uatomic_cmpxchg(&holder[nr], 0, self) != 0) {
					uatomic_inc(&churn_errors);
					return NULL;
				}
				held[n++] = nr;
			} else if (n > 0) {
				int k = (int)(rand_r(&seed) % (unsigned int)n), nr = held[k];

				held[k] = held[--n];
				uatomic_set(&holder[nr], 0);
				rp_pidmap_free(&map, nr);
			}
		}
	}
	while (n > 0) {
		uatomic_set(&holder[held[--n]], 0);
		rp_pidmap_free(&map, held[n]);
	}
	return NULL;
}

Test(pidmap_churn, numbers_unique, .fini = map_destroy)
{
	pthread_t th[CHURN_THREADS];

	map_init(CHURN_MAX);
	for (unsigned long i = 0; i < CHURN_THREADS; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < CHURN_THREADS; i++)
		cr_assert_eq(pthread_join(th[i], NULL), 0);
	cr_assert_eq(churn_errors, 0, "a number handed out twice");
	expect_all_free(CHURN_MAX);
}

/*
 * fork_numbers/unique_across_threads: the same through fork, which claims
 * its number before the update lock.  Two threads, each driving a parent
 * of its own, fork and reap children over pid_max 16 (init, the parents,
 * and 12 numbers left for up to 16 children: forks meet EAGAIN); each live
 * child's pid is marked as its parent's, and a pid already marked is a
 * number held twice.
 */
#define FORK_MAX	16
#define FORK_HOLD	8

static unsigned long fork_holder[FORK_MAX];

/* The child's pid unmarked, then the child exits and is reaped: 0 or -1. */
static int fork_end(struct rp_task *parent, struct rp_task *c)
{
	pid_t pid = rp_getpid(c);
	int status = -1;

	uatomic_set(&fork_holder[pid], 0);
	if (rp_exit_group(c, 0) != 0 || rp_wait4(parent, pid, &status, 0, NULL) != pid)
		return -1;
	rp_task_put(c);
	return 0;
}

static long fork_churn(struct job *j)
{
	struct rp_task *held[FORK_HOLD];
	double end = now_seconds() + test_seconds();
	unsigned int seed = (unsigned int)j->arg;
	int n = 0, errors = 0;

	while (now_seconds() < end && !errors) {
		if (n < FORK_HOLD && (n == 0 || rand_r(&seed) % 2)) {
			struct rp_task *c = NULL;
			pid_t pid = rp_fork(j->t, &c);

			if (pid == -EAGAIN)
				continue;	/* the other thread holds the rest */
			if (pid <= 1 || pid >= FORK_MAX ||
			    uatomic_cmpxchg(&fork_holder[pid], 0, (unsigned long)j->arg) != 0) {
				errors++;
				break;
			}
			held[n++] = c;
		} else if (n > 0) {
			int k = (int)(rand_r(&seed) % (unsigned int)n);
			struct rp_task *c = held[k];

			held[k] = held[--n];
			errors += fork_end(j->t, c) != 0;
		}
	}
	while (n > 0)
		errors += fork_end(j->t, held[--n]) != 0;
	return errors;
}

Test(fork_numbers, unique_across_threads)
{
	struct job jobs[2] = { { .arg = 1 }, { .arg = 2 } };
	struct rp_task *parents[2];

	start_with(RP_SYNC_RCU, FORK_MAX);
	for (int i = 0; i < 2; i++) {
		parents[i] = fork_of(init);
		job_start(&jobs[i], fork_churn, parents[i]);
	}
	for (int i = 0; i < 2; i++)
		cr_assert_eq(job_join(&jobs[i]), 0, "thread %d: a pid held twice, or a child not reaped", i);
	for (int i = 0; i < 2; i++)
		end_child(init, parents[i]);
	finish_all_reaped();
}
