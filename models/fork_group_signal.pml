/*
 * fork_group_signal.pml: fork against a group signal (the article's Group 5,
 * "Ordered Update With Ordered Read"; invariants I1 and I2 of
 * docs/verification.md), with rcuproc's fork window (docs/pgrp.md).
 *
 * The process-group membership list is an hlist of proxies (NULL-terminated),
 * walked in order by a group-signal sender under RCU: for each member it
 * takes the member's siglock, signals it (and, if the member is forking,
 * records the signal in the member's open fork record), loads the member's
 * ->next under that same lock, and unlocks.  Two members fork at the same
 * time.  A fork:
 *   1. under its siglock: if a signal is already pending, restarts at once
 *      (ERESTARTNOINTR: the child never exists); else opens its record;
 *   2. under the update lock and, in ONE hold of its siglock, closes the
 *      record, gives the child what it recorded, and links the child right
 *      AFTER itself (rp_hlist_add_behind_pub: the child's ->next, then one
 *      publishing store).
 *
 * Why it works: the sender's visit to the parent and the fork's step 2
 * exclude each other (the parent's siglock).  Visit first: the signal is
 * recorded, and the sender loaded the parent's ->next before the child was
 * behind it, so the child gets it from the record only.  Step 2 first: the
 * record is closed, and the sender's load of the parent's ->next finds the
 * child, so the child gets it from the sender only.  A visit before step 1
 * leaves the signal pending: restart.  Only a signal already pending at the
 * start restarts a fork, so a stream of signals cannot starve it.
 *
 * Properties, checked once the sender and both forks are finished:
 *  I1: every member that is in the group for the whole call (A, P, B) is
 *      signalled exactly once; a child at most once;
 *  I2: for each fork: the fork was restarted, or the child got the signal
 *      (the parent always does: it is a member for the whole call).
 *
 * Broken variants (each must give an assertion violation):
 *  -DBROKEN_HEAD (or -DBROKEN): the child is linked at the head of the list
 *      (hlist_add_head_rcu), so a sender already past the head misses it
 *      (RP_BREAK_CHILD_AT_HEAD);
 *  -DBROKEN_CHECK_FIRST: the record is closed in a siglock hold of its own,
 *      before the hold that links the child: a sender visiting the parent
 *      in between neither records the signal nor finds the child
 *      (RP_BREAK_CHECK_BEFORE_LINK).
 *
 * Run: spin -a fork_group_signal.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_HEAD
#endif

#define NIL	0
#define A	1	/* a member that forks child D */
#define P	2	/* a member that forks child C */
#define B	3	/* a member that does not fork */
#define C	4	/* P's child */
#define D	5	/* A's child */
#define NN	6

byte head;		/* the group list's first pointer */
byte next[NN];		/* ->next of each proxy; readers load it one at a time */
byte sig[NN];		/* signals each task got: sent, or given from a record */
bool lk[NN];		/* each process's siglock */
bool open[NN];		/* a fork record is open on this parent */
byte rec[NN];		/* signals recorded for this parent's fork */
bool restarted[NN];	/* indexed by the parent */
byte finished;		/* processes finished */
bool ulock;		/* the update lock: updaters are serialized */

inline lock(t)		{ atomic { !lk[t] -> lk[t] = true } }
inline unlock(t)	{ lk[t] = false }
inline update_lock()	{ atomic { !ulock -> ulock = true } }
inline update_unlock()	{ ulock = false }

/* kill_pgrp under RCU: each member under its siglock, ->next read under it. */
proctype sender()
{
	byte cur, nxt;

	cur = head;				/* rcu_dereference(head->first) */
	do
	:: cur == NIL -> break
	:: else ->
		lock(cur);
		sig[cur]++;			/* send_signal */
		if
		:: open[cur] -> rec[cur]++	/* rp_fork_record_signal */
		:: else
		fi;
		nxt = next[cur];		/* rcu_dereference(cur->next), locked */
		unlock(cur);
		cur = nxt
	od;
	nxt = 0;
	finished++
}

/* Close @me's record: its child gets what it holds (siglock held). */
inline close_record(me, child)
{
	sig[child] = sig[child] + rec[me];
	open[me] = false
}

/* copy_process(): restart on a pending signal, else record, link, close. */
proctype forker(byte me; byte child)
{
	lock(me);
	if
	:: sig[me] > 0 -> restarted[me] = true
	:: else -> open[me] = true
	fi;
	unlock(me);
	if
	:: restarted[me] -> goto out
	:: else
	fi;
	update_lock();
	lock(me);
#ifdef BROKEN_CHECK_FIRST
	close_record(me, child);
	unlock(me);
	lock(me);
#else
	close_record(me, child);
#endif
#ifdef BROKEN_HEAD
	next[child] = head;			/* hlist_add_head_rcu */
	head = child;				/* publish */
#else
	next[child] = next[me];			/* rp_hlist_add_behind_pub */
	next[me] = child;			/* publish: rcu_assign_pointer */
#endif
	unlock(me);
	update_unlock();
out:
	finished++
}

init {
	/* The group: A -> P -> B.  Children start unlinked. */
	d_step {
		head = A;
		next[A] = P;
		next[P] = B;
		next[B] = NIL
	}
	atomic {
		run sender();
		run forker(P, C);
		run forker(A, D)
	}
	finished == 3;
	/* I1: stable members exactly once, children at most once. */
	assert(sig[A] == 1 && sig[P] == 1 && sig[B] == 1);
	assert(sig[C] <= 1 && sig[D] <= 1);
	/* I2: a fork is restarted or its child got the signal. */
	assert(restarted[P] || sig[C] == 1);
	assert(restarted[A] || sig[D] == 1)
}
