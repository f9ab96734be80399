/*
 * prio_fork.pml: setpriority(PRIO_PGRP) against fork (the article's
 * exercise, "left as an exercise for the reader"; invariant I2 of
 * docs/verification.md, second half: after the call returns, no member has
 * the old value).
 *
 * THE DESIGN (prose for docs/):
 *
 * setpriority(PRIO_PGRP, pgrp, nice) walks the process-group list under RCU,
 * in list order, and for each member takes that task's lock, stores the new
 * nice value, and drops the lock.  A forking parent gives its child a nice
 * value twice.  The first time is the ordinary copy of the parent's fields
 * when the child is created; that copy may already be stale when the child
 * becomes visible.  The second time comes after the child has been linked
 * into the group list right after its parent (the same Ordered Update With
 * Ordered Read as for signals): the parent takes ITS OWN task lock, copies
 * its current nice value into the child, and drops the lock.
 *
 * Why this leaves no member with the old value: the walker sets the parent,
 * under the parent's lock, before it can reach the child (the child is
 * behind the parent).  The fork's second copy is also made under the
 * parent's lock, so it happens entirely before or entirely after the
 * walker's store to the parent.
 *  - After: the copy reads the new value.
 *  - Before: the child was linked before the copy, so it was linked before
 *    the walker stored to the parent and hence before the walker loaded the
 *    parent's ->next; the walker will reach the child and store the new
 *    value, after the copy.  No store of an old value can follow.
 * This holds for any number of sequential setpriority calls: a call whose
 * store to the parent follows the copy also stores to the child after it.
 *
 * Two designs that look right and are not, both refuted by this model:
 *  - copy only before linking (what fork does today, -DBROKEN_COPY_FIRST):
 *    the walker may pass the parent's ->next before the child is linked and
 *    set the parent after the copy, so the child keeps the old value;
 *  - copy after linking without the parent's lock (-DBROKEN_UNLOCKED): the
 *    copy is a load of the parent's value and a store to the child; the
 *    walker can set the parent and the child between the two, and the late
 *    store puts the old value back.  The ordering alone is not enough: the
 *    load and the store must be atomic with respect to the walker's store to
 *    the parent, which is what the parent's lock gives.
 * A lock-free alternative would treat a change of the parent's nice like a
 * pending signal: check it after linking and restart the fork if it
 * changed.  It costs a fork restart per concurrent setpriority; the lock
 * costs one uncontended lock round trip per fork.
 *
 * The property is checked when a call returns, for the members that are in
 * the group for the whole call (A, P) and for the child if its fork has
 * returned (a child whose fork is still in progress has not run yet), and
 * at the end for every task still on the list.
 *
 * Model: group A -> P -> NIL; P forks C; one caller makes two sequential
 * setpriority calls (values 1 then 2; the old value is 0).
 *
 * Broken variants: -DBROKEN_COPY_FIRST (or -DBROKEN), -DBROKEN_UNLOCKED.
 *
 * Run: spin -a prio_fork.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_COPY_FIRST
#endif

#define NIL	0
#define A	1
#define P	2	/* the forking parent */
#define C	3	/* its child */
#define NN	4
#define CALLS	2

byte head;
byte next[NN];
byte nice[NN];		/* 0 is the old value; call k sets k */
bool lk[NN];		/* per-task lock (the lock that guards ->nice) */
bool fork_done;
byte finished;

inline task_lock(t)   { atomic { !lk[t] -> lk[t] = true } }
inline task_unlock(t) { lk[t] = false }

/* After call k returns: every member for the whole call has value k. */
inline check_call(k)
{
	d_step {
		assert(nice[A] == k && nice[P] == k);
		assert(!fork_done || nice[C] == k)
	}
}

proctype setter()
{
	byte cur, k;

	k = 1;
	do
	:: k > CALLS -> break
	:: else ->
		cur = head;			/* rcu_dereference(head->first) */
		do
		:: cur == NIL -> break
		:: else ->
			task_lock(cur);
			nice[cur] = k;		/* set_one_prio */
			task_unlock(cur);
			cur = next[cur]		/* rcu_dereference(cur->next) */
		od;
		check_call(k);
		k++
	od;
	cur = 0;
	finished++
}

proctype forker()
{
	byte v;

	/* dup_task_struct: the child starts as a copy of the parent. */
	nice[C] = nice[P];
	/* Link the child right after the parent (rp_hlist_add_behind_pub). */
	next[C] = next[P];
	next[P] = C;				/* publish */
#ifndef BROKEN_COPY_FIRST
#ifdef BROKEN_UNLOCKED
	v = nice[P];
	nice[C] = v;
#else
	/* The second copy, under the parent's own lock. */
	task_lock(P);
	v = nice[P];
	nice[C] = v;
	task_unlock(P);
#endif
#endif
	v = 0;
	fork_done = true;
	finished++
}

init {
	d_step {
		head = A;
		next[A] = P;
		next[P] = NIL
	}
	atomic {
		run setter();
		run forker()
	}
	finished == 2;
	/* Every task on the list has the last value. */
	assert(nice[A] == CALLS && nice[P] == CALLS && nice[C] == CALLS)
}
