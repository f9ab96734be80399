/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The death notice to a parent (Linux's do_notify_parent, kernel/signal.c):
 * the exit signal with its CLD_* siginfo (SIGCHLD once the parent has
 * exec'd since the fork; the status wait will report, the group's code
 * for a leader that left before the group exit), the wake-up of the
 * parent's waiters, and the autoreap answer for a parent that ignores
 * SIGCHLD.
 * Called by exit, wait and ptrace with the update lock held, or by a
 * plain exit in rcu mode with the update gate shared, T of the parent and
 * a read section (proc/exit.c).
 */
#include "signal.h"

/* The CLD_* code and si_status of wait status @status (Linux's do_notify_parent). */
void rp_status_to_cld(int status, int *code, int *cld_status)
{
	if (status & 0x7f) {
		*code = (status & 0x80) ? CLD_DUMPED : CLD_KILLED;
		*cld_status = status & 0x7f;
	} else {
		*code = CLD_EXITED;
		*cld_status = (status >> 8) & 0xff;
	}
}

int rp_zombie_status(struct rp_task *p)
{
	struct rp_sighand *sh = rp_lock_task_sighand(p);
	int status = p->exit_code;

	if (sh) {
		if (p->signal->flags & RP_SIGNAL_GROUP_EXIT)
			status = p->signal->group_exit_code;
		rp_unlock_sighand(sh);
	}
	return status;
}

bool rp_do_notify_parent(struct rp_task *t, int sig)
{
	struct rp_task *parent = t->parent;
	struct rp_sighand *psh;
	bool autoreap = false;
	siginfo_t info;
	int code, status;

	/* A plain exit tells under the gate shared and T of its parent (proc/exit.c). */
	rp_assert_tree_write(t->sys, parent);
	rp_assert_read_section(&t->sys->sync);
	/* Only the program that chose it gets an odd signal (Linux's exec ids). */
	if (sig != SIGCHLD && t->parent_exec_id != parent->self_exec_id)
		sig = SIGCHLD;
	/* Chosen, not yet sent: an exec of @parent now would be counted too late. */
	RP_RACE_POINT(RP_RACE_NOTIFY_CHOSEN, t);
	rp_status_to_cld(rp_zombie_status(t), &code, &status);
	/* The child as its parent's namespace numbers it (do_notify_parent). */
	rp_siginfo_init(&info, sig, code, rp_pid_nr_ns(t->pid, rp_task_pidns(parent)),
			rp_task_cred_rcu(t)->uid);
	info.si_status = status;
	psh = rp_lock_task_sighand(parent);
	if (!psh)
		return false;	/* a parent is never released before its children leave */
	if (!t->ptrace && rp_reaps_in_exit(parent)) {
		/*
		 * An init whose exit ended its namespace reaps every child
		 * (Linux's zap_pid_ns_processes sets SIGCHLD to SIG_IGN and
		 * waits for them all): no signal.
		 */
		autoreap = true;
		sig = 0;
	} else if (!t->ptrace && sig == SIGCHLD) {
		const struct rp_ksigaction *ka = rp_sighand_action(psh, SIGCHLD);

		/* POSIX: nobody will wait for it; SIG_IGN also means no signal. */
		autoreap = ka->handler == SIG_IGN || (ka->flags & SA_NOCLDWAIT);
		if (ka->handler == SIG_IGN)
			sig = 0;
	}
	if (sig > 0)
		rp_send_signal_locked(parent, sig, &info, true);
	rp_wake_up_parent(parent);
	rp_unlock_sighand(psh);
	return autoreap;
}
