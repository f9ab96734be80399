/*
 * pidmap_alloc.pml: pid numbers without a lock (src/task/pidmap.c).
 *
 * THE DESIGN (docs/process.md, "Pid numbers"):
 *
 * The numbers in use are bits of a bitmap; the cursor `last` is the number
 * handed out last.  An allocation reads the cursor once, then searches
 * [last + 1, MAX) and then [LOW, last + 1).  For each word it loads the
 * word, finds its first clear bit at or after the current number, and
 * claims it with a compare-and-swap of the whole word against the value it
 * loaded.  If the swap fails (another allocation claimed a bit, or a free
 * cleared one, in the word meanwhile) it looks at the same number again.
 * The first number it claims is handed out if a second compare-and-swap
 * moves the cursor from the value read to it; if another allocation moved
 * the cursor first, the number may lie behind the cursor, so it is given
 * back (an atomic and-not) and the search starts again from the cursor's
 * new value: the numbers handed out are the cursor's values, in one order.  A free clears its bit
 * with an atomic and-not, after its holder stopped using the number.
 *
 * Why no number is held twice: a bit goes from clear to set only by a
 * successful swap, which fails if the word changed since it was loaded;
 * so exactly one allocation sets each clear bit, and the bit stays set
 * until its holder frees it.
 *
 * Why EAGAIN is honest: the search passes over a number only when the word
 * it loaded had the bit set, i.e. the number was in use at that moment,
 * which lies within the allocation.  A failed swap does not pass over the
 * number: the number is looked at again.  So an allocation that fails found
 * every number of its range in use at some moment during it.
 *
 * The layout (src/task/pidmap.h, "Layout"): number n is bit n / W of word
 * n % W, so that numbers handed out one after the other are in different
 * words; the search loads one word per number.  The properties hold of
 * any layout, since a claim and a free each touch one word and the search
 * looks at one number at a time: the model checks the code's striped one
 * (W = 2: numbers 0 and 2 in word 0, 1 and 3 in word 1) and, with
 * -DDENSE, the one it replaced (W = 1: all four in one word).
 *
 * Model: MAX = 4 numbers (0 is never handed out; the
 * wrap goes to LOW = 1, as Linux's for a pid_max of 300 or less: the value
 * of LOW is sequential logic, which the unit tests pin).  The cursor
 * starts at 2, so the first search wraps.  A freer holds 2 and 3 at the
 * start and frees them; NALLOC allocators each allocate twice and free
 * what they got (-DTHREE: three allocators allocating once each; three
 * allocating twice do not finish within minutes).  Each step below is one load, one store or one atomic
 * read-modify-write of the C code; `d_step` holds only local computation
 * and ghost bookkeeping.  Ghosts: owner[] (who holds each number), inuse
 * (the numbers whose bits are set, by number), and for each allocation in
 * progress the numbers that were in use at some moment since it started
 * (seen_busy[]).
 *
 * Properties: (1) a number is never handed out while another holds it;
 * (2) an allocation fails only if every number of its range was in use at
 * some moment during it; (3) the cursor is 0 or a number handed out.
 *
 * Broken variants:
 *  - -DBROKEN_PLAIN_RMW (or -DBROKEN; the code's RP_BREAK_PIDMAP_PLAIN_RMW):
 *    the claim stores the loaded word with the bit set, without checking
 *    that the word is unchanged: two allocations that loaded the same word
 *    both hand out its first clear number (property 1);
 *  - -DBROKEN_SKIP_ON_CONFLICT: a failed swap moves on to the next number
 *    instead of looking again; a free of another bit in the word makes the
 *    swap fail while the number was free all along, and the allocation can
 *    return EAGAIN with that number never in use (property 2).
 *
 * Run: spin -a pidmap_alloc.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_PLAIN_RMW
#endif

#define MAX	4
#define LOW	1
#ifdef THREE
#define NALLOC	3	/* three allocators, one allocation each */
#define ROUNDS	1
#else
#define NALLOC	2
#define ROUNDS	2
#endif
#define BIT(n)	(1 << (n))
#define EAGAIN	255
#define FREER	(NALLOC + 1)	/* the freer's id in owner[] */
#ifdef DENSE
#define W	1
#else
#define W	2
#endif
#define WORD(n)	((n) % W)	/* number n's word */
#define POS(n)	BIT((n) / W)	/* and its bit there */

byte bits[W];				/* set in init: 0 reserved; 2 and 3 held by the freer */
byte inuse = BIT(0) | BIT(2) | BIT(3);	/* ghost: the same set, by number */
byte last = 2;
byte owner[MAX];			/* ghost: holder's id, 0 free */
byte running[NALLOC + 1];		/* ghost: allocation in progress */
byte seen_busy[NALLOC + 1];		/* ghost: numbers in use at some moment of it */
byte handed = 0;			/* ghost: numbers ever handed out */

/* Ghost: every allocation in progress saw @b's bit set (called with the set). */
inline note_busy(b)
{
	j = 1;
	do
	:: j <= NALLOC ->
		if :: running[j] -> seen_busy[j] = seen_busy[j] | (b) :: else -> skip fi;
		j++
	:: else -> break
	od
}

/* Free @n (holder @id): the holder stops using it, then the and-not. */
inline free_nr(n, id)
{
	assert(owner[n] == id);
	owner[n] = 0;
	atomic {			/* atomic and-not, after the use (barrier before) */
		bits[WORD(n)] = bits[WORD(n)] & ~POS(n);
		inuse = inuse & ~BIT(n)
	}
}

/* One allocation by allocator @id: the number in nr, or EAGAIN. */
inline alloc(id)
{
	skip;
retry:	skip;		/* a lost cursor starts the search again */
	d_step {
		seen = last;		/* the cursor, one load */
		running[id] = true;
		seen_busy[id] = inuse	/* in use at its start */
	}
	d_step {
		cur = (seen < MAX -> seen : 0);
		nr = cur + 1;
		to = MAX;
		pass = 1
	}
	do
	:: nr >= to && pass == 1 ->
		d_step { nr = LOW; to = cur + 1; pass = 2 }
	:: nr >= to && pass == 2 ->
		nr = EAGAIN;
		break
	:: nr < to ->
		w = bits[WORD(nr)];	/* load the number's word */
		if
		:: w & POS(nr) -> nr++	/* in use when we looked */
		:: else ->
#ifdef BROKEN_PLAIN_RMW
			atomic { bits[WORD(nr)] = w | POS(nr); inuse = inuse | BIT(nr);
				note_busy(BIT(nr)) };
			goto claimed
#else
			if
			:: atomic { bits[WORD(nr)] == w -> bits[WORD(nr)] = w | POS(nr);
				inuse = inuse | BIT(nr); note_busy(BIT(nr)) };
				goto claimed
			:: else ->
#ifdef BROKEN_SKIP_ON_CONFLICT
				nr++
#else
				skip	/* the word changed: look at nr again */
#endif
			fi
#endif
		fi
	od;
	skip;
	/* EAGAIN: every number of [min(LOW, cur + 1), MAX) was in use once. */
	d_step {
		j = (LOW < cur + 1 -> LOW : cur + 1);
		do
		:: j < MAX -> assert(seen_busy[id] & BIT(j)); j++
		:: else -> break
		od;
		running[id] = false
	}
	goto done;
claimed:
	assert(owner[nr] == 0);	/* nobody else holds it */
	/*
	 * The cursor from the value read to nr; if another allocation moved it
	 * first, nr may lie behind it: give nr back and search again.
	 */
	if
	:: atomic { last == seen -> last = nr;
		owner[nr] = id;
		handed = handed | BIT(nr);
		running[id] = false };
		assert(last == 0 || (handed & BIT(last)))
	:: else ->
		atomic {		/* atomic and-not: unclaimed */
			bits[WORD(nr)] = bits[WORD(nr)] & ~POS(nr);
			inuse = inuse & ~BIT(nr)
		};
		goto retry
	fi;
done:
	skip
}

proctype allocator(byte id)
{
	byte seen, cur, nr, to, pass, w, j, round = 0;

	do
	:: round < ROUNDS ->
		alloc(id);
		if
		:: nr != EAGAIN -> free_nr(nr, id)
		:: else -> skip
		fi;
		round++
	:: else -> break
	od
}

proctype freer()
{
	free_nr(2, FREER);
	free_nr(3, FREER)
}

init {
	owner[2] = FREER;
	owner[3] = FREER;
	d_step {
		bits[WORD(0)] = bits[WORD(0)] | POS(0);
		bits[WORD(2)] = bits[WORD(2)] | POS(2);
		bits[WORD(3)] = bits[WORD(3)] | POS(3)
	}
	atomic {
		run allocator(1);
		run allocator(2);
#ifdef THREE
		run allocator(3);
#endif
		run freer()
	}
}
