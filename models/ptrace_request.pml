/*
 * ptrace_request.pml: a ptrace request other than an attach or a detach
 * (PTRACE_CONT and its kin) under the update gate shared, against the
 * writers of the link and of the stop it acts on (docs/process.md,
 * protocol (f), "The other requests").
 *
 * THE PROTOCOL.  Tracer X's request on tracee C takes the gate shared and
 * T of X, checks the link (C traced, C's `parent` X) under that T, and
 * then, in one hold of C's siglock, checks the stop (stopped, not killed)
 * and makes its change (here a CONT: the stop ends).  The writers:
 *   X's detach of C, from another thread of the program (the gate shared,
 *   T of X and of C's real parent P, then C's siglock), which unlinks a
 *   stopped C and lets it go;
 *   Y's attach of C (the gate shared, T of Y and of P): if C is untraced,
 *   it links C to Y (under C's siglock), and C then stops for Y;
 *   a kill of C (C's siglock);
 *   C itself: it leaves its stop once it is let go or killed (under its
 *   siglock), stops again for a tracer that has none of its stops yet, and
 *   a killed C exits, under the gate exclusive (a traced exit), which
 *   unlinks it.
 *
 * The model: X's request, X's detach, Y's attach, the kill and C, all at
 * once, C at first stopped for X.  Addresses: X < Y < P.
 *
 * What it abstracts away: the read section and the lookup of C (C is
 * referenced), STOP_TELLING (C has told of its stop), which change the
 * request makes (one step under the siglock), the tracee's exit beyond
 * its unlink, and the lists (a link is `parent` and `traced`).
 *
 * Property: the request's change is made only on a stop of C's that is
 * X's and not killed, in the siglock's hold that saw it (assertion at the
 * change); no deadlock.
 *
 * Broken variants:
 *  -DBROKEN_UNFROZEN (RP_BREAK_PTRACE_UNFROZEN): the stop checked under a
 *      hold of the siglock of its own, the change made under another: a
 *      kill in between is not seen.
 *  -DBROKEN_TRACER_UNLOCKED (RP_BREAK_PTRACE_TRACER_UNLOCKED): no T of
 *      X: X's detach and Y's attach come between the request's check of
 *      the link and its change, and C stops for Y.
 *
 * Run: spin -a ptrace_request.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#define NONE	0
#define X	1	/* the tracer, making the request */
#define Y	2	/* another tracer */
#define P	3	/* C's real parent */
#define D	4	/* X's detach, from another thread */
#define K	5	/* the kill */
#define Q	6	/* X's request */
#define CC	7	/* C itself */
#define NT	4

byte lk[NT];		/* tree locks of X, Y, P: the holder, or NONE */
byte siglock;		/* C's: the holder, or NONE */
byte shared;		/* holders of the gate shared */
bool excl;		/* the gate held exclusive */
byte parent = X;	/* C's tracer, or P */
bool traced = true;	/* C's ->ptrace */
bool stopped = true;	/* RP_JOBCTL_TRACED */
byte stopped_for = X;	/* whose stop it is */
bool killed;		/* a SIGKILL pending, or the group exiting */
bool exited;		/* C's exit unlinked it */
byte stops = 1;		/* stops C entered: bounded */

inline lock(t, me)
{
	atomic { lk[t] == NONE -> lk[t] = me }
}

inline unlock(t)
{
	lk[t] = NONE
}

inline sig_lock(me)
{
	atomic { siglock == NONE -> siglock = me }
}

inline sig_unlock()
{
	siglock = NONE
}

inline gate_shared()
{
	atomic { !excl -> shared++ }
}

inline gate_shared_end()
{
	shared--
}

/* X's request: a CONT. */
proctype Request()
{
	bool ok;

	gate_shared();
#ifndef BROKEN_TRACER_UNLOCKED
	lock(X, Q);
#endif
	if
	:: traced && parent == X ->
#ifdef BROKEN_UNFROZEN
		sig_lock(Q);
		ok = stopped && !killed;
		sig_unlock();
		/* the window */
		sig_lock(Q);
#else
		/* the window */
		sig_lock(Q);
		ok = stopped && !killed;
#endif
		if
		:: ok ->
			assert(stopped && stopped_for == X && parent == X && traced && !killed);
			stopped = false
		:: else -> skip
		fi;
		sig_unlock()
	:: else -> skip
	fi;
#ifndef BROKEN_TRACER_UNLOCKED
	unlock(X);
#endif
	gate_shared_end()
}

/* X's detach of a stopped C: T of X and of P (X < P), then the siglock. */
proctype Detach()
{
	gate_shared();
	lock(X, D);
	lock(P, D);
	if
	:: traced && parent == X ->
		sig_lock(D);
		if
		:: stopped && !killed ->
			parent = P;
			traced = false;
			stopped = false
		:: else -> skip
		fi;
		sig_unlock()
	:: else -> skip
	fi;
	unlock(P);
	unlock(X);
	gate_shared_end()
}

/* Y's attach: T of Y and of P (Y < P), then the siglock for ->ptrace. */
proctype Attach()
{
	gate_shared();
	lock(Y, Y);
	lock(P, Y);
	if
	:: !traced && !exited ->
		sig_lock(Y);
		parent = Y;
		traced = true;
		sig_unlock()
	:: else -> skip
	fi;
	unlock(P);
	unlock(Y);
	gate_shared_end()
}

proctype Kill()
{
	sig_lock(K);
	killed = true;
	sig_unlock()
}

/* C: leaves a stop it is let go of, stops for a new tracer, exits if killed. */
proctype Tracee()
{
	do
	:: sig_lock(CC);
		if
		:: stopped && killed ->
			stopped = false	/* leaves the stop: the kill's */
		:: !stopped && traced && !killed && stops < 2 ->
			stopped = true;	/* the SIGSTOP of Y's attach */
			stopped_for = parent;
			stops++
		:: else -> skip
		fi;
		sig_unlock()
	:: atomic { !stopped && killed && !exited && !excl && shared == 0 -> excl = true };
		/* a traced exit: the gate exclusive, the unlink */
		sig_lock(CC);
		parent = P;
		traced = false;
		exited = true;
		sig_unlock();
		excl = false;
		break
	:: !stopped && (!killed || exited) -> break
	od
}

init
{
	atomic {
		run Request();
		run Detach();
		run Attach();
		run Kill();
		run Tracee()
	}
}
