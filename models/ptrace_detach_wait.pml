/*
 * ptrace_detach_wait.pml: ptrace detach/attach against the tracer's wait
 * walk (the article's Group 3: "Mark Obsolete Objects" and "Retry Readers";
 * invariants I3 and I4 of docs/verification.md).  It models
 * include/rcuproc/list.h: rp_owned_del_pub, rp_owned_add_pub and
 * rp_owned_next_rcu.
 *
 * Tracer T1's ptraced list is circular: H1 -> x -> y -> H1.  Tracer T2's is
 * H2 -> z -> H2.  Another thread detaches tracee x from T1 and attaches it
 * to T2, then detaches it from T2 and attaches it to T1 again (the ABA case),
 * with no grace period.  Each node has an owner (NULL = obsolete) and a
 * generation, bumped on every attach.
 *
 *   detach (rp_owned_del_pub): owner = NULL; then unlink (one store into
 *       the predecessor's ->next; x keeps its ->next);
 *   attach (rp_owned_add_pub): x->next = head->next; gen++; owner = new;
 *       then publish at the front (head->next = x).
 *
 * T1's wait walks H1's list as a retry reader: on each node it loads gen,
 * then ->next, then owner and gen again (each a separate load); if the owner
 * is not T1 or gen changed, the ->next it loaded may lead elsewhere, so it
 * restarts from H1.  The walk ends only at H1.
 *
 * Properties (assertions in the walker):
 *  - it never stands on z or H2 (nodes of the other tracer's list that were
 *    never on its list): no wandering (I4);
 *  - within one pass no node is visited twice, and the pass is at most
 *    (list length + 1) steps long, so a pass cannot loop (I4);
 *  - in its last pass it visited y, which is on H1 throughout (I3: a
 *    reportable tracee is never missed);
 *  - termination, checked separately with -DLIVENESS (which drops the step
 *    counter, so that a walk that never ends is a cycle of the state graph)
 *    as a non-progress-cycle search under weak fairness (gcc -DNP, ./pan -l
 *    -f): the model has no progress labels, and the detacher runs straight
 *    through, so every fair infinite run is a walker that goes on for ever
 *    after the updates stopped.  Weak fairness is needed: restarts are not
 *    bounded, since while x is marked obsolete and not yet unlinked a walker
 *    reaching x restarts, and can do so as long as the detacher is stalled.
 *    A restart always needs a concurrent detach or attach.
 *
 * Broken variants:
 *  -DBROKEN_NO_MARK (or -DBROKEN): no obsolete mark: detach just unlinks;
 *      attach is cds_list_add_rcu with the owner set after the node is
 *      published and no gen (RP_BREAK_NO_OBSOLETE_MARK).  The walker follows
 *      x onto T2's list;
 *  -DBROKEN_NO_GEN: the walker checks the owner only (the ABA hole of
 *      docs/lists.md): x leaves and comes back between the walker's ->next
 *      load and its owner check;
 *  -DBROKEN_ADD_ORDER: attach sets gen and owner before ->next;
 *  -DBROKEN_NO_RESTART: the walker never restarts (RP_BREAK_NO_RESTART): it
 *      follows x onto T2's list; with -DLIVENESS it then goes round T2's
 *      list for ever, a non-progress cycle.
 *
 * Run: spin -a ptrace_detach_wait.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 * Termination: spin -DLIVENESS -a ptrace_detach_wait.pml &&
 *	gcc -O2 -DNP -o pan pan.c && ./pan -l -f
 */

#ifdef BROKEN
#define BROKEN_NO_MARK
#endif

#define H1	0	/* T1's ptraced head */
#define H2	1	/* T2's ptraced head */
#define X	2	/* the tracee that moves */
#define Y	3	/* stays traced by T1 */
#define Z	4	/* stays traced by T2 */
#define NN	5
#define NONE	0	/* owner NULL: obsolete */
#define T1	1
#define T2	2
#define MAXPASS	3	/* steps in one pass: nodes of H1's list + 1 */

#ifdef BROKEN_NO_RESTART
#define RESTART	false	/* RP_BREAK_NO_RESTART */
#else
#define RESTART	true
#endif

byte next[NN], prev[NN];	/* prev is updater-only */
byte owner[NN], gen[NN];

/* cds_list_del_rcu: only the store into the predecessor's ->next is seen by
 * readers; the ->prev fix-up is updater-only, so one atomic step. */
inline list_del(n)
{
	d_step {
		next[prev[n]] = next[n];
		prev[next[n]] = prev[n]
	}
}

inline owned_del(n)
{
#ifndef BROKEN_NO_MARK
	owner[n] = NONE;		/* mark obsolete ... */
#endif
	list_del(n)			/* ... then unlink */
}

inline owned_add(n, h, o)
{
#ifdef BROKEN_NO_MARK
	d_step { next[n] = next[h]; prev[n] = h };	/* cds_list_add_rcu */
	d_step { prev[next[h]] = n; next[h] = n };	/* publish */
	owner[n] = o					/* owner last */
#else
#ifdef BROKEN_ADD_ORDER
	gen[n]++;
	owner[n] = o;
	d_step { next[n] = next[h]; prev[n] = h };
#else
	d_step { next[n] = next[h]; prev[n] = h };	/* ->next first */
	gen[n]++;
	owner[n] = o;
#endif
	d_step { prev[next[h]] = n; next[h] = n }	/* publish at the front */
#endif
}

proctype detacher()
{
	owned_del(X);
	owned_add(X, H2, T2);
	owned_del(X);
	owned_add(X, H1, T1)
}

proctype waiter()
{
	byte cur, nx, g, o, g2, steps;
	bool seenX, seenY;

	cur = next[H1];				/* rcu_dereference(head->next) */
	do
	:: cur == H1 -> break
	:: else ->
#ifndef LIVENESS
		assert(cur != Z && cur != H2);	/* never on T2's list */
		steps++;
		assert(steps <= MAXPASS);
#endif
		if
		:: cur == X -> assert(!seenX); seenX = true
		:: cur == Y -> assert(!seenY); seenY = true
		:: else
		fi;
		/* rp_owned_next_rcu */
		g = gen[cur];
		nx = next[cur];			/* rcu_dereference(cur->next) */
		o = owner[cur];
#ifdef BROKEN_NO_GEN
		g2 = g;
#else
		g2 = gen[cur];
#endif
		if
		:: RESTART && (o != T1 || g2 != g) ->	/* restart from the head */
			seenX = false;
			seenY = false;
			steps = 0;
			nx = next[H1]
		:: else
		fi;
		d_step { cur = nx; nx = 0; g = 0; o = 0; g2 = 0 }
	od;
	assert(seenY)				/* the last pass saw y */
}

init {
	d_step {
		next[H1] = X; next[X] = Y; next[Y] = H1;
		prev[H1] = Y; prev[X] = H1; prev[Y] = X;
		next[H2] = Z; next[Z] = H2;
		prev[H2] = Z; prev[Z] = H2;
		owner[X] = T1; owner[Y] = T1; owner[Z] = T2;
		gen[X] = 1; gen[Y] = 1; gen[Z] = 1
	}
	atomic {
		run waiter();
		run detacher()
	}
}
