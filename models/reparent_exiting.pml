/*
 * reparent_exiting.pml: reparenting without the update lock, to a reaper
 * that is exiting at the same moment (docs/process.md, "Without the update
 * lock (design)", protocol (a); invariant I3 of docs/verification.md: an
 * orphan is never left where nobody reaps it).
 *
 * THE PROTOCOL.  A dying thread X gives its children to a reaper: a live
 * thread of its own group, else a live child subreaper above it, else
 * init.  Each task has a tree lock (T), taken in increasing address, and a
 * `closed` flag set under its own T once it has given its children away.
 *   1. X sets its RP_PF_EXITING flag (a full barrier follows it), then
 *      picks the first candidate whose flag is clear (one load of each);
 *   2. X takes T of X and of the candidate, in address order;
 *   3. if the candidate is closed, X unlocks both and goes back to 1 (the
 *      candidate's flag was set before it closed, under its T, which X has
 *      taken since: the next pick skips it);
 *   4. X moves every child of its own to the candidate (their real_parent,
 *      and the block splice onto the candidate's list), sets its own
 *      `closed`, and unlocks both.
 *
 * The model: threads F and R of one process (each the other's first
 * candidate), a child subreaper S above them (its own process, the second
 * candidate of F and R) and init I (the last candidate, never exiting).
 * F's child c, R's child d and S's child e.  F, R and S exit at once.  The
 * addresses are a permutation that is neither the tree's order nor the
 * creation order (R < I < F < S), so the lock order is tested as written.
 * A child is on the list of its `parent[]` (the splice is one store for
 * readers, children_splice_wait.pml checks the walks over it: here the
 * move of all of X's children is one step).
 *
 * What it abstracts away: the readers (wait's scans, getppid), the tracer
 * links (a traced child keeps its `parent`, the move is the same), the
 * parent-death signals and the notices of the zombies among the children
 * (sent after the splice, under the same locks), the namespace's init
 * (the chain ends at I, as it ends at an init that is not exiting), and the
 * barrier of step 1 (SPIN is sequentially consistent: the model assumes
 * the full barrier that makes "each sets its flag, then reads the
 * other's" sequentially consistent on the machine too).
 *
 * Properties: when every exit is done, no child's parent is closed (each
 * is on the list of a task that still reaps: here I); a child is moved
 * only by the holder of both its old and its new parent's locks; no
 * deadlock (SPIN's invalid end state: every process ends).
 *
 * Broken variants:
 *  -DBROKEN_NO_RECHECK (or -DBROKEN): step 3 left out: X trusts the flag it
 *      read before locking.  F picks R, R closes, F moves c onto R's list,
 *      which nobody will pass on: c is left on a closed list.
 *  -DBROKEN_CLOSE_UNLOCKED: X sets `closed` after it unlocks, in a step of
 *      its own: another exit that locks X between the two finds it open
 *      and moves its children onto it after X's own children went.
 *
 * Run: spin -a reparent_exiting.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_NO_RECHECK
#endif

#define NONE	0
#define F	1	/* thread of process P */
#define R	2	/* the other thread of P */
#define S	3	/* a child subreaper above P */
#define I	4	/* init: never exits */
#define NT	5
#define C	5	/* F's child */
#define D	6	/* R's child */
#define E	7	/* S's child */
#define NN	8

byte addr[NT];		/* lock order: increasing address */
byte lk[NT];		/* tree locks: the holder, or NONE */
bool exiting[NT];	/* RP_PF_EXITING */
bool closed[NT];	/* its children given away, under its own T */
byte parent[NN];	/* a child's real_parent: the list it is on */
byte done;

inline lock(t, me)
{
	atomic { lk[t] == NONE -> lk[t] = me }
}

inline unlock(t)
{
	lk[t] = NONE
}

/* T of @a and @b, lower address first. */
inline lock_two(a, b, me)
{
	if
	:: addr[a] < addr[b] -> lock(a, me); lock(b, me)
	:: else -> lock(b, me); lock(a, me)
	fi
}

inline unlock_two(a, b)
{
	unlock(a);
	unlock(b)
}

/* Step 1's pick: the first candidate whose flag is clear, one load each. */
inline pick(x, r)
{
	if
	:: x == F -> r = R
	:: x == R -> r = F
	:: else -> r = I
	fi;
	if
	:: r != I && exiting[r] -> r = S
	:: else
	fi;
	if
	:: r == S && (x == S || exiting[S]) -> r = I
	:: else
	fi
}

proctype exiter(byte x)
{
	byte r, ch;

	exiting[x] = true;
again:
	pick(x, r);
	lock_two(x, r, x);
#ifndef BROKEN_NO_RECHECK
	if
	:: closed[r] ->
		unlock_two(x, r);
		goto again
	:: else
	fi;
#endif
	/* Step 4: the children's parents and the splice, under both locks. */
	d_step {
		ch = C;
		do
		:: ch == NN -> break
		:: else ->
			if
			:: parent[ch] == x ->
				assert(lk[x] == x && lk[r] == x);
				parent[ch] = r
			:: else
			fi;
			ch++
		od;
		ch = 0
	};
#ifdef BROKEN_CLOSE_UNLOCKED
	unlock_two(x, r);
	closed[x] = true;
#else
	closed[x] = true;
	unlock_two(x, r);
#endif
	r = 0;
	done++
}

init {
	byte ch;

	d_step {
		addr[R] = 1; addr[I] = 2; addr[F] = 3; addr[S] = 4;
		parent[C] = F;
		parent[D] = R;
		parent[E] = S
	}
	atomic {
		run exiter(F);
		run exiter(R);
		run exiter(S)
	}
	done == 3;
	d_step {
		ch = C;
		do
		:: ch == NN -> break
		:: else -> assert(!closed[parent[ch]]); ch++
		od
	}
}
