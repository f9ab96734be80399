/*
 * exec_dethread.pml: exec's de_thread against the group's other threads
 * exiting, a thread fork and a group kill, without the update lock
 * (docs/process.md, "Without the update lock (design)", protocol (e);
 * invariant I6 of docs/verification.md: a thread group never spans two
 * programs).
 *
 * THE PROTOCOL.  The group lock (G) guards the thread list; the siglock
 * (S) the group-exit flag, each thread's pending kill and the exec claim.
 *  - exec, first look (G, then S): if a kill is pending for it, it gives
 *    up and dies; else it claims the group (group_exec_task) and marks
 *    every other thread on the list killed;
 *  - exec, each later look (G, then S): a kill pending for it (a group
 *    kill came): it drops the claim and dies; every other thread released:
 *    it takes over and drops the claim; else it sleeps until a release
 *    or a kill wakes it;
 *  - a thread that is killed exits, and its release takes G (off the list)
 *    and wakes the exec;
 *  - a thread fork (G, then S) fails if a kill is pending for the forking
 *    thread (which the exec's first look and a group kill both set);
 *    otherwise it links the new thread, under both;
 *  - a group kill (S) sets the group-exit flag and marks every thread on
 *    the list killed, the exec'ing thread included;
 *  - the update gate: each look of the exec, a thread fork and a plain
 *    release hold it shared; a release that needs it exclusive (here O's,
 *    when O is traced: its tracer's wait reaps it) waits until no shared
 *    holder is left, so the exec sleeps between looks holding nothing.
 *
 * The model: threads L (the leader), X (execs) and O of one process; O may
 * fork a thread N; a group kill may come at any moment, or not at all.
 * L, O and N run until they are killed, then exit (the leader to a zombie,
 * which is "gone" for exec, the others released).
 *
 * What it abstracts away: the leader switch itself (pids, the children
 * list, the tasks list: one step here), the handler-table switch
 * (sighand_switch.pml), tracers (a traced zombie is gone only when reaped:
 * here every exit is a release), and the sleeping (a blocking guard on the
 * condition the wake-up announces).
 *
 * Properties:
 *  - when exec takes over, every other thread of the group is gone (I6);
 *  - every run ends: the exec never waits for ever, no thread outlives
 *    the exec or the kill (a thread fork cannot escape either);
 *  - a group kill that comes before the exec takes over makes the exec
 *    give up: X dies and no new program runs; one after it leaves X
 *    killed, to die on its way back to user space.
 *
 * Broken variants:
 *  -DBROKEN_FORK_NO_CHECK (or -DBROKEN): the thread fork does not look for
 *      a pending kill: O forks N after the exec's first look, N is never
 *      killed, and the exec waits for it for ever (with a kill: N
 *      outlives it);
 *  -DBROKEN_NO_KILL_CHECK: exec looks for a pending kill only at its first
 *      look: a group kill while it waits is ignored and the new program
 *      runs in a group that was killed;
 *  -DBROKEN_WAITS_IN_GATE: exec keeps the gate shared while it sleeps
 *      (RP_BREAK_EXEC_WAITS_IN_GATE): a traced O's release, exclusive,
 *      never comes, and the exec waits for ever (an invalid end state).
 *
 * Run: spin -a exec_dethread.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_FORK_NO_CHECK
#endif

#define NONE	0
#define L	1
#define X	2
#define O	3
#define N	4
#define NT	5
#define KILLER	5

byte lkG, lkS;
bool linked[NT], killed[NT], gone[NT];
bool group_exit;	/* (S) */
byte exec_task;		/* (S) the claim */
bool switched;		/* the new program runs */
bool x_died;
bool kill_before_switch;	/* ghost */
byte done;
byte gate_sh;		/* shared holders of the update gate */
bool gate_ex;		/* the gate held exclusive */
bool o_traced;		/* O's release takes the gate exclusive */

inline gate_shared()
{
	atomic { !gate_ex -> gate_sh++ }
}

inline gate_exclusive()
{
	atomic { !gate_ex && gate_sh == 0 -> gate_ex = true }
}

#ifdef BROKEN_WAITS_IN_GATE
#define EXEC_GATE_ENTER	skip
#define EXEC_GATE_LEAVE	skip
#else
#define EXEC_GATE_ENTER	gate_shared()
#define EXEC_GATE_LEAVE	gate_sh--
#endif

inline lock(l, me)
{
	atomic { l == NONE -> l = me }
}

/* Every thread on the list but X gone? (G held) */
#define OTHERS_GONE	((!linked[L] || gone[L]) && (!linked[O] || gone[O]) && \
			 (!linked[N] || gone[N]))

/*
 * The release, then the wake-up (the guard in exec): plain, under the
 * gate shared and G; a traced O's under the gate exclusive.
 */
inline exit_thread(me)
{
	if
	:: me == O && o_traced ->
		gate_exclusive();
		gone[me] = true;
		gate_ex = false
	:: else ->
		gate_shared();
		lock(lkG, me);
		gone[me] = true;
		lkG = NONE;
		gate_sh--
	fi
}

proctype thread(byte me)
{
	if
	:: me == O ->
		/* clone(CLONE_THREAD), or not */
		if
		:: gate_shared();
			lock(lkG, me);
			lock(lkS, me);
#ifdef BROKEN_FORK_NO_CHECK
			if
			:: true ->
#else
			if
			:: !killed[me] ->
#endif
				linked[N] = true;
				run thread(N)
			:: else
			fi;
			lkS = NONE;
			lkG = NONE;
			gate_sh--
		:: skip
		fi
	:: else
	fi;
	killed[me];			/* runs until it is killed */
	exit_thread(me);
	done++
}

proctype execer()
{
	/* First look: kill pending? else claim and kill the others. */
	gate_shared();
	lock(lkG, X);
	lock(lkS, X);
	if
	:: killed[X] ->
		x_died = true;
		lkS = NONE;
		lkG = NONE;
		gate_sh--;
		goto out
	:: else
	fi;
	exec_task = X;
	d_step {
		killed[L] = linked[L];
		killed[O] = linked[O];
		killed[N] = linked[N]
	};
	lkS = NONE;
	lkG = NONE;
	EXEC_GATE_LEAVE;
	do
	:: /* sleep until a release or a kill wakes us */
		(OTHERS_GONE || killed[X]);
		EXEC_GATE_ENTER;
		lock(lkG, X);
		lock(lkS, X);
		if
#ifndef BROKEN_NO_KILL_CHECK
		:: killed[X] ->
			exec_task = NONE;
			x_died = true;
			lkS = NONE;
			lkG = NONE;
			gate_sh--;
			break
#endif
#ifdef BROKEN_NO_KILL_CHECK
		:: OTHERS_GONE ->
#else
		:: !killed[X] && OTHERS_GONE ->
#endif
			assert(OTHERS_GONE);	/* the group spans one program */
			switched = true;
			exec_task = NONE;
			lkS = NONE;
			lkG = NONE;
			gate_sh--;
			break
		:: else ->
			lkS = NONE;
			lkG = NONE;
			EXEC_GATE_LEAVE
		fi
	od;
out:
	done++
}

proctype killer()
{
	lock(lkS, KILLER);
	d_step {
		group_exit = true;
		kill_before_switch = !switched;
		killed[L] = linked[L];
		killed[X] = linked[X];
		killed[O] = linked[O];
		killed[N] = linked[N]
	};
	lkS = NONE
}

init {
	d_step {
		linked[L] = true;
		linked[X] = true;
		linked[O] = true;
		if
		:: o_traced = true
		:: o_traced = false
		fi
	}
	atomic {
		run thread(L);
		run thread(O);
		run execer();
		if
		:: run killer()
		:: skip
		fi
	}
	(done == 3 + linked[N]) && lkS == NONE && gate_sh == 0 && !gate_ex;
	assert(gone[L] && gone[O] && (!linked[N] || gone[N]));
	assert(!kill_before_switch || !switched);
	/* A kill that came after the switch kills X on its way back. */
	assert(!group_exit || x_died || (switched && killed[X]))
}
