/*
 * setpgid_fork_kill.pml: setpgid against fork and a group kill, without the
 * update lock (docs/process.md, "Without the update lock (design)",
 * protocol (c); invariants I1 and I2 of docs/verification.md).
 *
 * THE PROTOCOL.  The writers of a process P's group membership take, in
 * the lock order: the group lock (G) of P's thread group, the tree lock
 * (T) of each of P's threads, the member locks (M) of the groups whose
 * lists they change (address order), then P's siglock.
 *  - setpgid(P, B) holds G, T of every thread of P (the thread list read
 *    under G), M of P's group A and of B, P's siglock: it publishes a new
 *    proxy at B's head, marks P's old proxy obsolete, unlinks it (its
 *    ->next stays), and stores P's group and proxy;
 *  - fork by a thread of P, at its link: takes T of that thread, and only
 *    then reads P's group and proxy (frozen: setpgid of P needs the T of
 *    each thread), takes that group's M, then P's siglock; under it
 *    closes the fork's record (the signals a walker sent P during the
 *    fork go to the child), and links the child's proxy right behind P's
 *    (rp_hlist_add_behind_pub: the child's ->next, then the one store
 *    that publishes it);
 *  - a thread's clone links the new thread to P's thread list under G;
 *  - a group kill takes no writer lock: it walks the list under RCU and,
 *    for each member, under that member's siglock sends (unless the proxy
 *    is obsolete), adds the signal to an open fork record, and loads
 *    ->next (docs/pgrp.md).
 *
 * The model: group A is a1 -> P, group B is b1.  P has two threads, 0
 * (its leader) and 1.  At once thread 1 clones a third thread, 2, which
 * then forks a child C (-DFORK_BY_OLD_THREAD: thread 1 forks, and nobody
 * clones), P's parent moves P to B, another process Q is moved into B by
 * its own parent (a move that shares only B's member lock with P's), and
 * a kill of A walks A.  When all are done a second kill, of P's group,
 * walks it.  The fork's first step
 * (opening the record, under the siglock) comes before its link hold, as
 * in the code; a signal P got before the record opened would restart the
 * fork (docs/pgrp.md), which the model leaves out: such a signal is P's
 * alone.
 *
 * What it abstracts away: the clone's T of P's real parent, which the
 * move holds too but may take after its threads' T (address order), so
 * that it does not order the clone against the move's look at the thread
 * list; the session list (the same as the group list),
 * the tie counts (orphan_jobc.pml, whose BROKEN_NO_CHILD_LOCK is the
 * moving process's T; the lock of P's real parent, which setpgid also
 * takes, orders the pair's tie against a move of the parent, which
 * tests/pgrp/test_setpgid_shared.c holds open), Q's old group and its
 * walkers (setpgid_proxy.pml), the restart, and the siginfo (a signal
 * is a count).  The child's siglock is not modelled: no
 * one but the walker touches the child's proxy once it is linked.
 *
 * Properties:
 *  - at the link, the child joins the group P is in at that moment (no
 *    move between the fork's read and its link);
 *  - at the end the child's proxy is on its group's list, reachable from
 *    the head, and a kill of P's group sent after fork and setpgid
 *    returned reaches P and, if it is there, the child: a fork does not
 *    escape a group kill (I2);
 *  - the kill of A reaches a1 exactly once, P and the child at most once,
 *    and the child exactly once if P got it during the fork (I1, I2; as
 *    Linux, the child gets it even if P moved and the child joined B);
 *  - no walker visits a member of the other group;
 *  - at the end P's and Q's new proxies are both on B's list.
 *
 * Broken variants:
 *  -DBROKEN_READ_BEFORE_LOCK (or -DBROKEN): fork reads P's group and proxy
 *      before it takes T of P: the move comes between, the child is linked
 *      behind P's unlinked proxy, reachable from no list, and joins the
 *      group P has left;
 *  -DBROKEN_MOVE_NO_TREE: setpgid takes no T of P's threads: the same,
 *      from the other side;
 *  -DBROKEN_MOVE_LEADER_TREE_ONLY: setpgid takes T of P's leader alone, as
 *      for a process of one thread (RP_BREAK_SETPGID_THREAD_TREES_UNLOCKED):
 *      the same, by the fork of a thread that is not the leader (both
 *      with and without FORK_BY_OLD_THREAD);
 *  -DBROKEN_MOVE_NO_GROUP: setpgid reads P's thread list without G
 *      (RP_BREAK_SETPGID_GROUP_UNLOCKED): the clone links thread 2 after
 *      the move counted the threads, and thread 2's fork reads P's group
 *      inside the move;
 *  -DBROKEN_MOVE_NO_MEMBER: the two moves into B take no member lock
 *      (RP_BREAK_SETPGID_MEMBER_UNLOCKED): both read B's head before
 *      either stores it, and one new proxy is on no list.
 *
 * Run: spin -a setpgid_fork_kill.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_READ_BEFORE_LOCK
#endif

#define NIL	0
#define A1	1	/* a1's proxy in A */
#define PA	2	/* P's proxy in A */
#define CX	3	/* the child's proxy */
#define PB	4	/* P's new proxy in B */
#define B1	5	/* b1's proxy in B */
#define QB	6	/* Q's new proxy in B */
#define NN	7

#define GA	0	/* groups */
#define GB	1

#define KA	1	/* lock holders */
#define KF	2
#define KM	3
#define KQ	4
#define KC	5

#define NT	3	/* P's threads, at most */
#ifdef FORK_BY_OLD_THREAD
#define FT	1	/* the forking thread */
#else
#define FT	2
#endif

byte head[2];
byte next[NN];
bool obsolete[NN];
byte grpP, grpC, proxyP;
byte lkG, lkS;		/* P's group lock and siglock */
byte lkT[NT];		/* the tree locks of P's threads; address order: by index */
byte nthr = 2;		/* P's thread list: threads 0 .. nthr - 1 */
byte lkM[2];		/* the groups' member locks; address order: A < B */
bool recording;		/* P's fork record is open */
bool recorded;		/* ghost: P got the kill of A while it was open */

byte gotA1, gotP, gotC, gotB1;	/* the kill of A, per process */
byte endP, endC;	/* the second kill, per process */
bool linked, moved;
byte done;

inline lock(l, me)
{
	atomic { l == 0 -> l = me }
}

/* One kill: walk group @g from its head. */
inline walk(g, first, cur, nx, steps)
{
	cur = head[g];
	do
	:: cur == NIL -> break
	:: else ->
		steps++;
		assert(steps <= 4);
		if
		:: cur == A1 -> assert(g == GA); if :: first -> gotA1++ :: else fi; nx = next[cur]
		:: cur == B1 || cur == QB -> assert(g == GB); nx = next[cur]
		:: cur == CX ->
			if
			:: !obsolete[cur] && first -> gotC++
			:: !obsolete[cur] && !first -> endC++
			:: else
			fi;
			nx = next[cur]
		:: cur == PA || cur == PB ->
			lock(lkS, KA);		/* P's siglock */
			if
			:: !obsolete[cur] && first ->
				gotP++;
				if
				:: recording -> recorded = true
				:: else
				fi
			:: !obsolete[cur] && !first -> endP++
			:: else
			fi;
			nx = next[cur];		/* loaded under the siglock */
			lkS = 0
		fi;
		cur = nx
	od
}

proctype killer()
{
	byte cur, nx, steps;

	walk(GA, true, cur, nx, steps);
	done++
}

proctype forker()
{
	byte g, px;

	nthr > FT;				/* the forking thread exists */
	/* Start: open the record (under the siglock). */
	lock(lkS, KF);
	recording = true;
	lkS = 0;
#ifdef BROKEN_READ_BEFORE_LOCK
	g = grpP;
	px = proxyP;
	lock(lkT[FT], KF);
#else
	lock(lkT[FT], KF);
	g = grpP;				/* frozen under the forking thread's T */
	px = proxyP;
#endif
	lock(lkM[g], KF);
	lock(lkS, KF);
	assert(g == grpP);			/* the child joins P's group now */
	recording = false;			/* close the record ... */
	if
	:: recorded -> gotC++			/* ... and give the child what it holds */
	:: else
	fi;
	next[CX] = next[px];
	next[px] = CX;				/* publish: the child behind P */
	grpC = g;
	linked = true;
	lkS = 0;
	lkM[g] = 0;
	lkT[FT] = 0;
	g = 0;
	px = 0;
	done++
}

/* Thread 1 clones thread 2: linked to P's thread list under G. */
proctype cloner()
{
	lock(lkG, KC);
	nthr = 3;
	lkG = 0;
	done++
}

/* setpgid(P, B) by P's parent. */
proctype mover()
{
	byte prev, i, n;

#ifndef BROKEN_MOVE_NO_GROUP
	lock(lkG, KM);
#endif
	n = nthr;				/* frozen under G */
#if defined(BROKEN_MOVE_LEADER_TREE_ONLY)
	n = 1;
#elif defined(BROKEN_MOVE_NO_TREE)
	n = 0;
#endif
	i = 0;
	do
	:: i < n -> lock(lkT[i], KM); i++
	:: else -> break
	od;
#ifndef BROKEN_MOVE_NO_MEMBER
	lock(lkM[GA], KM);
	lock(lkM[GB], KM);
#endif
	lock(lkS, KM);
	next[PB] = head[GB];
	head[GB] = PB;				/* publish the new proxy at B's head */
	obsolete[PA] = true;			/* mark the old one */
	d_step {				/* unlink it: its predecessor on A */
		prev = A1;
		do
		:: next[prev] == PA -> break
		:: else -> prev = next[prev]
		od
	};
	next[prev] = next[PA];			/* one store; PA keeps its ->next */
	proxyP = PB;
	grpP = GB;
	moved = true;
	lkS = 0;
#ifndef BROKEN_MOVE_NO_MEMBER
	lkM[GB] = 0;
	lkM[GA] = 0;
#endif
	do
	:: i > 0 -> i--; lkT[i] = 0
	:: else -> break
	od;
#ifndef BROKEN_MOVE_NO_GROUP
	lkG = 0;
#endif
	prev = 0;
	n = 0;
	done++
}

/* setpgid(Q, B) by Q's parent: Q's T and its old group's M are Q's own. */
proctype mover2()
{
#ifndef BROKEN_MOVE_NO_MEMBER
	lock(lkM[GB], KQ);
#endif
	next[QB] = head[GB];
	head[GB] = QB;				/* publish Q's new proxy at B's head */
#ifndef BROKEN_MOVE_NO_MEMBER
	lkM[GB] = 0;
#endif
	done++
}

init {
	byte cur, nx, steps;
	bool reach, reachP;

	d_step {
		head[GA] = A1; next[A1] = PA; next[PA] = NIL;
		head[GB] = B1; next[B1] = NIL;
		grpP = GA; proxyP = PA
	}
	atomic {
		run killer();
		run forker();
		run mover();
		run mover2();
#ifndef FORK_BY_OLD_THREAD
		run cloner();
#endif
	}
#ifdef FORK_BY_OLD_THREAD
	done == 4;
#else
	done == 5;
#endif
	/* The child's proxy is on its group's list. */
	d_step {
		cur = head[grpC];
		reach = false;
		do
		:: cur == NIL -> break
		:: else -> reach = reach || cur == CX; cur = next[cur]
		od;
		assert(reach);
		/* Both moves into B are on B's list. */
		cur = head[GB];
		reach = false;
		do
		:: cur == NIL -> break
		:: else -> reach = reach || cur == QB; reachP = reachP || cur == PB; cur = next[cur]
		od;
		assert(reach && reachP);
		cur = 0
	}
	/* The kill of A (I1, I2). */
	assert(gotA1 == 1 && gotP <= 1 && gotC <= 1);
	assert(!recorded || gotC == 1);
	/* A kill of P's group after both returned reaches P and its child. */
	walk(grpP, false, cur, nx, steps);
	assert(endP == 1);
	assert(grpC != grpP || endC == 1)
}
