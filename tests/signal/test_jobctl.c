/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Job control, step by step, with the answers Linux gives: a shell (a
 * session leader owning the terminal) runs a pipeline in the foreground,
 * ^Z stops it, bg and fg continue it, ^C kills it; a shell exits and
 * orphans a stopped job; the terminal's ioctls and background reads and
 * writes; setpgid races between a shell and its child; group stop
 * accounting in a multithreaded process.  Where Linux's answer is not
 * obvious, the comment says how it was checked on a real kernel.
 *
 * Each process is forked from init (or the shell) and driven by a puppet
 * (puppet.h) once it must be able to stop; the shell is driven by the test.
 */
#include <errno.h>
#include <sys/prctl.h>
#include <stdint.h>
#include <rcuproc/pgrp.h>
#include <rcuproc/snapshot.h>
#include <rcuproc/tty.h>
#include "../fixture/puppet.h"
#include "../fixture/fixture.h"
#include "../fixture/racehold.h"
#include "signal/signal.h"

static struct rp_tty *tty;

/* The child of the last fork_job or clone_job. */
static struct rp_task *forked;

/* fork() as the job's task. */
static long fork_job(struct job *j)
{
	return rp_fork(j->t, &forked);
}

/* clone(arg) as the job's task. */
static long clone_job(struct job *j)
{
	return rp_clone(j->t, (unsigned long)j->arg, &forked);
}

/* The world with a terminal. */
static void start_tty(enum rp_sync_mode mode)
{
	start(mode);
	cr_assert_eq(rp_tty_create(sys, &tty), 0);
}

static void finish_tty(void)
{
	rp_tty_destroy(tty);
	finish();
}

/* An interactive shell: its own session with the terminal; ignores the stops, as bash. */
static struct rp_task *make_shell(void)
{
	struct rp_task *sh = fork_of(init);
	pid_t pid = rp_getpid(sh), id = 0;

	cr_assert_eq(rp_setsid(sh), pid);
	set_action(sh, SIGTSTP, SIG_IGN);
	set_action(sh, SIGTTIN, SIG_IGN);
	set_action(sh, SIGTTOU, SIG_IGN);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCSCTTY, (void *)(intptr_t)0), 0);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGSID, &id), 0);
	cr_assert_eq(id, pid);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGPGRP, &id), 0);
	cr_assert_eq(id, pid, "TIOCSCTTY makes the leader's group the foreground");
	return sh;
}

/* A job's process, as a shell's child does it before exec: the stops back to SIG_DFL. */
static struct rp_task *make_job_process(struct rp_task *sh, pid_t pgid)
{
	struct rp_task *c = fork_of(sh);

	/* Both sides call setpgid, so that neither depends on who runs first. */
	cr_assert_eq(rp_setpgid(sh, rp_getpid(c), pgid), 0);
	cr_assert_eq(rp_setpgid(c, 0, pgid), 0);
	set_action(c, SIGTSTP, SIG_DFL);
	set_action(c, SIGTTIN, SIG_DFL);
	set_action(c, SIGTTOU, SIG_DFL);
	cr_assert_eq(rp_execve(c, "job"), 0);
	return c;
}

static void set_foreground(struct rp_task *sh, pid_t pgrp)
{
	pid_t fg = 0;

	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCSPGRP, &pgrp), 0);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGPGRP, &fg), 0);
	cr_assert_eq(fg, pgrp);
}

/* @parent waits for both processes of a job (in either order) with @options: each @status. */
static void wait_both(struct rp_task *parent, pid_t a, pid_t b, int options, int status)
{
	bool seen_a = false, seen_b = false;
	int st;

	for (int i = 0; i < 2; i++) {
		pid_t pid = rp_wait4(parent, -1, &st, options, NULL);

		cr_assert(pid == a || pid == b, "wait4 returned %d", pid);
		cr_assert_eq(st, status, "status %#x, expected %#x", st, status);
		seen_a |= pid == a;
		seen_b |= pid == b;
	}
	cr_assert(seen_a && seen_b);
	/* Reported once: nothing more to tell (nobody left, once reaped). */
	cr_assert_eq(rp_wait4(parent, -1, &st, options | WNOHANG, NULL), options ? 0 : -ECHILD);
}

static void end_shell(struct rp_task *sh)
{
	end_child(init, sh);
}

/*
 * A shell, and a job of one process in a group of its own (in the
 * foreground if @fg) driven by puppet @d: the job's pid.
 */
static pid_t start_with_job(enum rp_sync_mode mode, bool fg, struct rp_task **sh,
			    struct rp_task **p, struct puppet *d)
{
	start_tty(mode);
	*sh = make_shell();
	*p = make_job_process(*sh, 0);
	if (fg)
		set_foreground(*sh, rp_getpid(*p));
	puppet_start(d, *p);
	return rp_getpid(*p);
}

static long tty_read(struct rp_task *self, long len)
{
	return rp_tty_read(self, tty, len);
}

/* ---- a shell runs a pipeline: ^Z, bg, a background read, fg, ^C ---- */

static void pipeline(enum rp_sync_mode mode)
{
	struct rp_task *sh, *p1, *p2;
	struct puppet d1, d2;
	pid_t shell, job, j2;

	start_tty(mode);
	sh = make_shell();
	shell = rp_getpid(sh);
	p1 = make_job_process(sh, 0);
	job = rp_getpid(p1);
	p2 = make_job_process(sh, job);
	j2 = rp_getpid(p2);
	cr_assert_eq(rp_getpgid(p2, 0), job);
	set_foreground(sh, job);
	puppet_start(&d1, p1);
	puppet_start(&d2, p2);
	/* ^Z: both stop; the shell's wait4(WUNTRACED) sees each once (0x147f). */
	cr_assert_eq(rp_tty_keyboard(tty, 0x1a), 0);
	wait_both(sh, job, j2, WUNTRACED, STOPPED_BY(SIGTSTP));
	set_foreground(sh, shell);
	/* bg: SIGCONT to the group; wait4(WCONTINUED) sees each once (0xffff). */
	cr_assert_eq(rp_kill(sh, -job, SIGCONT), 0);
	wait_both(sh, job, j2, WCONTINUED, CONTINUED);
	/* A background read: SIGTTIN to its group, which stops. */
	cr_assert_eq(puppet_call(&d2, tty_read, 1), -RP_ERESTARTSYS);
	wait_both(sh, job, j2, WUNTRACED, STOPPED_BY(SIGTTIN));
	/* fg: the terminal, then SIGCONT; now the read gets what was typed. */
	set_foreground(sh, job);
	cr_assert_eq(rp_kill(sh, -job, SIGCONT), 0);
	wait_both(sh, job, j2, WCONTINUED, CONTINUED);
	cr_assert_eq(rp_tty_keyboard(tty, 'x'), 0);
	cr_assert_eq(puppet_call(&d2, tty_read, 10), 1);
	cr_assert_eq(puppet_call(&d2, tty_read, 10), -EAGAIN);
	/* ^C: both die of SIGINT (status 2, WIFSIGNALED). */
	cr_assert_eq(rp_tty_keyboard(tty, 0x03), 0);
	wait_both(sh, job, j2, 0, SIGINT);
	puppet_join_dead(&d1);
	puppet_join_dead(&d2);
	set_foreground(sh, shell);
	rp_task_put(p1);
	rp_task_put(p2);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(pipeline, pipeline)

/* ---- the shell exits: its stopped job is orphaned, gets SIGHUP and SIGCONT ---- */

/*
 * The orphan's hangup reached @p: the exit sends SIGHUP and then SIGCONT to
 * the group, and the SIGCONT clears the stop at once, in the sender
 * (Linux's prepare_signal).  Only state the sender sets is read: what the
 * job's own thread does with the SIGHUP (dequeue it, then start its exit
 * after dropping the siglock) leaves a window in which neither the signal
 * nor the exit shows.  That the SIGHUP is what kills it, the wait status
 * says.
 */
static bool hangup_sent(struct rp_task *p)
{
	struct rp_sighand *sh = rp_lock_task_sighand(p);
	bool sent;

	if (!sh)
		return true;		/* released: it is dead already */
	sent = !(p->jobctl & RP_JOBCTL_STOPPED);
	rp_unlock_sighand(sh);
	return sent;
}

static void orphaned_stopped_job(enum rp_sync_mode mode)
{
	struct rp_task *sh, *p1;
	struct puppet d1;
	pid_t job;
	int st;

	job = start_with_job(mode, true, &sh, &p1, &d1);
	cr_assert_eq(rp_tty_keyboard(tty, 0x1a), 0);
	cr_assert_eq(rp_wait4(sh, job, &st, WUNTRACED, NULL), job);
	cr_assert_eq(st, STOPPED_BY(SIGTSTP));
	set_foreground(sh, rp_getpid(sh));
	/*
	 * The job goes to init: no parent left in the session outside it.  The
	 * shell's exit sends the hangup before it returns, so it is checked
	 * then, not by waiting for the job to die.
	 */
	end_shell(sh);
	cr_assert(hangup_sent(p1), "the orphaned stopped job got no SIGHUP");
	puppet_join_dead(&d1);
	cr_assert_eq(rp_wait4(init, job, &st, 0, NULL), job);
	cr_assert_eq(st, SIGHUP, "killed by the orphan's SIGHUP, status %#x", st);
	rp_task_put(p1);
	finish_tty();
}

TEST_EACH_MODE(orphaned_stopped_job, orphaned_stopped_job)

/*
 * A stopped job of two processes: p1 the shell's child, p2 the child of m,
 * another child of the shell in the shell's group.  m's exit takes p2's
 * tie away (p2 to init) or keeps it (to the shell, a child subreaper); p1
 * ties the group either way, so nothing is sent.  The shell's exit then
 * takes the last tie: SIGHUP and SIGCONT, which kill both.
 */
static void orphaned_last_tie(enum rp_sync_mode mode, bool subreaper)
{
	struct rp_task *sh, *p1, *m, *p2;
	struct puppet d1, d2;
	pid_t job, j2;
	int st;

	job = start_with_job(mode, true, &sh, &p1, &d1);
	if (subreaper)
		cr_assert_eq(rp_prctl(sh, PR_SET_CHILD_SUBREAPER, 1), 0);
	m = fork_of(sh);
	p2 = fork_of(m);
	j2 = rp_getpid(p2);
	cr_assert_eq(rp_setpgid(m, j2, job), 0);
	set_action(p2, SIGTSTP, SIG_DFL);
	puppet_start(&d2, p2);
	cr_assert_eq(rp_tty_keyboard(tty, 0x1a), 0);
	cr_assert_eq(rp_wait4(sh, job, &st, WUNTRACED, NULL), job);
	cr_assert_eq(st, STOPPED_BY(SIGTSTP));
	cr_assert_eq(rp_wait4(m, j2, &st, WUNTRACED, NULL), j2);
	cr_assert_eq(st, STOPPED_BY(SIGTSTP));
	set_foreground(sh, rp_getpid(sh));
	end_child(sh, m);
	cr_assert(!hangup_sent(p1) && !hangup_sent(p2), "a group p1 still ties got the hangup");
	end_shell(sh);
	cr_assert(hangup_sent(p1) && hangup_sent(p2), "the orphaned stopped job got no SIGHUP");
	puppet_join_dead(&d1);
	puppet_join_dead(&d2);
	cr_assert_eq(rp_wait4(init, job, &st, 0, NULL), job);
	cr_assert_eq(st, SIGHUP, "p1 killed by the orphan's SIGHUP, status %#x", st);
	cr_assert_eq(rp_wait4(init, j2, &st, 0, NULL), j2);
	cr_assert_eq(st, SIGHUP, "p2 killed by the orphan's SIGHUP, status %#x", st);
	rp_task_put(p1);
	rp_task_put(p2);
	finish_tty();
}

TEST_EACH_MODE_WITH(orphaned_last_tie_init, orphaned_last_tie, false)
TEST_EACH_MODE_WITH(orphaned_last_tie_subreaper, orphaned_last_tie, true)

/*
 * The job's only tie is its own process p1, whose child p2 (in the job)
 * is stopped: p1's exit orphans the group by its own death, Linux's
 * kill_orphaned_pgrp(current) that ignores the dying task, and p2 gets
 * SIGHUP and SIGCONT.
 */
static void orphaned_by_member_exit(enum rp_sync_mode mode)
{
	struct rp_task *sh, *p1, *p2;
	struct puppet d2;
	pid_t j2;
	int st;

	start_tty(mode);
	sh = make_shell();
	p1 = make_job_process(sh, 0);
	p2 = fork_of(p1);
	j2 = rp_getpid(p2);
	puppet_start(&d2, p2);
	cr_assert_eq(rp_kill(sh, j2, SIGSTOP), 0);
	cr_assert_eq(rp_wait4(p1, j2, &st, WUNTRACED, NULL), j2);
	cr_assert_eq(st, STOPPED_BY(SIGSTOP));
	cr_assert(!hangup_sent(p2));
	end_child(sh, p1);
	cr_assert(hangup_sent(p2), "the group its dead parent tied got no SIGHUP");
	puppet_join_dead(&d2);
	cr_assert_eq(rp_wait4(init, j2, &st, 0, NULL), j2);
	cr_assert_eq(st, SIGHUP, "killed by the orphan's SIGHUP, status %#x", st);
	rp_task_put(p2);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(orphaned_by_member_exit, orphaned_by_member_exit)

static long tiocgsid(struct rp_task *self, long unused)
{
	pid_t sid;

	(void)unused;
	return rp_tty_ioctl(self, tty, TIOCGSID, &sid);
}

static long take_signals(struct rp_task *self, long unused)
{
	(void)unused;
	return rp_get_signal(self, NULL);
}

static long ignore_sighup(struct rp_task *self, long unused)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };

	(void)unused;
	return rp_sigaction(self, SIGHUP, &sa, NULL);
}

/*
 * An orphaned group ignores SIGTSTP (is_current_pgrp_orphaned in Linux's
 * get_signal) but not SIGSTOP; a leader's exit hangs up its foreground.
 */
static void orphan_ignores_tstp(enum rp_sync_mode mode)
{
	struct rp_task *sh, *p1;
	struct puppet d1;
	pid_t job;
	int st;

	job = start_with_job(mode, true, &sh, &p1, &d1);
	cr_assert_eq(puppet_call(&d1, ignore_sighup, 0), 0);
	/* The leader exits: its foreground group gets SIGHUP (ignored). */
	end_shell(sh);
	cr_assert_eq(puppet_call(&d1, tiocgsid, 0), -ENOTTY, "the session lost its terminal");
	cr_assert_eq(rp_kill(init, job, SIGTSTP), 0);
	/* A stop would keep this call from returning. */
	cr_assert_eq(puppet_call(&d1, take_signals, 0), 0);
	cr_assert_eq(rp_wait4(init, job, &st, WUNTRACED | WNOHANG, NULL), 0, "SIGTSTP ignored");
	cr_assert_eq(rp_kill(init, job, SIGSTOP), 0);
	cr_assert_eq(rp_wait4(init, job, &st, WUNTRACED, NULL), job);
	cr_assert_eq(st, STOPPED_BY(SIGSTOP));
	cr_assert_eq(rp_kill(init, job, SIGKILL), 0);
	puppet_join_dead(&d1);
	cr_assert_eq(rp_wait4(init, job, &st, 0, NULL), job);
	cr_assert_eq(st, SIGKILL);
	rp_task_put(p1);
	finish_tty();
}

TEST_EACH_MODE(orphan_ignores_tstp, orphan_ignores_tstp)

/* ---- the leader's exit hangs up its foreground: SIGHUP only ---- */

static void caught(int sig)
{
	(void)sig;	/* never run: rcuproc records a handler, it calls none */
}

/* Catch SIGHUP and SIGCONT, blocked: what is sent stays pending to be seen. */
static long catch_hup_and_cont(struct rp_task *self, long unused)
{
	struct sigaction sa = { .sa_handler = caught };
	sigset_t set;

	(void)unused;
	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCONT);
	if (rp_sigaction(self, SIGHUP, &sa, NULL) || rp_sigaction(self, SIGCONT, &sa, NULL))
		return -1;
	return rp_sigprocmask(self, SIG_BLOCK, &set, NULL);
}

/* Is @sig pending for @p (its thread's or its group's)? */
static bool pending(struct rp_task *p, int sig)
{
	struct rp_sighand *sh = rp_lock_task_sighand(p);
	bool yes;

	cr_assert_not_null(sh, "the job is alive");
	yes = ((p->signal->shared_pending.signal | p->pending.signal) & RP_SIGBIT(sig)) != 0;
	rp_unlock_sighand(sh);
	return yes;
}

/*
 * Linux's disassociate_ctty(1) on a pty: the leader's exit sends its
 * foreground group SIGHUP only; SIGCONT comes with a leader's TIOCNOTTY
 * (disassociate_ctty(0)).  Checked on Linux 6.18 with a pty (posix_openpt;
 * setsid; TIOCSCTTY; a foreground group of its own catching both): the
 * leader's exit delivered SIGHUP alone, its TIOCNOTTY SIGCONT and SIGHUP.
 * The job is not stopped, so its group's orphaning sends nothing.
 */
static void leader_exit_hangup(enum rp_sync_mode mode, bool notty)
{
	struct rp_task *sh, *p1;
	struct puppet d1;
	pid_t job;
	int st;

	job = start_with_job(mode, true, &sh, &p1, &d1);
	cr_assert_eq(puppet_call(&d1, catch_hup_and_cont, 0), 0);
	if (notty)
		cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCNOTTY, NULL), 0);
	else
		end_shell(sh);
	cr_assert(pending(p1, SIGHUP), "the foreground group got no SIGHUP");
	cr_assert_eq(pending(p1, SIGCONT), notty, "SIGCONT %s, want %s",
		     pending(p1, SIGCONT) ? "sent" : "not sent", notty ? "sent" : "not sent");
	cr_assert_eq(rp_kill(init, job, SIGKILL), 0);
	puppet_join_dead(&d1);
	cr_assert_eq(rp_wait4(notty ? sh : init, job, &st, 0, NULL), job);
	if (notty)
		end_shell(sh);
	rp_task_put(p1);
	finish_tty();
}

TEST_EACH_MODE_WITH(leader_exit_hangup, leader_exit_hangup, false)
TEST_EACH_MODE_WITH(leader_tiocnotty_hangup, leader_exit_hangup, true)

/*
 * The terminal holds its foreground group, not the group's number (Linux's
 * tty->pgrp, a struct pid): a group that dies and whose number a new group
 * of the same session takes is not that group.  Checked on Linux 6.18 with
 * a pty (the number forced through ns_last_pid in a pid namespace of its
 * own): after the foreground group died, TIOCGPGRP still gave its number;
 * the new group with that number got no SIGINT from a typed ^C, its read
 * got SIGTTIN and EINTR (a background group), and TIOCGPGRP still gave the
 * number.  The pid's memory outlives its number while the terminal holds
 * it (I5): RP_BREAK_TTY_HOLD_EARLY frees it with the number, and the
 * terminal's next look at it is a use after free (ASan) or meets poison.
 */
static void foreground_group_by_pointer(enum rp_sync_mode mode)
{
	struct rp_task *sh, *a, *b;
	pid_t dead, id = 0;

	start_tty(mode);
	cr_assert_eq(rp_system_set_pid_max(sys, 16), 0);
	sh = make_shell();
	a = make_job_process(sh, 0);
	dead = rp_getpid(a);
	set_foreground(sh, dead);
	end_child(sh, a);
	rp_deferred_barrier();	/* whatever went with the number is freed now */
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGPGRP, &id), 0);
	cr_assert_eq(id, dead, "TIOCGPGRP gave %d for the dead foreground group %d", id, dead);
	/* Fork on until a child of the shell gets the dead group's number. */
	while (rp_getpid(b = fork_of(sh)) != dead)
		end_child(sh, b);
	cr_assert_eq(rp_setpgid(b, 0, 0), 0);
	set_action(b, SIGTTIN, SIG_DFL);
	cr_assert_eq(rp_tty_keyboard(tty, 0x03), 0);
	cr_assert_not(pending(b, SIGINT), "^C reached group %d, which took the dead "
		      "foreground group's number", dead);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGPGRP, &id), 0);
	cr_assert_eq(id, dead);
	cr_assert_eq(rp_tty_read(b, tty, 1), -RP_ERESTARTSYS, "the new group %d is "
		     "in the background", dead);
	cr_assert(pending(b, SIGTTIN));
	/* Made the foreground, the new group is the terminal's. */
	set_foreground(sh, dead);
	cr_assert_eq(rp_tty_keyboard(tty, 0x03), 0);
	cr_assert(pending(b, SIGINT));
	cr_assert_eq(rp_exit_group(b, 0), 0);
	cr_assert_eq(rp_wait4(sh, dead, NULL, 0, NULL), dead);
	rp_task_put(b);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(fg_number_reuse, foreground_group_by_pointer)

/* ---- the terminal's ioctls: Linux's errnos ---- */

static long tiocspgrp(struct rp_task *self, long pgrp)
{
	pid_t nr = (pid_t)pgrp;

	return rp_tty_ioctl(self, tty, TIOCSPGRP, &nr);
}

static long tty_write(struct rp_task *self, long len)
{
	return rp_tty_write(self, tty, len);
}

/*
 * Checked on Linux 6.x with a pty (posix_openpt; setsid; TIOCSCTTY): a
 * non-leader's TIOCSCTTY is EPERM, and so is another leader's without
 * steal; TIOCSPGRP of a pid that does not exist is ESRCH, of a group of
 * another session EPERM, of a negative number EINVAL; a process of another
 * session gets ENOTTY from TIOCGPGRP and TIOCSPGRP.
 */
static void ioctl_errors(void)
{
	struct rp_task *sh = make_shell(), *other = fork_of(init), *child = fork_of(sh);
	pid_t pid = rp_getpid(sh), id = 0;

	cr_assert_eq(rp_tty_ioctl(child, tty, TIOCSCTTY, (void *)(intptr_t)0), -EPERM);
	cr_assert_eq(rp_setsid(other), rp_getpid(other));
	cr_assert_eq(rp_tty_ioctl(other, tty, TIOCSCTTY, (void *)(intptr_t)0), -EPERM);
	cr_assert_eq(rp_tty_ioctl(other, tty, TIOCGPGRP, &id), -ENOTTY);
	cr_assert_eq(tiocspgrp(other, pid), -ENOTTY);
	cr_assert_eq(tiocspgrp(sh, rp_getpid(other)), -EPERM, "a group of another session");
	cr_assert_eq(tiocspgrp(sh, 30000), -ESRCH);
	cr_assert_eq(tiocspgrp(sh, -2), -EINVAL);
	cr_assert_eq(rp_tty_ioctl(child, tty, TIOCGPGRP, &id), 0, "the session's terminal");
	cr_assert_eq(id, pid);
	cr_assert_eq(rp_tty_ioctl(sh, tty, 0x5400 + 0x7f, NULL), -ENOTTY);
	/* Steal, with CAP_SYS_ADMIN and the flag 1: the old session loses it. */
	cr_assert_eq(rp_tty_ioctl(other, tty, TIOCSCTTY, (void *)(intptr_t)1), 0);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGSID, &id), -ENOTTY);
	cr_assert_eq(rp_tty_ioctl(other, tty, TIOCGSID, &id), 0);
	cr_assert_eq(id, rp_getpid(other));
	/* A leader's TIOCNOTTY gives it up (its group gets SIGHUP, fatal as it
	 * is sent if not ignored); a second is ENOTTY. */
	set_action(other, SIGHUP, SIG_IGN);
	cr_assert_eq(rp_tty_ioctl(other, tty, TIOCNOTTY, NULL), 0);
	cr_assert_eq(rp_tty_ioctl(other, tty, TIOCNOTTY, NULL), -ENOTTY);
	end_child(sh, child);
	end_child(init, other);
	end_shell(sh);
}

static void ioctls(enum rp_sync_mode mode)
{
	start_tty(mode);
	ioctl_errors();
	finish_tty();
}

TEST_EACH_MODE(tty_ioctl, ioctls)

/*
 * Background reads and writes (n_tty's job_control and TOSTOP), and a
 * background TIOCSPGRP (tty_check_change).  Checked on Linux 6.x with a
 * pty: a background read with SIGTTIN ignored fails with EIO; a background
 * write with TOSTOP and SIGTTOU blocked is written.
 */
static void background(enum rp_sync_mode mode)
{
	struct rp_task *sh, *bg;
	struct puppet d;
	pid_t job;
	int st;

	job = start_with_job(mode, false, &sh, &bg, &d);
	cr_assert_eq(puppet_call(&d, tty_write, 5), 5, "no TOSTOP: written");
	rp_tty_set_tostop(tty, 1);
	cr_assert_eq(puppet_call(&d, tty_write, 5), -RP_ERESTARTSYS);
	cr_assert_eq(rp_wait4(sh, job, &st, WUNTRACED, NULL), job);
	cr_assert_eq(st, STOPPED_BY(SIGTTOU));
	cr_assert_eq(rp_kill(sh, job, SIGCONT), 0);
	cr_assert_eq(puppet_call(&d, tiocspgrp, job), -RP_ERESTARTSYS, "background TIOCSPGRP");
	cr_assert_eq(rp_wait4(sh, job, &st, WUNTRACED, NULL), job);
	cr_assert_eq(st, STOPPED_BY(SIGTTOU));
	cr_assert_eq(rp_kill(sh, job, SIGCONT), 0);
	puppet_quit(&d);
	mask_signal(bg, SIG_BLOCK, SIGTTOU);
	cr_assert_eq(rp_tty_write(bg, tty, 5), 5, "SIGTTOU blocked: written");
	set_action(bg, SIGTTIN, SIG_IGN);
	cr_assert_eq(rp_tty_read(bg, tty, 1), -EIO, "SIGTTIN ignored: EIO");
	cr_assert_eq(rp_exit_group(bg, 0), 0);
	/* The continued reports are still there: wait4 without WCONTINUED reaps. */
	cr_assert_eq(rp_wait4(sh, job, &st, 0, NULL), job);
	cr_assert_eq(st, EXITED(0));
	rp_task_put(bg);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(tty_background, background)

/* ---- setpgid between a shell and its child ---- */

/*
 * Both orders give the same group; once the child has exec'd the shell's
 * setpgid is EACCES (Linux: "EACCES: pid is a child that has performed an
 * execve", setpgid(2)), while the child's own still works.
 */
static void setpgid_race(enum rp_sync_mode mode)
{
	struct rp_task *sh, *a, *b;
	pid_t pa, pb;

	start_tty(mode);
	sh = make_shell();
	a = fork_of(sh);
	b = fork_of(sh);
	pa = rp_getpid(a);
	pb = rp_getpid(b);
	cr_assert_eq(rp_setpgid(sh, pa, pa), 0, "the shell first");
	cr_assert_eq(rp_setpgid(a, 0, 0), 0);
	cr_assert_eq(rp_getpgid(a, 0), pa);
	cr_assert_eq(rp_setpgid(b, 0, pa), 0, "the child first");
	cr_assert_eq(rp_setpgid(sh, pb, pa), 0);
	cr_assert_eq(rp_getpgid(b, 0), pa);
	cr_assert_eq(rp_execve(b, "job"), 0);
	cr_assert_eq(rp_setpgid(sh, pb, pa), -EACCES);
	cr_assert_eq(rp_setpgid(b, 0, pa), 0);
	end_child(sh, a);
	end_child(sh, b);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(setpgid_race, setpgid_race)

/* ---- group stop in a multithreaded process; the parent's notices ---- */

/*
 * The parent's next signal: SIGCHLD with @code and @status (waits till it
 * comes).  SIGCHLD stays blocked otherwise, so that it cannot interrupt
 * the parent's wait4 (EINTR).
 */
static void expect_sigchld(struct rp_task *parent, int code, int status)
{
	siginfo_t si;
	int sig;

	mask_signal(parent, SIG_UNBLOCK, SIGCHLD);
	sig = await_signal(parent, &si);
	mask_signal(parent, SIG_BLOCK, SIGCHLD);
	cr_assert_eq(sig, SIGCHLD);
	cr_assert_eq(si.si_code, code);
	cr_assert_eq(si.si_status, status);
}

/*
 * Process @pid, all of whose threads but @last have stopped in a SIGSTOP, is
 * not reported stopped to @parent; once @last runs (puppet @d) and stops,
 * it is.
 */
static void stopped_by_last_thread(struct rp_task *parent, pid_t pid, struct puppet *d,
				   struct rp_task *last)
{
	int st;

	cr_assert_eq(rp_wait4(parent, pid, &st, WUNTRACED | WNOHANG, NULL), 0,
		     "reported stopped before its last thread stopped");
	puppet_start(d, last);
	cr_assert_eq(rp_wait4(parent, pid, &st, WUNTRACED, NULL), pid);
	cr_assert_eq(st, STOPPED_BY(SIGSTOP));
	cr_assert(task_stopped(last), "the last thread stopped with its group");
}

/*
 * The group is stopped, and reported, only once its last thread stops
 * (RP_BREAK_STOP_EARLY reports it at the first); the parent is told
 * CLD_STOPPED, then CLD_CONTINUED after SIGCONT.
 */
static void thread_group_stop(enum rp_sync_mode mode)
{
	struct rp_task *parent, *p, *t2;
	struct puppet d1, d2;
	pid_t pid;
	int st;

	start_tty(mode);
	parent = fork_of(init);
	set_action(parent, SIGCHLD, user_handler);
	mask_signal(parent, SIG_BLOCK, SIGCHLD);
	p = fork_of(parent);
	pid = rp_getpid(p);
	cr_assert_gt(rp_clone(p, THREAD_FLAGS, &t2), 1);
	cr_assert_eq(rp_kill(parent, pid, SIGSTOP), 0);
	puppet_start(&d1, p);
	await_task(task_stopped, p);
	/* One thread stopped, the other has not run yet: not stopped. */
	stopped_by_last_thread(parent, pid, &d2, t2);
	cr_assert(task_stopped(p));
	expect_sigchld(parent, CLD_STOPPED, SIGSTOP);
	cr_assert_eq(rp_kill(parent, pid, SIGCONT), 0);
	expect_sigchld(parent, CLD_CONTINUED, SIGCONT);
	cr_assert_eq(rp_wait4(parent, pid, &st, WCONTINUED, NULL), pid);
	cr_assert_eq(st, CONTINUED);
	cr_assert_eq(rp_kill(parent, pid, SIGKILL), 0);
	puppet_join_dead(&d1);
	puppet_join_dead(&d2);
	cr_assert_eq(rp_wait4(parent, pid, &st, 0, NULL), pid);
	cr_assert_eq(st, SIGKILL);
	rp_task_put(t2);
	rp_task_put(p);
	end_child(init, parent);
	finish_tty();
}

TEST_EACH_MODE(thread_group_stop, thread_group_stop)

/*
 * A thread created while its group's stop begins takes part in it (Linux's
 * task_join_group_stop, called by copy_process under the siglock).  A
 * thread with a stop pending does not start a clone (it restarts), so the
 * stop must begin inside the clone: the second thread's clone is held with
 * its new thread set up, not linked (RP_RACE_FORK_LINKS); meanwhile the
 * first thread takes SIGSTOP, begins the group stop and stops.  The group
 * is stopped, and reported, only once the new thread has stopped too.
 */
static void thread_born_in_group_stop(enum rp_sync_mode mode)
{
	struct job c = { .arg = THREAD_FLAGS };
	struct rp_task *parent, *p, *t2;
	struct puppet d1, d2, d3;
	pid_t pid;
	int st;

	start_tty(mode);
	parent = fork_of(init);
	p = fork_of(parent);
	pid = rp_getpid(p);
	cr_assert_gt(rp_clone(p, THREAD_FLAGS, &t2), 1);
	arm(RP_RACE_FORK_LINKS, t2, true, true);
	job_start(&c, clone_job, t2);
	cr_assert(await_reached(1), "the clone never reached its link");
	cr_assert_eq(rp_kill(parent, pid, SIGSTOP), 0);
	puppet_start(&d1, p);
	await_task(task_stopped, p);
	release();
	cr_assert_gt(job_join(&c), 1, "the clone failed");
	rp_debug_race_hook(NULL);
	puppet_start(&d2, t2);
	await_task(task_stopped, t2);
	stopped_by_last_thread(parent, pid, &d3, forked);
	cr_assert_eq(rp_kill(parent, pid, SIGKILL), 0);
	puppet_join_dead(&d1);
	puppet_join_dead(&d2);
	puppet_join_dead(&d3);
	cr_assert_eq(rp_wait4(parent, pid, &st, 0, NULL), pid);
	cr_assert_eq(st, SIGKILL);
	rp_task_put(forked);
	rp_task_put(t2);
	rp_task_put(p);
	end_child(init, parent);
	finish_tty();
}

TEST_EACH_MODE(thread_born_in_group_stop, thread_born_in_group_stop)

/* SA_NOCLDSTOP: no SIGCHLD for the stop, but wait still reports it; waitid's WNOWAIT keeps it. */
static void nocldstop(enum rp_sync_mode mode)
{
	struct sigaction sa = { .sa_handler = user_handler, .sa_flags = SA_NOCLDSTOP };
	struct rp_task *parent, *p;
	struct puppet d;
	siginfo_t si;
	pid_t pid;

	start_tty(mode);
	parent = fork_of(init);
	cr_assert_eq(rp_sigaction(parent, SIGCHLD, &sa, NULL), 0);
	p = fork_of(parent);
	pid = rp_getpid(p);
	puppet_start(&d, p);
	cr_assert_eq(rp_kill(parent, pid, SIGSTOP), 0);
	cr_assert_eq(rp_waitid(parent, P_PID, pid, &si, WSTOPPED | WNOWAIT), 0);
	cr_assert_eq(si.si_code, CLD_STOPPED);
	cr_assert_eq(si.si_status, SIGSTOP);
	cr_assert_eq(rp_waitid(parent, P_PID, pid, &si, WSTOPPED), 0, "WNOWAIT left it");
	cr_assert_eq(si.si_code, CLD_STOPPED);
	cr_assert_eq(rp_waitid(parent, P_PID, pid, &si, WSTOPPED | WNOHANG), 0);
	cr_assert_eq(si.si_pid, 0, "reported once");
	cr_assert_eq(rp_get_signal(parent, &si), 0, "SA_NOCLDSTOP: no SIGCHLD");
	cr_assert_eq(rp_kill(parent, pid, SIGCONT), 0);
	cr_assert_eq(rp_waitid(parent, P_PID, pid, &si, WCONTINUED), 0);
	cr_assert_eq(si.si_code, CLD_CONTINUED);
	cr_assert_eq(si.si_status, SIGCONT);
	cr_assert_eq(rp_kill(parent, pid, SIGKILL), 0);
	puppet_join_dead(&d);
	cr_assert_eq(rp_wait4(parent, pid, NULL, 0, NULL), pid);
	rp_task_put(p);
	end_child(init, parent);
	finish_tty();
}

TEST_EACH_MODE(nocldstop, nocldstop)

/* Process @pid's state as ps reads it (0: not listed). */
static char ps_state(struct rp_task *self, pid_t pid)
{
	struct rp_ps_entry ps[16];
	long n = rp_ps_snapshot(self, ps, 16);

	for (long k = 0; k < n && k < 16; k++)
		if (ps[k].pid == pid)
			return ps[k].state;
	return 0;
}

/*
 * SIGKILL ends a stop when it is sent, as a fatal signal's wake-up makes a
 * stopped Linux task runnable at once: ps no longer reads the process as
 * stopped, though its thread, held as it first looks at its stop
 * (RP_RACE_STOP_LOOKS, armed before the stop: held there before its
 * first check, every time), has not run since.
 */
static void kill_ends_stop(enum rp_sync_mode mode)
{
	struct rp_task *p;
	struct puppet d;
	pid_t pid;
	int st;

	start_tty(mode);
	p = fork_of(init);
	pid = rp_getpid(p);
	arm(RP_RACE_STOP_LOOKS, p, true, true);
	puppet_start(&d, p);
	cr_assert_eq(rp_kill(init, pid, SIGSTOP), 0);
	cr_assert_eq(rp_wait4(init, pid, &st, WUNTRACED, NULL), pid);
	cr_assert_eq(st, STOPPED_BY(SIGSTOP));
	cr_assert(await_reached(1), "the stopped thread never looked at its stop");
	cr_assert_eq(ps_state(init, pid), 'T');
	cr_assert_eq(rp_kill(init, pid, SIGKILL), 0);
	cr_assert_neq(ps_state(init, pid), 'T', "still stopped after SIGKILL");
	release();
	puppet_join_dead(&d);
	cr_assert_eq(rp_wait4(init, pid, &st, 0, NULL), pid);
	cr_assert_eq(st, SIGKILL);
	rp_task_put(p);
	finish_tty();
}

TEST_EACH_MODE(kill_ends_stop, kill_ends_stop)

/* A stop signal discards a pending SIGCONT and SIGCONT a pending stop signal. */
static void flushes(enum rp_sync_mode mode)
{
	struct rp_task *p;
	sigset_t all, pending;

	start_tty(mode);
	p = fork_of(init);
	set_action(p, SIGCONT, user_handler);
	sigfillset(&all);
	cr_assert_eq(rp_sigprocmask(p, SIG_BLOCK, &all, NULL), 0);
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGCONT), 0);
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGTSTP), 0);
	cr_assert_eq(rp_sigpending(p, &pending), 0);
	cr_assert(sigismember(&pending, SIGTSTP) && !sigismember(&pending, SIGCONT));
	cr_assert_eq(rp_kill(init, rp_getpid(p), SIGCONT), 0);
	cr_assert_eq(rp_sigpending(p, &pending), 0);
	cr_assert(!sigismember(&pending, SIGTSTP) && sigismember(&pending, SIGCONT));
	end_child(init, p);
	finish_tty();
}

TEST_EACH_MODE(stop_flushes, flushes)

static pid_t ctty_pgrp(struct rp_task *self)
{
	pid_t id = 0;
	int ret = rp_tty_ioctl(self, tty, TIOCGPGRP, &id);

	return ret ? ret : id;
}

/*
 * The controlling terminal is each process's own (Linux's signal->tty),
 * copied at fork.  Checked on Linux 6.18 with a pty's slave: a process of
 * the session forked before its leader's TIOCSCTTY gets ENOTTY from
 * TIOCGPGRP and TIOCGSID, one forked after gets the group; a non-leader's
 * TIOCNOTTY is 0 and detaches it alone, without a signal (then ENOTTY, a
 * second TIOCNOTTY ENOTTY, its later children ENOTTY) while the leader keeps
 * it; setsid leaves it behind; the leader's TIOCNOTTY detaches every
 * process, and a new TIOCSCTTY gives it back to the leader alone.
 */
static void ctty_per_process(enum rp_sync_mode mode)
{
	struct rp_task *sh, *before, *after, *late, *gc, *mover;
	pid_t pid, id = 0;

	start_tty(mode);
	sh = fork_of(init);
	pid = rp_getpid(sh);
	cr_assert_eq(rp_setsid(sh), pid);
	set_action(sh, SIGHUP, SIG_IGN);
	set_action(sh, SIGTTIN, SIG_IGN);
	before = fork_of(sh);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCSCTTY, (void *)(intptr_t)0), 0);
	after = fork_of(sh);
	late = fork_of(sh);
	mover = fork_of(sh);
	cr_assert_eq(ctty_pgrp(before), -ENOTTY, "forked before the TIOCSCTTY");
	cr_assert_eq(rp_tty_ioctl(before, tty, TIOCGSID, &id), -ENOTTY);
	cr_assert_eq(rp_tty_ioctl(before, tty, TIOCNOTTY, NULL), -ENOTTY);
	cr_assert_eq(ctty_pgrp(after), pid, "forked after the TIOCSCTTY");
	/* A background read: SIGTTIN ignored is EIO on one's terminal only. */
	cr_assert_eq(rp_setpgid(before, 0, 0), 0);
	cr_assert_eq(rp_setpgid(after, 0, 0), 0);
	cr_assert_eq(rp_tty_read(after, tty, 1), -EIO, "background, its terminal");
	cr_assert_eq(rp_tty_read(before, tty, 1), -EAGAIN, "not its terminal: no job control");
	/* A non-leader's TIOCNOTTY: itself alone, no signal. */
	cr_assert_eq(rp_tty_ioctl(after, tty, TIOCNOTTY, NULL), 0);
	cr_assert_eq(ctty_pgrp(after), -ENOTTY, "detached");
	cr_assert_eq(rp_tty_ioctl(after, tty, TIOCNOTTY, NULL), -ENOTTY);
	cr_assert_eq(tiocspgrp(after, rp_getpid(after)), -ENOTTY);
	cr_assert_eq(rp_tty_read(after, tty, 1), -EAGAIN, "no job control any more");
	gc = fork_of(after);
	cr_assert_eq(ctty_pgrp(gc), -ENOTTY, "forked after its parent's TIOCNOTTY");
	cr_assert_eq(ctty_pgrp(sh), pid, "the leader keeps it");
	cr_assert_eq(ctty_pgrp(late), pid, "so does the rest of the session");
	cr_assert(!pending(sh, SIGHUP) && !pending(after, SIGHUP), "no SIGHUP");
	cr_assert(!pending(sh, SIGCONT) && !pending(after, SIGCONT), "no SIGCONT");
	/* setsid leaves it in the old session. */
	cr_assert_eq(rp_setsid(mover), rp_getpid(mover));
	cr_assert_eq(ctty_pgrp(mover), -ENOTTY, "a new session has no terminal");
	/* The leader's TIOCNOTTY: every process loses it; a new TIOCSCTTY is the leader's. */
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCNOTTY, NULL), 0);
	cr_assert_eq(ctty_pgrp(late), -ENOTTY, "the session lost it");
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCSCTTY, (void *)(intptr_t)0), 0);
	cr_assert_eq(ctty_pgrp(sh), pid);
	cr_assert_eq(ctty_pgrp(late), -ENOTTY, "forked before this TIOCSCTTY");
	end_child(after, gc);
	end_child(sh, before);
	end_child(sh, after);
	end_child(sh, late);
	end_child(sh, mover);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(ctty_per_process, ctty_per_process)

/*
 * A fork racing the session's loss of its terminal, on a fixed schedule: a
 * member forks and is held with its child set up but not linked; the
 * leader's TIOCNOTTY takes the terminal from every process of the session
 * it can see; then the fork links the child.  The child copies its
 * parent's terminal in the hold of the update lock that links it into the
 * session, so it has none: the loss's walk cannot pass a fork that is
 * between copy and link.  RP_BREAK_TTY_COPY_EARLY copies before the hold
 * and leaves the child a terminal its session lost.
 */
static void fork_races_tty_loss(enum rp_sync_mode mode)
{
	struct job f = { 0 };
	struct rp_task *sh, *member;
	pid_t sid;

	start_tty(mode);
	sh = make_shell();
	sid = rp_getpid(sh);
	set_action(sh, SIGHUP, SIG_IGN);	/* its own TIOCNOTTY hangs up its group */
	member = fork_of(sh);
	set_action(member, SIGHUP, SIG_IGN);
	cr_assert_eq(ctty_pgrp(member), sid, "forked after the TIOCSCTTY");
	arm(RP_RACE_FORK_LINKS, member, true, true);
	job_start(&f, fork_job, member);
	cr_assert(await_reached(1), "the fork never reached its link");
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCNOTTY, NULL), 0);
	release();
	cr_assert_gt(job_join(&f), 0, "the fork failed");
	rp_debug_race_hook(NULL);
	cr_assert_eq(ctty_pgrp(member), -ENOTTY, "the member lost it with the session");
	cr_assert_eq(ctty_pgrp(forked), -ENOTTY,
		     "a child forked across the session's loss kept the terminal");
	end_child(member, forked);
	end_child(sh, member);
	end_shell(sh);
	finish_tty();
}

TEST_EACH_MODE(fork_races_tty_loss, fork_races_tty_loss)


/* ------------------------------------------------------ a stop's notice to a released parent thread (I8) */

/* A process's user space: takes its signals (and stops) until it is killed. */
static long signal_loop_job(struct job *j)
{
	for (;;) {
		/* Sampled first: the signal after it wakes the wait below. */
		unsigned long seq = rp_waitq_seq(rp_task_waitq(j->t));
		int sig = rp_get_signal(j->t, NULL);

		if (sig < 0)
			return sig;
		if (sig == 0)
			rp_waitq_wait(rp_task_waitq(j->t), seq);
	}
}

static bool is_stopped(struct rp_task *t)
{
	return (CMM_LOAD_SHARED(t->jobctl) & RP_JOBCTL_STOPPED) != 0;
}

/*
 * Child c of thread t of process p stops; its notice found t as its real
 * parent and is held before locking t's table.  t exits and is released,
 * giving c to p's leader first.  p must still get the stop's SIGCHLD
 * (Linux sends it under tasklist_lock, which t's release waits for): the
 * notice follows c to its new parent rather than ending at the released
 * one.  c is then killed: its thread sent the stop's notice before it
 * took the kill, so p's one pending SIGCHLD (not queued twice) carries
 * CLD_STOPPED, or CLD_KILLED when the stop's notice was lost.
 */
static void stop_notice_parent_thread_exits(enum rp_sync_mode mode)
{
	struct rp_task *p, *t, *c;
	struct job cj = { .pid = 0 };
	bool hold = mode == RP_SYNC_RCU;
	siginfo_t info;
	int status;
	pid_t cpid;

	start(mode);
	race_count_jobs();
	p = spawn(init, SIGCHLD);
	t = spawn(p, THREAD_FLAGS);
	handle(p, SIGCHLD);		/* queued, not ignored */
	c = spawn(t, SIGCHLD);		/* c's real parent: thread t */
	cpid = rp_getpid(c);
	cr_assert_eq(rp_kill(init, cpid, SIGSTOP), 0);
	if (hold)
		arm(RP_RACE_SIGHAND_LOADED, t, true, false);
	job_start(&cj, signal_loop_job, c);
	if (hold)
		cr_assert(await_reached(1), "c's stop notice never loaded t's table");
	cr_assert_eq(rp_exit(t, 0), 0);	/* released: c goes to p's leader */
	rp_task_put(t);
	if (hold)
		release();
	await_task(is_stopped, c);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_kill(init, cpid, SIGKILL), 0);
	cr_assert_eq(job_join(&cj), -ESRCH);
	cr_assert_eq(rp_get_signal(p, &info), SIGCHLD);
	cr_assert_eq(info.si_code, CLD_STOPPED, "p's SIGCHLD says %d, not CLD_STOPPED (%d): the "
		     "stop's notice ended at a parent thread released meanwhile",
		     info.si_code, CLD_STOPPED);
	cr_assert_eq(info.si_pid, cpid);
	cr_assert_eq(rp_wait4(p, cpid, &status, 0, NULL), cpid);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	rp_task_put(c);
	cr_assert_eq(rp_exit_group(p, 0), 0);
	rp_task_put(p);
	finish();
}

TEST_EACH_MODE(stop_notice_parent_thread_exits, stop_notice_parent_thread_exits)

static struct rp_task *member_of;	/* note a wait for this pid's M (its process's task) */
static int member_waits, excl_waits, spgrp_done;	/* uatomic */

static void tty_hook(enum rp_race_point where, struct rp_task *t)
{
	if (where == RP_RACE_MEMBER_WAITS && t == CMM_LOAD_SHARED(member_of))
		uatomic_set(&member_waits, 1);
	else if (where == RP_RACE_GATE_EXCL_WAITS)
		uatomic_set(&excl_waits, 1);
	else
		race_hook(where, t);
}

static long tiocspgrp_job(struct job *j)
{
	long ret = tiocspgrp(j->t, j->arg);

	uatomic_set(&spgrp_done, 1);
	return ret;
}

/*
 * A job J of one process, its group's leader, in the shell's session.
 * J's fork is held in its attach to J's group, M of J's pid held; the
 * shell's TIOCSPGRP of J (the gate shared) waits for that M, and is done
 * once the fork goes on: J in the foreground, the hold and the new member
 * both counted in the pid's users.  RP_BREAK_TTY_PGRP_UNLOCKED takes no
 * M: the TIOCSPGRP is done while the fork writes the count.  Before
 * TIOCSPGRP came under the gate shared, it waited for the fork's gate.
 */
Test(tty_shared, tiocspgrp_waits_for_group_member_lock)
{
	struct rp_task *sh, *j;
	struct job jf, js;
	pid_t jpid, fg = 0;

	start_tty(RP_SYNC_RCU);
	sh = make_shell();
	j = make_job_process(sh, 0);
	jpid = rp_getpid(j);
	member_of = j;
	race_count_jobs();
	arm(RP_RACE_MEMBER_ATTACH, j, true, false);	/* J's fork, M of J held */
	rp_debug_race_hook(tty_hook);
	job_start(&jf, fork_job, j);
	cr_assert(await_reached(1), "the fork returned without attaching to J's group");
	js.arg = jpid;
	job_start(&js, tiocspgrp_job, sh);
	while (!uatomic_read(&member_waits) && !uatomic_read(&excl_waits) &&
	       !uatomic_read(&spgrp_done))
		usleep(1000);
	cr_expect(uatomic_read(&member_waits), "TIOCSPGRP did not wait for its group's M (%s)",
		  uatomic_read(&excl_waits) ? "it took the gate exclusive" : "it was done");
	release();
	cr_assert_gt(job_join(&jf), 0);
	cr_assert_eq(job_join(&js), 0);
	rp_debug_race_hook(NULL);
	cr_assert_eq(rp_tty_ioctl(sh, tty, TIOCGPGRP, &fg), 0);
	cr_expect_eq(fg, jpid);
	cr_expect_eq(rp_getpgid(forked, 0), jpid);
	end_child(j, forked);
	set_foreground(sh, rp_getpid(sh));	/* J's hold let go under its M */
	end_child(sh, j);
	end_shell(sh);
	finish_tty();
}
