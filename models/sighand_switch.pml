/*
 * sighand_switch.pml: lock_task_sighand against exec's switch of the
 * signal-handler table (Linux commit e56d090310d7; invariants I5 and I6 of
 * docs/verification.md).  It models rp_lock_task_sighand in src/task/task.c.
 *
 * The target task's sighand pointer starts at table S0.  Two senders each
 * send the target one signal: under RCU, lock_task_sighand loads
 * task->sighand, locks that table, rechecks task->sighand, and if it changed
 * unlocks and retries; then it queues the signal under the table's lock,
 * unlocks and leaves RCU.  The target execs: it takes the old and the new
 * table's locks, moves anything queued under the old table to the new one,
 * points task->sighand at S1, drops both locks, waits for a grace period
 * (every RCU reader that started before has finished) and frees S0.  The
 * target dequeues under its current table's lock (also through
 * lock_task_sighand) before its exec, maybe, and after both senders are
 * done.
 *
 * Abstraction: each table holds the signals queued under its lock, so "the
 * signal was queued under a table already switched away from" shows up as a
 * signal the target never dequeues.  (In Linux the queue lives elsewhere but
 * is protected by the sighand lock; a sender holding the stale lock races
 * with the receiver holding the new one, and the signal can be lost.)
 *
 * Properties:
 *  - I6: when a sender queues, the table it holds is the task's current one
 *    (assertion at the queue step), and at the end each signal has been
 *    dequeued exactly once and nothing is left on the freed table;
 *  - I5: no table is locked or written after it was freed.
 *
 * Broken variants:
 *  -DBROKEN_NO_RECHECK (or -DBROKEN): lock_task_sighand trusts its first
 *      load (RP_BREAK_SIGHAND_NO_RECHECK): a sender that loaded S0 before the
 *      switch locks it after, and queues on a table no one reads again;
 *  -DBROKEN_NO_GRACE: exec frees the old table at once
 *      (RP_BREAK_IMMEDIATE_FREE): a sender that loaded S0 then locks freed
 *      memory.
 *
 * Run: spin -a sighand_switch.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_NO_RECHECK
#endif

#ifdef BROKEN_NO_RECHECK
#define RECHECK	false
#else
#define RECHECK	true
#endif

#define S0	1	/* the table before exec */
#define S1	2	/* the table after exec */
#define NSEND	2

byte task_sh;		/* task->sighand */
bool lk[3];		/* each table's siglock */
byte q[3];		/* signals queued under each table (a bit per sender) */
bool freed[3];
byte in_rcu;		/* readers inside an RCU read-side section */
byte received;		/* signals the target dequeued (a bit per sender) */
byte finished;		/* senders done */

inline sh_lock(s)
{
	atomic { !lk[s] -> assert(!freed[s]); lk[s] = true }
}
inline sh_unlock(s) { lk[s] = false }

/* rp_lock_task_sighand: returns with sh locked, and (with the recheck)
 * sh == task->sighand. */
inline lock_task_sighand(sh)
{
	in_rcu++;				/* rp_read_lock */
	do
	:: sh = task_sh;			/* rcu_dereference(t->sighand) */
		sh_lock(sh);
		if
		:: RECHECK && sh != task_sh -> sh_unlock(sh)	/* retry */
		:: else -> break
		fi
	od;
	in_rcu--				/* rp_read_unlock */
}

proctype sender(byte mine)
{
	byte sh;

	lock_task_sighand(sh);
	d_step {
		assert(sh == task_sh);		/* I6: queued under the current table */
		assert(!freed[sh]);		/* I5 */
		q[sh] = q[sh] | mine
	}
	sh_unlock(sh);
	sh = 0;
	finished++
}

inline dequeue()
{
	lock_task_sighand(sh);
	d_step {
		assert(!freed[sh]);
		assert((received & q[sh]) == 0);	/* never twice */
		received = received | q[sh];
		q[sh] = 0
	}
	sh_unlock(sh);
	sh = 0
}

proctype target()
{
	byte sh;

	/* Maybe take signals before exec. */
	if
	:: dequeue()
	:: skip
	fi;
	/* exec: switch the table under both locks. */
	sh_lock(S0);
	sh_lock(S1);
	d_step {
		q[S1] = q[S1] | q[S0];
		q[S0] = 0
	}
	task_sh = S1;				/* rcu_assign_pointer */
	sh_unlock(S1);
	sh_unlock(S0);
#ifndef BROKEN_NO_GRACE
	in_rcu == 0;				/* synchronize_rcu (see below) */
#endif
	freed[S0] = true;
	/* After the senders are done: take what is pending. */
	finished == NSEND;
	dequeue();
	assert(received == 3);			/* both signals, none lost */
	assert(q[S0] == 0 && q[S1] == 0)
}

/*
 * The grace period waits until no reader is inside a read-side section.
 * That is stronger than synchronize_rcu (which waits only for readers that
 * started before it), but a sender that starts after the switch loads S1
 * and cannot reach S0, so for this property the two are equivalent.
 */

init {
	d_step {
		task_sh = S0
	}
	atomic {
		run sender(1);
		run sender(2);
		run target()
	}
}
