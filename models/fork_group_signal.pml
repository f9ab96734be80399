/*
 * fork_group_signal.pml: fork against a group signal (the article's Group 5,
 * "Ordered Update With Ordered Read"; MISSION.md invariants I1 and I2).
 *
 * The process-group membership list is an hlist of proxies (NULL-terminated),
 * walked in order by a group-signal sender under RCU: it loads the head, then
 * for each member marks it signalled and loads its ->next.  Two members fork
 * at the same time.  A forking parent links its child right AFTER itself
 * (rp_hlist_add_behind_rcu: fill in the child's ->next, then publish it with
 * one store into the parent's ->next), and only THEN checks its own pending
 * signal.  If a signal is pending it abandons the fork (ERESTARTNOINTR): it
 * unlinks the child (one store into the parent's ->next; the child keeps its
 * ->next for a reader standing on it) and the child never runs.
 *
 * Why it works: the walk reads the list in order, so if it reaches the child
 * it has already signalled the parent; if it does not reach the child, it had
 * loaded the parent's ->next before the child was published, so it signalled
 * the parent before the parent checked, and the parent abandons the fork.
 *
 * Properties, checked once the sender and both forks are finished:
 *  I1: every member that is in the group for the whole call (A, P, B) is
 *      signalled exactly once; a child is signalled at most once;
 *  I2: for each fork: the fork was abandoned, or the child was signalled
 *      (the parent always is: it is a member for the whole call).
 *
 * Broken variants (each must give an assertion violation):
 *  -DBROKEN_HEAD (or -DBROKEN): the child is linked at the head of the list
 *      (hlist_add_head_rcu), so a walker already past the head misses it;
 *  -DBROKEN_CHECK_FIRST: the parent checks its pending signal before linking
 *      the child, so the walk can pass the parent between the two moments.
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
byte sig[NN];		/* times the sender signalled each task */
bool abandoned[NN];	/* indexed by the parent */
byte finished;		/* processes finished */
bool ulock;		/* the update lock: updaters are serialized */

inline update_lock()   { atomic { !ulock -> ulock = true } }
inline update_unlock() { ulock = false }

/* kill_pgrp under RCU: walk the list in order, signal each member. */
proctype sender()
{
	byte cur;

	cur = head;				/* rcu_dereference(head->first) */
	do
	:: cur == NIL -> break
	:: else ->
		sig[cur]++;			/* send_signal under cur's siglock */
		cur = next[cur]			/* rcu_dereference(cur->next) */
	od;
	finished++
}

/* copy_process(): link the child, then check for a pending signal. */
proctype forker(byte me; byte child)
{
	byte prev;

#ifdef BROKEN_CHECK_FIRST
	/* The naive order: check first, link 34 lines later. */
	if
	:: sig[me] > 0 -> abandoned[me] = true; goto out
	:: else
	fi;
#endif
	update_lock();
#ifdef BROKEN_HEAD
	next[child] = head;			/* hlist_add_head_rcu */
	head = child;				/* publish */
#else
	next[child] = next[me];			/* rp_hlist_add_behind_rcu */
	next[me] = child;			/* publish: rcu_assign_pointer */
#endif
	update_unlock();
#ifndef BROKEN_CHECK_FIRST
	/* Ordered update: the pending check comes after the link. */
	if
	:: sig[me] > 0 ->
		update_lock();
		/* Unlink the child: one store into its predecessor.  The
		 * search for the predecessor reads only updater state. */
		d_step {
			if
			:: head == child -> head = next[child]
			:: else ->
				prev = head;
				do
				:: next[prev] == child -> break
				:: else -> prev = next[prev]
				od;
				next[prev] = next[child];
				prev = 0
			fi
		}
		update_unlock();
		abandoned[me] = true
	:: else
	fi;
#endif
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
	/* I2: a signalled parent's fork is abandoned or its child signalled. */
	assert(abandoned[P] || sig[C] == 1);
	assert(abandoned[A] || sig[D] == 1)
}
