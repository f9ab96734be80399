/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A job-control shell, as a program outside rcuproc would write it: the
 * shell leads a session with a controlling terminal and runs a job in a
 * process group of its own, in the foreground.  ^Z stops the job and the
 * shell's wait4(WUNTRACED) sees it; "bg" continues it in the background
 * (SIGCONT, seen by wait4(WCONTINUED)); "fg" hands it the terminal again
 * (TIOCSPGRP, tcsetpgrp's ioctl); ^C kills it.  A thread plays the job's
 * process: it returns to user space (rp_get_signal) until it dies, and
 * sleeps inside it while the job is stopped.
 *
 *	cc -o jobshell jobshell.c $(pkg-config --cflags --libs rcuproc) -pthread
 *
 * Exits 0 when every answer is Linux's, 1 otherwise (with a message);
 * example.h holds the set-up and teardown every example shares.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <rcuproc/rcuproc.h>
#include "example.h"

#define KEY_CTRL_C	0x03
#define KEY_CTRL_Z	0x1a

static int set_action(struct rp_task *self, int sig, void (*handler)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	return rp_sigaction(self, sig, &sa, NULL);
}

/* The shell: a session leader with @tty as its controlling terminal, which
 * ignores the stop signals of the terminal, as interactive shells do. */
static int start_shell(struct rp_task *init, struct rp_tty *tty, struct rp_task **sh)
{
	pid_t pid = rp_fork(init, sh);

	if (pid < 0)
		return example_fail("jobshell", "fork of the shell", pid);
	if (rp_setsid(*sh) != pid)
		return example_fail("jobshell", "setsid", rp_getsid(*sh, 0));
	if (set_action(*sh, SIGTSTP, SIG_IGN) || set_action(*sh, SIGTTIN, SIG_IGN) ||
	    set_action(*sh, SIGTTOU, SIG_IGN))
		return example_fail("jobshell", "the shell's sigaction", 0);
	if (rp_tty_ioctl(*sh, tty, TIOCSCTTY, (void *)(intptr_t)0) != 0)
		return example_fail("jobshell", "TIOCSCTTY", 0);
	return 0;
}

/*
 * The job: forked by the shell into a group of its own (both sides call
 * setpgid, as shells do, so that neither depends on who runs first), with
 * the default actions back, then exec'd.
 */
static int start_job(struct rp_task *sh, struct rp_task **job)
{
	pid_t pid = rp_fork(sh, job);

	if (pid < 0)
		return example_fail("jobshell", "fork of the job", pid);
	if (rp_setpgid(sh, pid, pid) != 0 || rp_setpgid(*job, 0, pid) != 0)
		return example_fail("jobshell", "setpgid", rp_getpgid(*job, 0));
	if (set_action(*job, SIGTSTP, SIG_DFL) || set_action(*job, SIGTTIN, SIG_DFL) ||
	    set_action(*job, SIGTTOU, SIG_DFL))
		return example_fail("jobshell", "the job's sigaction", 0);
	if (rp_execve(*job, "sleep") != 0)
		return example_fail("jobshell", "execve", 0);
	return 0;
}

/* tcsetpgrp(3): give the terminal to @pgrp. */
static int set_foreground(struct rp_task *sh, struct rp_tty *tty, pid_t pgrp)
{
	pid_t fg = 0;
	int err = rp_tty_ioctl(sh, tty, TIOCSPGRP, &pgrp);

	if (!err)
		err = rp_tty_ioctl(sh, tty, TIOCGPGRP, &fg);
	if (err || fg != pgrp)
		return example_fail("jobshell", "TIOCSPGRP", err ? err : fg);
	return 0;
}

/*
 * The job's process: back to user space every millisecond until it dies.
 * A stop signal's default action sleeps inside rp_get_signal until SIGCONT.
 * Between calls the thread is offline, as a QSBR reader must be when idle.
 */
static void *run_job(void *arg)
{
	struct rp_task *job = (struct rp_task *)arg;
	const struct timespec tick = { 0, 1000000 };
	siginfo_t info;

	rp_thread_register();
	while (rp_get_signal(job, &info) != -ESRCH) {
		rp_thread_offline();
		nanosleep(&tick, NULL);
		rp_thread_online();
	}
	rp_thread_unregister();
	return NULL;
}

/* The shell waits for the job with @options: its status must pass @test. */
static int wait_job(struct rp_task *sh, pid_t job, int options, int (*test)(int status),
		    const char *what)
{
	int status = 0;
	pid_t pid = rp_wait4(sh, job, &status, options, NULL);

	if (pid != job)
		return example_fail("jobshell", what, pid);
	if (!test(status))
		return example_fail("jobshell", what, status);
	return 0;
}

static int stopped_by_tstp(int status)
{
	return WIFSTOPPED(status) && WSTOPSIG(status) == SIGTSTP;
}

static int continued(int status)
{
	return WIFCONTINUED(status);
}

static int killed_by_int(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGINT;
}

/* The session itself: ^Z, bg, fg, ^C, each answered as Linux answers it. */
static int job_control(struct rp_task *sh, struct rp_tty *tty, pid_t job)
{
	pid_t shell = rp_getpid(sh);
	int err;

	if ((err = set_foreground(sh, tty, job)) != 0)
		return err;
	/* ^Z: the foreground group stops; the shell sees it and takes the terminal. */
	if ((err = rp_tty_keyboard(tty, KEY_CTRL_Z)) != 0)
		return example_fail("jobshell", "^Z", err);
	if ((err = wait_job(sh, job, WUNTRACED, stopped_by_tstp, "wait4 after ^Z")) != 0 ||
	    (err = set_foreground(sh, tty, shell)) != 0)
		return err;
	/* bg: SIGCONT to the group, which runs on in the background. */
	if ((err = rp_kill(sh, -job, SIGCONT)) != 0)
		return example_fail("jobshell", "kill(-job, SIGCONT)", err);
	if ((err = wait_job(sh, job, WCONTINUED, continued, "wait4 after bg")) != 0)
		return err;
	/* fg: the terminal back to the job.  Its SIGCONT finds it running, so
	 * there is no second "continued" to report. */
	if ((err = set_foreground(sh, tty, job)) != 0)
		return err;
	if ((err = rp_kill(sh, -job, SIGCONT)) != 0)
		return example_fail("jobshell", "kill(-job, SIGCONT) for fg", err);
	if ((err = rp_wait4(sh, job, NULL, WCONTINUED | WNOHANG, NULL)) != 0)
		return example_fail("jobshell", "no report for a running job", err);
	/* ^C: the job dies of SIGINT; the shell reaps it and takes the terminal. */
	if ((err = rp_tty_keyboard(tty, KEY_CTRL_C)) != 0)
		return example_fail("jobshell", "^C", err);
	if ((err = wait_job(sh, job, 0, killed_by_int, "wait4 after ^C")) != 0)
		return err;
	return set_foreground(sh, tty, shell);
}

/* The shell exits and init reaps it. */
static int end_shell(struct rp_task *init, struct rp_task *sh)
{
	pid_t pid = rp_getpid(sh);
	int status = 0;

	rp_exit_group(sh, 0);
	if (rp_wait4(init, pid, &status, 0, NULL) != pid || !WIFEXITED(status))
		return example_fail("jobshell", "the shell's exit", status);
	return 0;
}

int main(void)
{
	struct rp_system *sys;
	struct rp_task *init = example_start(&sys), *sh = NULL, *job = NULL;
	struct rp_tty *tty = NULL;
	pthread_t job_thread;
	bool job_running = false;
	int err;

	if (!init)
		return 1;
	err = rp_tty_create(sys, &tty);
	if (err)
		err = example_fail("jobshell", "rp_tty_create", err);
	if (!err)
		err = start_shell(init, tty, &sh);
	if (!err)
		err = start_job(sh, &job);
	if (!err) {
		job_running = pthread_create(&job_thread, NULL, run_job, job) == 0;
		err = job_running ? job_control(sh, tty, rp_getpid(job))
				  : example_fail("jobshell", "pthread_create", 0);
	}
	/* A failure left the job alive: kill it, so that its thread ends. */
	if (err && job)
		rp_kill(init, rp_getpid(job), SIGKILL);
	if (job_running)
		pthread_join(job_thread, NULL);
	if (sh && end_shell(init, sh))
		err = 1;
	if (job)
		rp_task_put(job);
	if (sh)
		rp_task_put(sh);
	if (tty)
		rp_tty_destroy(tty);
	example_stop(sys, init);
	if (!err)
		printf("jobshell: a job stopped by ^Z, continued by bg, brought back by fg and "
		       "killed by ^C, library %s\n", rp_version());
	return err;
}
