/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A pid namespace made by clone(CLONE_NEWPID): its init reads its own
 * numbers (getpid 1, getppid 0, its group's leader outside: getpgrp 0),
 * takes a signal from its parent outside (si_pid 0), makes a session of
 * its own (setsid 1), forks children that read theirs, one of which
 * kill(-1)s the others inside; init waits for each by its number there,
 * then exits while a child and its thread still run, which ends the
 * namespace and kills both.  Pipes order the steps, so the recording is the same every
 * run.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int gate[2], last[2], up[2];

static void on_usr1(int sig)
{
	(void)sig;
}

/* Take one SIGUSR1 in a handler, blocked until the task waits for it,
 * once @fd has said so. */
static void take_usr1(int fd)
{
	struct sigaction sa;
	sigset_t usr1, none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	if (write(fd, "r", 1) != 1)
		_exit(9);
	sigemptyset(&none);
	sigsuspend(&none);
}

/* Pid 2 there: takes the kill(-1) of its sibling. */
static void receiver(void)
{
	getpid();
	getppid();
	take_usr1(gate[1]);
	_exit(5);
}

/* The thread of the last child: reads its own number there, then waits. */
static void *last_thread(void *arg)
{
	char c;

	(void)arg;
	syscall(SYS_gettid);
	if (write(gate[1], "t", 1) != 1)
		_exit(9);
	if (read(last[0], &c, 1) < 0)
		_exit(9);
	return NULL;
}

/* The namespace's init. */
static int init_main(void)
{
	pid_t a, b;
	char c;
	int st;

	getpid();
	getppid();
	getpgrp();
	take_usr1(up[1]);		/* the parent's SIGUSR1, from outside */
	setsid();
	getpgrp();
	a = fork();
	if (a == 0)
		receiver();
	if (read(gate[0], &c, 1) != 1)
		return 9;
	b = fork();
	if (b == 0) {
		getpid();
		kill(-1, SIGUSR1);
		_exit(6);
	}
	waitpid(a, &st, 0);
	waitpid(b, &st, 0);
	/* A child still running when init exits is killed with the namespace,
	 * each of its threads. */
	if (fork() == 0) {
		pthread_t th;

		close(last[1]);
		if (pthread_create(&th, NULL, last_thread, NULL))
			_exit(9);
		if (read(last[0], &c, 1) < 0)
			_exit(9);
		_exit(7);
	}
	if (read(gate[0], &c, 1) != 1)
		return 9;
	kill(2, 0);		/* reaped: ESRCH */
	return 3;
}

int main(void)
{
	pid_t init;
	int st;

	char c;

	if (pipe(gate) || pipe(last) || pipe(up))
		return 1;
	init = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
	if (init == 0)
		_exit(init_main());
	close(last[0]);
	if (read(up[0], &c, 1) != 1)
		return 1;
	kill(init, SIGUSR1);
	waitpid(init, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
