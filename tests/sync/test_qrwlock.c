/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The queued rwlock: mutual exclusion, and fairness.  A stream of readers
 * that always keeps the lock read-held must not starve a writer of the
 * qrwlock; the pthread rwlock (reader-preferring) is measured the same way
 * and its figures reported, not asserted.  With RP_BREAK_READER_PREFERENCE
 * the qrwlock's readers ignore a waiting writer and writer_not_starved fails.
 */
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

Test(qrwlock, writer_not_starved, .timeout = 300)
{
	struct starve s = measure_starvation(qrw_ops());

	cr_assert_eq(s.writes, WRITES,
		     "qrwlock writer starved: %d of %d acquisitions in %lu reads",
		     s.writes, WRITES, s.reads);
}

/* Reported for comparison; glibc's default rwlock prefers readers. */
Test(qrwlock, pthread_rwlock_starvation_is_reported, .timeout = 300)
{
	struct starve s = measure_starvation(pthread_ops());

	cr_assert_gt(s.reads, 0, "the readers never ran");
	cr_assert_leq(s.writes, WRITES);
}
