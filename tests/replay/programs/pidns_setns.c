/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setns into a pid namespace, then fork: the parent makes a namespace by
 * clone(CLONE_NEWPID), opens its init's /proc/PID/ns/pid, enters it with
 * setns and forks a child there (getpid 2, getppid 0: its parent is
 * outside); its own /proc/self/ns/pid takes it back, and its next child
 * is in its own namespace again.  Then it kills the init, which ends the
 * namespace.  Pipes order the steps, so the recording is the same every
 * run.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(void)
{
	int gate[2], st, ns, own;
	char path[64], c;
	pid_t init, child;

	if (pipe(gate))
		return 1;
	init = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
	if (init == 0) {
		close(gate[1]);
		if (read(gate[0], &c, 1) < 0)	/* until the parent's end */
			_exit(9);
		_exit(0);
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)init);
	ns = open(path, O_RDONLY);
	own = open("/proc/self/ns/pid", O_RDONLY);
	if (ns < 0 || own < 0 || setns(ns, CLONE_NEWPID))
		return 2;
	child = fork();
	if (child == 0) {
		getpid();
		getppid();
		kill(1, 0);		/* the namespace's init */
		_exit(4);
	}
	waitpid(child, &st, 0);
	if (setns(own, 0))
		return 3;
	child = fork();
	if (child == 0)
		_exit(5);
	waitpid(child, &st, 0);
	kill(init, SIGKILL);
	waitpid(init, &st, 0);
	return 0;
}
