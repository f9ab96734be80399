/*
 * ptrace_attach_exit.pml: ptrace attach and detach under the update gate
 * shared, against a plain exit of the tracee and of its real parent
 * (docs/process.md, "Without the update lock (design)", protocol (f);
 * invariant I3 of docs/verification.md: a zombie is told to, and reaped
 * by, the task it is linked to).
 *
 * THE PROTOCOL.  Tracer X attaches tracee C, then detaches it.  Each
 * holds T of X and of C's real parent, taken in increasing address, the
 * real parent read before its T and read again under it (start over if
 * it moved).  The attach answers EPERM for a zombie; else it links C
 * (C's `parent` becomes X, `traced` is set).  The detach sets C's
 * `parent` back to its real parent and clears `traced`.
 *   C's plain exit takes T of C and of its real parent (read again under
 * it), judges C untraced (else it takes the exclusive gate: here, it
 * stops), and, still holding them, makes C a zombie told to its
 * `parent`.  P's plain exit (P is C's real parent) takes T of P and of
 * its reaper R, moves C's real parent to R (and `parent` too if C is
 * untraced) and closes P.
 *
 * The model: X, C, P and R (init, never exiting); addresses in the order
 * X < R < C < P (neither the tree's order nor creation order).  X
 * attaches and then detaches C; C and P exit plainly, all at once.
 *
 * What it abstracts away: the gate itself (all three are shared holders;
 * an exclusive taker waits for all of them), the siglock (the attach's
 * store of `ptrace` is one step with its link), the readers (wait's walks
 * of the lists are ptrace_detach_wait.pml's), C's stop between the attach
 * and the detach, and the ptrace part's publication (a compare-and-swap
 * from NULL, one step).
 *
 * Properties: a plain exit that judged C untraced makes C a zombie with
 * C still untraced, and tells C's real parent (assertion at the notice);
 * at the end an untraced C's `parent` is its real parent, and that real
 * parent is not closed unless C is a zombie it was told of; no deadlock.
 *
 * Broken variants:
 *  -DBROKEN_PARENT_UNLOCKED (RP_BREAK_PTRACE_PARENT_UNLOCKED): the attach
 *      and detach take T of X alone: an attach links C between its exit's
 *      judgement and its zombie.
 *  -DBROKEN_NO_RECHECK (RP_BREAK_PTRACE_NO_PARENT_RECHECK): the real
 *      parent is not read again under its T: a detach hands C back to P
 *      after P gave C to R and closed.
 *
 * Run: spin -a ptrace_attach_exit.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#define NONE	0
#define X	1	/* the tracer */
#define R	2	/* init, P's children's reaper: never exits */
#define C	3	/* the tracee */
#define P	4	/* C's real parent */
#define NT	5

byte addr[NT];		/* lock order: increasing address */
byte lk[NT];		/* tree locks: the holder, or NONE */
bool closed[NT];	/* gave its children away */
byte real_parent = P;	/* C's */
byte parent = P;	/* C's: its tracer, or its real parent */
bool traced;		/* C's ->ptrace */
bool zombie;		/* C's exit_state */
byte told = NONE;	/* who C's zombie was told to */
byte done;

inline lock(t, me)
{
	atomic { lk[t] == NONE -> lk[t] = me }
}

inline unlock(t)
{
	lk[t] = NONE
}

/* T of @a and of @b (one lock if they are one task), in increasing address. */
inline lock2(a, b, me)
{
	if
	:: a == b -> lock(a, me)
	:: a != b && addr[a] < addr[b] -> lock(a, me); lock(b, me)
	:: a != b && addr[a] > addr[b] -> lock(b, me); lock(a, me)
	fi
}

inline unlock2(a, b)
{
	unlock(a);
	if
	:: a != b -> unlock(b)
	:: else -> skip
	fi
}

/*
 * Protocol (f)'s locks for tracer X: T of X and of C's real parent, read
 * under RCU and then again under its T.
 */
inline lock_link(rp)
{
	do
	:: rp = real_parent;
#ifdef BROKEN_PARENT_UNLOCKED
	   lock(X, X);
#else
	   lock2(X, rp, X);
#endif
	   if
#ifdef BROKEN_NO_RECHECK
	   :: true -> break
#else
	   :: rp == real_parent -> break
	   :: else ->
#ifdef BROKEN_PARENT_UNLOCKED
	      unlock(X)
#else
	      unlock2(X, rp)
#endif
#endif
	   fi
	od
}

inline unlock_link(rp)
{
#ifdef BROKEN_PARENT_UNLOCKED
	unlock(X)
#else
	unlock2(X, rp)
#endif
}

proctype Tracer()
{
	byte rp;
	bool attached = false;

	lock_link(rp);
	if
	:: !zombie -> atomic { parent = X; traced = true }; attached = true
	:: else -> skip		/* EPERM */
	fi;
	unlock_link(rp);
	if
	:: attached ->
		lock_link(rp);
		/* C is traced: only an exclusive exit could make it a zombie */
		atomic { parent = rp; traced = false };
		unlock_link(rp)
	:: else -> skip
	fi;
	done++
}

/* C's plain exit: C has no children, so no reaper. */
proctype ExitC()
{
	byte rp;

	do
	:: rp = real_parent;
	   lock2(C, rp, C);
	   if
	   :: rp == real_parent -> break
	   :: else -> unlock2(C, rp)
	   fi
	od;
	if
	:: !traced ->
		/* judged untraced: no attach may come before the zombie */
		assert(!traced);
		zombie = true;
		assert(!traced && parent == rp);
		told = parent
	:: else -> skip	/* the exclusive gate: not modelled further */
	fi;
	unlock2(C, rp);
	done++
}

/* P's plain exit: its child C goes to R. */
proctype ExitP()
{
	lock2(P, R, P);
	atomic {
		real_parent = R;
		if
		:: !traced -> parent = R
		:: else -> skip
		fi
	}
	closed[P] = true;
	unlock2(P, R);
	done++
}

init {
	addr[X] = 1; addr[R] = 2; addr[C] = 3; addr[P] = 4;
	atomic {
		run Tracer();
		run ExitC();
		run ExitP()
	}
	done == 3;
	assert(traced || parent == real_parent);
	assert(!closed[parent] || (zombie && told == parent))
}
