/*
 * tasks_lazy_list.pml: sys->tasks without one lock (docs/process.md, "The
 * per-object locks", L; protocol (d)'s release as built): a fork's link
 * behind a node, under that node's link lock, and releases' unlinks
 * beside it, each under the link locks of two nodes, with the lazy
 * list's validation.
 *
 * THE PROTOCOL.  L of a node guards its ->next and its successor's ->prev.
 *  - a link of new node C behind P: lock P alone, read S = P->next
 *    (check that neither left the list: true by construction, since an
 *    unlink of S or of P takes P's lock), then C->next = S, C->prev = P,
 *    publish P->next = C, S->prev = C.  S's own lock is not taken: every
 *    writer of S->prev holds P's;
 *  - an unlink of node N: read P = N->prev with no lock, lock P, lock N
 *    (list order), validate: P has not left the list (P->prev is not the
 *    mark) and P->next is still N, else unlock both and read again; then
 *    P->next = N->next, N->next->prev = P, and mark N as off the list
 *    (N->prev = the mark).  N->next stays, for readers standing on N;
 *  - a reader walks ->next from the head with no lock (RCU).
 *
 * The model: the list H -> A -> Z -> B -> H (H the head, A a live parent,
 * Z and B zombies released at once), and a fork that links C behind A.
 * A reader walks the list meanwhile.
 *
 * What it abstracts away: memory reclamation (a released node is never
 * freed here: the read section of the real code keeps it), the other
 * locks of a release and a fork (G, T, M, the siglock), and which nodes
 * a real release and fork pick (the fork always links behind its
 * leader's node, which no release unlinks while the fork runs).
 *
 * Properties:
 *  - at the end the list is H -> A -> C -> H, and every node on it is its
 *    successor's ->prev;
 *  - the reader meets A exactly once and C at most once, and gets back to
 *    the head (no cycle, no unlinked node leads it astray for ever).
 *
 * Broken variant:
 *  -DBROKEN_NO_RECHECK (or -DBROKEN): the unlink writes behind the
 *      predecessor it read before its locks (RP_BREAK_TASKS_NO_RECHECK):
 *      the fork linked C behind A meanwhile, and Z's unlink makes A skip
 *      C; or B's unlink writes behind Z, already off the list, and B
 *      stays on it.
 *
 * Run: spin -a tasks_lazy_list.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_NO_RECHECK
#endif

#define H	0
#define A	1
#define Z	2
#define B	3
#define C	4
#define N	5
#define OFF	255	/* ->prev of a node off the list */

byte next[N], prev[N];
bool lk[N];
byte done;

inline lock(x) { atomic { !lk[x] -> lk[x] = true } }
inline unlock(x) { lk[x] = false }

proctype Fork()
{
	byte s;

	lock(A);
	s = next[A];
	assert(prev[A] != OFF && prev[s] != OFF);
	next[C] = s;
	prev[C] = A;
	next[A] = C;		/* publishes C */
	prev[s] = C;
	unlock(A);
	done++
}

proctype Release(byte n)
{
	byte p;

again:
	p = prev[n];
	lock(p);
	lock(n);
#ifndef BROKEN_NO_RECHECK
	if
	:: prev[p] == OFF || next[p] != n ->
		unlock(n);
		unlock(p);
		goto again
	:: else
	fi;
#endif
	next[p] = next[n];
	prev[next[n]] = p;
	prev[n] = OFF;
	unlock(n);
	unlock(p);
	done++
}

proctype Reader()
{
	byte pos = next[H], steps = 0, seen_a = 0, seen_c = 0;

	do
	:: pos == H -> break
	:: else ->
		if
		:: pos == A -> seen_a++
		:: pos == C -> seen_c++
		:: else
		fi;
		steps++;
		assert(steps <= 8);
		pos = next[pos]
	od;
	assert(seen_a == 1 && seen_c <= 1);
	done++
}

init {
	byte pos, n;

	next[H] = A; prev[A] = H;
	next[A] = Z; prev[Z] = A;
	next[Z] = B; prev[B] = Z;
	next[B] = H; prev[H] = B;
	next[C] = C; prev[C] = C;	/* a thread's self-loop until linked */
	atomic {
		run Fork();
		run Release(Z);
		run Release(B);
		run Reader()
	}
	done == 4;
	/* H -> A -> C -> H, each node its successor's predecessor. */
	assert(next[H] == A && next[A] == C && next[C] == H);
	pos = H;
	n = 0;
	do
	:: n < 3 ->
		assert(prev[next[pos]] == pos);
		pos = next[pos];
		n++
	:: else -> break
	od;
	assert(prev[Z] == OFF && prev[B] == OFF)
}
