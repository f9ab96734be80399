/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The queued rwlock: mutual exclusion, and fairness.  A reader that arrives
 * while a writer waits must queue behind the writer (writer_not_starved, a
 * fixed schedule); with RP_BREAK_READER_PREFERENCE the qrwlock's readers
 * ignore a waiting writer and that test fails in its first round.  How a
 * stream of readers treats the pthread rwlock (reader-preferring) is
 * measured and reported, not asserted.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include "sync/sync.h"

struct lock_ops {
	const char *name;
	void (*rdlock)(void *), (*rdunlock)(void *), (*wrlock)(void *), (*wrunlock)(void *);
	void *lock;
};

static void q_rd(void *l) { rp_qrw_read_lock(l); }
static void q_rdu(void *l) { rp_qrw_read_unlock(l); }
static void q_wr(void *l) { rp_qrw_write_lock(l); }
static void q_wru(void *l) { rp_qrw_write_unlock(l); }
static void p_rd(void *l) { pthread_rwlock_rdlock(l); }
static void p_wr(void *l) { pthread_rwlock_wrlock(l); }
static void p_un(void *l) { pthread_rwlock_unlock(l); }

static struct rp_qrwlock qlock;
static pthread_rwlock_t plock = PTHREAD_RWLOCK_INITIALIZER;

static struct lock_ops qrw_ops(void)
{
	rp_qrw_init(&qlock);
	return (struct lock_ops){ "qrwlock", q_rd, q_rdu, q_wr, q_wru, &qlock };
}

static struct lock_ops pthread_ops(void)
{
	return (struct lock_ops){ "pthread rwlock", p_rd, p_un, p_wr, p_un, &plock };
}

/* Mutual exclusion: shared state that only a writer may change. */
struct excl {
	struct lock_ops ops;
	int writers_in, readers_in;	/* uatomic */
	unsigned long a, b;		/* a == b outside a writer */
	unsigned long violations;	/* uatomic */
};

#define EXCL_ROUNDS 200000

static void *excl_writer(void *p)
{
	struct excl *e = p;

	for (int i = 0; i < EXCL_ROUNDS; i++) {
		e->ops.wrlock(e->ops.lock);
		if (uatomic_add_return(&e->writers_in, 1) != 1 || uatomic_read(&e->readers_in))
			uatomic_inc(&e->violations);
		CMM_STORE_SHARED(e->a, e->a + 1);
		caa_cpu_relax();
		CMM_STORE_SHARED(e->b, e->b + 1);
		uatomic_dec(&e->writers_in);
		e->ops.wrunlock(e->ops.lock);
	}
	return NULL;
}

static void *excl_reader(void *p)
{
	struct excl *e = p;

	for (int i = 0; i < EXCL_ROUNDS; i++) {
		e->ops.rdlock(e->ops.lock);
		uatomic_inc(&e->readers_in);
		if (uatomic_read(&e->writers_in) ||
		    CMM_LOAD_SHARED(e->a) != CMM_LOAD_SHARED(e->b))
			uatomic_inc(&e->violations);
		uatomic_dec(&e->readers_in);
		e->ops.rdunlock(e->ops.lock);
	}
	return NULL;
}

Test(qrwlock, mutual_exclusion, .timeout = 300)
{
	struct excl e = { .ops = qrw_ops() };
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, i < 2 ? excl_writer : excl_reader, &e);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(e.violations, 0, "%lu sections overlapped a writer", e.violations);
	cr_assert_eq(e.a, 2UL * EXCL_ROUNDS);
	cr_assert_eq(e.a, e.b);
	cr_assert_eq(qlock.cnts, 0, "lock word not back to 0: %#x", qlock.cnts);
}

/*
 * Starvation: READERS threads hold the read lock back to back, so that some
 * reader nearly always holds it.  One writer asks WRITES times, pausing in
 * between.  The readers stop when the writer is done or when they have taken
 * the lock READ_BUDGET times in all: a count, not a time, so the verdict does
 * not depend on the machine's speed.
 */
#define READERS		3
#define WRITES		20
#define READ_BUDGET	3000000UL

struct starve {
	struct lock_ops ops;
	unsigned long reads;		/* uatomic */
	int writes;			/* uatomic: writer acquisitions done */
	int stop;			/* uatomic */
};

static void *starve_reader(void *p)
{
	struct starve *s = p;

	while (!uatomic_read(&s->stop)) {
		s->ops.rdlock(s->ops.lock);
		for (int i = 0; i < 64; i++)
			caa_cpu_relax();
		s->ops.rdunlock(s->ops.lock);
		if (uatomic_add_return(&s->reads, 1) >= READ_BUDGET)
			uatomic_set(&s->stop, 1);
	}
	return NULL;
}

static void *starve_writer(void *p)
{
	struct starve *s = p;

	for (int i = 0; i < WRITES && !uatomic_read(&s->stop); i++) {
		s->ops.wrlock(s->ops.lock);
		uatomic_inc(&s->writes);
		s->ops.wrunlock(s->ops.lock);
		usleep(100);
	}
	uatomic_set(&s->stop, 1);
	return NULL;
}

static struct starve measure_starvation(struct lock_ops ops)
{
	struct starve s = { .ops = ops };
	pthread_t r[READERS], w;

	for (int i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, starve_reader, &s);
	usleep(10 * 1000);	/* let the readers get going first */
	pthread_create(&w, NULL, starve_writer, &s);
	pthread_join(w, NULL);
	for (int i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	cr_log_info("%s: writer got %d of %d acquisitions while readers took %lu",
		    ops.name, s.writes, WRITES, s.reads);
	printf("fairness %-15s writer %2d/%d acquisitions, readers %lu\n",
	       ops.name, s.writes, WRITES, s.reads);
	return s;
}

/*
 * Fairness, shown by a fixed schedule rather than by timing: reader A holds
 * the lock; a writer arrives and waits; only then does reader B arrive.  A
 * fair lock queues B behind the writer, so the writer gets in first; a
 * reader-preferring one (RP_BREAK_READER_PREFERENCE) lets B in at once,
 * past the waiting writer, and that is how a stream of readers starves it.
 * Each step waits for the previous one to be visible in the lock word or the
 * wait queue, never for a time, so the verdict is the same on a loaded
 * machine: the count of readers let past a waiting writer must be 0.
 */
#define OVERTAKE_ROUNDS 200

struct overtake {
	unsigned long clock;		/* uatomic: orders the two acquisitions */
	unsigned long writer_at, reader_at;
	int reader_in;			/* uatomic: B holds the read lock */
};

static void *overtake_writer(void *p)
{
	struct overtake *o = p;

	rp_qrw_write_lock(&qlock);
	o->writer_at = uatomic_add_return(&o->clock, 1);
	rp_qrw_write_unlock(&qlock);
	return NULL;
}

static void *overtake_reader(void *p)
{
	struct overtake *o = p;

	rp_qrw_read_lock(&qlock);
	o->reader_at = uatomic_add_return(&o->clock, 1);
	uatomic_set(&o->reader_in, 1);
	rp_qrw_read_unlock(&qlock);
	return NULL;
}

/* B is queued on wait_lock behind the writer, which holds its ticket. */
static bool reader_queued(void)
{
	return __atomic_load_n(&qlock.wait_lock.next, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&qlock.wait_lock.owner, __ATOMIC_ACQUIRE) >= 2;
}

/* One round; true when reader B got in while A held and the writer waited. */
static bool overtake_round(void)
{
	struct overtake o = { 0 };
	pthread_t w, b;
	bool overtook;

	rp_qrw_init(&qlock);
	rp_qrw_read_lock(&qlock);			/* reader A */
	pthread_create(&w, NULL, overtake_writer, &o);
	while (!(__atomic_load_n(&qlock.cnts, __ATOMIC_ACQUIRE) & RP_QW_WAITING))
		sched_yield();				/* the writer waits */
	pthread_create(&b, NULL, overtake_reader, &o);
	while (!uatomic_read(&o.reader_in) && !reader_queued())
		sched_yield();				/* B is in, or queued */
	overtook = uatomic_read(&o.reader_in);
	rp_qrw_read_unlock(&qlock);			/* A leaves */
	pthread_join(w, NULL);
	pthread_join(b, NULL);
	cr_assert(overtook || o.writer_at < o.reader_at,
		  "reader B queued behind the writer but got in first (%lu, %lu)",
		  o.reader_at, o.writer_at);
	cr_assert_eq(qlock.cnts, 0, "lock word not back to 0: %#x", qlock.cnts);
	return overtook;
}

Test(qrwlock, writer_not_starved, .timeout = 300)
{
	unsigned int overtakes = 0;

	for (int i = 0; i < OVERTAKE_ROUNDS; i++)
		overtakes += overtake_round();
	cr_assert_eq(overtakes, 0,
		     "in %u of %d rounds a reader went past a waiting writer",
		     overtakes, OVERTAKE_ROUNDS);
}

/* Reported for comparison; glibc's default rwlock prefers readers. */
Test(qrwlock, pthread_rwlock_starvation_is_reported, .timeout = 300)
{
	struct starve s = measure_starvation(pthread_ops());

	cr_assert_gt(s.reads, 0, "the readers never ran");
	cr_assert_leq(s.writes, WRITES);
}
