/*
 * trace_report.pml: wait's report of a tracee's ptrace stop to its tracer
 * under the update gate shared, against the writers of the link and of
 * the stop (docs/process.md, protocol (h)).
 *
 * THE PROTOCOL.  A thread of the tracer's group waits for tracee C.  The
 * report takes the gate shared, reads C's tracer TR under RCU, takes T of
 * C's real parent P and of TR (one lock when they are one task), reads
 * the link again under them (and scans again if it moved), checks that
 * C is traced by a thread of the waiter's group, judges the stop, and
 * then, in one hold of C's siglock, judges it again and consumes its
 * code.  Here P is the tracer X itself (a debugger tracing its own
 * child), and X2 is another thread of X's group.  The writers:
 *   X's PTRACE_CONT with a signal (the gate shared, T of X, C's siglock):
 *   the code becomes the signal to resume with, and the stop ends;
 *   X's detach, then X2's attach (protocol (f): T of the tracer and of
 *   P): the detach writes the signal to resume with in one hold of the
 *   siglock and unlinks C, ending the stop, in another; the attach links
 *   C to X2, and C then stops for X2;
 *   a kill of C (C's siglock);
 *   C itself: it leaves its stop when killed, stops again for its tracer
 *   (bounded), and a killed C exits under the gate exclusive (a traced
 *   exit), which unlinks it.
 *
 * The model: the report, the CONT, the detach and attach, the kill and
 * C, all at once; C at first stopped for X.  Addresses X < X2.
 *
 * What it abstracts away: the scan (the report starts at its claim, C
 * referenced), the read section, the selection, `WNOWAIT`, the stop's
 * kinds (a code), a scan again (the report ends), the lists.
 *
 * Property: the report consumes only the code of a stop C is in, one of
 * its tracer's, under T of that tracer (assertion at the consumption: C
 * stopped, the code a stop's and not a request's signal, C's tracer the
 * TR whose T the report holds); no deadlock.
 *
 * Broken variants:
 *  -DBROKEN_NO_RECHECK (RP_BREAK_TRACE_REPORT_NO_RECHECK): the link read
 *      under RCU is trusted under the T: a detach and X2's attach before
 *      the T leave the report holding X's T for X2's stop.
 *  -DBROKEN_TRACER_UNLOCKED (RP_BREAK_TRACE_REPORT_TRACER_UNLOCKED): no T
 *      of the tracer (here P's too): the detach's signal, written before
 *      its unlink, is taken for a stop and consumed.
 *  -DBROKEN_JUDGED_UNLOCKED (RP_BREAK_REPORT_JUDGED_UNLOCKED): the stop
 *      judged under T, outside the siglock: a kill ends it before the
 *      consumption.
 *
 * Run: spin -a trace_report.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#define NONE	0
#define X	1	/* the tracer, and C's real parent */
#define X2	2	/* another thread of X's group */
#define R	3	/* the report */
#define Q	4	/* X's CONT */
#define D	5	/* X's detach, then X2's attach */
#define K	6	/* the kill */
#define CC	7	/* C itself */
#define NT	3

#define SIG_STOP	1	/* a stop's code */
#define SIG_RESUME	2	/* a request's signal to resume with */

byte lk[NT];		/* tree locks of X, X2: the holder, or NONE */
byte siglock;		/* C's: the holder, or NONE */
byte shared;		/* holders of the gate shared */
bool excl;		/* the gate held exclusive */
byte parent = X;	/* C's tracer, or X as its real parent */
bool traced = true;	/* C's ->ptrace */
bool stopped = true;	/* RP_JOBCTL_TRACED */
byte code = SIG_STOP;	/* C's exit_code */
bool code_is_stop = true;	/* the code is a stop's, not a request's */
bool killed;		/* a SIGKILL pending */
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

/* T of the real parent X and of tracer @tr, in increasing address. */
inline lock_report(tr)
{
#ifndef BROKEN_TRACER_UNLOCKED
	lock(X, R);
	if
	:: tr == X2 -> lock(X2, R)
	:: else -> skip
	fi
#else
	if
	:: tr == X2 -> lock(X, R)	/* P's T: the tracer's is left */
	:: else -> skip			/* one task: nothing taken */
	fi
#endif
}

inline unlock_report(tr)
{
#ifndef BROKEN_TRACER_UNLOCKED
	if
	:: tr == X2 -> unlock(X2)
	:: else -> skip
	fi;
	unlock(X)
#else
	if
	:: tr == X2 -> unlock(X)
	:: else -> skip
	fi
#endif
}

proctype Report()
{
	byte tr;
	bool seen, judged;

	gate_shared();
	if
	:: traced ->
		tr = parent;		/* under RCU */
		/* window A: the link may move before the T */
		lock_report(tr);
#ifndef BROKEN_NO_RECHECK
		if
		:: parent != tr -> goto out	/* moved: scan again */
		:: else -> skip
		fi;
#endif
		if
		:: traced && (parent == X || parent == X2) ->
			seen = stopped && code != NONE;
			/* window B: T held, not the siglock */
			sig_lock(R);
#ifdef BROKEN_JUDGED_UNLOCKED
			judged = seen;
#else
			judged = stopped && code != NONE;
#endif
			if
			:: judged ->
				assert(stopped && code_is_stop && parent == tr);
				code = NONE
			:: else -> skip
			fi;
			sig_unlock()
		:: else -> skip
		fi;
out:
		unlock_report(tr)
	:: else -> skip
	fi;
	gate_shared_end()
}

/* X's PTRACE_CONT with a signal. */
proctype Cont()
{
	gate_shared();
	lock(X, Q);
	if
	:: traced && parent == X ->
		sig_lock(Q);
		if
		:: stopped && !killed ->
			code = SIG_RESUME;
			code_is_stop = false;
			stopped = false
		:: else -> skip
		fi;
		sig_unlock()
	:: else -> skip
	fi;
	unlock(X);
	gate_shared_end()
}

/* X's detach of a stopped C with a signal (T of X, also P), then X2's attach (T of X, X2). */
proctype Relink()
{
	gate_shared();
	lock(X, D);
	if
	:: traced && parent == X ->
		sig_lock(D);
		if
		:: stopped && !killed ->
			code = SIG_RESUME;
			code_is_stop = false;
			sig_unlock();
			sig_lock(D);	/* the unlink's own hold */
			parent = X;
			traced = false;
			stopped = false
		:: else -> skip
		fi;
		sig_unlock()
	:: else -> skip
	fi;
	unlock(X);
	gate_shared_end();
	gate_shared();
	lock(X, D);
	lock(X2, D);
	if
	:: !traced && !exited ->
		sig_lock(D);
		parent = X2;
		traced = true;
		sig_unlock()
	:: else -> skip
	fi;
	unlock(X2);
	unlock(X);
	gate_shared_end()
}

proctype Kill()
{
	sig_lock(K);
	killed = true;
	sig_unlock()
}

/* C: leaves its stop when killed, stops for its tracer, exits if killed. */
proctype Tracee()
{
	do
	:: sig_lock(CC);
		if
		:: stopped && killed ->
			stopped = false
		:: !stopped && traced && !killed && stops < 2 ->
			stopped = true;
			code = SIG_STOP;
			code_is_stop = true;
			stops++
		:: else -> skip
		fi;
		sig_unlock()
	:: atomic { !stopped && killed && !exited && !excl && shared == 0 -> excl = true };
		/* a traced exit: the gate exclusive, the unlink */
		sig_lock(CC);
		parent = X;
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
		run Report();
		run Cont();
		run Relink();
		run Kill();
		run Tracee()
	}
}
