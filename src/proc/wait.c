/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * wait4(2) and waitid(2), as Linux's do_wait, with the scan under
 * rp_read_lock only.
 *
 * The scan walks the children hlist (Group 4) and the ptraced list (Group
 * 3, a retry walk) of every thread of the caller's group.  A reparenting
 * splice may carry a walk from one list on into another parent's, so a
 * child counts only if its parent (real_parent, or the tracer for the
 * ptraced list) is in the caller's group.  What the scan finds is only a
 * candidate: it is claimed under the update lock after a recheck (still
 * reportable, still ours), and a zombie is claimed by moving it to
 * RP_EXIT_DEAD, so that each is reaped exactly once (I3).  In rcu mode a
 * plain zombie (a process alone in its group, untraced, of no dying
 * namespace) is claimed and released under the update gate shared and
 * object locks instead (protocol (d): claim_shared), and so is a child's
 * stopped or continued report (protocol (g): report_shared: T of its
 * real parent and its siglock), and a tracee's stop or continue reported
 * to its tracer (protocol (h): T of its tracer too).
 *
 * RP_BREAK_WAIT_NO_RECHECK claims what the scan found without the recheck;
 * RP_BREAK_CLAIM_PARENT_FIRST rechecks the parent before the child's death,
 * reading a parent that may have been freed.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include "../task/task.h"
#include "../signal/signal.h"
#include "ptrace.h"
#include "exit.h"
#include "../task/relations.h"
#include "../timers/hooks.h"
#include "../debug/racepoint.h"

#ifdef RP_BREAK_WAIT_NO_RECHECK
#define WAIT_RECHECK false
#else
#define WAIT_RECHECK true
#endif

#ifdef RP_BREAK_CLAIM_PARENT_FIRST
#define CLAIM_PARENT_FIRST true
#else
#define CLAIM_PARENT_FIRST false
#endif

#ifdef RP_BREAK_NO_EXIT_TRACE
#define HANDBACK_STATE RP_EXIT_DEAD
#else
#define HANDBACK_STATE RP_EXIT_TRACE
#endif

#ifdef RP_BREAK_WAIT_PID_BY_TASK
#define WAIT_PID_BY_TASK true
#else
#define WAIT_PID_BY_TASK false
#endif

/*
 * RP_BREAK_WAIT_PID_BY_NUMBER matches waitpid(N)'s children by number, as
 * before: a number that comes round again during the call names a child
 * born after it began.
 */
#ifdef RP_BREAK_WAIT_PID_BY_NUMBER
#define WAIT_PID_BY_NUMBER true
#else
#define WAIT_PID_BY_NUMBER false
#endif

/*
 * RP_BREAK_REPORT_JUDGED_UNLOCKED judges a stopped or continued report
 * under the gate shared by its recheck under T, outside the child's
 * siglock, and consumes it under the siglock: a SIGCONT and a new stop in
 * between (the siglock's writers, which T does not keep out) are reported
 * as the stop that was, and the new one is consumed unreported; a
 * tracee's stop that a kill ended is reported.
 */
#ifdef RP_BREAK_REPORT_JUDGED_UNLOCKED
#define REPORT_JUDGED_UNLOCKED true
#else
#define REPORT_JUDGED_UNLOCKED false
#endif

/*
 * RP_BREAK_TRACE_REPORT_TRACER_UNLOCKED leaves T of the tracer untaken in
 * a tracee's report under the gate shared (and tells the checker it took
 * it): a request of the tracer that resumes the tracee, or its detach,
 * runs inside the report's window.
 */
#ifdef RP_BREAK_TRACE_REPORT_TRACER_UNLOCKED
#define TRACE_REPORT_TRACER_UNLOCKED true
#else
#define TRACE_REPORT_TRACER_UNLOCKED false
#endif

/*
 * RP_BREAK_TRACE_REPORT_NO_RECHECK trusts the tracer read under RCU before
 * its T: a detach and another thread's attach meanwhile leave a tracee's
 * report holding T of a task that traces it no more.
 */
#ifdef RP_BREAK_TRACE_REPORT_NO_RECHECK
#define TRACE_REPORT_RECHECK false
#else
#define TRACE_REPORT_RECHECK true
#endif

/*
 * RP_BREAK_REPORT_TRACE_UNRELEASED takes only a DEAD task for released: a
 * claim of a report of the old leader an exec released follows its
 * real_parent to a thread that may have been freed since (released_yet).
 */
#ifdef RP_BREAK_REPORT_TRACE_UNRELEASED
#define REPORT_TRACE_UNRELEASED true
#else
#define REPORT_TRACE_UNRELEASED false
#endif

#define WAIT4_OPTIONS	((unsigned int)(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | \
					__WCLONE | __WALL))
#define WAITID_OPTIONS	((unsigned int)(WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | \
					__WNOTHREAD | __WCLONE | __WALL))

enum selector { SEL_ANY, SEL_PID, SEL_PGID };
enum report { REPORT_NONE, REPORT_ZOMBIE, REPORT_STOPPED, REPORT_CONTINUED };

struct wait_opts {
	enum selector type;
	pid_t nr;			/* the pid or process group selected, as
					   the root namespace numbers it */
	bool vnr;			/* nr is as the caller numbers it (until
					   do_wait translates it) */
	/*
	 * SEL_PID: the pid that nr named when the call began (NULL: none, or
	 * one with no task), and a reference to its task, which keeps the
	 * pid's memory: a task holds its thread group, whose block holds the
	 * group's pid, until the task is freed (the thread's own tid is
	 * compared only together with the task, eligible_pid).
	 */
	struct rp_pid *sel_pid;
	struct rp_task *sel_task;
	bool sel_group;			/* sel_pid is a group's (->in_process), read
					   while it named the number */
	struct rp_pidns *ns;		/* the caller's pid namespace: the report's */
	unsigned int flags;
	bool eligible;			/* a child matched: not ECHILD */
	bool rescan;			/* a concurrent exit may have hidden one */
	struct rusage *rusage;		/* wait4's, or NULL */
	/* The report: */
	pid_t pid;
	int status;			/* wait4's status word */
	int code;			/* waitid's si_code (CLD_*) */
	int cld_status;
	uid_t uid;
};

/* What the scan found: a referenced child, how it was found, what to report. */
struct candidate {
	struct rp_task *p;
	bool on_ptraced;		/* found on a ptraced list */
	bool ptrace;			/* reported as to its tracer */
	enum report what;
};

/*
 * Linux's eligible_pid.  A child is a process: it is named by its tgid,
 * which an exec by another of its threads does not change, while the old
 * leader's own pid becomes that thread's tid before the new leader
 * replaces it on the list (a scan standing on the old node would miss the
 * process).  A tracee is a thread, named by its tid: p->pid pairs with
 * exec's store.  RP_BREAK_WAIT_PID_BY_TASK names children by p->pid too.
 */
static bool eligible_pid(const struct wait_opts *wo, bool ptrace, struct rp_task *p)
{
	switch (wo->type) {
	case SEL_PID:
		if (WAIT_PID_BY_NUMBER)
			return (ptrace ? rcu_dereference(p->pid) : rp_signal_leader_pid(p->signal))->nr ==
			       wo->nr;
		/*
		 * A tracee's tid: the task too, since a tid freed with its
		 * thread may be another thread's by now, at the same address.
		 * A group's pid (->in_process) is not: the held task keeps its
		 * block, and a non-leader's exec hands it on to the thread
		 * that execs, which Linux's pid_task(pid, PIDTYPE_PID) finds.
		 */
		if (ptrace)
			return rcu_dereference(p->pid) == wo->sel_pid &&
			       (p == wo->sel_task || wo->sel_group);
		if (WAIT_PID_BY_TASK)
			return rcu_dereference(p->pid) == wo->sel_pid;
		/*
		 * The tgid's pid: its block's, numbered before the group was
		 * published; never a thread's tid, whose memory the held task
		 * does not keep.
		 */
		return wo->sel_group && rp_signal_leader_pid(p->signal) == wo->sel_pid;
	case SEL_PGID:
		return rp_task_pgrp_nr_rcu(p) == wo->nr;
	default:
		return true;
	}
}

/* Linux's eligible_child: __WCLONE selects children with another exit signal. */
static bool eligible_child(const struct wait_opts *wo, bool ptrace, struct rp_task *p)
{
	if (!eligible_pid(wo, ptrace, p))
		return false;
	if (ptrace || (wo->flags & __WALL))
		return true;
	return (CMM_LOAD_SHARED(p->exit_signal) != SIGCHLD) == !!(wo->flags & __WCLONE);
}

/* Is @parent one whose children @self's wait may report? */
static bool ours(const struct rp_task *self, unsigned int flags, const struct rp_task *parent)
{
	rp_task_assert_not_freed(parent);
	return (flags & __WNOTHREAD) ? parent == self : rp_same_thread_group(parent, self);
}

/* Traced by someone outside its real parent's group (Linux's ptrace_reparented). */
static bool ptrace_reparented(struct rp_task *p)
{
	/* Pairs with the parents' stores in ptrace link/unlink and reparenting. */
	return !rp_same_thread_group(rcu_dereference(p->real_parent), rcu_dereference(p->parent));
}

/*
 * A leader with other threads still on its list is not reported yet
 * (Linux's delay_group_leader).  The list, not nr_threads, so that the
 * scan (RCU) and the recheck (update lock) judge alike.
 */
static bool delay_group_leader(struct rp_task *p)
{
	struct cds_list_head *head = &p->signal->thread_head;

	if (rcu_dereference(p->group_leader) != p)
		return false;
	/* Pairs with the thread-list insertions in clone. */
	return rcu_dereference(head->next) != &p->thread_node ||
	       rcu_dereference(p->thread_node.next) != head;
}

/*
 * The stop to report for @p, 0 if none: a ptrace stop for its tracer, else
 * a group stop with WUNTRACED (Linux's task_stopped_code).  Read without the
 * siglock as a hint by the scan; the claim reads it again under the siglock.
 */
static int stopped_code(const struct wait_opts *wo, struct rp_task *p, bool ptrace)
{
	/* A ptrace stop a SIGKILL ended is none, though @p has not left it yet. */
	if (ptrace)
		return !uatomic_read(&p->exit_state) &&
		       (CMM_LOAD_SHARED(p->jobctl) & (RP_JOBCTL_TRACED | RP_JOBCTL_LISTENING)) ==
		       RP_JOBCTL_TRACED && !rp_ptrace_stop_killed_seen(p) ?
		       CMM_LOAD_SHARED(p->exit_code) : 0;
	if (!(wo->flags & WUNTRACED))
		return 0;
	return (CMM_LOAD_SHARED(p->signal->flags) & RP_SIGNAL_STOP_STOPPED) ?
	       CMM_LOAD_SHARED(p->signal->group_exit_code) : 0;
}

static bool continued(const struct wait_opts *wo, struct rp_task *p)
{
	return (wo->flags & WCONTINUED) &&
	       (CMM_LOAD_SHARED(p->signal->flags) & RP_SIGNAL_STOP_CONTINUED);
}

/*
 * Linux's wait_consider_task: what @p has to report to this wait, and
 * whether it keeps the wait from failing with ECHILD.  *@ptrace becomes
 * true for a child traced by its own parent's group (reaped as a tracee).
 */
static enum report consider(struct wait_opts *wo, struct rp_task *p, bool *ptrace)
{
	int state = uatomic_read(&p->exit_state);
	unsigned int traced;

	if (state == RP_EXIT_DEAD || !eligible_child(wo, *ptrace, p))
		return REPORT_NONE;
	if (state == RP_EXIT_TRACE) {
		/* Still our child: a tracer hands it back (and will wake us), or
		   exec replaced this old leader by another thread of its process. */
		if (!*ptrace)
			wo->eligible = true;
		return REPORT_NONE;
	}
	traced = CMM_LOAD_SHARED(p->ptrace);
	if (!*ptrace && traced && !ptrace_reparented(p))
		*ptrace = true;
	if (state == RP_EXIT_ZOMBIE) {
		/* A traced zombie is its tracer's to reap first. */
		if (!delay_group_leader(p) && (*ptrace || !traced))
			return (wo->flags & WEXITED) ? REPORT_ZOMBIE : REPORT_NONE;
		if (!*ptrace || (wo->flags & (WCONTINUED | WEXITED)))
			wo->eligible = true;
	} else {
		wo->eligible = true;
	}
	if (stopped_code(wo, p, *ptrace))
		return REPORT_STOPPED;
	return continued(wo, p) ? REPORT_CONTINUED : REPORT_NONE;
}

/* Consider @p; if it has something to report, reference it into @c. */
static bool take(struct wait_opts *wo, struct rp_task *p, bool on_ptraced,
		 struct candidate *c)
{
	bool ptrace = on_ptraced;
	enum report what = consider(wo, p, &ptrace);

	if (what == REPORT_NONE || !rp_task_get_rcu(p))
		return false;
	*c = (struct candidate){ .p = p, .on_ptraced = on_ptraced, .ptrace = ptrace,
				 .what = what };
	return true;
}

/*
 * Is thread @t (not a leader) between its exit point and its release?  Its
 * children may just have gone to a sibling thread that the scan had already
 * passed (exit.c, forget_original_parent).  A traced zombie thread stays so
 * until its tracer reaps it: not counted, or scans would never settle.
 */
static bool mid_exit(struct rp_task *t)
{
	return rcu_dereference(t->group_leader) != t &&
	       (CMM_LOAD_SHARED(t->flags) & RP_PF_EXITING) &&
	       !(uatomic_read(&t->exit_state) == RP_EXIT_ZOMBIE && CMM_LOAD_SHARED(t->ptrace));
}

/*
 * In rcu mode, a scan that found @t's list empty while @t was mid-exit must
 * look again.  The lock modes' scan excludes exits and needs no such care.
 */
static void check_moved_away(struct wait_opts *wo, struct rp_task *t)
{
	if (!rp_sync_mode_rcu(t->sys->sync.mode) || !rp_hlist_tail_empty(&t->children))
		return;
	/* Empty list, then flags: pairs with the cmm_smp_wmb before the splice in exit.c. */
	cmm_smp_rmb();
	if (mid_exit(t))
		wo->rescan = true;
}

/* The children and tracees of thread @t (rp_read_lock held). */
static bool scan_thread_rcu(struct rp_task *self, struct rp_task *t, struct wait_opts *wo,
			struct candidate *c)
{
	struct rp_ptrace_part *tracer_pt, *pt;
	unsigned long restarts = 0;
	struct rp_task *p;

	rp_assert_read_section(&self->sys->sync);
	/* Pairs with the insertion in clone and rp_hlist_tail_splice_pub in exit. */
	cds_hlist_for_each_entry_rcu_2(p, &t->children.head, sibling) {
		RP_RACE_POINT(RP_RACE_WAIT_VISIT, p);
		/* Pairs with the real_parent stores of reparenting (exit.c). */
		if (ours(self, wo->flags, rcu_dereference(p->real_parent)) &&
		    take(wo, p, false, c))
			return true;
	}
	check_moved_away(wo, t);
	/* NULL or whole: pairs with rcu_assign_pointer in ptrace.c's publication. */
	tracer_pt = rcu_dereference(t->ptrace_part);
	if (!tracer_pt)
		return false;	/* never traced anything */
	/* Group 3: restarts from the head when a tracee it stands on moves. */
	rp_owned_for_each_entry_rcu(pt, &tracer_pt->ptraced, t, entry, &restarts) {
		p = pt->task;
		if (ours(self, wo->flags, rcu_dereference(p->parent)) && take(wo, p, true, c))
			return true;
	}
	return false;
}

/* One look, under rp_read_lock only: a referenced candidate in @c, or false. */
static bool scan_rcu(struct rp_task *self, struct wait_opts *wo, struct candidate *c)
{
	struct rp_sync *sync = &self->sys->sync;
	bool found = false;
	struct rp_task *t;

	rp_read_lock(sync);
	if (wo->flags & __WNOTHREAD) {
		found = scan_thread_rcu(self, self, wo, c);
	} else {
		/* Pairs with the thread-list insertions in clone. */
		cds_list_for_each_entry_rcu(t, &self->signal->thread_head, thread_node)
			if ((found = scan_thread_rcu(self, t, wo, c)))
				break;
	}
	rp_read_unlock(sync);
	return found;
}

/*
 * The report of @p.  Its pid's one writer, exec's leader switch, holds the
 * gate exclusive (and G), so either side of the gate reads it stably; the
 * numbers of a pid are constant.
 */
static void fill(struct wait_opts *wo, struct rp_task *p, int status, int code, int cld_status)
{
	RP_DEBUG_BUG_ON(!rp_update_section_here(&p->sys->sync));
	wo->pid = rp_pid_nr_ns(p->pid, wo->ns);
	wo->status = status;
	wo->code = code;
	wo->cld_status = cld_status;
	wo->uid = rp_task_cred_rcu(p)->uid;
}

/*
 * Linux's wait_task_zombie (update lock held).  The tracer's reap of a
 * process whose real parent is elsewhere hands it back to that parent,
 * which is told now.  Meanwhile it is claimed as TRACE, not DEAD (Linux's
 * EXIT_TRACE): the real parent's RCU scan may look at it right then, and
 * must count it rather than answer ECHILD.
 * RP_BREAK_NO_EXIT_TRACE claims it as DEAD, as before.
 */
static bool reap_zombie(struct wait_opts *wo, struct rp_task *p)
{
	int status = rp_zombie_status(p), code, cld_status;
	bool handback = ptrace_reparented(p) && rp_thread_group_leader(p);
	int claimed = handback ? HANDBACK_STATE : RP_EXIT_DEAD;

	rp_assert_update_held(&p->sys->sync);
	rp_status_to_cld(status, &code, &cld_status);
	fill(wo, p, status, code, cld_status);
	if (wo->flags & WNOWAIT)
		return true;
	if (uatomic_cmpxchg(&p->exit_state, RP_EXIT_ZOMBIE, claimed) != RP_EXIT_ZOMBIE &&
	    WAIT_RECHECK)
		return false;
	if (handback) {
		RP_RACE_POINT(RP_RACE_REAP_HANDBACK, p);
		rp_ptrace_unlink(p);
		/* Zombie again before the wake-up: the real parent's scan must see it. */
		uatomic_set(&p->exit_state, RP_EXIT_ZOMBIE);
		if (!rp_do_notify_parent(p, p->exit_signal))
			return true;
		uatomic_set(&p->exit_state, RP_EXIT_DEAD);
	} else if (rp_thread_group_leader(p)) {
		/*
		 * Linux adds the times only for a leader claimed as EXIT_DEAD:
		 * not for a traced thread, nor for a leader handed back and
		 * freed because its real parent ignores SIGCHLD.  Not handed
		 * back, the reaper is of the real parent's group.
		 */
		rp_cputimers_reap(p);
	}
	rp_release_task(p);
	return true;
}

/*
 * Linux's wait_task_stopped, under @p's siglock and the update lock or T
 * of @p's real parent (and for a tracee's stop, @ptrace, of its tracer):
 * report the stop whose @code (0: none) was read under that siglock, and
 * consume it.
 */
static bool report_stopped_locked(struct wait_opts *wo, struct rp_task *p, bool ptrace, int code)
{
	rp_assert_siglock_held(p);
	rp_assert_tree_write(p->sys, p->real_parent);
	if (ptrace)
		rp_assert_tree_write(p->sys, p->parent);
	if (!code)
		return false;
	fill(wo, p, (code << 8) | 0x7f, ptrace ? CLD_TRAPPED : CLD_STOPPED, code);
	/* Pairs with CMM_LOAD_SHARED in the scan (a hint it reads again). */
	if (!(wo->flags & WNOWAIT) && ptrace)
		CMM_STORE_SHARED(p->exit_code, 0);
	else if (!(wo->flags & WNOWAIT))
		p->signal->group_exit_code = 0;
	return true;
}

/*
 * Linux's wait_task_continued, under @p's siglock and the update lock or
 * T of @p's real parent: report the continue if @ok (read under that
 * siglock), and consume it.
 */
static bool report_continued_locked(struct wait_opts *wo, struct rp_task *p, bool ok)
{
	rp_assert_siglock_held(p);
	rp_assert_tree_write(p->sys, p->real_parent);
	if (!ok)
		return false;
	fill(wo, p, 0xffff, CLD_CONTINUED, SIGCONT);
	if (!(wo->flags & WNOWAIT))
		p->signal->flags &= ~RP_SIGNAL_STOP_CONTINUED;
	return true;
}

/* Report and consume @p's stop (update lock held). */
static bool report_stopped(struct wait_opts *wo, struct rp_task *p, bool ptrace)
{
	struct rp_sighand *sh = rp_lock_task_sighand(p);
	bool ok = sh && report_stopped_locked(wo, p, ptrace, stopped_code(wo, p, ptrace));

	rp_assert_update_held(&p->sys->sync);
	if (sh)
		rp_unlock_sighand(sh);
	return ok;
}

/* Report and consume @p's continue (update lock held). */
static bool report_continued(struct wait_opts *wo, struct rp_task *p)
{
	struct rp_sighand *sh = rp_lock_task_sighand(p);
	bool ok = sh && report_continued_locked(wo, p, continued(wo, p));

	rp_assert_update_held(&p->sys->sync);
	if (sh)
		rp_unlock_sighand(sh);
	return ok;
}

/*
 * Has @p been released, so that its real parent may be freed (a claim
 * checks this before it follows the link)?  RP_EXIT_DEAD, or
 * RP_EXIT_TRACE: the old leader that a non-leader's exec releases stays
 * TRACE for ever, its real_parent left as it was (exec.c,
 * take_leadership), and that parent thread may exit and be freed while a
 * wait holds the old leader it found.  A tracer's hand-back is TRACE only
 * within one hold of the update lock, which no claim sees, and consider()
 * reports nothing of a TRACE task.  RP_BREAK_REPORT_TRACE_UNRELEASED
 * counts only DEAD, as before.
 */
static bool released_yet(struct rp_task *p)
{
	int state = uatomic_read(&p->exit_state);

	return state == RP_EXIT_DEAD || (!REPORT_TRACE_UNRELEASED && state == RP_EXIT_TRACE);
}

/*
 * Under the update lock, is @c still what the scan saw: our child (or
 * tracee), with the same thing to report?  Nothing that changes it can run
 * while we hold the lock, except the siglock-protected state, which each
 * report rechecks under the siglock.
 */
static bool still_reportable(struct rp_task *self, struct wait_opts *wo, struct candidate *c)
{
	struct rp_task *p = c->p;
	bool ptrace = c->on_ptraced;

	rp_assert_update_held(&self->sys->sync);
	if (!WAIT_RECHECK)
		return true;
	/*
	 * Released first (released_yet: DEAD, or an old leader an exec
	 * released).  Our reference keeps @p, not its parents: once @p is
	 * released (by another thread of our group, say) its parent thread may
	 * exit and be freed.  A child not yet released has live parents: a
	 * parent gives its children away and its tracees back, under this
	 * lock, before it is released itself.
	 */
	if (!CLAIM_PARENT_FIRST && released_yet(p))
		return false;
	if (!ours(self, wo->flags, c->on_ptraced ? p->parent : p->real_parent) ||
	    (c->on_ptraced && !p->ptrace) || consider(wo, p, &ptrace) != c->what)
		return false;
	c->ptrace = ptrace;
	return true;
}

/*
 * May @c be claimed under the gate shared (docs/process.md, protocols (d),
 * (g) and (h), "What is built")?  A hint, read under no lock, which the
 * claim checks again under its locks: in rcu mode, a zombie found on a
 * children list and not reaped as a tracee, only to be reaped (not
 * WNOWAIT), in whatever namespace (the claim, under its locks, takes a
 * zombie of a namespace that is dying to the gate exclusive:
 * rp_release_may_be_shared); a stopped or continued report, a tracee's
 * too, whatever the flags (it releases nothing, and a pid's numbers in
 * each namespace are constant).
 */
static bool plain_hint(const struct rp_task *self, const struct wait_opts *wo,
		       const struct candidate *c)
{
	if (self->sys->sync.mode != RP_SYNC_RCU)
		return false;
	if (c->what != REPORT_ZOMBIE)
		return true;
	return !c->on_ptraced && !c->ptrace && !(wo->flags & WNOWAIT);
}

enum shared_claim { SHARED_LOST, SHARED_REPORTED, SHARED_EXCLUSIVE };

/*
 * Is @p still a zombie, not yet claimed?  RP_BREAK_WAIT_NO_RECHECK trusts
 * the scan, as in the exclusive claim.
 */
static bool zombie_yet(struct rp_task *p)
{
	return !WAIT_RECHECK || uatomic_read(&p->exit_state) == RP_EXIT_ZOMBIE;
}

/*
 * Is zombie @p still one the wait selects (its process group for
 * waitpid(-pgid), its exit signal for __WCLONE), as the scan found it?
 * The scan's answer is not enough: setpgid may move a zombie child that
 * has not exec'd, and a setpgid that succeeded comes before any reap of
 * it.  Under the claim's locks, inside the gate that the writers of those
 * fields hold exclusive.  The selection only: what else the exclusive
 * recheck's consider() reads is the plain check's (the ptrace state, a
 * leader alone) or the compare-and-swap's (dead meanwhile).
 * RP_BREAK_WAIT_NO_RECHECK trusts the scan.
 */
static bool selected_yet(const struct wait_opts *wo, struct rp_task *p)
{
	return !WAIT_RECHECK || eligible_child(wo, false, p);
}

/*
 * Protocol (d) under the gate shared (the gate already held): in a read
 * section, dead first (released, @p's parent may be freed, as
 * still_reportable), then G of @p's group (its thread list, for the
 * release; before T in the lock order) and T of the task at the end of
 * the link, @p's real parent; the link must still lead to a thread of
 * our group (reparenting moves it under that T), @p must be plain, else
 * the claim takes the gate exclusive (SHARED_EXCLUSIVE, nothing
 * written), and the wait must still select it (selected_yet).  Then the
 * compare-and-swap from ZOMBIE to DEAD: only its winner reports.  exit
 * makes @p a zombie, and an autoreap DEAD, under T of @p's parent, the T
 * we hold: the two are ordered, and a claim that found a zombie being
 * autoreaped loses its compare-and-swap.
 * RP_BREAK_CLAIM_PLAIN_STORE stores DEAD without comparing: a second
 * claimer of one zombie, which found it a zombie before the first's
 * claim, reports and releases it again.  The exclusive claim's twins
 * break the same steps here: RP_BREAK_WAIT_NO_RECHECK claims what the
 * scan saw (no dead check, no link or selection recheck, the
 * compare-and-swap's answer ignored), RP_BREAK_CLAIM_PARENT_FIRST reads
 * the parent before it checks that @p is not dead.
 */
static enum shared_claim claim_locked_shared(struct rp_task *self, struct wait_opts *wo,
					     struct rp_task *p, struct rp_task **parent)
{
	struct rp_sync *sync = &self->sys->sync;
	enum shared_claim ret = SHARED_LOST;
	struct rp_task *rp;
	int status, code, cld_status;

	rp_read_lock(sync);
	if (!CLAIM_PARENT_FIRST && !zombie_yet(p))
		goto out;
	RP_RACE_POINT(RP_RACE_CLAIM_ZOMBIE, p);
	rp_group_lock(p->signal);
	/* Pairs with the real_parent stores of reparenting (exit.c). */
	rp = rcu_dereference(p->real_parent);
	if ((WAIT_RECHECK && !ours(self, wo->flags, rp)) || (CLAIM_PARENT_FIRST && !zombie_yet(p)))
		goto out_group;
	rp_tree_lock(rp);
	if (WAIT_RECHECK && CMM_LOAD_SHARED(p->real_parent) != rp) {
		ret = SHARED_LOST;	/* moved meanwhile: scan again */
	} else if (!rp_release_may_be_shared(p)) {
		ret = SHARED_EXCLUSIVE;
	} else if (!selected_yet(wo, p)) {
		ret = SHARED_LOST;	/* out of the selection meanwhile: scan again */
	} else {
		RP_RACE_POINT(RP_RACE_CLAIM_LINKED, p);
		/* exit's ZOMBIE and DEAD are written under T of @p's parent. */
		rp_assert_tree_write(self->sys, p->parent);
#ifdef RP_BREAK_CLAIM_PLAIN_STORE
		uatomic_set(&p->exit_state, RP_EXIT_DEAD);
#else
		if (uatomic_cmpxchg(&p->exit_state, RP_EXIT_ZOMBIE, RP_EXIT_DEAD) == RP_EXIT_ZOMBIE ||
		    !WAIT_RECHECK)
#endif
			ret = SHARED_REPORTED;
	}
	if (ret == SHARED_REPORTED) {
		status = rp_zombie_status(p);
		rp_status_to_cld(status, &code, &cld_status);
		fill(wo, p, status, code, cld_status);
		*parent = rp;
		rp_read_unlock(sync);
		return ret;	/* G and T held */
	}
	rp_tree_unlock(rp);
out_group:
	rp_group_unlock(p->signal);
out:
	rp_read_unlock(sync);
	return ret;
}

/*
 * Claim and reap zombie @c (the gate held shared), if it is plain: its
 * times, then its release under the locks the claim took
 * (rp_release_task takes the rest).
 */
static enum shared_claim reap_shared(struct rp_task *self, struct wait_opts *wo,
				     struct candidate *c)
{
	struct rp_task *p = c->p, *rp = NULL;
	struct rp_signal *sig = p->signal;	/* kept by our reference to @p */
	enum shared_claim ret = claim_locked_shared(self, wo, p, &rp);

	if (ret == SHARED_REPORTED) {
		rp_cputimers_wait_rusage(p, wo->rusage);
		rp_cputimers_reap(p);
		rp_release_task(p);
		rp_tree_unlock(rp);
		rp_group_unlock(sig);
	}
	return ret;
}

/*
 * The locks of @c's report under the gate shared (a read section held),
 * into @s: T of @p's real parent, read under RCU, and for a tracee's
 * report (@c->ptrace, as the scan judged it) T of its tracer too, read
 * under RCU, one lock if they are one task; false if either link moved
 * before its T (reparenting moves the first under that T, an attach or a
 * detach the second: scan again), every lock let go.  *@untaken: what
 * RP_BREAK_TRACE_REPORT_TRACER_UNLOCKED leaves untaken (the tracer's T);
 * RP_BREAK_TRACE_REPORT_NO_RECHECK does not read the tracer again.
 */
static bool report_lock(struct rp_task *p, const struct candidate *c, struct rp_lock_set *s,
			unsigned int *untaken)
{
	/* Pairs with the real_parent stores of reparenting (exit.c). */
	struct rp_task *rp = rcu_dereference(p->real_parent);
	/* Pairs with the parent stores of ptrace link and unlink. */
	struct rp_task *tracer = c->ptrace ? rcu_dereference(p->parent) : NULL;

	s->n = 0;
	*untaken = 0;
	rp_tree_set_add(s, rp);
	if (tracer)
		rp_tree_set_add(s, tracer);
	for (unsigned int i = 0; i < s->n; i++)
		if (TRACE_REPORT_TRACER_UNLOCKED && s->obj[i] == tracer)
			*untaken |= 1U << i;
	if (tracer)
		RP_RACE_POINT(RP_RACE_REPORT_TRACER_READ, p);
	rp_tree_lock_set(s, *untaken);
	if (CMM_LOAD_SHARED(p->real_parent) == rp &&
	    (!tracer || !TRACE_REPORT_RECHECK || CMM_LOAD_SHARED(p->parent) == tracer))
		return true;
	rp_tree_unlock_set(s, *untaken);
	return false;
}

/*
 * Is the end of the link the scan followed to @p (its tracer, still
 * tracing it, for a ptraced list; else its real parent) a thread of our
 * group?  Read under RCU before the locks (a parent of a task not
 * released is not freed) and again under them.
 */
static bool link_ours(struct rp_task *self, const struct wait_opts *wo,
		      const struct candidate *c, struct rp_task *p)
{
	/* Pairs with the parents' stores of reparenting and of ptrace link and unlink. */
	if (c->on_ptraced)
		return (CMM_LOAD_SHARED(p->ptrace) & RP_PT_PTRACED) &&
		       ours(self, wo->flags, rcu_dereference(p->parent));
	return ours(self, wo->flags, rcu_dereference(p->real_parent));
}

/*
 * Protocol (g), and (h) for a tracee's report, of @c under the gate
 * shared (held), in a read section: released first (released_yet: @p's
 * parents may be freed, as claim_locked_shared), then the end of the
 * link the scan followed, ours (link_ours), then the locks
 * (report_lock): T of @p's real parent, and for a tracee's report T of
 * its tracer; under them the link must still be ours, else scan again.  Under those T the links, the
 * wait's selection (process group, exit signal), @p's ptrace state and
 * its becoming a zombie stand still: consider() judges them once, and a
 * report that became a tracee's, or stopped being one, scans again.
 * Then @p's siglock, under which the stop (a group stop, or for a
 * tracee its ptrace stop and exit_code) or the continue is judged again
 * and consumed in one hold, as Linux's wait_task_stopped and
 * wait_task_continued: SIGSTOP, SIGCONT, the stops and a SIGKILL change
 * it only under that siglock, and a tracer's request that resumes the
 * tracee under it and the tracer's T.  RP_BREAK_REPORT_JUDGED_UNLOCKED
 * reports what was judged under T.
 */
static enum shared_claim report_locked_shared(struct rp_task *self, struct wait_opts *wo,
					      struct candidate *c)
{
	struct rp_lock_set trees = { .n = 0 };
	enum shared_claim ret = SHARED_LOST;
	struct rp_task *p = c->p;
	bool ptrace = c->on_ptraced;
	struct rp_sighand *sh;
	unsigned int untaken;
	int seen;

	rp_assert_read_section(&self->sys->sync);
	if (released_yet(p) || !link_ours(self, wo, c, p) || !report_lock(p, c, &trees, &untaken))
		return SHARED_LOST;
	if (!link_ours(self, wo, c, p))
		goto out;	/* not ours now: scan again */
	if (consider(wo, p, &ptrace) != c->what || ptrace != c->ptrace)
		goto out;	/* nothing, or something else, to report now: scan again */
	seen = c->what == REPORT_STOPPED ? stopped_code(wo, p, ptrace) : continued(wo, p);
	RP_RACE_POINT(RP_RACE_REPORT_LINKED, p);
	sh = rp_lock_task_sighand_rcu(p);
	if (!sh)
		goto out;	/* released: scan again */
	if (c->what == REPORT_STOPPED &&
	    report_stopped_locked(wo, p, ptrace,
				  REPORT_JUDGED_UNLOCKED ? seen : stopped_code(wo, p, ptrace)))
		ret = SHARED_REPORTED;
	else if (c->what == REPORT_CONTINUED &&
		 report_continued_locked(wo, p, REPORT_JUDGED_UNLOCKED ? seen : continued(wo, p)))
		ret = SHARED_REPORTED;
	rp_unlock_sighand(sh);
out:
	rp_tree_unlock_set(&trees, untaken);
	return ret;
}

/* A stopped or continued report of @c (the gate held shared), then the rusage. */
static enum shared_claim report_shared(struct rp_task *self, struct wait_opts *wo,
				       struct candidate *c)
{
	struct rp_sync *sync = &self->sys->sync;
	enum shared_claim ret;

	rp_read_lock(sync);
	ret = report_locked_shared(self, wo, c);
	rp_read_unlock(sync);
	if (ret == SHARED_REPORTED)
		rp_cputimers_wait_rusage(c->p, wo->rusage);
	return ret;
}

/*
 * Claim @c under the gate shared, if it is plain: a zombie's reap
 * (protocol (d)) or a stopped or continued report, a tracee's too
 * (protocols (g) and (h)).  SHARED_EXCLUSIVE: a zombie not plain,
 * nothing done, @c's reference kept for the exclusive claim.  Else @c's
 * reference is dropped.
 */
static enum shared_claim claim_shared(struct rp_task *self, struct wait_opts *wo,
				      struct candidate *c)
{
	struct rp_sync *sync = &self->sys->sync;
	struct rp_task *p = c->p;
	enum shared_claim ret;

	rp_update_lock_shared(sync);
	ret = c->what == REPORT_ZOMBIE ? reap_shared(self, wo, c) : report_shared(self, wo, c);
	if (ret != SHARED_EXCLUSIVE) {
		/* In the section: the last puts join its batch, as claim's. */
		rp_task_put(p);
		if (ret == SHARED_REPORTED && wo->sel_task) {
			rp_task_put(wo->sel_task);
			wo->sel_task = NULL;
		}
	}
	rp_update_unlock_shared(sync);
	return ret;
}

/* Claim @c's report; false if it went meanwhile (scan again).  Drops @c's reference. */
static bool claim(struct rp_task *self, struct wait_opts *wo, struct candidate *c)
{
	struct rp_sync *sync = &self->sys->sync;
	bool done = false;

	RP_RACE_POINT(RP_RACE_WAIT_CLAIM, c->p);
	if (plain_hint(self, wo, c)) {
		switch (claim_shared(self, wo, c)) {
		case SHARED_REPORTED:
			return true;
		case SHARED_LOST:
			return false;
		default:
			break;	/* not plain: under the gate exclusive, from the start */
		}
	}
	rp_update_lock(sync);
	if (still_reportable(self, wo, c)) {
		rp_cputimers_wait_rusage(c->p, wo->rusage);
		switch (c->what) {
		case REPORT_ZOMBIE:
			done = reap_zombie(wo, c->p);
			break;
		case REPORT_STOPPED:
			done = report_stopped(wo, c->p, c->ptrace);
			break;
		default:
			done = report_continued(wo, c->p);
			break;
		}
	}
	/*
	 * Under the lock: a reaped child's last put joins the section's one
	 * batch.  So does the call's hold on the pid it selected, which it
	 * needs no more once the claim is done (most often on that child).
	 */
	rp_task_put(c->p);
	if (done && wo->sel_task) {
		rp_task_put(wo->sel_task);
		wo->sel_task = NULL;
	}
	rp_update_unlock(sync);
	return done;
}

/* May a blocking wait sleep?  Not with an unblocked signal pending (EINTR). */
static bool interrupted(struct rp_task *self)
{
	struct rp_sighand *sh = rp_lock_task_sighand(self);
	bool pending = !sh || rp_signal_pending_locked(self);

	if (sh)
		rp_unlock_sighand(sh);
	return pending;
}

/*
 * A reference to the task @pid names, or NULL if none.  A task whose last
 * reference is gone has handed @pid on before (an exec gives the leader's
 * pid to the thread that execs, then releases the old leader): look again.
 */
static struct rp_task *get_pid_task_rcu(struct rp_pid *pid)
{
	struct rp_task *t, *prev = NULL;

	for (;;) {
		/* Pairs with rcu_assign_pointer of pid->task in fork, exec and release. */
		t = rcu_dereference(pid->task);
		if (!t || t == prev)
			return NULL;
		if (rp_task_get_rcu(t))
			return t;
		prev = t;
		/*
		 * Pairs with the full barrier of the last rp_task_put's
		 * decrement, which comes after the handover.
		 */
		cmm_smp_rmb();
	}
}

/*
 * The caller's namespace, and the number selected as the root numbers it
 * (-1, which names nothing, if the caller's namespace has no such pid), as
 * Linux's find_get_pid in the caller's namespace; for a pid, the pid
 * itself, held for the whole call (Linux's kernel_wait4 holds a reference
 * to the struct pid and compares pids), so that a number that comes round
 * again meanwhile does not name a child born after the call began.  The
 * caller's own namespace and process group outlive the call.
 */
static void select_begin(struct rp_task *self, struct wait_opts *wo)
{
	struct rp_pid *pid = NULL;

	rp_read_lock(&self->sys->sync);
	wo->ns = rp_task_pidns(self);
	if (wo->vnr && (wo->ns->level || wo->type == SEL_PID)) {
		pid = rp_pid_find_vnr_rcu(self, wo->nr);
		wo->nr = pid ? pid->nr : -1;
	}
	if (pid && wo->type == SEL_PID) {
		wo->sel_task = get_pid_task_rcu(pid);
		wo->sel_pid = wo->sel_task ? pid : NULL;
		wo->sel_group = pid->in_process;
	}
	rp_read_unlock(&self->sys->sync);
}

/*
 * Linux's do_wait, after the selection.  The queue's count is sampled
 * before each scan: a change reported after the sample (exit wakes the
 * queue after making the change visible) makes a fruitless scan run again
 * before any verdict (ECHILD, 0 for WNOHANG, or sleeping); so does a scan
 * that may have missed children moving between two threads of the group
 * (check_moved_away).
 */
static long wait_loop(struct rp_task *self, struct wait_opts *wo)
{
	struct rp_waitq *wq = rp_chldexit_waitq(self->signal);
	struct candidate c;
	unsigned long seq;

	for (;;) {
		seq = rp_waitq_seq(wq);
		wo->eligible = wo->rescan = false;
		if (scan_rcu(self, wo, &c)) {
			if (claim(self, wo, &c))
				return wo->pid;
			continue;
		}
		/* Even ECHILD: a move between two threads may have hidden them all. */
		if (wo->rescan || rp_waitq_seq(wq) != seq)
			continue;
		if (!wo->eligible)
			return -ECHILD;
		if (wo->flags & WNOHANG)
			return 0;
		if (interrupted(self))
			return -EINTR;
		rp_waitq_wait(wq, seq);
	}
}

static long do_wait(struct rp_task *self, struct wait_opts *wo)
{
	long ret;

	select_begin(self, wo);
	ret = wait_loop(self, wo);
	if (wo->sel_task)
		rp_task_put(wo->sel_task);
	return ret;
}

/* The caller's process group, for the selector 0. */
static pid_t own_pgrp(struct rp_task *self)
{
	struct rp_sync *sync = &self->sys->sync;
	pid_t nr;

	rp_read_lock(sync);
	nr = rp_task_pgrp_nr_rcu(self);
	rp_read_unlock(sync);
	return nr;
}

pid_t rp_wait4(struct rp_task *self, pid_t pid, int *wstatus, int options,
	       struct rusage *rusage)
{
	struct wait_opts wo = { .flags = (unsigned int)options | WEXITED, .nr = pid,
				.vnr = true, .rusage = rusage };
	long ret;

	if ((unsigned int)options & ~WAIT4_OPTIONS)
		return -EINVAL;
	if (pid == INT_MIN)
		return -ESRCH;		/* -INT_MIN is no process group */
	if (rp_task_exited(self))
		return -ESRCH;
	if (pid == -1) {
		wo.type = SEL_ANY;
	} else if (pid < 0) {
		wo.type = SEL_PGID;
		wo.nr = -pid;
	} else if (pid == 0) {
		wo.type = SEL_PGID;
		wo.nr = own_pgrp(self);
		wo.vnr = false;
	} else {
		wo.type = SEL_PID;
	}
	ret = do_wait(self, &wo);
	if (ret > 0 && wstatus)
		*wstatus = wo.status;
	rp_sync_quiescent();
	return (pid_t)ret;
}

/* waitid's selector, or -EINVAL (Linux's kernel_waitid). */
static int waitid_selector(struct rp_task *self, idtype_t idtype, pid_t id, struct wait_opts *wo)
{
	wo->nr = id;
	wo->vnr = true;
	switch (idtype) {
	case P_ALL:
		wo->type = SEL_ANY;
		return 0;
	case P_PID:
		wo->type = SEL_PID;
		return id > 0 ? 0 : -EINVAL;
	case P_PGID:
		wo->type = SEL_PGID;
		if (id == 0) {
			wo->nr = own_pgrp(self);
			wo->vnr = false;
		}
		return id >= 0 ? 0 : -EINVAL;
	default:
		return -EINVAL;
	}
}

/* As Linux's waitid: the fields are written on every return, zero unless reported. */
static void put_siginfo(siginfo_t *info, long ret, const struct wait_opts *wo)
{
	bool reported = ret > 0;

	info->si_signo = reported ? SIGCHLD : 0;
	info->si_errno = 0;
	info->si_code = reported ? wo->code : 0;
	info->si_pid = reported ? wo->pid : 0;
	info->si_uid = reported ? wo->uid : 0;
	info->si_status = reported ? wo->cld_status : 0;
}

int rp_waitid(struct rp_task *self, idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	struct wait_opts wo = { .flags = (unsigned int)options };
	long ret;

	if (((unsigned int)options & ~WAITID_OPTIONS) ||
	    !(options & (WEXITED | WSTOPPED | WCONTINUED)))
		ret = -EINVAL;
	else if (rp_task_exited(self))
		ret = -ESRCH;
	else
		ret = waitid_selector(self, idtype, (pid_t)id, &wo);
	if (!ret)
		ret = do_wait(self, &wo);
	if (info)
		put_siginfo(info, ret, &wo);
	rp_sync_quiescent();
	return ret > 0 ? 0 : (int)ret;
}
