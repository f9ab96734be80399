/*
 * setpgid_proxy.pml: setpgid against group walkers (the article's Group 5,
 * "Substitute Copy For Original" with "Impose Level of Indirection";
 * invariants I1 and I4 of docs/verification.md).
 *
 * Group lists A and B are hlists (NULL-terminated) of small proxies (the
 * role of struct pid), not of tasks.  A task moves from group A to group B
 * and back to A.  Each move, done by one updater under the update lock:
 *   1. fills in a NEW proxy and publishes it at the head of the destination
 *      (hlist_add_head_rcu: the new proxy's ->next, then the head store);
 *   2. marks the old proxy obsolete (for holders of long-lived references,
 *      like procfs; walkers need not look at it);
 *   3. unlinks the old proxy from the source (one store into its
 *      predecessor's ->next); the old proxy keeps its ->next, so a walker
 *      standing on it walks on along the SOURCE list, and it is freed after
 *      a grace period.  A proxy is never linked a second time.
 * One walker walks A and one walks B (kill_pgrp under RCU): each loads the
 * head, then for each proxy records a visit and loads ->next.
 *
 * Properties, checked when both walkers have finished:
 *  - a walker never visits a proxy of the other list (no wandering: I4);
 *  - every member that stays in a group for the whole walk (a1, a2 in A;
 *    b1 in B) is visited exactly once (I1);
 *  - the moving task is visited at most once by each walker (I1: never
 *    twice), whichever of its proxies the walker met;
 *  - each walk ends within (list length + 1) steps (I4).
 *
 * Broken variant (-DBROKEN or -DBROKEN_RELINK): the same node is moved:
 * hlist_del_rcu from the source, then hlist_add_head_rcu onto the
 * destination, with no grace period.  A walker standing on it follows its
 * new ->next into the other list: it visits a member of the other group and
 * misses the rest of its own.
 *
 * Run: spin -a setpgid_proxy.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_RELINK
#endif

#define NIL	0
#define A1	1	/* stable member of A */
#define M0	2	/* the mover's proxy in A (initially) */
#define A2	3	/* stable member of A */
#define B1	4	/* stable member of B */
#define M1	5	/* the mover's new proxy in B */
#define M2	6	/* the mover's newer proxy in A (after moving back) */
#define NN	7
#define MAXSTEPS 6

byte headA, headB;
byte next[NN];
bool obsolete[NN];
byte visA[NN];		/* visits by the walker of A */
byte visB[NN];		/* visits by the walker of B */
byte finished;

proctype walker(bool onA)
{
	byte cur, steps;

	if
	:: onA -> cur = headA		/* rcu_dereference(head->first) */
	:: else -> cur = headB
	fi;
	do
	:: cur == NIL -> break
	:: else ->
		if
		:: onA -> visA[cur]++
		:: else -> visB[cur]++
		fi;
		steps++;
		assert(steps <= MAXSTEPS);
		cur = next[cur]			/* rcu_dereference(cur->next) */
	od;
	steps = 0;
	finished++
}

proctype mover()
{
#ifdef BROKEN_RELINK
	/* A -> B: hlist_del_rcu(m0) then hlist_add_head_rcu(m0, B). */
	next[A1] = next[M0];
	next[M0] = headB;
	headB = M0;
	/* B -> A: the same node again (it is B's first node). */
	headB = next[M0];
	next[M0] = headA;
	headA = M0
#else
	/* A -> B: publish a new proxy on B ... */
	next[M1] = headB;
	headB = M1;
	/* ... mark the old one obsolete, unlink it from A (its predecessor
	 * is a1); m0->next stays a2 for walkers standing on it. */
	obsolete[M0] = true;
	next[A1] = next[M0];
	/* B -> A: a newer proxy on A, the B proxy obsolete and unlinked (it
	 * is B's first node). */
	next[M2] = headA;
	headA = M2;
	obsolete[M1] = true;
	headB = next[M1]
#endif
}

init {
	d_step {
		headA = A1;
		next[A1] = M0;
		next[M0] = A2;
		next[A2] = NIL;
		headB = B1;
		next[B1] = NIL
	}
	atomic {
		run walker(true);
		run walker(false);
		run mover()
	}
	finished == 2;
	/* The walker of A stays on A ... */
	assert(visA[B1] == 0 && visA[M1] == 0);
	/* ... and the walker of B on B (m0 in the broken variant is both). */
	assert(visB[A1] == 0 && visB[A2] == 0 && visB[M2] == 0);
#ifndef BROKEN_RELINK
	assert(visB[M0] == 0);
#endif
	/* Stable members exactly once. */
	assert(visA[A1] == 1 && visA[A2] == 1 && visB[B1] == 1);
	/* The mover at most once per walker. */
	assert(visA[M0] + visA[M2] <= 1 && visB[M1] <= 1 && visB[M0] <= 1)
}
