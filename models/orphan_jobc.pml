/*
 * orphan_jobc.pml: the orphaned-process-group decision without the update
 * lock, as a count per group (docs/process.md, "Without the update lock
 * (design)", protocol (b); FreeBSD's pg_jobc).
 *
 * THE PROTOCOL.  A tie is a pair (member m, its real parent p) with p not
 * init, in another group of m's session; a process whose threads are all
 * gone ties nothing.  jobc of a group is its number of ties, an atomic
 * count with no lock of its own: every change of a tie's inputs (m's
 * group, p's group, m's real_parent, m's death) holds the tree lock (T) of
 * the pair's parent, so no two operations count one pair at once.  Each
 * operation, under its locks:
 *   1. adds 1 to the count of each group that gains a tie (the ties it
 *      will make, worked out from the fields as they will be);
 *   2. stores the fields;
 *   3. takes 1 from the count of each group that loses a tie; the thread
 *      whose atomic decrement returns 0 orphaned the group, and if it is
 *      an exit (reparenting or death), it sends the group SIGHUP and
 *      SIGCONT when a member is stopped (Linux's kill_orphaned_pgrp).
 * Readers (rp_get_signal, the terminal) load the count once: orphaned iff 0.
 *
 * The model: one session; group G holds m1 and m2, group B holds p1, p2
 * and q.  m1's real parent is p1, m2's is p2, p2's is q, and p1's and q's
 * are init.  So G starts with two ties (m1, m2) and a stopped member.  At
 * once:
 *  - p1 exits: under T of p1 and of init it moves m1 to init (step 3: G
 *    loses m1's tie); its own pair ties nothing;
 *  - p2 exits: the same for m2 under T of p2 and of init; then its death
 *    under T of q removes its own pair (a tie of G if p2 has moved to G);
 *  - q moves p2 into G (setpgid), under T of q and of p2: step 1 adds
 *    (p2, q), now a tie of G; step 3 takes (m2, p2), no longer one;
 *  - a reader loads G's count.
 * Locks are taken in increasing address (a permutation that is not the
 * tree's order).  The ghost true_ties(G) counts the ties from the fields.
 *
 * What it abstracts away: sessions (one), the member lists and proxies
 * (the count replaces the walk; setpgid_proxy.pml checks the lists), the
 * choice of reaper (init; reparent_exiting.pml checks it), threads (one
 * each: "its threads all gone" is the death step), and the signals
 * themselves (a kill is a count).
 *
 * Properties:
 *  - a reader that loads 0 does so when the group has no tie;
 *  - an exit sends the kill only when the group has no tie;
 *  - no second kill unless G had a tie again since the first (the move can
 *    tie it again between two exits that each orphan it: two kills, as
 *    Linux would send; a ghost notes the ties at each store that can make
 *    one);
 *  - when all is done, G has no tie and has been sent the kill.
 *
 * Broken variants:
 *  -DBROKEN_DEC_FIRST (or -DBROKEN): setpgid takes away before it adds:
 *      G's count falls below its ties (m2's tie is gone from it, p2's not
 *      yet in it), and p1's exit brings it to 0 and kills G while p2 ties
 *      it (a reader would take G for orphaned the same way);
 *  -DBROKEN_WALK: exits decide by walking G's members one load at a time
 *      after their change (the walk without one lock): two exits that
 *      both walk after both changes kill the group twice for one
 *      orphaning;
 *  -DBROKEN_NO_CHILD_LOCK: setpgid takes T of q but not of p2: p2's
 *      reparenting of m2 and the move both take m2's tie away, and p1's
 *      exit then kills G while p2 still ties it;
 *  -DBROKEN_LOAD_AFTER: an exit decrements, then loads the count in a
 *      step of its own and kills if it reads 0 (what an exit under the
 *      update gate shared would do with a load in place of the
 *      decrement's answer, RP_BREAK_ORPHAN_LOAD_AFTER in proc/exit.c):
 *      two exits that take G's last two ties both read 0 and kill twice.
 *
 * Run: spin -a orphan_jobc.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_DEC_FIRST
#endif

#define NONE	0
#define INIT	1
#define Q	2
#define P1	3
#define P2	4
#define M1	5
#define M2	6
#define NT	7
#define G	1
#define B	2

byte addr[NT];		/* lock order: increasing address */
byte lk[NT];		/* tree locks: the holder, or NONE */
byte parent[NT];	/* real_parent */
byte pgrp[NT];
bool dead[NT];		/* its threads all gone */
byte jobc;		/* G's count (atomic) */
byte kills;		/* SIGHUP+SIGCONT sent to G */
bool tied_since;	/* ghost: G has had a tie since the last kill */
byte done;

/* A tie of G: a live member whose parent is neither init nor in G. */
#define TIE(m)	(!dead[m] && pgrp[m] == G && parent[m] != INIT && pgrp[parent[m]] != G)
#define TRUE_TIES	(TIE(Q) + TIE(P1) + TIE(P2) + TIE(M1) + TIE(M2))

inline lock(t, me)
{
	atomic { lk[t] == NONE -> lk[t] = me }
}

inline lock_two(a, b, me)
{
	if
	:: addr[a] < addr[b] -> lock(a, me); lock(b, me)
	:: else -> lock(b, me); lock(a, me)
	fi
}

inline unlock_two(a, b)
{
	lk[a] = NONE;
	lk[b] = NONE
}

/* SIGHUP and SIGCONT to G: only untied, and once per orphaning. */
inline kill()
{
	d_step {
		assert(TRUE_TIES == 0);
		assert(tied_since);
		tied_since = false;
		kills++
	}
}

/*
 * Step 3 of an exit that took a tie of G away: one atomic decrement; the
 * thread that brings it to 0 kills (uatomic_sub_return's answer: proc/exit.c's
 * kill_if_orphaned for an exit under the gate shared).  BROKEN_WALK: the decrement only keeps
 * the readers' count; the decision is a walk over G's members, one load
 * each (m1, m2, and p2 once it has moved in).
 */
inline exit_untie(found)
{
#ifdef BROKEN_WALK
	jobc--;
	found = TIE(M1);
	found = found || TIE(M2);
	found = found || TIE(P2);
	if
	:: !found -> kill()
	:: else
	fi
#elif defined(BROKEN_LOAD_AFTER)
	jobc--;
	if
	:: jobc == 0 -> kill()			/* a load of its own */
	:: else
	fi
#else
	atomic {
		jobc--;
		if
		:: jobc == 0 -> kill()		/* a stopped member */
		:: else
		fi
	}
#endif
}

/* @p exits: its child @m goes to init; then @p's death (its own pair). */
proctype exiter(byte p; byte m)
{
	bool tied;

	lock_two(p, INIT, p);
	tied = TIE(m);				/* worked out under the locks */
	parent[m] = INIT;			/* step 2: the move */
	if
	:: tied -> exit_untie(tied)		/* step 3 */
	:: else
	fi;
	unlock_two(p, INIT);
	/* The death: p's own pair, under T of its real parent. */
	lock_two(parent[p], p, p);
	tied = TIE(p);
	dead[p] = true;
	if
	:: tied -> exit_untie(tied)
	:: else
	fi;
	unlock_two(parent[p], p);
	tied = false;
	done++
}

/* q: setpgid(p2, G). */
proctype mover()
{
	bool gains, loses;

#ifdef BROKEN_NO_CHILD_LOCK
	lock(Q, Q);
#else
	lock_two(Q, P2, Q);
#endif
	if
	:: !dead[P2] ->
		/* Worked out from the fields as they are and as they will be. */
		d_step {
			gains = (parent[P2] != INIT && pgrp[parent[P2]] != G);	/* (p2, q) */
			loses = (parent[M2] == P2 && TIE(M2))			/* (m2, p2) */
		};
#ifdef BROKEN_DEC_FIRST
		if
		:: loses -> jobc--
		:: else
		fi;
		d_step {
			pgrp[P2] = G;
			tied_since = tied_since || TRUE_TIES > 0
		};
		if
		:: gains -> jobc++
		:: else
		fi;
#else
		if
		:: gains -> jobc++			/* step 1 */
		:: else
		fi;
		d_step {
			pgrp[P2] = G;			/* step 2 */
			tied_since = tied_since || TRUE_TIES > 0
		};
		if
		:: loses -> jobc--			/* step 3: never 0 here */
		:: else
		fi;
#endif
	:: else
	fi;
#ifdef BROKEN_NO_CHILD_LOCK
	lk[Q] = NONE;
#else
	unlock_two(Q, P2);
#endif
	gains = false;
	loses = false;
	done++
}

proctype reader()
{
	atomic { assert(jobc != 0 || TRUE_TIES == 0) }	/* one load of the count */
}

init {
	d_step {
		addr[P2] = 1; addr[INIT] = 2; addr[Q] = 3; addr[P1] = 4;
		parent[Q] = INIT; parent[P1] = INIT; parent[P2] = Q;
		parent[M1] = P1; parent[M2] = P2;
		pgrp[INIT] = B; pgrp[Q] = B; pgrp[P1] = B; pgrp[P2] = B;
		pgrp[M1] = G; pgrp[M2] = G;
		jobc = TRUE_TIES;
		assert(jobc == 2);
		tied_since = true
	}
	atomic {
		run exiter(P1, M1);
		run exiter(P2, M2);
		run mover();
		run reader()
	}
	done == 3;
	assert(TRUE_TIES == 0 && jobc == 0);
	assert(kills >= 1)
}
