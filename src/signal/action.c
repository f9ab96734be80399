/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sigaction, sigprocmask and sigpending of the calling task, as Linux's. */
#include <errno.h>
#include "signal.h"
#include "../task/objects.h"


#define UNBLOCKABLE	(RP_SIGBIT(SIGKILL) | RP_SIGBIT(SIGSTOP))

/* Drop every pending instance of @sig from @p, a queue of @self's group (siglock held). */
static void discard_signal(struct rp_task *self, struct rp_sigpending *p, int sig)
{
	struct rp_sigqueue *q, *prev, *next;

	p->signal &= ~RP_SIGBIT(sig);
	rp_sigpending_for_each_safe(q, prev, next, p) {
		if (q->info.si_signo == sig) {
			rp_sigpending_del(p, prev, q);
			rp_sigqueue_free_ignored(self, q);
		}
	}
}

/*
 * POSIX: making a pending signal ignored discards it, blocked or not, from
 * the process and each of its threads (Linux's do_sigaction).  Read section
 * and siglock held: the thread list is walked under RCU.
 */
static void discard_everywhere(struct rp_task *self, int sig)
{
	struct rp_task *t;

	rp_assert_read_section(&self->sys->sync);
	rp_assert_siglock_held(self);
	discard_signal(self, &self->signal->shared_pending, sig);
	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &self->signal->thread_head, thread_node)
		discard_signal(self, &t->pending, sig);
}

/*
 * The caller's siglock, taken inside a read section that is left open for
 * the caller (it walks the threads); NULL, with no section, if @self exited.
 */
static struct rp_sighand *lock_own_sighand(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_sighand *sh;

	if (rp_task_exited(self))
		return NULL;
	rp_read_lock(sync);
	sh = rp_lock_task_sighand_rcu(self);
	if (!sh)
		rp_read_unlock(sync);
	return sh;
}

/* The API's struct sigaction to the table's form (SIGKILL and SIGSTOP never blocked). */
static struct rp_ksigaction action_from_user(const struct sigaction *act)
{
	return (struct rp_ksigaction){
		.handler = act->sa_handler,
		.flags = act->sa_flags,
		.mask = rp_sigset_bits(&act->sa_mask) & ~UNBLOCKABLE,
	};
}

static void action_to_user(const struct rp_ksigaction *ka, struct sigaction *out)
{
	memset(out, 0, sizeof(*out));
	out->sa_handler = ka->handler;
	out->sa_flags = ka->flags;
	rp_sigset_set_bits(&out->sa_mask, ka->mask);
}

int rp_sigaction(struct rp_task *self, int sig, const struct sigaction *act,
		 struct sigaction *oact)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_ksigaction old, *k;
	struct rp_sighand *sh;
	int err = 0;

	if (sig < 1 || sig >= RP_NSIG || (act && (sig == SIGKILL || sig == SIGSTOP)))
		return -EINVAL;
	sh = lock_own_sighand(self);
	if (!sh)
		return -ESRCH;
	old = *rp_sighand_action(sh, sig);
	if (act) {
		k = rp_sighand_action_write(sh, sig);
		if (k) {
			*k = action_from_user(act);
			if (rp_sig_handler_ignored(k, sig))
				discard_everywhere(self, sig);
			else if (old.handler == SIG_IGN)	/* Linux: SIG_IGN only, not SIG_DFL */
				rp_posixtimer_unignore_rcu(self, sig);
		} else {
			err = -ENOMEM;
		}
	}
	rp_unlock_sighand(sh);
	rp_read_unlock(sync);
	if (oact && !err)
		action_to_user(&old, oact);
	rp_sync_quiescent();
	return err;
}

/*
 * Shared signals that @self has just blocked may have woken only @self:
 * wake another thread that can take them (Linux's retarget_shared_pending).
 * Read section and siglock held.
 */
static void retarget_shared(struct rp_task *self, uint64_t newly_blocked)
{
	uint64_t left = self->signal->shared_pending.signal & newly_blocked;
	struct rp_task *t;

	rp_assert_read_section(&self->sys->sync);
	rp_assert_siglock_held(self);
	/* Pairs with cds_list_add_tail_rcu of thread_node in clone. */
	cds_list_for_each_entry_rcu(t, &self->signal->thread_head, thread_node) {
		uint64_t take = left & ~t->blocked;

		if (!left)
			return;
		if (t == self || !take || uatomic_read(&t->exit_state) ||
		    (t->flags & RP_PF_EXITING))
			continue;
		left &= ~take;
		rp_signal_wake_up(t);
	}
}

static int new_mask(int how, uint64_t old, uint64_t set, uint64_t *out)
{
	switch (how) {
	case SIG_BLOCK:
		*out = old | set;
		return 0;
	case SIG_UNBLOCK:
		*out = old & ~set;
		return 0;
	case SIG_SETMASK:
		*out = set;
		return 0;
	default:
		return -EINVAL;
	}
}

int rp_sigprocmask(struct rp_task *self, int how, const sigset_t *set, sigset_t *oset)
{
	struct rp_sync *sync = &self->sys->sync;
	uint64_t old, mask = 0;
	struct rp_sighand *sh;
	int err = 0;

	sh = lock_own_sighand(self);
	if (!sh)
		return -ESRCH;
	old = self->blocked;
	if (set)
		err = new_mask(how, old, rp_sigset_bits(set) & ~UNBLOCKABLE, &mask);
	if (set && !err) {
		self->blocked = mask;
		retarget_shared(self, mask & ~old);
	}
	rp_unlock_sighand(sh);
	rp_read_unlock(sync);
	/* As Linux: the old mask is reported only if the call succeeds. */
	if (oset && !err) {
		sigemptyset(oset);
		rp_sigset_set_bits(oset, old);
	}
	rp_sync_quiescent();
	return err;
}

/* Linux's sigpending: pending for the thread or the process, and blocked. */
int rp_sigpending(struct rp_task *self, sigset_t *set)
{
	struct rp_sighand *sh;
	uint64_t bits;

	if (rp_task_exited(self))
		return -ESRCH;
	sh = rp_lock_task_sighand(self);
	if (!sh)
		return -ESRCH;
	bits = (self->pending.signal |
		self->signal->shared_pending.signal) &
	       self->blocked;
	rp_unlock_sighand(sh);
	sigemptyset(set);
	rp_sigset_set_bits(set, bits);
	rp_sync_quiescent();
	return 0;
}
