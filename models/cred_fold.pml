/*
 * cred_fold.pml: credentials counted per thread slot, and the owner's put
 * that switches them to their one shared count (src/task/cred.c:
 * rp_cred_get, rp_cred_put, cred_put_owner, cred_fold).
 *
 * The owner O committed the credentials: its reference is the creator's,
 * kept in ->refs with a bias.  X, a child of O on slot 0, holds a
 * reference counted in slot 0's row.  X forks K (slot 0 again): its get
 * enters a read section, reads ->per_slot and, if set, adds one to slot
 * 0's row, else one to ->refs; then leaves the section.  K and X later put
 * their references, K on slot 1 and X on slot 0, each the same way with
 * minus one; a put in ->refs that takes it to 0 frees the credentials.
 * Meanwhile O lets go: it clears ->per_slot, waits for a grace period
 * (every section that may have read it set has ended), then adds the rows'
 * sum to ->refs with the bias and its own reference taken out, and frees
 * the credentials if that leaves 0.
 *
 * Each step of a get or put is one step here: the read of ->per_slot, then
 * the row's store (a row is written by its slot's thread only), or one
 * atomic on ->refs.  The grace period waits until none of the sections
 * open when it began is still open (a section opened later reads the
 * cleared flag).
 *
 * Properties:
 *  - existence: no get, put or use of the credentials by a holder comes
 *    after their free;
 *  - no leak: once O, X and K are done, the credentials were freed.
 *
 * Broken variants:
 *  -DBROKEN_NO_GRACE (or -DBROKEN): the fold follows the clear at once
 *      (RP_BREAK_CRED_FOLD_EARLY): a get that read the flag set adds to its
 *      row after the fold, its reference is lost, and K's put frees the
 *      credentials under X;
 *  -DBROKEN_NO_BIAS: ->refs holds the owner's reference without the bias
 *      (RP_BREAK_CRED_NO_BIAS): a put in ->refs between the clear and the
 *      fold (K's, whose get was in a row) takes it to 0 while X still
 *      holds them.
 *
 * Run: spin -a cred_fold.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_NO_GRACE
#endif

#ifdef BROKEN_NO_BIAS
#define BIAS	0
#else
#define BIAS	100
#endif

short refs = BIAS + 1;		/* the owner's reference, plus the bias */
short row[2];			/* slot 0's and slot 1's counts */
bool per_slot = true;
bool freed;
byte in_sec;			/* open read sections: X's bit 1, K's bit 2 */
byte done;

inline use()
{
	assert(!freed)
}

/* One reference more (@d = 1) or less (-1) by the holder with section bit @me on @slot. */
inline count(me, slot, d)
{
	use();
	in_sec = in_sec | me;			/* rcu_read_lock */
	if
	:: per_slot ->				/* CMM_LOAD_SHARED(c->per_slot) */
		use();
		row[slot] = row[slot] + d;	/* cred_row_done: its own row */
		in_sec = in_sec & ~me		/* rcu_read_unlock */
	:: else ->
		in_sec = in_sec & ~me;
		atomic {			/* uatomic_add / uatomic_sub_return */
			use();
			refs = refs + d;
			if
			:: refs == 0 -> freed = true	/* rp_defer_release(cred_free) */
			:: else -> skip
			fi
		}
	fi
}

proctype holder_k()
{
	use();
	count(2, 1, -1);			/* K exits on slot 1 */
	done++
}

proctype holder_x()
{
	count(1, 0, 1);				/* X forks K on slot 0: rp_cred_get */
	run holder_k();
	use();
	count(1, 0, -1);			/* X exits */
	done++
}

proctype owner()
{
	byte snap;

	d_step {				/* cred_put_owner */
		per_slot = false;
		snap = in_sec			/* the grace period begins */
	}
#ifndef BROKEN_NO_GRACE
	(in_sec & snap) == 0;			/* ... and ends: cred_fold runs */
#endif
	atomic {				/* cred_fold */
		refs = refs + row[0] + row[1] - BIAS - 1;
		row[0] = 0;
		row[1] = 0;
		if
		:: refs == 0 -> freed = true
		:: else -> skip
		fi
	}
	done++
}

init {
	row[0] = 1;				/* X's reference, from its fork on slot 0 */
	atomic {
		run holder_x();
		run owner()
	}
	done == 3;
	assert(freed)				/* no reference lost or left */
}
