/*
 * children_splice_wait.pml: a dying parent's children spliced onto the
 * reaper against wait walks (the article's Group 4; invariants I3 and I4 of
 * docs/verification.md).  It models rp_hlist_tail_splice_pub in
 * include/rcuproc/hlist.h.
 *
 * The dying parent D's children hlist is D -> c1 -> c2 -> c3 -> NULL; the
 * reaper R's is R -> r1 -> NULL.  The exit path first points each child's
 * parent field at R (the owner field readers filter by), then splices D's
 * children onto the tail of R's list as one block, in order, with no grace
 * period:
 *   R->last->next = first;   (publish the block on R, behind r1)
 *   D->first = NULL.
 * Only r1's ->next changes, from NULL to c1; c3's stays NULL.
 *
 * Two wait walks run meanwhile, one over D's list and one over R's: each
 * loads the head, then for each node records a visit and loads ->next,
 * until NULL.  When a walk loads its head, the model also takes (as ghost
 * state, in the same atomic step) the set of nodes on that list at that
 * moment.
 *
 * Properties (checked when both walks have ended):
 *  - every node that was on the list when the walk started is visited (a
 *    reportable child is never missed: I3);
 *  - no node is visited twice;
 *  - the walk ends at NULL within (number of nodes + 1) steps (I4).
 * A walk of R may go on into the block: the wait filters by the parent
 * field, which this model does not need to check.
 *
 * Broken variant (-DBROKEN or -DBROKEN_ONE_BY_ONE): the children are moved
 * one at a time, del from D then add at R's tail (RP_BREAK_NAIVE_MOVE).  A
 * walk standing on c1 when it moves finds it last on R, ends there and
 * misses c2 and c3.
 *
 * Run: spin -a children_splice_wait.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_ONE_BY_ONE
#endif

#define NIL	0
#define C1	1
#define C2	2
#define C3	3
#define R1	4
#define NN	5
#define D	0	/* parent ids */
#define R	1
#define MAXSTEPS 5

byte headD, headR;
byte next[NN];
byte parent[NN];
byte vis[2 * NN];	/* visits: [walker * NN + node] */
bool snap[2 * NN];	/* ghost: on the walker's list when it started */
byte finished;

proctype walker(byte w)
{
	byte cur, n, steps;

	d_step {
		if
		:: w == D -> cur = headD	/* rcu_dereference(head->first) */
		:: else -> cur = headR
		fi;
		/* ghost: the list as it is now */
		n = cur;
		do
		:: n == NIL -> break
		:: else -> snap[w * NN + n] = true; n = next[n]
		od;
		n = 0
	};
	do
	:: cur == NIL -> break
	:: else ->
		vis[w * NN + cur]++;
		steps++;
		assert(steps <= MAXSTEPS);
		cur = next[cur]			/* rcu_dereference(cur->next) */
	od;
	skip;	/* spin: a break may not jump straight into a d_step */
	d_step {
		n = 1;
		do
		:: n == NN -> break
		:: else ->
			assert(!snap[w * NN + n] || vis[w * NN + n] >= 1);
			assert(vis[w * NN + n] <= 1);
			n++
		od;
		n = 0;
		steps = 0
	}
	finished++
}

proctype reaper()
{
	byte n, lastR = R1;

	/* The caller updates the owner field before the move. */
	parent[C1] = R;
	parent[C2] = R;
	parent[C3] = R;
#ifdef BROKEN_ONE_BY_ONE
	do
	:: headD == NIL -> break
	:: else ->
		n = headD;
		headD = next[n];		/* del (first node) */
		next[n] = NIL;			/* add at the tail */
		next[lastR] = n;
		lastR = n
	od;
#else
	/* rp_hlist_tail_splice_pub(D, R): R's last node is r1. */
	next[R1] = C1;				/* publish the block */
	headD = NIL;
#endif
	n = 0;
	lastR = 0
}

init {
	d_step {
		headD = C1;
		next[C1] = C2;
		next[C2] = C3;
		next[C3] = NIL;
		headR = R1;
		next[R1] = NIL;
		parent[C1] = D;
		parent[C2] = D;
		parent[C3] = D;
		parent[R1] = R
	}
	atomic {
		run walker(D);
		run walker(R);
		run reaper()
	}
}
