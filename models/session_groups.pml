/*
 * session_groups.pml: a session's members through its groups
 * (docs/process.md, protocol (i); src/pgrp/membership.c: group_born,
 * group_gone, rp_pgrp_last_member; src/proc/exit.c: lock_reap_members;
 * src/pgrp/setpgid.c: group_born_or_gone).
 *
 * One session S and three groups of it: G1 = {A}, G2 = {B, E, D}, and G3,
 * B's own pid, no group yet.  The session lists the groups that have
 * members (in_list) and counts them (users); both are plain words, each
 * changed by a load and a store, under M of the session.  A group's
 * members are counted under its own M.
 *
 *  - A is released (its reap): M of G1; if A is G1's last member, let go
 *    and take M of S and of G1 (address order: S first here); retire A;
 *    a group left empty leaves S.
 *  - B moves to a group of its own, G3 (setpgid(0, 0)); E moves to G1
 *    if G1 still has a member (else EPERM, nothing written).  A move
 *    takes M of both groups; if it would begin the group it joins or end
 *    the one it leaves, it lets go and takes them again with M of S.
 *    Then, with what it holds: join (the group's first member: onto S's
 *    list), leave (the group's last: off it).
 *  - D forks into G2: M of G2 alone (the child joins a group that has a
 *    member, D): one member more, nothing of the session.
 *
 * Each decision is re-read under the locks it acts under, as the code
 * re-reads it (rp_pgrp_move's emptiness tests).  A lock is one atomic
 * test-and-set; the session's words are written in two steps (load,
 * store), so that an unlocked writer beside another loses an update.
 *
 * Property: at the end, S lists exactly the groups that have members,
 * and counts them (and no lock order deadlocks: no invalid end state).
 *
 * Broken variants:
 *  -DBROKEN_REAP_NO_SESSION (or -DBROKEN): A's reap of G1's last member
 *      takes no M of the session (RP_BREAK_SESSION_UNLOCKED): beside B's
 *      move, which begins G3, one of the two list or count updates is
 *      lost.
 *
 * Run: spin -a session_groups.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_REAP_NO_SESSION
#endif

#define S	0
#define G1	1
#define G2	2
#define G3	3

bit lock[4];			/* M of S, G1, G2, G3 */
byte members[4];		/* of each group (S unused) */
byte in_list;			/* S's list: bit g for group g */
byte users;			/* S's count of groups */
byte done;

inline take(m)
{
	atomic { lock[m] == 0 -> lock[m] = 1 }
}

inline give(m)
{
	lock[m] = 0
}

/* The session's words, each a load and a store. */
inline session_add(g)
{
	byte tmp;
	tmp = in_list;
	in_list = tmp | (1 << g);
	tmp = users;
	users = tmp + 1;
}

inline session_del(g)
{
	byte tmp;
	tmp = in_list;
	in_list = tmp & ~(1 << g);
	tmp = users;
	users = tmp - 1;
}

/*
 * A move from group f to group t, whose locks go in the order lo, hi
 * (after S's: the address order of the code, fixed here by index); @own:
 * t is the mover's own pid (a new group is allowed), else t must have a
 * member.
 */
inline move(f, t, lo, hi, own)
{
	bit need, sess;

	sess = 0;
	take(lo);
	take(hi);
	need = (members[t] == 0 || members[f] == 1);
	if
	:: need ->
		give(hi);
		give(lo);
		take(S);
		sess = 1;
		take(lo);
		take(hi)
	:: else
	fi;
	if
	:: !own && members[t] == 0 ->
		skip			/* EPERM: no such group in the session */
	:: else ->
		members[t]++;
		if
		:: members[t] == 1 -> session_add(t)
		:: else
		fi;
		members[f]--;
		if
		:: members[f] == 0 -> session_del(f)
		:: else
		fi
	fi;
	give(hi);
	give(lo);
	if
	:: sess -> give(S)
	:: else
	fi
}

proctype A()
{
	bit last;

	take(G1);
	last = (members[G1] == 1);
#ifndef BROKEN_REAP_NO_SESSION
	if
	:: last ->
		give(G1);
		take(S);
		take(G1)
	:: else
	fi;
#endif
	members[G1]--;
	if
	:: members[G1] == 0 -> session_del(G1)
	:: else
	fi;
	give(G1);
#ifndef BROKEN_REAP_NO_SESSION
	if
	:: last -> give(S)
	:: else
	fi;
#endif
	done++
}

proctype B()
{
	move(G2, G3, G2, G3, 1);
	done++
}

proctype E()
{
	move(G2, G1, G1, G2, 0);
	done++
}

proctype D()
{
	take(G2);
	members[G2]++;
	give(G2);
	done++
}

init
{
	atomic {
		members[G1] = 1;
		members[G2] = 3;
		in_list = (1 << G1) | (1 << G2);
		users = 2;
		run A();
		run B();
		run E();
		run D()
	};
	done == 4;
	byte g, n;
	g = G1;
	n = 0;
	do
	:: g <= G3 ->
		assert(((in_list >> g) & 1) == (members[g] > 0));
		if
		:: members[g] > 0 -> n++
		:: else
		fi;
		g++
	:: else -> break
	od;
	assert(users == n)
}
