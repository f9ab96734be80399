/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fork window (Linux's multiprocess_signals, refined).  While a process
 * forks, a record hangs on its rp_signal; a walker sending to many
 * processes (group kill, session kill, kill(-1)) that reaches the parent
 * adds its signal to every open record, under the parent's siglock.  The
 * fork closes the record under that same siglock in the hold that links
 * the child, and gives the child what it holds.  A signal recorded is one
 * whose walker read the parent's successor before the link, so it never
 * meets the child; a signal not recorded came after the link, and its
 * walker meets the child.  Either way the child gets it once, and only a
 * fatal signal restarts the fork.  See docs/pgrp.md.
 */
#include "signal.h"


/* One recorded signal, in sending order. */
struct recorded {
	struct cds_list_head list;
	int sig;
	bool has_info;
	bool forced;		/* its sender is not seen by the child: as the send path's force */
	siginfo_t info;
};

void rp_fork_record_open(struct rp_task *self, struct rp_fork_record *rec, struct rp_pidns *ns)
{
	rp_assert_siglock_held(self);
	rec->ns = ns;
	rec->signals = 0;
	CDS_INIT_LIST_HEAD(&rec->queue);
	cds_hlist_add_head(&rec->node, &self->signal->multiprocess);
}

/*
 * Add @sig to @rec: real-time signals each time, standard ones once (they
 * coalesce).  Without memory the signal is lost for the child, as a
 * real-time signal over RLIMIT_SIGPENDING would be.
 */
/* Forget what @rec holds of @mask: a stop cancels SIGCONT and SIGCONT the stops. */
static void forget(struct rp_fork_record *rec, uint64_t mask)
{
	struct recorded *r, *tmp;

	if (!(rec->signals & mask))
		return;
	rec->signals &= ~mask;
	cds_list_for_each_entry_safe(r, tmp, &rec->queue, list) {
		if (RP_SIGBIT(r->sig) & mask) {
			cds_list_del(&r->list);
			rp_free(r);
		}
	}
}

static void record_one(struct rp_fork_record *rec, int sig, const siginfo_t *info, bool forced)
{
	struct recorded *r;

	/* As the send path's job control does on the pending sets (jobctl.c). */
	if (rp_sig_kernel_stop(sig))
		forget(rec, RP_SIGBIT(SIGCONT));
	else if (sig == SIGCONT)
		forget(rec, RP_SIG_STOP_MASK);
	if (sig < RP_SIGRTMIN && (rec->signals & RP_SIGBIT(sig)))
		return;
	r = rp_zalloc(sizeof(*r));
	if (!r)
		return;
	r->sig = sig;
	r->forced = forced;
	r->has_info = info != NULL;
	if (info)
		r->info = *info;
	rec->signals |= RP_SIGBIT(sig);
	cds_list_add_tail(&r->list, &rec->queue);
}

/*
 * The child of a fork into a namespace of its own, or into one that setns
 * chose, may not see a sender its parent sees: its copy says 0, as a
 * receiver's own does (send.c, rp_send_signal_from_locked), never a number
 * from outside its namespace, and is forced on it as on such a receiver,
 * so that the init of a new namespace takes SIGSTOP (Linux sets the
 * recorded signals in the child's pending set, no init's filter on the
 * way).  RP_BREAK_RECORD_UNFORCED records it unforced: the new init drops
 * SIGSTOP.
 */
void rp_fork_record_signal(struct rp_task *p, struct rp_task *sender, int sig,
			   const siginfo_t *info)
{
	struct rp_fork_record *rec;
	siginfo_t zeroed;

	rp_assert_siglock_held(p);
	cds_hlist_for_each_entry_2(rec, &p->signal->multiprocess, node) {
		bool unseen = sender && !rp_ns_sees_sender_rcu(sender, rec->ns);
#ifdef RP_BREAK_RECORD_UNFORCED
		bool forced = false;
#else
		bool forced = unseen;
#endif

		if (unseen && info && info->si_pid) {
			zeroed = *info;
			zeroed.si_pid = 0;
			record_one(rec, sig, &zeroed, forced);
		} else {
			record_one(rec, sig, info, forced);
		}
	}
}

void rp_fork_record_close(struct rp_fork_record *rec, struct rp_task *child,
			  struct rp_sighand *held)
{
	struct recorded *r, *tmp;
	/*
	 * @child is not linked yet: nobody else can reach it.  A table of its
	 * own is locked all the same, as a sender must hold the siglock of the
	 * task it queues to; a CLONE_SIGHAND child shares @held.
	 */
	bool own = child && !cds_list_empty(&rec->queue) && child->sighand != held;

	rp_lockdep_assert_held_obj(held);
	cds_hlist_del(&rec->node);
	if (own)
		rp_sighand_lock_new(child->sighand);
	cds_list_for_each_entry_safe(r, tmp, &rec->queue, list) {
		if (child)
			rp_send_signal_forced_locked(child, r->sig, r->has_info ? &r->info : NULL,
						     true, r->forced);
		cds_list_del(&r->list);
		rp_free(r);
	}
	if (own)
		rp_sighand_unlock_new(child->sighand);
}
