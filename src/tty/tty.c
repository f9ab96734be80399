/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A controlling terminal, as Linux's drivers/tty/tty_jobctrl.c and the job
 * control parts of n_tty: TIOCSCTTY, TIOCNOTTY, TIOCSPGRP, TIOCGPGRP,
 * TIOCGSID, the keyboard's ^C ^\ ^Z, SIGTTIN and SIGTTOU for background
 * groups, and the hang-up when the session leader exits.
 *
 * Who protects what (letters as task.h; (T) is tty->lock, RP_LOCK_TTY):
 * the terminal's session is a number and its foreground group a pid it
 * holds (rp_pid_tty_hold: the struct outlives the group's number, as the
 * struct pid a Linux tty holds), both under its own lock, the group changed
 * under the update side too and the hold's lock (the update lock, or the
 * group's M for TIOCSPGRP under the gate shared); each process's side is its signal->tty, as Linux's: written under
 * the update lock (TIOCSCTTY, TIOCNOTTY, fork, setsid, the session's loss),
 * read by its own process with CMM_LOAD_SHARED (own_tty).  A process has
 * it from its leader's TIOCSCTTY or from its parent at fork; a process of
 * the session forked before the TIOCSCTTY does not.  Every process with a
 * pointer to a terminal is of the session the terminal controls: the
 * writers that end or move that (setsid, a steal, the loss) clear it under
 * the same hold of the update lock.  The terminal's lock ranks after the
 * update lock and a read section and is never held while taking another:
 * what a call decides from the ids (sent signals, group lookups) is done
 * before or after it.  See docs/jobctl.md, "The terminal".
 */
#include <errno.h>
#include <stdint.h>
#include <rcuproc/tty.h>
#include "ctty.h"
#include "../task/relations.h"
#include "../signal/signal.h"

struct rp_tty {
	struct rp_system *sys;		/* (c) */
	pthread_mutex_t lock;		/* the lock of (T) fields */
	pid_t session;			/* (T) the session it controls; 0: none */
	/*
	 * (T, and u to change: the hold's lock) the foreground process group,
	 * held; NULL: none.  Compared and signalled by pointer, so a group
	 * that took a dead group's number is not taken for it.
	 */
	struct rp_pid *pgrp;
	bool tostop;			/* (T) background writes get SIGTTOU */
	long input;			/* (T) characters typed, not yet read */
};

static void tty_lock(struct rp_tty *tty)
{
	rp_lockdep_acquire(RP_LOCK_TTY);
	pthread_mutex_lock(&tty->lock);
}

static void tty_unlock(struct rp_tty *tty)
{
	pthread_mutex_unlock(&tty->lock);
	rp_lockdep_release(RP_LOCK_TTY);
}

int rp_tty_create(struct rp_system *sys, struct rp_tty **out)
{
	struct rp_tty *tty = rp_zalloc(sizeof(*tty));

	if (!tty)
		return -ENOMEM;
	tty->sys = sys;
	pthread_mutex_init(&tty->lock, NULL);
	*out = tty;
	return 0;
}

/* Is @tty @self's controlling terminal?  Its own field, read once. */
static bool own_tty(struct rp_task *self, struct rp_tty *tty)
{
	/* Pairs with rp_signal_set_tty's CMM_STORE_SHARED: a pointer compared, never followed. */
	return CMM_LOAD_SHARED(self->signal->tty) == tty;
}

static int forget_tty(struct rp_task *p, void *unused)
{
	(void)unused;
	rp_signal_set_tty(p->signal, NULL);
	return 0;
}

/*
 * Every process of session @sid forgets its terminal: Linux's
 * session_clear_tty.  The update lock held keeps the session's members
 * where they are, so the walk meets each exactly once (group by group,
 * each member under its siglock: rp_for_each_session_member_locked).
 */
static void session_forgets(struct rp_system *sys, pid_t sid)
{
	struct rp_sync *sync = &sys->sync;

	rp_assert_update_held(sync);
	if (!sid)
		return;
	rp_read_lock(sync);
	rp_for_each_session_member_locked(sys, sid, forget_tty, NULL);
	rp_read_unlock(sync);
}

/*
 * Make @pgrp (NULL: none) @tty's foreground group, the update side and
 * the terminal's lock held (and what rp_pid_tty_hold asks of @pgrp): the
 * old group, whose hold is let go, in the return value.
 */
static struct rp_pid *set_fg_locked(struct rp_tty *tty, struct rp_pid *pgrp)
{
	struct rp_pid *old = tty->pgrp;

	RP_DEBUG_BUG_ON(!rp_update_section_here(&tty->sys->sync));
	if (pgrp)
		rp_pid_tty_hold(pgrp);
	tty->pgrp = pgrp;
	return old;
}

/* Let go of the hold on a foreground group set_fg_locked replaced (update lock). */
static void put_fg(struct rp_pid *old)
{
	if (old)
		rp_pid_tty_unhold(old);
}

/*
 * RP_BREAK_TTY_PGRP_UNLOCKED: TIOCSPGRP under the gate shared takes no M
 * of the groups whose holds it changes (and tells the checker it did):
 * the hold's count of the pid's users is written beside a member's
 * attach to the group, and one of the two writes is lost.
 */
#ifdef RP_BREAK_TTY_PGRP_UNLOCKED
#define TTY_UNTAKEN RP_LOCK_SET_ALL
#else
#define TTY_UNTAKEN 0
#endif

/*
 * May the hold on @pgrp be taken or let go under its M (the gate
 * shared)?  A process's own pid, numbered in the root namespace alone:
 * M is a byte of its process block, and its last user frees no
 * namespace's number (rp_pid_tty_hold).
 */
static bool hold_by_member_lock(const struct rp_pid *pgrp)
{
	return pgrp->in_process && !pgrp->nested;
}

/* put_fg under the gate shared: M of @old, or the gate exclusive for a while. */
static void put_fg_shared(struct rp_sync *sync, struct rp_pid *old)
{
	struct rp_lock_set m = { .n = 0 };

	if (!old)
		return;
	if (!hold_by_member_lock(old)) {
		rp_update_unlock_shared(sync);	/* our hold keeps @old */
		rp_update_lock(sync);
		put_fg(old);
		rp_update_unlock(sync);
		rp_update_lock_shared(sync);
		return;
	}
	rp_member_set_add(&m, old);
	rp_member_lock_set(&m, TTY_UNTAKEN);
	put_fg(old);
	rp_member_unlock_set(&m, TTY_UNTAKEN);
}

void rp_tty_destroy(struct rp_tty *tty)
{
	struct rp_sync *sync = &tty->sys->sync;

	rp_update_lock(sync);
	session_forgets(tty->sys, tty->session);	/* its only holders */
	put_fg(tty->pgrp);
	rp_update_unlock(sync);
	pthread_mutex_destroy(&tty->lock);
	rp_free(tty);
}

/* Linux's is_ignored: @sig blocked or SIG_IGN for @self. */
static bool sig_ignored_or_blocked(struct rp_task *self, int sig)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);
	bool ignored = !sh || (self->blocked & RP_SIGBIT(sig)) ||
		       rp_sighand_action(sh, sig)->handler == SIG_IGN;

	if (sh)
		rp_unlock_sighand(sh);
	return ignored;
}

/*
 * Linux's __tty_check_change: 0 if @self may go on (not its terminal, no
 * foreground group, or in it); for a background process @sig (SIGTTIN or
 * SIGTTOU) to its group and -RP_ERESTARTSYS, or -EIO if its group is
 * orphaned.  Ignoring or blocking @sig gives -EIO for SIGTTIN, 0 for SIGTTOU.
 */
static int check_change(struct rp_task *self, struct rp_tty *tty, int sig)
{
	struct rp_sync *sync = &self->sys->sync;
	bool background;

	if (!own_tty(self, tty))
		return 0;
	rp_read_lock(sync);
	tty_lock(tty);
	/* Pointers compared: Linux's task_pgrp(current) != tty->pgrp.  Pairs with rp_pgrp_move. */
	background = tty->pgrp && tty->pgrp != rcu_dereference(self->signal->pgrp);
	tty_unlock(tty);
	rp_read_unlock(sync);
	if (!background)
		return 0;
	if (sig_ignored_or_blocked(self, sig))
		return sig == SIGTTIN ? -EIO : 0;
	if (rp_current_pgrp_orphaned(self))
		return -EIO;
	rp_read_lock(sync);
	/* Pairs with rcu_assign_pointer in rp_pgrp_move: our group now, as Linux's kill_pgrp(task_pgrp(current)). */
	rp_kill_pgrp_priv_rcu(rcu_dereference(self->signal->pgrp), sig);
	rp_read_unlock(sync);
	return -RP_ERESTARTSYS;
}

/* TIOCSCTTY (update lock and a read section held): Linux's tiocsctty. */
static int set_ctty_rcu(struct rp_task *self, struct rp_tty *tty, int steal)
{
	pid_t sid = rp_task_session_nr_rcu(self), old;
	bool leader = rp_session_leader_rcu(self->signal);
	struct rp_pid *old_fg = NULL;
	int ret = 0;

	rp_assert_update_held(&self->sys->sync);	/* a read section too */
	tty_lock(tty);
	old = tty->session;
	if (leader && old == sid)
		old = 0;		/* already ours */
	else if (!leader || self->signal->tty)	/* under the update lock */
		ret = -EPERM;
	else if (old && !(steal == 1 && rp_cred_capable(self->cred, RP_CAP_SYS_ADMIN)))
		ret = -EPERM;
	else {
		tty->session = sid;
		/* Pairs with rcu_assign_pointer in rp_pgrp_move; fixed under the update lock. */
		old_fg = set_fg_locked(tty, rcu_dereference(self->signal->pgrp));
	}
	tty_unlock(tty);
	put_fg(old_fg);
	if (!ret && old)
		session_forgets(self->sys, old);	/* stolen from session @old */
	if (!ret)
		rp_signal_set_tty(self->signal, tty);
	return ret;
}

static int tiocsctty(struct rp_task *self, struct rp_tty *tty, int steal)
{
	struct rp_sync *sync = &self->sys->sync;
	int ret;

	rp_update_lock(sync);
	rp_read_lock(sync);
	ret = set_ctty_rcu(self, tty, steal);
	rp_read_unlock(sync);
	rp_update_unlock(sync);
	return ret;
}

/*
 * Linux's disassociate_ctty (update lock held), as for a pty: session @sid
 * loses @tty, in every process; its foreground group gets SIGHUP, and
 * SIGCONT too unless the leader is exiting (@on_exit): only a TIOCNOTTY
 * continues it.
 */
static void disassociate(struct rp_tty *tty, pid_t sid, bool on_exit)
{
	struct rp_sync *sync = &tty->sys->sync;
	struct rp_pid *fg = NULL;

	rp_assert_update_held(&tty->sys->sync);
	tty_lock(tty);
	if (tty->session == sid) {
		fg = set_fg_locked(tty, NULL);
		tty->session = 0;
	}
	tty_unlock(tty);
	session_forgets(tty->sys, sid);
	if (!fg)
		return;
	rp_read_lock(sync);
	rp_kill_pgrp_priv_rcu(fg, SIGHUP);
	if (!on_exit)
		rp_kill_pgrp_priv_rcu(fg, SIGCONT);
	rp_read_unlock(sync);
	put_fg(fg);
}

void rp_tty_session_exit(struct rp_task *t)
{
	struct rp_sync *sync = &t->sys->sync;
	struct rp_tty *tty = t->signal->tty;
	pid_t sid;

	rp_assert_update_held(&t->sys->sync);
	if (!tty || !rp_session_leader_rcu(t->signal))
		return;
	rp_read_lock(sync);
	sid = rp_task_session_nr_rcu(t);
	rp_read_unlock(sync);
	disassociate(tty, sid, true);
}

/*
 * TIOCNOTTY: ENOTTY unless @tty is ours.  A leader gives it up for the
 * whole session; another process drops it alone, without a signal (Linux's
 * no_tty).
 */
static int tiocnotty(struct rp_task *self, struct rp_tty *tty)
{
	struct rp_sync *sync = &self->sys->sync;
	pid_t sid = 0;
	bool leader;
	int ret = 0;

	rp_update_lock(sync);
	rp_read_lock(sync);
	leader = rp_session_leader_rcu(self->signal);
	if (leader)
		sid = rp_task_session_nr_rcu(self);
	rp_read_unlock(sync);
	if (self->signal->tty != tty)		/* under the update lock */
		ret = -ENOTTY;
	else if (leader)
		disassociate(tty, sid, false);
	else
		rp_signal_set_tty(self->signal, NULL);
	rp_update_unlock(sync);
	return ret;
}

/*
 * The pid of group @nr of @self's session (update lock and a read section
 * held), or NULL with -ESRCH (no such number) or -EPERM (not a group of
 * the session) in *@err.
 */
static struct rp_pid *session_pgrp_rcu(struct rp_task *self, pid_t nr, int *err)
{
	struct rp_system *sys = self->sys;
	struct rp_pid *pgrp = rp_pid_find_rcu(sys, nr);

	if (!pgrp)
		*err = -ESRCH;
	else if (!rp_pgrp_in_session_rcu(sys, nr, rp_task_session_nr_rcu(self)))
		*err = -EPERM;
	else
		return pgrp;
	return NULL;
}

/*
 * The group of number @nr of @self's session for TIOCSPGRP, found under
 * the update side shared and a read section, with its M taken in @m:
 * from the check to the hold, M keeps the number the group's own and the
 * group in the session (a member's move out, and the release of its last
 * member, take it; every other writer of the pid takes the gate
 * exclusive, which the shared side keeps out).  So the number is looked
 * up again under M, and the search starts anew if it found another pid.
 * A group whose hold needs more (hold_by_member_lock) makes @*exclusive
 * true: the caller holds the gate exclusive from then on, and @m stays
 * empty.  NULL with the error in @*err, as session_pgrp_rcu.
 */
static struct rp_pid *lock_session_pgrp(struct rp_task *self, pid_t nr, int *err,
					struct rp_lock_set *m, bool *exclusive)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_pid *pgrp;

	for (;;) {
		pgrp = session_pgrp_rcu(self, nr, err);
		if (!pgrp || *exclusive)
			return pgrp;
		if (!hold_by_member_lock(pgrp)) {
			rp_read_unlock(sync);
			rp_update_unlock_shared(sync);
			rp_update_lock(sync);
			rp_read_lock(sync);
			*exclusive = true;
			continue;
		}
		rp_member_set_add(m, pgrp);
		rp_member_lock_set(m, TTY_UNTAKEN);
		if (session_pgrp_rcu(self, nr, err) == pgrp)
			return pgrp;
		rp_member_unlock_set(m, TTY_UNTAKEN);
		m->n = 0;
	}
}

/*
 * TIOCSPGRP: Linux's tiocspgrp, after tty_check_change for SIGTTOU, under
 * the update side shared and M of the group (lock_session_pgrp); the old
 * foreground group's hold is let go under its own M after.
 */
static int tiocspgrp(struct rp_task *self, struct rp_tty *tty, const pid_t *arg)
{
	struct rp_sync *sync = &self->sys->sync;
	int ret = check_change(self, tty, SIGTTOU);
	struct rp_lock_set m = { .n = 0 };
	struct rp_pid *pgrp, *old = NULL;
	bool exclusive = sync->mode != RP_SYNC_RCU;	/* the update lock: all it takes */

	if (ret)
		return ret == -EIO ? -ENOTTY : ret;
	if (*arg < 0)
		return -EINVAL;
	rp_update_lock_shared(sync);
	rp_read_lock(sync);
	pgrp = lock_session_pgrp(self, *arg, &ret, &m, &exclusive);
	tty_lock(tty);
	if (!own_tty(self, tty) || !tty->session || tty->session != rp_task_session_nr_rcu(self))
		ret = -ENOTTY;
	else if (pgrp)
		old = set_fg_locked(tty, pgrp);
	tty_unlock(tty);
	rp_member_unlock_set(&m, TTY_UNTAKEN);
	rp_read_unlock(sync);
	if (exclusive)
		put_fg(old);
	else
		put_fg_shared(sync, old);
	if (exclusive && sync->mode == RP_SYNC_RCU)
		rp_update_unlock(sync);
	else
		rp_update_unlock_shared(sync);
	return ret;
}

/* TIOCGPGRP and TIOCGSID: ENOTTY unless @tty is ours; TIOCGSID also without a session. */
static int get_id(struct rp_task *self, struct rp_tty *tty, unsigned long request, pid_t *arg)
{
	int ret = 0;

	if (!own_tty(self, tty))
		return -ENOTTY;
	tty_lock(tty);
	if (request == TIOCGSID && !tty->session)
		ret = -ENOTTY;
	else
		/* A dead group's number, as Linux's pid_vnr of the pid it holds. */
		*arg = request == TIOCGSID ? tty->session : tty->pgrp ? tty->pgrp->nr : 0;
	tty_unlock(tty);
	return ret;
}

static int ioctl_as(struct rp_task *self, struct rp_tty *tty, unsigned long request, void *arg)
{
	switch (request) {
	case TIOCSCTTY:
		return tiocsctty(self, tty, (int)(intptr_t)arg);
	case TIOCNOTTY:
		return tiocnotty(self, tty);
	case TIOCSPGRP:
		return tiocspgrp(self, tty, arg);
	case TIOCGPGRP:
	case TIOCGSID:
		return get_id(self, tty, request, arg);
	default:
		return -ENOTTY;
	}
}

int rp_tty_ioctl(struct rp_task *self, struct rp_tty *tty, unsigned long request, void *arg)
{
	int ret;

	if (rp_task_exited(self))
		return -ESRCH;
	ret = ioctl_as(self, tty, request, arg);
	rp_sync_quiescent();
	return ret;
}

/* Linux's isig: the keyboard's signal for the foreground group, from the kernel. */
static int keyboard_signal(int c)
{
	switch (c) {
	case 0x03:
		return SIGINT;
	case 0x1c:
		return SIGQUIT;
	case 0x1a:
		return SIGTSTP;
	default:
		return 0;
	}
}

int rp_tty_keyboard(struct rp_tty *tty, int c)
{
	struct rp_sync *sync = &tty->sys->sync;
	int sig = keyboard_signal(c);
	struct rp_pid *fg;

	if (c < 0 || c > 0xff)
		return -EINVAL;
	/*
	 * The group read and signalled in one read section: a TIOCSPGRP that
	 * lets go of it meanwhile frees it after a grace period (put_fg), not
	 * under us.  A dead group has no members: nobody gets the signal.
	 */
	rp_read_lock(sync);
	tty_lock(tty);
	fg = tty->pgrp;
	if (!sig)
		tty->input++;
	tty_unlock(tty);
	if (sig && fg)
		rp_kill_pgrp_priv_rcu(fg, sig);
	rp_read_unlock(sync);
	rp_sync_quiescent();
	return 0;
}

void rp_tty_set_tostop(struct rp_tty *tty, int on)
{
	tty_lock(tty);
	tty->tostop = on;
	tty_unlock(tty);
}

/* read(2): Linux's n_tty job_control (SIGTTIN), then what was typed. */
long rp_tty_read(struct rp_task *self, struct rp_tty *tty, long len)
{
	long ret;

	if (rp_task_exited(self))
		return -ESRCH;
	ret = check_change(self, tty, SIGTTIN);
	if (!ret) {
		tty_lock(tty);
		ret = len < tty->input ? len : tty->input;
		tty->input -= ret;
		tty_unlock(tty);
		if (!ret && len)
			ret = -EAGAIN;
	}
	rp_sync_quiescent();
	return ret;
}

/* write(2): with TOSTOP, tty_check_change for SIGTTOU first (n_tty_write). */
long rp_tty_write(struct rp_task *self, struct rp_tty *tty, long len)
{
	bool tostop;
	long ret;

	if (rp_task_exited(self))
		return -ESRCH;
	tty_lock(tty);
	tostop = tty->tostop;
	tty_unlock(tty);
	ret = tostop ? check_change(self, tty, SIGTTOU) : 0;
	rp_sync_quiescent();
	return ret ? ret : len;
}
