/*
 * thread_clone_reparent.pml: a thread's clone under the update gate shared
 * against a plain exit of its group's real parent, which gives the group
 * to a reaper (docs/process.md, "A thread's clone"; invariant I3 of
 * docs/verification.md: no task is left with a parent that reaps no more).
 *
 * THE PROTOCOL.  Every thread of a process names the process's parent as
 * its real_parent.  A clone by thread X of process C (G of C held, in a
 * read section):
 *   1. reads p = X's real_parent (RCU);
 *   2. takes T of p;
 *   3. if X's real_parent is no longer p, lets T of p go and goes back to
 *      1 (a reparenting moved the group under T of p meanwhile);
 *   4. links the new thread B: on C's thread list, with p for real_parent;
 *   5. lets T of p go.
 * The exit of C's parent P (plain: under T of P and of the reaper, in
 * increasing address) walks C's thread list and points each thread found
 * there at the reaper, then sets P closed.
 *
 * The model: P, C's parent, and I, init, the reaper (it never exits);
 * C's threads L (leader) and X; X clones B while P exits.  The addresses
 * are I < P, so the exit takes I's T first.  The exit's walk is one step
 * (the list is read under the locks the clone's link needs; readers of the
 * list are not modelled).
 *
 * What it abstracts away: G (no other writer of C's thread list runs: the
 * exits of C's threads take the gate exclusive), the siglock hold of the
 * link (the group kill and stop: tests/proc/test_thread_shared.c), the
 * rest of the exit (protocol (a)'s search for a reaper and its `closed`
 * recheck, reparent_exiting.pml), and the RCU read of step 1 (the task
 * read stays allocated while the read section lasts: SPIN has no frees).
 *
 * Property: when both are done, every thread on C's list names a parent
 * that is not closed (here: I); a thread is linked only under T of the
 * parent it names; no deadlock (every process ends).
 *
 * Broken variants:
 *  -DBROKEN_NO_RECHECK: step 3 left out: the clone keeps the parent it
 *      read before its T.  P's exit moves L and X, then the clone links B
 *      with P, closed.  (RP_BREAK_THREAD_NO_PARENT_RECHECK.)
 *  -DBROKEN_UNLOCKED: the clone takes no T.  P's exit walks the list
 *      between the clone's read (and recheck) and its link: B is linked
 *      after the walk, with P.  (RP_BREAK_THREAD_PARENT_UNLOCKED.)
 *
 * Run: spin -a thread_clone_reparent.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#define NONE	0
#define P	1	/* C's parent, exiting */
#define I	2	/* init, the reaper */
#define NT	3
#define L	3	/* C's leader */
#define X	4	/* C's thread that clones */
#define B	5	/* the new thread */
#define NN	6

byte addr[NT];		/* lock order: increasing address */
byte lk[NT];		/* tree locks: the holder, or NONE */
bool closed[NT];	/* gave its children away */
byte rp[NN];		/* a thread's real_parent */
bool onlist[NN];	/* on C's thread list */
byte done;

inline lock(t, me)
{
	atomic { lk[t] == NONE -> lk[t] = me }
}

inline unlock(t)
{
	lk[t] = NONE
}

proctype clone()
{
	byte p;

again:
	p = rp[X];
#ifndef BROKEN_UNLOCKED
	lock(p, X);
#endif
#ifndef BROKEN_NO_RECHECK
	if
	:: rp[X] != p ->
#ifndef BROKEN_UNLOCKED
		unlock(p);
#endif
		goto again
	:: else
	fi;
#endif
	/* Step 4, the link: one store for the list's walkers. */
	d_step {
#ifndef BROKEN_UNLOCKED
		assert(lk[p] == X);
#endif
		rp[B] = p;
		onlist[B] = true
	};
#ifndef BROKEN_UNLOCKED
	unlock(p);
#endif
	p = 0;
	done++
}

proctype parent_exit()
{
	byte t;

	/* T of I, then of P: increasing address. */
	lock(I, P);
	lock(P, P);
	d_step {
		t = L;
		do
		:: t == NN -> break
		:: else ->
			if
			:: onlist[t] ->
				assert(rp[t] == P);
				rp[t] = I
			:: else
			fi;
			t++
		od;
		t = 0
	};
	closed[P] = true;
	unlock(P);
	unlock(I);
	done++
}

init {
	byte t;

	d_step {
		addr[I] = 1; addr[P] = 2;
		rp[L] = P; rp[X] = P;
		onlist[L] = true; onlist[X] = true
	}
	atomic {
		run clone();
		run parent_exit()
	}
	done == 2;
	d_step {
		t = L;
		do
		:: t == NN -> break
		:: else ->
			assert(!onlist[t] || !closed[rp[t]]);
			t++
		od
	}
}
