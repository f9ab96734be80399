/*
 * claim_zombie.pml: wait's claim of a zombie against reparenting and ptrace
 * detach, without the update lock (docs/process.md, "Without the update
 * lock (design)", protocol (d); invariant I3 of docs/verification.md).
 *
 * THE PROTOCOL.  A zombie Z is reported through one of two links: its
 * real_parent (the children list) or, while it is traced, its tracer.  Each
 * task has a tree lock (T), taken in increasing address.
 *  - the claim: the scan finds Z under RCU and reads the link's end; the
 *    claimer takes T of that end, rechecks that the link still ends there
 *    (and, for the real parent, that Z is not traced: a traced zombie is
 *    its tracer's to report first), else unlocks and scans again; then a
 *    compare-and-swap of exit_state from ZOMBIE to DEAD (the real parent)
 *    or TRACE (a tracer that hands it back);
 *  - reparenting moves Z's real_parent (and its parent, if untraced) under
 *    T of the old and of the new parent;
 *  - a detach, or the hand-back after the tracer's report, holds T of the
 *    tracer and of Z's real_parent (read, locked, rechecked): it clears
 *    the trace, points parent at real_parent, and a hand-back puts
 *    exit_state from TRACE back to ZOMBIE, for the real parent to reap.
 *
 * The model: Z is a zombie traced by TR; its real parent is thread RX of a
 * process whose other threads RW1 and RW2 wait (each scans its process's
 * children, as wait does: the children of every thread).  At once: RX
 * exits and gives Z to RW1 (its first live thread); TR either waits (claim
 * as TRACE, report, hand back) or detaches; RW1 and RW2 each try to claim
 * twice.  Then a last wait by Z's real parent reaps what is left.
 * Addresses: RW1 < TR < RX < RW2 (neither the tree's order nor creation).
 *
 * What it abstracts away: the lists (a link is a field here;
 * children_splice_wait.pml and ptrace_detach_wait.pml check the walks),
 * the wake-ups and sleeping (a waiter that finds nothing tries again), the
 * reports' contents, the reaper's choice (reparent_exiting.pml), and
 * writers of exit_state that hold no tree lock (exec's release of an old
 * leader), against which the compare-and-swap is kept.
 *
 * Properties:
 *  - the tracer reports Z at most once, and exactly once if it waited;
 *  - Z is reaped exactly once (after the last wait), never while traced,
 *    and by a claimer that holds T of its real_parent at that moment;
 *  - at the end, Z untraced has parent == real_parent.
 *
 * Broken variants:
 *  -DBROKEN_NO_RECHECK (or -DBROKEN): the claim trusts the link its scan
 *      read: RW2 locks RX, RX gives Z to RW1 meanwhile, and RW2 reaps
 *      through a link that no longer is Z's;
 *  -DBROKEN_DETACH_ONE_LOCK: detach and hand-back take the tracer's T
 *      only: RX's reparenting and the detach cross, and Z is left with
 *      its parent pointing at RX, which has given its children away;
 *  -DBROKEN_TRACED_REAP: the real parent's claim does not look at the
 *      trace: it reaps Z before its tracer reported it.
 *
 * Run: spin -a claim_zombie.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_NO_RECHECK
#endif

#define NONE	0
#define RX	1
#define RW1	2
#define RW2	3
#define TR	4
#define NT	5

#define ZOMBIE	1
#define DEAD	2
#define TRACE	3

byte addr[NT];
byte lk[NT];
byte es;		/* Z's exit_state (atomic) */
byte real_parent, parent;
bool traced;
byte treports, reaps;
bool waited;		/* the tracer took the wait path */
byte done;

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

/* T of the tracer and of Z's real parent, read, locked and rechecked. */
inline lock_tracer_and_parent(rp)
{
#ifdef BROKEN_DETACH_ONE_LOCK
	lock(TR, TR);
	rp = real_parent;
#else
	do
	:: rp = real_parent;
		lock_two(TR, rp, TR);
		if
		:: real_parent == rp -> break
		:: else -> unlock_two(TR, rp)
		fi
	od
#endif
}

inline unlock_tracer_and_parent(rp)
{
#ifdef BROKEN_DETACH_ONE_LOCK
	lk[TR] = NONE
#else
	unlock_two(TR, rp)
#endif
}

/* The untrace of a detach or a hand-back. */
inline untrace(rp)
{
	traced = false;
	parent = rp
}

proctype tracer()
{
	byte rp;

	if
	:: /* wait: claim as TRACE, report, hand back */
		waited = true;
		lock(TR, TR);
		assert(traced && parent == TR);		/* nobody else untraces */
		atomic {
			if
			:: es == ZOMBIE -> es = TRACE; treports++
			:: else
			fi
		};
		lk[TR] = NONE;
		lock_tracer_and_parent(rp);
		untrace(rp);
		atomic { es == TRACE -> es = ZOMBIE };
		unlock_tracer_and_parent(rp)
	:: /* PTRACE_DETACH (or the tracer's exit) */
		lock_tracer_and_parent(rp);
		untrace(rp);
		unlock_tracer_and_parent(rp)
	fi;
	rp = 0;
	done++
}

/* RX exits: Z goes to RW1, the first live thread of the process. */
proctype exiter()
{
	lock_two(RX, RW1, RX);
	real_parent = RW1;
	if
	:: !traced -> parent = RW1
	:: else
	fi;
	unlock_two(RX, RW1);
	done++
}

/* A thread of Z's real parent's process: two tries at wait. */
proctype waiter(byte me)
{
	byte rp, tries;

	do
	:: tries == 2 -> break
	:: else ->
		tries++;
		/* The scan (RCU): a zombie of our process, not traced. */
		rp = real_parent;
		if
#ifdef BROKEN_TRACED_REAP
		:: es == ZOMBIE ->
#else
		:: es == ZOMBIE && !traced ->
#endif
			lock(rp, me);
			if
#if defined(BROKEN_NO_RECHECK)
			:: true ->
#elif defined(BROKEN_TRACED_REAP)
			:: real_parent == rp ->
#else
			:: real_parent == rp && !traced ->
#endif
				atomic {
					if
					:: es == ZOMBIE ->
						assert(real_parent == rp && lk[rp] == me);
						assert(!traced);
						es = DEAD;
						reaps++
					:: else
					fi
				}
			:: else
			fi;
			lk[rp] = NONE
		:: else
		fi
	od;
	rp = 0;
	done++
}

init {
	d_step {
		addr[RW1] = 1; addr[TR] = 2; addr[RX] = 3; addr[RW2] = 4;
		es = ZOMBIE;
		real_parent = RX;
		parent = TR;
		traced = true
	}
	atomic {
		run tracer();
		run exiter();
		run waiter(RW1);
		run waiter(RW2)
	}
	done == 4;
	d_step {
		/* The last wait, by Z's real parent, uncontended. */
		if
		:: es == ZOMBIE && !traced -> es = DEAD; reaps++
		:: else
		fi;
		assert(reaps == 1 && es == DEAD);
		assert(treports <= 1 && (!waited || treports == 1));
		assert(!traced && parent == real_parent)
	}
}
