/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Pid numbers without a lock (pidmap.h says what order is kept): models
 * the numbering of Linux's alloc_pid and free_pid (kernel/pid.c): the
 * cyclic search that wraps to RESERVED_PIDS, a bitmap's before commit
 * 95846ecf9dac ("pid: replace pid bitmap implementation with IDR API") and
 * idr_alloc_cyclic's since, both under the global pidmap_lock.  Here the
 * cursor and each bitmap word are changed by atomics instead, and the
 * bitmap's rows are this project's own layout (pidmap.h).  Linux's
 * pid_max is never below 301; a smaller table here wraps to 1.
 */
#include <errno.h>
#include <urcu/uatomic.h>
#include <rcuproc/proc.h>
#include "pidmap.h"
#include "../debug/alloc.h"
#include "../debug/bug.h"
#include "../debug/racepoint.h"
#include "../debug/shared.h"

/* After wrapping, the search restarts here, as Linux's RESERVED_PIDS. */
#define RESERVED_PIDS	300
_Static_assert(sizeof(unsigned long) == 8, "the cursor word holds a number and an order");
#define BITS_PER_WORD	(8U * (unsigned int)sizeof(unsigned long))
#define PIDMAP_WORDS	(RP_PID_MAX_LIMIT / BITS_PER_WORD)
/* The words of one row: RP_PID_MAX_LIMIT / RP_PIDMAP_ROWS bits. */
#define ROW_WORDS	(PIDMAP_WORDS / RP_PIDMAP_ROWS)

/*
 * Where number @nr's bit is (pidmap.h, "Layout"): bit nr / RP_PIDMAP_ROWS
 * of row nr % RP_PIDMAP_ROWS, so that numbers handed out one after the
 * other are in different rows, 512 bytes apart, and their claims and frees
 * write different cache lines.  RP_BREAK_PIDMAP_DENSE, the naive twin,
 * puts consecutive numbers side by side: 64 to a word, 512 to a line, which
 * every fork of the moment then writes.
 */
#ifdef RP_BREAK_PIDMAP_DENSE
static unsigned long *word_of(struct rp_pidmap *map, int nr)
{
	return &map->bits[(unsigned int)nr / BITS_PER_WORD];
}

static unsigned long bit_of(int nr)
{
	return 1UL << ((unsigned int)nr % BITS_PER_WORD);
}
#else
static unsigned long *word_of(struct rp_pidmap *map, int nr)
{
	unsigned int row = (unsigned int)nr % RP_PIDMAP_ROWS;
	unsigned int col = (unsigned int)nr / RP_PIDMAP_ROWS;

	return &map->bits[row * ROW_WORDS + col / BITS_PER_WORD];
}

static unsigned long bit_of(int nr)
{
	return 1UL << ((unsigned int)nr / RP_PIDMAP_ROWS % BITS_PER_WORD);
}
#endif

int rp_pidmap_init(struct rp_pidmap *map, unsigned int max)
{
	map->bits = rp_zalloc(PIDMAP_WORDS * sizeof(unsigned long));
	if (!map->bits)
		return -ENOMEM;
	*word_of(map, 0) = bit_of(0);	/* pid 0 is never handed out */
	map->max = max;
	map->cursor = 0;
	return 0;
}

void rp_pidmap_destroy(struct rp_pidmap *map)
{
	rp_free(map->bits);
	map->bits = NULL;
}

/*
 * Set @bit in @word, which held @seen when the caller found the bit clear:
 * false if another claim or free changed the word first.
 */
static bool claim(unsigned long *word, unsigned long seen, unsigned long bit)
{
	RP_RACE_POINT(RP_RACE_PID_CLAIM, NULL);
#ifdef RP_BREAK_PIDMAP_PLAIN_RMW
	/* A plain read-modify-write: stores over a claim made since the load. */
	uatomic_set(word, seen | bit);
	return true;
#else
	/*
	 * Full barrier (liburcu's cmpxchg): the new holder's use of the number
	 * comes after the claim; pairs with cmm_smp_mb__before_uatomic_and in
	 * rp_pidmap_free, which orders the last holder's use before the clear.
	 * Not a shared write: the word is the number's row's, which the
	 * numbers handed out around it do not write (word_of).
	 */
#ifdef RP_BREAK_PIDMAP_DENSE
	rp_shared_write(RP_SHARED_PIDMAP);
#endif
	return uatomic_cmpxchg(word, seen, seen | bit) == seen;
#endif
}

/*
 * Claim the first number in [@from, @to) found free: the number, or -1.
 * One load a number: the next number is in the next row (word_of), so a
 * word holds no run of numbers to pass over at once.
 */
static int claim_first(struct rp_pidmap *map, unsigned int from, unsigned int to)
{
	unsigned int nr = from;

	while (nr < to) {
		unsigned long *word = word_of(map, (int)nr);
		unsigned long seen = uatomic_read(word);

		if (seen & bit_of((int)nr))
			nr++;		/* in use when we looked */
		else if (claim(word, seen, bit_of((int)nr)))
			return (int)nr;
		/* else the word changed under us: look at nr again. */
	}
	return -1;
}

/*
 * RP_BREAK_PIDMAP_STALE_CURSOR: an allocation that lost the cursor keeps
 * its number, which may lie far behind the cursor (a number freed since
 * the allocation read it).
 */
#ifdef RP_BREAK_PIDMAP_STALE_CURSOR
#define STALE_CURSOR_KEPT	true
#else
#define STALE_CURSOR_KEPT	false
#endif

/* Clear @nr's bit: it may be claimed again.  Its row's word, as claim's. */
static void clear(struct rp_pidmap *map, int nr)
{
#ifdef RP_BREAK_PIDMAP_DENSE
	rp_shared_write(RP_SHARED_PIDMAP);
#endif
	uatomic_and(word_of(map, nr), ~bit_of(nr));
}

/*
 * The place in the order is the one the winning compare-and-swap wrote,
 * with the number.  RP_BREAK_PIDMAP_ORDER_STALE keeps the count read
 * before the search, as a count kept apart from the cursor would: an
 * allocation that lost the cursor to another and searched again shares
 * that one's place.
 */
int rp_pidmap_alloc_ordered(struct rp_pidmap *map, unsigned int *order)
{
#ifdef RP_BREAK_PIDMAP_ORDER_STALE
	unsigned int first = RP_PIDMAP_ORDER(uatomic_read(&map->cursor)) + 1U;
#endif

	for (;;) {
		/* Snapshots: any pid_max read is within the bitmap (pidmap.h). */
		int max = (int)uatomic_read(&map->max);
		unsigned long word = uatomic_read(&map->cursor);
		int seen = RP_PIDMAP_NR(word);
		/*
		 * Linux's alloc_pid wraps to RESERVED_PIDS once the cursor has
		 * passed it and to 1 before; a pid_max of 300 or less, which
		 * Linux does not allow, wraps to 1.  A cursor at or past a
		 * lowered pid_max makes the first range empty: the search wraps.
		 */
		int low = seen >= RESERVED_PIDS && max > RESERVED_PIDS ? RESERVED_PIDS : 1;
		int nr = claim_first(map, (unsigned int)seen + 1, (unsigned int)max);

		if (nr < 0)
			nr = claim_first(map, (unsigned int)low,
					 (unsigned int)(seen < max ? seen + 1 : max));
		if (nr < 0)
			return -EAGAIN;
		/*
		 * Move the cursor from what we read to our number.  If another
		 * allocation moved it meanwhile, our number may lie behind it:
		 * an allocation that read the cursor long ago would hand out a
		 * number freed since, long before the cyclic order comes back to
		 * it (the reuse cyclic order exists to delay).  Give it back and
		 * search again from where the cursor is now: every number handed
		 * out is the one the cursor moves to, in one order.  The cursor
		 * publishes no data, so it needs no ordering of its own.  The
		 * same compare-and-swap counts the allocation in the order
		 * (pidmap.h): the count moves with the number, one write.
		 */
		unsigned long next = (unsigned long)(RP_PIDMAP_ORDER(word) + 1U) << 32 |
				     (unsigned int)nr;

		if (rp_shared_rmw(RP_SHARED_PID_CURSOR, uatomic_cmpxchg(&map->cursor, word, next)) == word ||
		    STALE_CURSOR_KEPT) {
#ifdef RP_BREAK_PIDMAP_ORDER_STALE
			*order = first;
#else
			*order = RP_PIDMAP_ORDER(next);
#endif
			return nr;
		}
		clear(map, nr);		/* nobody used it: no barrier needed */
	}
}

int rp_pidmap_alloc(struct rp_pidmap *map)
{
	unsigned int order;

	return rp_pidmap_alloc_ordered(map, &order);
}

unsigned int rp_pidmap_next_order(struct rp_pidmap *map)
{
	unsigned long word = uatomic_read(&map->cursor), seen;

	/* The count alone moves: ns_last_pid reads the same number. */
	while ((seen = uatomic_cmpxchg(&map->cursor, word, word + (1UL << 32))) != word)
		word = seen;
	return RP_PIDMAP_ORDER(word) + 1U;
}

unsigned int rp_pidmap_order(struct rp_pidmap *map)
{
	return RP_PIDMAP_ORDER(uatomic_read(&map->cursor));
}

int rp_pidmap_claim(struct rp_pidmap *map, int nr)
{
	unsigned long *word = word_of(map, nr);

	RP_BUG_ON(nr <= 0 || nr >= RP_PID_MAX_LIMIT);
	for (;;) {
		unsigned long seen = uatomic_read(word);

		if (seen & bit_of(nr))
			return -EEXIST;
		if (claim(word, seen, bit_of(nr)))
			return 0;
		/* Another bit of the word changed: look again. */
	}
}

bool rp_pidmap_used(struct rp_pidmap *map, int nr)
{
	return uatomic_read(word_of(map, nr)) & bit_of(nr);
}

void rp_pidmap_free(struct rp_pidmap *map, int nr)
{
	RP_BUG_ON(nr <= 0 || nr >= RP_PID_MAX_LIMIT || !(uatomic_read(word_of(map, nr)) & bit_of(nr)));
	/* The number's last use (its hash removal) first: pairs with claim's cmpxchg. */
	cmm_smp_mb__before_uatomic_and();
	clear(map, nr);
}

void rp_pidmap_set_max(struct rp_pidmap *map, unsigned int max)
{
	RP_BUG_ON(max < 2 || max > RP_PID_MAX_LIMIT);
	/* The cursor stays: the next allocation wraps (rp_pidmap_alloc). */
	uatomic_set(&map->max, max);
}

int rp_pidmap_last(struct rp_pidmap *map)
{
	return RP_PIDMAP_NR(uatomic_read(&map->cursor));
}

void rp_pidmap_set_last(struct rp_pidmap *map, int last)
{
	RP_BUG_ON(last < 0 || last > RP_PID_MAX_LIMIT);
	unsigned long word = uatomic_read(&map->cursor), seen;

	/*
	 * An allocation that read the old cursor fails its cmpxchg and
	 * searches again.  The order's count stays: the number alone moves.
	 */
	while ((seen = uatomic_cmpxchg(&map->cursor, word,
				       (word & ~0xffffffffUL) | (unsigned int)last)) != word)
		word = seen;
}
