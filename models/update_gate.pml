/*
 * update_gate.pml: rcu mode's update gate (src/sync/sync.c; docs/sync.md,
 * "The update gate"): the handshake between a shared taker's row and an
 * exclusive taker's flag, on a machine that buffers stores.
 *
 * THE PROTOCOL.
 *   shared:    store own row := gate; FULL BARRIER; load the flag;
 *              if set: store own row := none, wait until the mutex is
 *              free, try again; else inside; on leaving, store own row :=
 *              none (a release store).
 *   exclusive: take the mutex (a locked instruction: a full barrier);
 *              store flag := 1; FULL BARRIER; load the rows up to the
 *              high-water mark of thread slots (rp_thread_slots_used,
 *              loaded after the barrier) until none names the gate;
 *              inside; store flag := 0 (release); release the mutex.
 *   a thread's first take of the gate takes its thread slot first: the
 *              lowest free one, which raises the high-water mark when no
 *              lower slot is free (a store under slots_lock, whose unlock
 *              is only a release: buffered here, the weaker case).
 * Each side stores, then loads what the other stores: the store-buffering
 * pattern, which only the two full barriers make sequentially consistent.
 * The code makes each store and the barrier after it one locked exchange
 * (uatomic_xchg); on TSO that is the buffer drained and the store written
 * to memory at once, which the store-then-barrier here models.
 *
 * Unlike the other models, this one is about the barriers themselves, so
 * it does not assume them: each process has a FIFO store buffer (TSO, as
 * x86: a load sees its own buffered store, others see it when a flusher
 * writes it to memory, oldest first), and a full barrier waits until the
 * process's buffer is empty.  Two shared takers and one exclusive taker
 * that goes in twice; shared taker 0's slot was taken before (the mark
 * is 1), shared taker 1 is a new thread whose slot raises it to 2.
 *
 * Property: an exclusive holder is never inside with a shared one (both
 * directions asserted, on entry).
 *
 * Broken variants:
 *  -DBROKEN_NO_BARRIER (or -DBROKEN): the shared side's barrier dropped:
 *      its row is still in its buffer when it loads the flag (clear), the
 *      exclusive side's scan loads the row from memory (none): both in.
 *  -DBROKEN_CHECK_FIRST (RP_BREAK_GATE_CHECK_FIRST): the shared side loads
 *      the flag before it publishes its row: the exclusive side closes the
 *      gate and scans between the two.
 *  -DBROKEN_USED_FIRST (RP_BREAK_GATE_USED_FIRST): the exclusive side
 *      loads the high-water mark before it closes the gate: a new thread
 *      takes a slot above it, publishes, finds the gate still open and
 *      goes in; the scan stops below its row.
 *
 * Run: spin -a update_gate.pml && gcc -O2 -DSAFETY -o pan pan.c && ./pan
 */

#ifdef BROKEN
#define BROKEN_NO_BARRIER
#endif

#define NS	2		/* shared takers: processes 0 and 1 */
#define EX	2		/* the exclusive taker */
#define NP	3
#define V_FLAG	0		/* the gate's flag */
#define V_ROW	1		/* V_ROW + i: shared taker i's row */
#define V_USED	3		/* 1 + the highest thread slot taken */
#define NV	4
#define BUF	2		/* store-buffer entries per process */

byte mem[NV];
byte bvar[NP * BUF];
byte bval[NP * BUF];
byte bn[NP];
bit mtx;			/* the update mutex (its own line: locked operations) */
bool in_s[NS];			/* ghost: shared taker i inside */
bool in_x;			/* ghost: the exclusive taker inside */

inline store(p, v, x)
{
	d_step {
		assert(bn[p] < BUF);
		bvar[p * BUF + bn[p]] = v;
		bval[p * BUF + bn[p]] = x;
		bn[p]++
	}
}

/* The newest buffered store of @v by @p, else memory. */
inline load(p, v, r)
{
	d_step {
		if
		:: bn[p] == 2 && bvar[p * BUF + 1] == v -> r = bval[p * BUF + 1]
		:: else ->
			if
			:: bn[p] >= 1 && bvar[p * BUF] == v -> r = bval[p * BUF]
			:: else -> r = mem[v]
			fi
		fi
	}
}

/* A full barrier: wait until the buffer has drained. */
inline mb(p)
{
	bn[p] == 0
}

inline flush(p)
{
	d_step {
		bn[p] > 0 ->
		mem[bvar[p * BUF]] = bval[p * BUF];
		bvar[p * BUF] = bvar[p * BUF + 1];
		bval[p * BUF] = bval[p * BUF + 1];
		bn[p]--
	}
}

active proctype flusher()
{
end:
	do
	:: flush(0)
	:: flush(1)
	:: flush(2)
	od
}

proctype shared(byte me)
{
	byte f;

	if
	:: me == 1 -> store(me, V_USED, 2)	/* its first take: a new slot */
	:: else
	fi;
retry:
	skip;
#ifdef BROKEN_CHECK_FIRST
	load(me, V_FLAG, f);
	store(me, V_ROW + me, 1);
#else
	store(me, V_ROW + me, 1);
#ifndef BROKEN_NO_BARRIER
	mb(me);
#endif
	load(me, V_FLAG, f);
#endif
	if
	:: f ->
		store(me, V_ROW + me, 0);
		mtx == 0;
		goto retry
	:: else
	fi;
	skip;
	d_step { in_s[me] = true; assert(!in_x) }
	in_s[me] = false;
	store(me, V_ROW + me, 0)
}

proctype exclusive()
{
	byte r0, r1, u, n = 0;

	do
	:: n < 2 ->
		skip;
		atomic { bn[EX] == 0 && mtx == 0 -> mtx = 1 }
#ifdef BROKEN_USED_FIRST
		load(EX, V_USED, u);
#endif
		store(EX, V_FLAG, 1);
		mb(EX);
		do
		:: skip;
#ifndef BROKEN_USED_FIRST
		   load(EX, V_USED, u);
#endif
		   load(EX, V_ROW, r0);
		   r1 = 0;
		   if
		   :: u > 1 -> load(EX, V_ROW + 1, r1)
		   :: else
		   fi;
		   if
		   :: r0 == 0 && r1 == 0 -> break
		   :: else
		   fi
		od;
		skip;
		d_step { in_x = true; assert(!in_s[0] && !in_s[1]) }
		in_x = false;
		store(EX, V_FLAG, 0);
		atomic { bn[EX] == 0 -> mtx = 0 }
		n++
	:: else -> break
	od;
	skip
}

init
{
	atomic {
		mem[V_USED] = 1;
		run shared(0);
		run shared(1);
		run exclusive()
	}
}
