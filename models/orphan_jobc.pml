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
 *      an exit (reparenting or death), it owes the group SIGHUP and
 *      SIGCONT when a member is stopped (Linux's kill_orphaned_pgrp).
 * The operations run under the update gate shared, so a setpgid may tie
 * the group again between an exit's decrement and its kill, and a kill's
 * walk of the members meets the moves of that time.  So the exit keeps
 * the group (an attachment) and, once out of its shared section, takes
 * the gate exclusive, where nothing else changes the tree: it sends the
 * kill to the members of that moment if the count is still 0, else none
 * (proc/exit.c's kill_orphaned_later).
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
 * tree's order); the three run under the gate shared, and each exit takes
 * it exclusive at its end for the kills it owes.  The ghost true_ties(G)
 * counts the ties from the fields, and the ghost orphanings the
 * decrements that brought G's count to 0.
 *
 * What it abstracts away: sessions (one), the member lists and proxies
 * (the count replaces the walk; setpgid_proxy.pml checks the lists), the
 * choice of reaper (init; reparent_exiting.pml checks it), threads (one
 * each: "its threads all gone" is the death step), and the signals
 * themselves (a kill is a count).
 *
 * Properties:
 *  - a reader that loads 0 does so when the group has no tie;
 *  - each member a kill reaches is in G at a moment when G has no tie;
 *  - no more kills than orphanings (the move can tie G again between two
 *    exits that each orphan it: two kills, as Linux would send; one
 *    orphaning, one kill at most);
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
 *      two exits that take G's last two ties both read 0 and kill twice;
 *  -DRETIE (a correct variant): q also moves r, a process of B, into G,
 *      a tie that stays, so that G may be tied again for good between an
 *      exit's decrement to 0 and its kill; the end has r's tie and any
 *      number of kills up to the orphanings;
 *  -DRETIE -DBROKEN_NO_RECHECK: the kill under the gate exclusive without
 *      the look at the count: r joined since, and m1, m2 and r get the
 *      kill of a group that r ties;
 *  -DBROKEN_KILL_SHARED: an exit sends its kill at once, under the gate
 *      shared, a walk of G's members one at a time
 *      (RP_BREAK_ORPHAN_KILL_SHARED): the move ties G again while the
 *      walk runs, and the walk then reaches p2, which joined a tied group.
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
#define R	7	/* RETIE: a process of B that q moves into G for good */
#define NT	8
#define G	1
#define B	2

byte addr[NT];		/* lock order: increasing address */
byte lk[NT];		/* tree locks: the holder, or NONE */
byte parent[NT];	/* real_parent */
byte pgrp[NT];
bool dead[NT];		/* its threads all gone */
byte jobc;		/* G's count (atomic) */
byte kills;		/* SIGHUP+SIGCONT sent to G */
byte orphanings;	/* ghost: decrements of G's count to 0 */
byte shared_in;		/* the update gate: holders of its shared side */
byte done;

/* A tie of G: a live member whose parent is neither init nor in G. */
#define TIE(m)	(!dead[m] && pgrp[m] == G && parent[m] != INIT && pgrp[parent[m]] != G)
#define TRUE_TIES	(TIE(Q) + TIE(P1) + TIE(P2) + TIE(M1) + TIE(M2) + TIE(R))

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

/* The members a kill reaches: each in G, at a moment G has no tie. */
inline deliver(x)
{
	if
	:: pgrp[x] == G -> assert(TRUE_TIES == 0)
	:: else
	fi
}

/*
 * SIGHUP and SIGCONT to G's members of now.  Under the gate exclusive
 * (after the owing exit left its shared section: no shared holder, so no
 * operation is half done), and only if G's count is still 0: one step.
 * BROKEN_KILL_SHARED: sent at once by the exit that orphaned G, under the
 * gate shared, one member at a time.
 */
inline kill()
{
#ifdef BROKEN_KILL_SHARED
	deliver(M1);
	deliver(M2);
	deliver(P2);
	deliver(R);
	kills++
#else
	atomic {
		shared_in == 0 ->
		if
#ifdef BROKEN_NO_RECHECK
		:: true ->
#else
		:: jobc == 0 ->
#endif
			deliver(M1); deliver(M2); deliver(P2); deliver(R);
			kills++
		:: else
		fi
	}
#endif
}

/*
 * Step 3 of an exit that took a tie of G away: one atomic decrement; the
 * thread that brings it to 0 owes the kill (uatomic_sub_return's answer:
 * proc/exit.c's kill_if_orphaned), @owed.  BROKEN_WALK: the decrement
 * only keeps the readers' count; the decision is a walk over G's members,
 * one load each (m1, m2, and p2 once it has moved in).
 */
inline exit_untie(found, owed)
{
#ifdef BROKEN_WALK
	d_step { jobc--; orphanings = orphanings + (jobc == 0) };
	found = TIE(M1);
	found = found || TIE(M2);
	found = found || TIE(P2);
	owed = owed + !found;
#elif defined(BROKEN_LOAD_AFTER)
	d_step { jobc--; orphanings = orphanings + (jobc == 0) };
	owed = owed + (jobc == 0);		/* a load of its own */
#else
	d_step {
		jobc--;
		orphanings = orphanings + (jobc == 0);
		owed = owed + (jobc == 0)
	}
#endif
}

/* The kills an exit owes; BROKEN_KILL_SHARED sends them in its section. */
inline kills_owed(owed)
{
	do
	:: owed > 0 -> kill(); owed--
	:: else -> break
	od
}

inline enter_shared()
{
	shared_in++
}

inline leave_shared()
{
	shared_in--
}

/* @p exits: its child @m goes to init; then @p's death (its own pair). */
proctype exiter(byte p; byte m)
{
	bool tied;
	byte owed;

	enter_shared();
	lock_two(p, INIT, p);
	tied = TIE(m);				/* worked out under the locks */
	parent[m] = INIT;			/* step 2: the move */
	if
	:: tied -> exit_untie(tied, owed)	/* step 3 */
	:: else
	fi;
#ifdef BROKEN_KILL_SHARED
	kills_owed(owed);
#endif
	unlock_two(p, INIT);
	/* The death: p's own pair, under T of its real parent. */
	lock_two(parent[p], p, p);
	tied = TIE(p);
	dead[p] = true;
	if
	:: tied -> exit_untie(tied, owed)
	:: else
	fi;
#ifdef BROKEN_KILL_SHARED
	kills_owed(owed);
#endif
	unlock_two(parent[p], p);
	leave_shared();
	kills_owed(owed);			/* the gate exclusive, each one */
	tied = false;
	done++
}

/* q: setpgid(p2, G). */
proctype mover()
{
	bool gains, loses;

	enter_shared();
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
		pgrp[P2] = G;
		if
		:: gains -> jobc++
		:: else
		fi;
#else
		if
		:: gains -> jobc++			/* step 1 */
		:: else
		fi;
		pgrp[P2] = G;				/* step 2 */
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
	leave_shared();
	gains = false;
	loses = false;
	done++
}

#ifdef RETIE
/* q: setpgid(r, G), a tie of G that stays. */
proctype retier()
{
	enter_shared();
	lock_two(Q, R, Q);
	jobc++;					/* step 1: (r, q) */
	pgrp[R] = G;				/* step 2; it breaks no tie */
	unlock_two(Q, R);
	leave_shared();
	done++
}
#endif

proctype reader()
{
	atomic { assert(jobc != 0 || TRUE_TIES == 0) }	/* one load of the count */
}

init {
	d_step {
		addr[P2] = 1; addr[INIT] = 2; addr[Q] = 3; addr[P1] = 4; addr[R] = 5;
		parent[R] = Q; pgrp[R] = B;
		parent[Q] = INIT; parent[P1] = INIT; parent[P2] = Q;
		parent[M1] = P1; parent[M2] = P2;
		pgrp[INIT] = B; pgrp[Q] = B; pgrp[P1] = B; pgrp[P2] = B;
		pgrp[M1] = G; pgrp[M2] = G;
		jobc = TRUE_TIES;
		assert(jobc == 2)
	}
	atomic {
		run exiter(P1, M1);
		run exiter(P2, M2);
		run mover();
		run reader();
#ifdef RETIE
		run retier()
#endif
	}
#ifdef RETIE
	done == 4;
	assert(TRUE_TIES == 1 && jobc == 1);	/* r's tie */
	assert(kills <= orphanings)
#else
	done == 3;
	assert(TRUE_TIES == 0 && jobc == 0);
	assert(kills >= 1 && kills <= orphanings)
#endif
}
