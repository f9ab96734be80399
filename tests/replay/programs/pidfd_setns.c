/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * setns through a pidfd: the parent makes a namespace by
 * clone(CLONE_NEWPID), opens a pidfd on its init and enters its pid
 * namespace with setns(pidfd, CLONE_NEWPID); its next child is made
 * there (getpid 2, getppid 0).  setns on a pidfd with nstype 0 is refused
 * (EINVAL), and so is pidfd_open of a pid nobody has (ESRCH).  The init
 * is killed through the pidfd (pidfd_send_signal) and reaped through it
 * (waitid P_PIDFD); then a setns through that pidfd finds no process
 * (ESRCH).  Pipes and waits
 * order the steps, so the recording is the same every run.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

int main(void)
{
	int gate[2], st, fd;
	siginfo_t si;
	pid_t init, child;
	char c;

	if (pipe(gate))
		return 1;
	init = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
	if (init == 0) {
		close(gate[1]);
		if (read(gate[0], &c, 1) < 0)	/* until it is killed */
			_exit(9);
		_exit(0);
	}
	fd = (int)syscall(SYS_pidfd_open, init, 0);
	if (fd < 0)
		return 2;
	syscall(SYS_pidfd_open, 4194303, 0);	/* ESRCH */
	setns(fd, 0);				/* EINVAL: a pidfd needs a type */
	if (setns(fd, CLONE_NEWPID))
		return 3;
	child = fork();
	if (child == 0) {
		getpid();
		getppid();
		_exit(4);
	}
	waitpid(child, &st, 0);
	syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
	if (waitid(P_PIDFD, (id_t)fd, &si, WEXITED))
		return 4;
	setns(fd, CLONE_NEWPID);		/* ESRCH: reaped */
	return 0;
}
