/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rp_ps_snapshot: one walk of the process list under the read side;
 * rp_proc_nspid, the NSpid line of Linux's proc_pid_status, and
 * rp_proc_state, the state of do_task_stat (fs/proc/array.c, v6.18).
 */
#include <errno.h>
#include <string.h>
#include <rcuproc/snapshot.h>
#include "../proc/ptrace.h"
#include "../task/relations.h"

/* ps's state letter of task @p, read without the siglock as /proc does. */
static char task_state(struct rp_task *p)
{
	unsigned long jobctl = CMM_LOAD_SHARED(p->jobctl);

	if (uatomic_read(&p->exit_state))
		return 'Z';
	/*
	 * A ptrace stop a SIGKILL ended is none, though the thread has not yet
	 * run to leave it: Linux's fatal wake-up ends TASK_TRACED at the kill,
	 * and wait judges it so (stopped_code).  RP_BREAK_KILL_LEAVES_STOPPED
	 * reads the stop until the thread leaves it.
	 */
#ifdef RP_BREAK_KILL_LEAVES_STOPPED
	if (jobctl & RP_JOBCTL_TRACED)
#else
	if ((jobctl & RP_JOBCTL_TRACED) && !rp_ptrace_stop_killed_seen(p))
#endif
		return 't';
	if (jobctl & RP_JOBCTL_STOPPED)
		return 'T';
	return 'S';
}

/*
 * Fill @e from leader @p as namespace @ns numbers it (rp_pid_nr_ns), as
 * Linux's /proc/PID/stat in a namespace: a parent, group or session
 * outside reads 0.  Under rp_read_lock.
 */
static void fill_entry_rcu(struct rp_ps_entry *e, struct rp_task *p, struct rp_pidns *ns)
{
	/* Pairs with the parent's update under the update lock at reparent. */
	struct rp_task *parent = rcu_dereference(p->real_parent);

	rp_assert_read_section(&p->sys->sync);
	e->pid = rp_pid_nr_ns(rp_signal_leader_pid(p->signal), ns);
	e->ppid = parent && parent != p ? rp_pid_nr_ns(rp_signal_leader_pid(parent->signal), ns) : 0;
	/* Pair with the publication of a new pgrp or session (setpgid/setsid). */
	e->pgid = rp_pid_nr_ns(rcu_dereference(p->signal->pgrp), ns);
	e->sid = rp_pid_nr_ns(rcu_dereference(p->signal->session), ns);
	e->state = task_state(p);
	/* The leader's nice (s): setpriority stores it with CMM_STORE_SHARED. */
	e->nice = CMM_LOAD_SHARED(p->nice);
	e->nr_threads = CMM_LOAD_SHARED(p->signal->nr_threads);
	/* comm is the task's own (t): a racing exec may tear it, as in Linux's /proc. */
	memcpy(e->comm, p->comm, RP_PS_COMM_LEN);
	e->comm[RP_PS_COMM_LEN - 1] = '\0';
}

long rp_ps_snapshot(struct rp_task *self, struct rp_ps_entry *out, size_t max)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_pidns *ns;
	struct rp_task *p;
	long seen = 0;

	if (rp_task_exited(self))
		return -ESRCH;
	rp_read_lock(sync);
	ns = rp_task_pidns(self);
	/* Pairs with cds_list_add_tail_rcu of tasks in fork. */
	cds_list_for_each_entry_rcu(p, &self->sys->tasks, tasks) {
		/* Only the processes @self's namespace numbers (the root's: all of them). */
		if (!rp_pid_nr_ns(rp_signal_leader_pid(p->signal), ns))
			continue;
		if ((size_t)seen < max)
			fill_entry_rcu(&out[seen], p, ns);
		seen++;
	}
	rp_read_unlock(sync);
	rp_sync_quiescent();
	return seen;
}

int rp_proc_nspid(struct rp_task *self, pid_t pid, pid_t *out, size_t max)
{
	struct rp_pidns *own, *ns, *at;
	struct rp_task *t;
	int levels = -ESRCH;

	if (rp_task_exited(self))
		return -ESRCH;
	rp_read_lock(&self->sys->sync);
	own = rp_task_pidns(self);
	t = pid > 0 ? rp_find_task_vnr_rcu(self, pid) : NULL;
	ns = t ? rp_pid_ns(t->pid) : NULL;	/* NULL: released meanwhile */
	if (ns) {
		levels = (int)(ns->level - own->level) + 1;
		/* From the task's namespace up to @self's, which is above it or it. */
		for (at = ns; at; at = at == own ? NULL : at->parent) {
			size_t i = at->level - own->level;

			if (i < max)
				out[i] = rp_pid_nr_ns(t->pid, at);
		}
	}
	rp_read_unlock(&self->sys->sync);
	rp_sync_quiescent();
	return levels;
}

int rp_proc_state(struct rp_task *self, pid_t pid)
{
	struct rp_task *t;
	int state = -ESRCH;

	if (rp_task_exited(self))
		return -ESRCH;
	rp_read_lock(&self->sys->sync);
	t = pid > 0 ? rp_find_task_vnr_rcu(self, pid) : NULL;
	if (t)
		state = task_state(t);
	rp_read_unlock(&self->sys->sync);
	rp_sync_quiescent();
	return state;
}

void rp_ps_stat(const struct rp_ps_entry *e, char *buf)
{
	*buf++ = e->state;
	if (e->sid == e->pid)
		*buf++ = 's';
	if (e->nice < 0)
		*buf++ = '<';
	else if (e->nice > 0)
		*buf++ = 'N';
	if (e->nr_threads > 1)
		*buf++ = 'l';
	*buf = '\0';
}
