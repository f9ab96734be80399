/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The pid numbers of one table: which are in use, and where the cyclic
 * search resumes.  No lock: the cursor moves by compare-and-swap, a number
 * is claimed by a compare-and-swap of its bitmap word and given back by an
 * atomic and-not, so that fork takes its number before the update lock.
 * One object per table; a pid namespace would have one of its own.
 *
 * Order.  Each attempt of an allocation reads pid_max (m) and the cursor
 * (c) once each, then scans [c + 1, m) and then [low, min(c + 1, m)), low
 * being RESERVED_PIDS (300) if c >= 300 and m > 300, 1 otherwise, and hands out
 * the first number it claims.  With one allocation at a time that is
 * exactly Linux's cyclic order (alloc_pid's, with pid_max and
 * RESERVED_PIDS).  With several at once, each still hands out the first
 * number of its own order that it found free, at or after the cursor it
 * read; every number it passed over was in use when it looked (a swap
 * that fails because the word changed looks at the same number again).  A
 * number is handed out only by the compare-and-swap that moves the cursor
 * from the value the allocation read to it; an allocation that loses that
 * swap gives its number back and starts again from the new cursor, since
 * its number may lie behind the cursor (a number freed since it read it).
 * So the numbers handed out are the cursor's values in one cyclic order,
 * and a number is reused only once the order comes round to it; the
 * cursor always names a number handed out (perhaps at or past a pid_max
 * lowered since, as Linux's idr cursor: the next search wraps).
 *
 * Uniqueness.  A number is handed out only by the compare-and-swap that
 * set its bit, and its bit is cleared only when its pid gives it back: no
 * number is held twice.  EAGAIN only if every number of the allocation's
 * range was in use at the moment the allocation looked at it.
 *
 * pid_max.  rp_pidmap_set_max may run at any time: an allocation that
 * overlaps it uses the old or the new value (Linux's alloc_pid reads
 * pid_max once as well).  The bitmap covers RP_PID_MAX_LIMIT numbers, so
 * any value read is in bounds.
 *
 * ns_last_pid.  rp_pidmap_set_last moves the cursor to any number below
 * pid_max, handed out or not (Linux's idr_set_cursor from the sysctl): an
 * allocation that read the cursor before fails its compare-and-swap and
 * searches again from the new one.  rp_pidmap_claim takes one given number
 * (clone3's set_tid) by the same compare-and-swap as the search, and
 * leaves the cursor where it is, as Linux's idr_alloc does.
 *
 * Layout.  The bitmap is RP_PIDMAP_ROWS rows of 4,096 bits (512 bytes,
 * 8 cache lines) each: number nr is bit nr / RP_PIDMAP_ROWS of row
 * nr % RP_PIDMAP_ROWS.  The numbers handed out at about the same time lie
 * next to each other (the cursor's order), so with 64 consecutive numbers
 * to a word every fork of the moment would write the same word twice, at
 * its claim and at its free: the line unrelated forks share.  Striped,
 * two numbers share a word only if they are equal modulo RP_PIDMAP_ROWS
 * (and a line only if they are also less than 512 * RP_PIDMAP_ROWS
 * apart): numbers handed out less than RP_PIDMAP_ROWS apart never do, and
 * an older number given back at the same moment does by the chance of
 * its value, 1 in RP_PIDMAP_ROWS.  What is given up: the search reads
 * one word per number, not one per 64, when it passes over numbers in
 * use (docs/process.md, "Pid numbers").  The order, the uniqueness and
 * the rest above are the layout's business nowhere: they hold of any
 * mapping of numbers to bits of words.
 *
 * The allocator (the scan, the claim, the cursor, the layout) is this
 * project's own: liburcu has atomics but no bitmap allocator.
 */
#ifndef RP_TASK_PIDMAP_H
#define RP_TASK_PIDMAP_H

#include <stdbool.h>
#include "../debug/threadslot.h"

/* The bitmap's rows (Layout, above): consecutive numbers go to consecutive rows. */
#define RP_PIDMAP_ROWS	1024U

/*
 * The cursor word: the number handed out last in its low 32 bits, and in
 * its high 32 bits the count of numbers handed out by the search (and of
 * rp_pidmap_next_order), which moves with it in the same compare-and-swap:
 * the order in which the allocations took their numbers, with no write of
 * its own (the root's orders every process's creation: docs/namespaces.md,
 * "si_pid of a group kill").
 */
#define RP_PIDMAP_NR(cursor)	((int)(unsigned int)(cursor))
#define RP_PIDMAP_ORDER(cursor)	((unsigned int)((cursor) >> 32))

struct rp_pidmap {
	unsigned int max;	/* (a) numbers are below it */
	unsigned long *bits;	/* (a) bit nr set while nr is in use (cmpxchg
				   to claim, and-not to give back) */
	/*
	 * Every allocation writes the cursor and reads max and bits: a line
	 * apart, so that a fork on another CPU does not take the line of
	 * what this one only reads (docs/performance.md, "Lines read by
	 * every fork").  The pad is whole, whatever the map's alignment.
	 */
	char apart[RP_CACHE_LINE];
	unsigned long cursor;	/* (a) the cursor and the order (cmpxchg) */
};

/* An empty map of numbers below @max, pid 0 never handed out: 0 or -ENOMEM. */
int rp_pidmap_init(struct rp_pidmap *map, unsigned int max);
void rp_pidmap_destroy(struct rp_pidmap *map);
/* Claim the next free number in cyclic order: the number, or -EAGAIN. */
int rp_pidmap_alloc(struct rp_pidmap *map);
/* The same, with the allocation's place in the map's order in *@order. */
int rp_pidmap_alloc_ordered(struct rp_pidmap *map, unsigned int *order);
/* A place in the map's order for a number claimed by rp_pidmap_claim: the cursor's number stays. */
unsigned int rp_pidmap_next_order(struct rp_pidmap *map);
/* The place of the last allocation in the map's order (a moment's answer: no write). */
unsigned int rp_pidmap_order(struct rp_pidmap *map);
/* Claim @nr itself (below RP_PID_MAX_LIMIT), the cursor unmoved: 0, or -EEXIST if in use. */
int rp_pidmap_claim(struct rp_pidmap *map, int nr);
/* Is @nr in use (a moment's answer)? */
bool rp_pidmap_used(struct rp_pidmap *map, int nr);
/* Give back @nr, once nothing can find its pid by it any more. */
void rp_pidmap_free(struct rp_pidmap *map, int nr);
/* Numbers below @max from now on (2 <= @max <= RP_PID_MAX_LIMIT). */
void rp_pidmap_set_max(struct rp_pidmap *map, unsigned int max);
/* The cursor (Linux's ns_last_pid), and set it (0 <= @last <= RP_PID_MAX_LIMIT). */
int rp_pidmap_last(struct rp_pidmap *map);
void rp_pidmap_set_last(struct rp_pidmap *map, int last);

#endif /* RP_TASK_PIDMAP_H */
